//! Subscriptions of CDR bytes: with a callback, which reads each sample in
//! place, or polled; either is taken from with `hibari_subscription_take`.

use std::ffi::{c_char, c_void};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use hibari_rs::{
    CdrBytes, QosProfile, SampleInfo, Serialized, SubscriptionCreateError, SubscriptionOptions,
};

use crate::args::{check_out, copy_str, put, str_arg, UserData};
use crate::error::{ffi, hibari_ret_t, Error, Result};
use crate::handles::{
    self, hibari_callback_group_t, hibari_node_t, hibari_subscription_t, Close, Gate, Kind,
};
use crate::node::node;
use crate::qos::{from_c, hibari_qos_t};
use crate::slab::Slab;

/// What came with a sample.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
#[allow(non_camel_case_types)]
pub struct hibari_sample_info_t {
    /// Its place in its publisher's stream: 1, 2, 3…
    pub sequence: u64,
    /// When it was published, ns since the UNIX epoch.
    pub source_timestamp_ns: i64,
    /// When it reached this subscription, ns since the UNIX epoch.
    pub reception_timestamp_ns: i64,
    /// The publisher's id (a ROS 2 GID).
    pub publisher_id: [u8; 16],
    /// Samples of that publisher lost just before this one.
    pub lost_before: u64,
}

pub(crate) fn info(i: &SampleInfo) -> hibari_sample_info_t {
    hibari_sample_info_t {
        sequence: i.sequence,
        source_timestamp_ns: i.source_timestamp_ns,
        reception_timestamp_ns: i.reception_timestamp_ns,
        publisher_id: *i.publisher_id.as_bytes(),
        lost_before: i.lost_before,
    }
}

/// Called with each sample: its `len` CDR bytes (header included) at
/// `cdr`, borrowed for the call only — from another process, the
/// publisher's shared memory, read in place — and its info. It runs on the
/// thread of the executor spinning the subscription's node; it must return
/// normally (a C++ exception must not leave it).
#[allow(non_camel_case_types)]
pub type hibari_subscription_callback_t = Option<
    unsafe extern "C" fn(
        cdr: *const u8,
        len: usize,
        info: *const hibari_sample_info_t,
        user_data: *mut c_void,
    ),
>;

/// Every sample taken and not yet released.
static SAMPLES: Slab<CdrBytes> = Slab::new();

/// The callback of `callback`'s subscription for CDR bytes: run behind the
/// subscription's `gate`, counted in `ran` (the node's), with `user_data`.
pub(crate) fn byte_deliverer(
    callback: unsafe extern "C" fn(*const u8, usize, *const hibari_sample_info_t, *mut c_void),
    gate: Arc<Gate>,
    ran: Arc<AtomicU64>,
    user_data: *mut c_void,
) -> impl Fn(&CdrBytes, &SampleInfo) + Send + 'static {
    let user = UserData::new(user_data);
    move |bytes: &CdrBytes, sample: &SampleInfo| {
        let info = info(sample);
        gate.run(|| {
            ran.fetch_add(1, Ordering::Relaxed);
            // SAFETY: a C function given for this; the bytes (`len` of them
            // at their address) and `info` live through the call; `user` is
            // C's, handed back.
            unsafe { callback(bytes.as_ptr(), bytes.len(), &info, user.get()) }
        });
    }
}

/// A sample taken from a polled subscription: `len` CDR bytes at `data`,
/// read-only, valid until `hibari_sample_release` (which zeroes it).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
#[allow(non_camel_case_types)]
pub struct hibari_sample_t {
    /// The sample's id (never reused); 0 once released.
    pub id: u64,
    pub data: *const u8,
    pub len: usize,
    pub info: hibari_sample_info_t,
}

pub(crate) fn subscription(
    s: hibari_subscription_t,
) -> Result<Arc<hibari_rs::Subscription<Serialized>>> {
    handles::get(Kind::Subscription, s.id)
}

/// Creates a subscription of the message type `type_name` on `topic` with
/// `qos` (NULL: the default profile). With a `callback`, the executor
/// spinning the node calls it with each sample and `user_data` (see
/// `hibari_subscription_callback_t`), in the node's default callback group
/// (see `hibari_subscription_create_in_group`); with NULL, samples wait (up
/// to the QoS depth) for `hibari_subscription_take`. Destroy it with
/// `hibari_subscription_destroy` (or with its node); once that returned, the
/// callback is not running and never runs again — except when it is called
/// from inside this very callback, which then finishes first.
///
/// # Safety
///
/// `topic` and `type_name` are NUL-terminated strings; `qos` is NULL or
/// readable; `user_data` may be used on the executor's threads; `out` is
/// writable.
#[no_mangle]
pub unsafe extern "C" fn hibari_subscription_create(
    node: hibari_node_t,
    topic: *const c_char,
    type_name: *const c_char,
    qos: *const hibari_qos_t,
    callback: hibari_subscription_callback_t,
    user_data: *mut c_void,
    out: *mut hibari_subscription_t,
) -> hibari_ret_t {
    // SAFETY: the caller's contract is create's.
    unsafe {
        create(
            node, None, topic, type_name, qos, callback, None, user_data, out,
        )
    }
}

/// `hibari_subscription_create` with the callback in `group`, a callback
/// group of `node` (`HIBARI_ERROR_INVALID_ARGUMENT` for another node's; see
/// `hibari_callback_group_create`). In a reentrant group, a multi-threaded
/// executor may run the callback while callbacks of the group's other
/// entities run; never two calls of this callback at once.
///
/// # Safety
///
/// As `hibari_subscription_create`.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn hibari_subscription_create_in_group(
    node: hibari_node_t,
    group: hibari_callback_group_t,
    topic: *const c_char,
    type_name: *const c_char,
    qos: *const hibari_qos_t,
    callback: hibari_subscription_callback_t,
    user_data: *mut c_void,
    out: *mut hibari_subscription_t,
) -> hibari_ret_t {
    // SAFETY: the caller's contract is create's.
    unsafe {
        create(
            node,
            Some(group),
            topic,
            type_name,
            qos,
            callback,
            None,
            user_data,
            out,
        )
    }
}

/// Every creation function: `group` `None` is the node's default group;
/// with `values`, the callback is `callback` for bytes and the value
/// callback for values of the tagged type (`hibari_subscription_create_with_values`).
///
/// # Safety
///
/// As `hibari_subscription_create`.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn create(
    node: hibari_node_t,
    group: Option<hibari_callback_group_t>,
    topic: *const c_char,
    type_name: *const c_char,
    qos: *const hibari_qos_t,
    callback: hibari_subscription_callback_t,
    values: Option<crate::value::Values>,
    user_data: *mut c_void,
    out: *mut hibari_subscription_t,
) -> hibari_ret_t {
    ffi(|| {
        check_out(out, "out")?;
        // SAFETY: the caller's contract.
        let (topic, type_name) =
            unsafe { (str_arg(topic, "topic")?, str_arg(type_name, "type_name")?) };
        // SAFETY: the caller's contract.
        let qos = unsafe { from_c(qos, QosProfile::default()) }?;
        let n = self::node(node)?;
        let mut options = SubscriptionOptions::new(qos);
        if let Some(g) = crate::group::for_entity(node, group)? {
            options = options.callback_group(&g);
        }
        crate::interfaces::check_message(type_name)?;
        let gate = Arc::new(Gate::default());
        let created = match (callback, values) {
            (None, _) => n
                .inner
                .create_generic_polled_subscription(topic, type_name, options),
            (Some(callback), Some(values)) => {
                let deliver = values.deliver(callback, gate.clone(), n.ran.clone(), user_data);
                n.inner
                    .create_foreign_subscription(topic, type_name, options, deliver)
            }
            (Some(callback), None) => {
                let deliver = byte_deliverer(callback, gate.clone(), n.ran.clone(), user_data);
                n.inner.create_generic_subscription(
                    topic,
                    type_name,
                    options,
                    move |bytes: CdrBytes, sample: SampleInfo| deliver(&bytes, &sample),
                )
            }
        };
        let sub = created.map_err(|e| match e {
            SubscriptionCreateError::InvalidTopic(_) => Error::invalid_from(e),
            e => Error::other(e),
        })?;
        let close: Arc<dyn Close> = gate;
        let id = handles::insert(Kind::Subscription, node.id, Arc::new(sub), Some(close));
        // SAFETY: the caller's contract.
        unsafe { put(out, "out", hibari_subscription_t { id }) }
    })
}

/// Takes the oldest sample of a subscription, without waiting: `taken_out`
/// says whether there was one (and then `out` holds it, to release with
/// `hibari_sample_release`). A subscription with a callback may be taken
/// from too (as rclcpp's, after a wait set found it ready): each sample
/// goes to whichever takes it first, this or the executor's callback.
///
/// # Safety
///
/// `out` and `taken_out` are writable.
#[no_mangle]
pub unsafe extern "C" fn hibari_subscription_take(
    subscription: hibari_subscription_t,
    out: *mut hibari_sample_t,
    taken_out: *mut bool,
) -> hibari_ret_t {
    ffi(|| {
        check_out(out, "out")?;
        check_out(taken_out, "taken_out")?;
        let s = self::subscription(subscription)?;
        let Some((bytes, sample)) = s.take() else {
            // SAFETY: the caller's contract.
            return unsafe { put(taken_out, "taken_out", false) };
        };
        let (data, len) = (bytes.as_ptr(), bytes.len());
        let id = SAMPLES.insert(bytes)?;
        let taken = hibari_sample_t {
            id,
            data,
            len,
            info: info(&sample),
        };
        // SAFETY: the caller's contract.
        unsafe {
            put(out, "out", taken)?;
            put(taken_out, "taken_out", true)
        }
    })
}

/// Releases a taken sample (its memory goes back to the transport) and
/// zeroes the struct.
///
/// # Safety
///
/// `sample` points to a sample from `hibari_subscription_take` (readable
/// and writable).
#[no_mangle]
pub unsafe extern "C" fn hibari_sample_release(sample: *mut hibari_sample_t) -> hibari_ret_t {
    ffi(|| {
        if sample.is_null() || !sample.is_aligned() {
            return Err(Error::invalid("`sample` is NULL or misaligned"));
        }
        // SAFETY: not NULL, aligned, readable (the caller's contract); the id
        // is an integer.
        let id = unsafe { std::ptr::addr_of!((*sample).id).read() };
        SAMPLES.take(id, "sample")?;
        // SAFETY: as above, and writable.
        unsafe {
            sample.write(hibari_sample_t {
                id: 0,
                data: std::ptr::null(),
                len: 0,
                info: hibari_sample_info_t::default(),
            })
        };
        Ok(())
    })
}

/// How many publishers are matched now.
///
/// # Safety
///
/// `count_out` is writable.
#[no_mangle]
pub unsafe extern "C" fn hibari_subscription_get_publisher_count(
    subscription: hibari_subscription_t,
    count_out: *mut usize,
) -> hibari_ret_t {
    ffi(|| {
        let count = self::subscription(subscription)?.matched_publishers();
        // SAFETY: the caller's contract.
        unsafe { put(count_out, "count_out", count) }
    })
}

/// The topic's full name, as `hibari_node_get_name`.
///
/// # Safety
///
/// `buf` is NULL or has `cap` writable bytes; `len_out` is writable.
#[no_mangle]
pub unsafe extern "C" fn hibari_subscription_get_topic_name(
    subscription: hibari_subscription_t,
    buf: *mut c_char,
    cap: usize,
    len_out: *mut usize,
) -> hibari_ret_t {
    ffi(|| {
        let s = self::subscription(subscription)?;
        // SAFETY: the caller's contract.
        unsafe { copy_str(s.topic(), buf, cap, len_out) }
    })
}

/// Destroys the subscription (see `hibari_subscription_create` for when
/// its callback stops). Samples taken stay valid until released.
#[no_mangle]
pub extern "C" fn hibari_subscription_destroy(subscription: hibari_subscription_t) -> hibari_ret_t {
    ffi(|| {
        handles::remove::<hibari_rs::Subscription<Serialized>>(Kind::Subscription, subscription.id)
            .map(drop)
    })
}

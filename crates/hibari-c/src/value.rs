//! Values of the caller's own message types, handed over in this process
//! without being encoded: the C++ layer publishes a `std::unique_ptr<T>`
//! here, and its typed subscriptions in the same program read the very
//! object.
//!
//! A published value travels with its `hibari_value_ops_t`: the functions
//! that measure and encode it (called only for readers that need CDR —
//! subscribers in other processes or on other hosts, Rust subscriptions,
//! subscriptions of another program's types — at most once per sample, or
//! straight into a shared-memory loan) and the one that frees it (called
//! once, when the last reader lets go). A subscription created with
//! `hibari_subscription_create_with_values` names the type tag it reads:
//! values carrying that tag reach its value callback, borrowed; every other
//! sample reaches its byte callback as CDR.

use std::ffi::{c_char, c_void};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

use hibari_rs::{CdrEncodeError, ForeignMessage, ForeignSample, PublishError, SampleInfo};

use crate::args::UserData;
use crate::error::{ffi, hibari_ret_t, Error};
use crate::handles::{hibari_callback_group_t, hibari_node_t, hibari_subscription_t, Gate};
use crate::publisher::publish_written;
use crate::qos::hibari_qos_t;
use crate::subscription::{
    byte_deliverer, hibari_sample_info_t, hibari_subscription_callback_t, info,
};

/// What hibari calls on a value of the caller's type. Every function may be
/// called on any thread, also while subscription callbacks read the value;
/// none may throw. The struct and its `type_tag` must stay valid (and
/// unchanged) while any value published with it lives: in practice, a
/// static per type.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
#[allow(non_camel_case_types)]
pub struct hibari_value_ops_t {
    /// Identifies the value's type in this program (the address of
    /// something unique to it): values reach a subscription's value callback
    /// only when this equals the subscription's tag.
    pub type_tag: *const c_void,
    /// The exact length of the value's CDR (encapsulation header included);
    /// 0 when it cannot be encoded.
    pub encoded_len: Option<unsafe extern "C" fn(value: *const c_void) -> usize>,
    /// Writes the value's CDR into the `len` bytes at `out` (`len` is what
    /// `encoded_len` said); returns whether it did.
    pub encode:
        Option<unsafe extern "C" fn(value: *const c_void, out: *mut u8, len: usize) -> bool>,
    /// Frees the value.
    pub drop: Option<unsafe extern "C" fn(value: *mut c_void)>,
}

// SAFETY: plain data: the tag is only compared, never dereferenced, and
// the functions are promised callable on any thread (the contract above), so
// a static of it may be shared.
unsafe impl Sync for hibari_value_ops_t {}
// SAFETY: as for Sync.
unsafe impl Send for hibari_value_ops_t {}

type EncodedLen = unsafe extern "C" fn(*const c_void) -> usize;
type Encode = unsafe extern "C" fn(*const c_void, *mut u8, usize) -> bool;
type Free = unsafe extern "C" fn(*mut c_void);

/// A published value: the caller's object and its functions.
struct CValue {
    value: *mut c_void,
    tag: *const c_void,
    encoded_len: EncodedLen,
    encode: Encode,
    drop: Free,
    /// What `encoded_len` said (the object does not change): a publish to
    /// shared memory asks for the size, then encodes, which needs it again.
    len: OnceLock<usize>,
}

// SAFETY: the object is only read (by `encoded_len`, `encode` and value
// callbacks) and freed once, by `drop`; the caller promises in
// `hibari_value_ops_t`'s contract that all three may run on any thread, also
// concurrently with readers.
unsafe impl Send for CValue {}
// SAFETY: as for Send: shared readers only read.
unsafe impl Sync for CValue {}

impl ForeignMessage for CValue {
    fn encoded_len(&self) -> Result<usize, CdrEncodeError> {
        if let Some(&n) = self.len.get() {
            return Ok(n);
        }
        // SAFETY: the caller's function for this value, which lives until
        // `drop` (which runs only when `self` is dropped).
        match unsafe { (self.encoded_len)(self.value) } {
            0 => Err(CdrEncodeError::Foreign(
                "the value's encoded_len function returned 0 (it cannot be encoded)".into(),
            )),
            n => Ok(*self.len.get_or_init(|| n)),
        }
    }

    fn encode_into(&self, out: &mut [u8]) -> Result<usize, CdrEncodeError> {
        let len = self.encoded_len()?;
        let capacity = out.len();
        let out = out.get_mut(..len).ok_or(CdrEncodeError::BufferTooSmall {
            needed: len,
            capacity,
        })?;
        // SAFETY: as above; `out` is `len` writable bytes for the call.
        if !unsafe { (self.encode)(self.value, out.as_mut_ptr(), len) } {
            return Err(CdrEncodeError::Foreign(
                "the value's encode function returned false".into(),
            ));
        }
        match out {
            [0, 0 | 1, _, _, ..] => Ok(len),
            _ => Err(CdrEncodeError::Foreign(
                "the value's encode function wrote no CDR encapsulation header".into(),
            )),
        }
    }
}

impl Drop for CValue {
    fn drop(&mut self) {
        // SAFETY: the caller's function for this value; called once, here.
        unsafe { (self.drop)(self.value) }
    }
}

/// Publishes `value`, an object of the caller's type with its `ops`,
/// handed over as it is: subscriptions of this process whose tag is
/// `ops->type_tag` read the object itself; every other reader gets its
/// encoding (see the module's docs). With no subscription in this process,
/// the value is encoded at once, straight into the memory the transport
/// carries, as `hibari_publisher_publish_with` does. hibari owns `value` from this call on,
/// also when it fails: `ops->drop` frees it exactly once, on some thread,
/// when no reader holds it any more (before this returns if none took it).
/// With `value` or `ops` NULL, or a function of `ops` NULL, the call fails
/// and `value` stays the caller's.
///
/// # Safety
///
/// `value` points to an object `ops` works on; `ops` is readable and keeps
/// `hibari_value_ops_t`'s contract.
#[no_mangle]
pub unsafe extern "C" fn hibari_publisher_publish_value(
    publisher: crate::handles::hibari_publisher_t,
    value: *mut c_void,
    ops: *const hibari_value_ops_t,
) -> hibari_ret_t {
    ffi(|| {
        if value.is_null() {
            return Err(Error::invalid("`value` is NULL"));
        }
        if ops.is_null() || !ops.is_aligned() {
            return Err(Error::invalid("`ops` is NULL or misaligned"));
        }
        // SAFETY: not NULL, aligned, readable (the caller's contract).
        let ops = unsafe { ops.read() };
        let (Some(encoded_len), Some(encode), Some(drop)) = (ops.encoded_len, ops.encode, ops.drop)
        else {
            return Err(Error::invalid(
                "`ops` lacks a function: encoded_len, encode and drop are all needed",
            ));
        };
        let value = CValue {
            value,
            tag: ops.type_tag,
            encoded_len,
            encode,
            drop,
            len: OnceLock::new(),
        };
        let p = crate::publisher::publisher(publisher)?;
        if p.matched_in_process_subscriptions() == 0 && p.matched_subscriptions() > 0 {
            // No subscription of this process would read the object: it is
            // encoded once, straight where it goes (as rclcpp publishes a
            // unique_ptr without intra-process subscriptions), and freed
            // when this returns.
            let len = value.encoded_len().map_err(Error::other)?;
            return publish_written(&p, len, |out| {
                value.encode_into(out).map(|_| ()).map_err(Error::other)
            });
        }
        p.publish_foreign(value).map_err(|e| match e {
            PublishError::Timeout { .. } => Error::from(hibari_ret_t::HIBARI_ERROR_TIMEOUT, e),
            e => Error::other(e),
        })
    })
}

/// Called with a value of the subscription's type, published in this
/// process: `value` is the publisher's object, borrowed for the call (other
/// subscriptions may read it at the same time; it must not be changed).
/// Runs where `hibari_subscription_callback_t` does.
#[allow(non_camel_case_types)]
pub type hibari_value_callback_t = Option<
    unsafe extern "C" fn(
        value: *const c_void,
        info: *const hibari_sample_info_t,
        user_data: *mut c_void,
    ),
>;

/// The value half of a subscription with values.
#[derive(Clone, Copy)]
pub(crate) struct Values {
    tag: *const c_void,
    callback: unsafe extern "C" fn(*const c_void, *const hibari_sample_info_t, *mut c_void),
}

impl Values {
    /// The subscription's callback: values of its tag to the value
    /// callback, everything else as bytes to `bytes`.
    pub fn deliver(
        self,
        bytes: unsafe extern "C" fn(*const u8, usize, *const hibari_sample_info_t, *mut c_void),
        gate: Arc<Gate>,
        ran: Arc<AtomicU64>,
        user_data: *mut c_void,
    ) -> impl FnMut(ForeignSample, SampleInfo) + Send + 'static {
        let deliver_bytes = byte_deliverer(bytes, gate.clone(), ran.clone(), user_data);
        let user = UserData::new(user_data);
        let tag = self.tag as usize;
        let callback = self.callback;
        move |sample: ForeignSample, sample_info: SampleInfo| {
            if let Some(v) = sample.foreign::<CValue>().filter(|v| v.tag as usize == tag) {
                let i = info(&sample_info);
                gate.run(|| {
                    ran.fetch_add(1, Ordering::Relaxed);
                    // SAFETY: the caller's function; the object lives (the
                    // sample holds it) and `i` too, through the call.
                    unsafe { callback(v.value, &i, user.get()) }
                });
                return;
            }
            // A value that cannot be encoded reaches no byte callback (its
            // publisher's encoder failed: nothing to deliver).
            if let Ok(cdr) = sample.into_cdr_bytes() {
                deliver_bytes(&cdr, &sample_info);
            }
        }
    }
}

// SAFETY: the tag is only compared, never dereferenced; the function is
// the caller's, promised callable on the executor's threads.
unsafe impl Send for Values {}

/// `hibari_subscription_create` (or `_in_group`, with a `group` of the node;
/// a zero group handle is the node's default group) whose samples that are
/// values published in this process by `hibari_publisher_publish_value`
/// with `type_tag` reach `value_callback` as the objects themselves
/// (nothing encoded or decoded); every other sample reaches `callback` as
/// CDR bytes. Both callbacks are required. Destroyed as any subscription.
///
/// # Safety
///
/// As `hibari_subscription_create`; `value_callback` is a function as
/// `hibari_value_callback_t` says.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn hibari_subscription_create_with_values(
    node: hibari_node_t,
    group: hibari_callback_group_t,
    topic: *const c_char,
    type_name: *const c_char,
    qos: *const hibari_qos_t,
    callback: hibari_subscription_callback_t,
    type_tag: *const c_void,
    value_callback: hibari_value_callback_t,
    user_data: *mut c_void,
    out: *mut hibari_subscription_t,
) -> hibari_ret_t {
    let (Some(_), Some(value_callback)) = (callback, value_callback) else {
        return ffi(|| {
            Err(Error::invalid(
                "`callback` and `value_callback` are both needed",
            ))
        });
    };
    let values = Values {
        tag: type_tag,
        callback: value_callback,
    };
    let group = (group.id != 0).then_some(group);
    // SAFETY: the caller's contract is create's.
    unsafe {
        crate::subscription::create(
            node,
            group,
            topic,
            type_name,
            qos,
            callback,
            Some(values),
            user_data,
            out,
        )
    }
}

//! Publishers of CDR bytes, by type name.

use std::ffi::{c_char, c_void};
use std::ops::Deref;
use std::sync::Arc;

use hibari_rs::{PublisherCreateError, QosProfile, Serialized, WriteError};

use crate::args::{bytes_arg, check_out, copy_str, put, str_arg, timeout};
use crate::error::{ffi, hibari_ret_t, Error, Result};
use crate::handles::{self, hibari_node_t, hibari_publisher_t, Kind};
use crate::node::node;
use crate::qos::{from_c, hibari_qos_t};

/// A publisher of CDR bytes. Messages that no transport lends memory for
/// (every subscription in this process) go in the publisher's recycled heap
/// buffers (`hibari::Publisher::loan`): publishing a large message again
/// allocates nothing and touches no fresh page.
pub(crate) struct BytesPublisher {
    inner: hibari_rs::Publisher<Serialized>,
}

impl Deref for BytesPublisher {
    type Target = hibari_rs::Publisher<Serialized>;
    fn deref(&self) -> &Self::Target {
        &self.inner
    }
}

pub(crate) fn publisher(p: hibari_publisher_t) -> Result<Arc<BytesPublisher>> {
    handles::get(Kind::Publisher, p.id)
}

/// Checks that `bytes` start with a CDR encapsulation header.
pub(crate) fn check_cdr(bytes: &[u8], what: &str) -> Result {
    match bytes {
        [0, 0 | 1, _, _, ..] => Ok(()),
        _ => Err(Error::invalid(format!(
            "{what} is not CDR: it must start with the 4-byte encapsulation header \
             (00 01 00 00 for little endian), as ROS 2's serialized messages do"
        ))),
    }
}

pub(crate) fn create_error(e: PublisherCreateError) -> Error {
    match e {
        PublisherCreateError::InvalidTopic(_) => Error::invalid_from(e),
        e => Error::other(e),
    }
}

/// Creates a publisher of the message type `type_name`
/// (`std_msgs/msg/String`) on `topic` (expanded and remapped by the node),
/// with `qos` (NULL: the default profile). Destroy it with
/// `hibari_publisher_destroy` (or with its node).
///
/// # Safety
///
/// `topic` and `type_name` are NUL-terminated strings; `qos` is NULL or
/// readable; `out` is writable.
#[no_mangle]
pub unsafe extern "C" fn hibari_publisher_create(
    node: hibari_node_t,
    topic: *const c_char,
    type_name: *const c_char,
    qos: *const hibari_qos_t,
    out: *mut hibari_publisher_t,
) -> hibari_ret_t {
    ffi(|| {
        check_out(out, "out")?;
        // SAFETY: the caller's contract.
        let (topic, type_name) =
            unsafe { (str_arg(topic, "topic")?, str_arg(type_name, "type_name")?) };
        // SAFETY: the caller's contract.
        let qos = unsafe { from_c(qos, QosProfile::default()) }?;
        let n = self::node(node)?;
        crate::interfaces::check_message(type_name)?;
        let inner = n
            .inner
            .create_generic_publisher(topic, type_name, qos)
            .map_err(create_error)?;
        let publisher = BytesPublisher { inner };
        let id = handles::insert(Kind::Publisher, node.id, Arc::new(publisher), None);
        // SAFETY: the caller's contract.
        unsafe { put(out, "out", hibari_publisher_t { id }) }
    })
}

/// Publishes one message: `len` bytes of CDR at `cdr`, with the 4-byte
/// encapsulation header, as ROS 2 serializes messages. The bytes are copied
/// before it returns. To write a large message without that copy, loan
/// (`hibari_publisher_loan`), or write it in `hibari_publisher_publish_with`.
///
/// # Safety
///
/// `cdr` points to `len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn hibari_publisher_publish(
    publisher: hibari_publisher_t,
    cdr: *const u8,
    len: usize,
) -> hibari_ret_t {
    ffi(|| {
        // SAFETY: the caller's contract.
        let bytes = unsafe { bytes_arg(cdr, len, "cdr") }?;
        check_cdr(bytes, "the message")?;
        let p = self::publisher(publisher)?;
        publish_written(&p, len, |out| {
            out.copy_from_slice(bytes);
            Ok(())
        })
    })
}

/// Writes one message's CDR into `len` bytes at `data` (all of them,
/// starting with the 4-byte encapsulation header); returns whether it did.
/// It must return normally (a C++ exception must not leave it).
#[allow(non_camel_case_types)]
pub type hibari_publisher_write_t =
    Option<unsafe extern "C" fn(data: *mut u8, len: usize, user_data: *mut c_void) -> bool>;

/// Publishes one message of `len` bytes that `write` writes straight into
/// the memory the transport carries: to subscribers in other processes a
/// chunk of shared memory, which they read in place; otherwise a buffer of
/// the publisher's (reused once the subscribers of this process are done
/// with it) handed to them without a copy. `write` is called once, before
/// this returns, with that memory, `len` and `user_data`; when it returns
/// false nothing is sent (the call fails with `HIBARI_ERROR`). What
/// `hibari_publisher_publish` does without its copy: the C++ layer's
/// `publish(const T &)` encodes the message here (its exact size first).
///
/// # Safety
///
/// `write` is a function as `hibari_publisher_write_t` says.
#[no_mangle]
pub unsafe extern "C" fn hibari_publisher_publish_with(
    publisher: hibari_publisher_t,
    len: usize,
    write: hibari_publisher_write_t,
    user_data: *mut c_void,
) -> hibari_ret_t {
    ffi(|| {
        let write = write.ok_or_else(|| Error::invalid("`write` is NULL"))?;
        let p = self::publisher(publisher)?;
        publish_written(&p, len, |out| {
            // SAFETY: a C function given for this (the caller's contract);
            // `out` is `len` writable bytes that stay where they are through
            // the call; `user_data` is the caller's, handed back.
            if unsafe { write(out.as_mut_ptr(), len, user_data) } {
                Ok(())
            } else {
                Err(Error::other(
                    "the message was not written (the write function returned false): nothing was sent",
                ))
            }
        })
    })
}

/// Publishes one message of `len` bytes that `write` writes straight into
/// the memory the transport carries (`hibari_publisher_publish_with`): a
/// shared-memory loan when another process subscribes, else one of the
/// publisher's recycled heap buffers. Nothing is sent when `write` fails.
pub(crate) fn publish_written(
    p: &BytesPublisher,
    len: usize,
    write: impl FnOnce(&mut [u8]) -> Result,
) -> Result {
    let mut loan = p.loan(len).map_err(Error::other)?;
    write(&mut loan[..len])?;
    check_cdr(&loan[..], "the message")?;
    loan.send().map_err(|e| match e.into_reason() {
        e @ WriteError::Timeout { .. } => Error::from(hibari_ret_t::HIBARI_ERROR_TIMEOUT, e),
        e => Error::other(e),
    })
}

/// How many subscriptions are matched now.
///
/// # Safety
///
/// `count_out` is writable.
#[no_mangle]
pub unsafe extern "C" fn hibari_publisher_get_subscription_count(
    publisher: hibari_publisher_t,
    count_out: *mut usize,
) -> hibari_ret_t {
    ffi(|| {
        let count = self::publisher(publisher)?.matched_subscriptions();
        // SAFETY: the caller's contract.
        unsafe { put(count_out, "count_out", count) }
    })
}

/// How many of the matched subscriptions are in this process (rclcpp's
/// `get_intra_process_subscription_count`): the ones a handed-over value
/// (`hibari_publisher_publish_value`) reaches as it is.
///
/// # Safety
///
/// `count_out` is writable.
#[no_mangle]
pub unsafe extern "C" fn hibari_publisher_get_intra_process_subscription_count(
    publisher: hibari_publisher_t,
    count_out: *mut usize,
) -> hibari_ret_t {
    ffi(|| {
        let count = self::publisher(publisher)?.matched_in_process_subscriptions();
        // SAFETY: the caller's contract.
        unsafe { put(count_out, "count_out", count) }
    })
}

/// Waits up to `timeout_ns` (negative: forever) until at least `count`
/// subscriptions are matched; writes whether they are to `matched_out`.
///
/// # Safety
///
/// `matched_out` is writable.
#[no_mangle]
pub unsafe extern "C" fn hibari_publisher_wait_for_subscriptions(
    publisher: hibari_publisher_t,
    count: usize,
    timeout_ns: i64,
    matched_out: *mut bool,
) -> hibari_ret_t {
    ffi(|| {
        check_out(matched_out, "matched_out")?;
        let p = self::publisher(publisher)?;
        let matched = p.wait_for_subscribers(count, timeout(timeout_ns));
        // SAFETY: the caller's contract.
        unsafe { put(matched_out, "matched_out", matched) }
    })
}

/// The topic's full name (expanded, remapped), as `hibari_node_get_name`.
///
/// # Safety
///
/// `buf` is NULL or has `cap` writable bytes; `len_out` is writable.
#[no_mangle]
pub unsafe extern "C" fn hibari_publisher_get_topic_name(
    publisher: hibari_publisher_t,
    buf: *mut c_char,
    cap: usize,
    len_out: *mut usize,
) -> hibari_ret_t {
    ffi(|| {
        let p = self::publisher(publisher)?;
        // SAFETY: the caller's contract.
        unsafe { copy_str(p.topic(), buf, cap, len_out) }
    })
}

/// Destroys the publisher. Its loans not yet sent stay valid.
#[no_mangle]
pub extern "C" fn hibari_publisher_destroy(publisher: hibari_publisher_t) -> hibari_ret_t {
    ffi(|| handles::remove::<BytesPublisher>(Kind::Publisher, publisher.id).map(drop))
}

//! Publishers of CDR bytes, by type name.

use std::ffi::c_char;
use std::sync::Arc;

use hibari_rs::{PublishError, PublisherCreateError, QosProfile, Serialized};

use crate::args::{bytes_arg, check_out, copy_str, put, str_arg, timeout};
use crate::error::{ffi, hibari_ret_t, Error, Result};
use crate::handles::{self, hibari_node_t, hibari_publisher_t, Kind};
use crate::node::node;
use crate::qos::{from_c, hibari_qos_t};

pub(crate) type BytesPublisher = hibari_rs::Publisher<Serialized>;

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
        let id = handles::insert(Kind::Publisher, node.id, Arc::new(inner), None);
        // SAFETY: the caller's contract.
        unsafe { put(out, "out", hibari_publisher_t { id }) }
    })
}

/// Publishes one message: `len` bytes of CDR at `cdr`, with the 4-byte
/// encapsulation header, as ROS 2 serializes messages. The bytes are copied
/// before it returns. To write a large message without that copy, loan
/// (`hibari_publisher_loan`).
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
        p.publish(bytes.to_vec()).map_err(|e| match e {
            PublishError::Timeout { .. } => Error::from(hibari_ret_t::HIBARI_ERROR_TIMEOUT, e),
            e => Error::other(e),
        })
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

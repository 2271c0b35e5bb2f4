//! Publishing the caller's objects: a heap object handed over
//! (`hibari_publisher_publish_value`), or one moved into the sample
//! (`hibari_publisher_publish_value_from`).

use std::cell::UnsafeCell;
use std::ffi::c_void;
use std::mem::MaybeUninit;
use std::sync::atomic::{AtomicBool, AtomicUsize};

use hibari_rs::{ForeignMessage, PublishError};

use super::{
    hibari_value_ops_t, CValue, Place, HIBARI_VALUE_INLINE_ALIGN, HIBARI_VALUE_INLINE_SIZE,
};
use crate::error::{ffi, hibari_ret_t, Error, Result};
use crate::handles::hibari_publisher_t;
use crate::publisher::{publish_written, BytesPublisher};

impl From<PublishError<()>> for Error {
    fn from(e: PublishError<()>) -> Error {
        match e {
            PublishError::Timeout { .. } => Error::from(hibari_ret_t::HIBARI_ERROR_TIMEOUT, e),
            e => Error::other(e),
        }
    }
}

/// The functions every publish needs, out of checked ops.
struct Encoder {
    tag: *const c_void,
    encoded_len: super::EncodedLen,
    encode: super::Encode,
}

/// `ops`, read and checked: not NULL, aligned, with the functions every
/// publish needs.
///
/// # Safety
///
/// `ops` is NULL or readable.
unsafe fn read_ops(ops: *const hibari_value_ops_t) -> Result<(hibari_value_ops_t, Encoder)> {
    if ops.is_null() || !ops.is_aligned() {
        return Err(Error::invalid("`ops` is NULL or misaligned"));
    }
    // SAFETY: not NULL, aligned, readable (the caller's contract).
    let ops = unsafe { ops.read() };
    let (Some(encoded_len), Some(encode)) = (ops.encoded_len, ops.encode) else {
        return Err(Error::invalid("`ops` lacks encoded_len or encode"));
    };
    let encoder = Encoder {
        tag: ops.type_tag,
        encoded_len,
        encode,
    };
    Ok((ops, encoder))
}

impl Encoder {
    /// A value at `place` with these functions and `free`.
    fn value_at(&self, place: Place, free: super::Free) -> CValue {
        CValue {
            place,
            tag: self.tag,
            encoded_len: self.encoded_len,
            encode: self.encode,
            free,
            len: AtomicUsize::new(0),
        }
    }
}

/// Whether no subscription of this process would read an object while
/// some subscription is matched: the object is then encoded at once,
/// straight where it goes (as rclcpp publishes a unique_ptr without
/// intra-process subscriptions), rather than handed over.
fn encode_now(p: &BytesPublisher) -> bool {
    p.matched_in_process_subscriptions() == 0 && p.matched_subscriptions() > 0
}

/// Encodes `value` once, straight into the memory the transport carries.
fn publish_encoded(p: &BytesPublisher, value: &CValue) -> Result {
    let len = value.encoded_len().map_err(Error::other)?;
    publish_written(p, len, |out| {
        value.encode_into(out).map(|_| ()).map_err(Error::other)
    })
}

/// Publishes `value`, an object of the caller's type with its `ops`,
/// handed over as it is: subscriptions of this process whose tag is
/// `ops->type_tag` read the object itself; every other reader gets its
/// encoding (see the module's docs). With no subscription in this process,
/// the value is encoded at once, straight into the memory the transport
/// carries, as `hibari_publisher_publish_with` does. hibari owns `value`
/// from this call on, also when it fails: `ops->drop` frees it exactly
/// once, on some thread, when no reader holds it any more (before this
/// returns if none took it). With `value` or `ops` NULL, or `encoded_len`,
/// `encode` or `drop` NULL, the call fails and `value` stays the caller's.
///
/// # Safety
///
/// `value` points to an object `ops` works on; `ops` is readable and keeps
/// `hibari_value_ops_t`'s contract.
#[no_mangle]
pub unsafe extern "C" fn hibari_publisher_publish_value(
    publisher: hibari_publisher_t,
    value: *mut c_void,
    ops: *const hibari_value_ops_t,
) -> hibari_ret_t {
    ffi(|| {
        if value.is_null() {
            return Err(Error::invalid("`value` is NULL"));
        }
        // SAFETY: the caller's contract.
        let (ops, encoder) = unsafe { read_ops(ops) }?;
        let drop = ops.drop.ok_or_else(|| Error::invalid("`ops` lacks drop"))?;
        let value = encoder.value_at(Place::Heap(value), drop);
        let p = crate::publisher::publisher(publisher)?;
        if encode_now(&p) {
            return publish_encoded(&p, &value);
        }
        p.publish_foreign(value).map_err(Into::into)
    })
}

/// Publishes the object at `src`, which stays the caller's (to destroy as
/// usual once this returns, moved from or not): when subscriptions of this
/// process may read objects, it is moved (`ops->move_into`) into storage
/// inside the sample — one allocation per message — where subscriptions
/// of its tag read it, and `ops->destroy` ends it when no reader holds it
/// any more; with none (and some elsewhere), it is encoded from `src`,
/// straight into the memory the transport carries, and not moved. Needs
/// `encoded_len`, `encode`, `move_into` and `destroy`, and a type of at
/// most `HIBARI_VALUE_INLINE_SIZE` bytes aligned to at most
/// `HIBARI_VALUE_INLINE_ALIGN` (larger ones go through
/// `hibari_publisher_publish_value`).
///
/// # Safety
///
/// `src` points to an object `ops` works on; `ops` is readable and keeps
/// `hibari_value_ops_t`'s contract, its `size` and `align` those of the
/// object's type.
#[no_mangle]
pub unsafe extern "C" fn hibari_publisher_publish_value_from(
    publisher: hibari_publisher_t,
    src: *mut c_void,
    ops: *const hibari_value_ops_t,
) -> hibari_ret_t {
    ffi(|| {
        if src.is_null() {
            return Err(Error::invalid("`src` is NULL"));
        }
        // SAFETY: the caller's contract.
        let (ops, encoder) = unsafe { read_ops(ops) }?;
        let (Some(move_into), Some(destroy)) = (ops.move_into, ops.destroy) else {
            return Err(Error::invalid("`ops` lacks move_into or destroy"));
        };
        if ops.size == 0
            || ops.size > HIBARI_VALUE_INLINE_SIZE
            || !ops.align.is_power_of_two()
            || ops.align > HIBARI_VALUE_INLINE_ALIGN
        {
            return Err(Error::invalid(format!(
                "a type of {} bytes aligned to {} does not fit a sample's storage \
                 ({HIBARI_VALUE_INLINE_SIZE} bytes aligned to {HIBARI_VALUE_INLINE_ALIGN}): \
                 publish it with hibari_publisher_publish_value",
                ops.size, ops.align
            )));
        }
        let p = crate::publisher::publisher(publisher)?;
        if encode_now(&p) {
            return publish_encoded(&p, &encoder.value_at(Place::Borrowed(src), destroy));
        }
        let storage = Place::Inline {
            storage: UnsafeCell::new(MaybeUninit::uninit()),
            live: AtomicBool::new(false),
        };
        p.publish_foreign_placed(encoder.value_at(storage, destroy), |placed| {
            if placed.move_from(src, move_into) {
                Ok(())
            } else {
                Err(Error::other(
                    "the value's move_into function returned false: nothing was sent",
                ))
            }
        })
    })
}

//! Values of the caller's own message types, handed over in this process
//! without being encoded: the C++ layer publishes a `std::unique_ptr<T>`
//! or a moved `T` here, and its typed subscriptions in the same program
//! read the very object.
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
//!
//! A value lives where its publish call put it ([`Place`]): the caller's
//! heap object (`hibari_publisher_publish_value`), or moved into storage
//! inside the sample itself (`hibari_publisher_publish_value_from`: one
//! allocation per message, as a Rust value's, where a heap object is a
//! second one that the subscriber's thread frees).

mod publish;
mod subscription;

pub use publish::*;
pub use subscription::*;

use std::cell::UnsafeCell;
use std::ffi::c_void;
use std::mem::MaybeUninit;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use hibari_rs::{CdrEncodeError, ForeignMessage};

/// The most bytes a value's type may take to be moved into a sample's own
/// storage (`hibari_publisher_publish_value_from`).
pub const HIBARI_VALUE_INLINE_SIZE: usize = 256;
/// The strictest alignment a value's type may need to be moved there.
pub const HIBARI_VALUE_INLINE_ALIGN: usize = 16;

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
    /// Frees a value given to `hibari_publisher_publish_value`.
    pub drop: Option<unsafe extern "C" fn(value: *mut c_void)>,
    /// The size of the value's type in bytes (C++'s `sizeof`), for
    /// `hibari_publisher_publish_value_from`; 0 if unused.
    pub size: usize,
    /// Its alignment (C++'s `alignof`), for the same.
    pub align: usize,
    /// Constructs a value at `dst` (`size` bytes, aligned to `align`,
    /// uninitialized) by moving the one at `src` (which stays the caller's,
    /// moved from); returns whether it did. For the same.
    pub move_into: Option<unsafe extern "C" fn(dst: *mut c_void, src: *mut c_void) -> bool>,
    /// Destroys a value that `move_into` constructed, in place, without
    /// freeing its memory (C++'s `~T()`). For the same.
    pub destroy: Option<unsafe extern "C" fn(value: *mut c_void)>,
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
type MoveInto = unsafe extern "C" fn(*mut c_void, *mut c_void) -> bool;

/// Storage for a value moved into a sample: size and alignment as the two
/// constants above say.
type Storage = MaybeUninit<[u128; HIBARI_VALUE_INLINE_SIZE / 16]>;

/// Where a value lives. Every sample of a value has room for the storage
/// (it lives in the sample's one allocation, which a few hundred bytes more
/// do not change), so the variants' sizes differ on purpose.
#[allow(clippy::large_enum_variant)]
enum Place {
    /// The caller's heap object, freed by `ops.drop`.
    Heap(*mut c_void),
    /// Storage of the sample's own, once `live` holding a value that
    /// `ops.move_into` constructed there; destroyed by `ops.destroy`.
    Inline {
        storage: UnsafeCell<Storage>,
        live: AtomicBool,
    },
    /// The caller's object, borrowed for one publish call that only encodes
    /// it: never freed here.
    Borrowed(*mut c_void),
}

/// A published value: where it is, and its functions.
struct CValue {
    place: Place,
    tag: *const c_void,
    encoded_len: EncodedLen,
    encode: Encode,
    /// `ops.drop` for a heap object, `ops.destroy` for one in storage.
    free: Free,
    /// What `encoded_len` said (the object does not change; 0: not asked
    /// yet, as no encoding is empty): a publish to shared memory asks for
    /// the size, then encodes, which needs it again.
    len: AtomicUsize,
}

// SAFETY: the object is only read (by `encoded_len`, `encode` and value
// callbacks) and freed once, by `free`; the caller promises in
// `hibari_value_ops_t`'s contract that all of them may run on any thread,
// also concurrently with readers. Storage is written once, by `move_from`,
// before the sample holding it is shared.
unsafe impl Send for CValue {}
// SAFETY: as for Send: shared readers only read.
unsafe impl Sync for CValue {}

impl CValue {
    /// The object.
    fn ptr(&self) -> *mut c_void {
        match &self.place {
            Place::Heap(p) | Place::Borrowed(p) => *p,
            Place::Inline { storage, .. } => storage.get().cast(),
        }
    }

    /// Constructs the object in this value's storage by moving the one at
    /// `src`: run where the sample holds the value, its address fixed,
    /// before the sample is sent. Whether it did.
    fn move_from(&self, src: *mut c_void, move_into: MoveInto) -> bool {
        let Place::Inline { storage, live } = &self.place else {
            return false;
        };
        // SAFETY: the caller's function (`hibari_value_ops_t`'s contract),
        // given storage of the size and alignment checked against the ops
        // before this value was made, not yet shared with any reader (the
        // sample is sent after this returns) and not yet holding a value
        // (`live` is false until here, and this runs once).
        let moved = unsafe { move_into(storage.get().cast(), src) };
        live.store(moved, Ordering::Release);
        moved
    }
}

impl ForeignMessage for CValue {
    fn encoded_len(&self) -> Result<usize, CdrEncodeError> {
        let known = self.len.load(Ordering::Relaxed);
        if known != 0 {
            return Ok(known);
        }
        // SAFETY: the caller's function for this value, which lives until
        // `free` (which runs only when `self` is dropped). Two threads may
        // both ask first: the object does not change, so both store the
        // same length.
        match unsafe { (self.encoded_len)(self.ptr()) } {
            0 => Err(CdrEncodeError::Foreign(
                "the value's encoded_len function returned 0 (it cannot be encoded)".into(),
            )),
            n => {
                self.len.store(n, Ordering::Relaxed);
                Ok(n)
            }
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
        if !unsafe { (self.encode)(self.ptr(), out.as_mut_ptr(), len) } {
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
        let owned = match &self.place {
            Place::Heap(_) => true,
            Place::Inline { live, .. } => live.load(Ordering::Acquire),
            Place::Borrowed(_) => false,
        };
        if owned {
            // SAFETY: the caller's function for this value (`ops.drop` for
            // a heap object, `ops.destroy` for one constructed in storage);
            // called once, here.
            unsafe { (self.free)(self.ptr()) }
        }
    }
}

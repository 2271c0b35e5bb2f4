//! CDR bytes as a sample carries them: private to this process, or in a
//! transport's shared memory that the publishing process could still change
//! (read through `hibari_cdr::Bytes`, never as a plain slice).

use std::fmt;
use std::sync::Arc;

use hibari_cdr::{Bytes, SharedBytes};

/// Serialized CDR bytes (header included), shared without copying: a buffer
/// only this process holds (a `Vec`, a socket read, a local sample's
/// encoding), or a transport's shared memory (a publisher's chunk, released
/// on drop) that the publisher's process could still change.
///
/// Read them as [`Bytes`] ([`bytes`](CdrBytes::bytes)); every decoder takes
/// that. Private bytes are also a plain slice ([`as_private`](CdrBytes::as_private));
/// shared bytes never are — see the trust model in `hibari_cdr::Bytes` —
/// and are copied out with [`to_vec`](CdrBytes::to_vec) when a slice is needed.
#[derive(Clone)]
pub struct CdrBytes(Repr);

#[derive(Clone)]
enum Repr {
    Private(Arc<dyn AsRef<[u8]> + Send + Sync>),
    Shared(Arc<dyn SharedBuffer>),
    Slot(SlotRef),
}

/// A transport's buffer in memory another process may write while this one
/// reads it (implemented by the shared-memory transport's samples).
pub trait SharedBuffer: Send + Sync + 'static {
    /// The bytes, for `Relaxed` word reads only.
    fn bytes(&self) -> SharedBytes<'_>;
}

/// A transport's table of buffers in shared memory, each counted by hand
/// (the transport's own reference count per slot) so that handing a sample
/// out allocates nothing: the shared-memory reader's taken samples. Only
/// the [`CdrBytes`] made by [`CdrBytes::from_slot`] call these, each
/// holding one reference on its slot.
pub trait SharedSlots: Send + Sync + 'static {
    /// The bytes of `slot`, on which the caller holds a reference.
    fn slot_bytes(&self, slot: u32) -> SharedBytes<'_>;
    /// One more reference on `slot`, on which the caller holds one.
    fn retain(&self, slot: u32);
    /// Drops the caller's reference on `slot`; the last one frees it.
    fn release(&self, slot: u32);
}

/// One reference on a slot of a [`SharedSlots`].
struct SlotRef {
    table: Arc<dyn SharedSlots>,
    slot: u32,
}

impl Clone for SlotRef {
    fn clone(&self) -> Self {
        self.table.retain(self.slot);
        SlotRef {
            table: self.table.clone(),
            slot: self.slot,
        }
    }
}

impl Drop for SlotRef {
    fn drop(&mut self) {
        self.table.release(self.slot);
    }
}

impl CdrBytes {
    /// Wraps a buffer only this process can change (and does not, while shared).
    pub fn new(buffer: Arc<dyn AsRef<[u8]> + Send + Sync>) -> Self {
        CdrBytes(Repr::Private(buffer))
    }

    /// Wraps memory another process may change while it is read.
    pub fn shared(buffer: Arc<dyn SharedBuffer>) -> Self {
        CdrBytes(Repr::Shared(buffer))
    }

    /// Wraps one reference on `slot` of `table`, which this value then
    /// owns (releases when dropped, retains when cloned).
    ///
    /// # Safety
    ///
    /// The caller holds a reference on `slot` that it hands over: `table`
    /// counts it, and keeps the slot's bytes as they were handed out until
    /// the last reference is released.
    #[allow(unsafe_code)]
    pub unsafe fn from_slot(table: Arc<dyn SharedSlots>, slot: u32) -> Self {
        CdrBytes(Repr::Slot(SlotRef { table, slot }))
    }

    /// The bytes, to decode or copy.
    pub fn bytes(&self) -> Bytes<'_> {
        match &self.0 {
            Repr::Private(b) => Bytes::Private((**b).as_ref()),
            Repr::Shared(s) => Bytes::Shared(s.bytes()),
            Repr::Slot(r) => Bytes::Shared(r.table.slot_bytes(r.slot)),
        }
    }

    /// The bytes as a slice when they are private; `None` for shared memory.
    pub fn as_private(&self) -> Option<&[u8]> {
        match &self.0 {
            Repr::Private(b) => Some((**b).as_ref()),
            Repr::Shared(_) | Repr::Slot(_) => None,
        }
    }

    /// Whether the bytes are in memory another process may change.
    pub fn is_shared(&self) -> bool {
        matches!(self.0, Repr::Shared(_) | Repr::Slot(_))
    }

    /// The address of the first byte (for handing read-only memory to
    /// foreign code such as numpy, which holds no Rust reference to it).
    pub fn as_ptr(&self) -> *const u8 {
        match &self.0 {
            Repr::Private(b) => (**b).as_ref().as_ptr(),
            Repr::Shared(s) => s.bytes().as_ptr(),
            Repr::Slot(r) => r.table.slot_bytes(r.slot).as_ptr(),
        }
    }

    /// The number of bytes.
    pub fn len(&self) -> usize {
        self.bytes().len()
    }

    /// Whether there are no bytes.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// A copy of the bytes (of shared memory: as they are now).
    pub fn to_vec(&self) -> Vec<u8> {
        self.bytes().to_vec()
    }
}

impl From<Vec<u8>> for CdrBytes {
    fn from(v: Vec<u8>) -> Self {
        CdrBytes(Repr::Private(Arc::new(v)))
    }
}

impl<'a> From<&'a CdrBytes> for Bytes<'a> {
    fn from(b: &'a CdrBytes) -> Self {
        b.bytes()
    }
}

impl fmt::Debug for CdrBytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = if self.is_shared() {
            "shared"
        } else {
            "private"
        };
        write!(f, "CdrBytes({} bytes, {kind})", self.len())
    }
}

//! Objects that live for one message — loans (`loan.rs`) and taken
//! samples (`subscription.rs`) — by id: a slab beside the handle registry.
//! Their bookkeeping is on the publish and take paths, so it costs one
//! uncontended lock and no allocation (a vector slot reused), where the
//! registry would take its global write lock, hash, and allocate an `Arc` —
//! twice per message.
//!
//! An id is the slot's index + 1 in its low [`INDEX_BITS`] bits and the
//! slot's generation above them; the generation moves on whenever the slot
//! is emptied, so an id is never valid twice (until 2^40 reuses of one
//! slot): a loan sent twice, a sample released twice, or a stale copy of
//! either struct is found out, never another message's memory.

use std::sync::{Mutex, PoisonError};

use crate::error::{hibari_ret_t, Error, Result};

/// Bits of an id that hold the slot (so at most 2^24 - 1 objects at once).
const INDEX_BITS: u32 = 24;
const INDEX_MASK: u64 = (1 << INDEX_BITS) - 1;

struct Slot<T> {
    generation: u64,
    value: Option<T>,
}

/// Values by never-reused ids.
pub(crate) struct Slab<T> {
    slots: Mutex<(Vec<Slot<T>>, Vec<usize>)>,
}

impl<T> Slab<T> {
    pub const fn new() -> Self {
        Slab {
            slots: Mutex::new((Vec::new(), Vec::new())),
        }
    }

    /// Keeps `value`; its id (never 0).
    pub fn insert(&self, value: T) -> Result<u64> {
        let mut guard = self.slots.lock().unwrap_or_else(PoisonError::into_inner);
        let (slots, free) = &mut *guard;
        let index = match free.pop() {
            Some(i) => i,
            None if (slots.len() as u64) < INDEX_MASK => {
                slots.push(Slot {
                    generation: 0,
                    value: None,
                });
                slots.len() - 1
            }
            None => {
                return Err(Error::other(format!(
                    "{INDEX_MASK} loans or samples are outstanding: consume or release some first"
                )))
            }
        };
        let slot = &mut slots[index];
        slot.value = Some(value);
        Ok(slot.generation << INDEX_BITS | (index as u64 + 1))
    }

    /// Takes the value of `id` out; the id is then invalid for good.
    pub fn take(&self, id: u64, what: &str) -> Result<T> {
        let invalid = || {
            Error::from(
                hibari_ret_t::HIBARI_ERROR_INVALID_HANDLE,
                format!("the {what} handle {id} is not one lent and not yet consumed (sent or discarded already, or never lent)"),
            )
        };
        let index = usize::try_from((id & INDEX_MASK).checked_sub(1).ok_or_else(invalid)?)
            .map_err(|_| invalid())?;
        let mut guard = self.slots.lock().unwrap_or_else(PoisonError::into_inner);
        let (slots, free) = &mut *guard;
        let slot = slots.get_mut(index).ok_or_else(invalid)?;
        if slot.generation != id >> INDEX_BITS || slot.value.is_none() {
            return Err(invalid());
        }
        let value = slot.value.take().ok_or_else(invalid)?;
        slot.generation += 1;
        free.push(index);
        Ok(value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_never_valid_twice_and_slots_are_reused() {
        let slab = Slab::new();
        let a = slab.insert("a").unwrap();
        let b = slab.insert("b").unwrap();
        assert_ne!(a, 0);
        assert_eq!(slab.take(a, "loan").unwrap(), "a");
        let again = slab.take(a, "loan").unwrap_err();
        assert_eq!(again.code, hibari_ret_t::HIBARI_ERROR_INVALID_HANDLE);
        let c = slab.insert("c").unwrap();
        assert_eq!(c & INDEX_MASK, a & INDEX_MASK, "the slot is reused");
        assert_ne!(c, a, "under a new id");
        assert!(slab.take(a, "loan").is_err());
        assert_eq!(slab.take(b, "loan").unwrap(), "b");
        assert_eq!(slab.take(c, "loan").unwrap(), "c");
        for bad in [0, u64::MAX, 1 << INDEX_BITS, 99] {
            assert!(slab.take(bad, "loan").is_err(), "{bad}");
        }
    }
}

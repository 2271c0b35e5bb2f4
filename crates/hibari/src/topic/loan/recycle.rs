//! The heap buffers of loans that no transport lends, recycled.
//!
//! When no transport lends memory — every matched subscription is in this
//! process, or the context is isolated — a [`Publisher::loan`] is a heap
//! buffer that the subscriptions then hold as the sample's bytes. A new
//! buffer per loan costs the allocator and, for a large message, fresh
//! pages the kernel must fault in and zero (a 4 MiB loan took longer than
//! copying the message). So each publisher keeps the buffers its
//! subscriptions have let go of — the last reference to the bytes dropped —
//! and lends them again: a publisher lending one size of message in a loop
//! reuses the same few buffers, already initialized, and touches neither
//! the allocator for them nor new pages.
//!
//! Bounded: at most [`KEPT`] buffers wait per publisher, and a buffer is
//! lent again only for a loan of at least half its capacity (a small loan
//! never pins a large buffer in a subscriber's queue). A recycled buffer
//! holds the bytes of an earlier message until the application fills it,
//! as shared memory does; nobody else refers to it any more.
//!
//! [`Publisher::loan`]: crate::Publisher::loan

use std::sync::{Arc, Mutex, MutexGuard, Weak};

use hibari_transport::CdrBytes;

/// Buffers kept for reuse per publisher.
pub(crate) const KEPT: usize = 4;

/// A publisher's buffers given back by its subscriptions.
#[derive(Default)]
pub(crate) struct HeapPool {
    free: Mutex<Vec<Vec<u8>>>,
}

impl HeapPool {
    fn lock(&self) -> MutexGuard<'_, Vec<Vec<u8>>> {
        self.free
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// A buffer of `len` initialized bytes: a kept one when one fits (its
    /// bytes are an earlier message's), else a new zeroed one; `None` when
    /// the memory cannot be had.
    pub(crate) fn take(&self, len: usize) -> Option<Vec<u8>> {
        let kept = {
            // The buffer given back last: the likeliest still in the cache.
            let mut free = self.lock();
            let fit = free.iter().rposition(|b| fits(b.capacity(), len));
            fit.map(|i| free.remove(i))
        };
        let mut buf = kept.unwrap_or_default();
        if buf.capacity() < len {
            buf.try_reserve_exact(len - buf.len()).ok()?;
        }
        // Zeroes only what no earlier message wrote (nothing, for a loan of
        // the size it had).
        buf.resize(len, 0);
        Some(buf)
    }

    /// Keeps `buf` for a later loan, unless [`KEPT`] wait already.
    fn give_back(&self, buf: Vec<u8>) {
        let mut free = self.lock();
        if free.len() < KEPT {
            free.push(buf);
            return;
        }
        drop(free);
        drop(buf);
    }

    /// How many buffers wait for a loan.
    #[cfg(test)]
    pub(crate) fn kept(&self) -> usize {
        self.lock().len()
    }
}

/// Whether a buffer of `capacity` bytes may serve a loan of `len`: big
/// enough, and not more than twice as big (plus a page, for small loans).
fn fits(capacity: usize, len: usize) -> bool {
    capacity >= len && capacity <= len.saturating_mul(2).saturating_add(4096)
}

/// The first `len` bytes of a lent buffer as a sample's bytes; the buffer
/// goes back to `pool` (if the publisher is still there) when the last
/// reference to them is dropped.
pub(crate) fn into_bytes(mut buf: Vec<u8>, len: usize, pool: &Arc<HeapPool>) -> CdrBytes {
    buf.truncate(len);
    CdrBytes::new(Arc::new(Recycled {
        buf,
        pool: Arc::downgrade(pool),
    }))
}

/// A lent buffer on its way through the subscriptions.
struct Recycled {
    buf: Vec<u8>,
    pool: Weak<HeapPool>,
}

impl AsRef<[u8]> for Recycled {
    fn as_ref(&self) -> &[u8] {
        &self.buf
    }
}

impl Drop for Recycled {
    fn drop(&mut self) {
        if let Some(pool) = self.pool.upgrade() {
            pool.give_back(std::mem::take(&mut self.buf));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_buffer_comes_back_when_its_bytes_are_dropped_and_serves_the_next_loan() {
        let pool = Arc::new(HeapPool::default());
        let buf = pool.take(1 << 20).unwrap();
        let at = buf.as_ptr();
        let bytes = into_bytes(buf, 1000, &pool);
        assert_eq!(bytes.len(), 1000);
        let copy = bytes.clone();
        drop(bytes);
        assert_eq!(pool.kept(), 0, "a clone still holds it");
        drop(copy);
        assert_eq!(pool.kept(), 1);
        // Truncated to the message's 1000 bytes, then grown back in place.
        let again = pool.take(1 << 20).unwrap();
        assert_eq!((again.as_ptr(), again.len()), (at, 1 << 20));
    }

    #[test]
    fn at_most_kept_buffers_wait_and_a_small_loan_gets_a_small_buffer() {
        let pool = Arc::new(HeapPool::default());
        let all: Vec<CdrBytes> = (0..KEPT + 2)
            .map(|_| into_bytes(pool.take(1 << 16).unwrap(), 1 << 16, &pool))
            .collect();
        drop(all);
        assert_eq!(pool.kept(), KEPT);
        let small = pool.take(100).unwrap();
        assert!(small.capacity() < 1 << 16, "{}", small.capacity());
        assert_eq!(pool.kept(), KEPT);
        assert!(fits(5000, 1000) && !fits(1 << 16, 1000) && !fits(999, 1000));
    }

    #[test]
    fn bytes_outliving_their_publisher_are_freed() {
        let pool = Arc::new(HeapPool::default());
        let bytes = into_bytes(pool.take(64).unwrap(), 64, &pool);
        drop(pool);
        assert_eq!(bytes.len(), 64);
        drop(bytes);
    }
}

//! The writer endpoint: [`ShmWriter`], and loans of shared memory.

use std::fmt;
use std::ops::{Deref, DerefMut};
use std::sync::Arc;

use hibari_cdr::CdrEncodeError;
use hibari_transport::{
    Endpoint, EndpointEvent, EndpointId, EndpointSpec, EndpointStatus, LentSendError, Notify,
    Payload, Ticket, WhenFull, WriteError, Writer, WriterLoan,
};
use thiserror::Error;

use crate::core::Handle;
use crate::pool::{AllocError, Chunk};
use crate::publish::{Effects, WriterShared};
use crate::send::{Refused, Wait};
use crate::state::lock;

/// A writer of the shared-memory transport.
///
/// Besides [`Writer::write`], it lends shared memory: [`loan`](Self::loan)
/// a buffer, fill it, [`send`](Loan::send) it — the bytes are never copied.
/// `write` of an in-process value encodes it once, straight into shared
/// memory, and only when a reader (or a transient-local history) needs it.
pub struct ShmWriter {
    pub(crate) shared: Arc<WriterShared>,
    pub(crate) handle: Arc<Handle>,
}

/// Why a loan could not be had.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum LoanError {
    /// Larger than a chunk can be.
    #[error("a loan of {0} bytes exceeds the 4 GiB limit of one shared-memory chunk")]
    TooLarge(usize),
    /// The writer's shared memory is at its limit and readers hold it.
    #[error("the writer's shared memory is exhausted: readers hold too many samples; release them or raise `ShmConfig::max_writer_bytes`")]
    Exhausted,
    /// The operating system refused shared memory.
    #[error("cannot create shared memory: {0}")]
    Os(std::io::Error),
}

/// Why a loan was not sent; the loan comes back, its bytes intact.
#[derive(Error)]
#[error("{reason}")]
pub struct SendError<'a> {
    /// The loan, to retry or drop.
    pub loan: Loan<'a>,
    /// Why.
    pub reason: WriteError,
}

impl fmt::Debug for SendError<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "SendError({})", self.reason)
    }
}

/// Shared memory lent by a writer: write the message into it (it derefs to
/// `&mut [u8]`), then [`send`](Loan::send). Dropped unsent, it returns to
/// the writer.
pub struct Loan<'a> {
    writer: &'a ShmWriter,
    chunk: Option<Chunk>,
    ptr: *mut u8,
    len: usize,
}

// SAFETY: the loan owns its chunk exclusively; the pointer stays valid
// while the writer (borrowed for 'a) keeps its pool, whichever thread
// holds the loan; and `&ShmWriter` may cross threads (`ShmWriter: Sync`,
// checked at compile time below).
unsafe impl Send for Loan<'_> {}

const _: () = {
    const fn sync<T: Sync>() {}
    sync::<ShmWriter>();
};

impl Deref for Loan<'_> {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        // SAFETY: `ptr`/`len` are the loaned chunk's message bytes, in a
        // segment the writer's pool keeps mapped while it lives (segments
        // are never unmapped before the writer); the loan holds the chunk
        // alone, so nothing else in this process touches it until sent, and
        // no other process can write it (the segment is sealed against every
        // writer but this pool's own mapping, `sys::create_shared`). A peer
        // may read it, which does not change what we see.
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }
}

impl DerefMut for Loan<'_> {
    fn deref_mut(&mut self) -> &mut [u8] {
        // SAFETY: as in `deref`, and `&mut self` makes this the only slice.
        unsafe { std::slice::from_raw_parts_mut(self.ptr, self.len) }
    }
}

impl<'a> Loan<'a> {
    /// Publishes the bytes to every matched reader, without copying them.
    /// When a reliable reader stays full, the loan comes back with why.
    pub fn send(self) -> Result<(), SendError<'a>> {
        let len = self.len;
        self.send_prefix(len)
    }

    /// Publishes only the first `len` bytes (a message shorter than loaned).
    pub fn send_prefix(mut self, len: usize) -> Result<(), SendError<'a>> {
        let len = len.min(self.len);
        let chunk = self.chunk.expect("an unsent loan holds its chunk");
        match self.writer.send_chunk(chunk, len) {
            Ok(()) => {
                self.chunk = None;
                Ok(())
            }
            Err(reason) => Err(SendError { loan: self, reason }),
        }
    }
}

impl ShmWriter {
    /// Sends the first `len` bytes of `chunk`, lent by this writer; on
    /// success the chunk is no longer lent (readers and the history hold
    /// it), on failure it still is.
    fn send_chunk(&self, chunk: Chunk, len: usize) -> Result<(), WriteError> {
        let w = &self.shared;
        let mut fx = Effects::default();
        let mut wait = Wait::new(w.when_full);
        let mut p = lock(&w.publish);
        w.apply(&mut p, &mut fx);
        let sent = if w.needs_chunk(&p) {
            w.send(&mut p, chunk, len, &mut wait, &mut fx)
        } else {
            w.skip(&mut p);
            Ok(())
        };
        if sent.is_ok() {
            p.pool.release(chunk);
        }
        drop(p);
        fx.run(&w.core);
        sent.map_err(|r| refusal(r, Payload::Serialized(Vec::new().into()), w.when_full))
    }
}

impl Drop for Loan<'_> {
    fn drop(&mut self) {
        if let Some(chunk) = self.chunk.take() {
            lock(&self.writer.shared.publish).pool.release(chunk);
        }
    }
}

fn refusal(r: Refused, payload: Payload, when_full: WhenFull) -> WriteError {
    match (r, when_full) {
        (Refused::Alloc(AllocError::TooLarge(len)), _) => {
            WriteError::Encode(CdrEncodeError::TooLong {
                field: "(the whole message, in shared memory)",
                len,
            })
        }
        (Refused::TimedOut, WhenFull::Block { timeout }) => {
            WriteError::Timeout { payload, timeout }
        }
        _ => WriteError::Full { payload },
    }
}

impl ShmWriter {
    /// Lends `len` bytes of shared memory to write a message into.
    ///
    /// When the writer's memory is at its limit because readers hold its
    /// samples, waits for releases as long as a full reliable reader would
    /// make a write wait ([`WhenFull`]).
    pub fn loan(&self, len: usize) -> Result<Loan<'_>, LoanError> {
        self.loan_inner(len).map_err(|r| match r {
            Refused::Alloc(AllocError::TooLarge(n)) => LoanError::TooLarge(n),
            Refused::Alloc(AllocError::Os(e)) => LoanError::Os(e.into()),
            _ => LoanError::Exhausted,
        })
    }

    fn loan_inner(&self, len: usize) -> Result<Loan<'_>, Refused> {
        let w = &self.shared;
        let mut fx = Effects::default();
        let mut wait = Wait::new(w.when_full);
        let mut p = lock(&w.publish);
        let got = w.alloc(&mut p, len, &mut wait, &mut fx);
        let loan = got.map(|chunk| Loan {
            writer: self,
            chunk: Some(chunk),
            ptr: p.pool.data_ptr(chunk, len),
            len,
        });
        drop(p);
        fx.run(&w.core);
        loan
    }

    /// Writes garbage into every reader's ring and segment socket, as a
    /// broken or hostile writer would: for tests of readers' defences only.
    #[doc(hidden)]
    pub fn scribble_for_tests(&self, seed: u64) {
        let mut p = lock(&self.shared.publish);
        for (i, l) in p.links.iter_mut().enumerate() {
            l.scribble(seed.wrapping_add(i as u64));
        }
    }

    /// Bytes of shared memory this writer's chunks take (its peak).
    pub fn shared_bytes(&self) -> usize {
        lock(&self.shared.publish).pool.bytes()
    }

    /// Chunks currently held by readers, the history or loans.
    pub fn chunks_in_use(&self) -> usize {
        let w = &self.shared;
        let mut fx = Effects::default();
        let mut p = lock(&w.publish);
        w.apply(&mut p, &mut fx);
        WriterShared::reclaim(&mut p);
        let n = p.pool.in_use();
        drop(p);
        fx.run(&w.core);
        n
    }

    /// Releases of a chunk nobody held that were refused (always 0 unless
    /// this crate's books have a bug; a chunk is never freed twice).
    pub fn refused_releases(&self) -> u64 {
        lock(&self.shared.publish).pool.refused_releases()
    }
}

impl Endpoint for ShmWriter {
    fn id(&self) -> EndpointId {
        self.shared.id
    }
    fn spec(&self) -> &EndpointSpec {
        &self.shared.spec
    }
    fn matched_count(&self) -> usize {
        self.shared.state.matched_count()
    }
    fn status(&self) -> EndpointStatus {
        let mut s = self.shared.state.status();
        s.queued = self.shared.history_len();
        s
    }
    fn take_event(&self) -> Option<EndpointEvent> {
        self.shared.state.take_event()
    }
    fn set_notify(&self, notify: Option<Arc<dyn Notify>>) {
        if self.shared.state.set_notify(notify.clone()) {
            if let Some(n) = notify {
                n.notify();
            }
        }
    }
}

impl Writer for ShmWriter {
    /// Lends shared memory only when a reader in another process (or a
    /// transient-local history) will read it: otherwise `None`, so a caller
    /// combining transports fills a buffer its in-process readers share
    /// without a copy. (The concrete [`ShmWriter::loan`] always lends.)
    fn loan(&self, len: usize) -> Option<Result<WriterLoan<'_>, WriteError>> {
        let w = &self.shared;
        let mut fx = Effects::default();
        let mut p = lock(&w.publish);
        w.apply(&mut p, &mut fx);
        let needed = w.needs_chunk(&p);
        drop(p);
        fx.run(&w.core);
        if !needed {
            return None;
        }
        let mut loan = match self.loan_inner(len) {
            Ok(loan) => loan,
            Err(r) => {
                let payload = Payload::Serialized(Vec::new().into());
                return Some(Err(refusal(r, payload, w.when_full)));
            }
        };
        let chunk = loan.chunk.take().expect("a new loan holds its chunk");
        // SAFETY: `ptr`/`len` are the chunk's message bytes, valid for as
        // long as this writer (borrowed for the loan's lifetime) keeps its
        // pool, as in `Loan::deref_mut`; the chunk was just taken from the
        // pool for this loan alone (`loan`, its chunk taken out, no longer
        // gives it back), so this is the only slice of it in this process
        // until `send_lent` or `give_back` ends the loan.
        let bytes = unsafe { std::slice::from_raw_parts_mut(loan.ptr, loan.len) };
        // SAFETY: this writer lent `bytes` under the chunk's ticket, and its
        // `send_lent`/`give_back` for that ticket act on that chunk alone;
        // the pool lends the chunk again only once it is released.
        Some(Ok(unsafe { WriterLoan::new(bytes, self, chunk.ticket()) }))
    }

    fn send_lent(&self, ticket: Ticket, bytes: &[u8]) -> Result<(), LentSendError> {
        self.send_chunk(Chunk::from_ticket(ticket.get()), bytes.len())
            .map_err(|reason| LentSendError { kept: true, reason })
    }

    fn give_back(&self, ticket: Ticket) {
        lock(&self.shared.publish)
            .pool
            .release(Chunk::from_ticket(ticket.get()));
    }

    fn write(&self, payload: Payload) -> Result<(), WriteError> {
        let w = &self.shared;
        let mut fx = Effects::default();
        let mut p = lock(&w.publish);
        w.apply(&mut p, &mut fx);
        if !w.needs_chunk(&p) {
            w.skip(&mut p);
            drop(p);
            fx.run(&w.core);
            return Ok(());
        }
        drop(p);
        let len = payload.encoded_len()?;
        let mut loan = match self.loan_inner(len) {
            Ok(loan) => loan,
            Err(r) => return Err(refusal(r, payload, w.when_full)),
        };
        let written = payload.encode_into(&mut loan)?;
        loan.send_prefix(written).map_err(|e| match e.reason {
            WriteError::Timeout { timeout, .. } => WriteError::Timeout { payload, timeout },
            WriteError::Full { .. } => WriteError::Full { payload },
            other => other,
        })
    }
}

impl Drop for ShmWriter {
    fn drop(&mut self) {
        self.handle.core.remove_writer(self.shared.id);
    }
}

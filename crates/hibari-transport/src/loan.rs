//! Loans: a transport's own memory (a shared-memory chunk) lent to the
//! caller of [`Writer::loan`] to write a message into in place, then sent
//! without a copy.
//!
//! A [`WriterLoan`] is a plain value — the lent bytes, the writer that lent
//! them and the writer's ticket for them — not a boxed object: taking a loan
//! and sending it touches no allocator, which is what a real-time hot path
//! needs. The writer does the work behind it in
//! [`Writer::send_lent`](crate::Writer::send_lent) and
//! [`Writer::give_back`](crate::Writer::give_back), keyed by the ticket.
//! A writer that combines others (the fanout) lends what a member lent under
//! a ticket of its own, and routes the calls back to that member.
//!
//! Soundness: the lent bytes are a `&mut [u8]` into memory the lender will
//! hand to readers (and lend again) once sent or given back, so the calls
//! that do so must come only from the loan itself, once. A [`Ticket`] is
//! therefore a capability: no code outside this crate can make one, and
//! only the loan holds it; and making a loan is an `unsafe fn`, whose caller
//! (the lender) promises that the bytes are lent under that ticket.

use std::fmt;
use std::ops::{Deref, DerefMut};

use crate::contract::{WriteError, Writer};

/// The bits of a ticket a lender may use: a combining writer keeps the top
/// byte for the member that lent (see [`WriterLoan::relend`]).
pub const TICKET_BITS: u32 = 56;

/// Memory lent by a [`Writer::loan`]: the bytes to fill (it derefs to
/// `[u8]`), sent by [`send`](WriterLoan::send) or given back when dropped.
pub struct WriterLoan<'a> {
    bytes: &'a mut [u8],
    lender: &'a dyn Writer,
    ticket: u64,
}

/// A lender's number for memory it lent, handed back to it exactly once
/// by the loan ([`Writer::send_lent`], [`Writer::give_back`]). It cannot be
/// made or copied outside this crate, so no other code can send or take
/// back memory someone else holds.
#[derive(Debug)]
pub struct Ticket(u64);

impl Ticket {
    /// The number the lender gave [`WriterLoan::new`].
    pub fn get(&self) -> u64 {
        self.0
    }
}

impl<'a> WriterLoan<'a> {
    /// What a lending writer returns from [`Writer::loan`]: `bytes` are
    /// lent to the caller alone until [`Writer::send_lent`] or
    /// [`Writer::give_back`] is called on `lender` with `ticket`, which
    /// the loan does exactly once. `ticket` fits in [`TICKET_BITS`] bits.
    ///
    /// # Safety
    ///
    /// `lender` lent `bytes` under `ticket` and has not lent them under
    /// another ticket still out: its `send_lent` and `give_back` for
    /// `ticket` act on exactly this memory, and it lends it again only
    /// after one of them.
    #[allow(unsafe_code)]
    pub unsafe fn new(bytes: &'a mut [u8], lender: &'a dyn Writer, ticket: u64) -> Self {
        debug_assert!(
            ticket >> TICKET_BITS == 0,
            "a ticket has {TICKET_BITS} bits"
        );
        WriterLoan {
            bytes,
            lender,
            ticket,
        }
    }

    /// The loan as lent by a combining writer `via` whose member number
    /// `member` lent it: `via` then gets the calls, and routes them to the
    /// member with [`member_ticket`].
    pub fn relend(mut self, via: &'a dyn Writer, member: u8) -> WriterLoan<'a> {
        // The borrow moves to the new loan; this one, left with an empty
        // slice, is forgotten rather than dropped (it must not give back).
        let bytes = std::mem::take(&mut self.bytes);
        let ticket = (u64::from(member) << TICKET_BITS) | self.ticket;
        std::mem::forget(self);
        WriterLoan {
            bytes,
            lender: via,
            ticket,
        }
    }

    /// Sends the first `len` bytes to every matched reader, without a copy.
    /// On failure the loan comes back, unsent and its bytes as they were,
    /// when the writer still holds it (tokio's `SendError<T>`).
    pub fn send(self, len: usize) -> Result<(), WriterLoanSendError<'a>> {
        let len = len.min(self.bytes.len());
        match self
            .lender
            .send_lent(Ticket(self.ticket), &self.bytes[..len])
        {
            Ok(()) => {
                std::mem::forget(self);
                Ok(())
            }
            Err(LentSendError { kept: true, reason }) => Err(WriterLoanSendError {
                loan: Some(self),
                reason,
            }),
            Err(LentSendError {
                kept: false,
                reason,
            }) => {
                std::mem::forget(self);
                Err(WriterLoanSendError { loan: None, reason })
            }
        }
    }
}

/// A combining writer's ticket split into the member that lent and that
/// member's own ticket (the inverse of [`WriterLoan::relend`]).
pub(crate) fn member_ticket(ticket: Ticket) -> (usize, Ticket) {
    (
        (ticket.0 >> TICKET_BITS) as usize,
        Ticket(ticket.0 & ((1 << TICKET_BITS) - 1)),
    )
}

impl Drop for WriterLoan<'_> {
    fn drop(&mut self) {
        self.lender.give_back(Ticket(self.ticket));
    }
}

impl Deref for WriterLoan<'_> {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        self.bytes
    }
}

impl DerefMut for WriterLoan<'_> {
    fn deref_mut(&mut self) -> &mut [u8] {
        self.bytes
    }
}

/// Why [`Writer::send_lent`] did not send.
#[derive(Debug)]
pub struct LentSendError {
    /// Nothing went out and the memory is still lent under its ticket (to
    /// fill again, retry or give back); `false` once some of it went out.
    pub kept: bool,
    /// Why it was not sent.
    pub reason: WriteError,
}

/// Why a [`WriterLoan`] was not sent, and the loan itself when it is still
/// unsent (to fill again, retry or drop).
pub struct WriterLoanSendError<'a> {
    /// The loan, unsent; `None` once some of its bytes went out (a
    /// combined transport that reached one member but not another).
    pub loan: Option<WriterLoan<'a>>,
    /// Why it was not sent.
    pub reason: WriteError,
}

impl fmt::Debug for WriterLoanSendError<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WriterLoanSendError")
            .field("loan_returned", &self.loan.is_some())
            .field("reason", &self.reason)
            .finish()
    }
}

impl From<WriterLoanSendError<'_>> for WriteError {
    fn from(e: WriterLoanSendError<'_>) -> Self {
        e.reason
    }
}

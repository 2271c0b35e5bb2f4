//! Loans: write a message's bytes where the transport will carry them, and
//! send them without a copy.
//!
//! [`Publisher::loan`] lends `len` bytes: between processes a chunk of the
//! publisher's shared memory, which subscribers in other processes then read
//! in place (through view subscriptions, without a copy whatever the size).
//! Subscribers in this process get a copy of the bytes, made only when one is
//! matched — publish a value with [`Publisher::publish`] for them. With no
//! transport that lends memory (every subscription is in this process, or
//! the context is isolated), the loan is a heap buffer sent as bytes, which
//! the publisher gets back once its subscriptions drop the sample and lends
//! again ([`recycle`]): no fresh allocation, no fresh pages per loan.
//!
//! [`Publisher::publish_ref`] publishes a borrowed message the same way: it
//! is encoded once, straight into a loan (rclcpp's `publish(const T&)`), so
//! a message the application keeps and refills costs no allocation and no
//! copy but its encoding.
//!
//! [`Publisher::loan_message`] is the typed form: it lays out a message with
//! its big array (`data` of an `Image`, say) left as a hole of `count`
//! elements, and returns the loan with the hole's byte range, to be filled
//! in place (a camera driver's DMA copy, a decoder's output) before
//! [`send`](PublisherLoan::send).

use std::fmt;
use std::ops::{Deref, DerefMut, Range};
use std::sync::Arc;

use hibari_cdr::{CdrEncodeError, Message};
use hibari_transport::{CdrBytes, Payload, TypeAdapter, WriteError, Writer, WriterLoan};
use thiserror::Error;

use crate::events::monitor::EventMonitor;
use crate::topic::pubsub::Publisher;

pub(crate) mod recycle;

use recycle::HeapPool;

/// Why a loan could not be made.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum LoanError {
    /// The transport could not lend the memory (its limit is reached while
    /// subscribers hold samples, or the message is too large).
    #[error("no memory to lend: {0}")]
    Transport(WriteError),
    /// No message can be that long (CDR lengths are 32-bit), or the memory
    /// could not be had.
    #[error(
        "cannot lend {len} bytes: a message holds at most 4 GiB, and the memory must be available"
    )]
    TooLarge {
        /// The length asked for.
        len: usize,
    },
    /// The message cannot be laid out (no such field, a bound exceeded…).
    #[error("the message cannot be laid out: {0}")]
    Layout(#[from] CdrEncodeError),
}

/// Why [`Publisher::publish_ref`] failed.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum PublishRefError {
    /// No memory could be lent, or the message cannot be encoded.
    #[error(transparent)]
    Loan(#[from] LoanError),
    /// The encoded message was not sent (a full reliable subscriber, …).
    #[error("the message was not sent: {0}")]
    Send(WriteError),
}

/// Bytes lent by a publisher: fill them (it derefs to `[u8]`), then
/// [`send`](PublisherLoan::send). Dropped unsent, the memory goes back.
pub struct PublisherLoan<'a> {
    inner: Lent<'a>,
    len: usize,
    events: &'a EventMonitor,
}

/// The memory behind a [`PublisherLoan`].
enum Lent<'a> {
    /// The transport's own (shared memory).
    Transport(WriterLoan<'a>),
    /// A heap buffer standing in for it, sent as bytes to `writer` (no
    /// transport lends memory: every subscription is in this process), and
    /// given back to `pool` when the subscriptions are done with it.
    Heap {
        buf: Vec<u8>,
        writer: &'a dyn Writer,
        pool: &'a Arc<HeapPool>,
    },
}

impl Deref for PublisherLoan<'_> {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match &self.inner {
            Lent::Transport(l) => &l[..self.len],
            Lent::Heap { buf, .. } => &buf[..self.len],
        }
    }
}

impl DerefMut for PublisherLoan<'_> {
    fn deref_mut(&mut self) -> &mut [u8] {
        match &mut self.inner {
            Lent::Transport(l) => &mut l[..self.len],
            Lent::Heap { buf, .. } => &mut buf[..self.len],
        }
    }
}

impl<'a> PublisherLoan<'a> {
    /// Sends the bytes to every matched subscription. Like a publish, it
    /// restarts the offered deadline. On failure the loan comes back in the
    /// error, unsent and as filled ([`LoanSendError::into_loan`]), to retry
    /// or drop.
    pub fn send(self) -> Result<(), LoanSendError<'a>> {
        let PublisherLoan { inner, len, events } = self;
        let sent = match inner {
            Lent::Transport(l) => l.send(len).map_err(|e| LoanSendError {
                loan: e.loan.map(|l| PublisherLoan {
                    inner: Lent::Transport(l),
                    len,
                    events,
                }),
                reason: e.reason,
            }),
            Lent::Heap { buf, writer, pool } => {
                send_heap(buf, len, writer, pool).map_err(|(buf, reason)| LoanSendError {
                    loan: buf.map(|buf| PublisherLoan {
                        inner: Lent::Heap { buf, writer, pool },
                        len,
                        events,
                    }),
                    reason,
                })
            }
        };
        if sent.is_ok() {
            events.on_publish();
        }
        sent
    }
}

/// Sends the first `len` bytes of a heap loan's buffer; refused, the buffer
/// comes back as it was lent (when the transport handed the bytes back).
fn send_heap(
    buf: Vec<u8>,
    len: usize,
    writer: &dyn Writer,
    pool: &Arc<HeapPool>,
) -> Result<(), (Option<Vec<u8>>, WriteError)> {
    let lent = buf.len();
    writer
        .write(Payload::Serialized(recycle::into_bytes(buf, len, pool)))
        .map_err(|reason| match reason {
            // The bytes come back with a refusal: so does the loan.
            WriteError::Timeout {
                payload: Payload::Serialized(bytes),
                timeout,
            } => {
                let mut buf = bytes.to_vec();
                buf.resize(lent, 0);
                let payload = Payload::Serialized(CdrBytes::from(Vec::new()));
                (Some(buf), WriteError::Timeout { payload, timeout })
            }
            WriteError::Full {
                payload: Payload::Serialized(bytes),
            } => {
                let mut buf = bytes.to_vec();
                buf.resize(lent, 0);
                let payload = Payload::Serialized(CdrBytes::from(Vec::new()));
                (Some(buf), WriteError::Full { payload })
            }
            reason => (None, reason),
        })
}

/// Why [`PublisherLoan::send`] failed, with the loan when it is still unsent
/// (tokio's `SendError<T>`): the memory stays lent until it is dropped.
#[derive(Error)]
#[error("the loan was not sent: {reason}")]
pub struct LoanSendError<'a> {
    loan: Option<PublisherLoan<'a>>,
    reason: WriteError,
}

impl<'a> LoanSendError<'a> {
    /// The loan, unsent and as filled; `None` when part of it went out (to
    /// one transport of a context and not another), so it cannot be sent
    /// again.
    pub fn into_loan(self) -> Option<PublisherLoan<'a>> {
        self.loan
    }

    /// Why it was not sent.
    pub fn reason(&self) -> &WriteError {
        &self.reason
    }

    /// Why it was not sent, dropping the loan (its memory goes back): for
    /// `?` into an error that must not borrow the publisher.
    pub fn into_reason(self) -> WriteError {
        self.reason
    }
}

impl fmt::Debug for LoanSendError<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LoanSendError")
            .field("loan_returned", &self.loan.is_some())
            .field("reason", &self.reason)
            .finish()
    }
}

impl<A> Publisher<A> {
    /// Lends `len` bytes to write one message's CDR bytes (header included)
    /// in place; see [the module](crate::loan).
    pub fn loan(&self, len: usize) -> Result<PublisherLoan<'_>, LoanError> {
        let writer = &*self.shared.writer;
        let inner = match writer.loan(len) {
            Some(lent) => Lent::Transport(lent.map_err(LoanError::Transport)?),
            None => {
                let pool = &self.shared.heap;
                let buf = u32::try_from(len).ok().and_then(|_| pool.take(len));
                let Some(buf) = buf else {
                    return Err(LoanError::TooLarge { len });
                };
                Lent::Heap { buf, writer, pool }
            }
        };
        Ok(PublisherLoan {
            inner,
            len,
            events: &self.shared.events,
        })
    }

    /// Lends `len` bytes of a transport's own memory — shared memory, when a
    /// subscriber in another process (or a transient-local history) will
    /// read the message — or returns `None` when no transport lends any:
    /// the subscribers, if any, are in this process, and bytes the caller
    /// already has reach them without a copy (where [`loan`](Publisher::loan)
    /// lends one of the publisher's recycled heap buffers to fill).
    pub fn loan_from_transport(&self, len: usize) -> Option<Result<PublisherLoan<'_>, LoanError>> {
        let lent = self.shared.writer.loan(len)?;
        Some(
            lent.map_err(LoanError::Transport)
                .map(|lent| PublisherLoan {
                    inner: Lent::Transport(lent),
                    len,
                    events: &self.shared.events,
                }),
        )
    }
}

impl<A: TypeAdapter> Publisher<A> {
    /// Publishes a borrowed message: encoded once, straight into a loan of
    /// the transport's memory (a shared-memory chunk when a subscriber is in
    /// another process), so that a message kept and refilled by the
    /// application costs no allocation per publish. Subscribers in this
    /// process get the encoded bytes too (a copy, made only when one is
    /// matched); [`publish`](Publisher::publish) hands an owned value to them
    /// without encoding. With no transport that lends memory (an isolated
    /// context) the bytes go in a heap buffer.
    pub fn publish_ref(&self, message: &A::Ros) -> Result<(), PublishRefError> {
        let len = message.serialized_size().map_err(LoanError::Layout)?;
        let mut loan = self.loan(len)?;
        let written = message
            .encode_into_slice(&mut loan)
            .map_err(LoanError::Layout)?;
        loan.len = written;
        loan.send()
            .map_err(|e| PublishRefError::Send(e.into_reason()))
    }

    /// Lays `message` out in a loan with its array `field` left as a hole of
    /// `count` elements, and returns the loan and the hole's byte range, to
    /// be filled before [`send`](PublisherLoan::send).
    pub fn loan_message(
        &self,
        message: &A::Ros,
        field: &str,
        count: usize,
    ) -> Result<(PublisherLoan<'_>, Range<usize>), LoanError> {
        let len = message.serialized_size_with_hole(field, count)?;
        let mut loan = self.loan(len)?;
        let (written, hole) = message.encode_with_hole(field, count, &mut loan)?;
        loan.len = written;
        Ok((loan, hole))
    }
}

//! The task that empties a client's [`Outbox`] into its socket.
//!
//! It writes frames as they come without flushing after each one (the
//! WebSocket layer, or a `BufWriter` on TCP, gathers them into large
//! writes) and flushes when the outbox runs dry, so a burst goes out in few
//! system calls and a lone message goes out at once. A socket that stops
//! taking data blocks only this task; the outbox meanwhile drops the
//! client's oldest data. A client that set a `fragment_size` gets longer
//! text messages as rosbridge fragments.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Instant;

use futures_util::{Sink, SinkExt};
use tokio::io::{AsyncWrite, AsyncWriteExt};
use tokio_tungstenite::tungstenite::{Error as WsError, Message};

use crate::outbox::{Frame, Next, Outbox};
use crate::rosbridge::fragments;

/// What the writer does next.
enum Step {
    Send(Frame),
    Flush,
    Stop,
}

/// The next step: a frame to send, a flush before sleeping, or the end.
/// Sleeps (without flushing twice) while nothing is ready.
async fn step(out: &Outbox, unflushed: &mut bool) -> Step {
    loop {
        match out.next(Instant::now()) {
            Next::Frame(f) => return Step::Send(f),
            Next::Closed => return Step::Stop,
            Next::Empty if std::mem::take(unflushed) => return Step::Flush,
            Next::WaitUntil(_) if std::mem::take(unflushed) => return Step::Flush,
            Next::Empty => out.changed().await,
            Next::WaitUntil(at) => {
                tokio::select! {
                    _ = out.changed() => {}
                    _ = tokio::time::sleep_until(at.into()) => {}
                }
            }
        }
    }
}

/// The text frames to send for `text` given the client's fragment size.
fn pieces(text: &str, fragment_size: &AtomicUsize, counter: &mut u64) -> Option<Vec<String>> {
    let size = fragment_size.load(Ordering::Relaxed);
    if size == 0 || text.len() <= size {
        return None;
    }
    *counter += 1;
    Some(fragments::fragments(
        text,
        size,
        &format!("fragment:{counter}"),
    ))
}

/// Runs a WebSocket client's writer until the outbox closes or the socket
/// fails; then closes the outbox (the reader sees the client is gone).
pub(crate) async fn run_ws<S>(mut sink: S, out: Arc<Outbox>, fragment_size: Arc<AtomicUsize>)
where
    S: Sink<Message, Error = WsError> + Unpin,
{
    let mut unflushed = false;
    let mut counter = 0u64;
    loop {
        let frame = match step(&out, &mut unflushed).await {
            Step::Send(frame) => frame,
            Step::Flush if sink.flush().await.is_ok() => continue,
            Step::Flush | Step::Stop => break,
        };
        let Some(frame) = frame.resolve() else {
            continue; // a sample that cannot be encoded as asked
        };
        let sent = match frame {
            Frame::Sample(..) => Ok(()),
            Frame::Text(t) => match pieces(t.as_str(), &fragment_size, &mut counter) {
                None => sink.feed(Message::Text(t)).await,
                Some(parts) => {
                    let mut r = Ok(());
                    for p in parts {
                        r = sink.feed(Message::Text(p.into())).await;
                        if r.is_err() {
                            break;
                        }
                    }
                    r
                }
            },
            Frame::Binary(b) => sink.feed(Message::Binary(b)).await,
        };
        if sent.is_err() {
            break;
        }
        unflushed = true;
    }
    out.close();
    let _ = sink.close().await;
}

/// Runs a TCP client's writer: JSON objects back to back, as rosbridge's
/// TCP server writes them.
pub(crate) async fn run_tcp<W>(writer: W, out: Arc<Outbox>, fragment_size: Arc<AtomicUsize>)
where
    W: AsyncWrite + Unpin,
{
    let mut w = tokio::io::BufWriter::with_capacity(64 << 10, writer);
    let mut unflushed = false;
    let mut counter = 0u64;
    loop {
        let frame = match step(&out, &mut unflushed).await {
            Step::Send(frame) => frame,
            Step::Flush if w.flush().await.is_ok() => continue,
            Step::Flush | Step::Stop => break,
        };
        let Some(frame) = frame.resolve() else {
            continue;
        };
        let sent = match frame {
            Frame::Sample(..) => Ok(()),
            Frame::Text(t) => match pieces(t.as_str(), &fragment_size, &mut counter) {
                None => w.write_all(t.as_bytes()).await,
                Some(parts) => {
                    let mut r = Ok(());
                    for p in parts {
                        r = w.write_all(p.as_bytes()).await;
                        if r.is_err() {
                            break;
                        }
                    }
                    r
                }
            },
            Frame::Binary(_) => Ok(()), // never queued for TCP clients
        };
        if sent.is_err() {
            break;
        }
        unflushed = true;
    }
    out.close();
    let _ = w.shutdown().await;
}

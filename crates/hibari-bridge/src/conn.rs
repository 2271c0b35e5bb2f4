//! One connection, from accept to cleanup: the WebSocket handshake (which
//! picks the protocol), or a TCP socket; a reader loop feeding the session;
//! a writer task emptying the client's outbox.
//!
//! The protocol is chosen by subprotocol, on one port: a client offering
//! `foxglove.sdk.v1` or `foxglove.websocket.v1` speaks Foxglove and gets
//! the one it offered echoed back; any other client (roslibjs and roslibpy
//! offer none) speaks rosbridge v2 and gets no subprotocol. Any Origin is
//! accepted, as rosbridge accepts any; permessage-deflate offers are
//! declined (the handshake answers without the extension, which clients
//! accept). A request for another path than the configured one gets 404.

use std::net::SocketAddr;
use std::sync::atomic::AtomicUsize;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures_util::StreamExt;
use tokio::io::AsyncReadExt;
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::handshake::server::{ErrorResponse, Request, Response};
use tokio_tungstenite::tungstenite::http::{HeaderValue, StatusCode};
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::tungstenite::Message;

use crate::core::{ClientEntry, Core};
use crate::foxglove::{FoxSession, SUBPROTOCOLS};
use crate::framer::{FramerError, JsonFramer};
use crate::outbox::Outbox;
use crate::rosbridge::{Flow, Session};
use crate::stats::Protocol;
use crate::writer;

/// How much one read of a client's socket takes: the WebSocket reader's
/// buffer, and the TCP read whose bytes the JSON framer appends to its own
/// (so that one holds at most about twice this for small messages).
///
/// Both stay under glibc malloc's 128 KiB mmap threshold on purpose. A
/// buffer above it is mapped on its own, and freeing it (when the client
/// leaves) makes glibc raise that threshold, and its trim threshold to
/// twice it, for the rest of the process; freed heap is then kept rather
/// than given back. With 128 KiB reads (the WebSocket buffer grew to
/// 512 KiB, the framer's to 128 KiB) the bridge's RSS stayed 21–32% over
/// idle after E2's W1 and T2 runs; with these, 9–16%, of which the heap is
/// about 0.5 MiB that glibc keeps at the top of two threads' arenas.
const READ_CHUNK: usize = 32 << 10;

/// The subprotocol to answer with, from the offers in `request`.
fn choose_subprotocol(request: &Request) -> Option<&'static str> {
    request
        .headers()
        .get_all("sec-websocket-protocol")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(str::trim)
        .find_map(|offer| SUBPROTOCOLS.iter().find(|p| **p == offer).copied())
}

fn new_outbox(core: &Core) -> Arc<Outbox> {
    Arc::new(Outbox::new(
        core.config.max_queued_bytes,
        core.config.max_control_messages,
    ))
}

/// Serves one WebSocket client until it leaves or fails.
// The handshake callback's error type is tungstenite's (an HTTP response).
#[allow(clippy::result_large_err)]
pub(crate) async fn serve_ws(core: Arc<Core>, stream: TcpStream, peer: SocketAddr) {
    let _ = stream.set_nodelay(true);
    let chosen = Arc::new(Mutex::new(None));
    let path = core.config.path.clone();
    let c = chosen.clone();
    let callback = move |request: &Request, mut response: Response| {
        if request.uri().path() != path {
            let mut refusal =
                ErrorResponse::new(Some(format!("no WebSocket at this path; use {path}")));
            *refusal.status_mut() = StatusCode::NOT_FOUND;
            return Err(refusal);
        }
        if let Some(p) = choose_subprotocol(request) {
            response
                .headers_mut()
                .insert("sec-websocket-protocol", HeaderValue::from_static(p));
            *c.lock().unwrap_or_else(|e| e.into_inner()) = Some(p);
        }
        Ok(response)
    };
    let max = core.config.max_message_size;
    let config = WebSocketConfig::default()
        .read_buffer_size(READ_CHUNK)
        .max_message_size(Some(max))
        .max_frame_size(Some(max));
    let handshake = tokio_tungstenite::accept_hdr_async_with_config(stream, callback, Some(config));
    let Ok(Ok(ws)) = tokio::time::timeout(Duration::from_secs(10), handshake).await else {
        return;
    };
    let foxglove = chosen.lock().unwrap_or_else(|e| e.into_inner()).is_some();
    let (sink, mut incoming) = ws.split();
    let id = core.next_id();
    let out = new_outbox(&core);
    let protocol = if foxglove {
        Protocol::Foxglove
    } else {
        Protocol::RosbridgeWebSocket
    };
    core.add_client(
        id,
        ClientEntry {
            peer,
            protocol,
            outbox: out.clone(),
            since: Instant::now(),
        },
    );
    if foxglove {
        let mut writer = tokio::spawn(writer::run_ws(
            sink,
            out.clone(),
            Arc::new(AtomicUsize::new(0)),
        ));
        let mut writer_done = false;
        if core.config.auth_secret.is_none() {
            let mut session = FoxSession::start(core.clone(), id, out.clone());
            loop {
                tokio::select! {
                    message = incoming.next() => match message {
                        Some(Ok(Message::Text(t))) => session.on_text(t.as_bytes()),
                        Some(Ok(Message::Binary(b))) => session.on_binary(&b),
                        Some(Ok(Message::Close(_))) | Some(Err(_)) | None => break,
                        Some(Ok(_)) => {}
                    },
                    _ = &mut writer => {
                        writer_done = true;
                        break;
                    }
                }
            }
            session.close();
        }
        out.close();
        if !writer_done {
            let _ = writer.await;
        }
    } else {
        let mut session = Session::new(core.clone(), id, out.clone(), false);
        let mut writer = tokio::spawn(writer::run_ws(sink, out.clone(), session.fragment_size()));
        let mut writer_done = false;
        loop {
            tokio::select! {
                message = incoming.next() => {
                    let flow = match message {
                        Some(Ok(Message::Text(t))) => session.on_frame(t.as_bytes()),
                        Some(Ok(Message::Binary(b))) => session.on_frame(&b),
                        Some(Ok(Message::Close(_))) | Some(Err(_)) | None => Flow::Close,
                        Some(Ok(_)) => Flow::Continue,
                    };
                    if flow == Flow::Close {
                        break;
                    }
                },
                _ = &mut writer => {
                    writer_done = true;
                    break;
                }
            }
        }
        session.close();
        out.close();
        if !writer_done {
            let _ = writer.await;
        }
    }
    core.remove_client(id);
}

/// Serves one TCP client (rosbridge's ROS 1 framing) until it leaves.
pub(crate) async fn serve_tcp(core: Arc<Core>, stream: TcpStream, peer: SocketAddr) {
    let _ = stream.set_nodelay(true);
    let (mut reader, write_half) = stream.into_split();
    let id = core.next_id();
    let out = new_outbox(&core);
    core.add_client(
        id,
        ClientEntry {
            peer,
            protocol: Protocol::RosbridgeTcp,
            outbox: out.clone(),
            since: Instant::now(),
        },
    );
    let mut session = Session::new(core.clone(), id, out.clone(), true);
    let mut writer = tokio::spawn(writer::run_tcp(
        write_half,
        out.clone(),
        session.fragment_size(),
    ));
    let mut framer = JsonFramer::new(core.config.max_message_size);
    let mut buf = vec![0u8; READ_CHUNK];
    let mut writer_done = false;
    'read: loop {
        let n = tokio::select! {
            n = reader.read(&mut buf) => match n {
                Ok(0) | Err(_) => break,
                Ok(n) => n,
            },
            _ = &mut writer => {
                writer_done = true;
                break;
            }
        };
        framer.push(&buf[..n]);
        while let Some(object) = framer.next_object() {
            let flow = match object {
                Ok(bytes) => session.on_bytes(bytes),
                Err(e @ FramerError::Garbage { .. }) => {
                    session.report_framing(&e);
                    Flow::Continue
                }
                Err(_) => Flow::Close,
            };
            if flow == Flow::Close {
                break 'read;
            }
        }
    }
    session.close();
    out.close();
    if !writer_done {
        let _ = writer.await;
    }
    core.remove_client(id);
}

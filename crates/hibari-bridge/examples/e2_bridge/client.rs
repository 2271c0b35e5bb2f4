//! The client side of the E2 benchmark, run as a child process: connects,
//! advertises `/chatter`, waits for the parent's `go`, sends N publishes as
//! the variant says, prints when it started and finished sending, and waits
//! for `done` before it leaves.

use std::io::{BufRead, Write};
use std::net::TcpStream;

use tungstenite::Message;

use crate::mono_ns;

const ADVERTISE: &str = r#"{"op":"advertise","topic":"/chatter","type":"std_msgs/msg/String"}"#;

pub fn publish(i: u64, word: &str) -> String {
    format!(
        r#"{{"op":"publish","topic":"/chatter","msg":{{"data":"{word}, {i}, {}"}}}}"#,
        mono_ns()
    )
}

fn wait_for(line: &str) {
    let stdin = std::io::stdin();
    let mut buf = String::new();
    loop {
        buf.clear();
        if stdin.lock().read_line(&mut buf).unwrap_or(0) == 0 || buf.trim() == line {
            return;
        }
    }
}

fn announce(what: &str) {
    println!("{what}");
    std::io::stdout().flush().unwrap();
}

/// Runs one variant: `W1`, `T1`, `T2`, `T3`, `T4` or `stall`.
pub fn run(variant: &str, ws_addr: &str, tcp_addr: &str, n: u64) {
    match variant {
        "W1" => websocket(ws_addr, n),
        "T1" => tcp(tcp_addr, n, 0, "hello"),
        "T2" => tcp(tcp_addr, n, 64 << 10, "hello"),
        "T3" => tcp(tcp_addr, n, 1024, "hello"),
        "T4" => tcp(tcp_addr, n, 64 << 10, "héllo"),
        "stall" => stall(ws_addr),
        other => panic!("unknown variant {other}"),
    }
}

fn websocket(addr: &str, n: u64) {
    let (mut ws, _) = tungstenite::connect(format!("ws://{addr}/")).expect("connects");
    if let tungstenite::stream::MaybeTlsStream::Plain(s) = ws.get_ref() {
        s.set_nodelay(true).unwrap();
    }
    ws.send(Message::text(ADVERTISE)).unwrap();
    announce("advertised");
    wait_for("go");
    let start = mono_ns();
    for i in 0..n {
        // One text frame per op; the client library gathers frames into
        // large writes, so this measures the bridge, not the client.
        ws.write(Message::text(publish(i, "hello"))).unwrap();
    }
    ws.flush().unwrap();
    let end = mono_ns();
    announce(&format!("sent {start} {end}"));
    wait_for("done");
    let _ = ws.close(None);
}

/// `chunk` 0: one write per message; else writes of exactly `chunk` bytes,
/// cut anywhere (inside a UTF-8 character too, with `héllo`).
fn tcp(addr: &str, n: u64, chunk: usize, word: &str) {
    let mut s = TcpStream::connect(addr).expect("connects");
    s.set_nodelay(true).unwrap();
    s.write_all(ADVERTISE.as_bytes()).unwrap();
    announce("advertised");
    wait_for("go");
    let start = mono_ns();
    if chunk == 0 {
        for i in 0..n {
            s.write_all(publish(i, word).as_bytes()).unwrap();
        }
    } else {
        let mut pending: Vec<u8> = Vec::with_capacity(2 * chunk);
        for i in 0..n {
            pending.extend_from_slice(publish(i, word).as_bytes());
            if pending.len() >= chunk {
                let mut at = 0;
                while pending.len() - at >= chunk {
                    s.write_all(&pending[at..at + chunk]).unwrap();
                    at += chunk;
                }
                pending.drain(..at);
            }
        }
        s.write_all(&pending).unwrap();
    }
    s.flush().unwrap();
    let end = mono_ns();
    announce(&format!("sent {start} {end}"));
    wait_for("done");
}

/// Subscribes to the firehose and never reads.
fn stall(addr: &str) {
    let (mut ws, _) = tungstenite::connect(format!("ws://{addr}/")).expect("connects");
    ws.send(Message::text(
        r#"{"op":"subscribe","topic":"/firehose","type":"std_msgs/msg/UInt8MultiArray"}"#,
    ))
    .unwrap();
    announce("subscribed");
    wait_for("done");
}

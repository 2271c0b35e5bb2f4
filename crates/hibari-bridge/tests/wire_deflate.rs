//! bridge.md §5(a) T1 at the wire: the permessage-deflate offers of
//! roslibjs' `ws` and roslibpy's asyncio transport are declined in the
//! handshake and the traffic runs uncompressed; a client that compresses
//! anyway loses only its own connection. Raw TCP, hand-made frames.

mod common;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::{Arc, Mutex};

use common::{wait_until, Fixture, Raw, LONG};
use hibari::msg::std_msgs::msg::String as RosString;
use hibari::QosProfile;
use serde_json::{json, Value as Json};

/// The HTTP upgrade request roslibjs' `ws` sends, and the bridge's answer.
fn upgrade(addr: std::net::SocketAddr, extensions: &str) -> (TcpStream, String) {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(LONG)).unwrap();
    write!(
        s,
        "GET / HTTP/1.1\r\nHost: {addr}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
         Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\
         Sec-WebSocket-Extensions: {extensions}\r\n\r\n"
    )
    .unwrap();
    let mut head = Vec::new();
    let mut byte = [0u8];
    while !head.ends_with(b"\r\n\r\n") {
        s.read_exact(&mut byte).unwrap();
        head.push(byte[0]);
    }
    (s, String::from_utf8(head).unwrap().to_ascii_lowercase())
}

/// A masked client frame (FIN set), with RSV1 as given.
fn frame(opcode: u8, rsv1: bool, payload: &[u8]) -> Vec<u8> {
    let mut out = vec![0x80 | if rsv1 { 0x40 } else { 0 } | opcode];
    assert!(payload.len() < 126);
    out.push(0x80 | payload.len() as u8);
    let mask = [1u8, 2, 3, 4];
    out.extend_from_slice(&mask);
    out.extend(payload.iter().enumerate().map(|(i, b)| b ^ mask[i % 4]));
    out
}

/// Reads one unmasked server frame: (first byte, payload).
fn read_frame(s: &mut TcpStream) -> (u8, Vec<u8>) {
    let mut h = [0u8; 2];
    s.read_exact(&mut h).unwrap();
    assert_eq!(h[1] & 0x80, 0, "server frames are not masked");
    let len = match h[1] & 0x7f {
        126 => {
            let mut l = [0u8; 2];
            s.read_exact(&mut l).unwrap();
            u16::from_be_bytes(l) as usize
        }
        127 => {
            let mut l = [0u8; 8];
            s.read_exact(&mut l).unwrap();
            u64::from_be_bytes(l) as usize
        }
        n => n as usize,
    };
    let mut payload = vec![0u8; len];
    s.read_exact(&mut payload).unwrap();
    (h[0], payload)
}

#[test]
fn permessage_deflate_offers_are_declined_and_the_connection_runs_uncompressed() {
    let f = Fixture::new();
    let got = Arc::new(Mutex::new(Vec::<RosString>::new()));
    let g = got.clone();
    let _s = f
        .node
        .create_subscription("/t1", QosProfile::default(), move |m: RosString| {
            g.lock().unwrap().push(m)
        })
        .unwrap();
    let out = f
        .node
        .create_publisher::<RosString>("/t1/out", QosProfile::default())
        .unwrap();
    // The offers of roslibjs' `ws` and of roslibpy's asyncio transport.
    for offer in [
        "permessage-deflate; client_max_window_bits",
        "permessage-deflate; client_no_context_takeover; client_max_window_bits",
    ] {
        let (mut s, head) = upgrade(f.bridge.local_addr(), offer);
        assert!(head.starts_with("http/1.1 101"), "{head}");
        assert!(
            !head.contains("sec-websocket-extensions"),
            "the offer is declined, so neither side compresses: {head}"
        );
        let ops = [
            json!({"op": "advertise", "topic": "/t1", "type": "std_msgs/String"}),
            json!({"op": "publish", "topic": "/t1", "msg": {"data": offer}}),
            json!({"op": "subscribe", "topic": "/t1/out", "type": "std_msgs/String"}),
        ];
        for op in ops {
            s.write_all(&frame(1, false, op.to_string().as_bytes()))
                .unwrap();
        }
        assert!(out.wait_for_subscribers(1, LONG));
        assert!(wait_until(LONG, || got
            .lock()
            .unwrap()
            .iter()
            .any(|m| m.data == offer)));
        out.publish(RosString {
            data: "back".into(),
        })
        .unwrap();
        let (first, payload) = read_frame(&mut s);
        assert_eq!(
            first, 0x81,
            "a final text frame with RSV1 clear (not compressed)"
        );
        let m: Json = serde_json::from_slice(&payload).unwrap();
        assert_eq!(m["msg"]["data"], "back");
        drop(s);
        assert!(wait_until(LONG, || f.bridge.stats().clients.is_empty()));
    }

    // A client compressing anyway (RSV1 without the extension) is a
    // protocol error: its connection closes; another client goes on.
    let (mut s, _) = upgrade(f.bridge.local_addr(), "permessage-deflate");
    let mut other = Raw::connect(&f.url());
    let deflated =
        miniz_oxide::deflate::compress_to_vec(br#"{"op":"set_level","level":"info"}"#, 6);
    s.write_all(&frame(1, true, &deflated)).unwrap();
    let (first, _) = read_frame(&mut s);
    assert_eq!(first & 0x0f, 0x8, "the bridge closes the connection");
    assert!(wait_until(LONG, || f.bridge.stats().clients.len() == 1));
    other.send(json!({"op": "publish", "topic": "/t1", "msg": {"data": "still"}}));
    assert!(wait_until(LONG, || got
        .lock()
        .unwrap()
        .iter()
        .any(|m| m.data == "still")));
}

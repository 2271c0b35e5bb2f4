//! Bad input, floods and stalled clients: a status or a closed connection
//! for the offender, never a crash, and nothing at all for the others.

mod common;

use std::io::Write;
use std::time::Duration;

use common::{wait_until, Fixture, Raw, LONG};
use hibari::msg::std_msgs::msg::{String as RosString, UInt8MultiArray};
use hibari::QosProfile;
use serde_json::json;
use tungstenite::Message as WsMessage;

/// Whether the bridge still answers a fresh client.
fn still_serving(f: &Fixture) -> bool {
    let mut c = Raw::connect(&f.url());
    c.send(json!({"op": "call_service", "service": "rosapi/nodes"}));
    c.recv_op("service_response", LONG).is_some()
}

#[test]
fn malformed_and_mistyped_ops_get_statuses_and_the_connection_goes_on() {
    let f = Fixture::new();
    let mut c = Raw::connect(&f.url());
    let bad = [
        "not json".to_owned(),
        "[1,2,3]".to_owned(),
        r#"{"op":5}"#.to_owned(),
        r#"{"no_op":true}"#.to_owned(),
        r#"{"op":"levitate"}"#.to_owned(),
        r#"{"op":"subscribe","topic":3}"#.to_owned(),
        r#"{"op":"subscribe","topic":"/t","type":"std_msgs/String","throttle_rate":"fast"}"#
            .to_owned(),
        r#"{"op":"subscribe","topic":"/t","type":"std_msgs/String","compression":9000}"#.to_owned(),
        r#"{"op":"subscribe","topic":"/t","type":"std_msgs/String","queue_length":-4}"#.to_owned(),
        r#"{"op":"advertise","topic":"/t","type":"no/such/Type/at/all"}"#.to_owned(),
        r#"{"op":"advertise","topic":"/t","type":"nope_msgs/Missing"}"#.to_owned(),
        r#"{"op":"advertise","topic":"bad name","type":"std_msgs/String"}"#.to_owned(),
        r#"{"op":"advertise","topic":"/t","type":"std_msgs/String","queue_size":1e300}"#.to_owned(),
        r#"{"op":"publish","topic":"/t","msg":{"data":5}}"#.to_owned(),
        r#"{"op":"publish","topic":"/t","msg":{"unknown_field":"x"}}"#.to_owned(),
        r#"{"op":"publish","topic":"/t","msg":"not an object"}"#.to_owned(),
        r#"{"op":"fragment","id":"f","data":"x","num":5,"total":2}"#.to_owned(),
        r#"{"op":"fragment","id":"f","data":"x","num":-1,"total":1e300}"#.to_owned(),
        r#"{"op":"fragment","id":{},"data":"x","num":0,"total":1}"#.to_owned(),
        r#"{"op":"service_response","id":"never","values":{},"result":true}"#.to_owned(),
        r#"{"op":"advertise_service","service":"/s","type":"std_srvs/Nope"}"#.to_owned(),
        r#"{"op":"send_action_goal","action":"/a","action_type":"x/Y"}"#.to_owned(),
        format!("{}{}", "[".repeat(100_000), "]".repeat(100_000)),
    ];
    for text in &bad {
        c.send_text(text);
    }
    c.ws.send(WsMessage::binary(vec![0xff, 0xfe, b'{', 0xc3]))
        .unwrap();
    assert!(
        c.recv(Duration::from_millis(300)).is_none(),
        "no status before set_level"
    );
    let errors_before = f.bridge.stats().errors;
    assert!(
        errors_before >= bad.len() as u64,
        "{errors_before} errors counted"
    );

    c.send(json!({"op": "set_level", "level": "error"}));
    for text in &bad {
        c.send_text(text);
    }
    let mut statuses = 0;
    while let Some(s) = c.recv_op("status", Duration::from_millis(500)) {
        assert_eq!(s["level"], "error");
        statuses += 1;
    }
    assert!(
        statuses >= bad.len() - 1,
        "{statuses} statuses for {} bad messages",
        bad.len()
    );
    c.send(json!({"op": "advertise", "topic": "/fine", "type": "std_msgs/String"}));
    c.send(json!({"op": "call_service", "service": "rosapi/topics"}));
    let r = c
        .recv_op("service_response", LONG)
        .expect("the connection goes on");
    assert!(r["values"]["topics"]
        .as_array()
        .unwrap()
        .contains(&json!("/fine")));
}

#[test]
fn oversized_messages_and_control_floods_close_only_the_offender() {
    let f = Fixture::with(|c| c.max_message_size(1 << 20));
    let mut big = Raw::connect(&f.url());
    let huge = format!(
        r#"{{"op":"publish","topic":"/t","msg":{{"data":"{}"}}}}"#,
        "x".repeat(2 << 20)
    );
    let _ = big.ws.send(WsMessage::text(huge));
    assert!(
        wait_until(LONG, || f.bridge.stats().clients.is_empty()),
        "closed"
    );
    assert!(still_serving(&f));

    // Thousands of calls whose answers are never read: the control queue
    // has a bound, and the client is cut off rather than the bridge growing.
    let f = Fixture::with(|mut c| {
        c.max_control_messages = 100;
        c
    });
    let mut flood = Raw::connect(&f.url());
    if let tungstenite::stream::MaybeTlsStream::Plain(s) = flood.ws.get_ref() {
        s.set_nonblocking(false).unwrap();
    }
    let call = json!({"op": "call_service", "service": "rosapi/topics_and_raw_types"}).to_string();
    for _ in 0..5000 {
        if flood.ws.send(WsMessage::text(call.clone())).is_err() {
            break;
        }
    }
    assert!(
        wait_until(LONG, || f.bridge.stats().clients.is_empty()),
        "the flooder is cut off"
    );
    assert!(still_serving(&f));

    // TCP: garbage between objects is skipped; an endless object closes.
    let f = Fixture::with(|c| c.max_message_size(4096));
    let _sub_node = &f.node;
    let got = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let g = got.clone();
    let _sub = f
        .node
        .create_subscription("/tcp", QosProfile::default(), move |m: RosString| {
            g.lock().unwrap().push(m.data)
        })
        .unwrap();
    let mut tcp = std::net::TcpStream::connect(f.bridge.tcp_addr().unwrap()).unwrap();
    tcp.write_all(br#"garbage {"op":"nothing_to_see"} ]]] {"op":"advertise","topic":"/tcp","type":"std_msgs/String"}{"op":"publish","topic":"/tcp","msg":{"data":"ok"}}"#).unwrap();
    assert!(wait_until(LONG, || got.lock().unwrap().as_slice() == ["ok"]));
    tcp.write_all(b"{\"op\":\"publish\",\"x\":\"").unwrap();
    let endless = vec![b'a'; 8192];
    let _ = tcp.write_all(&endless);
    assert!(
        wait_until(LONG, || f.bridge.stats().clients.is_empty()),
        "closed"
    );
}

/// The index a message of the isolation test carries.
fn index_of(m: &serde_json::Value) -> u64 {
    m["msg"]["layout"]["data_offset"].as_u64().unwrap()
}

#[test]
fn a_stalled_client_drops_and_counts_within_its_bounds_while_a_reader_of_the_same_topic_gets_everything(
) {
    const N: u32 = 2000;
    const WINDOW: u32 = 8;
    let (depth, budget) = (50, 512 << 10);
    let f = Fixture::with(|c| c.queue_depth(depth).max_queued_bytes(budget));
    let fast = f
        .node
        .create_publisher::<UInt8MultiArray>("/fast", QosProfile::default().keep_last(1000))
        .unwrap();
    // Both are real WebSocket clients; the stalled one never reads its
    // socket once it has subscribed.
    let mut stalled = Raw::connect(&f.url());
    assert!(wait_until(LONG, || f.bridge.stats().clients.len() == 1));
    let stalled_id = f.bridge.stats().clients[0].id;
    let mut reader = Raw::connect(&f.url());
    assert!(wait_until(LONG, || f.bridge.stats().clients.len() == 2));
    let reader_id = f.bridge.stats().clients[1].id;
    stalled.send(json!({"op": "subscribe", "topic": "/fast"}));
    reader.send(json!({"op": "subscribe", "topic": "/fast", "queue_length": 100}));
    // A session handles its ops in order: once a later call is answered,
    // the subscription is in place. Then the stalled client stops reading.
    for c in [&mut stalled, &mut reader] {
        c.send(json!({"op": "call_service", "service": "rosapi/nodes"}));
        assert!(c.recv_op("service_response", LONG).is_some());
    }
    assert!(fast.wait_for_subscribers(1, LONG));
    // 2000 × 16 KiB (22 kB of JSON each, 44 MB in all: far more than the
    // socket buffers hold). The reader paces the publisher, `WINDOW`
    // messages ahead of what it has read, so it can never fall behind its
    // own queue: it loses nothing unless the stalled client holds it up,
    // and then this test hangs and fails instead of finishing.
    let payload = vec![7u8; 16 << 10];
    let mut next = 0;
    for i in 0..N {
        let mut m = UInt8MultiArray {
            data: payload.clone(),
            ..Default::default()
        };
        m.layout.data_offset = i;
        fast.publish(m).unwrap();
        while next + WINDOW <= i {
            let m = reader
                .recv_op("publish", LONG)
                .unwrap_or_else(|| panic!("message {next} came to the reader"));
            assert_eq!(index_of(&m), u64::from(next), "in order, none lost");
            next += 1;
        }
    }
    while next < N {
        let m = reader.recv_op("publish", LONG).expect("the last ones came");
        assert_eq!(index_of(&m), u64::from(next), "in order, none lost");
        next += 1;
    }
    let stats = f.bridge.stats();
    let by_id = |id| stats.clients.iter().find(|c| c.id == id).unwrap().clone();
    let (s, r) = (by_id(stalled_id), by_id(reader_id));
    assert_eq!(r.dropped, 0, "the reader lost nothing");
    assert!(s.dropped > 0, "the stalled client dropped and counted it");
    assert!(
        s.peak_queued_messages <= depth && s.peak_queued_bytes <= budget,
        "the stalled client's queue stayed within its bounds: {} messages, {} bytes",
        s.peak_queued_messages,
        s.peak_queued_bytes
    );
    assert!(r.peak_queued_messages <= 100 && r.peak_queued_bytes <= budget);
    // What the stalled client gets once it reads again: the newest
    // messages in order, and every one it missed was counted as dropped.
    let mut got = 0;
    let mut last = None;
    let mut seen = Vec::new();
    while let Some(m) = stalled.recv_op("publish", Duration::from_secs(2)) {
        let i = index_of(&m);
        seen.push(i);
        assert!(last.is_none_or(|l| i > l), "in order");
        last = Some(i);
        got += 1;
    }
    let dropped = f
        .bridge
        .stats()
        .clients
        .iter()
        .find(|c| c.id == stalled_id)
        .unwrap()
        .dropped;
    assert_eq!(last, Some(u64::from(N - 1)), "the newest is kept");
    let gaps: Vec<_> = seen.windows(2).filter(|w| w[1] != w[0] + 1).collect();
    assert_eq!(
        got + dropped,
        u64::from(N),
        "each message sent or counted; first {:?} gaps {gaps:?}",
        seen.first()
    );
}

#[test]
fn a_message_many_socket_reads_long_arrives_whole_over_websocket_and_tcp() {
    // The bridge reads a client's socket 32 KiB at a time (conn.rs
    // READ_CHUNK); a 300 KB publish spans many reads on either transport.
    let f = Fixture::new();
    let got = std::sync::Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
    let g = got.clone();
    let _sub = f
        .node
        .create_subscription(
            "/long",
            QosProfile::default().keep_all(),
            move |m: RosString| g.lock().unwrap().push(m.data),
        )
        .unwrap();
    let text = |c: char| c.to_string().repeat(300_000) + "✓";
    let advertise = json!({"op": "advertise", "topic": "/long", "type": "std_msgs/String"});
    let publish = |data: String| json!({"op": "publish", "topic": "/long", "msg": {"data": data}});

    let mut ws = Raw::connect(&f.url());
    ws.send(advertise.clone());
    ws.send(publish(text('w')));
    let mut tcp = std::net::TcpStream::connect(f.bridge.tcp_addr().unwrap()).unwrap();
    tcp.write_all(advertise.to_string().as_bytes()).unwrap();
    tcp.write_all(publish(text('t')).to_string().as_bytes())
        .unwrap();

    assert!(wait_until(LONG, || got.lock().unwrap().len() == 2));
    let mut got = got.lock().unwrap().clone();
    got.sort();
    assert_eq!(got, [text('t'), text('w')]);
}

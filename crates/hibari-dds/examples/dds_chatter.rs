//! A DDS chatter for trying the transport against a ROS 2 node by hand:
//! `dds_chatter <domain> talk|listen [count]` publishes or prints
//! `std_msgs/String` on `/chatter` (node `/hibari_chatter`);
//! `dds_chatter <domain> serve [count]` answers `std_srvs/SetBool` on
//! `/hibari_set` (the reply in hibari's envelope, as the runtime writes it);
//! `dds_chatter <domain> call [count]` calls `std_srvs/SetBool` on `/ros_set`;
//! `dds_chatter <domain> image [count]` publishes 1920x1080 rgb8 images on
//! `/image` at 30 Hz, with
//! `ROS_AUTOMATIC_DISCOVERY_RANGE` / `ROS_STATIC_PEERS` read as ROS 2 does.
#![forbid(unsafe_code)]

use std::sync::Arc;
use std::time::{Duration, Instant};

use hibari_cdr::Message;
use hibari_dds::{DdsOptions, DdsTransport};
use hibari_msgs::std_msgs::msg::String as RosString;
use hibari_msgs::std_srvs::srv::{SetBool_Request, SetBool_Response};
use hibari_transport::{
    EndpointSpec, NodeInfo, Payload, QosProfile, ReaderOptions, Transport, WriterOptions,
};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let domain: u32 = args.get(1).and_then(|d| d.parse().ok()).unwrap_or(0);
    let mode = args.get(2).map(String::as_str).unwrap_or("talk");
    let count: usize = args.get(3).and_then(|c| c.parse().ok()).unwrap_or(20);
    let t =
        DdsTransport::open(domain, DdsOptions::from_env().expect("DDS options")).expect("open DDS");
    let node = NodeInfo::new("/", "hibari_chatter");
    let _token = t.announce_node(&node);
    let spec = EndpointSpec::new::<RosString>("/chatter", QosProfile::default());
    let deadline = Instant::now() + Duration::from_secs(20);
    if mode == "image" {
        image(&t, node, count, deadline);
    } else if mode == "serve" {
        serve(&t, node, count, deadline);
    } else if mode == "call" {
        call(&t, node, count, deadline);
    } else if mode == "talk" {
        let w = t
            .create_writer(&spec, &WriterOptions::default().node(node))
            .expect("writer");
        while w.matched_count() == 0 && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
        }
        for i in 0..count {
            let msg = RosString {
                data: format!("hibari {i}"),
            };
            w.write(Payload::from_message(msg)).expect("write");
            std::thread::sleep(Duration::from_millis(100));
        }
        println!("talker sent {count}, matched {}", w.matched_count());
    } else {
        let r = t
            .create_reader(&spec, &ReaderOptions::default().node(node))
            .expect("reader");
        let (tx, rx) = std::sync::mpsc::channel::<()>();
        let tx = std::sync::Mutex::new(tx);
        r.set_notify(Some(Arc::new(move || {
            let _ = tx.lock().map(|t| t.send(()));
        })));
        let mut got = 0;
        while got < count && Instant::now() < deadline {
            let _ = rx.recv_timeout(Duration::from_millis(200));
            while let Some(s) = r.take() {
                let m = s.payload.into_owned::<RosString>().expect("a String");
                got += 1;
                if got == 1 || got == count {
                    println!("got {:?} seq {}", m.data, s.info.sequence);
                }
            }
        }
        println!("listener got {got}");
        while let Some(e) = r.take_event() {
            println!("event {e:?}");
        }
    }
    for n in t.graph().nodes {
        println!("graph node {n}");
    }
}

/// A SetBool server at the transport level: what hibari's runtime does.
fn serve(t: &DdsTransport, node: NodeInfo, count: usize, deadline: Instant) {
    let qos = QosProfile::services_default();
    let req = EndpointSpec::new::<SetBool_Request>("rq/hibari_setRequest", qos);
    let rep = EndpointSpec::new::<SetBool_Response>("rr/hibari_setReply", qos);
    let r = t
        .create_reader(&req, &ReaderOptions::default().node(node.clone()))
        .expect("request reader");
    let w = t
        .create_writer(&rep, &WriterOptions::default().node(node))
        .expect("reply writer");
    let mut served = 0;
    while served < count && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
        while let Some(s) = r.take() {
            let request = s
                .payload
                .into_owned::<SetBool_Request>()
                .expect("a request");
            let response = SetBool_Response {
                success: request.data,
                message: format!("hibari saw {}", request.data),
            };
            // hibari's reply envelope: client id, sequence, then the response.
            let body = response.to_cdr().expect("encode");
            let mut cdr = body[..4].to_vec();
            cdr.extend_from_slice(&s.info.publisher_id.0);
            cdr.extend_from_slice(&s.info.sequence.to_le_bytes());
            cdr.extend_from_slice(&body[4..]);
            w.write(Payload::Serialized(cdr.into())).expect("reply");
            served += 1;
            println!("served #{} for {}", s.info.sequence, s.info.publisher_id);
        }
    }
    println!("server served {served}");
}

/// A SetBool client at the transport level: requests out, replies in
/// hibari's envelope, kept when they carry this client's id.
fn call(t: &DdsTransport, node: NodeInfo, count: usize, deadline: Instant) {
    let qos = QosProfile::services_default();
    let req = EndpointSpec::new::<SetBool_Request>("rq/ros_setRequest", qos);
    let rep = EndpointSpec::new::<SetBool_Response>("rr/ros_setReply", qos);
    let w = t
        .create_writer(&req, &WriterOptions::default().node(node.clone()))
        .expect("request writer");
    let r = t
        .create_reader(&rep, &ReaderOptions::default().node(node))
        .expect("reply reader");
    while (w.matched_count() == 0 || r.matched_count() == 0) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(10));
    }
    for i in 0..count {
        let data = i % 2 == 0;
        w.write(Payload::from_message(SetBool_Request { data }))
            .expect("request");
    }
    let mut got = 0;
    while got < count && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
        while let Some(s) = r.take() {
            let cdr = s.payload.cdr().expect("bytes").to_vec();
            let client = &cdr[4..20];
            let seq = u64::from_le_bytes(cdr[20..28].try_into().expect("8 bytes"));
            let mut body = cdr[..4].to_vec();
            body.extend_from_slice(&cdr[28..]);
            let response = SetBool_Response::from_cdr(&body[..]).expect("a response");
            println!(
                "reply #{seq} for us: {} {:?}",
                client == w.id().0.as_slice(),
                response.message
            );
            got += 1;
        }
    }
    println!("client got {got}");
}

/// Publishes `count` Full-HD RGB images at 30 Hz (reliable, keep last 10).
fn image(t: &DdsTransport, node: NodeInfo, count: usize, deadline: Instant) {
    use hibari_msgs::sensor_msgs::msg::Image;
    let spec = EndpointSpec::new::<Image>("/image", QosProfile::default());
    let w = t
        .create_writer(&spec, &WriterOptions::default().node(node))
        .expect("writer");
    while w.matched_count() == 0 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(10));
    }
    let mut failed = 0;
    for i in 0..count {
        let img = Image {
            height: 1080,
            width: 1920,
            encoding: "rgb8".into(),
            step: 1920 * 3,
            data: vec![(i % 251) as u8; 1920 * 1080 * 3],
            ..Image::default()
        };
        if w.write(Payload::from_message(img)).is_err() {
            failed += 1;
        }
        std::thread::sleep(Duration::from_millis(33));
    }
    println!("image writer sent {count}, failed {failed}");
}

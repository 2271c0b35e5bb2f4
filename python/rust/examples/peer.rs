//! A Rust peer for the Python package's cross-process tests: it publishes,
//! listens, serves or calls with hibari's typed API on the default context,
//! and prints one line per event for the test to read.
//!
//! ```text
//! peer talk <topic> <count>     publish <count> 2x2 rgb8 Images (data all N, frame_id "rust N")
//! peer listen <topic> <count>   print "heard <frame_id> <data[0]> <len(data)> <fnv1a64(data)>" per Image
//! peer serve <service>          answer std_srvs/SetBool with success = !data, message "rust"
//! peer call <service>           call std_srvs/SetBool with data = true, print the response
//! ```
//! Every mode gives up after 20 s (exit status 1).

use std::sync::mpsc;
use std::time::Duration;

use hibari::msg::sensor_msgs::msg::Image;
use hibari::msg::std_srvs::srv::{SetBool, SetBool_Request, SetBool_Response};
use hibari::{Context, QosProfile, SingleThreadedExecutor};

const PATIENCE: Duration = Duration::from_secs(20);

fn image(n: u8) -> Image {
    let mut image = Image {
        height: 2,
        width: 2,
        encoding: "rgb8".into(),
        step: 6,
        data: vec![n; 12],
        ..Image::default()
    };
    image.header.frame_id = format!("rust {n}");
    image
}

/// FNV-1a, 64 bits: a checksum the tests compute in Python too.
fn fnv1a64(data: &[u8]) -> u64 {
    data.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let (mode, name) = match args.as_slice() {
        [_, mode, name, ..] => (mode.as_str(), name.as_str()),
        _ => return Err("usage: peer talk|listen|serve|call <name> [count]".into()),
    };
    let count: u8 = args.get(3).map_or(Ok(1), |c| c.parse())?;
    let context = Context::new()?;
    let node = context.create_node("rust_peer")?;
    match mode {
        "talk" => {
            let publisher = node.create_publisher::<Image>(name, QosProfile::default())?;
            if !publisher.wait_for_subscribers(1, PATIENCE) {
                return Err("no subscriber came".into());
            }
            for n in 1..=count {
                publisher.publish(image(n))?;
                println!("sent {n}");
                std::thread::sleep(Duration::from_millis(20));
            }
        }
        "listen" => {
            let (tx, rx) = mpsc::channel();
            let _subscription =
                node.create_subscription(name, QosProfile::default(), move |msg: Image| {
                    let _ = tx.send(msg);
                })?;
            let executor = SingleThreadedExecutor::new();
            executor.add_node(&node)?;
            println!("ready");
            for _ in 0..count {
                if !executor.spin_once(PATIENCE) {
                    return Err("nothing heard".into());
                }
                let msg = rx.recv_timeout(PATIENCE)?;
                let first = msg.data.first().copied().unwrap_or(0);
                println!(
                    "heard {} {first} {} {:016x}",
                    msg.header.frame_id,
                    msg.data.len(),
                    fnv1a64(&msg.data)
                );
            }
        }
        "serve" => {
            let _server = node.create_service::<SetBool, _>(
                name,
                QosProfile::services_default(),
                |r: SetBool_Request| SetBool_Response {
                    success: !r.data,
                    message: "rust".into(),
                },
            )?;
            let executor = SingleThreadedExecutor::new();
            executor.add_node(&node)?;
            println!("ready");
            executor.spin_until(|| false, PATIENCE);
        }
        "call" => {
            let client = node.create_client::<SetBool>(name, QosProfile::services_default())?;
            if !client.wait_for_service(PATIENCE) {
                return Err("no server came".into());
            }
            let response = client.call(SetBool_Request { data: true }, PATIENCE)?;
            println!("response {} {}", response.success, response.message);
        }
        other => return Err(format!("unknown mode `{other}`").into()),
    }
    Ok(())
}

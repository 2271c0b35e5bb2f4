//! A talker and a listener in one process, as in ROS 2's demo_nodes.
//!
//! The talker's timer publishes "Hello World: N" every 50 ms; the listener
//! prints what it hears; after 10 messages the program ends.
//!
//! ```text
//! cargo run -p hibari --example talker_listener
//! cargo run -p hibari --example talker_listener -- --ros-args -r chatter:=talk
//! ```

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use hibari::msg::std_msgs::msg::String as RosString;
use hibari::{Context, QosProfile, SampleInfo, SingleThreadedExecutor};

const COUNT: usize = 10;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let context = Context::with_args(std::env::args())?;

    let talker = context.create_node("talker")?;
    let publisher = talker.create_publisher::<RosString>("chatter", QosProfile::default())?;
    let mut n = 0;
    let _timer = talker.create_timer(Duration::from_millis(50), move || {
        if n < COUNT {
            n += 1;
            let data = format!("Hello World: {n}");
            println!("[talker] publishing '{data}' on {}", publisher.topic());
            if let Err(e) = publisher.publish(RosString { data }) {
                eprintln!("[talker] {e}");
            }
        }
    })?;

    let listener = context.create_node("listener")?;
    let heard = Arc::new(AtomicUsize::new(0));
    let counter = heard.clone();
    let _subscription = listener.create_subscription(
        "chatter",
        QosProfile::default(),
        move |msg: RosString, info: SampleInfo| {
            println!(
                "[listener] I heard '{}' (#{}, {:?} after it was sent)",
                msg.data,
                info.sequence,
                info.latency()
            );
            counter.fetch_add(1, Ordering::SeqCst);
        },
    )?;

    let executor = SingleThreadedExecutor::new();
    executor.add_node(&talker)?;
    executor.add_node(&listener)?;
    let done = executor.spin_until(
        || heard.load(Ordering::SeqCst) == COUNT,
        Duration::from_secs(30),
    );
    context.shutdown();
    if !done {
        return Err("the listener did not hear every message within 30 s".into());
    }
    Ok(())
}

//! A service and its clients in one program: blocking calls, async calls
//! under tokio, and `spin_until_future_complete`.
//!
//! The node `light` serves `switch` (`std_srvs/srv/SetBool`: turn the light
//! on or off) and `status` (`std_srvs/srv/Trigger`: say whether it is on);
//! each switch also publishes the new state on `light_state`. The node
//! `panel` calls them:
//!
//! 1. blocking calls from the main thread while an executor spins `light`
//!    on another thread, then a round-trip measurement (p50/p99 of
//!    `--calls` blocking calls);
//! 2. async calls under a current-thread tokio runtime: two calls awaited
//!    together, and the state topic awaited as a `Stream`;
//! 3. with the executor on the main thread: `call_async` completed by
//!    `spin_until_future_complete`.
//!
//! ```text
//! cargo run -p hibari --example service
//! cargo run -p hibari --release --example service -- --calls 20000
//! ```

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use hibari::msg::std_msgs::msg::Bool;
use hibari::msg::std_srvs::srv::{
    SetBool, SetBool_Request, SetBool_Response, Trigger, Trigger_Request, Trigger_Response,
};
use hibari::{Context, QosProfile, SampleInfo, SingleThreadedExecutor};

const TIMEOUT: Duration = Duration::from_secs(5);

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let calls: usize = match std::env::args().skip_while(|a| a != "--calls").nth(1) {
        Some(n) => n.parse()?,
        None => 2000,
    };
    let context = Context::builder().isolated().create()?;

    // The server side: two services; the switch also publishes the state.
    let light = context.create_node("light")?;
    let on = Arc::new(AtomicBool::new(false));
    let state = light.create_publisher::<Bool>("light_state", QosProfile::default())?;
    let switch_state = on.clone();
    let _switch = light.create_service::<SetBool, _>(
        "switch",
        QosProfile::services_default(),
        move |request: SetBool_Request, info: SampleInfo| {
            let was = switch_state.swap(request.data, Ordering::SeqCst);
            let _ = state.publish(Bool { data: request.data });
            SetBool_Response {
                success: was != request.data,
                message: format!("request #{} from {}", info.sequence, info.publisher_id),
            }
        },
    )?;
    let status_state = on.clone();
    let _status = light.create_service::<Trigger, _>(
        "status",
        QosProfile::services_default(),
        move |_: Trigger_Request| {
            let on = status_state.load(Ordering::SeqCst);
            Trigger_Response {
                success: on,
                message: if on {
                    "the light is on"
                } else {
                    "the light is off"
                }
                .into(),
            }
        },
    )?;

    // The client side: needs no executor.
    let panel = context.create_node("panel")?;
    let switch = panel.create_client::<SetBool>("switch", QosProfile::services_default())?;
    let status = panel.create_client::<Trigger>("status", QosProfile::services_default())?;

    // 1. Blocking calls; the services run on an executor thread.
    let executor = Arc::new(SingleThreadedExecutor::new());
    executor.add_node(&light)?;
    let spinner = executor.clone();
    let spin = std::thread::spawn(move || spinner.spin());
    if !(switch.wait_for_service(TIMEOUT) && status.wait_for_service(TIMEOUT)) {
        return Err("the services did not appear".into());
    }
    let reply = switch.call(SetBool_Request { data: true }, TIMEOUT)?;
    println!(
        "blocking  switch(true) → success={} ({})",
        reply.success, reply.message
    );
    let reply = status.call(Trigger_Request {}, TIMEOUT)?;
    println!("blocking  status()     → {}", reply.message);

    let mut round_trips = Vec::with_capacity(calls);
    for _ in 0..calls {
        let start = Instant::now();
        status.call(Trigger_Request {}, TIMEOUT)?;
        round_trips.push(start.elapsed());
    }
    round_trips.sort();
    let at = |q: f64| round_trips[((round_trips.len() - 1) as f64 * q) as usize];
    println!(
        "blocking  {calls} status() round trips: p50 {:?}, p99 {:?} (executor on another thread)",
        at(0.50),
        at(0.99)
    );

    // 2. Async under tokio: no thread of the runtime ever blocks.
    let mut states =
        panel.create_subscription_stream::<Bool>("light_state", QosProfile::default())?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()?;
    runtime.block_on(async {
        let off = switch.call_async(SetBool_Request { data: false });
        let now = status.call_async(Trigger_Request {});
        let (off, now) = (off.await?, now.await?);
        println!(
            "async     switch(false) → success={}; status() → {}",
            off.success, now.message
        );
        let (state, info) = states.recv().await;
        println!(
            "async     light_state stream: on={} (sample #{})",
            state.data, info.sequence
        );
        Ok::<(), hibari::CallError>(())
    })?;

    // 3. The executor on this thread, until the call's future completes.
    executor.cancel();
    spin.join().map_err(|_| "the executor thread panicked")?;
    executor.remove_node(&light);
    let here = SingleThreadedExecutor::new();
    here.add_node(&light)?;
    let future = switch.call_async(SetBool_Request { data: true });
    let reply = here.spin_until_future_complete(future, TIMEOUT)??;
    println!(
        "spin      switch(true) → success={} ({})",
        reply.success, reply.message
    );
    Ok(())
}

//! `tracing` events reach a node's logger (console and `/rosout`) through
//! `TracingLayer`, beside another layer of the same subscriber.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use hibari::logging::TracingLayer;
use hibari::msg::rcl_interfaces::msg::Log;
use hibari::{Context, QosProfile};
use tracing_subscriber::layer::{Context as LayerContext, Layer, SubscriberExt};

/// Another layer of the subscriber: counts the events it sees.
struct Counting(Arc<AtomicUsize>);

impl<S: tracing::Subscriber> Layer<S> for Counting {
    fn on_event(&self, _event: &tracing::Event<'_>, _ctx: LayerContext<'_, S>) {
        self.0.fetch_add(1, Ordering::Relaxed);
    }
}

#[test]
fn events_become_ros_records_of_child_loggers_with_their_fields() {
    let context = Context::builder().isolated().create().unwrap();
    let node = context.create_node("traced").unwrap();
    let rosout = node
        .create_polled_subscription::<Log>("/rosout", QosProfile::rosout())
        .unwrap();
    let seen = Arc::new(AtomicUsize::new(0));
    let subscriber = tracing_subscriber::registry()
        .with(TracingLayer::new(node.get_logger()))
        .with(Counting(seen.clone()));
    tracing::subscriber::with_default(subscriber, || {
        tracing::debug!(target: "cam::driver", "below INFO: dropped here");
        tracing::info!(target: "cam::driver", exposure_us = 250, gain = 1.5, "frame {}", 7);
        tracing::error!(code = "E42", "lost frame");
        tracing::warn!(ready = false);
    });
    let mut got = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(30);
    while got.len() < 3 && Instant::now() < deadline {
        match rosout.take() {
            Some((m, _)) => got.push((m.level, m.name, m.msg, m.line > 0)),
            None => std::thread::sleep(Duration::from_millis(5)),
        }
    }
    assert_eq!(
        got,
        [
            (
                20,
                "traced.cam.driver".to_owned(),
                "frame 7 exposure_us=250 gain=1.5".to_owned(),
                true
            ),
            (
                40,
                "traced.tracing_layer".to_owned(),
                "lost frame code=E42".to_owned(),
                true
            ),
            (
                30,
                "traced.tracing_layer".to_owned(),
                "ready=false".to_owned(),
                true
            ),
        ]
    );
    // The other layer saw every event, the one below INFO too.
    assert_eq!(seen.load(Ordering::Relaxed), 4);
}

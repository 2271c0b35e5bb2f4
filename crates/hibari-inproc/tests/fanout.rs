//! The fanout combinator over in-process transports: it passes the
//! conformance suite, and a value still moves to a single subscriber.

use std::sync::Arc;

use hibari_inproc::InprocTransport;
use hibari_transport::conformance::Probe;
use hibari_transport::{
    DomainId, EndpointCreateError, EndpointSpec, Fanout, GraphSnapshot, GraphToken, NodeInfo,
    Notify, Payload, QosProfile, Reader, ReaderOptions, Transport, Writer, WriterOptions,
};

/// A member that reaches nobody, not even its own endpoints (as a
/// shared-memory participant alone in its domain): every endpoint gets a
/// domain of its own.
struct Nobody(DomainId);

impl Transport for Nobody {
    fn kind(&self) -> &'static str {
        "nobody"
    }
    fn domain_id(&self) -> DomainId {
        self.0
    }
    fn create_writer(
        &self,
        spec: &EndpointSpec,
        options: &WriterOptions,
    ) -> Result<Box<dyn Writer>, EndpointCreateError> {
        InprocTransport::isolated(self.0).create_writer(spec, options)
    }
    fn create_reader(
        &self,
        spec: &EndpointSpec,
        options: &ReaderOptions,
    ) -> Result<Box<dyn Reader>, EndpointCreateError> {
        InprocTransport::isolated(self.0).create_reader(spec, options)
    }
    fn announce_node(&self, node: &NodeInfo) -> GraphToken {
        InprocTransport::isolated(self.0).announce_node(node)
    }
    fn graph(&self) -> GraphSnapshot {
        GraphSnapshot::default()
    }
    fn watch_graph(&self, notify: Arc<dyn Notify>) -> GraphToken {
        InprocTransport::isolated(self.0).watch_graph(notify)
    }
}

hibari_transport::conformance_suite!(|domain| {
    Box::new(
        Fanout::new(vec![
            Arc::new(InprocTransport::open(domain)) as Arc<dyn Transport>,
            Arc::new(Nobody(domain)),
        ])
        .expect("same domain"),
    ) as Box<dyn Transport>
});

#[test]
fn the_in_process_member_gets_the_last_reference_so_the_value_moves() {
    let domain = hibari_transport::conformance::unique_domain();
    let lone = Arc::new(InprocTransport::isolated(domain));
    let fan = Fanout::new(vec![
        Arc::new(InprocTransport::open(domain)) as Arc<dyn Transport>,
        lone.clone(),
    ])
    .unwrap();
    let spec = EndpointSpec::new::<Probe>("/fan", QosProfile::default());
    // A reader on the second member holds its own reference for a while.
    let other = lone
        .create_reader(&spec, &ReaderOptions::default())
        .unwrap();
    let reader = InprocTransport::open(domain)
        .create_reader(&spec, &ReaderOptions::default())
        .unwrap();
    let writer = fan.create_writer(&spec, &WriterOptions::default()).unwrap();
    assert_eq!(writer.matched_count(), 2);
    writer
        .write(Payload::from_message(Probe::new(1, 1)))
        .unwrap();
    drop(other.take()); // the other member's reader lets go first
    let sample = reader.take().expect("delivered");
    match &sample.payload {
        // The only reference left: `into_owned` moves the value out.
        Payload::Local(cell) => assert_eq!(Arc::strong_count(cell), 1),
        other => panic!("expected a local sample, got {other:?}"),
    }
    assert_eq!(
        sample.payload.into_owned::<Probe>().unwrap(),
        Probe::new(1, 1)
    );
    assert!(Fanout::new(vec![]).is_none());
    assert!(Fanout::new(vec![
        Arc::new(InprocTransport::isolated(1)) as Arc<dyn Transport>,
        Arc::new(InprocTransport::isolated(2)),
    ])
    .is_none());
}

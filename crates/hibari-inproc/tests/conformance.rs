//! The transport contract's conformance suite, run against the in-process
//! transport: one test per check.

use hibari_inproc::InprocTransport;
use hibari_transport::{DomainId, Transport};

fn open(domain: DomainId) -> Box<dyn Transport> {
    Box::new(InprocTransport::open(domain))
}

hibari_transport::conformance_suite!(open);

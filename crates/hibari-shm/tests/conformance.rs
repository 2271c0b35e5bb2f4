//! The transport contract's conformance suite, run against the shared-memory
//! transport: each check opens participants that behave as separate
//! processes would (real sockets, memfds, rings and eventfds between them).
//!
//! The suite pairs endpoints of one participant too, so the participants
//! here match their own endpoints (`ShmConfig::loopback`); the runtime opens
//! them without, and uses the in-process transport within a process.

use hibari_shm::{ShmConfig, ShmTransport};
use hibari_transport::{DomainId, Transport};

fn open(domain: DomainId) -> Box<dyn Transport> {
    Box::new(ShmTransport::open_with(domain, ShmConfig::default().loopback(true)).unwrap())
}

hibari_transport::conformance_suite!(open);

//! Which transports a context uses, chosen automatically.
//!
//! A context of domain `d` reaches the nodes of its own process through the
//! in-process transport (values handed over, never serialized) and the
//! nodes of other processes on this host through one shared-memory
//! participant per process and domain, combined in a
//! [`Fanout`] so that each publisher and
//! subscription is one endpoint on both. Nothing is configured and no daemon
//! runs; processes of one user and one domain find each other.
//!
//! `HIBARI_TRANSPORT=inproc` keeps a context within its process. When shared
//! memory cannot be opened (no abstract sockets, a sandbox), the context
//! says why once on stderr and stays within its process.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock, Weak};

use hibari_transport::DomainId;

use crate::context::lock;

/// The two transports a context combines by itself, for who builds one by
/// hand (a benchmark pinning shared memory, say).
pub use hibari_inproc::InprocTransport;
pub use hibari_shm::ShmTransport;
/// The transport contract, for who plugs a transport into a context
/// ([`ContextBuilder::transport`](crate::ContextBuilder::transport)) or looks
/// below the API ([`Context::transport`](crate::Context::transport)): the
/// trait and every type its methods name.
pub use hibari_transport::{
    now_ns, Endpoint, EndpointEvent, EndpointSpec, EndpointStatus, Fanout, GraphToken, LocalSample,
    Notify, Payload, Reader, ReaderOptions, ResourceLimits, Sample, SharedBuffer, Transport,
    WhenFull, Writer, WriterLoan, WriterOptions,
};

/// The environment variable that restricts the transports (`inproc`).
pub const TRANSPORT_ENV: &str = "HIBARI_TRANSPORT";

/// The process's shared-memory participant of `domain`, opened on first use
/// and closed with the last context that uses it.
fn shared_memory(domain: DomainId) -> Option<Arc<ShmTransport>> {
    static PARTICIPANTS: OnceLock<Mutex<HashMap<DomainId, Weak<ShmTransport>>>> = OnceLock::new();
    static WARNED: OnceLock<()> = OnceLock::new();
    let mut all = lock(PARTICIPANTS.get_or_init(Default::default));
    if let Some(p) = all.get(&domain).and_then(Weak::upgrade) {
        return Some(p);
    }
    match ShmTransport::open(domain) {
        Ok(p) => {
            let p = Arc::new(p);
            all.retain(|_, w| w.strong_count() > 0);
            all.insert(domain, Arc::downgrade(&p));
            Some(p)
        }
        Err(e) => {
            WARNED.get_or_init(|| {
                eprintln!(
                    "hibari: shared memory is unavailable ({e}); nodes reach this process only"
                )
            });
            None
        }
    }
}

/// The transport of a context of `domain`: in-process, plus shared memory
/// unless `HIBARI_TRANSPORT=inproc`.
pub(crate) fn default_transport(domain: DomainId) -> Arc<dyn Transport> {
    let inproc: Arc<dyn Transport> = Arc::new(InprocTransport::open(domain));
    let only_inproc = std::env::var(TRANSPORT_ENV).is_ok_and(|v| v.trim() == "inproc");
    if only_inproc {
        return inproc;
    }
    match shared_memory(domain) {
        Some(shm) => Arc::new(
            Fanout::new(vec![inproc, shm as Arc<dyn Transport>])
                .expect("both transports serve the same domain"),
        ),
        None => inproc,
    }
}

//! Which transports a context uses, chosen automatically.
//!
//! A context of domain `d` reaches
//!
//! - the nodes of its own process through the in-process transport (values
//!   handed over, never serialized),
//! - the hibari nodes of other processes on this host through one
//!   shared-memory participant per process and domain,
//! - ROS 2 nodes (on this host or others) and hibari nodes on other hosts
//!   through one DDS participant per process and domain (RTPS, as ROS 2's
//!   rmw_fastrtps speaks it; `d` is the ROS domain, `ROS_DOMAIN_ID`),
//!
//! combined in a [`Fanout`] so that each publisher and subscription is one
//! endpoint on all of them. The members reach disjoint peers, so a sample
//! arrives once: the DDS participant ignores hibari participants of its own
//! host (shared memory carries that traffic) and its own endpoints (the
//! in-process transport does). The shared-memory and DDS participants are
//! opened by the first context of their domain and closed with the last.
//! Nothing is configured and no daemon runs.
//!
//! `HIBARI_TRANSPORT` restricts the transports: a comma-separated list of
//! `shm` and `dds` (the in-process transport is always used), or `inproc`
//! for that alone; unset, empty or `all` means every transport. So
//! `HIBARI_TRANSPORT=shm` keeps a context on this host and away from ROS 2
//! nodes, and `HIBARI_TRANSPORT=inproc` within its process. DDS reads ROS 2's
//! `ROS_AUTOMATIC_DISCOVERY_RANGE` and `ROS_STATIC_PEERS`
//! ([`DdsOptions::from_env`]).
//!
//! When a transport cannot be opened (no abstract sockets for shared memory;
//! a domain outside ROS 2's 0..=232 or no network for DDS), the context says
//! why once on stderr and goes on without it.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock, Weak};

use hibari_transport::DomainId;

use crate::context::lock;

/// The DDS transport a context combines by itself, and its options.
pub use hibari_dds::{DdsOpenError, DdsOptions, DdsTransport};
/// The two other transports a context combines by itself, for who builds one
/// by hand (a benchmark pinning shared memory, say).
pub use hibari_inproc::InprocTransport;
pub use hibari_shm::ShmTransport;
/// The transport contract, for who plugs a transport into a context
/// ([`ContextBuilder::transport`](crate::ContextBuilder::transport)) or looks
/// below the API ([`Context::transport`](crate::Context::transport)): the
/// trait and every type its methods name.
pub use hibari_transport::{
    now_ns, Endpoint, EndpointEvent, EndpointSpec, EndpointStatus, Fanout, GraphToken,
    LentSendError, LocalSample, Notify, Payload, Reader, ReaderOptions, ResourceLimits, Sample,
    SharedBuffer, Ticket, Transport, WhenFull, Writer, WriterLoan, WriterLoanSendError,
    WriterOptions,
};

/// The environment variable that restricts the transports (`inproc`, `shm`,
/// `dds`, `shm,dds`, `all`).
pub const TRANSPORT_ENV: &str = "HIBARI_TRANSPORT";

/// Which transports beyond the in-process one a context may use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Allowed {
    shm: bool,
    dds: bool,
}

impl Allowed {
    /// Reads a `HIBARI_TRANSPORT` value; names it does not know are reported
    /// in the error (and ignored).
    fn parse(value: Option<&str>) -> (Allowed, Vec<String>) {
        let value = value.map(str::trim).unwrap_or("");
        if value.is_empty() {
            return (
                Allowed {
                    shm: true,
                    dds: true,
                },
                Vec::new(),
            );
        }
        let mut allowed = Allowed {
            shm: false,
            dds: false,
        };
        let mut unknown = Vec::new();
        for name in value.split(',').map(str::trim).filter(|n| !n.is_empty()) {
            match name.to_ascii_lowercase().as_str() {
                "inproc" => {}
                "shm" => allowed.shm = true,
                "dds" => allowed.dds = true,
                "all" => {
                    allowed = Allowed {
                        shm: true,
                        dds: true,
                    }
                }
                _ => unknown.push(name.to_string()),
            }
        }
        (allowed, unknown)
    }

    fn from_env() -> Allowed {
        static WARNED: OnceLock<()> = OnceLock::new();
        let value = std::env::var(TRANSPORT_ENV).ok();
        let (allowed, unknown) = Allowed::parse(value.as_deref());
        if !unknown.is_empty() {
            WARNED.get_or_init(|| {
                eprintln!(
                    "hibari: {TRANSPORT_ENV} names unknown transports ({}); \
                     use inproc, shm, dds or all",
                    unknown.join(", ")
                )
            });
        }
        allowed
    }
}

/// One participant per process and domain, opened on first use and closed
/// with the last context that holds it; a failure to open is said once.
struct PerDomain<T> {
    participants: OnceLock<Mutex<HashMap<DomainId, Weak<T>>>>,
    warned: OnceLock<()>,
}

impl<T> PerDomain<T> {
    const fn new() -> Self {
        PerDomain {
            participants: OnceLock::new(),
            warned: OnceLock::new(),
        }
    }

    fn get<E: std::fmt::Display>(
        &self,
        domain: DomainId,
        open: impl FnOnce() -> Result<T, E>,
        warning: impl FnOnce(E) -> String,
    ) -> Option<Arc<T>> {
        let mut all = lock(self.participants.get_or_init(Default::default));
        if let Some(p) = all.get(&domain).and_then(Weak::upgrade) {
            return Some(p);
        }
        match open() {
            Ok(p) => {
                let p = Arc::new(p);
                all.retain(|_, w| w.strong_count() > 0);
                all.insert(domain, Arc::downgrade(&p));
                Some(p)
            }
            Err(e) => {
                let text = warning(e);
                self.warned.get_or_init(|| eprintln!("{text}"));
                None
            }
        }
    }
}

/// The process's shared-memory participant of `domain`.
fn shared_memory(domain: DomainId) -> Option<Arc<ShmTransport>> {
    static SHM: PerDomain<ShmTransport> = PerDomain::new();
    SHM.get(
        domain,
        || ShmTransport::open(domain),
        |e| format!("hibari: shared memory is unavailable ({e}); other processes of this host are not reached"),
    )
}

/// The process's DDS participant of `domain`.
fn dds(domain: DomainId) -> Option<Arc<DdsTransport>> {
    static DDS: PerDomain<DdsTransport> = PerDomain::new();
    DDS.get(
        domain,
        || DdsTransport::open(domain, DdsOptions::from_env()?),
        |e| {
            format!("hibari: DDS is unavailable ({e}); ROS 2 nodes and other hosts are not reached")
        },
    )
}

/// The transport of a context of `domain`: in-process, plus shared memory
/// and DDS as `HIBARI_TRANSPORT` allows and as they open.
pub(crate) fn default_transport(domain: DomainId) -> Arc<dyn Transport> {
    let allowed = Allowed::from_env();
    // The in-process member first: a write reaches it last, with the
    // original payload (see `Fanout`).
    let mut members: Vec<Arc<dyn Transport>> = vec![Arc::new(InprocTransport::open(domain))];
    if allowed.shm {
        if let Some(shm) = shared_memory(domain) {
            members.push(shm);
        }
    }
    if allowed.dds {
        if let Some(dds) = dds(domain) {
            members.push(dds);
        }
    }
    if members.len() == 1 {
        return members.remove(0);
    }
    Arc::new(Fanout::new(members).expect("every member serves the same domain"))
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALL: Allowed = Allowed {
        shm: true,
        dds: true,
    };

    #[test]
    fn hibari_transport_restricts_what_a_context_uses() {
        let p = |v: &str| Allowed::parse(Some(v));
        assert_eq!(Allowed::parse(None), (ALL, vec![]));
        assert_eq!(p(" "), (ALL, vec![]));
        assert_eq!(p("all"), (ALL, vec![]));
        assert_eq!(p("shm,dds"), (ALL, vec![]));
        let none = Allowed {
            shm: false,
            dds: false,
        };
        assert_eq!(p("inproc"), (none, vec![]));
        assert_eq!(p("shm"), (Allowed { dds: false, ..ALL }, vec![]));
        assert_eq!(p("inproc, DDS"), (Allowed { shm: false, ..ALL }, vec![]));
        assert_eq!(
            p("shm,udp"),
            (Allowed { dds: false, ..ALL }, vec!["udp".into()])
        );
    }

    #[test]
    fn a_domain_outside_ros_2s_range_runs_without_dds() {
        assert!(dds(hibari_dds::MAX_DOMAIN + 1).is_none());
    }

    #[test]
    fn one_dds_participant_per_domain_serves_every_context_until_the_last_goes() {
        let domain = hibari_testkit::TestDomain::reserve();
        let a = dds(domain.id()).expect("a DDS participant opens in a ROS domain");
        let b = dds(domain.id()).unwrap();
        assert!(Arc::ptr_eq(&a, &b));
        let weak = Arc::downgrade(&a);
        drop((a, b));
        assert!(
            weak.upgrade().is_none(),
            "the participant outlived its users"
        );
    }
}

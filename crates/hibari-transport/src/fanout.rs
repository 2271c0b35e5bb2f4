//! [`Fanout`]: several transports as one.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::cdr_bytes::CdrBytes;
use crate::contract::{
    DomainId, Endpoint, EndpointCreateError, EndpointEvent, EndpointSpec, EndpointStatus, Notify,
    Reader, ReaderOptions, Sample, Transport, WriteError, Writer, WriterOptions,
};
use crate::graph::{GraphSnapshot, GraphToken, NodeInfo};
use crate::loan::{member_ticket, LentSendError, Ticket, WriterLoan};
use crate::payload::Payload;
use crate::sample::EndpointId;

/// One transport made of several: what the runtime uses to reach peers in
/// this process (in-process hand-over), on this host (shared memory) and
/// beyond (network) at once.
///
/// A [`Fanout`] creates each writer and reader on every member transport
/// under one id, so a publisher is one publisher in every graph. Its members
/// must reach disjoint sets of peers (the in-process transport serves this
/// process only; the shared-memory participant only other processes), or a
/// reader would get a sample once per transport that carries it.
///
/// A write goes to the members in reverse order and hands the original
/// payload to the first member last: a serializing transport (listed later)
/// encodes from a shared reference and lets it go before the in-process
/// transport (listed first) gets the last reference, so a single in-process
/// subscriber still takes the value by move. A reader takes from its members
/// in turn, so one member's backlog never starves another's.
///
/// The contract's "to every matched reader or to none" holds per member: when
/// a reliable reader of one member stays full, the write fails there, the
/// members written before it have delivered, and the later ones have not.
pub struct Fanout {
    members: Vec<Arc<dyn Transport>>,
    domain: DomainId,
}

impl Fanout {
    /// Combines `members` (the in-process transport first). All must serve
    /// the same domain; `None` if they do not or there are none.
    pub fn new(members: Vec<Arc<dyn Transport>>) -> Option<Fanout> {
        let domain = members.first()?.domain_id();
        if members.iter().any(|m| m.domain_id() != domain) {
            return None;
        }
        Some(Fanout { members, domain })
    }

    /// The member transports, in order.
    pub fn members(&self) -> &[Arc<dyn Transport>] {
        &self.members
    }
}

impl Transport for Fanout {
    fn kind(&self) -> &'static str {
        "fanout"
    }

    fn domain_id(&self) -> DomainId {
        self.domain
    }

    fn create_writer(
        &self,
        spec: &EndpointSpec,
        options: &WriterOptions,
    ) -> Result<Box<dyn Writer>, EndpointCreateError> {
        let id = options.id.unwrap_or_else(EndpointId::random);
        let options = options.clone().id(id);
        let members = self
            .members
            .iter()
            .map(|m| m.create_writer(spec, &options))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Box::new(FanoutWriter {
            id,
            spec: spec.clone(),
            members,
        }))
    }

    fn create_reader(
        &self,
        spec: &EndpointSpec,
        options: &ReaderOptions,
    ) -> Result<Box<dyn Reader>, EndpointCreateError> {
        let id = options.id.unwrap_or_else(EndpointId::random);
        let options = options.clone().id(id);
        let members = self
            .members
            .iter()
            .map(|m| m.create_reader(spec, &options))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Box::new(FanoutReader {
            id,
            spec: spec.clone(),
            members,
            next: AtomicUsize::new(0),
        }))
    }

    fn announce_node(&self, node: &NodeInfo) -> GraphToken {
        let tokens: Vec<GraphToken> = self.members.iter().map(|m| m.announce_node(node)).collect();
        GraphToken::new(tokens)
    }

    fn graph(&self) -> GraphSnapshot {
        let mut all = GraphSnapshot::default();
        for m in &self.members {
            all.merge(m.graph());
        }
        all
    }

    fn watch_graph(&self, notify: Arc<dyn Notify>) -> GraphToken {
        let tokens: Vec<GraphToken> = self
            .members
            .iter()
            .map(|m| m.watch_graph(notify.clone()))
            .collect();
        GraphToken::new(tokens)
    }
}

fn status_of<E: Endpoint + ?Sized>(members: &[Box<E>]) -> EndpointStatus {
    let mut all = EndpointStatus::default();
    for m in members {
        let s = m.status();
        all.matched += s.matched;
        all.incompatible.extend(s.incompatible);
        all.incompatible_qos_total += s.incompatible_qos_total;
        all.incompatible_type_total += s.incompatible_type_total;
        all.lost_total += s.lost_total;
        all.expired_total += s.expired_total;
        all.queued += s.queued;
        all.events_dropped += s.events_dropped;
    }
    all
}

macro_rules! endpoint_via_members {
    ($ty:ident) => {
        impl Endpoint for $ty {
            fn id(&self) -> EndpointId {
                self.id
            }
            fn spec(&self) -> &EndpointSpec {
                &self.spec
            }
            fn matched_count(&self) -> usize {
                self.members.iter().map(|m| m.matched_count()).sum()
            }
            fn status(&self) -> EndpointStatus {
                status_of(&self.members)
            }
            fn take_event(&self) -> Option<EndpointEvent> {
                self.members.iter().find_map(|m| m.take_event())
            }
            fn set_notify(&self, notify: Option<Arc<dyn Notify>>) {
                for m in &self.members {
                    m.set_notify(notify.clone());
                }
            }
        }
    };
}

struct FanoutWriter {
    id: EndpointId,
    spec: EndpointSpec,
    members: Vec<Box<dyn Writer>>,
}

endpoint_via_members!(FanoutWriter);

impl Writer for FanoutWriter {
    /// The first member that lends memory lends it; when sent, the other
    /// members' readers (in-process ones) get a copy of the bytes, made only
    /// if one of them is matched or keeps a history.
    fn loan(&self, len: usize) -> Option<Result<WriterLoan<'_>, WriteError>> {
        self.members.iter().enumerate().find_map(|(i, m)| {
            let lent = m.loan(len)?;
            let member = u8::try_from(i).expect("a fanout has at most 256 members");
            Some(lent.map(|inner| inner.relend(self, member)))
        })
    }

    fn send_lent(&self, ticket: Ticket, bytes: &[u8]) -> Result<(), LentSendError> {
        let (lender, ticket) = member_ticket(ticket);
        let wanted = others(&self.members, lender).any(|w| {
            w.matched_count() > 0
                || w.spec().qos.durability == crate::qos::Durability::TransientLocal
        });
        // Copied before the lender sends: once sent, the lender may lend
        // the memory again as soon as its readers let it go.
        let copy: Option<CdrBytes> = wanted.then(|| bytes.to_vec().into());
        self.members[lender].send_lent(ticket, bytes)?;
        if let Some(bytes) = copy {
            for w in others(&self.members, lender) {
                w.write(Payload::Serialized(bytes.clone()))
                    .map_err(|reason| LentSendError {
                        kept: false,
                        reason,
                    })?;
            }
        }
        Ok(())
    }

    fn give_back(&self, ticket: Ticket) {
        let (lender, ticket) = member_ticket(ticket);
        self.members[lender].give_back(ticket);
    }

    fn matched_in_process(&self) -> usize {
        self.members.iter().map(|m| m.matched_in_process()).sum()
    }

    /// Every member within the one `timeout`.
    fn wait_for_all_acked(&self, timeout: Duration) -> bool {
        let deadline = Instant::now().checked_add(timeout);
        self.members.iter().all(|m| {
            let left = deadline.map_or(timeout, |d| d.saturating_duration_since(Instant::now()));
            m.wait_for_all_acked(left)
        })
    }

    fn write(&self, payload: Payload) -> Result<(), WriteError> {
        let (first, rest) = self
            .members
            .split_first()
            .expect("a fanout has at least one member");
        for m in rest.iter().rev() {
            m.write(payload.clone())?;
        }
        first.write(payload)
    }
}

/// The members other than the lender (no list is built: a loan's path
/// stays free of allocations).
fn others(members: &[Box<dyn Writer>], lender: usize) -> impl Iterator<Item = &dyn Writer> {
    members
        .iter()
        .enumerate()
        .filter(move |(j, _)| *j != lender)
        .map(|(_, w)| &**w)
}

struct FanoutReader {
    id: EndpointId,
    spec: EndpointSpec,
    members: Vec<Box<dyn Reader>>,
    next: AtomicUsize,
}

endpoint_via_members!(FanoutReader);

impl Reader for FanoutReader {
    fn take(&self) -> Option<Sample> {
        let n = self.members.len();
        let start = self.next.fetch_add(1, Ordering::Relaxed) % n;
        (0..n).find_map(|i| self.members[(start + i) % n].take())
    }

    fn queued(&self) -> usize {
        self.members.iter().map(|m| m.queued()).sum()
    }

    fn set_busy_poll(&self, on: bool) {
        for m in &self.members {
            m.set_busy_poll(on);
        }
    }
}

//! A participant: its endpoints, the peers it knows and what they announced.
//!
//! One lock (`state`) guards the tables; it is taken by the participant's
//! thread for every control message and by user threads when endpoints come
//! and go, never on the data path. Messages to a peer are queued in order
//! and sent by whichever thread holds the lock when they are queued (so an
//! announcement leaves at once); a peer whose socket is full gets the rest
//! from the participant's thread. Wakers run after the lock is released.
//! Lock order: `state` → a writer's `publish` (only ever tried, never
//! waited for) → a reader's queue → leaf locks (`late`, changes, releases).

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::thread::JoinHandle;

use hibari_transport::{
    DomainId, EndpointId, EndpointSpec, GraphSnapshot, GraphToken, NodeInfo, Notify,
};
use rustix::event::epoll;

use crate::proto::Msg;
use crate::publish::WriterShared;
use crate::reader::ReaderShared;
use crate::state::{lock, wake_all, Wake};
use crate::sys;
use crate::ShmConfig;

/// Identifies a peer connection; [`LOOPBACK`] is the participant itself.
pub(crate) type PeerKey = u64;

/// The participant as its own peer (when it matches its own endpoints).
pub(crate) const LOOPBACK: PeerKey = 0;

/// Epoll tokens: the kind in the top byte, a key below.
pub(crate) const TOKEN_KICK: u64 = 0;
pub(crate) const TOKEN_LISTENER: u64 = 1;
pub(crate) const TOKEN_PEER: u64 = 2 << 56;
pub(crate) const TOKEN_READER: u64 = 3 << 56;
pub(crate) const TOKEN_MASK: u64 = 0xff << 56;

/// An endpoint a peer announced.
pub(crate) struct Remote {
    pub spec: EndpointSpec,
    pub node: Option<NodeInfo>,
    /// A reader's ring capacity.
    pub capacity: usize,
    /// A keep-all reader's byte limit per writer (`u64::MAX`: none).
    pub max_bytes: u64,
}

/// A peer participant.
#[derive(Default)]
pub(crate) struct Peer {
    pub participant: Option<[u8; 16]>,
    /// The connection (none for [`LOOPBACK`]).
    pub conn: Option<Arc<OwnedFd>>,
    /// Its queue was full: the rest waits for it to become writable.
    pub blocked: bool,
    /// Sending failed: the participant's thread drops the peer.
    pub failed: bool,
    pub outbox: VecDeque<Msg>,
    pub writers: HashMap<EndpointId, Remote>,
    pub readers: HashMap<EndpointId, Remote>,
    pub nodes: HashMap<u64, NodeInfo>,
}

/// A ring offered to a reader, waiting for its answer.
pub(crate) struct PendingLink {
    pub peer: PeerKey,
    pub region: crate::sys::Mapping,
    pub capacity: usize,
    pub max_bytes: u64,
    pub segments: OwnedFd,
    pub reliable: bool,
    pub replay: bool,
}

/// Everything `Core::state` guards.
#[derive(Default)]
pub(crate) struct CoreState {
    pub peers: BTreeMap<PeerKey, Peer>,
    pub writers: HashMap<EndpointId, Arc<WriterShared>>,
    pub readers: HashMap<EndpointId, Arc<ReaderShared>>,
    /// Readers by epoll key, for the wake-up relay.
    pub reader_keys: HashMap<u64, Weak<ReaderShared>>,
    pub pending: HashMap<(EndpointId, EndpointId), PendingLink>,
    pub nodes: Vec<(u64, NodeInfo)>,
    pub watchers: Vec<(u64, Wake)>,
    /// Writers with link changes their `publish` lock kept us from applying.
    pub retry: Vec<Weak<WriterShared>>,
    /// Messages were queued: the participant's thread must send them.
    pub dirty: bool,
}

impl CoreState {
    /// Queues `msg` for `peer`.
    pub fn send(&mut self, peer: PeerKey, msg: Msg) {
        if let Some(p) = self.peers.get_mut(&peer) {
            p.outbox.push_back(msg);
            self.dirty = true;
        }
    }

    /// Queues a message (built per peer) for every peer.
    pub fn broadcast(&mut self, msg: impl Fn() -> Msg) {
        let keys: Vec<PeerKey> = self.peers.keys().copied().collect();
        for k in keys {
            self.send(k, msg());
        }
    }

    /// Sends every queued message to its peer, from whichever thread holds
    /// the lock (so that an announcement leaves at once, in order). A peer
    /// whose queue is full gets the rest when it becomes writable. Returns
    /// whether the participant's thread has work: loopback messages to
    /// deliver, or peers that failed.
    pub fn flush(&mut self, epoll: BorrowedFd<'_>) -> bool {
        self.dirty = false;
        let mut work = false;
        for (key, peer) in self.peers.iter_mut() {
            if peer.outbox.is_empty() || peer.failed {
                continue;
            }
            let Some(conn) = &peer.conn else {
                work = true; // loopback
                continue;
            };
            let was_blocked = peer.blocked;
            peer.blocked = false;
            while let Some(msg) = peer.outbox.front() {
                let (bytes, fds) = msg.encode();
                match crate::sock::send(conn.as_fd(), &bytes, &fds) {
                    Ok(()) => {
                        peer.outbox.pop_front();
                    }
                    Err(rustix::io::Errno::AGAIN) => {
                        peer.blocked = true;
                        break;
                    }
                    Err(_) => {
                        peer.failed = true;
                        work = true;
                        break;
                    }
                }
            }
            if peer.blocked != was_blocked {
                let mut flags = epoll::EventFlags::IN | epoll::EventFlags::RDHUP;
                if peer.blocked {
                    flags |= epoll::EventFlags::OUT;
                }
                let data = epoll::EventData::new_u64(TOKEN_PEER | key);
                let _ = epoll::modify(epoll, &**conn, data, flags);
            }
        }
        work
    }

    /// Peers whose connection failed.
    pub fn failed(&self) -> Vec<PeerKey> {
        self.peers
            .iter()
            .filter(|(_, p)| p.failed)
            .map(|(k, _)| *k)
            .collect()
    }

    /// Tells graph watchers that something appeared or went away.
    pub fn graph_changed(&self, wakes: &mut Vec<Wake>) {
        wakes.extend(self.watchers.iter().map(|(_, w)| w.clone()));
    }

    /// The first message on a connection, and everything we have.
    pub fn greet(&mut self, core: &Core, peer: PeerKey) {
        self.peers.entry(peer).or_default();
        self.send(
            peer,
            Msg::Hello {
                participant: core.participant,
                version: crate::proto::VERSION,
            },
        );
        let nodes: Vec<_> = self.nodes.clone();
        for (key, node) in nodes {
            self.send(peer, Msg::Node { key, node });
        }
        let writers: Vec<_> = self.writers.values().map(|w| writer_msg(w)).collect();
        let readers: Vec<_> = self.readers.values().map(|r| reader_msg(r)).collect();
        for m in writers.into_iter().chain(readers) {
            self.send(peer, m);
        }
    }
}

pub(crate) fn writer_msg(w: &WriterShared) -> Msg {
    Msg::Writer {
        id: w.id,
        spec: w.spec.clone(),
        node: w.node.clone(),
    }
}

pub(crate) fn reader_msg(r: &ReaderShared) -> Msg {
    Msg::Reader {
        id: r.id,
        spec: r.spec.clone(),
        node: r.node.clone(),
        capacity: r.capacity as u32,
        max_bytes: r.max_bytes,
    }
}

/// A participant's shared core.
pub(crate) struct Core {
    pub participant: [u8; 16],
    pub domain: DomainId,
    pub config: ShmConfig,
    pub epoll: OwnedFd,
    pub kick: OwnedFd,
    pub state: Mutex<CoreState>,
    /// Messages posted from places that cannot take `state`.
    late: Mutex<Vec<(PeerKey, Msg)>>,
    pub stop: AtomicBool,
    next: AtomicU64,
}

impl Core {
    pub fn new(domain: DomainId, config: ShmConfig) -> rustix::io::Result<Core> {
        let epoll = epoll::create(epoll::CreateFlags::CLOEXEC)?;
        let kick = sys::new_eventfd()?;
        epoll::add(
            &epoll,
            &kick,
            epoll::EventData::new_u64(TOKEN_KICK),
            epoll::EventFlags::IN,
        )?;
        Ok(Core {
            participant: EndpointId::random().0,
            domain,
            config,
            epoll,
            kick,
            state: Mutex::new(CoreState::default()),
            late: Mutex::new(Vec::new()),
            stop: AtomicBool::new(false),
            next: AtomicU64::new(1),
        })
    }

    /// A fresh key (peers, nodes, watchers, readers).
    pub fn key(&self) -> u64 {
        self.next.fetch_add(1, Ordering::Relaxed)
    }

    /// Wakes the participant's thread.
    pub fn kick(&self) {
        sys::signal(self.kick.as_fd());
    }

    /// Queues messages without taking `state` (the thread moves them).
    pub fn post(&self, msgs: Vec<(PeerKey, Msg)>) {
        if msgs.is_empty() {
            return;
        }
        lock(&self.late).extend(msgs);
        self.kick();
    }

    /// Takes the posted messages.
    pub fn take_posted(&self) -> Vec<(PeerKey, Msg)> {
        std::mem::take(&mut *lock(&self.late))
    }

    /// Runs `f` under the `state` lock, sends the messages it queued, wakes
    /// the participant's thread if that leaves work for it, and calls the
    /// wakers `f` collected.
    pub fn with_state<R>(&self, f: impl FnOnce(&mut CoreState, &mut Vec<Wake>) -> R) -> R {
        let mut wakes = Vec::new();
        let (r, work) = {
            let mut st = lock(&self.state);
            let r = f(&mut st, &mut wakes);
            let work = st.dirty && st.flush(self.epoll.as_fd());
            (r, work)
        };
        if work {
            self.kick();
        }
        wake_all(wakes);
        r
    }

    /// The graph this participant knows: its own nodes and endpoints, and
    /// every peer's (but its own again through loopback).
    pub fn graph(&self) -> GraphSnapshot {
        use hibari_transport::{EndpointKind, GraphEndpoint};
        let st = lock(&self.state);
        let mut g = GraphSnapshot::default();
        let mut node = |n: &NodeInfo| {
            if !g.nodes.contains(n) {
                g.nodes.push(n.clone());
            }
        };
        st.nodes.iter().for_each(|(_, n)| node(n));
        for (k, p) in &st.peers {
            if *k != LOOPBACK {
                p.nodes.values().for_each(&mut node);
            }
        }
        let ep = |kind, id, node: &Option<NodeInfo>, spec: &EndpointSpec| GraphEndpoint {
            kind,
            id,
            node: node.clone(),
            spec: spec.clone(),
        };
        for w in st.writers.values() {
            g.endpoints
                .push(ep(EndpointKind::Writer, w.id, &w.node, &w.spec));
        }
        for r in st.readers.values() {
            g.endpoints
                .push(ep(EndpointKind::Reader, r.id, &r.node, &r.spec));
        }
        for (k, p) in &st.peers {
            if *k == LOOPBACK {
                continue;
            }
            for (id, w) in &p.writers {
                g.endpoints
                    .push(ep(EndpointKind::Writer, *id, &w.node, &w.spec));
            }
            for (id, r) in &p.readers {
                g.endpoints
                    .push(ep(EndpointKind::Reader, *id, &r.node, &r.spec));
            }
        }
        g.endpoints
            .sort_by(|a, b| (&a.spec.topic, a.kind, a.id).cmp(&(&b.spec.topic, b.kind, b.id)));
        g
    }

    /// Announces a node until the token drops.
    pub fn announce_node(self: &Arc<Self>, node: &NodeInfo) -> GraphToken {
        let key = self.key();
        self.with_state(|st, wakes| {
            st.nodes.push((key, node.clone()));
            st.broadcast(|| Msg::Node {
                key,
                node: node.clone(),
            });
            st.graph_changed(wakes);
        });
        GraphToken::new(Retract {
            core: Arc::downgrade(self),
            key,
            node: true,
        })
    }

    /// Calls `notify` on every graph change until the token drops.
    pub fn watch_graph(self: &Arc<Self>, notify: Arc<dyn Notify>) -> GraphToken {
        let key = self.key();
        lock(&self.state).watchers.push((key, notify));
        GraphToken::new(Retract {
            core: Arc::downgrade(self),
            key,
            node: false,
        })
    }
}

/// Retracts a node or a graph watch.
struct Retract {
    core: Weak<Core>,
    key: u64,
    node: bool,
}

impl Drop for Retract {
    fn drop(&mut self) {
        let Some(core) = self.core.upgrade() else {
            return;
        };
        let key = self.key;
        if self.node {
            core.with_state(|st, wakes| {
                st.nodes.retain(|(k, _)| *k != key);
                st.broadcast(|| Msg::NodeGone { key });
                st.graph_changed(wakes);
            });
        } else {
            lock(&core.state).watchers.retain(|(k, _)| *k != key);
        }
    }
}

/// Keeps a participant's thread running while the transport or any of its
/// endpoints lives; the last one stops and joins it.
pub(crate) struct Handle {
    pub core: Arc<Core>,
    pub thread: Mutex<Option<JoinHandle<()>>>,
}

impl Drop for Handle {
    fn drop(&mut self) {
        self.core.stop.store(true, Ordering::Release);
        self.core.kick();
        if let Some(t) = lock(&self.thread).take() {
            if t.thread().id() != std::thread::current().id() {
                let _ = t.join();
            }
        }
    }
}

//! A writer's shared state: its chunks, links and history behind the
//! `publish` lock, which a write holds from numbering to the last push
//! ([`send`](crate::send) has the write path), so a writer shared by threads
//! delivers in sequence order.
//!
//! Links come and go by [`Change`]s queued by the control thread and
//! applied under the `publish` lock — by the control thread when the lock is
//! free, else by the writer itself before and while it waits.

use std::collections::VecDeque;
use std::os::fd::{AsFd, OwnedFd};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Mutex, Weak};

use hibari_transport::{now_ns, EndpointId, EndpointSpec, NodeInfo, WhenFull};

use crate::core::{Core, PeerKey};
use crate::pool::{Chunk, Pool};
use crate::proto::Msg;
use crate::ring::Desc;
use crate::state::{lock, EndpointState, Wake};
use crate::sys;
use crate::wlink::WriterLink;

/// A kept sample of a transient-local writer.
pub(crate) struct Kept {
    pub chunk: Chunk,
    pub desc: Desc,
}

/// What the `publish` lock protects.
pub(crate) struct Publish {
    pub seq: u64,
    pub pool: Pool,
    pub links: Vec<WriterLink>,
    /// Links whose reader left but may still hold samples.
    pub closing: Vec<WriterLink>,
    pub history: VecDeque<Kept>,
}

/// A change to a writer's links.
pub(crate) enum Change {
    /// A reader accepted: start pushing to it (after the history if it
    /// asked for it).
    Add { link: WriterLink, replay: bool },
    /// The reader left: stop pushing; its held samples come back on `Close`.
    Remove { reader: EndpointId },
    /// The reader side (of `peer`) is gone: take every chunk back.
    Close { reader: EndpointId, peer: PeerKey },
    /// Wake the reader (of `peer`) through another eventfd.
    Wake {
        reader: EndpointId,
        peer: PeerKey,
        fd: OwnedFd,
    },
}

/// Wakers to call and messages to send once the locks are released.
#[derive(Default)]
pub(crate) struct Effects {
    pub wakes: Vec<Wake>,
    pub msgs: Vec<(PeerKey, Msg)>,
}

impl Effects {
    /// Sends the messages (through the control thread) and calls the wakers.
    pub fn run(self, core: &Weak<Core>) {
        if !self.msgs.is_empty() {
            if let Some(core) = core.upgrade() {
                core.post(self.msgs);
            }
        }
        crate::state::wake_all(self.wakes);
    }
}

pub(crate) struct WriterShared {
    pub id: EndpointId,
    pub spec: EndpointSpec,
    pub node: Option<NodeInfo>,
    pub transient_local: bool,
    pub history_capacity: usize,
    pub when_full: WhenFull,
    pub publish: Mutex<Publish>,
    changes: Mutex<Vec<Change>>,
    changes_pending: AtomicBool,
    /// Readers signal it when they make room or release chunks.
    pub room: OwnedFd,
    pub state: EndpointState,
    pub core: Weak<Core>,
    pub history_len: AtomicUsize,
}

impl WriterShared {
    pub fn new(
        id: EndpointId,
        spec: EndpointSpec,
        node: Option<NodeInfo>,
        when_full: WhenFull,
        history_capacity: usize,
        pool_limit: usize,
        core: Weak<Core>,
    ) -> rustix::io::Result<WriterShared> {
        let transient_local = spec.qos.durability == hibari_transport::Durability::TransientLocal;
        Ok(WriterShared {
            id,
            spec,
            node,
            transient_local,
            history_capacity: if transient_local {
                history_capacity.max(1)
            } else {
                0
            },
            when_full,
            publish: Mutex::new(Publish {
                seq: 0,
                pool: Pool::new(pool_limit),
                links: Vec::new(),
                closing: Vec::new(),
                history: VecDeque::new(),
            }),
            changes: Mutex::new(Vec::new()),
            changes_pending: AtomicBool::new(false),
            room: sys::new_eventfd()?,
            state: EndpointState::default(),
            core,
            history_len: AtomicUsize::new(0),
        })
    }

    /// Samples kept for late joiners.
    pub fn history_len(&self) -> usize {
        self.history_len.load(Ordering::Relaxed)
    }

    /// Queues a change and applies it now if the writer is idle; returns
    /// whether changes are still pending (then retry later).
    pub fn change(&self, change: Change, fx: &mut Effects) -> bool {
        lock(&self.changes).push(change);
        self.changes_pending.store(true, Ordering::Release);
        self.try_apply(fx)
    }

    /// Applies queued changes if the `publish` lock is free; else wakes a
    /// writer waiting for room to apply them. Returns whether changes are
    /// still pending.
    pub fn try_apply(&self, fx: &mut Effects) -> bool {
        if !self.changes_pending.load(Ordering::Acquire) {
            return false;
        }
        match self.publish.try_lock() {
            Ok(mut p) => {
                self.apply(&mut p, fx);
                false
            }
            Err(std::sync::TryLockError::Poisoned(e)) => {
                self.apply(&mut e.into_inner(), fx);
                false
            }
            Err(std::sync::TryLockError::WouldBlock) => {
                sys::signal(self.room.as_fd());
                true
            }
        }
    }

    /// Applies queued changes (under the `publish` lock).
    pub fn apply(&self, p: &mut Publish, fx: &mut Effects) {
        if !self.changes_pending.swap(false, Ordering::AcqRel) {
            return;
        }
        let changes = std::mem::take(&mut *lock(&self.changes));
        for change in changes {
            match change {
                Change::Add { mut link, replay } => {
                    if replay {
                        self.replay(p, &mut link);
                    }
                    let (reader, peer) = (link.reader, link.peer);
                    p.links.push(link);
                    fx.wakes.extend(self.state.on_matched(reader));
                    fx.msgs.push((
                        peer,
                        Msg::Ready {
                            writer: self.id,
                            reader,
                        },
                    ));
                }
                Change::Remove { reader } => {
                    if let Some(i) = p.links.iter().position(|l| l.reader == reader) {
                        p.closing.push(p.links.swap_remove(i));
                    }
                    fx.wakes.extend(self.state.on_unmatched(reader));
                }
                Change::Close { reader, peer } => {
                    for list in [&mut p.links, &mut p.closing] {
                        while let Some(i) = list
                            .iter()
                            .position(|l| l.reader == reader && l.peer == peer)
                        {
                            let link = list.swap_remove(i);
                            link.close(&mut p.pool);
                        }
                    }
                    fx.wakes.extend(self.state.on_unmatched(reader));
                }
                Change::Wake { reader, peer, fd } => {
                    if let Some(l) = p
                        .links
                        .iter_mut()
                        .find(|l| l.reader == reader && l.peer == peer)
                    {
                        l.set_wake(fd);
                    }
                }
            }
        }
    }

    /// Pushes the kept samples a late joiner can take, oldest first.
    fn replay(&self, p: &mut Publish, link: &mut WriterLink) {
        let lifespan = self.spec.qos.lifespan;
        let now = now_ns();
        let fresh: Vec<&Kept> = p
            .history
            .iter()
            .filter(|k| match lifespan {
                None => true,
                Some(l) => {
                    let age = now.saturating_sub(k.desc.source_ns as i64);
                    u128::try_from(age).unwrap_or(0) <= l.as_nanos()
                }
            })
            .collect();
        let skip = fresh.len().saturating_sub(link.capacity());
        let kept: Vec<(Chunk, Desc)> = fresh[skip..].iter().map(|k| (k.chunk, k.desc)).collect();
        for (chunk, desc) in kept {
            link.push(&mut p.pool, chunk, &desc);
        }
    }
}

//! The handshake that connects a compatible (writer, reader) pair, and what
//! happens when either side goes away.
//!
//! Three messages, started by the writer's participant:
//!
//! 1. `Connect` (writer → reader): the writer region of a new ring, a
//!    socket on which segments will be announced, the writer's room eventfd;
//! 2. `Accept` (reader → writer): the reader region, the wake eventfd. The
//!    reader already takes from the ring;
//! 3. `Ready` (writer → reader), sent once the writer pushes to the ring
//!    (after replaying its history to a transient-local reader). Each side
//!    counts the match when it holds a live ring: the writer on `Accept`, the
//!    reader on `Ready`, so a matched reader misses no later sample.
//!
//! A writer that leaves orphans its readers' rings: what it queued is still
//! taken. A reader that leaves stops the pushes at once, and its chunks come
//! back when its last sample is dropped (`Closed`) — or at once if its
//! process is gone (the connection's end of file).

use std::os::fd::{AsFd, OwnedFd};
use std::sync::Arc;

use hibari_transport::{Durability, EndpointId, Reliability};

use crate::core::{Core, CoreState, PeerKey, PendingLink};
use crate::layout::{self, Rings, MAX_CAPACITY};
use crate::matching::{incompatibility, lifespan_ns};
use crate::proto::Msg;
use crate::publish::{Change, Effects, WriterShared};
use crate::rlink::LinkState;
use crate::state::Wake;
use crate::wlink::WriterLink;
use crate::{sock, sys};

impl CoreState {
    /// Writer side: `rid` of `peer` appeared (or `w` did). Reports an
    /// incompatibility, or offers a ring.
    pub(crate) fn offer(
        &mut self,
        core: &Arc<Core>,
        w: &Arc<WriterShared>,
        peer: PeerKey,
        rid: EndpointId,
        wakes: &mut Vec<Wake>,
    ) {
        let Some(remote) = self.peers.get(&peer).and_then(|p| p.readers.get(&rid)) else {
            return;
        };
        if remote.spec.topic != w.spec.topic {
            return;
        }
        if let Some((why, _)) = incompatibility(&w.spec, &remote.spec) {
            wakes.extend(w.state.on_incompatible(rid, why));
            return;
        }
        let capacity = remote.capacity.clamp(1, MAX_CAPACITY);
        let max_bytes = remote.max_bytes;
        let reliable = remote.spec.qos.reliability == Reliability::Reliable;
        let replay = w.transient_local && remote.spec.qos.durability == Durability::TransientLocal;
        let offer = (|| {
            let region = layout::create_writer_region(capacity)?;
            let (ours, theirs) = sock::pair()?;
            let _ = rustix::net::sockopt::set_socket_send_buffer_size(&ours, 1 << 20);
            let room = rustix::io::fcntl_dupfd_cloexec(&w.room, 0)?;
            Ok::<_, rustix::io::Errno>((region, ours, theirs, room))
        })();
        let Ok((region, ours, theirs, room)) = offer else {
            return;
        };
        self.pending.insert(
            (w.id, rid),
            PendingLink {
                peer,
                region: region.map,
                capacity,
                max_bytes,
                segments: ours,
                reliable,
                replay,
            },
        );
        let fds = [region.peer_fd, theirs, room];
        self.send(
            peer,
            Msg::Connect {
                writer: w.id,
                reader: rid,
                capacity: capacity as u32,
                fds,
            },
        );
        let _ = core;
    }

    /// Applies a writer change now if possible, else retries later.
    pub(crate) fn change(&mut self, w: &Arc<WriterShared>, change: Change, wakes: &mut Vec<Wake>) {
        let mut fx = Effects::default();
        if w.change(change, &mut fx) {
            self.retry.push(Arc::downgrade(w));
        }
        self.effects(fx, wakes);
    }

    /// Retries changes writers were too busy for.
    pub fn retry_changes(&mut self, wakes: &mut Vec<Wake>) {
        let writers: Vec<_> = std::mem::take(&mut self.retry);
        for w in writers.iter().filter_map(|w| w.upgrade()) {
            let mut fx = Effects::default();
            if w.try_apply(&mut fx) {
                self.retry.push(Arc::downgrade(&w));
            }
            self.effects(fx, wakes);
        }
    }

    fn effects(&mut self, fx: Effects, wakes: &mut Vec<Wake>) {
        wakes.extend(fx.wakes);
        for (peer, msg) in fx.msgs {
            self.send(peer, msg);
        }
    }

    /// `id` of `peer` went away.
    pub(crate) fn gone(&mut self, peer: PeerKey, id: EndpointId, wakes: &mut Vec<Wake>) {
        let Some(p) = self.peers.get_mut(&peer) else {
            return;
        };
        if p.writers.remove(&id).is_some() {
            for r in self.readers.values() {
                r.state.forget(id);
                if r.orphan_link(id, peer) {
                    wakes.extend(r.state.on_unmatched(id));
                }
            }
        }
        if p.readers.remove(&id).is_some() {
            let writers: Vec<_> = self.writers.values().cloned().collect();
            for w in writers {
                w.state.forget(id);
                self.pending.remove(&(w.id, id));
                self.change(&w, Change::Remove { reader: id }, wakes);
            }
        }
        self.graph_changed(wakes);
    }

    /// The connection to `peer` is gone (it exited, crashed or broke the
    /// protocol): its endpoints leave, and the chunks its readers held come
    /// back at once.
    pub fn peer_gone(&mut self, peer: PeerKey, wakes: &mut Vec<Wake>) {
        let Some(p) = self.peers.get(&peer) else {
            return;
        };
        let writers: Vec<_> = p.writers.keys().copied().collect();
        let readers: Vec<_> = p.readers.keys().copied().collect();
        for id in writers {
            self.gone(peer, id, wakes);
        }
        for id in readers {
            self.gone(peer, id, wakes);
            let local: Vec<_> = self.writers.values().cloned().collect();
            for w in local {
                self.change(&w, Change::Close { reader: id, peer }, wakes);
            }
        }
        self.pending.retain(|_, l| l.peer != peer);
        if self
            .peers
            .remove(&peer)
            .is_some_and(|p| !p.nodes.is_empty())
        {
            self.graph_changed(wakes);
        }
    }

    /// Reader side of `Connect`.
    pub(crate) fn connect(
        &mut self,
        core: &Arc<Core>,
        peer: PeerKey,
        writer: EndpointId,
        reader: EndpointId,
        capacity: usize,
        fds: [OwnedFd; 3],
    ) {
        let refuse = Msg::Refuse { writer, reader };
        let Some(r) = self.readers.get(&reader).cloned() else {
            return self.send(peer, refuse);
        };
        let Some(remote) = self.peers.get(&peer).and_then(|p| p.writers.get(&writer)) else {
            return self.send(peer, refuse);
        };
        if capacity != r.capacity
            || incompatibility(&remote.spec, &r.spec).is_some()
            || r.has_link(writer, peer)
        {
            return self.send(peer, refuse);
        }
        let lifespan = lifespan_ns(&remote.spec);
        let [region, segments, room] = fds;
        let release_capacity = layout::release_capacity(capacity);
        let built = (|| {
            let theirs = layout::map_writer_region(region.as_fd(), capacity)?;
            let ours = layout::create_reader_region(release_capacity)?;
            sys::set_nonblocking(room.as_fd())?;
            sys::set_nonblocking(segments.as_fd())?;
            let wake = r.wake_fd_for_writers()?;
            let rings = Rings::new(theirs, ours.map, capacity, release_capacity)?;
            Ok::<_, rustix::io::Errno>((rings, ours.peer_fd, wake))
        })();
        let Ok((rings, region_fd, wake)) = built else {
            return self.send(peer, refuse);
        };
        let link = LinkState::new(
            writer,
            reader,
            peer,
            rings,
            segments,
            room,
            lifespan,
            Arc::downgrade(core),
        );
        r.add_link(link);
        self.send(
            peer,
            Msg::Accept {
                writer,
                reader,
                release_capacity: release_capacity as u32,
                fds: [region_fd, wake],
            },
        );
    }

    /// Writer side of `Accept`.
    pub(crate) fn accept(
        &mut self,
        peer: PeerKey,
        writer: EndpointId,
        reader: EndpointId,
        release_capacity: usize,
        fds: [OwnedFd; 2],
        wakes: &mut Vec<Wake>,
    ) {
        if self
            .pending
            .get(&(writer, reader))
            .is_none_or(|p| p.peer != peer)
        {
            return;
        }
        let pending = self.pending.remove(&(writer, reader)).expect("checked");
        let Some(w) = self.writers.get(&writer).cloned() else {
            return;
        };
        if release_capacity == 0 || release_capacity > 2 * MAX_CAPACITY {
            return;
        }
        let [region, wake] = fds;
        let built = (|| {
            let theirs = layout::map_reader_region(region.as_fd(), release_capacity)?;
            sys::check_eventfd(wake.as_fd())?;
            Rings::new(pending.region, theirs, pending.capacity, release_capacity)
        })();
        let Ok(rings) = built else { return };
        let link = WriterLink::new(
            reader,
            peer,
            pending.reliable,
            pending.max_bytes,
            rings,
            pending.segments,
            wake,
        );
        self.change(
            &w,
            Change::Add {
                link,
                replay: pending.replay,
            },
            wakes,
        );
    }
}

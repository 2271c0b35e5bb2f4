//! Matching: what a participant does with its own endpoints and with the
//! announcements of its peers.
//!
//! Both sides of a (writer, reader) pair know both specs (announcements
//! carry them) and each decides for its own endpoint: an incompatible peer
//! (type, or QoS offered below what is requested) is reported on both
//! sides; a compatible pair is connected by the handshake in
//! [`handshake`](crate::handshake), started by the writer's participant.

use std::os::fd::AsFd;
use std::sync::Arc;

use hibari_transport::{check_compatibility, EndpointId, EndpointSpec, Incompatibility};

use crate::core::{Core, CoreState, PeerKey, Remote};
use crate::proto::Msg;
use crate::publish::{Change, WriterShared};
use crate::reader::ReaderShared;
use crate::state::Wake;
use crate::sys;

/// Why a writer and a reader do not match: what each side is told.
pub(crate) fn incompatibility(
    w: &EndpointSpec,
    r: &EndpointSpec,
) -> Option<(Incompatibility, Incompatibility)> {
    if !w.same_type(r) {
        return Some((
            Incompatibility::Type {
                type_name: r.type_name.clone(),
                type_hash: r.type_hash.clone(),
            },
            Incompatibility::Type {
                type_name: w.type_name.clone(),
                type_hash: w.type_hash.clone(),
            },
        ));
    }
    check_compatibility(&w.qos, &r.qos)
        .err()
        .map(|q| (Incompatibility::Qos(q.clone()), Incompatibility::Qos(q)))
}

pub(crate) fn lifespan_ns(spec: &EndpointSpec) -> Option<u128> {
    spec.qos.lifespan.map(|d| d.as_nanos())
}

impl CoreState {
    /// A local writer: announce it and match it with known readers.
    pub fn add_writer(&mut self, core: &Arc<Core>, w: Arc<WriterShared>, wakes: &mut Vec<Wake>) {
        self.writers.insert(w.id, w.clone());
        self.broadcast(|| crate::core::writer_msg(&w));
        let readers: Vec<(PeerKey, EndpointId)> = self
            .peers
            .iter()
            .flat_map(|(k, p)| p.readers.keys().map(move |id| (*k, *id)))
            .collect();
        for (peer, rid) in readers {
            self.offer(core, &w, peer, rid, wakes);
        }
        self.graph_changed(wakes);
    }

    /// A local reader: announce it and report incompatible known writers.
    pub fn add_reader(&mut self, r: Arc<ReaderShared>, key: u64, wakes: &mut Vec<Wake>) {
        self.readers.insert(r.id, r.clone());
        self.reader_keys.insert(key, Arc::downgrade(&r));
        self.broadcast(|| crate::core::reader_msg(&r));
        for p in self.peers.values() {
            for (wid, remote) in &p.writers {
                if remote.spec.topic == r.spec.topic {
                    if let Some((_, why)) = incompatibility(&remote.spec, &r.spec) {
                        wakes.extend(r.state.on_incompatible(*wid, why));
                    }
                }
            }
        }
        self.graph_changed(wakes);
    }

    pub fn remove_writer(&mut self, id: EndpointId, wakes: &mut Vec<Wake>) {
        if self.writers.remove(&id).is_some() {
            self.pending.retain(|(w, _), _| *w != id);
            self.broadcast(|| Msg::Gone { id });
            self.graph_changed(wakes);
        }
    }

    pub fn remove_reader(&mut self, id: EndpointId, wakes: &mut Vec<Wake>) {
        if self.readers.remove(&id).is_some() {
            self.reader_keys
                .retain(|_, r| r.upgrade().is_some_and(|r| r.id != id));
            self.broadcast(|| Msg::Gone { id });
            self.graph_changed(wakes);
        }
    }

    /// Handles one message from `peer`; an error drops the peer.
    pub fn handle(
        &mut self,
        core: &Arc<Core>,
        peer: PeerKey,
        msg: Msg,
        wakes: &mut Vec<Wake>,
    ) -> Result<(), &'static str> {
        if !self.peers.contains_key(&peer) {
            return Ok(());
        }
        match msg {
            Msg::Hello {
                participant,
                version,
            } => {
                if version != crate::proto::VERSION {
                    return Err("another protocol version");
                }
                if peer != crate::core::LOOPBACK && participant == core.participant {
                    return Err("connected to itself");
                }
                let dup = self.peers.iter().any(|(k, p)| {
                    *k != peer && *k != crate::core::LOOPBACK && p.participant == Some(participant)
                });
                if dup {
                    return Err("already connected");
                }
                self.peers.get_mut(&peer).expect("checked").participant = Some(participant);
            }
            Msg::Node { key, node } => {
                self.peers
                    .get_mut(&peer)
                    .expect("checked")
                    .nodes
                    .insert(key, node);
                self.graph_changed(wakes);
            }
            Msg::NodeGone { key } => {
                self.peers
                    .get_mut(&peer)
                    .expect("checked")
                    .nodes
                    .remove(&key);
                self.graph_changed(wakes);
            }
            Msg::Writer { id, spec, node } => {
                for r in self.readers.values().filter(|r| r.spec.topic == spec.topic) {
                    if let Some((_, why)) = incompatibility(&spec, &r.spec) {
                        wakes.extend(r.state.on_incompatible(id, why));
                    }
                }
                let p = self.peers.get_mut(&peer).expect("checked");
                p.writers.insert(
                    id,
                    Remote {
                        spec,
                        node,
                        capacity: 0,
                        max_bytes: u64::MAX,
                    },
                );
                self.graph_changed(wakes);
            }
            Msg::Reader {
                id,
                spec,
                node,
                capacity,
                max_bytes,
            } => {
                let p = self.peers.get_mut(&peer).expect("checked");
                p.readers.insert(
                    id,
                    Remote {
                        spec,
                        node,
                        capacity: capacity as usize,
                        max_bytes,
                    },
                );
                let writers: Vec<_> = self.writers.values().cloned().collect();
                for w in writers {
                    self.offer(core, &w, peer, id, wakes);
                }
                self.graph_changed(wakes);
            }
            Msg::Gone { id } => self.gone(peer, id, wakes),
            Msg::Connect {
                writer,
                reader,
                capacity,
                fds,
            } => self.connect(core, peer, writer, reader, capacity as usize, fds),
            Msg::Accept {
                writer,
                reader,
                release_capacity,
                fds,
            } => self.accept(peer, writer, reader, release_capacity as usize, fds, wakes),
            Msg::Refuse { writer, reader } => {
                if self
                    .pending
                    .get(&(writer, reader))
                    .is_some_and(|p| p.peer == peer)
                {
                    self.pending.remove(&(writer, reader));
                }
            }
            Msg::Ready { writer, reader } => {
                if let Some(r) = self.readers.get(&reader) {
                    if r.has_link(writer, peer) {
                        wakes.extend(r.state.on_matched(writer));
                    }
                }
            }
            Msg::Closed { writer, reader } => {
                if let Some(w) = self.writers.get(&writer).cloned() {
                    self.change(&w, Change::Close { reader, peer }, wakes);
                }
            }
            Msg::Wake { writer, reader, fd } => {
                if let Some(w) = self.writers.get(&writer).cloned() {
                    if sys::check_eventfd(fd.as_fd()).is_ok() {
                        self.change(&w, Change::Wake { reader, peer, fd }, wakes);
                    }
                }
            }
        }
        Ok(())
    }
}

impl Core {
    /// Registers a local writer.
    pub fn add_writer(self: &Arc<Self>, w: Arc<WriterShared>) {
        self.with_state(|st, wakes| st.add_writer(self, w, wakes));
    }

    /// Registers a local reader and its wake-up relay.
    pub fn add_reader(self: &Arc<Self>, r: Arc<ReaderShared>) -> rustix::io::Result<()> {
        use rustix::event::epoll;
        let key = self.key();
        epoll::add(
            &self.epoll,
            &r.wake,
            epoll::EventData::new_u64(crate::core::TOKEN_READER | key),
            epoll::EventFlags::IN,
        )?;
        self.with_state(|st, wakes| st.add_reader(r, key, wakes));
        Ok(())
    }

    pub fn remove_writer(&self, id: EndpointId) {
        self.with_state(|st, wakes| st.remove_writer(id, wakes));
    }

    pub fn remove_reader(&self, id: EndpointId) {
        let r = self.with_state(|st, wakes| {
            let r = st.readers.get(&id).cloned();
            st.remove_reader(id, wakes);
            r
        });
        if let Some(r) = r {
            let _ = rustix::event::epoll::delete(&self.epoll, &r.wake);
        }
    }
}

//! The participant's thread: one `epoll` loop for all control traffic.
//!
//! It accepts newcomers on the listening socket, reads and handles peers'
//! control messages, sends queued ones, notices a peer's end (the socket's
//! end of file: the kernel closes it however the process died), retries
//! link changes a busy writer could not take yet, and relays wake-ups for
//! readers whose waker has no eventfd of its own. It never touches samples.

use std::collections::HashMap;
use std::os::fd::{AsFd, OwnedFd};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use rustix::buffer::spare_capacity;
use rustix::event::epoll;

use crate::core::{
    Core, CoreState, PeerKey, LOOPBACK, TOKEN_KICK, TOKEN_LISTENER, TOKEN_MASK, TOKEN_PEER,
    TOKEN_READER,
};
use crate::discovery;
use crate::proto::Msg;
use crate::sock::{self, Received};
use crate::state::{lock, wake_all, Wake};
use crate::sys;

/// The most loopback rounds per wake-up (each round may queue more).
const LOOPBACK_ROUNDS: usize = 64;

pub(crate) struct Control {
    core: Arc<Core>,
    listener: OwnedFd,
    conns: HashMap<PeerKey, Arc<OwnedFd>>,
    buf: Vec<u8>,
    uid: u32,
}

impl Control {
    pub fn new(
        core: Arc<Core>,
        listener: OwnedFd,
        peers: Vec<OwnedFd>,
    ) -> rustix::io::Result<Control> {
        epoll::add(
            &core.epoll,
            &listener,
            epoll::EventData::new_u64(TOKEN_LISTENER),
            epoll::EventFlags::IN,
        )?;
        let mut c = Control {
            core,
            listener,
            conns: HashMap::new(),
            buf: vec![0; sock::MAX_MESSAGE],
            uid: rustix::process::getuid().as_raw(),
        };
        let core = c.core.clone();
        let mut st = lock(&core.state);
        if core.config.loopback {
            st.greet(&core, LOOPBACK);
        }
        for fd in peers {
            c.add_conn(&mut st, fd)?;
        }
        drop(st);
        Ok(c)
    }

    fn add_conn(&mut self, st: &mut CoreState, fd: OwnedFd) -> rustix::io::Result<()> {
        let key = self.core.key();
        let flags = epoll::EventFlags::IN | epoll::EventFlags::RDHUP;
        epoll::add(
            &self.core.epoll,
            &fd,
            epoll::EventData::new_u64(TOKEN_PEER | key),
            flags,
        )?;
        let fd = Arc::new(fd);
        self.conns.insert(key, fd.clone());
        st.peers.insert(
            key,
            crate::core::Peer {
                conn: Some(fd),
                ..Default::default()
            },
        );
        st.greet(&self.core, key);
        Ok(())
    }

    /// Runs until the participant stops.
    pub fn run(mut self) {
        let mut events = Vec::with_capacity(64);
        while !self.core.stop.load(Ordering::Acquire) {
            let retry = !lock(&self.core.state).retry.is_empty();
            let timeout = sys::timespec(Duration::from_millis(1));
            events.clear();
            if epoll::wait(
                &self.core.epoll,
                spare_capacity(&mut events),
                retry.then_some(&timeout),
            )
            .is_err()
            {
                continue;
            }
            let mut incoming = Vec::new();
            let mut dead = Vec::new();
            let mut accepted = Vec::new();
            let mut relay = Vec::new();
            for ev in &events {
                let token = ev.data.u64();
                match token & TOKEN_MASK {
                    TOKEN_PEER => {
                        let key = token & !TOKEN_MASK;
                        if !self.read(key, &mut incoming) {
                            dead.push(key);
                        }
                    }
                    TOKEN_READER => relay.push(token & !TOKEN_MASK),
                    _ if token == TOKEN_KICK => {
                        sys::drain(self.core.kick.as_fd());
                    }
                    _ if token == TOKEN_LISTENER => {
                        while let Ok(fd) = sock::accept(self.listener.as_fd()) {
                            if discovery::trusted(fd.as_fd(), self.uid) {
                                accepted.push(fd);
                            }
                        }
                    }
                    _ => {}
                }
            }
            let mut wakes: Vec<Wake> = Vec::new();
            let core = self.core.clone();
            let mut st = lock(&core.state);
            for fd in accepted {
                let _ = self.add_conn(&mut st, fd);
            }
            for (peer, msg) in self.core.take_posted() {
                st.send(peer, msg);
            }
            for (peer, msg) in incoming {
                if st.handle(&self.core, peer, msg, &mut wakes).is_err() {
                    dead.push(peer);
                }
            }
            for key in relay {
                if let Some(r) = st.reader_keys.get(&key).and_then(|r| r.upgrade()) {
                    if sys::drain(r.wake.as_fd()) {
                        wakes.extend(r.state.notifier());
                    }
                }
            }
            self.loopback(&mut st, &mut wakes);
            st.retry_changes(&mut wakes);
            st.flush(core.epoll.as_fd());
            dead.extend(st.failed());
            dead.sort_unstable();
            dead.dedup();
            for key in dead {
                self.conns.remove(&key);
                st.peer_gone(key, &mut wakes);
            }
            self.loopback(&mut st, &mut wakes);
            st.flush(core.epoll.as_fd());
            drop(st);
            wake_all(wakes);
        }
    }

    /// Reads every pending message of `key`; `false` when the peer is gone
    /// or broke the protocol.
    fn read(&mut self, key: PeerKey, out: &mut Vec<(PeerKey, Msg)>) -> bool {
        let Some(fd) = self.conns.get(&key) else {
            return true;
        };
        loop {
            let mut fds = Vec::new();
            match sock::recv(fd.as_fd(), &mut self.buf, &mut fds) {
                Ok(Received::Message(n)) => match Msg::decode(&self.buf[..n], fds) {
                    Ok(msg) => out.push((key, msg)),
                    Err(_) => return false,
                },
                Ok(Received::Empty) => return true,
                Ok(Received::Closed) | Err(_) => return false,
            }
        }
    }

    /// Delivers our own messages to ourselves (matching our own endpoints).
    fn loopback(&self, st: &mut CoreState, wakes: &mut Vec<Wake>) {
        for _ in 0..LOOPBACK_ROUNDS {
            let Some(p) = st.peers.get_mut(&LOOPBACK) else {
                return;
            };
            if p.outbox.is_empty() {
                return;
            }
            let msgs: Vec<Msg> = p.outbox.drain(..).collect();
            for msg in msgs {
                let _ = st.handle(&self.core, LOOPBACK, msg, wakes);
            }
        }
    }
}

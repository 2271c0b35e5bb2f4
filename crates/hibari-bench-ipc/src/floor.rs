//! The machine's wake-up floor: the least any shared-memory transport can do.
//!
//! Each direction is one anonymous memory file (`memfd`, passed to the child
//! with `SCM_RIGHTS`, so nothing is left anywhere when the processes exit)
//! mapped by both processes: a control page (a 32-bit sequence word that is
//! also the futex word, and the message length) followed by one payload
//! buffer. To send, the writer fills the buffer in place, stores the length
//! and then the new sequence number (release), and wakes the reader:
//!
//! - `futex`: `FUTEX_WAKE` on the sequence word; the reader `FUTEX_WAIT`s on it;
//! - `eventfd`: an 8-byte `write` to an eventfd; the reader blocks in `read`;
//! - `spin`: nothing; the reader spins on the sequence word.
//!
//! There is no queue, no allocation and no bookkeeping: the ping-pong
//! guarantees the buffer is free again when the next message is written.

use crate::control::Control;
use crate::sys::{self, SharedMapping};
use crate::system::{
    Link, LinkError, Mode, Publish, Role, Setup, Subscribe, System, Variant, ACK_LEN,
};
use hibari_cdr::Bytes;
use std::fs::File;
use std::io::{Read, Write};
use std::os::fd::AsFd;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

const SEQ: usize = 0;
const LEN: usize = 4;
const PAYLOAD: usize = 4096;
const WAIT_SLICE: Duration = Duration::from_millis(200);

const VARIANTS: &[Variant] = &[
    Variant {
        name: "futex",
        mode: Mode::Event,
        transport: "memfd + futex",
    },
    Variant {
        name: "eventfd",
        mode: Mode::Event,
        transport: "memfd + eventfd",
    },
    Variant {
        name: "spin",
        mode: Mode::Poll,
        transport: "memfd + atomic spin",
    },
];

/// The wake-up floor (see the module docs).
pub struct Floor;

#[derive(Clone)]
enum Wake {
    Futex,
    Eventfd(Arc<File>),
    Spin,
}

impl System for Floor {
    fn name(&self) -> &'static str {
        "floor"
    }

    fn variants(&self) -> &'static [Variant] {
        VARIANTS
    }

    fn queues(&self) -> bool {
        false
    }

    fn open(&self, setup: Setup<'_>) -> Result<Link, LinkError> {
        let (data, ack, data_wake, ack_wake) = match setup.role {
            Role::Publisher => create(setup.variant.name, setup.size, setup.control)?,
            Role::Subscriber => receive(setup.variant.name, setup.control)?,
        };
        let data_len = PAYLOAD + setup.size;
        let ack_len = PAYLOAD + ACK_LEN;
        let map = |f: &File, len| SharedMapping::map(f, len).map_err(LinkError::io("mmap"));
        let (tx, rx, tx_wake, rx_wake) = match setup.role {
            Role::Publisher => (
                map(&data, data_len)?,
                map(&ack, ack_len)?,
                data_wake,
                ack_wake,
            ),
            Role::Subscriber => (
                map(&ack, ack_len)?,
                map(&data, data_len)?,
                ack_wake,
                data_wake,
            ),
        };
        let rx = Arc::new(rx);
        let (unblock_map, unblock_wake) = (rx.clone(), rx_wake.clone());
        Ok(Link {
            tx: Box::new(FloorTx {
                map: tx,
                seq: 0,
                wake: tx_wake,
            }),
            rx: Box::new(FloorRx {
                map: rx,
                last: 0,
                wake: rx_wake,
                abort: setup.abort,
            }),
            unblock: Box::new(move || {
                sys::futex_wake(unblock_map.atomic_u32(SEQ));
                if let Wake::Eventfd(f) = &unblock_wake {
                    let _ = (&**f).write_all(&1u64.to_ne_bytes());
                }
            }),
        })
    }
}

type Channels = (File, File, Wake, Wake);

/// Publisher side: creates both memory files (and eventfds) and hands them to the child.
fn create(variant: &str, size: usize, control: &mut Control) -> Result<Channels, LinkError> {
    let data = sys::memfd(PAYLOAD + size).map_err(LinkError::io("memfd_create"))?;
    let ack = sys::memfd(PAYLOAD + ACK_LEN).map_err(LinkError::io("memfd_create"))?;
    if variant == "eventfd" {
        let data_ev = sys::eventfd().map_err(LinkError::io("eventfd"))?;
        let ack_ev = sys::eventfd().map_err(LinkError::io("eventfd"))?;
        control.send_fds(&[data.as_fd(), ack.as_fd(), data_ev.as_fd(), ack_ev.as_fd()])?;
        let (d, a) = (
            Wake::Eventfd(Arc::new(data_ev)),
            Wake::Eventfd(Arc::new(ack_ev)),
        );
        return Ok((data, ack, d, a));
    }
    control.send_fds(&[data.as_fd(), ack.as_fd()])?;
    let wake = if variant == "futex" {
        Wake::Futex
    } else {
        Wake::Spin
    };
    Ok((data, ack, wake.clone(), wake))
}

/// Subscriber side: receives what `create` sent.
fn receive(variant: &str, control: &mut Control) -> Result<Channels, LinkError> {
    let mut fds = control.recv_fds()?.into_iter().map(File::from);
    let bad = || LinkError::System {
        system: "floor",
        what: "setup",
        detail: "missing fds".into(),
    };
    let data = fds.next().ok_or_else(bad)?;
    let ack = fds.next().ok_or_else(bad)?;
    let (d, a) = match variant {
        "eventfd" => {
            let d = fds.next().ok_or_else(bad)?;
            let a = fds.next().ok_or_else(bad)?;
            (Wake::Eventfd(Arc::new(d)), Wake::Eventfd(Arc::new(a)))
        }
        "futex" => (Wake::Futex, Wake::Futex),
        _ => (Wake::Spin, Wake::Spin),
    };
    Ok((data, ack, d, a))
}

struct FloorTx {
    map: SharedMapping,
    seq: u32,
    wake: Wake,
}

impl Publish for FloorTx {
    fn publish(
        &mut self,
        len: usize,
        fill: u8,
        stamp: &mut dyn FnMut(&mut [u8]),
    ) -> Result<(), LinkError> {
        if len > self.map.len() - PAYLOAD {
            return Err(LinkError::System {
                system: "floor",
                what: "publish",
                detail: format!(
                    "{len} bytes exceed the {} byte buffer",
                    self.map.len() - PAYLOAD
                ),
            });
        }
        let buf = self.map.bytes_mut(PAYLOAD, len);
        buf.fill(fill);
        stamp(buf);
        self.seq = self.seq.wrapping_add(1);
        self.map
            .atomic_u32(LEN)
            .store(len as u32, Ordering::Relaxed);
        let word = self.map.atomic_u32(SEQ);
        word.store(self.seq, Ordering::Release);
        match &self.wake {
            Wake::Futex => sys::futex_wake(word),
            Wake::Eventfd(f) => (&**f)
                .write_all(&1u64.to_ne_bytes())
                .map_err(LinkError::io("eventfd write"))?,
            Wake::Spin => {}
        }
        Ok(())
    }
}

struct FloorRx {
    map: Arc<SharedMapping>,
    last: u32,
    wake: Wake,
    abort: Arc<AtomicBool>,
}

impl Subscribe for FloorRx {
    fn receive(&mut self, read: &mut dyn FnMut(Bytes<'_>)) -> Result<(), LinkError> {
        let word = self.map.atomic_u32(SEQ);
        if let Wake::Eventfd(f) = &self.wake {
            // One write per message: consume it first, so the counter never runs ahead.
            let mut count = [0u8; 8];
            (&**f)
                .read_exact(&mut count)
                .map_err(LinkError::io("eventfd read"))?;
        }
        let seq = loop {
            let seq = word.load(Ordering::Acquire);
            if seq != self.last {
                break seq;
            }
            if self.abort.load(Ordering::Relaxed) {
                return Err(LinkError::Aborted);
            }
            match &self.wake {
                Wake::Futex => sys::futex_wait(word, self.last, WAIT_SLICE),
                // Woken early by `unblock` or before the store was visible: look again.
                Wake::Eventfd(_) | Wake::Spin => std::hint::spin_loop(),
            }
        };
        let len = self.map.atomic_u32(LEN).load(Ordering::Relaxed) as usize;
        let len = len.min(self.map.len() - PAYLOAD);
        read(Bytes::Private(self.map.bytes(PAYLOAD, len)));
        self.last = seq;
        Ok(())
    }
}

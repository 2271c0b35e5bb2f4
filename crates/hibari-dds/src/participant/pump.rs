//! The participant's event thread: one `mio` poll over the participant's
//! status events and every reader's data notifications.
//!
//! It sleeps in `poll(2)` until RustDDS signals something (no busy polling:
//! an idle participant costs no CPU here), then drains what is ready: status
//! events first (so a writer is known before its first sample is), then the
//! samples of each signalled reader, which go into that reader's queue; the
//! reader's waker is called after every lock is released. The thread holds
//! only a weak reference to the participant and ends when the transport and
//! its endpoints are gone.

use std::sync::{Arc, Weak};

use rustdds::mio1::{Events, Interest, Poll, Token};
use rustdds::{DomainParticipantStatusListener, ReadCondition, StatusEvented};

use super::{lock, routing, Shared, STATUS, WAKE};
use crate::graph::discovery_info;

/// Samples taken from RustDDS per call.
const BATCH: usize = 256;

pub(super) fn start(shared: &Arc<Shared>, poll: Poll) -> std::io::Result<()> {
    let mut status = shared.participant.status_listener();
    poll.registry()
        .register(status.as_status_source_mio1(), STATUS, Interest::READABLE)?;
    let weak = Arc::downgrade(shared);
    std::thread::Builder::new()
        .name(format!("hibari-dds-{}", shared.domain))
        .spawn(move || run(weak, poll, status))?;
    Ok(())
}

fn run(weak: Weak<Shared>, mut poll: Poll, status: DomainParticipantStatusListener) {
    let mut events = Events::with_capacity(256);
    let mut ready = Vec::new();
    loop {
        if let Err(e) = poll.poll(&mut events, None) {
            if e.kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            break;
        }
        let Some(shared) = weak.upgrade() else { break };
        if shared.shutdown.load(std::sync::atomic::Ordering::SeqCst) {
            break;
        }
        let mut status_due = false;
        ready.clear();
        for ev in events.iter() {
            match ev.token() {
                STATUS => status_due = true,
                WAKE => {}
                Token(t) => ready.push(t),
            }
        }
        if status_due {
            while let Some(event) = status.try_recv_status() {
                routing::on_status(&shared, event);
            }
        }
        for &t in &ready {
            if t == discovery_info::TOKEN {
                if let Some(r) = lock(&shared.discovery_reader).as_mut() {
                    discovery_info::drain(&shared, r);
                }
            } else {
                drain_reader(&shared, t);
            }
        }
    }
}

/// Moves every sample RustDDS holds for reader `token` into its queue.
pub(crate) fn drain_reader(shared: &Shared, token: usize) {
    let (core, samples) = {
        let mut readers = lock(&shared.readers);
        let Some(slot) = readers.get_mut(&token) else {
            return;
        };
        let mut samples = Vec::new();
        loop {
            match slot.dds.take(BATCH, ReadCondition::not_read()) {
                Ok(batch) if batch.is_empty() => break,
                Ok(batch) => samples.extend(batch),
                Err(_) => break,
            }
        }
        (slot.core.clone(), samples)
    };
    if !samples.is_empty() {
        core.deliver(shared, samples);
    }
}

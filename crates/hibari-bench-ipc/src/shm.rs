//! hibari's shared-memory transport (`hibari-shm`), driven through its
//! transport API: the payload is written straight into a loan in the
//! writer's segment and sent without a copy; the reader gets a read-only
//! view of the same memory.
//!
//! - `event`: the reader's waker is this harness's eventfd, handed to the
//!   writer through [`Notify::wake_fd`]: the writer's `send` writes it only
//!   when the reader is about to sleep, and the waiting thread blocks in
//!   `read` on it — one wake-up, as an executor waiting on it would get.
//! - `poll`: the reader is in busy-poll mode and spins on `take`.
//!
//! Each cell uses a domain of its own (from the tag), so cells never see
//! each other; discovery needs nothing from the harness's control channel.

use hibari_cdr::Bytes;
use std::fs::File;
use std::io::{Read, Write};
use std::os::fd::{AsFd, BorrowedFd};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use hibari_shm::{ShmReader, ShmTransport, ShmWriter};
use hibari_transport::{
    Endpoint, EndpointSpec, Notify, QosProfile, Reader, ReaderOptions, WriterOptions,
};

use crate::sys;
use crate::system::{Link, LinkError, Mode, Publish, Role, Setup, Subscribe, System, Variant};

/// hibari's shared memory.
pub struct HibariShm;

const VARIANTS: &[Variant] = &[
    Variant {
        name: "event",
        mode: Mode::Event,
        transport: "hibari-shm loan + eventfd",
    },
    Variant {
        name: "poll",
        mode: Mode::Poll,
        transport: "hibari-shm loan, busy poll",
    },
];

fn domain_of(tag: &str) -> u32 {
    let h = tag.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ b as u64).wrapping_mul(0x100_0000_01b3)
    });
    10_000 + (h % 1_000_000) as u32
}

fn spec(tag: &str, dir: &str, depth: usize) -> EndpointSpec {
    EndpointSpec {
        topic: format!("/bench/{tag}/{dir}"),
        type_name: "hibari_bench/msg/Payload".into(),
        type_hash: String::new(),
        qos: QosProfile::default().keep_last(depth),
    }
}

fn err(what: &'static str) -> impl Fn(String) -> LinkError {
    move |detail| LinkError::System {
        system: "hibari",
        what,
        detail,
    }
}

/// Wakes the harness's waiting thread: the eventfd the writer writes.
struct EventWaker(File);

impl Notify for EventWaker {
    fn notify(&self) {
        let _ = (&self.0).write_all(&1u64.to_ne_bytes());
    }
    fn wake_fd(&self) -> Option<BorrowedFd<'_>> {
        Some(self.0.as_fd())
    }
}

impl System for HibariShm {
    fn name(&self) -> &'static str {
        "hibari"
    }

    fn variants(&self) -> &'static [Variant] {
        VARIANTS
    }

    fn open(&self, setup: Setup<'_>) -> Result<Link, LinkError> {
        let transport =
            ShmTransport::open(domain_of(setup.tag)).map_err(|e| err("open")(e.to_string()))?;
        let data_depth = setup.depth.max(2);
        let (out, inn, out_depth, in_depth) = match setup.role {
            Role::Publisher => ("data", "ack", data_depth, 2),
            Role::Subscriber => ("ack", "data", 2, data_depth),
        };
        let writer = transport
            .writer(&spec(setup.tag, out, out_depth), &WriterOptions::default())
            .map_err(|e| err("writer")(e.to_string()))?;
        let reader = transport
            .reader(&spec(setup.tag, inn, in_depth), &ReaderOptions::default())
            .map_err(|e| err("reader")(e.to_string()))?;
        let event = match setup.variant.mode {
            Mode::Event => {
                let fd = sys::eventfd().map_err(LinkError::io("eventfd"))?;
                let unblock = fd.try_clone().map_err(LinkError::io("eventfd dup"))?;
                let waker = Arc::new(EventWaker(fd.try_clone().map_err(LinkError::io("dup"))?));
                reader.set_notify(Some(waker));
                Some((fd, unblock))
            }
            Mode::Poll => {
                reader.set_busy_poll(true);
                None
            }
        };
        let (event, unblock) = match event {
            Some((fd, unblock)) => (Some(fd), Some(unblock)),
            None => (None, None),
        };
        Ok(Link {
            tx: Box::new(ShmTx {
                writer,
                reader_matched: None,
            }),
            rx: Box::new(ShmRx {
                reader,
                event,
                abort: setup.abort,
                _transport: transport,
            }),
            unblock: Box::new(move || {
                if let Some(f) = &unblock {
                    let _ = (&*f).write_all(&1u64.to_ne_bytes());
                }
            }),
        })
    }
}

struct ShmTx {
    writer: ShmWriter,
    reader_matched: Option<()>,
}

impl Publish for ShmTx {
    fn publish(
        &mut self,
        len: usize,
        fill: u8,
        stamp: &mut dyn FnMut(&mut [u8]),
    ) -> Result<(), LinkError> {
        let mut loan = self
            .writer
            .loan(len)
            .map_err(|e| err("loan")(e.to_string()))?;
        loan.fill(fill);
        stamp(&mut loan);
        loan.send().map_err(|e| err("send")(e.reason.to_string()))
    }

    fn wait_connected(&mut self) -> Result<(), LinkError> {
        let deadline = Instant::now() + Duration::from_secs(10);
        while self.writer.matched_count() == 0 {
            if Instant::now() > deadline {
                return Err(err("match")("no subscriber matched within 10 s".into()));
            }
            std::thread::sleep(Duration::from_millis(1));
        }
        self.reader_matched = Some(());
        Ok(())
    }
}

struct ShmRx {
    reader: ShmReader,
    event: Option<File>,
    abort: Arc<AtomicBool>,
    _transport: ShmTransport,
}

impl Subscribe for ShmRx {
    fn receive(&mut self, read: &mut dyn FnMut(Bytes<'_>)) -> Result<(), LinkError> {
        loop {
            if let Some(sample) = self.reader.take() {
                let bytes = sample
                    .payload
                    .cdr()
                    .map_err(|e| err("payload")(e.to_string()))?;
                read(bytes);
                return Ok(());
            }
            if self.abort.load(Ordering::Relaxed) {
                return Err(LinkError::Aborted);
            }
            match &self.event {
                // Blocks: the writer leaves our eventfd's flags alone.
                Some(f) => {
                    let mut count = [0u8; 8];
                    let _ = (&*f)
                        .read(&mut count)
                        .map_err(LinkError::io("eventfd read"))?;
                }
                None => std::hint::spin_loop(),
            }
        }
    }
}

//! Raw Zenoh 1.x (crates.io), peer to peer between the two processes, no
//! router: the publisher process's session listens on an endpoint of its own
//! (a free TCP port on 127.0.0.1, or a Unix socket under `/tmp`), the
//! subscriber process's session connects to it; multicast scouting is off.
//!
//! Each direction is one key (`hibari-bench/<tag>/data`, `…/ack`) with one
//! publisher (`express`: not batched; congestion control `Drop`, Zenoh's
//! default for puts) and one subscriber whose handler is a ring channel of
//! the cell's depth (a full ring drops its oldest sample, as keep-last does).
//! A message is a `Vec<u8>` filled and stamped in place, then `put`; the
//! receiver reads `payload().to_bytes()` (one contiguous slice, no copy for a
//! single-fragment payload).
//!
//! Variants: `tcp` and `unix` (`unixsock-stream`), with Zenoh's shared
//! memory off (it would otherwise carry payloads of 3 KiB and more implicitly);
//! and `shm`: Zenoh's own shared memory, explicitly — the publisher's session
//! has a POSIX SHM provider whose pool holds the cell's depth plus four
//! payloads, each message is allocated in it (`alloc` with
//! `BlockOn<GarbageCollect>`: a full pool waits for the subscriber to release
//! a buffer), filled and stamped in place and `put`; the subscriber reads it
//! where it lies (the Unix-socket link carries only the reference). All wait
//! in the kernel; there is no busy-poll mode. Built only with the cargo
//! feature `zenoh`.

use hibari_cdr::Bytes;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use zenoh::handlers::{RingChannel, RingChannelHandler};
use zenoh::pubsub::{Publisher, Subscriber};
use zenoh::qos::CongestionControl;
use zenoh::sample::Sample;
use zenoh::shm::{
    BlockOn, GarbageCollect, PosixShmProviderBackend, ShmProvider, ShmProviderBuilder,
};
use zenoh::{Config, Session, Wait};

use crate::control::Message;
use crate::system::{Link, LinkError, Mode, Publish, Role, Setup, Subscribe, System, Variant};

/// Raw Zenoh (see the module docs).
pub struct Zenoh;

const VARIANTS: &[Variant] = &[
    Variant {
        name: "tcp",
        mode: Mode::Event,
        transport: "zenoh peer, tcp loopback",
    },
    Variant {
        name: "unix",
        mode: Mode::Event,
        transport: "zenoh peer, unix socket",
    },
    Variant {
        name: "shm",
        mode: Mode::Event,
        transport: "zenoh peer, shared memory (unix socket link)",
    },
];

fn err(what: &'static str) -> impl FnOnce(zenoh::Error) -> LinkError {
    move |e| LinkError::System {
        system: "zenoh",
        what,
        detail: e.to_string(),
    }
}

fn socket_path(tag: &str) -> PathBuf {
    PathBuf::from(format!("/tmp/{tag}.zenoh.sock"))
}

fn free_port() -> Result<u16, LinkError> {
    let l = std::net::TcpListener::bind("127.0.0.1:0").map_err(LinkError::io("bind"))?;
    Ok(l.local_addr().map_err(LinkError::io("local_addr"))?.port())
}

fn config(listen: Option<&str>, connect: Option<&str>, shm: bool) -> Result<Config, LinkError> {
    let mut c = Config::default();
    let mut set = |k: &str, v: String| c.insert_json5(k, &v).map_err(err("config"));
    set("mode", "\"peer\"".into())?;
    set("scouting/multicast/enabled", "false".into())?;
    set("transport/shared_memory/enabled", shm.to_string())?;
    if shm {
        // Set up at open, not at the first measured message.
        set("transport/shared_memory/mode", "\"init\"".into())?;
    }
    if let Some(e) = listen {
        set("listen/endpoints", format!("[\"{e}\"]"))?;
    }
    if let Some(e) = connect {
        set("connect/endpoints", format!("[\"{e}\"]"))?;
    }
    Ok(c)
}

type Ring = RingChannelHandler<Sample>;

impl System for Zenoh {
    fn name(&self) -> &'static str {
        "zenoh"
    }

    fn variants(&self) -> &'static [Variant] {
        VARIANTS
    }

    fn open(&self, setup: Setup<'_>) -> Result<Link, LinkError> {
        let shm = setup.variant.name == "shm";
        let config = match setup.role {
            Role::Publisher => {
                let endpoint = match setup.variant.name {
                    "tcp" => format!("tcp/127.0.0.1:{}", free_port()?),
                    _ => format!("unixsock-stream/{}", socket_path(setup.tag).display()),
                };
                let c = config(Some(&endpoint), None, shm)?;
                setup.control.send(&Message::Note { text: endpoint })?;
                c
            }
            Role::Subscriber => match setup.control.recv()? {
                Message::Note { text } => config(None, Some(&text), shm)?,
                got => {
                    return Err(crate::control::ControlError::Unexpected {
                        expected: "the zenoh endpoint",
                        got: Box::new(got),
                    }
                    .into())
                }
            },
        };
        let session = zenoh::open(config).wait().map_err(err("open"))?;
        let (out, inn, in_depth) = match setup.role {
            Role::Publisher => ("data", "ack", 2),
            Role::Subscriber => ("ack", "data", setup.depth.max(2)),
        };
        let key = |d: &str| format!("hibari-bench/{}/{d}", setup.tag);
        let publisher = session
            .declare_publisher(key(out))
            .congestion_control(CongestionControl::Drop)
            .express(true)
            .wait()
            .map_err(err("declare_publisher"))?;
        let subscriber = session
            .declare_subscriber(key(inn))
            .with(RingChannel::new(in_depth))
            .wait()
            .map_err(err("declare_subscriber"))?;
        // The payloads' pool (acks are small: plain puts).
        let provider = if shm && setup.role == Role::Publisher {
            let pool = (setup.size + 4096) * (setup.depth + 4);
            let p = ShmProviderBuilder::default_backend(pool).wait();
            Some(p.map_err(err("shm provider"))?)
        } else {
            None
        };
        let mut tx = ZenohTx {
            publisher,
            provider,
        };
        if setup.role == Role::Subscriber {
            tx.wait_connected()?; // the acks' subscriber is the parent's
        }
        Ok(Link {
            tx: Box::new(tx),
            rx: Box::new(ZenohRx {
                subscriber,
                // The payloads must arrive in shared memory: Zenoh falls back
                // to the link silently when its SHM probe fails.
                in_shm: shm && setup.role == Role::Subscriber,
                abort: setup.abort,
                _session: session,
            }),
            unblock: Box::new(|| {}),
        })
    }

    fn leftovers(&self, tag: &str) -> Vec<PathBuf> {
        let p = socket_path(tag);
        if p.exists() {
            vec![p]
        } else {
            Vec::new()
        }
    }
}

struct ZenohTx {
    publisher: Publisher<'static>,
    provider: Option<ShmProvider<PosixShmProviderBackend>>,
}

impl Publish for ZenohTx {
    fn publish(
        &mut self,
        len: usize,
        fill: u8,
        stamp: &mut dyn FnMut(&mut [u8]),
    ) -> Result<(), LinkError> {
        let Some(provider) = &self.provider else {
            let mut buf = vec![fill; len];
            stamp(&mut buf);
            return self.publisher.put(buf).wait().map_err(err("put"));
        };
        let mut buf = provider
            .alloc(len)
            .with_policy::<BlockOn<GarbageCollect>>()
            .wait()
            .map_err(|e| LinkError::System {
                system: "zenoh",
                what: "shm alloc",
                detail: format!("{e:?}"),
            })?;
        buf.fill(fill);
        stamp(&mut buf);
        self.publisher.put(buf).wait().map_err(err("put"))
    }

    fn wait_connected(&mut self) -> Result<(), LinkError> {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let status = self.publisher.matching_status().wait();
            if status.map_err(err("matching_status"))?.matching() {
                // Matching is seen before the route is complete on both sides.
                std::thread::sleep(Duration::from_millis(50));
                return Ok(());
            }
            if Instant::now() > deadline {
                return Err(LinkError::System {
                    system: "zenoh",
                    what: "match",
                    detail: "no subscriber matched within 10 s".into(),
                });
            }
            std::thread::sleep(Duration::from_millis(2));
        }
    }
}

struct ZenohRx {
    subscriber: Subscriber<Ring>,
    in_shm: bool,
    abort: Arc<AtomicBool>,
    _session: Session,
}

impl Subscribe for ZenohRx {
    fn receive(&mut self, read: &mut dyn FnMut(Bytes<'_>)) -> Result<(), LinkError> {
        loop {
            let got = self.subscriber.recv_timeout(Duration::from_millis(200));
            if let Some(sample) = got.map_err(err("recv"))? {
                if self.in_shm && sample.payload().as_shm().is_none() {
                    return Err(LinkError::System {
                        system: "zenoh",
                        what: "shm",
                        detail: "a payload arrived through the link, not in shared memory".into(),
                    });
                }
                read(Bytes::Private(&sample.payload().to_bytes()));
                return Ok(());
            }
            if self.abort.load(Ordering::Relaxed) {
                return Err(LinkError::Aborted);
            }
        }
    }
}

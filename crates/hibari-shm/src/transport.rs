//! [`ShmTransport`]: opening a participant, creating its endpoints.

use std::sync::{Arc, Mutex};

use hibari_transport::{
    DomainId, EndpointCreateError, EndpointId, EndpointSpec, GraphSnapshot, GraphToken, History,
    NodeInfo, Notify, Reader, ReaderOptions, Transport, Writer, WriterOptions,
};
use thiserror::Error;

use crate::control::Control;
use crate::core::{Core, Handle};
use crate::discovery;
use crate::layout::MAX_CAPACITY;
use crate::publish::WriterShared;
use crate::reader::{ReaderShared, ShmReader};
use crate::writer::ShmWriter;

/// How a participant behaves; [`Default`] suits almost everyone.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct ShmConfig {
    /// Also match this participant's own writers and readers (as if they
    /// were in two processes). Off by default: within a process the runtime
    /// uses the in-process transport, which hands values over without
    /// serializing them.
    pub loopback: bool,
    /// Participants a domain can hold on this host (socket slots scanned
    /// when joining).
    pub max_participants: u32,
    /// Shared memory one writer may hold for its samples, in bytes
    /// (address space: pages are backed only when written).
    pub max_writer_bytes: usize,
}

impl Default for ShmConfig {
    /// No loopback, same user only, 128 participants per domain, 4 GiB per
    /// writer.
    fn default() -> Self {
        ShmConfig {
            loopback: false,
            max_participants: 128,
            max_writer_bytes: 4 << 30,
        }
    }
}

impl ShmConfig {
    /// Sets [`loopback`](ShmConfig::loopback).
    pub fn loopback(mut self, on: bool) -> Self {
        self.loopback = on;
        self
    }
    /// Sets [`max_writer_bytes`](ShmConfig::max_writer_bytes).
    pub fn max_writer_bytes(mut self, bytes: usize) -> Self {
        self.max_writer_bytes = bytes;
        self
    }
}

/// Why a participant could not be opened.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum ShmOpenError {
    /// Every socket slot of the domain is taken.
    #[error("all {0} participant slots of this domain are taken on this host: raise `ShmConfig::max_participants`")]
    Full(u32),
    /// A system call failed (sockets, eventfd, epoll, threads).
    #[error("cannot open a shared-memory participant: {0}")]
    Os(#[from] std::io::Error),
}

/// A participant of the shared-memory transport in one domain (see the
/// crate documentation). Cloning shares the participant.
#[derive(Clone)]
pub struct ShmTransport {
    handle: Arc<Handle>,
}

impl ShmTransport {
    /// Joins `domain` with the default configuration.
    pub fn open(domain: DomainId) -> Result<ShmTransport, ShmOpenError> {
        Self::open_with(domain, ShmConfig::default())
    }

    /// Joins `domain`: takes a socket slot, connects to the participants
    /// already there, and starts the participant's thread.
    pub fn open_with(domain: DomainId, config: ShmConfig) -> Result<ShmTransport, ShmOpenError> {
        let max = config.max_participants;
        let joined = match discovery::join(domain, max) {
            Ok(j) => j,
            Err(rustix::io::Errno::MFILE) => return Err(ShmOpenError::Full(max)),
            Err(e) => return Err(std::io::Error::from(e).into()),
        };
        let core = Arc::new(Core::new(domain, config).map_err(std::io::Error::from)?);
        let control = Control::new(core.clone(), joined.listener, joined.peers)
            .map_err(std::io::Error::from)?;
        let thread = std::thread::Builder::new()
            .name(format!("hibari-shm-{domain}"))
            .spawn(move || control.run())?;
        Ok(ShmTransport {
            handle: Arc::new(Handle {
                core,
                thread: Mutex::new(Some(thread)),
            }),
        })
    }

    /// This participant's 16-byte id.
    pub fn participant_id(&self) -> [u8; 16] {
        self.handle.core.participant
    }

    /// Creates a writer (the concrete type, with [`ShmWriter::loan`]).
    pub fn writer(
        &self,
        spec: &EndpointSpec,
        options: &WriterOptions,
    ) -> Result<ShmWriter, EndpointCreateError> {
        check(spec)?;
        let core = &self.handle.core;
        let (history, max_bytes) = match spec.qos.history {
            History::KeepLast(n) => (n, core.config.max_writer_bytes),
            // Keep-all: its memory is bounded by its resource limits too.
            History::KeepAll => (
                options.limits.max_samples,
                core.config.max_writer_bytes.min(options.limits.max_bytes),
            ),
        };
        let shared = WriterShared::new(
            options.id.unwrap_or_else(EndpointId::random),
            spec.clone(),
            options.node.clone(),
            options.when_full,
            history,
            max_bytes,
            Arc::downgrade(core),
        )
        .map_err(os)?;
        let shared = Arc::new(shared);
        core.add_writer(shared.clone());
        Ok(ShmWriter {
            shared,
            handle: self.handle.clone(),
        })
    }

    /// Creates a reader (the concrete type, with busy polling).
    pub fn reader(
        &self,
        spec: &EndpointSpec,
        options: &ReaderOptions,
    ) -> Result<ShmReader, EndpointCreateError> {
        check(spec)?;
        let core = &self.handle.core;
        let capacity = match spec.qos.history {
            History::KeepLast(n) => n,
            History::KeepAll => options.limits.max_samples,
        }
        .clamp(1, MAX_CAPACITY);
        let max_bytes = match spec.qos.history {
            History::KeepLast(_) => u64::MAX,
            History::KeepAll => options.limits.max_bytes as u64,
        };
        let shared = ReaderShared::new(
            options.id.unwrap_or_else(EndpointId::random),
            spec.clone(),
            options.node.clone(),
            capacity,
            max_bytes,
            Arc::downgrade(core),
        )
        .map_err(os)?;
        let shared = Arc::new(shared);
        core.add_reader(shared.clone()).map_err(os)?;
        Ok(ShmReader {
            shared,
            handle: self.handle.clone(),
        })
    }
}

fn os(e: rustix::io::Errno) -> EndpointCreateError {
    EndpointCreateError::Unsupported(format!("shared memory: {e}"))
}

fn check(spec: &EndpointSpec) -> Result<(), EndpointCreateError> {
    if spec.topic.is_empty() || spec.topic.contains('\0') {
        return Err(EndpointCreateError::InvalidTopic {
            topic: spec.topic.clone(),
        });
    }
    spec.qos.validate().map_err(EndpointCreateError::InvalidQos)
}

impl Transport for ShmTransport {
    fn kind(&self) -> &'static str {
        "shm"
    }

    fn domain_id(&self) -> DomainId {
        self.handle.core.domain
    }

    fn create_writer(
        &self,
        spec: &EndpointSpec,
        options: &WriterOptions,
    ) -> Result<Box<dyn Writer>, EndpointCreateError> {
        Ok(Box::new(self.writer(spec, options)?))
    }

    fn create_reader(
        &self,
        spec: &EndpointSpec,
        options: &ReaderOptions,
    ) -> Result<Box<dyn Reader>, EndpointCreateError> {
        Ok(Box::new(self.reader(spec, options)?))
    }

    fn announce_node(&self, node: &NodeInfo) -> GraphToken {
        let token = self.handle.core.announce_node(node);
        GraphToken::new((token, self.handle.clone()))
    }

    fn graph(&self) -> GraphSnapshot {
        self.handle.core.graph()
    }

    fn watch_graph(&self, notify: Arc<dyn Notify>) -> GraphToken {
        let token = self.handle.core.watch_graph(notify);
        GraphToken::new((token, self.handle.clone()))
    }
}

//! Subscriptions for asyncio: `async for msg in node.subscribe_async(...)`.
//!
//! The executor spinning the node (on another thread) runs a callback that
//! never touches Python: it queues the sample's bytes (bounded by the QoS
//! depth; the oldest is dropped and counted when full) and writes one byte
//! to a socket pair. The asyncio loop watches the other end
//! (`loop.add_reader`) and decodes the queued samples on its own thread.
//! Nothing polls, and the executor thread never waits for the GIL.

use std::collections::VecDeque;
use std::io::{Read, Write};
use std::os::fd::AsRawFd;
use std::os::unix::net::UnixStream;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use hibari::{CdrBytes, QosProfile, SampleInfo, Serialized};
use pyo3::prelude::*;

use crate::decode::decode;
use crate::errors::{hibari_error, value_error};
use crate::qos::PySampleInfo;
use crate::schema::{schema, Schema};

struct Queue {
    items: Mutex<VecDeque<(CdrBytes, SampleInfo)>>,
    depth: usize,
    /// The writing end of the wake-up socket pair.
    wake: UnixStream,
    dropped: AtomicU64,
}

impl Queue {
    fn push(&self, bytes: CdrBytes, info: SampleInfo) {
        {
            let mut items = self
                .items
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            if items.len() >= self.depth {
                items.pop_front();
                self.dropped.fetch_add(1, Ordering::Relaxed);
            }
            items.push_back((bytes, info));
        }
        // A full socket buffer already holds wake-ups: nothing is lost.
        let _ = (&self.wake).write(&[1]);
    }

    fn pop(&self) -> Option<(CdrBytes, SampleInfo)> {
        self.items
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .pop_front()
    }
}

/// A subscription whose messages wait in a queue for an asyncio task.
#[pyclass(frozen, module = "hibari._hibari")]
pub struct AsyncSubscription {
    _inner: hibari::Subscription<Serialized>,
    _local: crate::local::LocalSubscription,
    queue: Arc<Queue>,
    /// The reading end of the wake-up socket pair.
    readable: UnixStream,
    schema: Arc<Schema>,
}

impl AsyncSubscription {
    pub(crate) fn create(
        py: Python<'_>,
        node: &hibari::Node,
        type_name: &str,
        topic: &str,
        qos: QosProfile,
    ) -> PyResult<Self> {
        let schema = schema(py, type_name)?;
        schema.class(py)?;
        let (readable, wake) = UnixStream::pair().map_err(hibari_error)?;
        readable.set_nonblocking(true).map_err(hibari_error)?;
        wake.set_nonblocking(true).map_err(hibari_error)?;
        let queue = Arc::new(Queue {
            items: Mutex::new(VecDeque::new()),
            depth: qos.depth().max(1),
            wake,
            dropped: AtomicU64::new(0),
        });
        let q = queue.clone();
        let inner = node
            .create_generic_subscription(topic, &schema.type_name, qos, move |b, i| q.push(b, i))
            .map_err(value_error)?;
        Ok(AsyncSubscription {
            _local: crate::local::LocalSubscription::of(node, inner.topic()),
            _inner: inner,
            queue,
            readable,
            schema,
        })
    }
}

#[pymethods]
impl AsyncSubscription {
    /// The file descriptor that becomes readable when messages arrive.
    fn fileno(&self) -> i32 {
        self.readable.as_raw_fd()
    }

    /// Reads the pending wake-up bytes (call before taking messages).
    fn drain(&self) {
        let mut buf = [0u8; 256];
        while matches!((&self.readable).read(&mut buf), Ok(n) if n > 0) {}
    }

    /// The oldest queued message (with its `SampleInfo` when `with_info`),
    /// or None. A sample that does not decode raises.
    #[pyo3(signature = (with_info = false))]
    fn take(&self, py: Python<'_>, with_info: bool) -> PyResult<Option<Py<PyAny>>> {
        let Some((bytes, info)) = self.queue.pop() else {
            return Ok(None);
        };
        let message = decode(py, &self.schema, &bytes)?;
        Ok(Some(if with_info {
            (message, PySampleInfo::new(info))
                .into_pyobject(py)?
                .into_any()
                .unbind()
        } else {
            message.unbind()
        }))
    }

    /// Messages dropped because the queue was full (the QoS depth).
    #[getter]
    fn dropped(&self) -> u64 {
        self.queue.dropped.load(Ordering::Relaxed)
    }
}

//! What the service and async tests share: a service whose messages count
//! their clones, and a watchdog for tests that would hang if broken.

#![allow(dead_code)]

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Arc};
use std::thread::JoinHandle;
use std::time::Duration;

use hibari::cdr::{CdrDecodeError, CdrEncodeError, CdrReader, CdrSink, CdrWriter};
use hibari::{Context, Message, Node, Service, SingleThreadedExecutor};

/// A timeout for waits that only a hang reaches.
pub const LONG: Duration = Duration::from_secs(10);

/// A context of its own (no other test sees its topics).
pub fn isolated() -> Context {
    Context::builder().isolated().create().unwrap()
}

/// Runs `f` on a thread of its own and returns its result, failing the test
/// if it takes longer than `limit` (a hang, not a slow machine: limits are
/// generous).
pub fn within<T: Send + 'static>(limit: Duration, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(limit)
        .expect("the test hung (or panicked): see its output")
}

/// Spins `node` on a thread of its own until dropped.
pub struct Spinning {
    executor: Arc<SingleThreadedExecutor>,
    thread: Option<JoinHandle<()>>,
}

pub fn spin_in_background(node: &Node) -> Spinning {
    let executor = Arc::new(SingleThreadedExecutor::new());
    executor.add_node(node).unwrap();
    let spinner = executor.clone();
    let thread = std::thread::spawn(move || spinner.spin());
    Spinning {
        executor,
        thread: Some(thread),
    }
}

impl Drop for Spinning {
    fn drop(&mut self) {
        if let Some(t) = self.thread.take() {
            hibari_testkit::cancel_and_join(
                t,
                hibari_testkit::HANG,
                "the spinner to stop after cancel()",
                || self.executor.cancel(),
            )
            .unwrap();
        }
    }
}

/// Completes `future` on this thread (an executor without nodes is a
/// `block_on`).
pub fn wait<F: std::future::Future>(future: F) -> F::Output {
    SingleThreadedExecutor::new()
        .spin_until_future_complete(future, LONG)
        .expect("the future completes")
}

macro_rules! counted_message {
    ($name:ident, $type_name:literal) => {
        /// A message that counts its clones (all clones of one original
        /// share the counter) and carries a buffer whose address shows
        /// whether it was moved.
        #[derive(Debug, Default)]
        pub struct $name {
            pub n: u64,
            pub body: Vec<u8>,
            pub clones: Arc<AtomicUsize>,
        }

        impl $name {
            pub fn new(n: u64, clones: &Arc<AtomicUsize>) -> Self {
                $name {
                    n,
                    body: vec![7; 4096],
                    clones: clones.clone(),
                }
            }
        }

        impl Clone for $name {
            fn clone(&self) -> Self {
                self.clones.fetch_add(1, Ordering::SeqCst);
                $name {
                    n: self.n,
                    body: self.body.clone(),
                    clones: self.clones.clone(),
                }
            }
        }

        impl PartialEq for $name {
            fn eq(&self, other: &Self) -> bool {
                self.n == other.n && self.body == other.body
            }
        }

        impl Message for $name {
            const TYPE_NAME: &'static str = $type_name;
            const TYPE_HASH: &'static str = "";
            const DEFINITION: &'static str = "uint64 n\nuint8[] body\n";
            fn encode_fields<S: CdrSink>(
                &self,
                w: &mut CdrWriter<S>,
            ) -> Result<(), CdrEncodeError> {
                w.write(self.n)?;
                w.write_prim_seq("body", &self.body, None)
            }
            fn decode_fields_into(&mut self, r: &mut CdrReader<'_>) -> Result<(), CdrDecodeError> {
                self.n = r.read()?;
                r.read_prim_vec_into(&mut self.body)
            }
        }
    };
}

counted_message!(EchoRequest, "hibari_test/srv/Echo_Request");
counted_message!(EchoResponse, "hibari_test/srv/Echo_Response");

/// A service whose server typically answers `n` with `2n` and hands the
/// request's buffer back in the response.
#[derive(Debug, Clone, Copy, Default)]
pub struct Echo;

impl Service for Echo {
    type Request = EchoRequest;
    type Response = EchoResponse;
    const TYPE_NAME: &'static str = "hibari_test/srv/Echo";
    const TYPE_HASH: &'static str = "";
}

/// The server callback of the tests: `n` → `2n`, the buffer moved along.
pub fn double(request: EchoRequest) -> EchoResponse {
    EchoResponse {
        n: request.n * 2,
        body: request.body,
        clones: request.clones,
    }
}

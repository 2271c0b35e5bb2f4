//! A domain of a test's own with a node in it, for running graph commands
//! (`topic`, `node`, `service`, `param`, `action`) against this process.

use std::process::Command as StdCommand;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use hibari::{Context, Node, QosProfile, SingleThreadedExecutor};
use hibari_testkit::lines::LineChild;
use hibari_testkit::TestDomain;

use super::{hibari, run, Run};

/// How long any one command may take before the test fails.
pub const LONG: Duration = Duration::from_secs(30);

/// A domain, a context in it and a node `talker` in `/tools`.
pub struct Fixture {
    pub node: Node,
    _context: Context,
    pub domain: TestDomain,
}

impl Fixture {
    pub fn new() -> Fixture {
        let domain = TestDomain::reserve();
        let context = Context::with_domain(domain.id());
        let node = context
            .create_node_with_namespace("talker", "/tools")
            .unwrap();
        Fixture {
            node,
            _context: context,
            domain,
        }
    }

    /// `hibari <args>` in this fixture's domain, killed after `LONG`.
    pub fn hibari(&self, args: &[&str]) -> assert_cmd::Command {
        let mut cmd = hibari(args);
        cmd.env("ROS_DOMAIN_ID", self.domain.to_string())
            .timeout(LONG);
        cmd
    }

    pub fn run(&self, args: &[&str]) -> Run {
        run(&mut self.hibari(args))
    }

    /// Publishes `make()` every 20 ms on a thread until the guard drops.
    pub fn keep_publishing<M: hibari::Message + Send + 'static>(
        &self,
        topic: &str,
        make: impl Fn() -> M + Send + 'static,
    ) -> Publishing {
        let publisher = self
            .node
            .create_publisher::<M>(topic, QosProfile::default())
            .unwrap();
        let stop = Arc::new(AtomicBool::new(false));
        let s = stop.clone();
        let thread = std::thread::spawn(move || {
            while !s.load(Ordering::Relaxed) {
                // A full reader of this process (not spun) may time a publish out.
                let _ = publisher.publish(make());
                std::thread::sleep(Duration::from_millis(20));
            }
        });
        Publishing {
            stop,
            thread: Some(thread),
        }
    }
}

pub struct Publishing {
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Drop for Publishing {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            t.join().unwrap();
        }
    }
}

/// An executor spinning a node on a thread until dropped.
pub struct Spin {
    executor: Arc<SingleThreadedExecutor>,
    thread: Option<JoinHandle<()>>,
}

impl Spin {
    pub fn node(node: &Node) -> Spin {
        let executor = Arc::new(SingleThreadedExecutor::new());
        executor.add_node(node).unwrap();
        let e = executor.clone();
        Spin {
            executor,
            thread: Some(std::thread::spawn(move || e.spin())),
        }
    }
}

impl Drop for Spin {
    fn drop(&mut self) {
        self.executor.cancel();
        if let Some(t) = self.thread.take() {
            t.join().unwrap();
        }
    }
}

/// Sends SIGINT to a running command, as Ctrl-C does.
pub fn interrupt(child: &mut LineChild) -> std::process::ExitStatus {
    let pid = child.child().id().to_string();
    let sent = StdCommand::new("kill")
        .args(["-INT", &pid])
        .status()
        .unwrap();
    assert!(sent.success());
    let deadline = Instant::now() + LONG;
    loop {
        if let Some(status) = child.child().try_wait().unwrap() {
            return status;
        }
        assert!(
            Instant::now() < deadline,
            "the command did not end within {LONG:?} of Ctrl-C"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

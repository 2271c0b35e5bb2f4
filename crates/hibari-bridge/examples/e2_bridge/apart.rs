//! The E2 sink in a process of its own (bridge.md §5(b) runs its sink
//! apart from the bridge), so that the bridge process's memory and CPU are
//! the bridge's alone; or in this process, as before. The two speak over
//! the child's stdin/stdout: `reset N`, `matched`, `outcome`.

use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::sink::{Latency, Sink};

/// What a run's sink saw.
#[derive(Clone, Copy, Debug, Default)]
pub struct Outcome {
    pub received: u64,
    pub last_rx: i64,
    pub in_order: bool,
    pub exact: bool,
    pub max_queue_wait_ns: i64,
    pub latency: Latency,
}

impl Outcome {
    /// One line for the parent: the fields, space-separated.
    fn line(&self) -> String {
        let l = self.latency;
        format!(
            "outcome {} {} {} {} {} {} {} {} {} {} {} {} {}",
            self.received,
            self.last_rx,
            self.in_order,
            self.exact,
            self.max_queue_wait_ns,
            l.count,
            l.p50_us,
            l.p90_us,
            l.p99_us,
            l.p999_us,
            l.max_us,
            l.mean_us,
            l.stddev_us
        )
    }

    fn parse(line: &str) -> Outcome {
        let f: Vec<&str> = line.split_whitespace().skip(1).collect();
        let num = |i: usize| -> f64 { f[i].parse().unwrap() };
        Outcome {
            received: f[0].parse().unwrap(),
            last_rx: f[1].parse().unwrap(),
            in_order: f[2] == "true",
            exact: f[3] == "true",
            max_queue_wait_ns: f[4].parse().unwrap(),
            latency: Latency {
                count: f[5].parse().unwrap(),
                p50_us: num(6),
                p90_us: num(7),
                p99_us: num(8),
                p999_us: num(9),
                max_us: num(10),
                mean_us: num(11),
                stddev_us: num(12),
            },
        }
    }
}

impl Sink {
    /// Waits for the run's messages (until `idle` passes with none) and
    /// sums it up.
    pub fn outcome(&self, idle: Duration) -> Outcome {
        let received = self.wait_all(idle);
        let (last_rx, in_order, exact, max_queue_wait_ns) = {
            let st = self.state.lock().unwrap();
            (
                st.last_rx,
                st.out_of_order == 0 && st.duplicates == 0,
                st.bad_payloads == 0,
                st.max_queue_wait_ns,
            )
        };
        Outcome {
            received,
            last_rx,
            in_order,
            exact,
            max_queue_wait_ns,
            latency: self.latencies(),
        }
    }

    /// Waits (up to `timeout`) until the client's publisher is matched.
    pub fn wait_matched(&self, timeout: Duration) {
        let deadline = Instant::now() + timeout;
        while self.subscription.matched_publishers() == 0 && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(1));
        }
    }
}

/// The sink in this process, or in a process of its own (this program
/// again, `--sink`), so that this process's memory is the bridge's alone.
pub enum Place {
    Here(Sink),
    Apart {
        child: std::process::Child,
        to: std::process::ChildStdin,
        from: std::io::Lines<std::io::BufReader<std::process::ChildStdout>>,
    },
}

impl Place {
    /// Starts the sink process on `domain` with room for `capacity`.
    pub fn apart(domain: u32, capacity: usize) -> Place {
        use std::io::BufRead;
        let mut child = std::process::Command::new(std::env::current_exe().unwrap())
            .args(["--sink", &domain.to_string(), &capacity.to_string()])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("the sink process starts");
        let to = child.stdin.take().unwrap();
        let mut from = std::io::BufReader::new(child.stdout.take().unwrap()).lines();
        assert_eq!(from.next().unwrap().unwrap(), "sink ready");
        Place::Apart { child, to, from }
    }

    fn ask(&mut self, line: &str) -> String {
        use std::io::Write;
        let Place::Apart { to, from, .. } = self else {
            unreachable!()
        };
        writeln!(to, "{line}").unwrap();
        from.next().unwrap().unwrap()
    }

    /// Clears the counters for a run of `n` messages.
    pub fn reset(&mut self, n: u64) {
        match self {
            Place::Here(s) => s.reset(n),
            apart => assert_eq!(apart.ask(&format!("reset {n}")), "reset"),
        }
    }

    /// Waits until the client's publisher is matched.
    pub fn wait_matched(&mut self) {
        match self {
            Place::Here(s) => s.wait_matched(Duration::from_secs(5)),
            apart => assert_eq!(apart.ask("matched"), "matched"),
        }
    }

    /// Waits for the run's messages and sums it up.
    pub fn outcome(&mut self) -> Outcome {
        match self {
            Place::Here(s) => s.outcome(Duration::from_secs(10)),
            apart => Outcome::parse(&apart.ask("outcome")),
        }
    }
}

impl Drop for Place {
    fn drop(&mut self) {
        if let Place::Apart { child, .. } = self {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// The sink process: answers `reset N`, `matched` and `outcome` on
/// stdin/stdout until its stdin closes.
pub fn serve(domain: u32, capacity: usize) {
    use std::io::{BufRead, Write};
    let context = hibari::Context::with_domain(domain);
    let node = context.create_node("sink").unwrap();
    let sink = Sink::new(&node, capacity);
    let executor = Arc::new(hibari::SingleThreadedExecutor::new());
    executor.add_node(&node).unwrap();
    let e = executor.clone();
    let spinner = std::thread::spawn(move || e.spin());
    let mut out = std::io::stdout();
    writeln!(out, "sink ready").unwrap();
    out.flush().unwrap();
    for line in std::io::stdin().lock().lines() {
        let line = line.unwrap();
        let answer = match line.split_whitespace().collect::<Vec<_>>().as_slice() {
            ["reset", n] => {
                sink.reset(n.parse().unwrap());
                "reset".to_owned()
            }
            ["matched"] => {
                sink.wait_matched(Duration::from_secs(5));
                "matched".to_owned()
            }
            ["outcome"] => sink.outcome(Duration::from_secs(10)).line(),
            _ => break,
        };
        writeln!(out, "{answer}").unwrap();
        out.flush().unwrap();
    }
    executor.cancel();
    spinner.join().unwrap();
}

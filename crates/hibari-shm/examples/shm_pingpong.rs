//! One-way latency between two processes over shared memory, event-driven
//! and busy-polling, for 64 B to 6 MB.
//!
//! ```text
//! cargo run -p hibari-shm --release --example shm_pingpong [-- --n 2000 --cpus 0,0]
//! ```
//!
//! The parent publishes on `/ping` and spawns itself as the child, which
//! answers each sample with a 32-byte ack on `/pong`; the next sample goes
//! out after the ack (ping-pong). The publisher fills every byte of the
//! loan, stamps `CLOCK_MONOTONIC` in its first 8 bytes and sends it; the
//! child stamps when its take returns and sends the difference back. In
//! event mode each side blocks in `poll` on an eventfd its waker hands to
//! the writers ([`Notify::wake_fd`]): the writer wakes it directly. In busy
//! mode each side spins on `take`. `--cpus A,B` pins parent and child.
//! `--paced 30 6220800 10` instead publishes 1080p RGB frames at 30 Hz for
//! 10 s to an event-driven subscriber and reports the CPU both spend beyond
//! writing the pixels.

use std::os::fd::{AsFd, OwnedFd};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use hibari_shm::{ShmReader, ShmTransport, ShmWriter};
use hibari_transport::{
    Endpoint, EndpointSpec, Notify, QosProfile, Reader, ReaderOptions, Sample, WriterOptions,
};
use rustix::event::{eventfd, poll, EventfdFlags, PollFd, PollFlags};
use rustix::time::{clock_gettime, ClockId};

const SIZES: [usize; 5] = [64, 4096, 65_536, 921_600, 6_220_800];

fn now() -> u64 {
    let t = clock_gettime(ClockId::Monotonic);
    t.tv_sec as u64 * 1_000_000_000 + t.tv_nsec as u64
}

/// CPU time of this process (all threads), ns.
fn cpu_ns() -> u64 {
    let t = clock_gettime(ClockId::ProcessCPUTime);
    t.tv_sec as u64 * 1_000_000_000 + t.tv_nsec as u64
}

/// A waker backed by an eventfd: writers in other processes write it.
struct EventWaker(OwnedFd);

impl Notify for EventWaker {
    fn notify(&self) {
        let _ = rustix::io::write(&self.0, &1u64.to_ne_bytes());
    }
    fn wake_fd(&self) -> Option<std::os::fd::BorrowedFd<'_>> {
        Some(self.0.as_fd())
    }
}

/// Takes the next sample: spinning, or sleeping on the waker's eventfd.
fn next(r: &ShmReader, waker: &EventWaker, busy: bool) -> Sample {
    loop {
        if let Some(s) = r.take() {
            return s;
        }
        if !busy {
            let mut fds = [PollFd::new(&waker.0, PollFlags::IN)];
            let _ = poll(&mut fds, None);
            let mut buf = [0u8; 8];
            let _ = rustix::io::read(&waker.0, &mut buf);
        }
    }
}

fn endpoints(
    domain: u32,
    out: &str,
    inp: &str,
    busy: bool,
) -> (ShmTransport, ShmWriter, ShmReader, Arc<EventWaker>) {
    let t = ShmTransport::open(domain).expect("open");
    let spec = |topic: &str| EndpointSpec {
        topic: topic.into(),
        type_name: "hibari_bench/msg/Blob".into(),
        type_hash: String::new(),
        qos: QosProfile::default().keep_last(4),
    };
    let w = t
        .writer(&spec(out), &WriterOptions::default())
        .expect("writer");
    let r = t
        .reader(&spec(inp), &ReaderOptions::default())
        .expect("reader");
    let waker = Arc::new(EventWaker(
        eventfd(0, EventfdFlags::CLOEXEC | EventfdFlags::NONBLOCK).expect("eventfd"),
    ));
    r.set_busy_poll(busy);
    r.set_notify(Some(waker.clone()));
    while w.matched_count() == 0 || r.matched_count() == 0 {
        std::thread::sleep(Duration::from_millis(1));
    }
    (t, w, r, waker)
}

fn pin(cpu: Option<usize>) {
    if let Some(cpu) = cpu {
        let mut set = rustix::thread::CpuSet::new();
        set.set(cpu);
        let _ = rustix::thread::sched_setaffinity(None, &set);
    }
}

/// The child: answers each sample with an ack (one-way latency in it), or
/// when `paced`, only the last one (its CPU time and the samples it took).
fn pong(domain: u32, busy: bool, paced: bool, cpu: Option<usize>) {
    pin(cpu);
    let (_t, w, r, waker) = endpoints(domain, "/pong", "/ping", busy);
    let (cpu0, mut count) = (cpu_ns(), 0u64);
    loop {
        let s = next(&r, &waker, busy);
        let t_recv = now();
        count += 1;
        let bytes = s.payload.cdr().expect("bytes");
        let t_send = u64::from_le_bytes(bytes.array(0).expect("8 bytes"));
        let last = bytes.get(bytes.len() - 1).expect("a last byte");
        drop(s);
        if paced && t_send != 0 {
            continue;
        }
        let mut ack = w.loan(32).expect("loan");
        ack[..8].copy_from_slice(&t_recv.wrapping_sub(t_send).to_le_bytes());
        ack[8] = last;
        ack[16..24].copy_from_slice(&(cpu_ns() - cpu0).to_le_bytes());
        ack[24..32].copy_from_slice(&(count - 1).to_le_bytes());
        if t_send == 0 {
            let _ = ack.send();
            return;
        }
        ack.send().map_err(|e| e.reason).expect("ack");
    }
}

/// CPU time of the calling thread, ns.
fn thread_cpu_ns() -> u64 {
    let t = clock_gettime(ClockId::ThreadCPUTime);
    t.tv_sec as u64 * 1_000_000_000 + t.tv_nsec as u64
}

/// Publishes `size`-byte samples at `hz` for `secs` to an event-driven
/// subscriber and reports each side's CPU beyond writing the payload.
fn paced(domain: u32, hz: u64, size: usize, secs: u64, cpus: (Option<usize>, Option<usize>)) {
    pin(cpus.0);
    let mut child = spawn_pong(domain, false, true, cpus.1);
    let (_t, w, r, waker) = endpoints(domain, "/ping", "/pong", false);
    let period = Duration::from_nanos(1_000_000_000 / hz);
    let n = hz * secs;
    let (cpu0, mut fill) = (cpu_ns(), 0u64);
    let start = Instant::now();
    for i in 0..n {
        let due = start + period * i as u32;
        if let Some(left) = due.checked_duration_since(Instant::now()) {
            std::thread::sleep(left);
        }
        let mut loan = w.loan(size).expect("loan");
        let f0 = thread_cpu_ns();
        loan.fill(i as u8);
        fill += thread_cpu_ns() - f0;
        loan[..8].copy_from_slice(&now().to_le_bytes());
        loan.send().map_err(|e| e.reason).expect("send");
    }
    let publisher = cpu_ns() - cpu0;
    let mut stop = w.loan(size).expect("loan");
    stop[..8].fill(0);
    stop.send().map_err(|e| e.reason).expect("stop");
    let ack = next(&r, &waker, false);
    let b = ack.payload.cdr().expect("ack").to_vec();
    let subscriber = u64::from_le_bytes(b[16..24].try_into().expect("8"));
    let taken = u64::from_le_bytes(b[24..32].try_into().expect("8"));
    let _ = child.wait();
    let per = |ns: u64| ns as f64 / 1000.0 / n as f64;
    let core = (publisher - fill + subscriber) as f64 / (secs as f64 * 1e9) * 100.0;
    println!(
        "paced {hz} Hz x {size} B for {secs} s: {taken}/{n} taken; publisher {:.1} µs/msg ({:.1} writing the payload), subscriber {:.1} µs/msg; beyond the payload writes {core:.3}% of a core",
        per(publisher),
        per(fill),
        per(subscriber)
    );
}

fn spawn_pong(domain: u32, busy: bool, paced: bool, cpu: Option<usize>) -> std::process::Child {
    let exe = std::env::current_exe().expect("exe");
    let mut args = vec![
        "--pong".to_string(),
        domain.to_string(),
        (busy as u8).to_string(),
        (paced as u8).to_string(),
    ];
    if let Some(c) = cpu {
        args.push(c.to_string());
    }
    Command::new(exe)
        .args(&args)
        .stdout(Stdio::null())
        .spawn()
        .expect("spawn pong")
}

fn pct(sorted: &[u64], p: f64) -> f64 {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i] as f64 / 1000.0
}

fn ping(domain: u32, busy: bool, n: usize, cpus: (Option<usize>, Option<usize>)) {
    pin(cpus.0);
    let mut child = spawn_pong(domain, busy, false, cpus.1);
    let (_t, w, r, waker) = endpoints(domain, "/ping", "/pong", busy);
    let mode = if busy { "busy-poll" } else { "event" };
    for size in SIZES {
        let warm = 200;
        let count = if size > 1 << 20 { n / 2 } else { n };
        let mut one_way = Vec::with_capacity(count);
        let cpu0 = cpu_ns();
        let t0 = Instant::now();
        for i in 0..warm + count {
            let mut loan = w.loan(size).expect("loan");
            loan.fill(i as u8);
            loan[..8].copy_from_slice(&now().to_le_bytes());
            loan.send().map_err(|e| e.reason).expect("send");
            let ack = next(&r, &waker, busy);
            let b = ack.payload.cdr().expect("ack").to_vec();
            assert_eq!(b[8], i as u8, "the payload's last byte");
            if i >= warm {
                let v = u64::from_le_bytes(b[..8].try_into().expect("8"));
                if std::env::var_os("SHOW_SLOW").is_some() && v > 200_000 {
                    eprintln!("slow: size {size} #{i}: {} µs", v / 1000);
                }
                one_way.push(v);
            }
        }
        let wall = t0.elapsed();
        let cpu = (cpu_ns() - cpu0) as f64 / 1000.0 / (warm + count) as f64;
        one_way.sort_unstable();
        println!(
            "{mode:9} {size:>9} B  one-way p50 {:8.2} µs  p90 {:8.2}  p99 {:8.2}  p99.9 {:8.2}  max {:9.2}  | pub CPU {:6.1} µs/msg  ({} msgs, {:.1} s)",
            pct(&one_way, 0.5),
            pct(&one_way, 0.9),
            pct(&one_way, 0.99),
            pct(&one_way, 0.999),
            pct(&one_way, 1.0),
            cpu,
            count,
            wall.as_secs_f64()
        );
    }
    let mut stop = w.loan(16).expect("loan");
    stop.fill(0);
    let _ = stop.send();
    let _ = child.wait();
}

/// How long a new reader takes to be matched with a writer of another
/// participant (both sides), and a participant to open.
fn matching(domain: u32) {
    let t0 = Instant::now();
    let a = ShmTransport::open(domain).expect("open");
    let open = t0.elapsed();
    let b = ShmTransport::open(domain).expect("open");
    let mut times = Vec::new();
    for i in 0..50 {
        let spec = EndpointSpec {
            topic: format!("/match_{i}"),
            type_name: "hibari_bench/msg/Blob".into(),
            type_hash: String::new(),
            qos: QosProfile::default(),
        };
        let w = a.writer(&spec, &WriterOptions::default()).expect("writer");
        std::thread::sleep(Duration::from_millis(2));
        let t = Instant::now();
        let r = b.reader(&spec, &ReaderOptions::default()).expect("reader");
        while w.matched_count() == 0 || r.matched_count() == 0 {
            std::hint::spin_loop();
        }
        times.push(t.elapsed().as_micros() as u64);
    }
    times.sort_unstable();
    println!(
        "discovery: open a participant {} µs; a new reader matched on both sides in p50 {} µs, max {} µs",
        open.as_micros(),
        times[times.len() / 2],
        times[times.len() - 1]
    );
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--pong") {
        let domain = args[1].parse().expect("domain");
        let cpu = args.get(4).and_then(|c| c.parse().ok());
        return pong(domain, args[2] == "1", args[3] == "1", cpu);
    }
    let mut n = 2000;
    let mut cpus = (None, None);
    let mut modes = vec![false, true];
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--n" => n = it.next().and_then(|v| v.parse().ok()).expect("--n N"),
            "--cpus" => {
                let v = it.next().expect("--cpus A,B");
                let (a, b) = v.split_once(',').expect("--cpus A,B");
                cpus = (a.parse().ok(), b.parse().ok());
            }
            "--event" => modes = vec![false],
            "--busy" => modes = vec![true],
            "--paced" => {
                let mut v = || {
                    it.next()
                        .and_then(|v| v.parse::<u64>().ok())
                        .expect("--paced HZ SIZE SECS")
                };
                let (hz, size, secs) = (v(), v() as usize, v());
                paced(
                    9_700_000 + std::process::id() % 100_000,
                    hz,
                    size,
                    secs,
                    cpus,
                );
                return;
            }
            other => panic!("unknown argument {other}"),
        }
    }
    matching(9_500_000 + std::process::id() % 100_000);
    for (i, busy) in modes.into_iter().enumerate() {
        let domain = 9_000_000 + std::process::id() % 100_000 * 4 + i as u32;
        ping(domain, busy, n, cpus);
    }
}

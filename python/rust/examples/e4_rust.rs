//! The Rust side of `python/bench/e4.py` (EXPERIMENTS.md E4): the time of the
//! publish call and the end-to-end latency of a `sensor_msgs/Image` of each
//! size, in one process or between two, reliable or best effort. Prints one
//! JSON object per series, with every sample (µs), for e4.py to summarize.
//!
//! ```text
//! e4_rust [--sizes 1024,4194304] [--mode thread|same|procs] [--qos reliable|best_effort]
//!         [--variant publish|loan] [--iterations N]
//! e4_rust sub --size N --count N --qos Q --topic T      (the subscriber process of `procs`)
//! ```
//!
//! Each iteration builds the message from the application's pixel buffer
//! (`pixels.clone()`: the one copy a Rust application makes, as Python's
//! publish makes one), publishes it, and waits for the callback before the
//! next (closed loop, no queueing). "publish" is the build and the call;
//! "e2e" ends at the first clock reading in the callback. `thread`: a
//! `SingleThreadedExecutor` spins on its own thread; `same`: the publishing
//! thread runs `spin_once`; `procs`: the subscriber is another process (this
//! program, `sub`), on the default context's shared memory, whose view
//! subscription reads the frame in place (as Python's numpy view does), stamps
//! its reception against `header.stamp` (CLOCK_REALTIME) and acknowledges it
//! with a byte on its stdout. (In one process the subscription is a typed
//! one: the value is handed over, nothing is encoded.) `--variant loan` lends the
//! message from the publisher (`loan_message`, the data a hole) and copies the
//! pixels into it: one copy in all, as Python's `loan_image` + `np.copyto`.

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use hibari::msg::sensor_msgs::msg::{Image, ImageView};
use hibari::{Context, QosProfile, SingleThreadedExecutor};

type Error = Box<dyn std::error::Error>;

const DEFAULT_SIZES: [usize; 5] = [1024, 65536, 1_048_576, 4_194_304, 6_220_800];

fn iterations(size: usize) -> usize {
    (500_000_000 / size).clamp(100, 2000)
}

fn qos(name: &str) -> Result<QosProfile, Error> {
    match name {
        "reliable" => Ok(QosProfile::default().reliable().keep_last(10)),
        "best_effort" => Ok(QosProfile::default().best_effort().keep_last(10)),
        other => Err(format!("--qos reliable|best_effort, not `{other}`").into()),
    }
}

/// Pins the calling thread (and what it starts later) to the CPU e4.py gave
/// `role` (0: publisher, 1: subscriber) in `HIBARI_E4_CPUS=pub,sub`; unset:
/// the kernel places (python/bench/placement.py says why this matters).
fn pin(role: usize) {
    let cpus: Vec<usize> = std::env::var("HIBARI_E4_CPUS")
        .unwrap_or_default()
        .split(',')
        .filter_map(|c| c.trim().parse().ok())
        .collect();
    if let Some(&id) = cpus.get(role).filter(|_| cpus.len() == 2) {
        core_affinity::set_for_current(core_affinity::CoreId { id });
    }
}

fn now_ns() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64)
}

/// CPU time (user + system, µs resolution) and context switches (voluntary
/// + involuntary) of this process so far, every thread counted.
fn usage() -> (f64, u64) {
    use nix::sys::resource::{getrusage, UsageWho};
    getrusage(UsageWho::RUSAGE_SELF).map_or((0.0, 0), |u| {
        let s = |t: nix::sys::time::TimeVal| t.tv_sec() as f64 + t.tv_usec() as f64 / 1e6;
        let ctx = u.voluntary_context_switches() + u.involuntary_context_switches();
        (s(u.user_time()) + s(u.system_time()), ctx.max(0) as u64)
    })
}

/// The number after `"key": ` in a JSON line of ours (0 when absent).
fn number_after(line: &str, key: &str) -> f64 {
    line.split_once(&format!("\"{key}\": "))
        .and_then(|(_, v)| v.split([',', '}']).next())
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(0.0)
}

fn list(v: &[f64]) -> String {
    let items: Vec<String> = v.iter().map(|x| format!("{x:.2}")).collect();
    format!("[{}]", items.join(","))
}

fn image(pixels: &[u8], stamp_ns: u64) -> Image {
    let mut image = Image {
        height: 1,
        width: pixels.len() as u32,
        encoding: "mono8".into(),
        step: pixels.len() as u32,
        data: pixels.to_vec(),
        ..Image::default()
    };
    image.header.stamp.sec = (stamp_ns / 1_000_000_000) as i32;
    image.header.stamp.nanosec = (stamp_ns % 1_000_000_000) as u32;
    image
}

/// Publishes one frame of `pixels`: built and published, or lent and filled.
fn send(
    publisher: &hibari::Publisher<Image>,
    pixels: &[u8],
    stamp_ns: u64,
    loan: bool,
) -> Result<(), Error> {
    if !loan {
        publisher.publish(image(pixels, stamp_ns))?;
        return Ok(());
    }
    let mut template = image(&[], stamp_ns);
    template.width = pixels.len() as u32;
    template.step = pixels.len() as u32;
    let (mut lent, hole) = publisher.loan_message(&template, "data", pixels.len())?;
    lent[hole].copy_from_slice(pixels);
    lent.send().map_err(hibari::LoanSendError::into_reason)?;
    Ok(())
}

fn one_process(
    size: usize,
    mode: &str,
    qos: QosProfile,
    n: usize,
    loan: bool,
) -> Result<String, Error> {
    let context = Context::builder().isolated().create()?;
    let node = context.create_node("e4")?;
    let (tx, rx) = mpsc::channel::<Instant>();
    let _sub = node.create_subscription("/e4", qos, move |msg: Image| {
        let now = Instant::now();
        std::hint::black_box(msg.data.first());
        let _ = tx.send(now);
    })?;
    let publisher = node.create_publisher::<Image>("/e4", qos)?;
    let executor = std::sync::Arc::new(SingleThreadedExecutor::new());
    executor.add_node(&node)?;
    let spinner = (mode == "thread").then(|| {
        let e = executor.clone();
        std::thread::spawn(move || {
            pin(1);
            e.spin()
        })
    });
    let pixels = vec![7u8; size];
    let warmup = n / 10 + 5;
    let (mut publish, mut e2e) = (Vec::with_capacity(n), Vec::with_capacity(n));
    let (cpu0, ctx0) = usage();
    let wall = Instant::now();
    for i in 0..warmup + n {
        let t0 = Instant::now();
        send(&publisher, &pixels, 0, loan)?;
        let t1 = Instant::now();
        if spinner.is_none() {
            executor.spin_once(Duration::from_secs(5));
        }
        let t2 = rx.recv_timeout(Duration::from_secs(5))?;
        if i >= warmup {
            publish.push((t1 - t0).as_secs_f64() * 1e6);
            e2e.push((t2 - t0).as_secs_f64() * 1e6);
        }
    }
    let ((cpu1, ctx1), secs) = (usage(), wall.elapsed().as_secs_f64());
    let (cpu, ctx) = (cpu1 - cpu0, ctx1 - ctx0);
    executor.cancel();
    if let Some(s) = spinner {
        let _ = s.join();
    }
    Ok(format!(
        "{{\"impl\": \"rust\", \"loan\": {loan}, \"mode\": \"{mode}\", \"size\": {size}, \"n\": {n}, \"cpu_pub_s\": {cpu:.6}, \"cpu_sub_s\": 0, \"ctx_switches\": {ctx}, \"duration_s\": {secs:.3}, \"publish_us\": {}, \"e2e_us\": {}}}",
        list(&publish),
        list(&e2e)
    ))
}

fn two_processes(size: usize, qos_name: &str, n: usize, loan: bool) -> Result<String, Error> {
    let topic = format!("/e4_rust_{}", std::process::id());
    let warmup = n / 10 + 5;
    let count = warmup + n;
    let mut child = Command::new(std::env::current_exe()?)
        .args([
            "sub",
            "--size",
            &size.to_string(),
            "--count",
            &count.to_string(),
        ])
        .args(["--qos", qos_name, "--topic", &topic])
        .stdout(Stdio::piped())
        .spawn()?;
    let mut out = BufReader::new(child.stdout.take().ok_or("no stdout")?);
    let mut line = String::new();
    out.read_line(&mut line)?;
    if line.trim() != "ready" {
        return Err(format!("the subscriber said {line:?}").into());
    }
    let context = Context::new()?;
    let node = context.create_node("e4_pub")?;
    let publisher = node.create_publisher::<Image>(&topic, qos(qos_name)?)?;
    if !publisher.wait_for_subscribers(1, Duration::from_secs(10)) {
        return Err("the subscriber process did not match".into());
    }
    let pixels = vec![7u8; size];
    let mut publish = Vec::with_capacity(n);
    let mut ack = [0u8; 1];
    let (cpu0, ctx0) = usage();
    let wall = Instant::now();
    for i in 0..count {
        let t0 = Instant::now();
        send(&publisher, &pixels, now_ns(), loan)?;
        let t1 = Instant::now();
        out.read_exact(&mut ack)?;
        if i >= warmup {
            publish.push((t1 - t0).as_secs_f64() * 1e6);
        }
    }
    let ((cpu1, ctx1), secs) = (usage(), wall.elapsed().as_secs_f64());
    let (cpu, ctx_pub) = (cpu1 - cpu0, ctx1 - ctx0);
    line.clear();
    out.read_line(&mut line)?;
    child.wait()?;
    // The subscriber's line: {"e2e_us": [...], "cpu_s": x, "ctx": y}; drop the warm-up.
    let e2e_all = line
        .split_once('[')
        .and_then(|(_, rest)| rest.split_once(']'))
        .ok_or("bad subscriber line")?
        .0;
    let e2e: Vec<f64> = e2e_all
        .split(',')
        .skip(warmup)
        .map(str::parse)
        .collect::<Result<_, _>>()?;
    let cpu_sub = number_after(&line, "cpu_s");
    let ctx = ctx_pub + number_after(&line, "ctx") as u64;
    Ok(format!(
        "{{\"impl\": \"rust\", \"loan\": {loan}, \"mode\": \"procs\", \"size\": {size}, \"n\": {n}, \"cpu_pub_s\": {cpu:.6}, \"cpu_sub_s\": {cpu_sub:.6}, \"ctx_switches\": {ctx}, \"duration_s\": {secs:.3}, \"publish_us\": {}, \"e2e_us\": {}}}",
        list(&publish),
        list(&e2e)
    ))
}

/// The subscriber process of `procs`.
fn subscriber(size: usize, count: usize, qos_name: &str, topic: &str) -> Result<(), Error> {
    let context = Context::new()?;
    let node = context.create_node("e4_sub")?;
    let (tx, rx) = mpsc::channel::<f64>();
    // A view subscription: the frame is read where it lies in shared memory,
    // as Python's numpy view reads it (a typed one would copy it out).
    let on_frame = move |view: ImageView<'_>, _: &hibari::SampleInfo| {
        let now = now_ns();
        let stamp = view.header.stamp.sec as u64 * 1_000_000_000 + view.header.stamp.nanosec as u64;
        std::hint::black_box(view.data.as_bytes().get(0));
        let _ = tx.send(now.saturating_sub(stamp) as f64 / 1e3);
        let _ = std::io::stdout()
            .lock()
            .write_all(b".")
            .and_then(|()| std::io::stdout().flush());
    };
    let _sub = node.create_view_subscription::<Image, _>(topic, qos(qos_name)?, on_frame)?;
    let executor = std::sync::Arc::new(SingleThreadedExecutor::new());
    executor.add_node(&node)?;
    let e = executor.clone();
    let spinner = std::thread::spawn(move || e.spin());
    println!("ready");
    let (cpu0, ctx0) = usage();
    let mut e2e = Vec::with_capacity(count);
    for _ in 0..count {
        let v = rx.recv_timeout(Duration::from_secs(20))?;
        if v.is_finite() && e2e.len() < count {
            e2e.push(v);
        }
    }
    executor.cancel();
    let _ = spinner.join();
    let _ = size;
    let (cpu1, ctx1) = usage();
    println!(
        "{{\"e2e_us\": {}, \"cpu_s\": {:.6}, \"ctx\": {}}}",
        list(&e2e),
        cpu1 - cpu0,
        ctx1 - ctx0
    );
    Ok(())
}

fn main() -> Result<(), Error> {
    let args: Vec<String> = std::env::args().collect();
    let value = |flag: &str| {
        args.iter()
            .position(|a| a == flag)
            .and_then(|i| args.get(i + 1).cloned())
    };
    let qos_name = value("--qos").unwrap_or_else(|| "reliable".into());
    if args.get(1).map(String::as_str) == Some("sub") {
        let num = |flag: &str| -> Result<usize, Error> {
            Ok(value(flag).ok_or(format!("{flag} is needed"))?.parse()?)
        };
        let topic = value("--topic").ok_or("--topic is needed")?;
        pin(1);
        return subscriber(num("--size")?, num("--count")?, &qos_name, &topic);
    }
    pin(0);
    let sizes: Vec<usize> = match value("--sizes") {
        Some(list) => list.split(',').map(str::parse).collect::<Result<_, _>>()?,
        None => DEFAULT_SIZES.to_vec(),
    };
    let modes = match value("--mode") {
        Some(m) => vec![m],
        None => vec!["thread".to_string(), "same".to_string()],
    };
    let fixed: Option<usize> = value("--iterations").map(|n| n.parse()).transpose()?;
    let loan = value("--variant").is_some_and(|v| v == "loan");
    for mode in &modes {
        for &size in &sizes {
            let n = fixed.unwrap_or_else(|| iterations(size));
            let line = if mode == "procs" {
                two_processes(size, &qos_name, n, loan)?
            } else {
                one_process(size, mode, qos(&qos_name)?, n, loan)?
            };
            println!("{line}");
        }
    }
    Ok(())
}

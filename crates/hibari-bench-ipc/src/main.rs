//! `hibari-bench-ipc`: one-way latency between two processes for the wake-up
//! floor and iceoryx2 (see the library docs for the method).
//!
//! ```text
//! cargo run -p hibari-bench-ipc --release -- --placement same --json same.json
//! cargo run -p hibari-bench-ipc --release -- --placement cross --quick
//! ```
#![forbid(unsafe_code)]

use anyhow::Context;
use clap::{Args, Parser, Subcommand};
use hibari_bench_ipc::{
    child_main, remove_stale_iceoryx2_files, render_table, run_cell, size_label, wait_until_quiet,
    ChildArgs, Machine, Mode, Placement, Plan, Report, RunOptions, SIZES,
};
use std::path::PathBuf;
use std::time::Duration;

/// Two-process one-way latency: the machine's wake-up floor, iceoryx2, hibari-shm (and
/// Zenoh with the `zenoh` feature), payloads of 64 B … 6.2 MB written every message,
/// event-driven and busy-polled, ping-pong or open loop at fixed rates.
#[derive(Parser, Debug)]
#[command(version, args_conflicts_with_subcommands = true)]
struct Cli {
    #[command(subcommand)]
    child: Option<Sub>,
    #[command(flatten)]
    run: RunArgs,
}

#[derive(Args, Debug)]
struct RunArgs {
    /// CPU placement(s): same (both on CPU 0), cross (CPU 0 / CPU 1), free.
    #[arg(long, value_delimiter = ',', default_values = ["same", "cross"])]
    placement: Vec<Placement>,
    /// Systems to run (default: all): floor, iceoryx2.
    #[arg(long, value_delimiter = ',')]
    systems: Vec<String>,
    /// Variants to keep (default: all): futex, eventfd, spin (floor); event, poll (iceoryx2).
    #[arg(long, value_delimiter = ',')]
    variants: Vec<String>,
    /// Wake-up modes to run.
    #[arg(long, value_delimiter = ',', default_values = ["event", "poll"])]
    modes: Vec<Mode>,
    /// Payload sizes in bytes (default: 64,4096,65536,921600,6220800).
    #[arg(long, value_delimiter = ',')]
    sizes: Vec<usize>,
    /// The subscriber reads every byte (64-bit sum) before its final stamp
    /// (ping-pong only: the open-loop subscriber only stamps).
    #[arg(long)]
    touch: bool,
    /// Run every ping-pong cell twice: without and with touch (open-loop cells once).
    #[arg(long, conflicts_with = "touch")]
    touch_both: bool,
    /// About 500 samples per cell (100 warm-up) instead of 2,000 (200 warm-up).
    #[arg(long)]
    quick: bool,
    /// Measured messages per cell (overrides --quick).
    #[arg(long)]
    samples: Option<u64>,
    /// Warm-up messages per cell (overrides --quick).
    #[arg(long)]
    warmup: Option<u64>,
    /// Also busy-poll with both processes on one CPU (they starve each other).
    #[arg(long)]
    poll_same_cpu: bool,
    /// Write the machine description and one record per series to this JSON file.
    #[arg(long)]
    json: Option<PathBuf>,
    /// Before each cell, wait up to this many seconds for the machine to be less than
    /// --max-busy busy (it is shared with builds; 0: do not wait).
    #[arg(long, default_value_t = 0)]
    wait_quiet_s: u64,
    /// Busy fraction of all CPUs counted as quiet for --wait-quiet-s.
    #[arg(long, default_value_t = 0.25)]
    max_busy: f64,
    /// Give up on a cell when no message completes for this many seconds.
    #[arg(long, default_value_t = 10)]
    stall_timeout_s: u64,
    /// Publish open loop at these rates in Hz (0: as fast as possible; `pingpong`: the
    /// closed loop) instead of ping-pong only. Latency is then measured from each
    /// message's due time, and messages a full queue overwrote count as lost.
    #[arg(long, value_delimiter = ',')]
    rates: Vec<String>,
    /// Queue depth of the data direction in open loop.
    #[arg(long, default_value_t = 16)]
    depth: usize,
    /// Print the systems this build has (one per line: name and variants) and exit.
    #[arg(long)]
    list_systems: bool,
}

#[derive(Subcommand, Debug)]
enum Sub {
    /// Internal: the subscriber process of one cell.
    #[command(name = "__child", hide = true)]
    Child(ChildCli),
}

#[derive(Args, Debug)]
struct ChildCli {
    #[arg(long)]
    system: String,
    #[arg(long)]
    variant: String,
    #[arg(long)]
    tag: String,
    #[arg(long)]
    size: usize,
    #[arg(long)]
    placement: Placement,
    #[arg(long)]
    warmup: u64,
    #[arg(long)]
    samples: u64,
    #[arg(long)]
    touch: bool,
    #[arg(long)]
    rate: Option<f64>,
    #[arg(long, default_value_t = 2)]
    depth: usize,
}

fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    if let Some(Sub::Child(c)) = cli.child {
        let args = ChildArgs {
            system: c.system,
            variant: c.variant,
            tag: c.tag,
            size: c.size,
            placement: c.placement,
            warmup: c.warmup,
            samples: c.samples,
            touch: c.touch,
            rate_hz: c.rate,
            depth: c.depth,
        };
        return child_main(&args).context("subscriber process");
    }
    run(cli.run)
}

fn run(args: RunArgs) -> anyhow::Result<()> {
    if args.list_systems {
        for s in hibari_bench_ipc::all_systems() {
            let v: Vec<_> = s.variants().iter().map(|v| v.name).collect();
            println!("{} {}", s.name(), v.join(","));
        }
        return Ok(());
    }
    let mut rates = Vec::new();
    for r in &args.rates {
        rates.push(match r.as_str() {
            "pingpong" | "ping-pong" => None,
            r => Some(
                r.parse::<f64>()
                    .ok()
                    .filter(|r| *r >= 0.0)
                    .with_context(|| format!("--rates: `{r}` is not a rate in Hz"))?,
            ),
        });
    }
    let plan = Plan {
        rates,
        depth: args.depth.max(1),
        systems: args.systems,
        variants: args.variants,
        modes: args.modes,
        sizes: if args.sizes.is_empty() {
            SIZES.to_vec()
        } else {
            args.sizes
        },
        placements: args.placement,
        touch: match (args.touch, args.touch_both) {
            (_, true) => vec![false, true],
            (touch, false) => vec![touch],
        },
        warmup: args.warmup.unwrap_or(if args.quick { 100 } else { 200 }),
        samples: args.samples.unwrap_or(if args.quick { 500 } else { 2_000 }),
        poll_same_cpu: args.poll_same_cpu,
    };
    let opts = RunOptions {
        child_exe: std::env::current_exe().context("locate this binary to re-execute it")?,
        stall_timeout: Duration::from_secs(args.stall_timeout_s),
    };
    let machine = Machine::describe();
    eprintln!(
        "{} ({} CPUs), kernel {}, clocksource {}, load1 {}",
        machine.cpu_model, machine.cpus, machine.kernel, machine.clocksource, machine.load1
    );
    let stale = remove_stale_iceoryx2_files();
    if stale > 0 {
        eprintln!("removed {stale} iceoryx2 file(s) left by an earlier, interrupted run");
    }
    let (cells, skipped) = plan.cells();
    for s in &skipped {
        eprintln!(
            "skipped {} at placement {}: {}",
            s.series,
            s.placement.as_str(),
            s.reason
        );
    }
    let (mut records, mut failed) = (Vec::new(), Vec::new());
    for (i, cell) in cells.iter().enumerate() {
        let name = format!(
            "{} {} {} {}{} {}",
            cell.system,
            cell.variant,
            size_label(cell.size as u64),
            cell.placement.as_str(),
            if cell.touch { " touch" } else { "" },
            match cell.rate_hz {
                None => "ping-pong".to_string(),
                Some(0.0) => "open loop max".to_string(),
                Some(r) => format!("open loop {r} Hz"),
            }
        );
        if args.wait_quiet_s > 0 {
            let busy = wait_until_quiet(args.max_busy, Duration::from_secs(args.wait_quiet_s));
            if busy >= args.max_busy {
                eprintln!(
                    "machine still {:.0} % busy after {} s; running anyway",
                    busy * 100.0,
                    args.wait_quiet_s
                );
            }
        }
        eprint!("[{}/{}] {name} … ", i + 1, cells.len());
        match run_cell(cell, &opts) {
            Ok(r) => {
                let others = r.others_cores.map_or("-".into(), |c| format!("{c:.2}"));
                eprintln!(
                    "p50 {:.2} µs, p99 {:.2} µs, lost {}, others {others} cores",
                    r.latency.p50_us, r.latency.p99_us, r.lost
                );
                records.push(r);
            }
            Err(e) => {
                eprintln!("FAILED: {e}");
                failed.push(format!("{name}: {e}"));
            }
        }
    }
    println!("{}", render_table(&records));
    let report = Report {
        machine,
        command: std::env::args().collect::<Vec<_>>().join(" "),
        load1_at_end: Machine::describe().load1,
        skipped,
        failed: failed.clone(),
        records,
    };
    if let Some(path) = &args.json {
        let text = serde_json::to_string_pretty(&report).context("encode JSON")?;
        std::fs::write(path, text).with_context(|| format!("write {}", path.display()))?;
        eprintln!("wrote {}", path.display());
    }
    if !failed.is_empty() {
        anyhow::bail!("{} cell(s) failed:\n{}", failed.len(), failed.join("\n"));
    }
    Ok(())
}

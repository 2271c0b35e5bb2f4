//! `hibari bench`: the published experiments and the latency sweep (the
//! `hibari-bench` crate), with a progress bar, a table, JSON, CSV, plots and
//! an HTML report.

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::Context as _;
use clap::Args;
use hibari_bench::dds::fastdds_shm::{self, Files};
use hibari_bench::experiments::{plan, run_step, Step};
use hibari_bench::{output, plots, published, ChildCommand, Config, Machine, Report, ALL};

/// Where Fast DDS keeps its shared memory (swept of what the peers leave).
const SHM: &str = "/dev/shm";

/// Arguments of `hibari bench`.
#[derive(Args, Debug)]
pub struct BenchArgs {
    /// latency, dds, scale, e1-images, e3-laserscan, e5-type-adapt, e2-bridge, e4-python, several
    /// of them separated by commas, or all. With --json or --csv, each experiment's records are
    /// written as it finishes, so a run stopped part way keeps the experiments it finished.
    #[arg(default_value = "all")]
    experiment: String,
    /// Fewer messages and one repetition: the headline comparison in about two minutes.
    #[arg(long)]
    quick: bool,
    /// Repetitions of every series (default 3; 1 with --quick).
    #[arg(long)]
    reps: Option<u32>,
    /// Write the machine, notes and one record per series and repetition as JSON
    /// (`-`: to standard output, and the table to standard error).
    #[arg(long)]
    json: Option<PathBuf>,
    /// Write one CSV row per series and repetition (`-`: to standard output,
    /// and the table to standard error).
    #[arg(long)]
    csv: Option<PathBuf>,
    /// Write PNG plots and report.html into this directory.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Do not run the ROS 1 peer even when it is installed.
    #[arg(long)]
    no_peers: bool,
    /// Scale every message count (tests).
    #[arg(long, default_value_t = 1.0, hide = true)]
    scale: f64,
    /// Internal: be the subscriber process of a series.
    #[arg(long, hide = true)]
    child: Option<String>,
    /// Internal: be a peer process of the `dds` experiment ("pub|sub TOPIC image:N COUNT [HZ]").
    #[arg(long, hide = true)]
    dds_peer: Option<String>,
}

/// Arguments of the hidden `hibari __child`: a hibari-bench-ipc subscriber.
#[derive(Args, Debug)]
pub struct IpcChildArgs {
    #[arg(long)]
    system: String,
    #[arg(long)]
    variant: String,
    #[arg(long)]
    tag: String,
    #[arg(long)]
    size: usize,
    #[arg(long)]
    placement: hibari_bench_ipc::Placement,
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

/// Runs the hibari-bench-ipc subscriber process (`hibari __child …`).
pub fn ipc_child(a: IpcChildArgs) -> anyhow::Result<()> {
    let args = hibari_bench_ipc::ChildArgs {
        system: a.system,
        variant: a.variant,
        tag: a.tag,
        size: a.size,
        placement: a.placement,
        warmup: a.warmup,
        samples: a.samples,
        touch: a.touch,
        rate_hz: a.rate,
        depth: a.depth,
    };
    hibari_bench_ipc::child_main(&args).context("hibari-bench-ipc subscriber process")
}

fn describe(step: &Step) -> String {
    match step {
        Step::Series {
            experiment,
            transport,
            setup,
            spec,
        } => format!(
            "{experiment} {transport} [{setup}] {} B @ {} Hz",
            spec.kind.payload_bytes(),
            spec.schedule.rate_hz.round()
        ),
        Step::Ipc(cell) => format!("{} {cell}", cell.experiment),
        Step::Zenoh(_) => "latency zenoh (hibari-bench-ipc --features zenoh)".into(),
        Step::Ros1(cell) => cell.describe(),
        Step::Dds(cell) => cell.describe(),
        Step::Unavailable(why) => why.clone(),
        Step::External(name) => (*name).into(),
    }
}

/// Runs `hibari bench`.
pub fn run(args: BenchArgs) -> anyhow::Result<()> {
    if let Some(spec) = &args.child {
        return hibari_bench::child_main(spec).context("subscriber process");
    }
    if let Some(role) = &args.dds_peer {
        return hibari_bench::dds_peer_main(role).context("dds peer process");
    }
    let exe = std::env::current_exe().context("locate the hibari binary")?;
    let workspace = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let repo = if workspace.join("peers").exists() {
        workspace
    } else {
        PathBuf::from(".")
    };
    let cfg = Config {
        quick: args.quick,
        reps: args.reps.unwrap_or(if args.quick { 1 } else { 3 }).max(1),
        scale: args.scale,
        child: ChildCommand {
            program: exe.clone(),
            args: vec!["bench".into(), "--child".into()],
        },
        repo,
        target_dir: exe.parent().map(PathBuf::from).unwrap_or_default(),
        peers: !args.no_peers,
    };
    let to_stdout = |p: &Option<PathBuf>| p.as_deref() == Some(Path::new(output::STDOUT));
    let (json_out, csv_out) = (to_stdout(&args.json), to_stdout(&args.csv));
    if json_out && csv_out {
        anyhow::bail!("--json - and --csv - both want standard output: send one to a file");
    }
    // With JSON or CSV on standard output, what people read goes to standard error.
    let say = |text: &str| {
        if json_out || csv_out {
            eprintln!("{text}");
        } else {
            println!("{text}");
        }
    };
    let names: Vec<&str> = if args.experiment == "all" {
        ALL.to_vec()
    } else {
        args.experiment.split(',').map(str::trim).collect()
    };
    let mut plans = Vec::new();
    for name in &names {
        let s = plan(name, &cfg)
            .with_context(|| format!("unknown experiment `{name}`: {} or all", ALL.join(", ")))?;
        plans.push(s);
    }
    let steps: usize = plans.iter().map(Vec::len).sum();
    let machine = Machine::describe();
    let command = std::env::args().collect::<Vec<_>>().join(" ");
    eprintln!("{}", machine.line());
    eprintln!(
        "note: this machine is shared (other builds and benchmarks may run): figures are noisy"
    );
    let started = Instant::now();
    let since = std::time::SystemTime::now();
    let mut swept = 0;
    let bar = indicatif::ProgressBar::new(steps as u64);
    bar.set_style(
        indicatif::ProgressStyle::with_template("{elapsed_precise} [{bar:30}] {pos}/{len} {msg}")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
            .progress_chars("=> "),
    );
    let (mut records, mut notes) = (Vec::new(), Vec::new());
    for name in &names {
        records.extend(published::published(name));
        notes.extend(published::findings(name));
    }
    for (done, plan) in plans.iter().enumerate() {
        for step in plan {
            bar.set_message(describe(step));
            let (r, n) = run_step(step, &cfg);
            for line in &n {
                bar.println(line);
            }
            records.extend(r);
            notes.extend(n);
            bar.inc(1);
            if cfg.peers {
                swept += fastdds_shm::sweep(Path::new(SHM), since, Files::Segments).removed;
            }
        }
        // A long run stopped part way keeps the experiments it finished:
        // the files are written after each one (the plots at the end).
        if done + 1 < plans.len() {
            let mut partial = Report {
                machine: machine.clone(),
                command: command.clone(),
                elapsed_s: started.elapsed().as_secs_f64(),
                notes: notes.clone(),
                records: records.clone(),
            };
            sort_records(&mut partial.records, &names);
            save_files(&args, &partial, false)?;
        }
    }
    hibari_bench::experiments::finish();
    bar.finish_and_clear();
    // The last peers' segments, once their locks can tell. Ports are left:
    // another ROS 2 process may be opening one (there are a few, reused).
    if cfg.peers {
        let last = fastdds_shm::sweep(Path::new(SHM), since, Files::Segments);
        swept += last.removed;
        if last.pending > 0 {
            std::thread::sleep(fastdds_shm::SETTLE);
            swept += fastdds_shm::sweep(Path::new(SHM), since, Files::Segments).removed;
        }
    }
    if swept > 0 {
        eprintln!(
            "removed {swept} files of Fast DDS shared memory left in {SHM} by ROS 2 processes that \
             ended during the run (no process held their locks; `fastdds shm clean` does the same)"
        );
    }
    sort_records(&mut records, &names);
    let table = output::table(&records);
    say(&table);
    for h in hibari_bench::headline::headlines(&records) {
        say(&format!("{}: {}", h.experiment, h.sentence));
    }
    for n in &notes {
        say(n);
    }
    let report = Report {
        machine,
        command,
        elapsed_s: started.elapsed().as_secs_f64(),
        notes,
        records,
    };
    say(&format!("elapsed {:.0} s", report.elapsed_s));
    save_files(&args, &report, true)?;
    if let Some(dir) = &args.out {
        let files = plots::write_report(dir, &report, &table)?;
        eprintln!(
            "wrote {} files in {} (report.html)",
            files.len(),
            dir.display()
        );
    }
    Ok(())
}

/// Measured rows first, each experiment's published rows after them, with
/// their ratios to hibari.
fn sort_records(records: &mut [hibari_bench::Record], names: &[&str]) {
    records.sort_by_key(|r| (names.iter().position(|n| *n == r.experiment), r.published));
    hibari_bench::record::set_vs_hibari(records);
}

/// Writes the JSON and CSV files asked for; `finished` false: the
/// experiments done so far, to files only (standard output gets the whole
/// run at its end).
fn save_files(args: &BenchArgs, report: &Report, finished: bool) -> anyhow::Result<()> {
    let file = |p: &Option<PathBuf>| {
        p.clone()
            .filter(|p| finished || p.as_path() != Path::new(output::STDOUT))
    };
    if let Some(p) = file(&args.json) {
        output::write_json(&p, report)?;
        if finished && p.as_path() != Path::new(output::STDOUT) {
            eprintln!("wrote {}", p.display());
        }
    }
    if let Some(p) = file(&args.csv) {
        output::write_csv(&p, &report.records)?;
        if finished && p.as_path() != Path::new(output::STDOUT) {
            eprintln!("wrote {}", p.display());
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use clap::{Args as _, Command};

    use super::*;

    #[test]
    fn the_help_names_every_experiment() {
        let cmd = BenchArgs::augment_args(Command::new("bench"));
        let arg = cmd
            .get_arguments()
            .find(|a| a.get_id() == "experiment")
            .expect("the experiment argument");
        let help = arg.get_help().expect("its help").to_string();
        for name in ALL.iter().chain(&["all"]) {
            assert!(
                help.split([',', ' ', '.']).any(|w| w == *name),
                "`hibari bench --help` does not name {name}: {help}"
            );
        }
    }
}

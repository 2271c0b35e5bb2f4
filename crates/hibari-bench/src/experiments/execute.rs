//! Running the planned [`Step`]s: hibari series become [`Record`]s here
//! (one per repetition); the other steps hand over to [`external`].

use crate::experiments::{plan, Config, Step};
use crate::external;
use crate::record::Record;
use crate::run::run_series;
use crate::stats::Stats;

/// Runs one step: its records (one per repetition), and notes (lines for
/// the report: failures, "not available", external programs' output).
pub fn run_step(step: &Step, cfg: &Config) -> (Vec<Record>, Vec<String>) {
    let mut records = Vec::new();
    let mut notes = Vec::new();
    match step {
        Step::Series {
            experiment,
            transport,
            setup,
            spec,
        } => {
            for rep in 0..cfg.reps {
                match run_series(spec, &cfg.child) {
                    Ok(o) => {
                        let stats = Stats::of(&o.latencies_ns);
                        let received = o.latencies_ns.len() as u64;
                        let series_us: Vec<f64> =
                            o.latencies_ns.iter().map(|&v| v as f64 / 1000.0).collect();
                        records.push(Record {
                            experiment: experiment.to_string(),
                            system: spec.system.name().into(),
                            transport: transport.clone(),
                            language: "rust".into(),
                            size_bytes: spec.kind.payload_bytes(),
                            rate_hz: spec.schedule.rate_hz,
                            sent: o.sent,
                            received,
                            lost: o.sent.saturating_sub(received),
                            stats,
                            cpu_pub_s: o.publisher.cpu_s(),
                            cpu_sub_s: o.subscriber.cpu_s(),
                            ctx_switches: o.publisher.switches() + o.subscriber.switches(),
                            published: false,
                            rep,
                            setup: setup.clone(),
                            note: format!(
                                "{}{}",
                                if spec.two_processes {
                                    "CPU per process"
                                } else {
                                    "CPU per thread (publisher, executor)"
                                },
                                match o.jpeg {
                                    Some(j) if j.bytes_mean > 0.0 => format!(
                                        ", JPEG {:.0} B mean ({})",
                                        j.bytes_mean, j.encoder
                                    ),
                                    _ => String::new(),
                                }
                            ),
                            duration_s: crate::record::until_last_receipt(
                                spec.schedule.rate_hz,
                                o.seconds,
                                &series_us,
                            ),
                            series_us,
                            vs_hibari: None,
                            throughput_msgs_s: None,
                            allocs_per_msg: None,
                        });
                    }
                    Err(e) => notes.push(format!(
                        "{experiment} {transport} ({setup}) {:?} failed: {e}",
                        spec.kind
                    )),
                }
            }
        }
        Step::Ipc(cell) => {
            for rep in 0..cfg.reps {
                match external::ipc_cell(cell, &cfg.child) {
                    Ok(mut r) => {
                        r.rep = rep;
                        records.push(r);
                    }
                    Err(e) => notes.push(format!("{} {cell} failed: {e}", cell.experiment)),
                }
            }
        }
        Step::Zenoh(cells) => {
            let (r, n) = external::zenoh(cells, cfg);
            records.extend(r);
            notes.extend(n);
        }
        Step::Ros1(cell) => {
            let (r, n) = external::ros1(cell, cfg);
            records.extend(r);
            notes.extend(n);
        }
        Step::Dds(cell) => {
            let (r, n) = crate::dds::dds(cell, cfg);
            records.extend(r);
            notes.extend(n);
        }
        Step::Unavailable(why) => notes.push(why.clone()),
        Step::External(name) => {
            let (r, n) = external::program(name, cfg);
            records.extend(r);
            notes.extend(n);
        }
    }
    (records, notes)
}

/// Runs a whole experiment without a progress bar.
pub fn run_experiment(name: &str, cfg: &Config) -> Option<(Vec<Record>, Vec<String>)> {
    let steps = plan(name, cfg)?;
    let (mut records, mut notes) = (Vec::new(), Vec::new());
    for s in &steps {
        let (r, n) = run_step(s, cfg);
        records.extend(r);
        notes.extend(n);
    }
    finish();
    Some((records, notes))
}

/// Stops what the steps left running for later steps (the ROS 1 master).
pub fn finish() {
    crate::ros1::stop_master();
}

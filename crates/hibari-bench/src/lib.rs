//! `hibari bench`: the published experiments (shared/EXPERIMENTS.md E1–E5)
//! and a latency sweep, run on hibari's transports and, where installed, on
//! the peers, with the write-ups' own figures printed beside ours.
//!
//! # Method (shared/specs/anchors.md §2)
//!
//! - **Open loop.** Message `k` is due at `start + k / rate`; the publisher
//!   writes the *intended* time into the message ([`workload`]) and the
//!   subscriber subtracts it from its first clock reading in the callback,
//!   so a late publisher shows up as latency (no coordinated omission). The
//!   clock is `CLOCK_MONOTONIC`, one for every process of the host.
//! - **Warm-up and discovery excluded**: the publisher waits for its
//!   subscriber, then 100 ms, then sends warm-up messages that are not
//!   measured.
//! - **Statistics** ([`Stats`]): exact mean and standard deviation, p50 … p99.9
//!   from an HDR histogram, exact max; received/lost by sequence number.
//! - **CPU and context switches** per process (two processes) or per thread
//!   (publisher thread, executor thread in one process), over the measured
//!   part only.
//! - **Repetitions**: every series runs `reps` times (3 by default, 1 with
//!   `--quick`); the table shows the mean and the spread between runs.
//!
//! # Output
//!
//! [`output`] prints the table and writes JSON and CSV (one [`Record`] per
//! series and repetition); [`plots`] draws PNGs and one HTML report.
#![warn(missing_docs)]
#![forbid(unsafe_code)]

pub mod clock;
pub mod dds;
pub mod experiments;
pub mod external;
pub mod headline;
pub mod output;
pub mod plots;
mod programs;
pub mod published;
pub mod record;
mod ros1;
pub mod run;
pub mod stats;
pub mod workload;

pub use dds::peer::{peer_main as dds_peer_main, PeerError as DdsPeerError};
pub use experiments::{run_experiment, Config, Experiment, ALL};
pub use record::{Machine, Record, Report};
pub use run::{
    child_main, run_series, ChildCommand, Outcome, SeriesRunError, SeriesSpec, SeriesSystem,
};
pub use stats::Stats;

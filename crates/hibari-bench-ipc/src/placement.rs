//! Where the two processes run (`sched_setaffinity`, like `taskset`).
//!
//! On this 2-vCPU VM a wake-up onto the other vCPU costs 20–60 µs and a
//! same-CPU hand-off 2–5 µs (shared/specs/measured-ipc.md), so systems are
//! compared only under the same placement.

use crate::sys;
use crate::system::Role;

/// CPU placement of publisher and subscriber.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, clap::ValueEnum, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Placement {
    /// Both processes on CPU 0 (a busy-polling pair would starve; such cells are skipped).
    Same,
    /// Publisher on CPU 0, subscriber on CPU 1.
    Cross,
    /// No pinning: every online CPU, the scheduler decides.
    Free,
}

impl Placement {
    /// `same`, `cross` or `free`.
    pub fn as_str(self) -> &'static str {
        match self {
            Placement::Same => "same",
            Placement::Cross => "cross",
            Placement::Free => "free",
        }
    }

    /// The CPUs the process playing `role` may run on.
    pub fn cpus(self, role: Role) -> Vec<usize> {
        match (self, role) {
            (Placement::Same, _) | (Placement::Cross, Role::Publisher) => vec![0],
            (Placement::Cross, Role::Subscriber) => vec![1 % sys::online_cpus()],
            (Placement::Free, _) => (0..sys::online_cpus()).collect(),
        }
    }

    /// Parses `same`, `cross` or `free`.
    pub fn parse(s: &str) -> Option<Placement> {
        <Placement as clap::ValueEnum>::from_str(s, true).ok()
    }
}

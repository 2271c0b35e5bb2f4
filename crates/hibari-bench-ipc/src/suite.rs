//! A whole run: which cells to measure, in what order, and the JSON document
//! that holds their records together with a description of the machine.

use crate::harness::{CellSpec, Placement};
use crate::machine::Machine;
use crate::stats::Record;
use crate::system::{all_systems, Mode};

/// The payload sizes of issue 4's benchmark: 64 B, 4 KiB, 64 KiB, 640x480 RGB, 1920x1080 RGB.
pub const SIZES: [usize; 5] = [64, 4096, 65_536, 921_600, 6_220_800];

/// What to measure.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    /// System names, in table order (empty: all).
    pub systems: Vec<String>,
    /// Variant names to keep (empty: all).
    pub variants: Vec<String>,
    /// Modes to keep.
    pub modes: Vec<Mode>,
    /// Payload sizes.
    pub sizes: Vec<usize>,
    /// Placements, each measured in full before the next.
    pub placements: Vec<Placement>,
    /// Touch variants to run (`[false]`, `[true]` or both). Ping-pong only:
    /// open-loop cells run once each, without touch.
    pub touch: Vec<bool>,
    /// Warm-up messages per cell.
    pub warmup: u64,
    /// Measured messages per cell.
    pub samples: u64,
    /// Also busy-poll with both processes on one CPU (normally skipped: the spinning
    /// publisher and subscriber starve each other until the scheduler's time slice ends).
    pub poll_same_cpu: bool,
    /// Loops to run: `None` = ping-pong, `Some(r)` = open loop at `r` Hz (0: as fast as
    /// possible). Empty means ping-pong only.
    pub rates: Vec<Option<f64>>,
    /// Queue depth of the data direction in open loop (ping-pong uses 2).
    pub depth: usize,
}

/// A cell the plan left out, and why.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Skipped {
    /// `system/variant`.
    pub series: String,
    /// Placement.
    pub placement: Placement,
    /// Why.
    pub reason: String,
}

impl Plan {
    /// The cells in run order (placement, touch, system, variant, size) and the skipped ones.
    pub fn cells(&self) -> (Vec<CellSpec>, Vec<Skipped>) {
        let (mut cells, mut skipped) = (Vec::new(), Vec::new());
        let systems = all_systems();
        for &placement in &self.placements {
            for &touch in &self.touch {
                for system in &systems {
                    if !self.systems.is_empty() && !self.systems.iter().any(|s| s == system.name())
                    {
                        continue;
                    }
                    for variant in system.variants() {
                        if !self.modes.contains(&variant.mode)
                            || (!self.variants.is_empty()
                                && !self.variants.iter().any(|v| v == variant.name))
                        {
                            continue;
                        }
                        if variant.mode == Mode::Poll
                            && placement == Placement::Same
                            && !self.poll_same_cpu
                        {
                            if !touch || self.touch.len() == 1 {
                                skipped.push(Skipped {
                                    series: format!("{}/{}", system.name(), variant.name),
                                    placement,
                                    reason:
                                        "busy-poll with both processes on one CPU starves the peer"
                                            .into(),
                                });
                            }
                            continue;
                        }
                        let pp = [None];
                        let rates = if self.rates.is_empty() {
                            &pp[..]
                        } else {
                            &self.rates[..]
                        };
                        for &rate_hz in rates {
                            if rate_hz.is_some() && !system.queues() {
                                continue;
                            }
                            // The open-loop subscriber only stamps (it never touches the
                            // payload): one run per cell, in the touch:false pass if any.
                            if rate_hz.is_some() && touch && self.touch.contains(&false) {
                                continue;
                            }
                            for &size in &self.sizes {
                                cells.push(CellSpec {
                                    system: system.name().into(),
                                    variant: variant.name.into(),
                                    size,
                                    touch: touch && rate_hz.is_none(),
                                    placement,
                                    warmup: self.warmup,
                                    samples: self.samples,
                                    rate_hz,
                                    depth: if rate_hz.is_some() { self.depth } else { 2 },
                                });
                            }
                        }
                    }
                }
            }
        }
        (cells, skipped)
    }
}

/// The `--json` document: the machine, the plan's shape and one record per series.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Report {
    /// The machine.
    pub machine: Machine,
    /// The command line of the run.
    pub command: String,
    /// Load average at the end of the run.
    pub load1_at_end: String,
    /// Cells left out.
    pub skipped: Vec<Skipped>,
    /// Cells that failed, with their error.
    pub failed: Vec<String>,
    /// One record per measured series.
    pub records: Vec<Record>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(placements: Vec<Placement>, touch: Vec<bool>) -> Plan {
        Plan {
            systems: vec![],
            variants: vec![],
            modes: vec![Mode::Event, Mode::Poll],
            sizes: SIZES.to_vec(),
            placements,
            touch,
            warmup: 200,
            samples: 2000,
            poll_same_cpu: false,
            rates: vec![],
            depth: 2,
        }
    }

    #[test]
    fn busy_poll_is_skipped_only_when_both_processes_share_one_cpu() {
        let (cells, skipped) = plan(vec![Placement::Same, Placement::Cross], vec![false]).cells();
        // floor: futex, eventfd, spin; iceoryx2: event, poll; hibari: event,
        // poll — 7 variants x 5 sizes, the 3 poll variants skipped on one CPU.
        let same = cells
            .iter()
            .filter(|c| c.placement == Placement::Same)
            .count();
        let cross = cells
            .iter()
            .filter(|c| c.placement == Placement::Cross)
            .count();
        assert_eq!((same, cross), (4 * 5, 7 * 5));
        let names: Vec<_> = skipped.iter().map(|s| s.series.as_str()).collect();
        assert_eq!(names, ["floor/spin", "iceoryx2/poll", "hibari/poll"]);
        assert!(skipped.iter().all(|s| s.placement == Placement::Same));
    }

    #[test]
    fn open_loop_rates_multiply_the_cells_and_leave_out_the_queueless_floor() {
        let mut p = plan(vec![Placement::Cross], vec![false]);
        p.rates = vec![Some(100.0), Some(0.0), None];
        p.depth = 16;
        let (cells, _) = p.cells();
        // floor 3 variants × ping-pong only; iceoryx2, hibari 2 variants × 3 loops; 5 sizes.
        assert_eq!(cells.len(), (3 + 2 * 2 * 3) * 5);
        assert!(cells.iter().all(
            |c| (c.rate_hz.is_some() && c.depth == 16) || (c.rate_hz.is_none() && c.depth == 2)
        ));
        assert!(!cells
            .iter()
            .any(|c| c.system == "floor" && c.rate_hz.is_some()));
    }

    #[test]
    fn open_loop_cells_run_once_without_touch_whatever_the_touch_settings() {
        for touch in [vec![false, true], vec![true, false], vec![true]] {
            let mut p = plan(vec![Placement::Cross], touch.clone());
            p.rates = vec![Some(100.0), None];
            let (cells, _) = p.cells();
            let open: Vec<_> = cells.iter().filter(|c| c.rate_hz.is_some()).collect();
            // iceoryx2 and hibari: 2 variants each × 5 sizes, once.
            assert_eq!(open.len(), 2 * 2 * 5, "{touch:?}");
            assert!(open.iter().all(|c| !c.touch), "{touch:?}");
            // Ping-pong: all 7 variants × 5 sizes per touch setting.
            assert_eq!(cells.len() - open.len(), touch.len() * 7 * 5, "{touch:?}");
        }
    }

    #[test]
    fn both_touch_settings_double_the_cells_and_report_each_skip_once() {
        let (cells, skipped) = plan(vec![Placement::Same], vec![false, true]).cells();
        assert_eq!(cells.len(), 2 * 4 * 5);
        assert_eq!(skipped.len(), 3);
    }
}

//! The publisher's side of the ping-pong and the records both loops turn into.

use crate::control::ChildReport;
use crate::harness::{CellRunError, CellSpec};
use crate::machine::MachineCpu;
use crate::openloop::{tally, Sent};
use crate::stats::{Latencies, Record, Summary};
use crate::sys::{self, Usage};
use crate::system::{Publish, Subscribe, System, Variant};
use crate::workload::{fill_byte, Ack, Header};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};

/// Total size of the regular files among `paths`.
pub(crate) fn total_bytes(paths: &[PathBuf]) -> u64 {
    paths
        .iter()
        .filter_map(|p| std::fs::metadata(p).ok())
        .filter(|m| m.is_file())
        .map(|m| m.len())
        .sum()
}

/// What the publisher side measured.
pub(crate) struct Measured {
    one_way: Latencies,
    arrival: Latencies,
    rtt: Latencies,
    fill: Latencies,
    received: u64,
    errors: u64,
    usage: Usage,
    /// Machine-wide busy CPU s, steal s and wall s over the measured window.
    machine: (f64, f64, f64),
}

pub(crate) fn publish_loop(
    spec: &CellSpec,
    tx: &mut dyn Publish,
    rx: &mut dyn Subscribe,
    progress: &AtomicU64,
) -> Result<Measured, CellRunError> {
    let mut m = Measured {
        one_way: Latencies::new(),
        arrival: Latencies::new(),
        rtt: Latencies::new(),
        fill: Latencies::new(),
        received: 0,
        errors: 0,
        usage: Usage::default(),
        machine: (0.0, 0.0, 0.0),
    };
    let (mut start, mut machine_start) = (Usage::now(), MachineCpu::now());
    for i in 0..spec.warmup + spec.samples {
        if i == spec.warmup {
            (start, machine_start) = (Usage::now(), MachineCpu::now());
        }
        let t0 = sys::monotonic_ns();
        let mut t_send = 0;
        tx.publish(spec.size, fill_byte(i), &mut |buf| {
            t_send = sys::monotonic_ns();
            Header {
                seq: i,
                t_send,
                len: spec.size as u64,
            }
            .write(buf);
        })?;
        let mut ack = None;
        rx.receive(&mut |bytes| ack = Ack::read(bytes))?;
        let t_ack = sys::monotonic_ns();
        progress.store(i + 1, Ordering::Relaxed);
        if i < spec.warmup {
            continue;
        }
        match ack {
            Some(a) if a.seq == i && a.ok => {
                let end = if spec.touch { a.t_touch } else { a.t_recv };
                m.one_way.record_ns(end.saturating_sub(t_send));
                m.arrival.record_ns(a.t_recv.saturating_sub(t_send));
                m.rtt.record_ns(t_ack.saturating_sub(t_send) / 2);
                m.fill.record_ns(t_send.saturating_sub(t0));
                m.received += 1;
            }
            _ => m.errors += 1,
        }
    }
    m.usage = Usage::now().since(&start);
    m.machine = MachineCpu::now().since(&machine_start);
    Ok(m)
}

impl Measured {
    pub(crate) fn into_record(
        self,
        spec: &CellSpec,
        system: &dyn System,
        variant: Variant,
        child: &ChildReport,
        files: Files<'_>,
    ) -> Record {
        let (busy_s, steal_s, wall_s) = self.machine;
        let ours_s = (self.usage.cpu_us + child.cpu_us) / 1e6;
        let received = self.received.min(child.received);
        Record {
            received,
            lost: spec.samples - received,
            errors: self.errors + child.errors,
            latency: self.one_way.summary(),
            arrival_p50_us: self.arrival.quantile_us(0.5),
            rtt_half_p50_us: self.rtt.quantile_us(0.5),
            fill_p50_us: self.fill.quantile_us(0.5),
            others_cores: (wall_s >= 0.25).then(|| ((busy_s - ours_s) / wall_s).max(0.0)),
            steal_ms: steal_s * 1e3,
            ..base_record(spec, system, variant, child, &self.usage, files)
        }
    }
}

/// Files while running (count, bytes), files left behind, their bytes.
pub(crate) type Files<'a> = ((u64, u64), &'a [PathBuf], u64);

/// The fields both loops fill the same way: the cell, the CPU and context
/// switches of both processes (`publisher`: the parent's usage over the
/// measured window) and the files.
fn base_record(
    spec: &CellSpec,
    system: &dyn System,
    variant: Variant,
    child: &ChildReport,
    publisher: &Usage,
    files: Files<'_>,
) -> Record {
    let ((files_n, files_bytes), leftovers, leftover_bytes) = files;
    let per_msg = |cpu_us: f64| cpu_us / spec.samples.max(1) as f64;
    Record {
        experiment: "ipc-latency".into(),
        system: system.name().into(),
        transport: variant.transport.into(),
        mode: variant.mode.as_str().into(),
        variant: variant.name.into(),
        language: "rust".into(),
        size_bytes: spec.size as u64,
        placement: spec.placement.as_str().into(),
        touch: spec.touch,
        warmup: spec.warmup,
        sent: spec.samples,
        cpu_pub_us_per_msg: per_msg(publisher.cpu_us),
        cpu_sub_us_per_msg: per_msg(child.cpu_us),
        ctx_vol: publisher.ctx_vol + child.ctx_vol,
        ctx_invol: publisher.ctx_invol + child.ctx_invol,
        ctx_vol_pub: publisher.ctx_vol,
        ctx_vol_sub: child.ctx_vol,
        ctx_invol_pub: publisher.ctx_invol,
        ctx_invol_sub: child.ctx_invol,
        files_while_running: files_n,
        bytes_while_running: files_bytes,
        leftover_files: leftovers.iter().map(|p| p.display().to_string()).collect(),
        leftover_bytes,
        ..Record::default()
    }
}

/// The record of an open-loop cell: counts and latencies from the
/// subscriber's samples (its own `received` is not used: it counts
/// duplicates). Open loop never touches the payload.
pub(crate) fn open_loop_record(
    spec: &CellSpec,
    system: &dyn System,
    variant: Variant,
    child: &ChildReport,
    sent: Sent,
    files: Files<'_>,
) -> Record {
    let t = tally(&child.samples, spec.samples);
    let latency = Summary::of(&t.latencies_ns);
    Record {
        touch: false,
        received: t.received,
        lost: t.lost,
        errors: child.errors,
        arrival_p50_us: latency.p50_us,
        latency,
        open_loop: true,
        rate_hz: spec.rate_hz.unwrap_or(0.0),
        depth: spec.depth,
        late_p50_us: sent.late.quantile_us(0.5),
        late_max_us: sent.late.summary().max_us,
        duplicates: t.duplicates,
        seconds: sent.seconds,
        series_us: t.latencies_ns.iter().map(|&v| v as f64 / 1e3).collect(),
        ..base_record(spec, system, variant, child, &sent.usage, files)
    }
}

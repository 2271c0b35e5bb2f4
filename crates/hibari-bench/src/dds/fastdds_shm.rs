//! The shared-memory files Fast DDS's processes leave behind, swept.
//!
//! ROS 2's default middleware (rmw_fastrtps over Fast DDS) keeps each
//! participant's shared-memory segment and each port as files in `/dev/shm`
//! — `fastrtps_<16 hex digits>` and `fastrtps_port<n>` in Fast DDS 2
//! (Jazzy), `fastdds_…` in Fast DDS 3 (Kilted) — each with lock files
//! (`_el`, and `_sl` for ports) that the processes using it hold locked
//! while they live. A process killed, or ended without Fast DDS's teardown,
//! leaves its files: RAM-backed memory that nothing frees (a full `hibari
//! bench` run's ROS 2 peers left thousands, gigabytes). [`sweep`] removes
//! the files nobody holds a lock on, as Fast DDS's own `fastdds shm clean`
//! does, but only those made since a given time (the bench's own peers',
//! not another ROS 2 user's) and not in the last [`SETTLE`] (a file is
//! locked just after it is made). A segment belongs to one participant and
//! is never opened again once its owner is gone; a port is opened by every
//! participant that uses its number, so ports are swept only when no ROS 2
//! process may be starting ([`Files::All`]: the test command's end; `hibari
//! bench` sweeps segments only, after each step).

use std::fs::{self, File};
use std::path::Path;
use std::time::{Duration, SystemTime};

/// How old a lock file must be before its lock is trusted to tell (Fast
/// DDS locks it microseconds after making it).
pub const SETTLE: Duration = Duration::from_secs(1);

/// Which files a [`sweep`] judges.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Files {
    /// Participants' segments only: safe while other peers start.
    Segments,
    /// Segments and ports: when no peer of the run is starting.
    All,
}

/// What a [`sweep`] did.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Swept {
    /// Files removed.
    pub removed: usize,
    /// Segments or ports made since `since` that were too young to judge:
    /// sweep again after [`SETTLE`].
    pub pending: usize,
}

/// Removes the Fast DDS segments and ports in `dir` whose lock files were
/// made at or after `since` (and before the last [`SETTLE`]) and that no
/// process holds locked. Unreadable entries are left alone.
pub fn sweep(dir: &Path, since: SystemTime, files: Files) -> Swept {
    let mut swept = Swept::default();
    let Ok(entries) = fs::read_dir(dir) else {
        return swept;
    };
    let settled = SystemTime::now()
        .checked_sub(SETTLE)
        .unwrap_or(SystemTime::UNIX_EPOCH);
    let mut bases: Vec<String> = entries
        .filter_map(Result::ok)
        .filter_map(|e| e.file_name().into_string().ok())
        .filter_map(|name| {
            let base = name.strip_suffix("_el").or(name.strip_suffix("_sl"))?;
            match kind(base)? {
                Kind::Port if files == Files::Segments => None,
                _ => Some(base.to_owned()),
            }
        })
        .collect();
    bases.sort();
    bases.dedup();
    for base in bases {
        let locks = [format!("{base}_el"), format!("{base}_sl")];
        let made: Vec<SystemTime> = locks
            .iter()
            .filter_map(|l| fs::metadata(dir.join(l)).ok())
            .map(|m| m.modified().unwrap_or_else(|_| SystemTime::now()))
            .collect();
        if made.iter().any(|t| *t < since) {
            continue;
        }
        if made.iter().any(|t| *t > settled) {
            swept.pending += 1;
            continue;
        }
        if locks
            .iter()
            .any(|l| dir.join(l).exists() && held(&dir.join(l)))
        {
            continue;
        }
        let mutex = format!("sem.{base}_mutex");
        for name in [base.as_str(), &locks[0], &locks[1], &mutex] {
            if fs::remove_file(dir.join(name)).is_ok() {
                swept.removed += 1;
            }
        }
    }
    swept
}

enum Kind {
    Segment,
    Port,
}

/// Whether `base` names a Fast DDS segment or port.
fn kind(base: &str) -> Option<Kind> {
    let rest = base
        .strip_prefix("fastrtps_")
        .or(base.strip_prefix("fastdds_"))?;
    if rest.len() == 16 && rest.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Some(Kind::Segment);
    }
    let port = rest
        .strip_prefix("port")
        .is_some_and(|n| !n.is_empty() && n.len() <= 5 && n.bytes().all(|b| b.is_ascii_digit()));
    port.then_some(Kind::Port)
}

/// Whether some process holds a lock on the file at `path` (an exclusive
/// lock cannot be had without waiting); an unopenable file counts as held.
fn held(path: &Path) -> bool {
    let Ok(file) = File::options().append(true).open(path) else {
        return true;
    };
    // Taken, it is released when `file` closes.
    rustix::fs::flock(&file, rustix::fs::FlockOperation::NonBlockingLockExclusive).is_err()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn touch(dir: &Path, name: &str) {
        fs::write(dir.join(name), b"x").unwrap();
    }

    #[test]
    fn unlocked_segments_and_ports_go_locked_and_foreign_files_stay() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let since = SystemTime::now() - Duration::from_secs(60);
        for name in [
            "fastrtps_0123456789abcdef",
            "fastrtps_0123456789abcdef_el",
            "fastdds_fedcba9876543210",
            "fastdds_fedcba9876543210_el",
            "fastrtps_port7413",
            "fastrtps_port7413_el",
            "fastrtps_port7413_sl",
            "sem.fastrtps_port7413_mutex",
            "fastdds_port7000_el",
            "fastdds_port7000",
            "fastrtps_notasegment_el",
            "iox2_something_el",
            "hibari_x",
        ] {
            touch(d, name);
        }
        // A live user holds this port's shared lock.
        let live = File::open(d.join("fastdds_port7000_el")).unwrap();
        rustix::fs::flock(&live, rustix::fs::FlockOperation::NonBlockingLockShared).unwrap();
        // Made just now: still settling, whatever their locks say.
        let young = sweep(d, since, Files::All);
        assert_eq!(
            (young.removed, young.pending),
            (0, 4),
            "nothing settled yet"
        );
        // Backdate everything past the settling time.
        let old = SystemTime::now() - SETTLE - Duration::from_secs(1);
        for e in fs::read_dir(d).unwrap() {
            File::options()
                .append(true)
                .open(e.unwrap().path())
                .unwrap()
                .set_modified(old)
                .unwrap();
        }
        let now = SystemTime::now();
        assert_eq!(
            sweep(d, now, Files::All),
            Swept::default(),
            "all made before `since`"
        );
        assert_eq!(
            sweep(d, since, Files::Segments).removed,
            4,
            "the two segments"
        );
        assert_eq!(sweep(d, since, Files::All).removed, 4, "the free port");
        let mut left: Vec<String> = fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        left.sort();
        assert_eq!(
            left,
            [
                "fastdds_port7000",
                "fastdds_port7000_el",
                "fastrtps_notasegment_el",
                "hibari_x",
                "iox2_something_el",
            ]
        );
        drop(live);
        assert_eq!(sweep(d, since, Files::Segments), Swept::default());
        assert_eq!(
            sweep(d, since, Files::All).removed,
            2,
            "the port once its user is gone"
        );
    }
}

//! A reader in its own process that tries to write the writer's shared
//! memory, for the crate's read-only test (`tests/hostile_reader.rs`).
//!
//! ```text
//! shm-hostile-reader <domain> <topic>
//! ```
//!
//! It subscribes (reliable), prints `ready` once matched, takes the first
//! sample (the writer's #1), and then attacks every descriptor and mapping
//! of the writer's memory it was given (chunk segments `hibari-chunks` and
//! the delivery ring `hibari-ring`, found in `/proc/self/fd` and
//! `/proc/self/maps`): reopening `/proc/self/fd/N` or
//! `/proc/self/map_files/…` read-write and mapping it writable, mapping the descriptor itself writable, `mprotect` of its
//! read-only mapping to writable, `madvise(MADV_REMOVE)`, `write`, `pwrite`,
//! `ftruncate` (shrink and grow) and `fallocate` (hole punch and grow).
//! It prints `violation: …` for each attack that worked, then
//! `attacked fds=… maps=… blocked=… violations=…`; then it checks that the
//! sample it holds is still intact and waits for #2, printing
//! `after seq=… intact=…`. It exits 0 only if every attack failed and both
//! samples are intact.
#![deny(clippy::undocumented_unsafe_blocks)]

use std::os::fd::{AsFd, AsRawFd, BorrowedFd};
use std::time::{Duration, Instant};

use hibari_shm::ShmTransport;
use hibari_transport::{
    Endpoint, EndpointEvent, EndpointSpec, QosProfile, Reader, ReaderOptions, Sample,
};
use rustix::fs::{self, FallocateFlags, Mode, OFlags};
use rustix::mm::{self, Advice, MapFlags, MprotectFlags, ProtFlags};

/// The names of the writer's memfds a reader receives.
const TARGETS: [&str; 2] = ["/memfd:hibari-chunks", "/memfd:hibari-ring"];

fn spec(topic: &str) -> EndpointSpec {
    EndpointSpec {
        topic: topic.into(),
        type_name: "hibari_test/msg/Blob".into(),
        type_hash: String::new(),
        qos: QosProfile::default().keep_last(64),
    }
}

/// The payload's number if its checksum holds (the layout of `shm-peer`).
fn check(buf: &[u8]) -> Option<u64> {
    let word = |w: &[u8]| {
        let mut b = [0u8; 8];
        b[..w.len()].copy_from_slice(w);
        u64::from_le_bytes(b)
    };
    if buf.len() < 16 {
        return None;
    }
    let sum = buf[16..]
        .chunks(8)
        .fold(0u64, |s, w| s.wrapping_add(word(w)));
    (sum == word(&buf[8..16])).then(|| word(&buf[..8]))
}

/// Tallies attacks: one that worked is a violation.
#[derive(Default)]
struct Tally {
    blocked: u64,
    violations: u64,
}

impl Tally {
    fn attempt<T>(&mut self, what: &str, target: &str, result: rustix::io::Result<T>) {
        match result {
            Ok(_) => {
                self.violations += 1;
                println!("violation: {what} on {target} succeeded");
            }
            Err(_) => self.blocked += 1,
        }
    }

    /// Every way of writing through a descriptor (ours or a reopened one).
    fn attack_fd(&mut self, fd: BorrowedFd<'_>, how: &str, target: &str, size: u64) {
        let len = size as usize;
        // SAFETY: a fresh mapping at an address the kernel picks aliases no
        // Rust object; if it succeeds it is unmapped at once, untouched.
        let map = unsafe {
            mm::mmap(
                std::ptr::null_mut(),
                len,
                ProtFlags::READ | ProtFlags::WRITE,
                MapFlags::SHARED,
                fd,
                0,
            )
        };
        if let Ok(ptr) = map {
            // SAFETY: the mapping just made, of `len` bytes, never used.
            let _ = unsafe { mm::munmap(ptr, len) };
        }
        self.attempt(&format!("{how}: mmap PROT_WRITE MAP_SHARED"), target, map);
        self.attempt(
            &format!("{how}: pwrite"),
            target,
            rustix::io::pwrite(fd, &[0xAA], 0),
        );
        self.attempt(
            &format!("{how}: write"),
            target,
            rustix::io::write(fd, &[0xAA]),
        );
        self.attempt(
            &format!("{how}: ftruncate shrink"),
            target,
            fs::ftruncate(fd, 0),
        );
        self.attempt(
            &format!("{how}: ftruncate grow"),
            target,
            fs::ftruncate(fd, size * 2),
        );
        let punch = FallocateFlags::PUNCH_HOLE | FallocateFlags::KEEP_SIZE;
        self.attempt(
            &format!("{how}: fallocate punch hole"),
            target,
            fs::fallocate(fd, punch, 0, size),
        );
        let grow = fs::fallocate(fd, FallocateFlags::empty(), size, 4096);
        self.attempt(&format!("{how}: fallocate grow"), target, grow);
    }
}

/// The writer's memfds among our descriptors: (fd number, name).
fn target_fds() -> Vec<(i32, String)> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc/self/fd")
        .expect("/proc/self/fd")
        .flatten()
    {
        let Ok(n) = entry.file_name().to_string_lossy().parse::<i32>() else {
            continue;
        };
        let Ok(link) = std::fs::read_link(entry.path()) else {
            continue;
        };
        let link = link.to_string_lossy().into_owned();
        if TARGETS.iter().any(|t| link.starts_with(t)) {
            found.push((n, link));
        }
    }
    found
}

/// The writer's memory among our mappings: (start, length, permissions, name).
fn target_maps() -> Vec<(usize, usize, String, String)> {
    let maps = std::fs::read_to_string("/proc/self/maps").expect("/proc/self/maps");
    maps.lines()
        .filter(|l| TARGETS.iter().any(|t| l.contains(t)))
        .filter_map(|l| {
            let mut parts = l.split_whitespace();
            let (range, perms) = (parts.next()?, parts.next()?);
            let (a, b) = range.split_once('-')?;
            let a = usize::from_str_radix(a, 16).ok()?;
            let b = usize::from_str_radix(b, 16).ok()?;
            let name = l.split_whitespace().nth(5).unwrap_or("").to_owned();
            Some((a, b - a, perms.to_owned(), name))
        })
        .collect()
}

/// Attacks every descriptor and mapping of the writer's memory; returns
/// how many chunk and ring mappings were found.
fn attack(tally: &mut Tally) -> (usize, usize) {
    let fds = target_fds();
    for (n, name) in &fds {
        // SAFETY: `n` is open (just listed) and stays open meanwhile: this
        // thread is the only one that closes descriptors here, and the
        // transport keeps the writer's memfds until the writer goes.
        let fd = unsafe { BorrowedFd::borrow_raw(*n) };
        let size = fs::fstat(fd).expect("fstat").st_size as u64;
        tally.attack_fd(fd, "received fd", name, size);
        let path = format!("/proc/self/fd/{n}");
        match fs::open(&path, OFlags::RDWR | OFlags::CLOEXEC, Mode::empty()) {
            Ok(rw) => tally.attack_fd(rw.as_fd(), "reopened O_RDWR", name, size),
            Err(e) => {
                tally.blocked += 1;
                println!("reopen O_RDWR of {name} refused: {e}");
            }
        }
    }
    let maps = target_maps();
    for (start, len, perms, name) in &maps {
        if perms.contains('w') {
            tally.violations += 1;
            println!("violation: {name} is mapped writable ({perms})");
        }
        let size = *len as u64;
        let path = format!("/proc/self/map_files/{:x}-{:x}", start, start + len);
        for (how, flags) in [
            ("map_files O_RDONLY", OFlags::RDONLY),
            ("map_files O_RDWR", OFlags::RDWR),
        ] {
            match fs::open(&path, flags | OFlags::CLOEXEC, Mode::empty()) {
                Ok(fd) => {
                    tally.attack_fd(fd.as_fd(), how, name, size);
                    // A read-only descriptor, as received: reopen it by path.
                    let again = format!("/proc/self/fd/{}", fd.as_raw_fd());
                    match fs::open(&again, OFlags::RDWR | OFlags::CLOEXEC, Mode::empty()) {
                        Ok(rw) => {
                            tally.attack_fd(rw.as_fd(), "/proc/self/fd reopened O_RDWR", name, size)
                        }
                        Err(_) => tally.blocked += 1,
                    }
                }
                Err(e) => {
                    tally.blocked += 1;
                    println!("{how} of {name} refused: {e}");
                }
            }
        }
        let addr = *start as *mut std::ffi::c_void;
        // SAFETY: the range is one of our mappings of the writer's memory,
        // which holds no Rust object of ours; making it writable does not
        // invalidate anything (and must fail).
        let r = unsafe { mm::mprotect(addr, *len, MprotectFlags::READ | MprotectFlags::WRITE) };
        tally.attempt("mprotect PROT_WRITE of the mapping", name, r);
        // SAFETY: as above; MADV_REMOVE would free the pages (and must fail).
        let r = unsafe { mm::madvise(addr, *len, Advice::LinuxRemove) };
        tally.attempt("madvise MADV_REMOVE of the mapping", name, r);
    }
    let count = |t: &str| maps.iter().filter(|m| m.3.starts_with(t)).count();
    (count(TARGETS[0]), count(TARGETS[1]))
}

/// Takes the next sample, waiting at most `patience`.
fn next(r: &hibari_shm::ShmReader, patience: Duration) -> Option<Sample> {
    let deadline = Instant::now() + patience;
    while Instant::now() < deadline {
        if let Some(s) = r.take() {
            return Some(s);
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    None
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let domain: u32 = args.first().and_then(|a| a.parse().ok()).expect("domain");
    let topic = args.get(1).expect("topic");
    let t = ShmTransport::open(domain).expect("open");
    let r = t
        .reader(&spec(topic), &ReaderOptions::default())
        .expect("reader");
    let patience = Duration::from_secs(20);
    let deadline = Instant::now() + patience;
    while !std::iter::from_fn(|| r.take_event()).any(|e| matches!(e, EndpointEvent::Matched { .. }))
    {
        assert!(Instant::now() < deadline, "never matched");
        std::thread::sleep(Duration::from_millis(1));
    }
    println!("ready");
    let first = next(&r, patience).expect("no sample #1");
    let mut tally = Tally::default();
    let (chunks, rings) = attack(&mut tally);
    println!(
        "attacked chunks={chunks} rings={rings} blocked={} violations={}",
        tally.blocked, tally.violations
    );
    let mut ok = tally.violations == 0;
    let held = check(&first.payload.cdr().expect("bytes").to_cow());
    println!("after seq=1 intact={}", held == Some(1));
    ok &= held == Some(1);
    let second = next(&r, patience).map(|s| check(&s.payload.cdr().expect("bytes").to_cow()));
    println!("after seq=2 intact={}", second == Some(Some(2)));
    ok &= second == Some(Some(2));
    std::process::exit(if ok { 0 } else { 1 });
}

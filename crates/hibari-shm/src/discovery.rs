//! Finding the other participants of a domain: no daemon, no file.
//!
//! Each participant listens on an abstract Unix socket named
//! `hibari/<uid>/<domain>/<slot>` — the first free slot: binding is atomic,
//! so two participants never share one, and the kernel frees the name when
//! the socket closes, however its process ends. A newcomer then connects to
//! every other slot; connecting to a name nobody listens on fails at once.
//! Later newcomers connect to it in turn, so every pair of participants ends
//! up with exactly one connection: joins are serialized by a lock, itself
//! an abstract name (`…/lock`) the kernel frees with its holder.
//!
//! Abstract names carry no permissions, so every connection is checked with
//! `SO_PEERCRED`: only the same user is accepted. (The names embed the
//! uid, so participants of different users never even find each other.)

use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::time::{Duration, Instant};

use hibari_transport::DomainId;
use rustix::io::{self, Errno};

use crate::sock;

/// How long a join waits for the lock before going ahead without it (its
/// holder is stuck, or another user squats the name).
const LOCK_PATIENCE: Duration = Duration::from_secs(2);

/// A participant's place in its domain.
pub(crate) struct Joined {
    pub listener: OwnedFd,
    /// Connections to the participants already there.
    pub peers: Vec<OwnedFd>,
}

fn name(uid: u32, domain: DomainId, slot: &str) -> String {
    format!("hibari/{uid}/{domain}/{slot}")
}

/// Whether the peer of `fd` may talk to us: the same user only.
pub(crate) fn trusted(fd: BorrowedFd<'_>, uid: u32) -> bool {
    match sock::peer(fd) {
        Ok((peer_uid, _, _)) => peer_uid == uid,
        Err(_) => false,
    }
}

/// Takes a free slot of `domain` and connects to every occupied one.
pub(crate) fn join(domain: DomainId, max_slots: u32) -> io::Result<Joined> {
    let uid = rustix::process::getuid().as_raw();
    let lock_name = name(uid, domain, "lock");
    let started = Instant::now();
    let lock = loop {
        match sock::bind_only(&lock_name) {
            Ok(fd) => break Some(fd),
            Err(Errno::ADDRINUSE) if started.elapsed() < LOCK_PATIENCE => {
                std::thread::sleep(Duration::from_micros(200));
            }
            Err(Errno::ADDRINUSE) => break None,
            Err(e) => return Err(e),
        }
    };
    let mut listener = None;
    for slot in 0..max_slots {
        match sock::listen(&name(uid, domain, &slot.to_string())) {
            Ok(fd) => {
                listener = Some((fd, slot));
                break;
            }
            Err(Errno::ADDRINUSE) => continue,
            Err(e) => return Err(e),
        }
    }
    let (listener, slot) = listener.ok_or(Errno::MFILE)?;
    let mut peers = Vec::new();
    for other in (0..max_slots).filter(|&s| s != slot) {
        match sock::connect(&name(uid, domain, &other.to_string())) {
            Ok(fd) if trusted(fd.as_fd(), uid) => peers.push(fd),
            Ok(_) => {}
            Err(Errno::CONNREFUSED | Errno::NOENT | Errno::AGAIN) => {}
            Err(e) => return Err(e),
        }
    }
    drop(lock);
    Ok(Joined { listener, peers })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn participants_take_distinct_slots_and_find_each_other() {
        let domain = hibari_testkit::unique_domain();
        let a = join(domain, 8).unwrap();
        let b = join(domain, 8).unwrap();
        assert!(a.peers.is_empty());
        assert_eq!(b.peers.len(), 1);
        let accepted = sock::accept(a.listener.as_fd()).unwrap();
        let uid = rustix::process::getuid().as_raw();
        assert!(trusted(accepted.as_fd(), uid));
        assert!(!trusted(accepted.as_fd(), uid + 1));
        drop(a);
        let c = join(domain, 8).unwrap();
        assert_eq!(c.peers.len(), 1, "b only");
        let name = format!("hibari/{uid}/{domain}/0");
        assert_eq!(
            sock::listen(&name).unwrap_err(),
            Errno::ADDRINUSE,
            "c took slot 0 again"
        );
    }
}

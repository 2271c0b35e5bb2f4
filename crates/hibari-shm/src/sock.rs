//! Unix `SOCK_SEQPACKET` sockets: abstract names (no file, freed by the
//! kernel with their last descriptor), whole messages with descriptors
//! attached (`SCM_RIGHTS`), and the peer's credentials (`SO_PEERCRED`).

use std::io::{IoSlice, IoSliceMut};
use std::mem::MaybeUninit;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};

use rustix::io::{self, Errno};
use rustix::net::{
    self, AddressFamily, RecvAncillaryBuffer, RecvAncillaryMessage, RecvFlags, ReturnFlags,
    SendAncillaryBuffer, SendAncillaryMessage, SendFlags, SocketAddrUnix, SocketFlags, SocketType,
};

/// The most descriptors one message carries.
pub(crate) const MAX_FDS: usize = 4;

/// The largest control message (a spec with long names fits many times).
pub(crate) const MAX_MESSAGE: usize = 64 * 1024;

fn seqpacket() -> io::Result<OwnedFd> {
    net::socket_with(
        AddressFamily::UNIX,
        SocketType::SEQPACKET,
        SocketFlags::CLOEXEC,
        None,
    )
}

fn abstract_addr(name: &str) -> io::Result<SocketAddrUnix> {
    SocketAddrUnix::new_abstract_name(name.as_bytes())
}

/// Binds `name` in the abstract namespace and listens on it. Fails with
/// `ADDRINUSE` if someone holds the name.
pub(crate) fn listen(name: &str) -> io::Result<OwnedFd> {
    let fd = seqpacket()?;
    net::bind(&fd, &abstract_addr(name)?)?;
    net::listen(&fd, 128)?;
    crate::sys::set_nonblocking(fd.as_fd())?;
    Ok(fd)
}

/// Binds `name` without listening: a lock held until the descriptor closes
/// (the kernel frees it when its holder dies).
pub(crate) fn bind_only(name: &str) -> io::Result<OwnedFd> {
    let fd = seqpacket()?;
    net::bind(&fd, &abstract_addr(name)?)?;
    Ok(fd)
}

/// Connects to `name`; fails at once (`CONNREFUSED`) when nobody listens.
pub(crate) fn connect(name: &str) -> io::Result<OwnedFd> {
    let fd = seqpacket()?;
    net::connect(&fd, &abstract_addr(name)?)?;
    crate::sys::set_nonblocking(fd.as_fd())?;
    Ok(fd)
}

/// Accepts one pending connection, non-blocking.
pub(crate) fn accept(listener: BorrowedFd<'_>) -> io::Result<OwnedFd> {
    net::accept_with(listener, SocketFlags::CLOEXEC | SocketFlags::NONBLOCK)
}

/// A connected pair (one end stays, the other is sent to a peer).
pub(crate) fn pair() -> io::Result<(OwnedFd, OwnedFd)> {
    let (a, b) = net::socketpair(
        AddressFamily::UNIX,
        SocketType::SEQPACKET,
        SocketFlags::CLOEXEC | SocketFlags::NONBLOCK,
        None,
    )?;
    Ok((a, b))
}

/// The peer's user id, group id and process id.
pub(crate) fn peer(fd: BorrowedFd<'_>) -> io::Result<(u32, u32, i32)> {
    let cred = net::sockopt::socket_peercred(fd)?;
    Ok((
        cred.uid.as_raw(),
        cred.gid.as_raw(),
        cred.pid.as_raw_nonzero().get(),
    ))
}

/// Sends one whole message with `fds` attached, without blocking
/// (`AGAIN` when the peer's queue is full).
pub(crate) fn send(fd: BorrowedFd<'_>, bytes: &[u8], fds: &[BorrowedFd<'_>]) -> io::Result<()> {
    let mut space = [MaybeUninit::<u8>::uninit(); rustix::cmsg_space!(ScmRights(MAX_FDS))];
    let mut control = SendAncillaryBuffer::new(&mut space);
    if !fds.is_empty() && !control.push(SendAncillaryMessage::ScmRights(fds)) {
        return Err(Errno::INVAL);
    }
    let flags = SendFlags::DONTWAIT | SendFlags::NOSIGNAL;
    let sent = net::sendmsg(fd, &[IoSlice::new(bytes)], &mut control, flags)?;
    if sent != bytes.len() {
        return Err(Errno::MSGSIZE);
    }
    Ok(())
}

/// What one receive got.
pub(crate) enum Received {
    /// A message of this many bytes (in the buffer), and its descriptors.
    Message(usize),
    /// The peer closed the connection (or died).
    Closed,
    /// Nothing pending.
    Empty,
}

/// Receives one message without blocking; its descriptors are appended to
/// `fds`. A message or descriptor list that does not fit is an error (the
/// peer broke the protocol).
pub(crate) fn recv(
    fd: BorrowedFd<'_>,
    buf: &mut [u8],
    fds: &mut Vec<OwnedFd>,
) -> io::Result<Received> {
    let mut space = [MaybeUninit::<u8>::uninit(); rustix::cmsg_space!(ScmRights(MAX_FDS))];
    let mut control = RecvAncillaryBuffer::new(&mut space);
    let flags = RecvFlags::DONTWAIT | RecvFlags::CMSG_CLOEXEC;
    let got = match net::recvmsg(fd, &mut [IoSliceMut::new(buf)], &mut control, flags) {
        Ok(got) => got,
        Err(Errno::AGAIN) => return Ok(Received::Empty),
        Err(Errno::CONNRESET) => return Ok(Received::Closed),
        Err(e) => return Err(e),
    };
    let before = fds.len();
    for message in control.drain() {
        if let RecvAncillaryMessage::ScmRights(received) = message {
            fds.extend(received);
        }
    }
    if got
        .flags
        .intersects(ReturnFlags::TRUNC | ReturnFlags::CTRUNC)
    {
        return Err(Errno::MSGSIZE);
    }
    if got.bytes == 0 && fds.len() == before {
        return Ok(Received::Closed);
    }
    Ok(Received::Message(got.bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn name(tag: &str) -> String {
        format!("hibari-test/{}/{tag}", std::process::id())
    }

    #[test]
    fn an_abstract_name_is_exclusive_and_connect_without_listener_fails_at_once() {
        let n = name("excl");
        assert_eq!(connect(&n).unwrap_err(), Errno::CONNREFUSED);
        let l = listen(&n).unwrap();
        assert_eq!(listen(&n).unwrap_err(), Errno::ADDRINUSE);
        let c = connect(&n).unwrap();
        let s = accept(l.as_fd()).unwrap();
        let me = rustix::process::getuid().as_raw();
        assert_eq!(peer(s.as_fd()).unwrap().0, me);
        assert_eq!(peer(c.as_fd()).unwrap().0, me);
        drop(l);
        let _again = listen(&n).expect("the name is free once closed");
    }

    #[test]
    fn messages_carry_descriptors_and_close_is_seen() {
        let (a, b) = pair().unwrap();
        let efd = crate::sys::new_eventfd().unwrap();
        send(a.as_fd(), b"hello", &[efd.as_fd()]).unwrap();
        let mut buf = [0u8; 64];
        let mut fds = Vec::new();
        match recv(b.as_fd(), &mut buf, &mut fds).unwrap() {
            Received::Message(n) => assert_eq!(&buf[..n], b"hello"),
            _ => panic!("no message"),
        }
        assert_eq!(fds.len(), 1);
        crate::sys::signal(fds[0].as_fd());
        assert!(crate::sys::drain(efd.as_fd()), "the same eventfd");
        assert!(matches!(
            recv(b.as_fd(), &mut buf, &mut fds).unwrap(),
            Received::Empty
        ));
        drop(a);
        assert!(matches!(
            recv(b.as_fd(), &mut buf, &mut fds).unwrap(),
            Received::Closed
        ));
    }

    #[test]
    fn an_oversized_message_is_an_error() {
        let (a, b) = pair().unwrap();
        send(a.as_fd(), &[7u8; 100], &[]).unwrap();
        let mut small = [0u8; 10];
        assert!(recv(b.as_fd(), &mut small, &mut Vec::new()).is_err());
    }
}

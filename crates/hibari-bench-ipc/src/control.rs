//! The control channel between the publisher process and its re-executed
//! subscriber: a Unix stream socket on an abstract name (no file to clean up),
//! carrying length-prefixed JSON frames and, when a system needs it, file
//! descriptors (`SCM_RIGHTS`) attached to a frame.
//!
//! It is used only outside the measured loop: to set up a cell, to say
//! "ready", to say "stop" (open loop), and to bring back the subscriber's
//! CPU figures (and, open loop, its samples) at the end.

use crate::sys;
use std::io::{self, Read, Write};
use std::os::fd::{BorrowedFd, OwnedFd};
use std::os::linux::net::SocketAddrExt;
use std::os::unix::net::{SocketAddr, UnixListener, UnixStream};
use std::time::{Duration, Instant};

/// One frame on the control channel.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Message {
    /// The subscriber connected.
    Hello {
        /// Its process id.
        pid: u32,
    },
    /// A system-specific step of `open` ("services created", …).
    Note {
        /// Free text agreed by the two sides of one system.
        text: String,
    },
    /// File descriptors are attached to this frame.
    Fds {
        /// How many.
        count: usize,
    },
    /// The subscriber opened its ends and waits for the first message.
    Ready,
    /// Open loop: the publisher is done (and gave stragglers time); stop receiving.
    Stop,
    /// The subscriber finished; its figures.
    Report(ChildReport),
    /// The subscriber failed; the error text.
    Failed {
        /// What went wrong.
        error: String,
    },
}

/// What the subscriber process measured about itself.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ChildReport {
    /// Messages received in the measured window (after warm-up); open loop:
    /// the good measured arrivals, duplicates included (the parent tallies `samples`).
    pub received: u64,
    /// Messages whose sequence number, length or fill byte was wrong.
    pub errors: u64,
    /// User+sys CPU time over the measured window, µs.
    pub cpu_us: f64,
    /// Voluntary context switches over the measured window.
    pub ctx_vol: u64,
    /// Involuntary context switches over the measured window.
    pub ctx_invol: u64,
    /// Open loop: `(measured sequence, receive − due ns)` of every message received.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub samples: Vec<(u64, u64)>,
}

/// Why the control channel failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ControlError {
    /// A socket call failed.
    #[error("control socket: {0}")]
    Io(#[from] io::Error),
    /// The other process closed the channel (it exited or crashed).
    #[error("the other process closed the control channel (did it exit? see its stderr)")]
    Closed,
    /// The other side did not connect or answer in time.
    #[error("timed out waiting for {0}")]
    Timeout(&'static str),
    /// A frame could not be decoded.
    #[error("malformed control frame: {0}")]
    Malformed(String),
    /// A frame of another kind arrived.
    #[error("expected {expected}, got {got:?}")]
    Unexpected {
        /// What the protocol expected.
        expected: &'static str,
        /// What arrived.
        got: Box<Message>,
    },
}

/// A listening control socket (publisher side).
pub struct ControlListener {
    listener: UnixListener,
}

impl ControlListener {
    /// Listens on the abstract socket name `name`.
    pub fn bind(name: &str) -> Result<ControlListener, ControlError> {
        let addr = SocketAddr::from_abstract_name(name.as_bytes())?;
        let listener = UnixListener::bind_addr(&addr)?;
        listener.set_nonblocking(true)?;
        Ok(ControlListener { listener })
    }

    /// Accepts one connection, giving up at `deadline` or as soon as `alive()` is false.
    pub fn accept(
        &self,
        deadline: Instant,
        mut alive: impl FnMut() -> bool,
    ) -> Result<Control, ControlError> {
        loop {
            match self.listener.accept() {
                Ok((stream, _)) => {
                    stream.set_nonblocking(false)?;
                    return Ok(Control { stream });
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    if !alive() {
                        return Err(ControlError::Closed);
                    }
                    if Instant::now() > deadline {
                        return Err(ControlError::Timeout("the subscriber process to connect"));
                    }
                    std::thread::sleep(Duration::from_millis(1));
                }
                Err(e) => return Err(e.into()),
            }
        }
    }
}

/// One end of the control channel.
pub struct Control {
    stream: UnixStream,
}

impl Control {
    /// Connects to the abstract socket name `name` (subscriber side).
    pub fn connect(name: &str) -> Result<Control, ControlError> {
        let addr = SocketAddr::from_abstract_name(name.as_bytes())?;
        Ok(Control {
            stream: UnixStream::connect_addr(&addr)?,
        })
    }

    /// A second handle on the same channel (for a watcher thread).
    pub fn try_clone(&self) -> Result<Control, ControlError> {
        Ok(Control {
            stream: self.stream.try_clone()?,
        })
    }

    /// Sets how long `recv` blocks before [`ControlError::Timeout`] (`None`: forever).
    pub fn set_read_timeout(&self, timeout: Option<Duration>) -> Result<(), ControlError> {
        Ok(self.stream.set_read_timeout(timeout)?)
    }

    /// Sends one frame.
    pub fn send(&mut self, msg: &Message) -> Result<(), ControlError> {
        self.stream.write_all(&frame(msg)?)?;
        Ok(())
    }

    /// Sends `fds` attached to a [`Message::Fds`] frame.
    pub fn send_fds(&mut self, fds: &[BorrowedFd<'_>]) -> Result<(), ControlError> {
        let bytes = frame(&Message::Fds { count: fds.len() })?;
        Ok(sys::send_with_fds(&self.stream, &bytes, fds)?)
    }

    /// Receives one frame (fds attached to it are closed).
    pub fn recv(&mut self) -> Result<Message, ControlError> {
        Ok(self.recv_with_fds()?.0)
    }

    /// Receives a [`Message::Fds`] frame and returns its fds, in the order sent.
    pub fn recv_fds(&mut self) -> Result<Vec<OwnedFd>, ControlError> {
        match self.recv_with_fds()? {
            (Message::Fds { count }, fds) if fds.len() == count => Ok(fds),
            (Message::Fds { count }, fds) => Err(ControlError::Malformed(format!(
                "{count} fds announced, {} arrived",
                fds.len()
            ))),
            (got, _) => Err(ControlError::Unexpected {
                expected: "fds",
                got: Box::new(got),
            }),
        }
    }

    /// Receives a frame and expects [`Message::Note`] with `text`.
    pub fn expect_note(&mut self, text: &str) -> Result<(), ControlError> {
        match self.recv()? {
            Message::Note { text: t } if t == text => Ok(()),
            got => Err(ControlError::Unexpected {
                expected: "a note",
                got: Box::new(got),
            }),
        }
    }

    fn recv_with_fds(&mut self) -> Result<(Message, Vec<OwnedFd>), ControlError> {
        let mut len = [0u8; 4];
        let mut have = 0;
        let mut fds = Vec::new();
        while have < len.len() {
            let (n, mut got) =
                sys::recv_with_fds(&self.stream, &mut len[have..]).map_err(timeout)?;
            if n == 0 {
                return Err(ControlError::Closed);
            }
            have += n;
            fds.append(&mut got);
        }
        let len = u32::from_le_bytes(len) as usize;
        if len > 64 << 20 {
            return Err(ControlError::Malformed(format!("frame of {len} bytes")));
        }
        let mut body = vec![0u8; len];
        self.stream
            .read_exact(&mut body)
            .map_err(|e| match e.kind() {
                io::ErrorKind::UnexpectedEof => ControlError::Closed,
                _ => timeout(e),
            })?;
        let msg =
            serde_json::from_slice(&body).map_err(|e| ControlError::Malformed(e.to_string()))?;
        Ok((msg, fds))
    }
}

fn timeout(e: io::Error) -> ControlError {
    match e.kind() {
        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut => {
            ControlError::Timeout("a control frame")
        }
        _ => ControlError::Io(e),
    }
}

fn frame(msg: &Message) -> Result<Vec<u8>, ControlError> {
    let body = serde_json::to_vec(msg).map_err(|e| ControlError::Malformed(e.to_string()))?;
    let mut out = Vec::with_capacity(body.len() + 4);
    out.extend_from_slice(&(body.len() as u32).to_le_bytes());
    out.extend_from_slice(&body);
    Ok(out)
}

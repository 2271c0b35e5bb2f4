//! `hibari bag play`'s keys, as `ros2 bag play` has them: SPACE pauses and
//! resumes, `s` (or CURSOR_RIGHT, ros2's key) plays the next message while
//! paused, CURSOR_UP and CURSOR_DOWN change the rate by 10%.
//!
//! Keys are read only when stdin is the terminal of the foreground job (a
//! background job that touched the terminal would be stopped by SIGTTOU).
//! The terminal is then set as rosbag2's keyboard handler sets it: no line
//! editing (each key arrives at once) and no echo, nothing else. Ctrl-C
//! stays a signal, so it ends playback through the one [`Stop`] every
//! command uses, and lines printed meanwhile still start at column 0. The
//! settings are put back when the [`Keyboard`] is dropped: at the end of
//! playback, on an error, on Ctrl-C, SIGTERM or SIGHUP (all of which end
//! playback), and when a panic unwinds.

use std::io::Read as _;
use std::sync::Arc;

use rustix::termios::{self, LocalModes, OptionalActions, SpecialCodeIndex, Termios};

use super::controls::Controls;
use crate::cmd::common::stop::Stop;

/// What `ros2 bag play` prints about its keys, in one line.
pub const HELP: &str = "Press SPACE for Pause/Resume, s for Play Next (CURSOR_RIGHT too), \
                        CURSOR_UP/CURSOR_DOWN for Rate +/-10%";

/// A key the player acts on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Key {
    PauseResume,
    PlayNext,
    Faster,
    Slower,
    /// Ctrl-C arriving as a byte (only if the terminal does not make it SIGINT).
    Interrupt,
}

/// Turns the bytes a terminal sends into keys; escape sequences (the cursor
/// keys: `ESC [ A`…) may arrive split across reads.
#[derive(Default)]
pub struct KeyParser {
    escape: Vec<u8>,
}

impl KeyParser {
    pub fn push(&mut self, byte: u8) -> Option<Key> {
        if self.escape.is_empty() && byte != 0x1b {
            return match byte {
                b' ' => Some(Key::PauseResume),
                b's' | b'S' => Some(Key::PlayNext),
                0x03 => Some(Key::Interrupt),
                _ => None,
            };
        }
        self.escape.push(byte);
        let key = match self.escape.as_slice() {
            [0x1b] | [0x1b, b'[' | b'O'] => return None,
            [0x1b, b'[' | b'O', last] => match last {
                b'A' => Some(Key::Faster),
                b'B' => Some(Key::Slower),
                b'C' => Some(Key::PlayNext),
                _ => None,
            },
            // Another sequence (a modifier, a function key): dropped.
            _ => None,
        };
        self.escape.clear();
        key
    }
}

/// The terminal in key-at-a-time mode, and a thread reading its keys;
/// dropping it puts the terminal's settings back.
pub struct Keyboard {
    saved: Termios,
}

impl Keyboard {
    /// Starts reading keys if stdin is the foreground's terminal; `None`
    /// (and the terminal untouched) otherwise.
    pub fn start(controls: Arc<Controls>, stop: Arc<Stop>) -> Option<Keyboard> {
        let stdin = std::io::stdin();
        if !termios::isatty(&stdin) {
            return None;
        }
        let foreground = termios::tcgetpgrp(&stdin).ok()?;
        if foreground != rustix::process::getpgrp() {
            return None;
        }
        let saved = termios::tcgetattr(&stdin).ok()?;
        let mut keys = saved.clone();
        keys.local_modes -= LocalModes::ICANON | LocalModes::ECHO;
        keys.special_codes[SpecialCodeIndex::VMIN] = 1;
        keys.special_codes[SpecialCodeIndex::VTIME] = 0;
        termios::tcsetattr(&stdin, OptionalActions::Now, &keys).ok()?;
        let keyboard = Keyboard { saved };
        let reader = std::thread::Builder::new()
            .name("bag play keys".into())
            .spawn(move || read_keys(&controls, &stop));
        // Without the thread there are no keys: the terminal goes back now.
        reader.ok().map(|_| keyboard)
    }
}

impl Drop for Keyboard {
    fn drop(&mut self) {
        let _ = termios::tcsetattr(std::io::stdin(), OptionalActions::Now, &self.saved);
    }
}

/// Acts on keys until stdin ends (the thread is left blocked in a read when
/// playback ends: the process is about to exit).
fn read_keys(controls: &Controls, stop: &Stop) {
    let mut parser = KeyParser::default();
    let mut buf = [0u8; 64];
    let mut input = std::io::stdin().lock();
    loop {
        let n = match input.read(&mut buf) {
            Ok(0) => return,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => return,
        };
        for key in buf[..n].iter().filter_map(|b| parser.push(*b)) {
            act(key, controls, stop);
        }
    }
}

fn act(key: Key, controls: &Controls, stop: &Stop) {
    match key {
        Key::PauseResume => {
            if controls.toggle_pause() {
                println!("Paused");
            } else {
                println!("Resumed");
            }
        }
        Key::PlayNext => {
            controls.play_next();
        }
        Key::Faster => println!("Rate {:.3}", controls.scale_rate(1.1)),
        Key::Slower => println!("Rate {:.3}", controls.scale_rate(0.9)),
        Key::Interrupt => stop.trigger(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(bytes: &[u8]) -> Vec<Key> {
        let mut p = KeyParser::default();
        bytes.iter().filter_map(|b| p.push(*b)).collect()
    }

    #[test]
    fn space_s_and_the_cursor_keys_are_read_and_other_bytes_ignored() {
        assert_eq!(
            keys(b" sxS\x1b[C\x1b[A\x1bOB\x03"),
            [
                Key::PauseResume,
                Key::PlayNext,
                Key::PlayNext,
                Key::PlayNext,
                Key::Faster,
                Key::Slower,
                Key::Interrupt
            ]
        );
    }

    #[test]
    fn a_sequence_split_across_reads_is_one_key_and_unknown_ones_are_dropped() {
        let mut p = KeyParser::default();
        assert_eq!(p.push(0x1b), None);
        assert_eq!(p.push(b'['), None);
        assert_eq!(p.push(b'C'), Some(Key::PlayNext));
        // ESC [ 1 ; 5 C (Ctrl-Right): its tail is plain bytes, none a key.
        assert_eq!(keys(b"\x1b[1;5C"), []);
        assert_eq!(keys(b"\x1bx "), [Key::PauseResume]);
    }
}

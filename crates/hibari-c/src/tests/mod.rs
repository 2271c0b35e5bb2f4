//! Tests that call the C functions as C does (they are plain Rust
//! functions): each in a context of its own (isolated, or a domain
//! reserved for it), every wait bounded.

use std::ffi::{c_char, c_void, CStr, CString};
use std::ptr::{null, null_mut};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::*;

mod entities;
mod errors;
mod groups;
mod parameters;
mod services;
mod topics;
mod values;
mod wait_sets;

/// How long a test waits for what takes a moment (only a hang reaches it).
const WAIT: Duration = hibari_testkit::HANG;
const WAIT_NS: i64 = 10_000_000_000;

fn last_error() -> String {
    // SAFETY: hibari_last_error returns a NUL-terminated string valid until
    // this thread's next hibari call; it is copied at once.
    unsafe { CStr::from_ptr(hibari_last_error()) }
        .to_string_lossy()
        .into_owned()
}

/// Fails the test with the message when `ret` is not `HIBARI_OK`.
#[track_caller]
fn ok(ret: hibari_ret_t) {
    assert_eq!(ret, hibari_ret_t::HIBARI_OK, "{}", last_error());
}

fn c(s: &str) -> CString {
    CString::new(s).unwrap()
}

/// An isolated context (in-process only), with `args` (`--ros-args …`).
fn isolated(args: &[&str]) -> hibari_context_t {
    let args: Vec<CString> = args.iter().map(|a| c(a)).collect();
    let argv: Vec<*const c_char> = args.iter().map(|a| a.as_ptr()).collect();
    let mut options = hibari_context_options_default();
    options.argc = argv.len() as i32;
    options.argv = if argv.is_empty() {
        null()
    } else {
        argv.as_ptr()
    };
    options.isolated = true;
    let mut ctx = hibari_context_t::default();
    // SAFETY: valid options and out-pointer; argv lives through the call.
    ok(unsafe { hibari_context_init_with_options(&options, &mut ctx) });
    ctx
}

/// A context of `domain` (a test's own), with every transport.
fn in_domain(domain: &hibari_testkit::TestDomain) -> hibari_context_t {
    let mut ctx = hibari_context_t::default();
    // SAFETY: a valid out-pointer.
    ok(unsafe { hibari_context_init_with_domain(domain.id(), &mut ctx) });
    ctx
}

fn node(ctx: hibari_context_t, name: &str) -> hibari_node_t {
    let mut n = hibari_node_t::default();
    // SAFETY: a valid string and out-pointer.
    ok(unsafe { hibari_node_create(ctx, c(name).as_ptr(), null(), &mut n) });
    n
}

fn executor_with(node: hibari_node_t) -> hibari_executor_t {
    let mut e = hibari_executor_t::default();
    // SAFETY: a valid out-pointer.
    ok(unsafe { hibari_executor_create_single(&mut e) });
    ok(hibari_executor_add_node(e, node));
    e
}

/// `std_msgs/msg/String` as CDR.
fn string_cdr(text: &str) -> Vec<u8> {
    use hibari_rs::Message;
    hibari_rs::msg::std_msgs::msg::String { data: text.into() }
        .to_cdr()
        .unwrap()
}

fn string_of(cdr: &[u8]) -> String {
    use hibari_rs::Message;
    hibari_rs::msg::std_msgs::msg::String::from_cdr(cdr)
        .unwrap()
        .data
}

/// What callbacks saw, shared with the test through `user_data`.
#[derive(Default)]
struct Seen {
    messages: Mutex<Vec<Vec<u8>>>,
    infos: Mutex<Vec<hibari_sample_info_t>>,
}

impl Seen {
    fn user(self: &Arc<Self>) -> *mut c_void {
        Arc::as_ptr(self).cast_mut().cast()
    }

    fn count(&self) -> usize {
        self.messages.lock().unwrap().len()
    }
}

/// A subscription callback recording into the `Seen` at `user`.
unsafe extern "C" fn record(
    cdr: *const u8,
    len: usize,
    info: *const hibari_sample_info_t,
    user: *mut c_void,
) {
    // SAFETY: `user` is the test's `Seen`, alive while the subscription is;
    // `cdr` has `len` bytes and `info` is valid during the call.
    unsafe {
        let seen = &*user.cast::<Seen>();
        seen.messages
            .lock()
            .unwrap()
            .push(std::slice::from_raw_parts(cdr, len).to_vec());
        seen.infos.lock().unwrap().push(*info);
    }
}

/// Spins `executor` until `seen` has `n` messages (bounded by WAIT).
fn spin_until_count(executor: hibari_executor_t, seen: &Arc<Seen>, n: usize) {
    let deadline = std::time::Instant::now() + WAIT;
    while seen.count() < n {
        assert!(
            std::time::Instant::now() < deadline,
            "timed out waiting for {n} messages"
        );
        // SAFETY: a valid out-pointer (NULL allowed).
        ok(unsafe { hibari_executor_spin_once(executor, 100_000_000, null_mut()) });
    }
}

//! Wait sets: bad handles and NULLs, readiness of each kind, timeouts.

use super::topics::{publish, publisher, subscription};
use super::*;

const SHORT_NS: i64 = 20_000_000;

fn wait_set(ctx: hibari_context_t) -> hibari_wait_set_t {
    let mut ws = hibari_wait_set_t::default();
    // SAFETY: a valid out-pointer.
    ok(unsafe { hibari_wait_set_create(ctx, &mut ws) });
    ws
}

fn standalone_guard() -> hibari_guard_condition_t {
    let mut g = hibari_guard_condition_t::default();
    // SAFETY: a valid out-pointer.
    ok(unsafe { hibari_guard_condition_create_standalone(&mut g) });
    g
}

/// Waits (bounded by `timeout_ns`); whether something was ready.
fn wait(ws: hibari_wait_set_t, timeout_ns: i64) -> bool {
    let mut ready = false;
    // SAFETY: a valid out-pointer.
    ok(unsafe { hibari_wait_set_wait(ws, timeout_ns, &mut ready) });
    ready
}

type IsReady = unsafe extern "C" fn(hibari_wait_set_t, usize, *mut bool) -> hibari_ret_t;

fn is_ready(f: IsReady, ws: hibari_wait_set_t, index: usize) -> bool {
    let mut ready = false;
    // SAFETY: a valid out-pointer.
    ok(unsafe { f(ws, index, &mut ready) });
    ready
}

#[test]
fn bad_handles_and_nulls_are_refused_with_their_codes() {
    use hibari_ret_t::*;
    let (zero, mut index, mut flag) = (hibari_wait_set_t::default(), 0usize, false);
    // SAFETY: NULL out-pointers are refused before anything is read.
    unsafe {
        assert_eq!(
            hibari_wait_set_create(hibari_context_t::default(), null_mut()),
            HIBARI_ERROR_INVALID_ARGUMENT
        );
        let mut ws = hibari_wait_set_t::default();
        assert_eq!(
            hibari_wait_set_create(hibari_context_t::default(), &mut ws),
            HIBARI_ERROR_INVALID_HANDLE
        );
        assert_eq!(
            hibari_wait_set_wait(zero, 0, &mut flag),
            HIBARI_ERROR_INVALID_HANDLE
        );
        assert_eq!(
            hibari_guard_condition_create_standalone(null_mut()),
            HIBARI_ERROR_INVALID_ARGUMENT
        );
        assert_eq!(
            hibari_timer_call(hibari_timer_t::default(), &mut flag),
            HIBARI_ERROR_INVALID_HANDLE
        );
    }
    let ctx = isolated(&[]);
    let ws = wait_set(ctx);
    let g = standalone_guard();
    // SAFETY: valid or NULL out-pointers, as each line says.
    unsafe {
        assert_eq!(
            hibari_wait_set_add_guard_condition(ws, g, null_mut()),
            HIBARI_ERROR_INVALID_ARGUMENT
        );
        assert_eq!(
            hibari_wait_set_add_guard_condition(
                ws,
                hibari_guard_condition_t::default(),
                &mut index
            ),
            HIBARI_ERROR_INVALID_HANDLE
        );
        assert_eq!(
            hibari_wait_set_add_subscription(ws, hibari_subscription_t { id: g.id }, &mut index),
            HIBARI_ERROR_INVALID_HANDLE,
            "a guard condition's handle is not a subscription's"
        );
        // Empty: nothing could wake it.
        assert_eq!(
            hibari_wait_set_wait(ws, 0, &mut flag),
            HIBARI_ERROR_INVALID_ARGUMENT
        );
        assert_eq!(
            hibari_wait_set_wait(ws, 0, null_mut()),
            HIBARI_ERROR_INVALID_ARGUMENT
        );
        ok(hibari_wait_set_add_guard_condition(ws, g, &mut index));
        assert_eq!(index, 0);
        assert_eq!(
            hibari_wait_set_guard_condition_is_ready(ws, 1, &mut flag),
            HIBARI_ERROR_INVALID_ARGUMENT,
            "past the guard conditions added"
        );
        assert_eq!(
            hibari_wait_set_timer_is_ready(ws, 0, &mut flag),
            HIBARI_ERROR_INVALID_ARGUMENT
        );
        assert_eq!(
            hibari_wait_set_guard_condition_is_ready(ws, 0, null_mut()),
            HIBARI_ERROR_INVALID_ARGUMENT
        );
    }
    ok(hibari_wait_set_destroy(ws));
    assert_eq!(hibari_wait_set_destroy(ws), HIBARI_ERROR_INVALID_HANDLE);
    ok(hibari_guard_condition_destroy(g));
    ok(hibari_context_destroy(ctx));
}

#[test]
fn a_triggered_guard_condition_is_ready_once_then_the_wait_times_out() {
    let ctx = isolated(&[]);
    let ws = wait_set(ctx);
    let (quiet, g) = (standalone_guard(), standalone_guard());
    let mut index = 0;
    // SAFETY: valid out-pointers.
    unsafe {
        ok(hibari_wait_set_add_guard_condition(ws, quiet, &mut index));
        ok(hibari_wait_set_add_guard_condition(ws, g, &mut index));
    }
    assert_eq!(index, 1);
    assert!(!wait(ws, SHORT_NS), "nothing triggered: a timeout");
    let trigger = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(20));
        ok(hibari_guard_condition_trigger(g));
    });
    assert!(wait(ws, WAIT_NS));
    trigger.join().unwrap();
    let check = hibari_wait_set_guard_condition_is_ready;
    assert!(!is_ready(check, ws, 0));
    assert!(is_ready(check, ws, 1));
    assert!(!wait(ws, SHORT_NS), "the wait consumed the trigger");
    assert!(!is_ready(check, ws, 1));
    ok(hibari_wait_set_clear(ws));
    let mut flag = false;
    // SAFETY: a valid out-pointer.
    let past = unsafe { hibari_wait_set_guard_condition_is_ready(ws, 0, &mut flag) };
    assert_eq!(past, hibari_ret_t::HIBARI_ERROR_INVALID_ARGUMENT, "cleared");
    ok(hibari_wait_set_destroy(ws));
    ok(hibari_context_destroy(ctx));
}

#[test]
fn a_subscription_with_a_sample_is_ready_until_taken() {
    let ctx = isolated(&[]);
    let n = node(ctx, "waiter");
    let seen = Arc::new(Seen::default());
    let sub = subscription(n, "ws_topic", Some(&seen));
    let p = publisher(n, "ws_topic");
    let ws = wait_set(ctx);
    let mut index = 9;
    // SAFETY: a valid out-pointer.
    ok(unsafe { hibari_wait_set_add_subscription(ws, sub, &mut index) });
    assert_eq!(index, 0);
    let mut sample = hibari_sample_t {
        id: 0,
        data: null(),
        len: 0,
        info: Default::default(),
    };
    let mut taken = true;
    // The publisher's match woke it (events do): a take finds nothing, and
    // then the wait sleeps.
    // SAFETY: valid out-pointers.
    ok(unsafe { hibari_subscription_take(sub, &mut sample, &mut taken) });
    assert!(!taken);
    assert!(!wait(ws, SHORT_NS));
    publish(p, "hello");
    assert!(wait(ws, WAIT_NS));
    assert!(is_ready(hibari_wait_set_subscription_is_ready, ws, 0));
    // SAFETY: valid out-pointers; the sample's bytes live until released.
    unsafe {
        ok(hibari_subscription_take(sub, &mut sample, &mut taken));
        assert!(taken);
        assert_eq!(
            string_of(std::slice::from_raw_parts(sample.data, sample.len)),
            "hello"
        );
        ok(hibari_sample_release(&mut sample));
        ok(hibari_subscription_take(sub, &mut sample, &mut taken));
    }
    assert!(!taken);
    assert!(!wait(ws, SHORT_NS), "drained: not ready");
    assert_eq!(seen.count(), 0, "the callback never ran: nobody spins");
    ok(hibari_wait_set_destroy(ws));
    ok(hibari_context_destroy(ctx));
}

#[test]
fn a_due_timer_is_ready_and_timer_call_runs_it() {
    let ctx = isolated(&[]);
    let n = node(ctx, "ticker");
    let ticks = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    unsafe extern "C" fn tick(user: *mut c_void) {
        // SAFETY: `user` is the test's counter, alive while the timer is.
        let ticks = unsafe { &*user.cast::<std::sync::atomic::AtomicUsize>() };
        ticks.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    }
    let mut t = hibari_timer_t::default();
    let user = Arc::as_ptr(&ticks).cast_mut().cast();
    let (ws, mut index, mut called) = (wait_set(ctx), 0, true);
    // SAFETY: valid out-pointers; `user` outlives the timer.
    unsafe {
        ok(hibari_timer_create(n, 30_000_000, Some(tick), user, &mut t));
        ok(hibari_timer_call(t, &mut called));
        assert!(!called, "not due yet");
        ok(hibari_wait_set_add_timer(ws, t, &mut index));
    }
    assert!(wait(ws, WAIT_NS));
    assert!(is_ready(hibari_wait_set_timer_is_ready, ws, index));
    assert_eq!(
        ticks.load(std::sync::atomic::Ordering::SeqCst),
        0,
        "wait runs nothing"
    );
    // SAFETY: a valid out-pointer.
    ok(unsafe { hibari_timer_call(t, &mut called) });
    assert!(called);
    assert_eq!(ticks.load(std::sync::atomic::Ordering::SeqCst), 1);
    ok(hibari_wait_set_destroy(ws));
    ok(hibari_context_destroy(ctx));
}

#[test]
fn a_shutdown_of_its_context_ends_a_sleeping_wait_with_shutdown() {
    let ctx = isolated(&[]);
    let ws = wait_set(ctx);
    let mut index = 0;
    // SAFETY: a valid out-pointer.
    ok(unsafe { hibari_wait_set_add_guard_condition(ws, standalone_guard(), &mut index) });
    let stopper = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(20));
        ok(hibari_context_shutdown(ctx));
    });
    let mut ready = true;
    // SAFETY: a valid out-pointer.
    let r = unsafe { hibari_wait_set_wait(ws, -1, &mut ready) };
    stopper.join().unwrap();
    assert_eq!(r, hibari_ret_t::HIBARI_ERROR_SHUTDOWN, "{}", last_error());
    ok(hibari_wait_set_destroy(ws));
    ok(hibari_context_destroy(ctx));
}

//! Timers, guard conditions, executors, logging.

use super::*;
use hibari_testkit::{cancel_and_join, with_timeout};
use std::sync::atomic::{AtomicUsize, Ordering};

unsafe extern "C" fn tick(user: *mut c_void) {
    // SAFETY: `user` is the test's counter, alive while the timer is.
    unsafe { &*user.cast::<AtomicUsize>() }.fetch_add(1, Ordering::SeqCst);
}

#[test]
fn a_timer_calls_back_every_period_until_canceled() {
    with_timeout(WAIT, "timer", || {
        let ctx = isolated(&[]);
        let n = node(ctx, "timed");
        let ticks = Arc::new(AtomicUsize::new(0));
        let mut t = hibari_timer_t::default();
        // SAFETY: a valid callback and out-pointer; `ticks` outlives the timer.
        ok(unsafe {
            hibari_timer_create(
                n,
                1_000_000,
                Some(tick),
                Arc::as_ptr(&ticks).cast_mut().cast(),
                &mut t,
            )
        });
        let e = executor_with(n);
        while ticks.load(Ordering::SeqCst) < 3 {
            // SAFETY: NULL is allowed for did_work_out.
            ok(unsafe { hibari_executor_spin_once(e, WAIT_NS, null_mut()) });
        }
        ok(hibari_timer_cancel(t));
        let mut canceled = false;
        // SAFETY: a valid out-pointer.
        ok(unsafe { hibari_timer_is_canceled(t, &mut canceled) });
        assert!(canceled);
        let mut did = true;
        // SAFETY: a valid out-pointer.
        ok(unsafe { hibari_executor_spin_once(e, 20_000_000, &mut did) });
        assert!(!did, "a canceled timer does not fire");
        // SAFETY: zero is not a period.
        let ret = unsafe { hibari_timer_create(n, 0, Some(tick), null_mut(), &mut t) };
        assert_eq!(ret, hibari_ret_t::HIBARI_ERROR_INVALID_ARGUMENT);
        ok(hibari_executor_destroy(e));
        ok(hibari_context_destroy(ctx));
    });
}

#[test]
fn a_guard_condition_triggered_from_another_thread_runs_its_callback() {
    let ctx = isolated(&[]);
    let n = node(ctx, "guarded");
    let runs = Arc::new(AtomicUsize::new(0));
    let mut g = hibari_guard_condition_t::default();
    // SAFETY: a valid callback and out-pointer; `runs` outlives it.
    ok(unsafe {
        hibari_guard_condition_create(n, Some(tick), Arc::as_ptr(&runs).cast_mut().cast(), &mut g)
    });
    let e = executor_with(n);
    std::thread::spawn(move || ok(hibari_guard_condition_trigger(g)))
        .join()
        .unwrap();
    let mut did = false;
    // SAFETY: a valid out-pointer.
    ok(unsafe { hibari_executor_spin_once(e, WAIT_NS, &mut did) });
    assert!(did);
    assert_eq!(runs.load(Ordering::SeqCst), 1);
    ok(hibari_executor_destroy(e));
    ok(hibari_context_destroy(ctx));
}

#[test]
fn spin_returns_on_cancel_from_another_thread_and_on_shutdown() {
    let ctx = isolated(&[]);
    let n = node(ctx, "spinner");
    let e = executor_with(n);
    let spinner = std::thread::spawn(move || ok(hibari_executor_spin(e)));
    cancel_and_join(spinner, WAIT, "spin after cancel", || {
        ok(hibari_executor_cancel(e))
    })
    .unwrap();
    let spinner = std::thread::spawn(move || ok(hibari_executor_spin(e)));
    ok(hibari_context_shutdown(ctx));
    hibari_testkit::join_within(spinner, WAIT, "spin after shutdown").unwrap();
    let mut alive = true;
    // SAFETY: a valid out-pointer.
    ok(unsafe { hibari_context_ok(ctx, &mut alive) });
    assert!(!alive);
    let mut other = hibari_node_t::default();
    // SAFETY: a valid string and out-pointer.
    let ret = unsafe { hibari_node_create(ctx, c("late").as_ptr(), null(), &mut other) };
    assert_eq!(ret, hibari_ret_t::HIBARI_ERROR_SHUTDOWN);
    ok(hibari_executor_destroy(e));
    ok(hibari_context_destroy(ctx));
}

/// Destroys the subscription whose handle is at `user`, from its own callback.
unsafe extern "C" fn destroy_self(
    _: *const u8,
    _: usize,
    _: *const hibari_sample_info_t,
    user: *mut c_void,
) {
    // SAFETY: `user` is the test's handle cell, alive through the test.
    let cell = unsafe { &*user.cast::<Mutex<(hibari_subscription_t, usize)>>() };
    let mut cell = cell.lock().unwrap();
    cell.1 += 1;
    ok(hibari_subscription_destroy(cell.0));
}

#[test]
fn a_callback_may_destroy_its_own_subscription_and_is_not_called_again() {
    let ctx = isolated(&[]);
    let n = node(ctx, "self_destroying");
    let cell = Arc::new(Mutex::new((hibari_subscription_t::default(), 0usize)));
    let user = Arc::as_ptr(&cell).cast_mut().cast();
    let mut s = hibari_subscription_t::default();
    let ty = c("std_msgs/msg/String");
    // SAFETY: valid strings, callback and out-pointer; `cell` outlives it.
    ok(unsafe {
        hibari_subscription_create(
            n,
            c("once").as_ptr(),
            ty.as_ptr(),
            null(),
            Some(destroy_self),
            user,
            &mut s,
        )
    });
    cell.lock().unwrap().0 = s;
    let mut p = hibari_publisher_t::default();
    // SAFETY: valid strings and out-pointer.
    ok(unsafe { hibari_publisher_create(n, c("once").as_ptr(), ty.as_ptr(), null(), &mut p) });
    let bytes = string_cdr("x");
    let e = executor_with(n);
    // SAFETY: `bytes` is readable; NULL did_work_out is allowed.
    unsafe {
        ok(hibari_publisher_publish(p, bytes.as_ptr(), bytes.len()));
        ok(hibari_publisher_publish(p, bytes.as_ptr(), bytes.len()));
        ok(hibari_executor_spin_once(e, WAIT_NS, null_mut()));
        ok(hibari_executor_spin_once(e, 20_000_000, null_mut()));
    }
    assert_eq!(cell.lock().unwrap().1, 1);
    assert_eq!(
        hibari_subscription_destroy(s),
        hibari_ret_t::HIBARI_ERROR_INVALID_HANDLE
    );
    ok(hibari_executor_destroy(e));
    ok(hibari_context_destroy(ctx));
}

#[test]
fn a_multi_threaded_executor_counts_the_callbacks_it_ran() {
    let ctx = isolated(&[]);
    let n = node(ctx, "multi");
    let runs = Arc::new(AtomicUsize::new(0));
    let mut g = hibari_guard_condition_t::default();
    let mut e = hibari_executor_t::default();
    // SAFETY: valid callback and out-pointers; `runs` outlives them.
    unsafe {
        ok(hibari_guard_condition_create(
            n,
            Some(tick),
            Arc::as_ptr(&runs).cast_mut().cast(),
            &mut g,
        ));
        ok(hibari_executor_create_multi(2, &mut e));
    }
    ok(hibari_executor_add_node(e, n));
    ok(hibari_guard_condition_trigger(g));
    let mut did = false;
    // SAFETY: a valid out-pointer.
    ok(unsafe { hibari_executor_spin_once(e, WAIT_NS, &mut did) });
    assert!(did);
    assert_eq!(runs.load(Ordering::SeqCst), 1);
    ok(hibari_executor_destroy(e));
    ok(hibari_context_destroy(ctx));
}

#[test]
fn the_node_logger_filters_by_level() {
    let ctx = isolated(&[]);
    let n = node(ctx, "logger");
    let mut enabled = true;
    // SAFETY: valid strings and out-pointers.
    unsafe {
        ok(hibari_logger_is_enabled_for(
            n,
            HIBARI_LOG_DEBUG,
            &mut enabled,
        ));
        assert!(!enabled, "DEBUG is below the default INFO");
        ok(hibari_logger_set_level(n, HIBARI_LOG_DEBUG));
        ok(hibari_logger_is_enabled_for(
            n,
            HIBARI_LOG_DEBUG,
            &mut enabled,
        ));
        assert!(enabled);
        ok(hibari_log(
            n,
            HIBARI_LOG_INFO,
            c("test.c").as_ptr(),
            7,
            null(),
            c("hello from C").as_ptr(),
        ));
        assert_eq!(
            hibari_log(n, 33, null(), 0, null(), c("x").as_ptr()),
            hibari_ret_t::HIBARI_ERROR_INVALID_ARGUMENT
        );
    }
    ok(hibari_context_destroy(ctx));
}

/// Spins a new executor of a new node of `ctx` on a thread; returns once
/// the spin runs (a guard condition's callback ran in it).
fn spinning(ctx: hibari_context_t, name: &str) -> (hibari_executor_t, std::thread::JoinHandle<()>) {
    let n = node(ctx, name);
    let runs = Box::leak(Box::new(AtomicUsize::new(0)));
    let mut g = hibari_guard_condition_t::default();
    let user: *mut AtomicUsize = runs;
    // SAFETY: a valid callback and out-pointer; the counter is leaked: it
    // outlives the guard condition.
    ok(unsafe { hibari_guard_condition_create(n, Some(tick), user.cast(), &mut g) });
    let e = executor_with(n);
    let spinner = std::thread::spawn(move || ok(hibari_executor_spin(e)));
    ok(hibari_guard_condition_trigger(g));
    let deadline = std::time::Instant::now() + WAIT;
    while runs.load(Ordering::SeqCst) == 0 {
        assert!(
            std::time::Instant::now() < deadline,
            "the spin did not start"
        );
        std::thread::sleep(Duration::from_millis(1));
    }
    (e, spinner)
}

#[test]
fn spin_returns_when_its_executor_or_the_context_of_its_node_is_destroyed() {
    let ctx = isolated(&[]);
    let (e, spinner) = spinning(ctx, "doomed");
    ok(hibari_executor_destroy(e));
    hibari_testkit::join_within(spinner, WAIT, "spin after its executor's destruction").unwrap();

    let (e, spinner) = spinning(ctx, "orphan");
    ok(hibari_context_destroy(ctx));
    hibari_testkit::join_within(spinner, WAIT, "spin after its context's destruction").unwrap();
    ok(hibari_executor_destroy(e));
}

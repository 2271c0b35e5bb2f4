//! Callback groups: whose entities may join one, how long a handle lives,
//! and what a reentrant group lets a multi-threaded executor do.

use super::*;
use hibari_ret_t::*;
use std::sync::atomic::{AtomicUsize, Ordering};

const ADD: &str = "example_interfaces/srv/AddTwoInts";

fn group(n: hibari_node_t, t: hibari_callback_group_type_t) -> hibari_callback_group_t {
    let mut g = hibari_callback_group_t::default();
    // SAFETY: a valid out-pointer.
    ok(unsafe { hibari_callback_group_create(n, t, &mut g) });
    g
}

unsafe extern "C" fn nothing(_: *mut c_void) {}

unsafe extern "C" fn no_sample(
    _: *const u8,
    _: usize,
    _: *const hibari_sample_info_t,
    _: *mut c_void,
) {
}

unsafe extern "C" fn no_answer(_: *const u8, _: usize, _: *mut hibari_response_t, _: *mut c_void) {}

/// Creates one entity of each kind of `n` in `g`: each kind's code and
/// message. (What is created goes with its node.)
fn create_each_in(
    n: hibari_node_t,
    g: hibari_callback_group_t,
) -> Vec<(&'static str, hibari_ret_t, String)> {
    let (topic, ty, srv) = (c("grouped"), c("std_msgs/msg/String"), c(ADD));
    let mut s = hibari_subscription_t::default();
    let mut v = hibari_service_t::default();
    let mut k = hibari_client_t::default();
    let mut t = hibari_timer_t::default();
    let mut gc = hibari_guard_condition_t::default();
    let mut out = Vec::new();
    let mut record = |what, ret| out.push((what, ret, last_error()));
    // SAFETY: valid strings, callbacks and out-pointers; the callbacks use
    // no user data.
    unsafe {
        let sub = hibari_subscription_create_in_group(
            n,
            g,
            topic.as_ptr(),
            ty.as_ptr(),
            null(),
            Some(no_sample),
            null_mut(),
            &mut s,
        );
        record("subscription", sub);
        let service = hibari_service_create_in_group(
            n,
            g,
            topic.as_ptr(),
            srv.as_ptr(),
            null(),
            Some(no_answer),
            null_mut(),
            &mut v,
        );
        record("service", service);
        let client =
            hibari_client_create_in_group(n, g, topic.as_ptr(), srv.as_ptr(), null(), &mut k);
        record("client", client);
        let timer =
            hibari_timer_create_in_group(n, g, 1_000_000_000, Some(nothing), null_mut(), &mut t);
        record("timer", timer);
        let guard =
            hibari_guard_condition_create_in_group(n, g, Some(nothing), null_mut(), &mut gc);
        record("guard condition", guard);
    }
    out
}

#[test]
fn an_entity_is_refused_a_group_of_another_node_and_accepted_in_one_of_its_own() {
    let ctx = isolated(&[]);
    let (a, b) = (node(ctx, "owner"), node(ctx, "stranger"));
    let g = group(a, HIBARI_CALLBACK_GROUP_REENTRANT);
    for (what, ret, message) in create_each_in(b, g) {
        assert_eq!(ret, HIBARI_ERROR_INVALID_ARGUMENT, "{what}: {message}");
        assert!(
            message.contains(&format!(
                "the callback group {} belongs to node /owner (handle {}), not to node /stranger (handle {})",
                g.id, a.id, b.id
            )),
            "{what}: {message}"
        );
    }
    for (what, ret, message) in create_each_in(a, g) {
        assert_eq!(ret, HIBARI_OK, "{what}: {message}");
    }
    let exclusive = group(a, HIBARI_CALLBACK_GROUP_MUTUALLY_EXCLUSIVE);
    for (what, ret, message) in create_each_in(a, exclusive) {
        assert_eq!(ret, HIBARI_OK, "{what}: {message}");
    }
    let mut other = hibari_callback_group_t::default();
    // SAFETY: a valid out-pointer; 7 is no group type, NULL no out-pointer.
    unsafe {
        assert_eq!(
            hibari_callback_group_create(a, 7, &mut other),
            HIBARI_ERROR_INVALID_ARGUMENT
        );
        assert!(last_error().contains("group_type is 7"), "{}", last_error());
        assert_eq!(other.id, 0, "nothing is written on failure");
        assert_eq!(
            hibari_callback_group_create(a, HIBARI_CALLBACK_GROUP_REENTRANT, null_mut()),
            HIBARI_ERROR_INVALID_ARGUMENT
        );
    }
    ok(hibari_context_destroy(ctx));
}

#[test]
fn a_destroyed_group_is_refused_while_the_entities_created_in_it_keep_running() {
    let ctx = isolated(&[]);
    let n = node(ctx, "grouped");
    let g = group(n, HIBARI_CALLBACK_GROUP_MUTUALLY_EXCLUSIVE);
    let ticks = Arc::new(AtomicUsize::new(0));
    let mut t = hibari_timer_t::default();
    // SAFETY: a valid callback and out-pointer; `ticks` outlives the timer
    // (the context, and with it the timer, is destroyed first).
    ok(unsafe {
        hibari_timer_create_in_group(
            n,
            g,
            1_000_000,
            Some(tick),
            Arc::as_ptr(&ticks).cast_mut().cast(),
            &mut t,
        )
    });
    ok(hibari_callback_group_destroy(g));
    for (what, ret, message) in create_each_in(n, g) {
        assert_eq!(ret, HIBARI_ERROR_INVALID_HANDLE, "{what}: {message}");
        assert!(
            message.contains(&format!("the callback group handle {} is not valid", g.id)),
            "{what}: {message}"
        );
    }
    assert_eq!(
        hibari_callback_group_destroy(g),
        HIBARI_ERROR_INVALID_HANDLE
    );
    for (what, ret, message) in create_each_in(n, hibari_callback_group_t::default()) {
        assert_eq!(ret, HIBARI_ERROR_INVALID_HANDLE, "{what}: {message}");
        assert!(message.contains("never created"), "{what}: {message}");
    }
    let e = executor_with(n);
    let deadline = std::time::Instant::now() + WAIT;
    while ticks.load(Ordering::SeqCst) < 2 {
        assert!(std::time::Instant::now() < deadline, "the timer stopped");
        // SAFETY: NULL is allowed for did_work_out.
        ok(unsafe { hibari_executor_spin_once(e, 100_000_000, null_mut()) });
    }
    ok(hibari_executor_destroy(e));
    ok(hibari_context_destroy(ctx));
}

unsafe extern "C" fn tick(user: *mut c_void) {
    // SAFETY: `user` is the test's counter, alive while the timer is.
    unsafe { &*user.cast::<AtomicUsize>() }.fetch_add(1, Ordering::SeqCst);
}

#[test]
fn destroying_a_node_destroys_its_groups() {
    let ctx = isolated(&[]);
    let (a, b) = (node(ctx, "doomed"), node(ctx, "survivor"));
    let g = group(a, HIBARI_CALLBACK_GROUP_REENTRANT);
    let kept = group(b, HIBARI_CALLBACK_GROUP_REENTRANT);
    ok(hibari_node_destroy(a));
    assert_eq!(
        hibari_callback_group_destroy(g),
        HIBARI_ERROR_INVALID_HANDLE
    );
    assert!(
        last_error().contains("destroyed (or what it belonged to was)"),
        "{}",
        last_error()
    );
    for (what, ret, message) in create_each_in(b, g) {
        assert_eq!(ret, HIBARI_ERROR_INVALID_HANDLE, "{what}: {message}");
    }
    // A handle of another kind is no group either.
    let not_a_group = hibari_callback_group_t { id: b.id };
    for (what, ret, message) in create_each_in(b, not_a_group) {
        assert_eq!(ret, HIBARI_ERROR_INVALID_HANDLE, "{what}: {message}");
        assert!(
            message.contains("is a node, not a callback group"),
            "{what}: {message}"
        );
    }
    ok(hibari_callback_group_destroy(kept));
    ok(hibari_context_destroy(ctx));
}

/// Timer callbacks sharing a group: how many run at once, at most.
#[derive(Default)]
struct Overlap {
    running: AtomicUsize,
    most: AtomicUsize,
    runs: AtomicUsize,
}

/// One timer's view: the group's [`Overlap`], and its own.
#[derive(Default)]
struct Probe {
    group: Arc<Overlap>,
    own: Overlap,
}

impl Overlap {
    fn enter(&self) {
        let now = self.running.fetch_add(1, Ordering::SeqCst) + 1;
        self.most.fetch_max(now, Ordering::SeqCst);
    }

    fn leave(&self) {
        self.running.fetch_sub(1, Ordering::SeqCst);
        self.runs.fetch_add(1, Ordering::SeqCst);
    }
}

unsafe extern "C" fn slow_tick(user: *mut c_void) {
    // SAFETY: `user` is the test's probe, alive while the timer is.
    let probe = unsafe { &*user.cast::<Probe>() };
    probe.group.enter();
    probe.own.enter();
    std::thread::sleep(Duration::from_millis(20));
    probe.own.leave();
    probe.group.leave();
}

unsafe extern "C" fn overlapped(user: *mut c_void) -> bool {
    // SAFETY: `user` is the test's Overlap, alive through the spin.
    unsafe { &*user.cast::<Overlap>() }
        .most
        .load(Ordering::SeqCst)
        >= 2
}

unsafe extern "C" fn ran_20(user: *mut c_void) -> bool {
    // SAFETY: `user` is the test's Overlap, alive through the spin.
    unsafe { &*user.cast::<Overlap>() }
        .runs
        .load(Ordering::SeqCst)
        >= 20
}

/// Two 2 ms timers whose callbacks take 20 ms, in one group of type `t`,
/// on a 2-thread executor spun until `done` (at most WAIT); what the
/// group saw, and each timer's own.
fn two_slow_timers(
    t: hibari_callback_group_type_t,
    done: unsafe extern "C" fn(*mut c_void) -> bool,
) -> (bool, Arc<Overlap>, [Arc<Probe>; 2]) {
    let ctx = isolated(&[]);
    let n = node(ctx, "slow_timers");
    let g = group(n, t);
    let shared = Arc::new(Overlap::default());
    let probes = [(); 2].map(|_| {
        Arc::new(Probe {
            group: shared.clone(),
            own: Overlap::default(),
        })
    });
    let mut e = hibari_executor_t::default();
    let mut finished = false;
    // SAFETY: valid callbacks and out-pointers; the probes and `shared`
    // outlive the timers and the spin (the context is destroyed first).
    unsafe {
        for p in &probes {
            let mut timer = hibari_timer_t::default();
            let user = Arc::as_ptr(p).cast_mut().cast();
            ok(hibari_timer_create_in_group(
                n,
                g,
                2_000_000,
                Some(slow_tick),
                user,
                &mut timer,
            ));
        }
        ok(hibari_executor_create_multi(2, &mut e));
        ok(hibari_executor_add_node(e, n));
        let user = Arc::as_ptr(&shared).cast_mut().cast();
        ok(hibari_executor_spin_until(
            e,
            Some(done),
            user,
            WAIT_NS,
            &mut finished,
        ));
    }
    ok(hibari_executor_destroy(e));
    ok(hibari_context_destroy(ctx));
    (finished, shared, probes)
}

#[test]
fn two_timers_of_a_reentrant_group_run_at_once_on_a_multi_threaded_executor() {
    let (overlapped, seen, probes) = two_slow_timers(HIBARI_CALLBACK_GROUP_REENTRANT, overlapped);
    assert!(
        overlapped,
        "never 2 at once in {} runs",
        seen.runs.load(Ordering::SeqCst)
    );
    for p in &probes {
        assert_eq!(
            p.own.most.load(Ordering::SeqCst),
            1,
            "a timer overlapped itself"
        );
    }
}

#[test]
fn two_timers_of_a_mutually_exclusive_group_never_run_at_once() {
    let (ran, seen, probes) = two_slow_timers(HIBARI_CALLBACK_GROUP_MUTUALLY_EXCLUSIVE, ran_20);
    assert!(ran, "20 runs did not come");
    assert_eq!(seen.most.load(Ordering::SeqCst), 1, "two ran at once");
    for p in &probes {
        assert!(p.own.runs.load(Ordering::SeqCst) > 0, "one timer never ran");
    }
}

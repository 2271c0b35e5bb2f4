//! Values of the caller's types handed over in this process
//! (`hibari_publisher_publish_value`, `hibari_subscription_create_with_values`).

use std::sync::atomic::{AtomicUsize, Ordering};

use super::topics::{publisher, subscription};
use super::*;
use hibari_testkit::{unique_topic, with_timeout, TestDomain};

/// The caller's "type": a text, encoded as `std_msgs/msg/String`, that
/// counts its frees.
struct Text {
    text: String,
    drops: Arc<AtomicUsize>,
}

unsafe extern "C" fn text_len(v: *const c_void) -> usize {
    // SAFETY: the tests publish `Text`s with these ops.
    let t = unsafe { &*v.cast::<Text>() };
    if t.text == "unencodable" {
        return 0;
    }
    string_cdr(&t.text).len()
}

unsafe extern "C" fn text_encode(v: *const c_void, out: *mut u8, len: usize) -> bool {
    // SAFETY: as above; `out` has `len` writable bytes.
    let t = unsafe { &*v.cast::<Text>() };
    let bytes = string_cdr(&t.text);
    if bytes.len() != len {
        return false;
    }
    // SAFETY: as above.
    unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), out, len) };
    true
}

unsafe extern "C" fn text_drop(v: *mut c_void) {
    // SAFETY: a `Box<Text>` leaked by `text`, freed once (counted).
    let t = unsafe { Box::from_raw(v.cast::<Text>()) };
    t.drops.fetch_add(1, Ordering::SeqCst);
}

unsafe extern "C" fn text_move_into(dst: *mut c_void, src: *mut c_void) -> bool {
    // SAFETY: `src` a `Text` of the test's; `dst` storage for one (the
    // ops' size and alignment), uninitialized.
    let src = unsafe { &mut *src.cast::<Text>() };
    if src.text == "unmovable" {
        return false;
    }
    let moved = Text {
        text: std::mem::take(&mut src.text),
        drops: src.drops.clone(),
    };
    // SAFETY: as above.
    unsafe { dst.cast::<Text>().write(moved) };
    true
}

unsafe extern "C" fn text_destroy(v: *mut c_void) {
    // SAFETY: a `Text` that `text_move_into` constructed, ended once (counted).
    let t = unsafe { &*v.cast::<Text>() };
    t.drops.fetch_add(1, Ordering::SeqCst);
    // SAFETY: as above; its memory is not freed here.
    unsafe { std::ptr::drop_in_place(v.cast::<Text>()) };
}

static TEXT_OPS: hibari_value_ops_t = hibari_value_ops_t {
    type_tag: &TEXT_OPS as *const hibari_value_ops_t as *const c_void,
    encoded_len: Some(text_len),
    encode: Some(text_encode),
    drop: Some(text_drop),
    size: std::mem::size_of::<Text>(),
    align: std::mem::align_of::<Text>(),
    move_into: Some(text_move_into),
    destroy: Some(text_destroy),
};

fn text(s: &str, drops: &Arc<AtomicUsize>) -> *mut c_void {
    Box::into_raw(Box::new(Text {
        text: s.into(),
        drops: drops.clone(),
    }))
    .cast()
}

/// What a subscription with values saw: the objects' addresses and texts,
/// and the texts of the samples that came as bytes.
#[derive(Default)]
struct Got {
    values: Mutex<Vec<(usize, String)>>,
    bytes: Mutex<Vec<String>>,
}

unsafe extern "C" fn got_value(
    v: *const c_void,
    _: *const hibari_sample_info_t,
    user: *mut c_void,
) {
    // SAFETY: `user` is the test's `Got`; `v` a `Text` alive for the call.
    let (got, t) = unsafe { (&*user.cast::<Got>(), &*v.cast::<Text>()) };
    got.values
        .lock()
        .unwrap()
        .push((v as usize, t.text.clone()));
}

unsafe extern "C" fn got_bytes(
    cdr: *const u8,
    len: usize,
    _: *const hibari_sample_info_t,
    user: *mut c_void,
) {
    // SAFETY: `user` is the test's `Got`; `len` bytes at `cdr`.
    let (got, bytes) = unsafe { (&*user.cast::<Got>(), std::slice::from_raw_parts(cdr, len)) };
    got.bytes.lock().unwrap().push(string_of(bytes));
}

fn with_values(
    n: hibari_node_t,
    topic: &str,
    tag: *const c_void,
    got: &Arc<Got>,
) -> hibari_subscription_t {
    let mut s = hibari_subscription_t::default();
    // SAFETY: valid strings and out-pointer; `got` outlives the subscription.
    ok(unsafe {
        hibari_subscription_create_with_values(
            n,
            hibari_callback_group_t::default(),
            c(topic).as_ptr(),
            c("std_msgs/msg/String").as_ptr(),
            null(),
            Some(got_bytes),
            tag,
            Some(got_value),
            Arc::as_ptr(got).cast_mut().cast(),
            &mut s,
        )
    });
    s
}

fn spin_until(executor: hibari_executor_t, done: impl Fn() -> bool) {
    let deadline = std::time::Instant::now() + WAIT;
    while !done() {
        assert!(std::time::Instant::now() < deadline, "timed out");
        // SAFETY: NULL is allowed.
        ok(unsafe { hibari_executor_spin_once(executor, 100_000_000, null_mut()) });
    }
}

#[test]
fn a_value_reaches_subscriptions_of_its_tag_as_itself_and_the_others_as_cdr_then_is_freed_once() {
    let ctx = isolated(&[]);
    let n = node(ctx, "values");
    let (same, other, seen) = (
        Arc::new(Got::default()),
        Arc::new(Got::default()),
        Arc::new(Seen::default()),
    );
    let _a = with_values(n, "handover", TEXT_OPS.type_tag, &same);
    let _b = with_values(n, "handover", c"another type".as_ptr().cast(), &other);
    let _c = subscription(n, "handover", Some(&seen));
    let p = publisher(n, "handover");
    let drops = Arc::new(AtomicUsize::new(0));
    let value = text("in place", &drops);
    // SAFETY: a `Text` with its ops.
    ok(unsafe { hibari_publisher_publish_value(p, value, &TEXT_OPS) });
    let executor = executor_with(n);
    spin_until(executor, || {
        !same.values.lock().unwrap().is_empty()
            && !other.bytes.lock().unwrap().is_empty()
            && seen.count() == 1
    });
    assert_eq!(
        *same.values.lock().unwrap(),
        [(value as usize, "in place".to_string())]
    );
    assert!(same.bytes.lock().unwrap().is_empty());
    assert!(other.values.lock().unwrap().is_empty());
    assert_eq!(*other.bytes.lock().unwrap(), ["in place"]);
    assert_eq!(string_of(&seen.messages.lock().unwrap()[0]), "in place");
    assert_eq!(
        drops.load(Ordering::SeqCst),
        1,
        "freed once all three are done"
    );
    // Bytes published to a subscription with values reach its byte callback.
    let bytes = string_cdr("as bytes");
    // SAFETY: readable bytes.
    ok(unsafe { hibari_publisher_publish(p, bytes.as_ptr(), bytes.len()) });
    spin_until(executor, || same.bytes.lock().unwrap().len() == 1);
    assert_eq!(*same.bytes.lock().unwrap(), ["as bytes"]);
    ok(hibari_executor_destroy(executor));
    ok(hibari_context_destroy(ctx));
}

#[test]
fn a_value_reaches_another_context_of_the_domain_in_this_process_as_itself() {
    let domain = TestDomain::reserve();
    let topic = unique_topic("c_values");
    with_timeout(WAIT, "a value across contexts", move || {
        let (a, b) = (in_domain(&domain), in_domain(&domain));
        let got = Arc::new(Got::default());
        let listener = node(b, "listener");
        let _s = with_values(listener, &topic, TEXT_OPS.type_tag, &got);
        let p = publisher(node(a, "talker"), &topic);
        let mut matched = false;
        // SAFETY: a valid out-pointer.
        ok(unsafe { hibari_publisher_wait_for_subscriptions(p, 1, WAIT_NS, &mut matched) });
        assert!(matched);
        let drops = Arc::new(AtomicUsize::new(0));
        // SAFETY: a `Text` with its ops.
        ok(unsafe { hibari_publisher_publish_value(p, text("across", &drops), &TEXT_OPS) });
        let executor = executor_with(listener);
        spin_until(executor, || got.values.lock().unwrap().len() == 1);
        assert_eq!(got.values.lock().unwrap()[0].1, "across");
        assert!(got.bytes.lock().unwrap().is_empty(), "nothing was encoded");
        ok(hibari_executor_destroy(executor));
        ok(hibari_context_destroy(a));
        ok(hibari_context_destroy(b));
        assert_eq!(drops.load(Ordering::SeqCst), 1);
        drop(domain);
    });
}

#[test]
fn bad_values_are_refused_and_freed_exactly_when_hibari_took_them() {
    let ctx = isolated(&[]);
    let n = node(ctx, "bad_values");
    let p = publisher(n, "bad_values");
    let drops = Arc::new(AtomicUsize::new(0));
    let value = text("kept", &drops);
    let no_drop = hibari_value_ops_t {
        drop: None,
        ..TEXT_OPS
    };
    // SAFETY: NULLs and incomplete ops are refused before anything is read
    // through them; the value stays ours.
    unsafe {
        let r = hibari_publisher_publish_value(p, null_mut(), &TEXT_OPS);
        assert_eq!(r, hibari_ret_t::HIBARI_ERROR_INVALID_ARGUMENT);
        let r = hibari_publisher_publish_value(p, value, null());
        assert_eq!(r, hibari_ret_t::HIBARI_ERROR_INVALID_ARGUMENT);
        let r = hibari_publisher_publish_value(p, value, &no_drop);
        assert_eq!(r, hibari_ret_t::HIBARI_ERROR_INVALID_ARGUMENT);
    }
    assert_eq!(drops.load(Ordering::SeqCst), 0);
    // A destroyed publisher: hibari took the value, and frees it.
    ok(hibari_publisher_destroy(p));
    // SAFETY: a `Text` with its ops.
    let r = unsafe { hibari_publisher_publish_value(p, value, &TEXT_OPS) };
    assert_eq!(r, hibari_ret_t::HIBARI_ERROR_INVALID_HANDLE);
    assert_eq!(drops.load(Ordering::SeqCst), 1);
    // A value that cannot encode reaches the subscriptions of its tag, not
    // the byte ones (nothing to give them), and is freed.
    let (got, seen) = (Arc::new(Got::default()), Arc::new(Seen::default()));
    let _g = with_values(n, "unencodable", TEXT_OPS.type_tag, &got);
    let _s = subscription(n, "unencodable", Some(&seen));
    let p = publisher(n, "unencodable");
    // SAFETY: a `Text` with its ops.
    ok(unsafe { hibari_publisher_publish_value(p, text("unencodable", &drops), &TEXT_OPS) });
    let executor = executor_with(n);
    spin_until(executor, || got.values.lock().unwrap().len() == 1);
    let mut executed = 0;
    // SAFETY: a valid out-pointer.
    ok(unsafe { hibari_executor_spin_some(executor, &mut executed) });
    assert_eq!(seen.count(), 0);
    assert_eq!(drops.load(Ordering::SeqCst), 2);
    // A subscription with values needs both callbacks.
    let mut s = hibari_subscription_t::default();
    // SAFETY: valid strings and out-pointer.
    let r = unsafe {
        hibari_subscription_create_with_values(
            n,
            hibari_callback_group_t::default(),
            c("t").as_ptr(),
            c("std_msgs/msg/String").as_ptr(),
            null(),
            Some(got_bytes),
            TEXT_OPS.type_tag,
            None,
            null_mut(),
            &mut s,
        )
    };
    assert_eq!(r, hibari_ret_t::HIBARI_ERROR_INVALID_ARGUMENT);
    ok(hibari_executor_destroy(executor));
    ok(hibari_context_destroy(ctx));
}

#[test]
fn a_value_published_from_where_it_is_is_moved_into_the_sample_and_read_there() {
    let ctx = isolated(&[]);
    let n = node(ctx, "values_from");
    let (same, seen) = (Arc::new(Got::default()), Arc::new(Seen::default()));
    let _a = with_values(n, "from", TEXT_OPS.type_tag, &same);
    let _b = subscription(n, "from", Some(&seen));
    let p = publisher(n, "from");
    let drops = Arc::new(AtomicUsize::new(0));
    let mut local = Text {
        text: "moved in".into(),
        drops: drops.clone(),
    };
    let src: *mut c_void = (&mut local as *mut Text).cast();
    // SAFETY: a `Text` with its ops; it stays ours.
    ok(unsafe { hibari_publisher_publish_value_from(p, src, &TEXT_OPS) });
    assert_eq!(local.text, "", "moved from");
    let executor = executor_with(n);
    spin_until(executor, || {
        !same.values.lock().unwrap().is_empty() && seen.count() == 1
    });
    let (at, text) = same.values.lock().unwrap()[0].clone();
    assert_eq!(text, "moved in");
    assert_ne!(
        at, src as usize,
        "read in the sample's storage, not the caller's object"
    );
    assert_eq!(string_of(&seen.messages.lock().unwrap()[0]), "moved in");
    assert_eq!(drops.load(Ordering::SeqCst), 1, "ended once both are done");
    // Refused: NULL, ops without the move, a type too large, a move that
    // fails. The object stays the caller's, untouched, and nothing is sent.
    local.text = "unmovable".into();
    let no_move = hibari_value_ops_t {
        move_into: None,
        ..TEXT_OPS
    };
    let too_large = hibari_value_ops_t {
        size: HIBARI_VALUE_INLINE_SIZE + 1,
        ..TEXT_OPS
    };
    // SAFETY: NULLs and incomplete ops are refused before anything is read
    // through them; `src` is a `Text` with its ops.
    unsafe {
        let r = hibari_publisher_publish_value_from(p, null_mut(), &TEXT_OPS);
        assert_eq!(r, hibari_ret_t::HIBARI_ERROR_INVALID_ARGUMENT);
        let r = hibari_publisher_publish_value_from(p, src, &no_move);
        assert_eq!(r, hibari_ret_t::HIBARI_ERROR_INVALID_ARGUMENT);
        let r = hibari_publisher_publish_value_from(p, src, &too_large);
        assert_eq!(r, hibari_ret_t::HIBARI_ERROR_INVALID_ARGUMENT);
        let r = hibari_publisher_publish_value_from(p, src, &TEXT_OPS);
        assert_eq!(r, hibari_ret_t::HIBARI_ERROR);
    }
    assert_eq!(local.text, "unmovable");
    let mut executed = 0;
    // SAFETY: a valid out-pointer.
    ok(unsafe { hibari_executor_spin_some(executor, &mut executed) });
    assert_eq!(seen.count(), 1, "nothing more was sent");
    assert_eq!(
        drops.load(Ordering::SeqCst),
        1,
        "nothing constructed, nothing ended"
    );
    ok(hibari_executor_destroy(executor));
    ok(hibari_context_destroy(ctx));
}

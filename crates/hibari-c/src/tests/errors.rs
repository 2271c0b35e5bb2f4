//! Bad input gives the right code and a message, never a crash.

use super::*;
use hibari_ret_t::*;

#[test]
fn null_pointers_are_invalid_arguments_that_name_the_argument() {
    let ctx = isolated(&[]);
    // SAFETY: NULL pointers are what is tested; hibari checks them.
    unsafe {
        assert_eq!(
            hibari_node_create(ctx, null(), null(), null_mut()),
            HIBARI_ERROR_INVALID_ARGUMENT
        );
        assert!(last_error().contains("`out`"), "{}", last_error());
        let mut n = hibari_node_t::default();
        assert_eq!(
            hibari_node_create(ctx, null(), null(), &mut n),
            HIBARI_ERROR_INVALID_ARGUMENT
        );
        assert!(last_error().contains("`name` is NULL"), "{}", last_error());
        assert_eq!(n.id, 0, "nothing is written on failure");
        assert_eq!(
            hibari_context_ok(ctx, null_mut()),
            HIBARI_ERROR_INVALID_ARGUMENT
        );
        assert_eq!(
            hibari_publisher_publish(hibari_publisher_t::default(), null(), 3),
            HIBARI_ERROR_INVALID_ARGUMENT
        );
        assert_eq!(hibari_loan_send(null_mut()), HIBARI_ERROR_INVALID_ARGUMENT);
    }
    ok(hibari_context_destroy(ctx));
}

#[test]
fn a_string_that_is_not_utf8_is_an_invalid_argument() {
    let ctx = isolated(&[]);
    let bad = [0xff_u8, 0xfe, 0];
    let mut n = hibari_node_t::default();
    // SAFETY: a NUL-terminated (non-UTF-8) string and a valid out-pointer.
    let ret = unsafe { hibari_node_create(ctx, bad.as_ptr().cast(), null(), &mut n) };
    assert_eq!(ret, HIBARI_ERROR_INVALID_ARGUMENT);
    assert!(last_error().contains("not UTF-8"), "{}", last_error());
    ok(hibari_context_destroy(ctx));
}

#[test]
fn zero_and_destroyed_handles_are_invalid_and_destroying_twice_is_too() {
    assert_eq!(
        hibari_node_destroy(hibari_node_t::default()),
        HIBARI_ERROR_INVALID_HANDLE
    );
    assert!(last_error().contains("zero"), "{}", last_error());
    let ctx = isolated(&[]);
    let n = node(ctx, "twice");
    ok(hibari_node_destroy(n));
    assert_eq!(hibari_node_destroy(n), HIBARI_ERROR_INVALID_HANDLE);
    assert!(last_error().contains("destroyed"), "{}", last_error());
    let mut len = 0;
    // SAFETY: a valid out-pointer; the buffer is NULL with capacity 0.
    let ret = unsafe { hibari_node_get_name(n, null_mut(), 0, &mut len) };
    assert_eq!(ret, HIBARI_ERROR_INVALID_HANDLE);
    ok(hibari_context_destroy(ctx));
    assert_eq!(hibari_context_destroy(ctx), HIBARI_ERROR_INVALID_HANDLE);
}

#[test]
fn a_handle_of_another_kind_is_refused_by_name() {
    let ctx = isolated(&[]);
    let n = node(ctx, "kinds");
    let as_publisher = hibari_publisher_t { id: n.id };
    let mut count = 0;
    // SAFETY: a valid out-pointer.
    let ret = unsafe { hibari_publisher_get_subscription_count(as_publisher, &mut count) };
    assert_eq!(ret, HIBARI_ERROR_INVALID_HANDLE);
    assert!(
        last_error().contains("is a node, not a publisher"),
        "{}",
        last_error()
    );
    ok(hibari_context_destroy(ctx));
}

#[test]
fn an_unknown_type_name_is_unknown_type() {
    let ctx = isolated(&[]);
    let n = node(ctx, "types");
    let mut p = hibari_publisher_t::default();
    for name in ["no_such_pkg/msg/Nope", "std_msgs/msg/Nope", "not a type"] {
        // SAFETY: valid strings and out-pointer; NULL QoS is the default.
        let ret = unsafe {
            hibari_publisher_create(n, c("t").as_ptr(), c(name).as_ptr(), null(), &mut p)
        };
        assert_eq!(ret, HIBARI_ERROR_UNKNOWN_TYPE, "{name}");
        assert!(last_error().contains(name), "{}", last_error());
    }
    let mut client = hibari_client_t::default();
    // SAFETY: valid strings and out-pointer.
    let ret = unsafe {
        hibari_client_create(
            n,
            c("s").as_ptr(),
            c("std_msgs/msg/String").as_ptr(),
            null(),
            &mut client,
        )
    };
    assert_eq!(
        ret, HIBARI_ERROR_UNKNOWN_TYPE,
        "a message type is not a service type"
    );
    ok(hibari_context_destroy(ctx));
}

#[test]
fn a_name_longer_than_the_buffer_reports_the_length_it_needs() {
    let ctx = isolated(&[]);
    let n = node(ctx, "talker");
    let mut buf = [0 as c_char; 4];
    let mut len = 0;
    // SAFETY: `buf` has 4 writable bytes; `len` is writable.
    let ret = unsafe { hibari_node_get_name(n, buf.as_mut_ptr(), buf.len(), &mut len) };
    assert_eq!(ret, HIBARI_ERROR_BUFFER_TOO_SMALL);
    assert_eq!(len, "talker".len());
    let mut buf = [0 as c_char; 16];
    // SAFETY: as above, 16 bytes.
    ok(unsafe { hibari_node_get_fully_qualified_name(n, buf.as_mut_ptr(), buf.len(), &mut len) });
    // SAFETY: hibari wrote a NUL-terminated string.
    let name = unsafe { CStr::from_ptr(buf.as_ptr()) };
    assert_eq!(name.to_str().unwrap(), "/talker");
    ok(hibari_context_destroy(ctx));
}

#[test]
fn destroying_a_node_invalidates_the_handles_of_its_entities() {
    let ctx = isolated(&[]);
    let n = node(ctx, "owner");
    let mut p = hibari_publisher_t::default();
    // SAFETY: valid strings and out-pointer.
    ok(unsafe {
        hibari_publisher_create(
            n,
            c("t").as_ptr(),
            c("std_msgs/msg/String").as_ptr(),
            null(),
            &mut p,
        )
    });
    let bytes = string_cdr("late");
    // SAFETY: `bytes` is readable.
    let publish = |p| unsafe { hibari_publisher_publish(p, bytes.as_ptr(), bytes.len()) };
    // Published first, here and on another thread: both threads have
    // looked the handle up (and keep the lookup, handle_cache.rs); a loan
    // keeps the publisher itself alive past its handle.
    ok(publish(p));
    let mut lent = hibari_loan_t {
        id: 0,
        data: std::ptr::null_mut(),
        len: 0,
    };
    // SAFETY: `lent` is writable.
    ok(unsafe { hibari_publisher_loan(p, 8, &mut lent) });
    let (mut not_cdr, mut cdr) = (lent, lent);
    // SAFETY: as above.
    ok(unsafe { hibari_publisher_loan(p, 8, &mut not_cdr) });
    // SAFETY: as above.
    ok(unsafe { hibari_publisher_loan(p, bytes.len(), &mut cdr) });
    let publisher = std::sync::Arc::downgrade(&crate::publisher::publisher(p).unwrap());
    let (go, went) = std::sync::mpsc::channel::<()>();
    let (done, finished) = std::sync::mpsc::channel();
    std::thread::scope(|s| {
        // Dropped if an assertion fails: the thread then stops waiting.
        let go = go;
        let publish = &publish;
        s.spawn(move || {
            done.send(publish(p)).unwrap();
            went.recv().unwrap();
            done.send(publish(p)).unwrap();
        });
        assert_eq!(finished.recv().unwrap(), HIBARI_OK);
        ok(hibari_node_destroy(n));
        assert_eq!(publish(p), HIBARI_ERROR_INVALID_HANDLE);
        go.send(()).unwrap();
        assert_eq!(finished.recv().unwrap(), HIBARI_ERROR_INVALID_HANDLE);
    });
    assert_eq!(hibari_publisher_destroy(p), HIBARI_ERROR_INVALID_HANDLE);
    // The loans outlive the handle: each one goes back, sends, or is
    // refused as it would have before. The refused one is the publisher's
    // last owner, and the publisher is freed with it.
    // SAFETY: loans lent and not consumed; `data` points to `len` writable
    // bytes of each.
    unsafe {
        ok(hibari_loan_discard(&mut lent));
        cdr.data
            .copy_from_nonoverlapping(bytes.as_ptr(), bytes.len());
        ok(hibari_loan_send(&mut cdr));
        not_cdr.data.write_bytes(7, not_cdr.len);
        assert_eq!(
            hibari_loan_send(&mut not_cdr),
            HIBARI_ERROR_INVALID_ARGUMENT
        );
        assert!(last_error().contains("not CDR"), "{}", last_error());
    }
    assert!(publisher.upgrade().is_none(), "the last loan let it go");
    ok(hibari_context_destroy(ctx));
}

#[test]
fn qos_values_outside_their_names_and_non_cdr_bytes_are_refused() {
    let ctx = isolated(&[]);
    let n = node(ctx, "qos");
    let mut qos = hibari_qos_default();
    qos.reliability = 7;
    let mut p = hibari_publisher_t::default();
    // SAFETY: valid strings, QoS and out-pointer.
    let ret = unsafe {
        hibari_publisher_create(
            n,
            c("t").as_ptr(),
            c("std_msgs/msg/String").as_ptr(),
            &qos,
            &mut p,
        )
    };
    assert_eq!(ret, HIBARI_ERROR_INVALID_ARGUMENT);
    assert!(
        last_error().contains("qos.reliability is 7"),
        "{}",
        last_error()
    );
    // SAFETY: as above, the default QoS.
    ok(unsafe {
        hibari_publisher_create(
            n,
            c("t").as_ptr(),
            c("std_msgs/msg/String").as_ptr(),
            null(),
            &mut p,
        )
    });
    // SAFETY: 3 readable bytes.
    let ret = unsafe { hibari_publisher_publish(p, b"abc".as_ptr(), 3) };
    assert_eq!(ret, HIBARI_ERROR_INVALID_ARGUMENT);
    assert!(last_error().contains("not CDR"), "{}", last_error());
    assert_eq!(
        hibari_qos_sensor_data().reliability,
        HIBARI_RELIABILITY_BEST_EFFORT
    );
    ok(hibari_context_destroy(ctx));
}

#[test]
fn a_successful_call_clears_the_last_error() {
    assert_eq!(
        hibari_node_destroy(hibari_node_t::default()),
        HIBARI_ERROR_INVALID_HANDLE
    );
    assert!(!last_error().is_empty());
    let ctx = isolated(&[]);
    assert_eq!(last_error(), "");
    ok(hibari_context_destroy(ctx));
}

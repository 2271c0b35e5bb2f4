//! Publishers, subscriptions (callback and polled), loans, the graph.

use super::*;
use hibari_testkit::{unique_topic, with_timeout, TestDomain};

pub(super) fn publisher(n: hibari_node_t, topic: &str) -> hibari_publisher_t {
    let mut p = hibari_publisher_t::default();
    // SAFETY: valid strings and out-pointer; NULL QoS is the default.
    ok(unsafe {
        hibari_publisher_create(
            n,
            c(topic).as_ptr(),
            c("std_msgs/msg/String").as_ptr(),
            null(),
            &mut p,
        )
    });
    p
}

pub(super) fn subscription(
    n: hibari_node_t,
    topic: &str,
    seen: Option<&Arc<Seen>>,
) -> hibari_subscription_t {
    let mut s = hibari_subscription_t::default();
    let (callback, user): (hibari_subscription_callback_t, _) = match seen {
        Some(seen) => (Some(record), seen.user()),
        None => (None, null_mut()),
    };
    // SAFETY: valid strings and out-pointer; `user` is alive while `s` is.
    ok(unsafe {
        hibari_subscription_create(
            n,
            c(topic).as_ptr(),
            c("std_msgs/msg/String").as_ptr(),
            null(),
            callback,
            user,
            &mut s,
        )
    });
    s
}

pub(super) fn publish(p: hibari_publisher_t, text: &str) {
    let bytes = string_cdr(text);
    // SAFETY: `bytes` is readable.
    ok(unsafe { hibari_publisher_publish(p, bytes.as_ptr(), bytes.len()) });
}

#[test]
fn a_message_published_reaches_a_subscription_callback_of_another_context_in_the_domain() {
    let domain = TestDomain::reserve();
    let topic = unique_topic("c_pubsub");
    with_timeout(WAIT, "pub/sub round trip", move || {
        let (a, b) = (in_domain(&domain), in_domain(&domain));
        let seen = Arc::new(Seen::default());
        let listener = node(b, "listener");
        let sub = subscription(listener, &topic, Some(&seen));
        let p = publisher(node(a, "talker"), &topic);
        let mut matched = false;
        // SAFETY: a valid out-pointer.
        ok(unsafe { hibari_publisher_wait_for_subscriptions(p, 1, WAIT_NS, &mut matched) });
        assert!(matched);
        let executor = executor_with(listener);
        publish(p, "hello");
        publish(p, "again");
        spin_until_count(executor, &seen, 2);
        let texts: Vec<String> = seen
            .messages
            .lock()
            .unwrap()
            .iter()
            .map(|m| string_of(m))
            .collect();
        assert_eq!(texts, ["hello", "again"]);
        let infos = seen.infos.lock().unwrap().clone();
        assert_eq!(infos[1].sequence, infos[0].sequence + 1);
        assert!(infos[0].source_timestamp_ns > 0);
        ok(hibari_subscription_destroy(sub));
        ok(hibari_executor_destroy(executor));
        ok(hibari_context_destroy(a));
        ok(hibari_context_destroy(b));
        drop(domain);
    });
}

#[test]
fn a_subscription_is_taken_from_until_none_is_left() {
    let ctx = isolated(&[]);
    let n = node(ctx, "poller");
    let sub = subscription(n, "polled", None);
    let p = publisher(n, "polled");
    publish(p, "one");
    let mut sample = hibari_sample_t {
        id: 0,
        data: null(),
        len: 0,
        info: Default::default(),
    };
    let mut taken = false;
    // SAFETY: valid out-pointers.
    ok(unsafe { hibari_subscription_take(sub, &mut sample, &mut taken) });
    assert!(taken);
    // SAFETY: the sample's `len` bytes are valid until released.
    let bytes = unsafe { std::slice::from_raw_parts(sample.data, sample.len) };
    assert_eq!(string_of(bytes), "one");
    // SAFETY: a sample from take.
    ok(unsafe { hibari_sample_release(&mut sample) });
    assert_eq!(sample.id, 0, "a released sample is zeroed");
    // SAFETY: released twice: hibari refuses.
    let again = unsafe { hibari_sample_release(&mut sample) };
    assert_eq!(again, hibari_ret_t::HIBARI_ERROR_INVALID_HANDLE);
    // SAFETY: valid out-pointers.
    ok(unsafe { hibari_subscription_take(sub, &mut sample, &mut taken) });
    assert!(!taken);
    // A subscription with a callback that nobody spins is taken from too.
    let seen = Arc::new(Seen::default());
    let with_callback = subscription(n, "other", Some(&seen));
    publish(publisher(n, "other"), "two");
    // SAFETY: valid out-pointers.
    ok(unsafe { hibari_subscription_take(with_callback, &mut sample, &mut taken) });
    assert!(taken);
    // SAFETY: a sample from take.
    ok(unsafe { hibari_sample_release(&mut sample) });
    assert_eq!(seen.count(), 0);
    ok(hibari_context_destroy(ctx));
}

#[test]
fn a_loan_written_in_place_is_received_and_a_discarded_one_is_not() {
    let ctx = isolated(&[]);
    let n = node(ctx, "lender");
    let seen = Arc::new(Seen::default());
    let _sub = subscription(n, "loans", Some(&seen));
    let p = publisher(n, "loans");
    let bytes = string_cdr("in place");
    let mut loan = hibari_loan_t {
        id: 0,
        data: null_mut(),
        len: 0,
    };
    // SAFETY: a valid out-pointer.
    ok(unsafe { hibari_publisher_loan(p, bytes.len(), &mut loan) });
    assert_eq!(loan.len, bytes.len());
    // SAFETY: the loan's `len` bytes are writable until sent.
    unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), loan.data, bytes.len()) };
    // SAFETY: a loan from hibari_publisher_loan.
    ok(unsafe { hibari_loan_send(&mut loan) });
    assert_eq!(loan.id, 0, "a sent loan is zeroed");
    // SAFETY: consumed already (zeroed): hibari refuses.
    let again = unsafe { hibari_loan_send(&mut loan) };
    assert_eq!(again, hibari_ret_t::HIBARI_ERROR_INVALID_HANDLE);
    // SAFETY: a valid out-pointer, then the loan it wrote.
    unsafe {
        ok(hibari_publisher_loan(p, 64, &mut loan));
        ok(hibari_loan_discard(&mut loan));
    }
    let executor = executor_with(n);
    spin_until_count(executor, &seen, 1);
    let mut executed = 0;
    // SAFETY: a valid out-pointer.
    ok(unsafe { hibari_executor_spin_some(executor, &mut executed) });
    assert_eq!(executed, 0, "the discarded loan was not sent");
    assert_eq!(string_of(&seen.messages.lock().unwrap()[0]), "in place");
    ok(hibari_context_destroy(ctx));
    ok(hibari_executor_destroy(executor));
}

/// hibari_publisher_publish_with's write function for the tests: copies
/// the `Vec<u8>` behind `user` when it has exactly `len` bytes.
unsafe extern "C" fn write_vec(data: *mut u8, len: usize, user: *mut c_void) -> bool {
    // SAFETY: the tests pass a `Vec<u8>`; `data` has `len` writable bytes.
    let bytes = unsafe { &*(user as *const Vec<u8>) };
    if bytes.len() != len {
        return false;
    }
    // SAFETY: as above.
    unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), data, len) };
    true
}

#[test]
fn a_message_written_by_the_publish_function_is_received_and_a_refused_one_is_not() {
    let ctx = isolated(&[]);
    let n = node(ctx, "writer");
    let seen = Arc::new(Seen::default());
    let _sub = subscription(n, "written", Some(&seen));
    let p = publisher(n, "written");
    let bytes = string_cdr("written in place");
    let user = &bytes as *const Vec<u8> as *mut c_void;
    // SAFETY: write_vec gets the Vec it expects, alive through each call.
    unsafe {
        ok(hibari_publisher_publish_with(
            p,
            bytes.len(),
            Some(write_vec),
            user,
        ));
        // The function refuses (a length it does not expect): nothing is sent.
        let refused = hibari_publisher_publish_with(p, bytes.len() + 4, Some(write_vec), user);
        assert_eq!(refused, hibari_ret_t::HIBARI_ERROR);
        let no_function = hibari_publisher_publish_with(p, bytes.len(), None, user);
        assert_eq!(no_function, hibari_ret_t::HIBARI_ERROR_INVALID_ARGUMENT);
    }
    // Bytes that are not CDR are refused too.
    let not_cdr = vec![7u8; 8];
    // SAFETY: as above.
    let bad = unsafe {
        hibari_publisher_publish_with(
            p,
            not_cdr.len(),
            Some(write_vec),
            &not_cdr as *const Vec<u8> as *mut c_void,
        )
    };
    assert_eq!(bad, hibari_ret_t::HIBARI_ERROR_INVALID_ARGUMENT);
    let executor = executor_with(n);
    spin_until_count(executor, &seen, 1);
    let mut executed = 0;
    // SAFETY: a valid out-pointer.
    ok(unsafe { hibari_executor_spin_some(executor, &mut executed) });
    assert_eq!(executed, 0, "only the written message was sent");
    assert_eq!(
        string_of(&seen.messages.lock().unwrap()[0]),
        "written in place"
    );
    ok(hibari_context_destroy(ctx));
    ok(hibari_executor_destroy(executor));
}

#[test]
fn a_buffer_written_for_this_process_is_reused_only_once_its_sample_is_released() {
    let ctx = isolated(&[]);
    let n = node(ctx, "reuser");
    let sub = subscription(n, "reused", None);
    let p = publisher(n, "reused");
    let publish_text = |text: &str| {
        let bytes = string_cdr(text);
        let user = &bytes as *const Vec<u8> as *mut c_void;
        // SAFETY: write_vec gets the Vec it expects, alive through the call.
        ok(unsafe { hibari_publisher_publish_with(p, bytes.len(), Some(write_vec), user) });
    };
    let take = || {
        let mut sample = hibari_sample_t {
            id: 0,
            data: null(),
            len: 0,
            info: Default::default(),
        };
        let mut taken = false;
        // SAFETY: valid out-pointers.
        ok(unsafe { hibari_subscription_take(sub, &mut sample, &mut taken) });
        assert!(taken);
        sample
    };
    // SAFETY: a taken sample's `len` bytes are valid until released.
    let text =
        |s: &hibari_sample_t| string_of(unsafe { std::slice::from_raw_parts(s.data, s.len) });
    let (a, b) = ("a".repeat(100_000), "b".repeat(100_000));
    publish_text(&a);
    let mut first = take();
    publish_text(&b);
    let mut second = take();
    assert_ne!(
        first.data, second.data,
        "a held sample's buffer is not written again"
    );
    assert_eq!(text(&first), a);
    assert_eq!(text(&second), b);
    let held = [first.data, second.data];
    // SAFETY: samples from take.
    unsafe {
        ok(hibari_sample_release(&mut first));
        ok(hibari_sample_release(&mut second));
    }
    publish_text(&a);
    let mut third = take();
    assert!(
        held.contains(&third.data),
        "a released buffer is written again"
    );
    assert_eq!(text(&third), a);
    // SAFETY: a sample from take.
    ok(unsafe { hibari_sample_release(&mut third) });
    ok(hibari_context_destroy(ctx));
}

#[test]
fn a_loan_with_a_hole_lays_the_skeleton_around_the_bytes_filled_in_place() {
    let ctx = isolated(&[]);
    let n = node(ctx, "hole");
    let mut sub = hibari_subscription_t::default();
    let ty = c("std_msgs/msg/UInt8MultiArray");
    // SAFETY: valid strings and out-pointer; no callback: polled.
    ok(unsafe {
        hibari_subscription_create(
            n,
            c("h").as_ptr(),
            ty.as_ptr(),
            null(),
            None,
            null_mut(),
            &mut sub,
        )
    });
    let mut p = hibari_publisher_t::default();
    // SAFETY: valid strings and out-pointer.
    ok(unsafe { hibari_publisher_create(n, c("h").as_ptr(), ty.as_ptr(), null(), &mut p) });
    // layout: header, dim = [] (u32 0), data_offset (u32 0), data: u32 count, bytes.
    let count = 5u32;
    let mut skeleton = vec![0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0];
    skeleton.extend_from_slice(&count.to_le_bytes());
    let (mut loan, mut hole) = (
        hibari_loan_t {
            id: 0,
            data: null_mut(),
            len: 0,
        },
        null_mut(),
    );
    // SAFETY: the skeleton is readable; valid out-pointers.
    ok(unsafe {
        hibari_publisher_loan_with_hole(
            p,
            skeleton.as_ptr(),
            skeleton.len(),
            skeleton.len(),
            5,
            &mut loan,
            &mut hole,
        )
    });
    assert_eq!(hole, loan.data.wrapping_add(skeleton.len()));
    // SAFETY: the hole's 5 bytes are writable until sent.
    unsafe { std::ptr::copy_nonoverlapping([1u8, 2, 3, 4, 5].as_ptr(), hole, 5) };
    // SAFETY: a loan from hibari.
    ok(unsafe { hibari_loan_send(&mut loan) });
    let mut sample = hibari_sample_t {
        id: 0,
        data: null(),
        len: 0,
        info: Default::default(),
    };
    let mut taken = false;
    // SAFETY: valid out-pointers.
    ok(unsafe { hibari_subscription_take(sub, &mut sample, &mut taken) });
    assert!(taken);
    use hibari_rs::Message;
    // SAFETY: the sample's bytes are valid until released.
    let got = hibari_rs::msg::std_msgs::msg::UInt8MultiArray::from_cdr(unsafe {
        std::slice::from_raw_parts(sample.data, sample.len)
    })
    .unwrap();
    assert_eq!(got.data, [1, 2, 3, 4, 5]);
    // SAFETY: a sample from take.
    ok(unsafe { hibari_sample_release(&mut sample) });
    ok(hibari_context_destroy(ctx));
}

#[test]
fn the_graph_shows_the_node_and_its_topic_with_its_type() {
    let ctx = isolated(&[]);
    let n = node(ctx, "graph_node");
    let _p = publisher(n, "graph_topic");
    let mut names = hibari_string_array_t {
        data: null_mut(),
        len: 0,
    };
    let mut types = hibari_string_array_t {
        data: null_mut(),
        len: 0,
    };
    let read = |a: &hibari_string_array_t| -> Vec<String> {
        (0..a.len)
            .map(|i| {
                // SAFETY: hibari filled `len` NUL-terminated strings.
                let s = unsafe { CStr::from_ptr(*a.data.add(i)) };
                s.to_string_lossy().into_owned()
            })
            .collect()
    };
    // SAFETY: valid out-pointers; each array is finished once.
    unsafe {
        ok(hibari_node_get_node_names(n, &mut names));
        assert!(read(&names).contains(&"/graph_node".to_string()));
        ok(hibari_string_array_fini(&mut names));
        ok(hibari_node_get_topic_names_and_types(
            n, &mut names, &mut types,
        ));
        let (names_v, types_v) = (read(&names), read(&types));
        let i = names_v
            .iter()
            .position(|t| t == "/graph_topic")
            .expect("the topic is seen");
        assert_eq!(types_v[i], "std_msgs/msg/String");
        ok(hibari_string_array_fini(&mut names));
        ok(hibari_string_array_fini(&mut types));
        ok(hibari_string_array_fini(&mut types));
        let mut count = 0;
        ok(hibari_node_count_publishers(
            n,
            c("graph_topic").as_ptr(),
            &mut count,
        ));
        assert_eq!(count, 1);
    }
    ok(hibari_context_destroy(ctx));
}

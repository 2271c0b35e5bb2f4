//! The outbox's promises: control first and never dropped, rings bounded
//! by depth and bytes with the oldest dropped and counted, rings served in
//! turn, throttles.

use super::*;

fn text(s: &str) -> Frame {
    Frame::Text(s.to_owned().into())
}

fn plain(depth: usize) -> RingSettings {
    RingSettings {
        depth,
        throttle: Duration::ZERO,
        drop_too_soon: false,
    }
}

fn next_text(out: &Outbox, now: Instant) -> Option<String> {
    match out.next(now) {
        Next::Frame(Frame::Text(t)) => Some(t.as_str().to_owned()),
        _ => None,
    }
}

#[test]
fn control_goes_first_and_too_much_of_it_closes_the_outbox() {
    let out = Outbox::new(1 << 20, 2);
    let now = Instant::now();
    out.set_ring(1, plain(10));
    out.push_data(1, text("data"), now);
    assert!(out.push_control(text("c1")));
    assert!(out.push_control(text("c2")));
    assert_eq!(next_text(&out, now).as_deref(), Some("c1"));
    assert_eq!(next_text(&out, now).as_deref(), Some("c2"));
    assert_eq!(next_text(&out, now).as_deref(), Some("data"));
    assert!(out.push_control(text("c3")));
    assert!(out.push_control(text("c4")));
    assert!(
        !out.push_control(text("c5")),
        "the third unsent control message is too many"
    );
    assert!(matches!(out.next(now), Next::Closed));
}

#[test]
fn a_full_ring_drops_its_oldest_and_counts_it() {
    let out = Outbox::new(1 << 20, 10);
    let now = Instant::now();
    out.set_ring(1, plain(3));
    for i in 0..10 {
        out.push_data(1, text(&i.to_string()), now);
    }
    assert_eq!(out.dropped(), 7);
    assert_eq!(out.queued(), (3, 3));
    let got: Vec<String> = std::iter::from_fn(|| next_text(&out, now)).collect();
    assert_eq!(got, ["7", "8", "9"]);
    assert_eq!(out.queued(), (0, 0));
}

#[test]
fn the_byte_budget_drops_the_oldest_but_keeps_the_newest() {
    let out = Outbox::new(10, 10);
    let now = Instant::now();
    out.set_ring(1, plain(100));
    out.push_data(1, text("aaaa"), now);
    out.push_data(1, text("bbbb"), now);
    out.push_data(1, text("cccc"), now);
    assert_eq!(out.queued(), (2, 8));
    out.push_data(1, text("a message longer than the budget"), now);
    assert_eq!(out.queued().0, 1, "the newest stays even alone over budget");
    assert_eq!(out.dropped(), 3);
}

#[test]
fn the_budget_holds_across_rings_and_the_high_water_marks_show_it() {
    let out = Outbox::new(12, 10);
    let now = Instant::now();
    out.set_ring(1, plain(100));
    out.set_ring(2, plain(100));
    for i in 0..3 {
        out.push_data(1, text(&format!("big{i}")), now);
    }
    assert_eq!(out.queued(), (3, 12));
    // Ring 2 is empty: room is made in ring 1, oldest first.
    out.push_data(2, text("sm"), now);
    assert_eq!(out.queued(), (3, 10));
    assert_eq!(out.dropped(), 1);
    assert_eq!(out.peak(), (3, 12), "never above the budget");
    let got: Vec<String> = std::iter::from_fn(|| next_text(&out, now)).collect();
    assert_eq!(got, ["big1", "sm", "big2"]);
    assert_eq!(out.peak(), (3, 12), "the marks stay after draining");
}

#[test]
fn rings_are_served_in_turn_so_a_busy_topic_cannot_starve_a_quiet_one() {
    let out = Outbox::new(1 << 20, 10);
    let now = Instant::now();
    out.set_ring(1, plain(100));
    out.set_ring(2, plain(100));
    for i in 0..5 {
        out.push_data(1, text(&format!("big{i}")), now);
    }
    out.push_data(2, text("small"), now);
    let got: Vec<String> = std::iter::from_fn(|| next_text(&out, now)).collect();
    assert_eq!(got[..3], ["big0", "small", "big1"]);
    assert_eq!(got.len(), 6);
}

#[test]
fn a_throttled_ring_with_a_queue_waits_and_one_without_drops() {
    let out = Outbox::new(1 << 20, 10);
    let t0 = Instant::now();
    let paced = RingSettings {
        depth: 2,
        throttle: Duration::from_millis(100),
        drop_too_soon: false,
    };
    out.set_ring(1, paced);
    out.push_data(1, text("a"), t0);
    assert_eq!(next_text(&out, t0).as_deref(), Some("a"));
    out.push_data(1, text("b"), t0);
    out.push_data(1, text("c"), t0);
    out.push_data(1, text("d"), t0);
    match out.next(t0) {
        Next::WaitUntil(at) => assert_eq!(at, t0 + Duration::from_millis(100)),
        _ => panic!("the ring waits for its interval"),
    }
    let later = t0 + Duration::from_millis(100);
    assert_eq!(next_text(&out, later).as_deref(), Some("c"));
    assert_eq!(out.dropped(), 1);

    let dropping = RingSettings {
        depth: 10,
        throttle: Duration::from_millis(100),
        drop_too_soon: true,
    };
    out.set_ring(2, dropping);
    out.push_data(2, text("x"), t0);
    out.push_data(2, text("y"), t0 + Duration::from_millis(50));
    out.push_data(2, text("z"), t0 + Duration::from_millis(150));
    assert_eq!(out.throttled(), 1);
    out.remove_ring(1);
    let got: Vec<String> = std::iter::from_fn(|| next_text(&out, later)).collect();
    assert_eq!(got, ["x", "z"]);
}

#[test]
fn removing_a_ring_frees_its_bytes_and_a_closed_outbox_takes_nothing() {
    let out = Outbox::new(1 << 20, 10);
    let now = Instant::now();
    out.set_ring(1, plain(10));
    out.push_data(1, text("abc"), now);
    out.remove_ring(1);
    assert_eq!(out.queued(), (0, 0));
    assert!(matches!(out.next(now), Next::Empty));
    out.close();
    assert!(!out.push_control(text("late")));
    assert!(matches!(out.next(now), Next::Closed));
}

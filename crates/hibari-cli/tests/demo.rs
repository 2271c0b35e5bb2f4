//! `hibari demo`, run as the real binary with a small image.

mod common;

use common::{hibari, run};

#[test]
fn demo_with_a_small_image_prints_its_three_checks() {
    let out = run(&mut hibari(["demo", "--width", "64", "--height", "48"])).success();
    let text = out.stdout_text();
    let checks: Vec<&str> = text.lines().filter(|l| l.contains('✓')).collect();
    assert_eq!(checks.len(), 3, "{text}");
    assert!(
        checks[0].contains("decoded again: equal to the original"),
        "{text}"
    );
    assert!(
        checks[1].contains("JSON -> CDR gives the same 100 bytes"),
        "{text}"
    );
    assert!(checks[2].contains("data points into the buffer"), "{text}");
    assert!(text.contains("64x48 rgb8 Image: 9264 bytes"), "{text}");
}

#[test]
fn demo_prints_the_laser_scan_with_its_type_hash_and_cdr_bytes() {
    let text = run(&mut hibari(["demo", "--width", "2", "--height", "2"]))
        .success()
        .stdout_text();
    assert!(
        text.contains(
            "sensor_msgs/msg/LaserScan (100 bytes of CDR, \
             RIHS01_64c191398013af96509d518dac71d5164f9382553fce5c1f8cca5be7924bd828)"
        ),
        "{text}"
    );
    assert!(text.contains("   00 01 00 00 "), "{text}");
    assert!(text.contains(r#""frame_id":"laser""#), "{text}");
}

#[test]
fn demo_with_an_empty_image_still_succeeds() {
    let text = run(&mut hibari(["demo", "--width", "0", "--height", "0"]))
        .success()
        .stdout_text();
    assert_eq!(text.matches('✓').count(), 3, "{text}");
}

#[test]
fn demo_with_an_impossible_image_size_is_an_error_not_a_panic() {
    for (w, h) in [
        ("2000000000", "0"),
        ("4000000000", "4000000000"),
        ("100000", "100000"),
    ] {
        run(&mut hibari(["demo", "--width", w, "--height", h]))
            .failure_after_output()
            .stderr_has(&["error: "]);
    }
}

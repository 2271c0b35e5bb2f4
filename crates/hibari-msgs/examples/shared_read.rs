//! How much reading bytes another process may change costs: `SharedBytes`
//! (`Relaxed` word loads) against `memcpy`, and the owned decode of a 6.2 MB
//! image from private and from shared bytes.
//!
//! `cargo run --release -p hibari-msgs --example shared_read`

use std::hint::black_box;
use std::time::{Duration, Instant};

use hibari_cdr::{Bytes, SharedBytes};
use hibari_msgs::sensor_msgs::msg::Image;
use hibari_msgs::Message;

const LEN: usize = 1920 * 1080 * 3;
const REPS: usize = 60;

/// The fastest of `REPS` runs of `f`.
fn best(mut f: impl FnMut()) -> Duration {
    (0..REPS)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .min()
        .unwrap_or_default()
}

fn main() {
    let src: Vec<u8> = (0..LEN).map(|i| (i * 7) as u8).collect();
    let shared_words = SharedBytes::words_of(&src);
    let mut dst = vec![0u8; LEN];
    for start in [0, 3] {
        let n = LEN - start;
        let memcpy = best(|| dst[..n].copy_from_slice(black_box(&src[start..])));
        let shared = SharedBytes::new(&shared_words, start, n).unwrap();
        let words = best(|| black_box(shared).copy_to_slice(&mut dst[..n]));
        assert_eq!(dst[..n], src[start..]);
        println!(
            "copy {n} B from offset {start}: memcpy {memcpy:?}, SharedBytes {words:?}, ratio {:.2}",
            words.as_secs_f64() / memcpy.as_secs_f64()
        );
    }

    let image = Image {
        width: 1920,
        height: 1080,
        encoding: "rgb8".into(),
        step: 1920 * 3,
        data: src.clone(),
        ..Default::default()
    };
    let cdr = image.to_cdr().unwrap();
    let cdr_words = SharedBytes::words_of(&cdr);
    let shared = Bytes::Shared(SharedBytes::new(&cdr_words, 0, cdr.len()).unwrap());
    let private = Bytes::Private(&cdr);
    for (name, bytes) in [("private", private), ("shared", shared)] {
        let fresh = best(|| {
            black_box(Image::from_cdr(black_box(bytes)).unwrap());
        });
        let mut into = Image::default();
        let reuse = best(|| into.decode_into(black_box(bytes)).unwrap());
        assert_eq!(into, image);
        println!(
            "decode a {} B Image from {name} bytes: from_cdr {fresh:?}, decode_into {reuse:?}",
            cdr.len()
        );
    }
}

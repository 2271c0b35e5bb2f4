//! Decoding from shared memory gives what decoding from private bytes
//! gives, for payloads copied out whole first (small ones) and for those
//! read field by field (large ones), at every start offset; a truncated
//! shared payload is the same error as a truncated private one.

use hibari_cdr::{Bytes, SharedBytes};
use hibari_msgs::sensor_msgs::msg::LaserScan;
use hibari_msgs::std_msgs::msg::{Header, String as RosString};
use hibari_msgs::Message;

fn scan(ranges: usize) -> LaserScan {
    LaserScan {
        header: Header {
            frame_id: "laser".into(),
            ..Header::default()
        },
        angle_increment: 0.01,
        ranges: (0..ranges).map(|i| i as f32 * 0.5).collect(),
        intensities: vec![1.0; ranges / 2],
        ..LaserScan::default()
    }
}

/// `cdr` placed at byte `start` of shared words.
fn shared_at(cdr: &[u8], start: usize) -> Vec<std::sync::atomic::AtomicUsize> {
    let mut padded = vec![0xEE; start];
    padded.extend_from_slice(cdr);
    SharedBytes::words_of(&padded)
}

fn same_from_shared<M: Message + PartialEq + std::fmt::Debug>(m: &M) {
    let cdr = m.to_cdr().unwrap();
    for start in 0..8 {
        let words = shared_at(&cdr, start);
        let bytes = || Bytes::Shared(SharedBytes::new(&words, start, cdr.len()).unwrap());
        assert_eq!(
            &M::from_cdr(bytes()).unwrap(),
            m,
            "{} B at {start}",
            cdr.len()
        );
        let mut into = M::default();
        into.decode_into(bytes()).unwrap();
        assert_eq!(&into, m, "decode_into, {} B at {start}", cdr.len());
        for cut in [cdr.len() - 1, cdr.len() / 2, 3] {
            let short = Bytes::Shared(SharedBytes::new(&words, start, cut).unwrap());
            let shared = M::from_cdr(short).unwrap_err().to_string();
            let private = M::from_cdr(&cdr[..cut]).unwrap_err().to_string();
            assert_eq!(shared, private, "cut at {cut}");
        }
    }
}

#[test]
fn small_and_large_payloads_decode_from_shared_memory_as_from_private_bytes() {
    same_from_shared(&RosString {
        data: "hello".into(),
    });
    same_from_shared(&scan(10)); // well under the whole-copy size
    for ranges in 70..=90 {
        same_from_shared(&scan(ranges)); // either side of it (512 B)
    }
    same_from_shared(&scan(10_000)); // read field by field
}

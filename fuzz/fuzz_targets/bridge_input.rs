//! hibari-bridge's input side on hostile bytes: the TCP framer, rosbridge
//! ops (JSON parsing, field checks, fragments, conversions, rosapi) and the
//! Foxglove text and binary messages.
//!
//! Input: the first byte picks the path (low 2 bits) and, for TCP, the read
//! size (the other 6 bits + 1); the rest is what the client sent.
//! - 0: one rosbridge WebSocket frame;
//! - 1: a rosbridge TCP stream read in chunks — the objects found must be
//!   exactly those found when the stream comes in one piece (a chunk
//!   boundary, even inside a UTF-8 character, changes nothing);
//! - 2 / 3: one Foxglove text / binary frame.
//!
//! Properties: never a panic, whatever the ops do (each input's session is
//! closed afterwards, taking what it made with it).
#![forbid(unsafe_code)]
#![no_main]

use hibari_bridge::fuzzing::{foxglove_frame, rosbridge_frame, rosbridge_tcp};
use hibari_bridge::JsonFramer;
use libfuzzer_sys::fuzz_target;

fn objects_whole(data: &[u8]) -> Vec<Vec<u8>> {
    let mut framer = JsonFramer::new(1 << 20);
    framer.push(data);
    let mut out = Vec::new();
    while let Some(next) = framer.next_object() {
        if let Ok(bytes) = next {
            out.push(bytes.to_vec());
        }
    }
    out
}

fuzz_target!(|data: &[u8]| {
    let Some((&selector, input)) = data.split_first() else {
        return;
    };
    match selector & 3 {
        0 => {
            rosbridge_frame(input);
        }
        1 => {
            let chunk = (selector >> 2) as usize + 1;
            let chunked = rosbridge_tcp(input, chunk);
            assert_eq!(
                chunked,
                objects_whole(input),
                "reading in {chunk}-byte chunks finds other objects than reading at once"
            );
            for object in &chunked {
                assert!(object.first() == Some(&b'{'), "an object starts with {{");
            }
        }
        2 => {
            foxglove_frame(input, true);
        }
        _ => {
            foxglove_frame(input, false);
        }
    }
});

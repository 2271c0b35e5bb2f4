//! Generated (typed) decoders on hostile bytes.
//!
//! Input: 2 bytes choosing a Jazzy type (see `hibari_fuzz::split`), then CDR.
//! Properties, for every bundled type:
//! - decoding returns a typed error or a message, never panics, and no single
//!   allocation grows with an unchecked length (`hibari_fuzz::guarded`);
//! - a decoded message re-encodes, or fails only with an error that "accept on
//!   read" explains (a bound exceeded, a NUL inside a string);
//! - decode∘encode is stable: encode(decode(encode(m))) == encode(m) (bytes are
//!   compared, not messages, since NaN != NaN);
//! - `serialized_size`, `encode_into_slice` and `decode_into` agree with
//!   `to_cdr`/`from_cdr`, and `decode_into` leaves nothing of the previous
//!   message behind.
#![forbid(unsafe_code)]
#![no_main]

use hibari_cdr::{HasView, TypeVisitor};
use hibari_fuzz::{guarded, hex, reencode_error_ok, split};
use libfuzzer_sys::fuzz_target;

struct Check<'a>(&'a [u8]);

impl TypeVisitor for Check<'_> {
    type Output = ();
    fn visit<M: HasView>(self) {
        let (name, input) = (M::TYPE_NAME, self.0);
        let Ok(m) = guarded(name, input.len(), || M::from_cdr(input)) else {
            return;
        };

        let mut fresh = M::default();
        if let Err(e) = fresh.decode_into(input) {
            panic!(
                "{name}: decode_into fails ({e}) where from_cdr succeeds\ninput: {}",
                hex(input)
            );
        }
        let e1 = match m.to_cdr() {
            Ok(b) => b,
            Err(e) => {
                assert!(
                    reencode_error_ok(&e),
                    "{name}: a decoded message does not encode: {e}\ninput: {}",
                    hex(input)
                );
                return;
            }
        };
        assert_eq!(
            fresh.to_cdr().as_ref(),
            Ok(&e1),
            "{name}: decode_into and from_cdr disagree"
        );
        assert_eq!(
            m.serialized_size(),
            Ok(e1.len()),
            "{name}: serialized_size is not the encoded length"
        );
        let mut buf = vec![0xAA; e1.len() + 8];
        assert_eq!(
            m.encode_into_slice(&mut buf),
            Ok(e1.len()),
            "{name}: encode_into_slice length"
        );
        assert_eq!(
            &buf[..e1.len()],
            &e1[..],
            "{name}: encode_into_slice bytes differ from to_cdr"
        );

        let m2 = M::from_cdr(&e1).unwrap_or_else(|e| {
            panic!(
                "{name}: re-encoding does not decode: {e}\ninput: {}\nre-encoded: {}",
                hex(input),
                hex(&e1)
            )
        });
        let e2 = m2
            .to_cdr()
            .unwrap_or_else(|e| panic!("{name}: second encode fails: {e}"));
        assert_eq!(
            e1,
            e2,
            "{name}: decode∘encode is not stable\ninput: {}",
            hex(input)
        );

        // Decoding into a populated message must leave nothing of it behind.
        let default_bytes = M::default()
            .to_cdr()
            .unwrap_or_else(|e| panic!("{name}: the default instance does not encode: {e}"));
        let mut reused = m2;
        if let Err(e) = reused.decode_into(&default_bytes) {
            panic!("{name}: the default encoding does not decode: {e}");
        }
        assert_eq!(
            reused.to_cdr().as_ref(),
            Ok(&default_bytes),
            "{name}: decode_into kept state from the previous message\ninput: {}",
            hex(input)
        );
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((name, cdr)) = split(data) else {
        return;
    };
    hibari_msgs::jazzy::visit_type(name, Check(cdr)).expect("every TYPE_NAMES entry is visitable");
});

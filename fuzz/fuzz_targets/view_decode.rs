//! Zero-copy view decoders on hostile bytes, checked against the typed decoder.
//!
//! Input: 2 bytes choosing a Jazzy type, then CDR. Properties:
//! - `HasView::view` never panics nor allocates by an unchecked length;
//! - it accepts exactly what `Message::from_cdr` accepts, failing with the
//!   same error;
//! - when both succeed, `to_owned_message()` encodes to the same bytes (or the
//!   same error) as the typed decode, and the view's `Debug` works.
#![forbid(unsafe_code)]
#![no_main]

use hibari_cdr::{HasView, MessageView, TypeVisitor};
use hibari_fuzz::{guarded, hex, split};
use libfuzzer_sys::fuzz_target;

struct Check<'a>(&'a [u8]);

impl TypeVisitor for Check<'_> {
    type Output = ();
    fn visit<M: HasView>(self) {
        let (name, input) = (M::TYPE_NAME, self.0);
        let view = guarded(name, input.len(), || M::view(input));
        let typed = M::from_cdr(input);
        match (&view, &typed) {
            (Ok(v), Ok(m)) => {
                let _ = format!("{v:?}");
                let owned = v.to_owned_message();
                assert_eq!(
                    owned.to_cdr(),
                    m.to_cdr(),
                    "{name}: view.to_owned_message() and the typed decode encode differently\ninput: {}",
                    hex(input)
                );
            }
            (Err(a), Err(b)) => assert_eq!(
                a,
                b,
                "{name}: view and typed decoders fail differently\ninput: {}",
                hex(input)
            ),
            (Ok(_), Err(e)) => panic!(
                "{name}: the view decoder accepts what the typed decoder rejects ({e})\ninput: {}",
                hex(input)
            ),
            (Err(e), Ok(_)) => panic!(
                "{name}: the view decoder rejects ({e}) what the typed decoder accepts\ninput: {}",
                hex(input)
            ),
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((name, cdr)) = split(data) else {
        return;
    };
    hibari_msgs::jazzy::visit_type(name, Check(cdr)).expect("every TYPE_NAMES entry is visitable");
});

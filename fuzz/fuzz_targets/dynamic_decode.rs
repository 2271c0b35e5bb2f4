//! The schema-driven decoder (`hibari_dynamic::decode`) on hostile bytes,
//! differentially against the generated decoder of the same type.
//!
//! Input: 2 bytes choosing a Jazzy type, then CDR. Properties:
//! - decoding never panics nor allocates by an unchecked length;
//! - it accepts exactly what the typed decoder accepts (a disagreement is a
//!   bug in one of them: the target panics naming both verdicts);
//! - a decoded value re-encodes (or fails with a bound/NUL error, exactly
//!   when the typed re-encode fails), byte-identical to the typed re-encode
//!   (up to NaN payload bits, see `STRICT_NAN_BITS`),
//!   and decode∘encode is stable;
//! - `to_json` of it is accepted by `from_json`, and JSON is stable:
//!   to_json(from_json(j)) == j (NaN is `null` on both sides).
#![forbid(unsafe_code)]
#![no_main]

use hibari_dynamic::{decode, encode, from_json, to_json, DynamicDecodeError, DynamicEncodeError};
use hibari_fuzz::{guarded, hex, same_up_to_nan_payload, split, typed_reencode};

/// Fail on a NaN whose payload bits the dynamic path changes (see below).
const STRICT_NAN_BITS: bool = true;
use hibari_idl::{model::TypeName, Distro, Registry};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((name, input)) = split(data) else {
        return;
    };
    let reg = Registry::bundled_ref(Distro::Jazzy);
    let ty = TypeName::parse(name).expect("TYPE_NAMES entries parse");
    assert!(
        reg.message(&ty).is_some(),
        "{name} is generated but not in the bundled registry"
    );

    let dynamic = guarded(name, input.len(), || decode(reg, &ty, input));
    let typed = typed_reencode(name, input);
    let (value, typed_bytes) = match (dynamic, typed) {
        (Ok(v), Ok(t)) => (v, t),
        (Err(_), Err(_)) => return,
        // The dynamic layer refuses wstring by design (interop.md §1.4); the
        // typed one reads it (test_msgs/WStrings, example_interfaces/WString).
        (Err(DynamicDecodeError::WStringUnsupported { .. }), Ok(_)) => return,
        (Ok(_), Err(e)) => panic!(
            "{name}: DECODERS DISAGREE: dynamic accepts, typed rejects ({e})\ninput: {}",
            hex(input)
        ),
        (Err(e), Ok(_)) => panic!(
            "{name}: DECODERS DISAGREE: typed accepts, dynamic rejects ({e})\ninput: {}",
            hex(input)
        ),
    };

    let _ = serde_json::to_string(&to_json(reg, &ty, &value)).expect("JSON renders");
    let bytes = match encode(reg, &ty, &value) {
        Ok(b) => b,
        Err(e) => {
            assert!(
                matches!(
                    e,
                    DynamicEncodeError::BoundExceeded { .. }
                        | DynamicEncodeError::NulInString { .. }
                ),
                "{name}: a decoded value does not encode: {e}\ninput: {}",
                hex(input)
            );
            assert!(
                typed_bytes.is_err(),
                "{name}: dynamic encode refuses ({e}) what typed encode accepts\ninput: {}",
                hex(input)
            );
            return;
        }
    };
    match &typed_bytes {
        Ok(t) if &bytes != t => {
            // Known (reported): a float32 *signalling* NaN comes back quiet from
            // the dynamic path, which holds float32 scalars as f64; e.g.
            // std_msgs/msg/Float32 `00 01 00 00 01 00 80 7f` re-encodes as
            // `… 01 00 c0 7f`. Tolerated unless STRICT_NAN_BITS; any other
            // difference fails.
            let theirs = decode(reg, &ty, t)
                .unwrap_or_else(|e| panic!("{name}: typed re-encoding does not decode: {e}"));
            let ours = decode(reg, &ty, &bytes)
                .unwrap_or_else(|e| panic!("{name}: re-encoding does not decode: {e}"));
            assert!(
                !STRICT_NAN_BITS && same_up_to_nan_payload(&ours, &theirs),
                "{name}: dynamic and typed re-encodings differ\ninput: {}\ndynamic: {}\ntyped:   {}",
                hex(input),
                hex(&bytes),
                hex(t)
            );
        }
        Ok(_) => {}
        Err(e) => panic!(
            "{name}: typed encode refuses ({e}) what dynamic encode accepts\ninput: {}",
            hex(input)
        ),
    }
    let again = decode(reg, &ty, &bytes).unwrap_or_else(|e| {
        panic!(
            "{name}: re-encoding does not decode: {e}\nre-encoded: {}",
            hex(&bytes)
        )
    });
    let bytes2 =
        encode(reg, &ty, &again).unwrap_or_else(|e| panic!("{name}: second encode fails: {e}"));
    assert_eq!(
        bytes,
        bytes2,
        "{name}: decode∘encode is not stable\ninput: {}",
        hex(input)
    );

    let json = to_json(reg, &ty, &again);
    let from = from_json(reg, &ty, &json).unwrap_or_else(|e| {
        panic!("{name}: from_json refuses to_json's output: {e}\njson: {json}")
    });
    if let Err(e) = encode(reg, &ty, &from) {
        panic!("{name}: from_json's result does not encode: {e}\njson: {json}");
    }
    assert_eq!(
        to_json(reg, &ty, &from),
        json,
        "{name}: to_json∘from_json is not stable"
    );
});

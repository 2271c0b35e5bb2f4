//! rosbridge JSON (`hibari_dynamic::from_json`) on hostile text.
//!
//! Input: 2 bytes choosing a Jazzy type, then JSON text. Properties:
//! - `from_json` never panics nor allocates beyond a multiple of the input;
//! - anything it returns encodes (its documented promise), the bytes decode
//!   back, decode∘encode is stable, and the generated (typed) decoder reads
//!   the same bytes and re-encodes them identically;
//! - to_json → from_json → encode gives the same bytes (JSON floats are never
//!   NaN except through `null`, which reads as the canonical NaN).
#![forbid(unsafe_code)]
#![no_main]

use hibari_dynamic::{decode, encode, from_json, to_json};
use hibari_fuzz::{guarded, hex, split, typed_reencode};
use hibari_idl::{model::TypeName, Distro, Registry};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((name, text)) = split(data) else {
        return;
    };
    let Ok(json) = serde_json::from_slice::<serde_json::Value>(text) else {
        return;
    };
    let reg = Registry::bundled_ref(Distro::Jazzy);
    let ty = TypeName::parse(name).expect("TYPE_NAMES entries parse");

    let Ok(value) = guarded(name, text.len(), || from_json(reg, &ty, &json)) else {
        return;
    };
    let bytes = encode(reg, &ty, &value).unwrap_or_else(|e| {
        panic!("{name}: from_json's result does not encode: {e}\njson: {json}")
    });
    let back = decode(reg, &ty, &bytes).unwrap_or_else(|e| {
        panic!(
            "{name}: encoded JSON does not decode: {e}\njson: {json}\ncdr: {}",
            hex(&bytes)
        )
    });
    let bytes2 =
        encode(reg, &ty, &back).unwrap_or_else(|e| panic!("{name}: second encode fails: {e}"));
    assert_eq!(
        bytes, bytes2,
        "{name}: decode∘encode is not stable\njson: {json}"
    );

    match typed_reencode(name, &bytes) {
        Ok(Ok(t)) => assert_eq!(t, bytes, "{name}: typed re-encoding differs\njson: {json}"),
        Ok(Err(e)) => panic!("{name}: typed encode refuses from_json's bytes: {e}\njson: {json}"),
        Err(e) => panic!(
            "{name}: typed decoder rejects from_json's bytes: {e}\njson: {json}\ncdr: {}",
            hex(&bytes)
        ),
    }

    let j2 = to_json(reg, &ty, &back);
    let v3 = from_json(reg, &ty, &j2)
        .unwrap_or_else(|e| panic!("{name}: from_json refuses to_json's output: {e}\njson: {j2}"));
    let bytes3 = encode(reg, &ty, &v3)
        .unwrap_or_else(|e| panic!("{name}: JSON round trip does not encode: {e}"));
    assert_eq!(
        bytes3, bytes,
        "{name}: CDR → JSON → CDR changes the bytes\njson: {j2}"
    );
});

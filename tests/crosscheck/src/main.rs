//! `hibari-crosscheck`: the Rust side of the rosbags cross-check
//! (`tests/python/test_rosbags_crosscheck.py`).
//!
//! One JSON object per line on stdin, one reply per line on stdout, so a
//! test keeps one process alive for thousands of checks:
//!
//! - `{"op":"types","distro":"jazzy"}` → `{"types":[...]}`, the generated
//!   `TYPE_NAMES`.
//! - `{"op":"roundtrip","distro":…,"type":…,"hex":…}` decodes the bytes
//!   (either byte order) three ways and re-encodes each:
//!   the generated type (`from_cdr` → `to_cdr`, also checking
//!   `serialized_size`, `encode_into_slice` and `decode_into` over a dirty
//!   instance), `hibari_dynamic` (`decode` → `encode`), and rosbridge JSON
//!   (`decode` → `to_json` text → `from_json` → `encode`). The zero-copy
//!   view's `to_owned_message` is compared with the typed decode. Reply
//!   `{"typed":hex,"dynamic":hex,"json":hex,"view_matches":bool}`.
//! - `{"op":"random","distro":…,"type":…,"seed":n}` builds a random value
//!   from the definition, encodes it with `hibari_dynamic`, checks that it
//!   decodes back to the same value and that the generated type and the JSON
//!   path re-encode the same bytes, and replies `{"hex":…}`.
//! - `{"op":"definition","distro":…,"type":…}` → `{"definition":…}`, the
//!   generated `Message::DEFINITION` (ros2msg text with dependencies).
//! - `{"op":"batch","requests":[…]}` → `{"replies":[…]}`, one reply each.
//!
//! Any failure, including a panic, is the reply `{"error":"…"}`; the process
//! keeps serving.

#![forbid(unsafe_code)]
mod random;

use std::io::{self, BufRead, Write};
use std::panic::{catch_unwind, AssertUnwindSafe};

use hibari_cdr::{HasView, Message, MessageView, TypeVisitor};
use hibari_idl::model::TypeName;
use hibari_idl::{Distro, Registry};
use serde_json::{json, Value as Json};

type Result<T> = std::result::Result<T, String>;

fn main() -> io::Result<()> {
    let stdin = io::stdin();
    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
    for line in stdin.lock().lines() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let reply = match serde_json::from_str::<Json>(&line) {
            Ok(req) => handle(&req),
            Err(e) => json!({ "error": format!("bad request: {e}") }),
        };
        serde_json::to_writer(&mut out, &reply)?;
        out.write_all(b"\n")?;
        out.flush()?;
    }
    Ok(())
}

/// One request to one reply; errors and panics become `{"error": …}`.
fn handle(req: &Json) -> Json {
    if req["op"] == "batch" {
        let Some(reqs) = req["requests"].as_array() else {
            return json!({ "error": "batch: `requests` must be an array" });
        };
        return json!({ "replies": reqs.iter().map(handle).collect::<Vec<_>>() });
    }
    match catch_unwind(AssertUnwindSafe(|| dispatch(req))) {
        Ok(Ok(reply)) => reply,
        Ok(Err(e)) => json!({ "error": e }),
        Err(panic) => {
            let msg = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            json!({ "error": format!("panic: {msg}") })
        }
    }
}

fn dispatch(req: &Json) -> Result<Json> {
    let op = req["op"].as_str().ok_or("missing `op`")?;
    let distro = req["distro"]
        .as_str()
        .ok_or("missing `distro`")
        .and_then(|d| Distro::parse(d).ok_or("unknown distro"))?;
    let registry = Registry::bundled_ref(distro);
    if op == "types" {
        return Ok(json!({ "types": type_names(distro) }));
    }
    let name = req["type"].as_str().ok_or("missing `type`")?;
    let ty = TypeName::parse(name).ok_or_else(|| format!("bad type name {name:?}"))?;
    match op {
        "roundtrip" => {
            let hex = req["hex"].as_str().ok_or("missing `hex`")?;
            roundtrip(distro, registry, &ty, &from_hex(hex)?)
        }
        "random" => {
            let seed = req["seed"].as_u64().ok_or("missing `seed`")?;
            random(distro, registry, &ty, seed)
        }
        "definition" => {
            let def = visit(distro, &ty, Definition)?;
            Ok(json!({ "definition": def }))
        }
        _ => Err(format!("unknown op {op:?}")),
    }
}

fn type_names(distro: Distro) -> &'static [&'static str] {
    match distro {
        Distro::Humble => hibari_msgs::humble::TYPE_NAMES,
        Distro::Jazzy => hibari_msgs::jazzy::TYPE_NAMES,
    }
}

/// Runs `v` with the generated type `ty` of `distro`.
fn visit<V: TypeVisitor>(distro: Distro, ty: &TypeName, v: V) -> Result<V::Output> {
    let name = ty.to_string();
    match distro {
        Distro::Humble => hibari_msgs::humble::visit_type(&name, v),
        Distro::Jazzy => hibari_msgs::jazzy::visit_type(&name, v),
    }
    .ok_or_else(|| format!("no generated type {name} in {distro}"))
}

fn roundtrip(distro: Distro, registry: &Registry, ty: &TypeName, bytes: &[u8]) -> Result<Json> {
    let (typed, view_matches) = visit(distro, ty, TypedRoundtrip { bytes })??;

    let value =
        hibari_dynamic::decode(registry, ty, bytes).map_err(|e| format!("dynamic decode: {e}"))?;
    let dynamic =
        hibari_dynamic::encode(registry, ty, &value).map_err(|e| format!("dynamic encode: {e}"))?;
    let size = hibari_dynamic::encoded_size(registry, ty, &value)
        .map_err(|e| format!("dynamic encoded_size: {e}"))?;
    if size != dynamic.len() {
        return Err(format!(
            "dynamic encoded_size {size} != {} bytes written",
            dynamic.len()
        ));
    }
    let json = json_roundtrip(registry, ty, &value)?;

    Ok(json!({
        "typed": to_hex(&typed),
        "dynamic": to_hex(&dynamic),
        "json": to_hex(&json),
        "view_matches": view_matches,
    }))
}

/// `value` → rosbridge JSON text → `Value` → CDR.
fn json_roundtrip(
    registry: &Registry,
    ty: &TypeName,
    value: &hibari_dynamic::Value,
) -> Result<Vec<u8>> {
    let text = hibari_dynamic::to_json_string(registry, ty, value);
    let back = hibari_dynamic::from_json_str(registry, ty, &text)
        .map_err(|e| format!("from_json: {e} (json: {text})"))?;
    hibari_dynamic::encode(registry, ty, &back).map_err(|e| format!("encode after from_json: {e}"))
}

fn random(distro: Distro, registry: &Registry, ty: &TypeName, seed: u64) -> Result<Json> {
    let value = random::Generator::new(registry, seed).message(ty)?;
    let bytes = hibari_dynamic::encode(registry, ty, &value)
        .map_err(|e| format!("dynamic encode of random value: {e}\nvalue: {value}"))?;
    let back = hibari_dynamic::decode(registry, ty, &bytes)
        .map_err(|e| format!("dynamic decode of own bytes: {e}"))?;
    if back != value {
        return Err(format!(
            "dynamic decode differs from the encoded value:\n  encoded {value}\n  decoded {back}"
        ));
    }
    // A second instance of the same type, to decode over (allocation reuse).
    let other_value = random::Generator::new(registry, seed ^ 0x9e37_79b9_7f4a_7c15).message(ty)?;
    let other = hibari_dynamic::encode(registry, ty, &other_value)
        .map_err(|e| format!("dynamic encode of random value: {e}"))?;
    let typed = visit(
        distro,
        ty,
        TypedReencode {
            bytes: &bytes,
            dirty: &other,
        },
    )??;
    if typed != bytes {
        return Err(format!(
            "typed re-encode differs from dynamic encode:\n  dynamic {}\n  typed   {}",
            to_hex(&bytes),
            to_hex(&typed)
        ));
    }
    let json = json_roundtrip(registry, ty, &value)?;
    if json != bytes {
        return Err(format!(
            "JSON round trip differs from dynamic encode:\n  dynamic {}\n  json    {}",
            to_hex(&bytes),
            to_hex(&json)
        ));
    }
    Ok(json!({ "hex": to_hex(&bytes) }))
}

/// Typed decode → encode, plus the view, the size pass, slice encoding and
/// `decode_into` over a message holding other data.
struct TypedRoundtrip<'a> {
    bytes: &'a [u8],
}

impl TypeVisitor for TypedRoundtrip<'_> {
    type Output = Result<(Vec<u8>, bool)>;

    fn visit<M: HasView>(self) -> Self::Output {
        let m = M::from_cdr(self.bytes).map_err(|e| format!("typed from_cdr: {e}"))?;
        let out = encode_checked(&m)?;
        let view = M::view(self.bytes).map_err(|e| format!("typed view: {e}"))?;
        let owned = view.to_owned_message();
        let view_matches =
            owned == m && owned.to_cdr().map_err(|e| format!("view to_cdr: {e}"))? == out;
        Ok((out, view_matches))
    }
}

/// Typed decode of `bytes` (also over a message decoded from `dirty`) → encode.
struct TypedReencode<'a> {
    bytes: &'a [u8],
    dirty: &'a [u8],
}

impl TypeVisitor for TypedReencode<'_> {
    type Output = Result<Vec<u8>>;

    fn visit<M: HasView>(self) -> Self::Output {
        let m = M::from_cdr(self.bytes).map_err(|e| format!("typed from_cdr: {e}"))?;
        let mut reused = M::from_cdr(self.dirty).map_err(|e| format!("typed from_cdr: {e}"))?;
        reused
            .decode_into(self.bytes)
            .map_err(|e| format!("typed decode_into: {e}"))?;
        if reused != m {
            return Err(format!(
                "decode_into over another instance differs from from_cdr:\n  from_cdr    {m:?}\n  decode_into {reused:?}"
            ));
        }
        let view = M::view(self.bytes).map_err(|e| format!("typed view: {e}"))?;
        if view.to_owned_message() != m {
            return Err(format!(
                "view.to_owned_message() differs from from_cdr: {view:?}"
            ));
        }
        encode_checked(&m)
    }
}

/// `to_cdr`, cross-checked with `serialized_size` and `encode_into_slice`.
fn encode_checked<M: Message>(m: &M) -> Result<Vec<u8>> {
    let out = m.to_cdr().map_err(|e| format!("typed to_cdr: {e}"))?;
    let size = m
        .serialized_size()
        .map_err(|e| format!("typed serialized_size: {e}"))?;
    if size != out.len() {
        return Err(format!(
            "typed serialized_size {size} != {} bytes written",
            out.len()
        ));
    }
    let mut buf = vec![0xAA; size + 8];
    let n = m
        .encode_into_slice(&mut buf)
        .map_err(|e| format!("typed encode_into_slice: {e}"))?;
    if buf[..n] != out[..] {
        return Err("encode_into_slice differs from to_cdr".into());
    }
    Ok(out)
}

struct Definition;

impl TypeVisitor for Definition {
    type Output = &'static str;

    fn visit<M: HasView>(self) -> &'static str {
        M::DEFINITION
    }
}

fn to_hex(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        let _ = write!(s, "{b:02x}");
    }
    s
}

fn from_hex(hex: &str) -> Result<Vec<u8>> {
    // `chunks`, not `len() % 2`: keeps clippy quiet without needing Rust 1.87.
    hex.as_bytes()
        .chunks(2)
        .enumerate()
        .map(|(i, pair)| {
            std::str::from_utf8(pair)
                .ok()
                .filter(|d| d.len() == 2)
                .and_then(|d| u8::from_str_radix(d, 16).ok())
                .ok_or_else(|| format!("bad hex at {}", 2 * i))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The binary's own consistency checks for every type of both distros,
    /// without rosbags: random values encode identically through the dynamic,
    /// typed and JSON paths, and those bytes round-trip through all three.
    #[test]
    fn every_type_round_trips_its_own_random_instances() {
        for distro in Distro::ALL {
            // Dynamic values have no wstring (hibari_dynamic refuses it): the
            // vendored types with wstring fields are the only ones left out.
            let mut without_wstring = Vec::new();
            for name in type_names(distro) {
                for seed in 0..3u64 {
                    let base = json!({ "distro": distro.as_str(), "type": name });
                    let mut req = base.clone();
                    req["op"] = "random".into();
                    req["seed"] = seed.into();
                    let reply = handle(&req);
                    if reply["error"]
                        .as_str()
                        .is_some_and(|e| e.ends_with("wstring is not supported"))
                    {
                        without_wstring.push(name.to_string());
                        break;
                    }
                    let hex = reply["hex"]
                        .as_str()
                        .unwrap_or_else(|| panic!("{req}: {reply}"));
                    let mut req = base;
                    req["op"] = "roundtrip".into();
                    req["hex"] = hex.into();
                    let reply = handle(&req);
                    for path in ["typed", "dynamic", "json"] {
                        assert_eq!(reply[path], hex, "{path} of {name} seed {seed}: {reply}");
                    }
                    assert_eq!(reply["view_matches"], true, "{name} seed {seed}");
                }
            }
            assert_eq!(
                without_wstring,
                ["example_interfaces/msg/WString", "test_msgs/msg/WStrings"],
                "{distro:?}"
            );
        }
    }

    #[test]
    fn types_lists_the_generated_names() {
        let reply = handle(&json!({ "op": "types", "distro": "humble" }));
        let n = reply["types"].as_array().map(Vec::len);
        assert_eq!(n, Some(hibari_msgs::humble::TYPE_NAMES.len()));
    }

    #[test]
    fn big_endian_input_re_encodes_little_endian() {
        let req = json!({ "op": "roundtrip", "distro": "jazzy", "type": "std_msgs/msg/String",
                          "hex": "000000000000000668656c6c6f00" });
        let reply = handle(&req);
        assert_eq!(reply["typed"], "000100000600000068656c6c6f00", "{reply}");
        assert_eq!(reply["json"], "000100000600000068656c6c6f00", "{reply}");
    }

    #[test]
    fn bad_requests_are_errors_not_crashes() {
        for req in [
            json!({ "op": "roundtrip", "distro": "jazzy", "type": "std_msgs/msg/String", "hex": "0001000" }),
            json!({ "op": "roundtrip", "distro": "jazzy", "type": "std_msgs/msg/String", "hex": "00010000ff" }),
            json!({ "op": "random", "distro": "jazzy", "type": "no_pkg/msg/Nope", "seed": 1 }),
            json!({ "op": "random", "distro": "rolling", "type": "std_msgs/msg/String", "seed": 1 }),
            json!({ "op": "frobnicate", "distro": "jazzy", "type": "std_msgs/msg/String" }),
        ] {
            assert!(handle(&req)["error"].is_string(), "{req}");
        }
        let reply = handle(
            &json!({ "op": "batch", "requests": [{ "op": "types", "distro": "jazzy" }, {}] }),
        );
        assert!(reply["replies"][0]["types"].is_array());
        assert!(reply["replies"][1]["error"].is_string());
    }

    #[test]
    fn hex_round_trips() {
        assert_eq!(from_hex("00ff7a"), Ok(vec![0, 255, 0x7a]));
        assert_eq!(to_hex(&[0, 255, 0x7a]), "00ff7a");
        assert!(from_hex("0g").is_err());
    }
}

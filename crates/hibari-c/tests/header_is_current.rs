//! include/hibari.h is what cbindgen makes of the crate today.
//!
//! `cargo test -p hibari-c --test header_is_current -- --ignored regenerate`
//! rewrites it.

use std::path::{Path, PathBuf};

fn crate_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn header_path() -> PathBuf {
    crate_dir().join("include/hibari.h")
}

/// The header cbindgen generates from src/lib.rs (and the modules it names).
fn generate() -> String {
    let dir = crate_dir();
    let config = cbindgen::Config::from_file(dir.join("cbindgen.toml")).expect("cbindgen.toml");
    let bindings = cbindgen::Builder::new()
        .with_config(config)
        .with_src(Path::new(&dir).join("src/lib.rs"))
        .generate()
        .expect("cbindgen generates the header");
    let mut out = Vec::new();
    bindings.write(&mut out);
    String::from_utf8(out).expect("the header is UTF-8")
}

#[test]
fn the_checked_in_header_is_what_cbindgen_generates_today() {
    let expected = generate();
    let current = std::fs::read_to_string(header_path()).unwrap_or_default();
    if current != expected {
        let line = current
            .lines()
            .zip(expected.lines())
            .position(|(a, b)| a != b)
            .map_or_else(|| "its length".to_string(), |i| format!("line {}", i + 1));
        panic!(
            "include/hibari.h is out of date (it differs at {line}): run \
             `cargo test -p hibari-c --test header_is_current -- --ignored regenerate` \
             to update it, and commit it"
        );
    }
}

/// Rewrites include/hibari.h (ignored: run it by name to update the header).
#[test]
#[ignore = "rewrites include/hibari.h; run it to update the header"]
fn regenerate() {
    std::fs::write(header_path(), generate()).expect("write include/hibari.h");
}

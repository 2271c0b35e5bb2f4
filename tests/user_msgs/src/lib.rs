//! A crate the way a user writes one: its own interface package
//! (`tests/interfaces/test_msgs`) turned into Rust types by `build.rs`.
#![forbid(unsafe_code)]
include!(concat!(env!("OUT_DIR"), "/hibari_interfaces.rs"));

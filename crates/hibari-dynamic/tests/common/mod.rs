//! Definitions and helpers shared by the integration tests.
#![allow(dead_code)]

use hibari_idl::{Distro, Registry, TypeName};

pub type Defs = Registry;

pub fn ty(name: &str) -> TypeName {
    TypeName::parse(name).expect("type name")
}

/// The test types of interop.md §1.8 and a few of our own; the standard
/// ones come from the bundled Jazzy registry.
pub const TEXTS: &[(&str, &str)] = &[
    (
        "test_msgs/msg/Layout",
        "bool flag\nint64 big\nuint16 small\nstring<=10 name\nint32[3] fixed\n\
         int32[<=5] bounded\nstring[] names\ngeometry_msgs/Point32[] pts\nfloat64 last\n",
    ),
    ("test_msgs/msg/Padding", "uint8 a\nfloat64[] b\nuint8 c\n"),
    (
        "test_msgs/msg/Primitives",
        "bool b\nbyte o\nchar c\nint8 i8\nuint8 u8\nint16 i16\nuint16 u16\nint32 i32\n\
         uint32 u32\nint64 i64\nuint64 u64\nfloat32 f32\nfloat64 f64\nstring s\n",
    ),
    (
        "test_msgs/msg/Arrays",
        "bool[] bools\nbyte[2] octets\nchar[<=4] chars\nint8[] i8s\nuint8[] u8s\nint16[3] i16s\n\
         uint16[<=3] u16s\nint32[] i32s\nuint32[] u32s\nint64[] i64s\nuint64[2] u64s\n\
         float32[] f32s\nfloat64[<=4] f64s\nstring<=5[<=3] strings\nstring[2] pair\n\
         builtin_interfaces/Time[<=2] times\n",
    ),
    (
        "test_msgs/msg/Defaults",
        "int32 answer 42\nfloat32 ratio 0.1\nstring name \"hibari\"\nbool on true\n\
         int16[3] triple [1, 2, 3]\nfloat64[] xs [1.5, 2]\nuint8[4] bytes\n\
         builtin_interfaces/Time[2] times\n",
    ),
    ("test_msgs/msg/Tree", "int32 value\nTree[] children\n"),
    ("test_msgs/msg/Chain", "Chain next\n"),
    ("test_msgs/msg/Wide", "wstring w\n"),
];

/// The bundled Jazzy definitions plus [`TEXTS`], parsed by hibari-idl.
pub fn defs() -> Defs {
    let mut registry = Registry::bundled(Distro::Jazzy);
    for (name, text) in TEXTS {
        registry
            .add_msg_text(ty(name), text, name)
            .expect("test definition parses");
    }
    registry
}

/// Bytes from a hex dump: `0000:` offsets and `|` separators are ignored.
pub fn hex(dump: &str) -> Vec<u8> {
    dump.split_whitespace()
        .filter(|t| !t.ends_with(':') && *t != "|")
        .map(|t| u8::from_str_radix(t, 16).expect("hex byte"))
        .collect()
}

pub fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest as _;
    sha2::Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The stamp all interop.md vectors use.
pub const STAMP_JSON: &str = r#"{"sec": 1700000000, "nanosec": 123456789}"#;

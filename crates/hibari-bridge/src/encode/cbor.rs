//! CBOR for `compression: "cbor"` and `"cbor-raw"` (bridge.md §1.5).
//!
//! As rosbridge's `cbor_conversion`: the whole `{"op","topic","msg"}` object
//! is one CBOR map; strings are text strings; `uint8[]`/`char[]` are byte
//! strings; numeric arrays are RFC 8746 typed arrays, little-endian (tag 72
//! int8, 69 uint16, 70 uint32, 71 uint64, 77 int16, 78 int32, 79 int64, 85
//! float32, 86 float64); bool and string arrays are plain arrays; floats are
//! doubles, NaN and infinities kept. roslibjs' `cbor2` decodes the tags into
//! `TypedArray`s.

use hibari::dynamic::Value;

/// A CBOR writer into a `Vec`.
pub(crate) struct Cbor {
    pub out: Vec<u8>,
}

impl Cbor {
    pub fn with_capacity(n: usize) -> Self {
        Cbor {
            out: Vec::with_capacity(n),
        }
    }

    fn head(&mut self, major: u8, n: u64) {
        let m = major << 5;
        if n < 24 {
            self.out.push(m | n as u8);
        } else if n <= u8::MAX as u64 {
            self.out.extend_from_slice(&[m | 24, n as u8]);
        } else if n <= u16::MAX as u64 {
            self.out.push(m | 25);
            self.out.extend_from_slice(&(n as u16).to_be_bytes());
        } else if n <= u32::MAX as u64 {
            self.out.push(m | 26);
            self.out.extend_from_slice(&(n as u32).to_be_bytes());
        } else {
            self.out.push(m | 27);
            self.out.extend_from_slice(&n.to_be_bytes());
        }
    }

    pub fn map(&mut self, len: usize) {
        self.head(5, len as u64);
    }

    pub fn text(&mut self, s: &str) {
        self.head(3, s.len() as u64);
        self.out.extend_from_slice(s.as_bytes());
    }

    pub fn bytes(&mut self, b: &[u8]) {
        self.head(2, b.len() as u64);
        self.out.extend_from_slice(b);
    }

    pub fn uint(&mut self, u: u64) {
        self.head(0, u);
    }

    pub fn int(&mut self, i: i64) {
        if i >= 0 {
            self.head(0, i as u64);
        } else {
            self.head(1, !(i as u64));
        }
    }

    fn float(&mut self, x: f64) {
        self.out.push(0xfb);
        self.out.extend_from_slice(&x.to_bits().to_be_bytes());
    }

    fn typed<T: Copy, const N: usize>(&mut self, tag: u64, xs: &[T], le: impl Fn(T) -> [u8; N]) {
        self.head(6, tag);
        self.head(2, (xs.len() * N) as u64);
        for &x in xs {
            self.out.extend_from_slice(&le(x));
        }
    }

    /// Writes a message value.
    pub fn value(&mut self, v: &Value) {
        match v {
            Value::Bool(b) => self.out.push(if *b { 0xf5 } else { 0xf4 }),
            Value::Int(i) => self.int(*i),
            Value::UInt(u) => self.uint(*u),
            Value::Float(x) => self.float(*x),
            Value::String(s) => self.text(s),
            Value::Bytes(b) => self.bytes(b),
            Value::I8s(x) => self.typed(72, x, |v: i8| v.to_le_bytes()),
            Value::I16s(x) => self.typed(77, x, |v: i16| v.to_le_bytes()),
            Value::U16s(x) => self.typed(69, x, |v: u16| v.to_le_bytes()),
            Value::I32s(x) => self.typed(78, x, |v: i32| v.to_le_bytes()),
            Value::U32s(x) => self.typed(70, x, |v: u32| v.to_le_bytes()),
            Value::I64s(x) => self.typed(79, x, |v: i64| v.to_le_bytes()),
            Value::U64s(x) => self.typed(71, x, |v: u64| v.to_le_bytes()),
            Value::F32s(x) => self.typed(85, x, |v: f32| v.to_le_bytes()),
            Value::F64s(x) => self.typed(86, x, |v: f64| v.to_le_bytes()),
            Value::Array(items) => {
                self.head(4, items.len() as u64);
                for item in items {
                    self.value(item);
                }
            }
            Value::Message(s) => {
                self.map(s.len());
                for (name, field) in s.iter() {
                    self.text(name);
                    self.value(field);
                }
            }
        }
    }
}

/// `{"op":"publish","topic":T,"msg":msg}` as CBOR.
pub(crate) fn publish(topic: &str, msg: &Value) -> Vec<u8> {
    let mut c = Cbor::with_capacity(64);
    c.map(3);
    c.text("op");
    c.text("publish");
    c.text("topic");
    c.text(topic);
    c.text("msg");
    c.value(msg);
    c.out
}

/// cbor-raw: `{"op":"publish","topic":T,"msg":{"secs","nsecs","bytes"}}`
/// with the CDR bytes (header included) and the receive time.
pub(crate) fn publish_raw(topic: &str, cdr: &[u8], received_ns: i64) -> Vec<u8> {
    let mut c = Cbor::with_capacity(cdr.len() + 64);
    c.map(3);
    c.text("op");
    c.text("publish");
    c.text("topic");
    c.text(topic);
    c.text("msg");
    c.map(3);
    c.text("secs");
    c.int(received_ns.div_euclid(1_000_000_000));
    c.text("nsecs");
    c.int(received_ns.rem_euclid(1_000_000_000));
    c.text("bytes");
    c.bytes(cdr);
    c.out
}

#[cfg(test)]
mod tests {
    use super::*;
    use hibari::dynamic::Struct;

    fn bytes_of(v: &Value) -> Vec<u8> {
        let mut c = Cbor::with_capacity(16);
        c.value(v);
        c.out
    }

    #[test]
    fn heads_use_the_shortest_form_and_negative_integers_major_type_one() {
        assert_eq!(bytes_of(&Value::Int(-1)), [0x20]);
        assert_eq!(bytes_of(&Value::Int(-25)), [0x38, 24]);
        assert_eq!(bytes_of(&Value::UInt(23)), [0x17]);
        assert_eq!(bytes_of(&Value::UInt(24)), [0x18, 24]);
        assert_eq!(bytes_of(&Value::UInt(65536)), [0x1a, 0, 1, 0, 0]);
        assert_eq!(bytes_of(&Value::UInt(u64::MAX))[0], 0x1b);
        assert_eq!(bytes_of(&Value::Int(i64::MIN))[..2], [0x3b, 0x7f]);
        assert_eq!(bytes_of(&Value::String("a".into())), [0x61, b'a']);
        assert_eq!(bytes_of(&Value::Bool(true)), [0xf5]);
        assert_eq!(bytes_of(&Value::Float(1.0))[0], 0xfb);
    }

    #[test]
    fn numeric_arrays_are_little_endian_typed_arrays_and_bytes_are_byte_strings() {
        assert_eq!(
            bytes_of(&Value::U16s(vec![1, 2])),
            [0xd8, 69, 0x44, 1, 0, 2, 0]
        );
        assert_eq!(bytes_of(&Value::I8s(vec![-1])), [0xd8, 72, 0x41, 0xff]);
        assert_eq!(bytes_of(&Value::F64s(vec![])), [0xd8, 86, 0x40]);
        assert_eq!(bytes_of(&Value::Bytes(vec![9, 8])), [0x42, 9, 8]);
        let msg = Value::Message(Struct::new().with("x", Value::UInt(1)));
        assert_eq!(bytes_of(&msg), [0xa1, 0x61, b'x', 0x01]);
        let decoded: ciborium::Value =
            ciborium::from_reader(&publish("/t", &msg)[..]).expect("valid CBOR");
        assert!(decoded.is_map());
    }
}

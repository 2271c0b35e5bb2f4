//! Random [`Value`]s shaped by a definition, for the hibari → rosbags direction.
//!
//! Every value is in canonical shape (what `hibari_dynamic::decode` returns),
//! so decoding the encoded bytes must give the value back. Bounds are kept,
//! because hibari's encoders refuse out-of-bound values (interop.md §1.5).

use hibari_dynamic::{Struct, Value};
use hibari_idl::model::{ArrayKind, BaseType, FieldType, Primitive as Prim, TypeName};
use hibari_idl::Registry;

/// Longest sequence generated (fixed arrays always get their exact length).
pub const MAX_SEQ: usize = 8;
/// Most characters in a generated string (fewer when the bound is smaller).
const MAX_CHARS: usize = 8;

/// Characters strings are drawn from: ASCII, control characters (but never
/// NUL, which CDR strings cannot hold), and 2-, 3- and 4-byte UTF-8.
const CHARS: &[char] = &[
    'a',
    'Z',
    '0',
    ' ',
    '/',
    '_',
    '"',
    '\\',
    '\n',
    '\t',
    '\u{1}',
    '\u{7f}',
    'é',
    'ß',
    'Ω',
    '\u{80}',
    '日',
    '本',
    '\u{fffd}',
    '\u{ffff}',
    '🦀',
    '😀',
    '\u{10ffff}',
];

pub struct Generator<'r> {
    registry: &'r Registry,
    rng: fastrand::Rng,
}

impl<'r> Generator<'r> {
    pub fn new(registry: &'r Registry, seed: u64) -> Self {
        Generator {
            registry,
            rng: fastrand::Rng::with_seed(seed),
        }
    }

    /// A random instance of message `name`.
    pub fn message(&mut self, name: &TypeName) -> Result<Value, String> {
        let def = self
            .registry
            .message(name)
            .ok_or_else(|| format!("unknown type {name}"))?;
        let mut s = Struct::with_capacity(def.fields.len());
        for field in &def.fields {
            let v = self
                .field(&field.ty)
                .map_err(|e| format!("{name}.{}: {e}", field.name))?;
            s.set(field.name.clone(), v);
        }
        Ok(Value::Message(s))
    }

    fn field(&mut self, ty: &FieldType) -> Result<Value, String> {
        let n = match ty.array {
            ArrayKind::Single => return self.single(&ty.base),
            ArrayKind::Fixed(n) => n as usize,
            ArrayKind::Bounded(n) => self.rng.usize(0..=MAX_SEQ.min(n as usize)),
            ArrayKind::Unbounded => self.rng.usize(0..=MAX_SEQ),
        };
        self.array(&ty.base, n)
    }

    fn single(&mut self, base: &BaseType) -> Result<Value, String> {
        Ok(match base {
            BaseType::Primitive(p) => self.scalar(*p),
            BaseType::String { bound } => Value::String(self.string(*bound)),
            BaseType::WString { .. } => return Err("wstring is not supported".into()),
            BaseType::Named(t) => self.message(t)?,
        })
    }

    fn array(&mut self, base: &BaseType, n: usize) -> Result<Value, String> {
        macro_rules! many {
            ($variant:ident, $f:expr) => {
                Value::$variant((0..n).map(|_| $f).collect())
            };
        }
        let p = match base {
            BaseType::Primitive(p) => *p,
            _ => {
                return Ok(Value::Array(
                    (0..n)
                        .map(|_| self.single(base))
                        .collect::<Result<_, _>>()?,
                ))
            }
        };
        Ok(match p {
            Prim::Bool => many!(Array, Value::Bool(self.rng.bool())),
            Prim::Byte | Prim::Char | Prim::UInt8 => {
                many!(Bytes, self.int(0, u8::MAX.into()) as u8)
            }
            Prim::Int8 => many!(I8s, self.int(i8::MIN.into(), i8::MAX.into()) as i8),
            Prim::Int16 => many!(I16s, self.int(i16::MIN.into(), i16::MAX.into()) as i16),
            Prim::UInt16 => many!(U16s, self.int(0, u16::MAX.into()) as u16),
            Prim::Int32 => many!(I32s, self.int(i32::MIN.into(), i32::MAX.into()) as i32),
            Prim::UInt32 => many!(U32s, self.int(0, u32::MAX.into()) as u32),
            Prim::Int64 => many!(I64s, self.int(i64::MIN.into(), i64::MAX.into()) as i64),
            Prim::UInt64 => many!(U64s, self.int(0, u64::MAX.into()) as u64),
            Prim::Float32 => many!(F32s, self.f32()),
            Prim::Float64 => many!(F64s, self.f64()),
        })
    }

    fn scalar(&mut self, p: Prim) -> Value {
        match p {
            Prim::Bool => Value::Bool(self.rng.bool()),
            Prim::Float32 => Value::Float(self.f32().into()),
            Prim::Float64 => Value::Float(self.f64()),
            _ => {
                let (lo, hi) = p.int_range().expect("integer primitive");
                let i = self.int(lo, hi);
                if lo < 0 {
                    Value::Int(i as i64)
                } else {
                    Value::UInt(i as u64)
                }
            }
        }
    }

    /// An integer in `lo..=hi`: often an edge (min, max, 0, ±1), else uniform.
    fn int(&mut self, lo: i128, hi: i128) -> i128 {
        match self.rng.u8(0..8) {
            0 => lo,
            1 => hi,
            2 => 0.clamp(lo, hi),
            3 => 1.clamp(lo, hi),
            4 => (-1).clamp(lo, hi),
            _ => {
                // Uniform over the type: i128 covers every range up to u64.
                let span = (hi - lo) as u128;
                let r = ((u128::from(self.rng.u64(..)) << 64) | u128::from(self.rng.u64(..)))
                    % (span + 1);
                lo + r as i128
            }
        }
    }

    /// A finite `f64`: zeros of both signs, subnormals, huge values, ordinary
    /// values, and random bit patterns.
    fn f64(&mut self) -> f64 {
        let sign = if self.rng.bool() { -1.0 } else { 1.0 };
        match self.rng.u8(0..10) {
            0 => -0.0,
            1 => 0.0,
            2 => sign * f64::from_bits(self.rng.u64(1..(1 << 52))), // subnormal
            3 => sign * f64::MIN_POSITIVE,
            4 => sign * f64::MAX * self.rng.f64().max(0.5),
            5 => sign * f64::MAX,
            6 | 7 => sign * self.rng.f64() * 1000.0,
            _ => loop {
                let x = f64::from_bits(self.rng.u64(..));
                if x.is_finite() {
                    break x;
                }
            },
        }
    }

    /// A finite `f32`, drawn like [`f64`](Self::f64).
    fn f32(&mut self) -> f32 {
        let sign = if self.rng.bool() { -1.0 } else { 1.0 };
        match self.rng.u8(0..10) {
            0 => -0.0,
            1 => 0.0,
            2 => sign * f32::from_bits(self.rng.u32(1..(1 << 23))),
            3 => sign * f32::MIN_POSITIVE,
            4 => sign * f32::MAX * self.rng.f32().max(0.5),
            5 => sign * f32::MAX,
            6 | 7 => sign * self.rng.f32() * 1000.0,
            _ => loop {
                let x = f32::from_bits(self.rng.u32(..));
                if x.is_finite() {
                    break x;
                }
            },
        }
    }

    /// A string of up to [`MAX_CHARS`] characters whose UTF-8 length stays
    /// within `bound` bytes (so it is in bounds whether bounds count bytes or
    /// characters).
    fn string(&mut self, bound: Option<u32>) -> String {
        let max_bytes = bound.map_or(usize::MAX, |b| b as usize);
        let n = self.rng.usize(0..=MAX_CHARS);
        let mut s = String::new();
        for _ in 0..n {
            let c = if self.rng.bool() {
                char::from(self.rng.u8(0x20..0x7f))
            } else {
                CHARS[self.rng.usize(..CHARS.len())]
            };
            if s.len() + c.len_utf8() > max_bytes {
                break;
            }
            s.push(c);
        }
        s
    }
}

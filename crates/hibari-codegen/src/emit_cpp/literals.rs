//! C++ literals of ROS default values and constants.

use std::fmt::Write;

use hibari_idl::model::{ArrayKind, BaseType, FieldType, Literal, Primitive};

/// A literal as a C++ expression of the element type `base`.
pub fn literal(lit: &Literal, base: &BaseType) -> String {
    match (lit, base) {
        (Literal::Bool(b), _) => b.to_string(),
        (Literal::Int(i), BaseType::Primitive(p)) => int_literal(*i, *p),
        (Literal::Float(f), BaseType::Primitive(p)) => float_literal(*f, *p),
        (Literal::String(s), BaseType::WString { .. }) => wide_string_literal(s),
        (Literal::String(s), _) => string_literal(s),
        (Literal::Array(items), _) => {
            let inner: Vec<String> = items.iter().map(|l| literal(l, base)).collect();
            format!("{{{}}}", inner.join(", "))
        }
        (Literal::Int(i), _) => i.to_string(),
        (Literal::Float(f), _) => float_literal(*f, Primitive::Float64),
    }
}

fn int_literal(i: i128, p: Primitive) -> String {
    match p {
        Primitive::Bool => (i != 0).to_string(),
        Primitive::Float32 | Primitive::Float64 => float_literal(i as f64, p),
        // -2^63 has no literal: 9223372036854775808 does not fit in long long.
        Primitive::Int64 if i == i64::MIN as i128 => "(-9223372036854775807LL - 1)".to_owned(),
        Primitive::Int64 => format!("{i}LL"),
        Primitive::UInt64 => format!("{i}ULL"),
        Primitive::UInt32 => format!("{i}UL"),
        // -2^31 is `-(2147483648)`, a long, which converts without warning.
        _ => i.to_string(),
    }
}

fn float_literal(f: f64, p: Primitive) -> String {
    let (ty, suffix) = match p {
        Primitive::Float32 => ("float", "f"),
        _ => ("double", ""),
    };
    if f.is_nan() {
        format!("::std::numeric_limits<{ty}>::quiet_NaN()")
    } else if f.is_infinite() {
        let sign = if f < 0.0 { "-" } else { "" };
        format!("{sign}::std::numeric_limits<{ty}>::infinity()")
    } else {
        // Rust's shortest round-trip form (`0.1`, `1e-7`, `1.0`) is a valid
        // C++ floating literal, and as text it is what rosidl writes.
        format!("{f:?}{suffix}")
    }
}

/// A narrow string literal of the UTF-8 bytes; everything but printable
/// ASCII is an octal escape (never `\x`, whose digits run on).
pub fn string_literal(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for b in s.bytes() {
        match b {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            b'?' => out.push_str("\\?"),
            b'\n' => out.push_str("\\n"),
            b'\t' => out.push_str("\\t"),
            0x20..=0x7e => out.push(b as char),
            _ => {
                let _ = write!(out, "\\{b:03o}");
            }
        }
    }
    out.push('"');
    out
}

/// A `u"…"` literal: non-ASCII characters as universal character names.
pub fn wide_string_literal(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 3);
    out.push_str("u\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '?' => out.push_str("\\?"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            ' '..='~' => out.push(c),
            c if (c as u32) < 0x80 => {
                let _ = write!(out, "\\{:03o}", c as u32);
            }
            c if (c as u32) <= 0xFFFF => {
                let _ = write!(out, "\\u{:04X}", c as u32);
            }
            c => {
                let _ = write!(out, "\\U{:08X}", c as u32);
            }
        }
    }
    out.push('"');
    out
}

/// The member initializer of a field (`{}` when zero/empty is the default):
/// the definition's default value, else zero, `false` or empty.
pub fn initializer(ty: &FieldType, default: Option<&Literal>) -> String {
    match (ty.array, default) {
        (ArrayKind::Single, Some(lit)) => format!("{{{}}}", literal(lit, &ty.base)),
        (ArrayKind::Fixed(_), Some(Literal::Array(items))) => {
            let inner: Vec<String> = items.iter().map(|l| literal(l, &ty.base)).collect();
            format!("{{{{{}}}}}", inner.join(", "))
        }
        (ArrayKind::Bounded(_) | ArrayKind::Unbounded, Some(Literal::Array(items))) => {
            let inner: Vec<String> = items.iter().map(|l| literal(l, &ty.base)).collect();
            format!("{{{}}}", inner.join(", "))
        }
        _ => "{}".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_are_valid_cpp() {
        let p = |p| BaseType::Primitive(p);
        assert_eq!(literal(&Literal::Int(-5), &p(Primitive::Int8)), "-5");
        assert_eq!(
            literal(&Literal::Int(i64::MIN as i128), &p(Primitive::Int64)),
            "(-9223372036854775807LL - 1)"
        );
        assert_eq!(
            literal(&Literal::Int(u64::MAX as i128), &p(Primitive::UInt64)),
            "18446744073709551615ULL"
        );
        assert_eq!(literal(&Literal::Int(3), &p(Primitive::Float32)), "3.0f");
        assert_eq!(
            literal(&Literal::Float(1e-7), &p(Primitive::Float64)),
            "1e-7"
        );
        assert_eq!(literal(&Literal::Int(2), &p(Primitive::Bool)), "true");
        assert_eq!(
            string_literal("a\"b\\c?\n\u{1}é"),
            r#""a\"b\\c\?\n\001\303\251""#
        );
        assert_eq!(wide_string_literal("hé😀"), r#"u"h\u00E9\U0001F600""#);
    }
}

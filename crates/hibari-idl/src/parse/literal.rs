//! Default values and constant values.
//!
//! The rules are rosidl's (`parse_value_string` and
//! `parse_primitive_value_string` in rosidl_adapter): booleans are
//! `true`/`false`/`1`/`0` in any case, integers are range-checked and may be
//! written as Python's `int(x, 0)` reads them, floats use `.`, strings may be
//! quoted with `"` or `'` (or not quoted at all), and arrays are `[a, b, c]`
//! with their size checked against the type. Backslash escapes in strings are
//! then resolved the way rosidl's IDL conversion does (`\n`, `\t`, `\\`,
//! `\xNN`, `\uNNNN`, ...), so the value is what generated code would hold.

use super::escape::unescape;
use crate::model::{ArrayKind, BaseType, Literal, Primitive};

/// Parses a default value for a field of type `base` repeated as `array`.
pub fn parse_default(base: &BaseType, array: ArrayKind, text: &str) -> Result<Literal, String> {
    if let BaseType::Named(name) = base {
        return Err(format!(
            "default values are only allowed for primitive and string fields, not for `{name}`"
        ));
    }
    if array == ArrayKind::Single {
        return parse_scalar(base, text);
    }
    let inner = text
        .strip_prefix('[')
        .and_then(|t| t.strip_suffix(']'))
        .ok_or_else(|| format!("an array default is written `[a, b, c]`, not `{text}`"))?;
    let elements: Vec<Literal> =
        if matches!(base, BaseType::String { .. } | BaseType::WString { .. }) {
            split_string_array(inner)?
                .into_iter()
                .map(|(raw, quoted)| {
                    if quoted {
                        finish_string(base, unescape(&raw))
                    } else {
                        parse_scalar(base, raw.trim())
                    }
                })
                .collect::<Result<_, _>>()?
        } else if inner.trim().is_empty() {
            Vec::new()
        } else {
            inner
                .split(',')
                .enumerate()
                .map(|(i, element)| {
                    parse_scalar(base, element.trim()).map_err(|e| format!("element {i}: {e}"))
                })
                .collect::<Result<_, _>>()?
        };
    match array {
        ArrayKind::Fixed(n) if elements.len() != n as usize => Err(format!(
            "the array default must have exactly {n} elements, not {}",
            elements.len()
        )),
        ArrayKind::Bounded(n) if elements.len() > n as usize => Err(format!(
            "the array default must have at most {n} elements, not {}",
            elements.len()
        )),
        _ => Ok(Literal::Array(elements)),
    }
}

/// Parses the value of a single primitive or string (constants and scalar defaults).
pub fn parse_scalar(base: &BaseType, text: &str) -> Result<Literal, String> {
    match base {
        BaseType::Primitive(Primitive::Bool) => match text.to_ascii_lowercase().as_str() {
            "true" | "1" => Ok(Literal::Bool(true)),
            "false" | "0" => Ok(Literal::Bool(false)),
            _ => Err(format!(
                "`{text}` is not a bool: write `true`, `false`, `1` or `0`"
            )),
        },
        BaseType::Primitive(p @ (Primitive::Float32 | Primitive::Float64)) => {
            parse_float(text).map(Literal::Float).ok_or_else(|| {
                format!(
                    "`{text}` is not a {}: write a number with `.` as the decimal separator",
                    p.msg_name()
                )
            })
        }
        BaseType::Primitive(p) => {
            let (lo, hi) = p.int_range().expect("integer primitive");
            match parse_int(text) {
                Some(v) if (lo..=hi).contains(&v) => Ok(Literal::Int(v)),
                _ => Err(format!(
                    "`{text}` is not a {}: write an integer from {lo} to {hi}",
                    p.msg_name()
                )),
            }
        }
        BaseType::String { .. } | BaseType::WString { .. } => {
            let value = unquote(text)?;
            finish_string(base, unescape(&value))
        }
        BaseType::Named(name) => Err(format!("`{name}` cannot have a value")),
    }
}

/// Checks a string value against the type's bound.
fn finish_string(base: &BaseType, value: String) -> Result<Literal, String> {
    let bound = match base {
        BaseType::String { bound } | BaseType::WString { bound } => *bound,
        _ => None,
    };
    match bound {
        Some(n) if value.chars().count() > n as usize => Err(format!(
            "the string `{value}` is longer than its bound of {n} characters"
        )),
        _ => Ok(Literal::String(value)),
    }
}

/// Removes one pair of matching outer quotes; inner quotes of that kind must
/// be escaped, and their escapes are resolved here.
fn unquote(text: &str) -> Result<String, String> {
    for quote in ['"', '\''] {
        if text.len() >= 2 && text.starts_with(quote) && text.ends_with(quote) {
            let inner = &text[1..text.len() - 1];
            let mut out = String::with_capacity(inner.len());
            let mut chars = inner.chars().peekable();
            while let Some(c) = chars.next() {
                if c == '\\' && chars.peek() == Some(&quote) {
                    out.push(quote);
                    chars.next();
                } else if c == '\\' {
                    out.push(c);
                    if let Some(next) = chars.next() {
                        out.push(next);
                    }
                } else if c == quote {
                    return Err(format!(
                        "the quote inside {text} must be escaped as `\\{quote}`"
                    ));
                } else {
                    out.push(c);
                }
            }
            return Ok(out);
        }
    }
    Ok(text.to_string())
}

/// Splits the inside of a string-array default into elements, honouring
/// quotes (a comma inside quotes is not a separator). Quoted elements come
/// back with their quote escapes resolved and `true`.
fn split_string_array(mut rest: &str) -> Result<Vec<(String, bool)>, String> {
    let mut out = Vec::new();
    loop {
        rest = rest.trim_start();
        if rest.is_empty() {
            return Ok(out);
        }
        if rest.starts_with(',') {
            return Err("an array element is missing before `,`".to_string());
        }
        let quote = rest.chars().next().filter(|c| *c == '"' || *c == '\'');
        if let Some(quote) = quote {
            let mut value = String::new();
            let mut end = None;
            let mut chars = rest.char_indices().skip(1).peekable();
            while let Some((i, c)) = chars.next() {
                if c == '\\' {
                    match chars.next() {
                        Some((_, n)) if n == quote => value.push(quote),
                        Some((_, n)) => {
                            value.push(c);
                            value.push(n);
                        }
                        None => value.push(c),
                    }
                } else if c == quote {
                    end = Some(i);
                    break;
                } else {
                    value.push(c);
                }
            }
            let end = end.ok_or_else(|| format!("the string {rest} has no closing {quote}"))?;
            out.push((value, true));
            rest = rest[end + 1..].trim_start();
            if !rest.is_empty() {
                rest = rest.strip_prefix(',').ok_or_else(|| {
                    format!("expected `,` between array elements before `{rest}`")
                })?;
            }
        } else {
            let (element, tail) = rest.split_once(',').unwrap_or((rest, ""));
            out.push((element.to_string(), false));
            rest = tail;
        }
    }
}

/// Reads an integer like Python's `int(x)` or, failing that, `int(x, 0)`:
/// decimal (leading zeros allowed), `0x`, `0o`, `0b`, an optional sign and
/// single `_` between digits.
pub fn parse_int(text: &str) -> Option<i128> {
    let text = text.trim();
    let (negative, unsigned) = match text.as_bytes().first()? {
        b'-' => (true, &text[1..]),
        b'+' => (false, &text[1..]),
        _ => (false, text),
    };
    let lower = unsigned.get(..2).map(str::to_ascii_lowercase);
    let (radix, digits, prefixed) = match lower.as_deref() {
        Some("0x") => (16, &unsigned[2..], true),
        Some("0o") => (8, &unsigned[2..], true),
        Some("0b") => (2, &unsigned[2..], true),
        _ => (10, unsigned, false),
    };
    let digits = if prefixed {
        digits.strip_prefix('_').unwrap_or(digits)
    } else {
        digits
    };
    let clean = strip_digit_underscores(digits)?;
    let magnitude = i128::from_str_radix(&clean, radix).ok()?;
    Some(if negative { -magnitude } else { magnitude })
}

/// Reads a float like Python's `float(x)`: `1`, `-2.5`, `.5`, `1e-3`, `inf`, `nan`.
pub fn parse_float(text: &str) -> Option<f64> {
    let text = text.trim();
    if text.contains('_') {
        let ok = text
            .as_bytes()
            .windows(3)
            .all(|w| w[1] != b'_' || (w[0].is_ascii_digit() && w[2].is_ascii_digit()))
            && !text.starts_with('_')
            && !text.ends_with('_');
        if !ok {
            return None;
        }
        return text.replace('_', "").parse().ok();
    }
    text.parse().ok()
}

/// Removes single underscores between digits; `None` if any other use of `_`
/// or a non-alphanumeric character appears.
fn strip_digit_underscores(digits: &str) -> Option<String> {
    if digits.is_empty()
        || digits.starts_with('_')
        || digits.ends_with('_')
        || digits.contains("__")
        || !digits
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_')
    {
        return None;
    }
    Some(digits.replace('_', ""))
}

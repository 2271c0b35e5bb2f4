//! Scalars as YAML text, the way Python and PyYAML write them (what
//! `ros2`'s output is made of), and YAML's special floats read back.

/// A YAML float: `.inf`, `-.inf`, `.nan` or a number.
pub(super) fn parse_real(text: &str) -> Option<f64> {
    match text.trim_start_matches('+').to_ascii_lowercase().as_str() {
        ".inf" => Some(f64::INFINITY),
        "-.inf" => Some(f64::NEG_INFINITY),
        ".nan" => Some(f64::NAN),
        t => t.parse().ok(),
    }
}

/// A float as PyYAML prints it: Python's `repr` with `.0` added to an
/// exponent form's mantissa, `.nan`, `.inf`.
pub fn float(f: f64) -> String {
    if f.is_nan() {
        return ".nan".into();
    }
    if f.is_infinite() {
        return if f > 0.0 { ".inf" } else { "-.inf" }.into();
    }
    let repr = py_float(f);
    match repr.split_once('e') {
        Some((m, e)) if !m.contains('.') => format!("{m}.0e{e}"),
        _ => repr,
    }
}

/// A float as Python's `repr` prints it (`0.5`, `1e-05`, `1e+16`).
pub fn py_float(f: f64) -> String {
    if f.is_nan() {
        return "nan".into();
    }
    if f.is_infinite() {
        return if f > 0.0 { "inf" } else { "-inf" }.into();
    }
    let abs = f.abs();
    if abs != 0.0 && !(1e-4..1e16).contains(&abs) {
        let text = format!("{f:e}");
        let (mantissa, exp) = text.split_once('e').unwrap_or((&text, "0"));
        let exp: i32 = exp.parse().unwrap_or(0);
        let sign = if exp < 0 { '-' } else { '+' };
        return format!("{mantissa}e{sign}{:02}", exp.abs());
    }
    format!("{f:?}")
}

/// A string as PyYAML writes it: plain when it reads back as the same
/// string, single-quoted otherwise, double-quoted with escapes when it holds
/// line breaks or control characters.
pub fn quote(s: &str) -> String {
    if s.chars().any(|c| c.is_control()) {
        return serde_json::to_string(s).unwrap_or_default();
    }
    if needs_quotes(s) {
        format!("'{}'", s.replace('\'', "''"))
    } else {
        s.to_owned()
    }
}

fn needs_quotes(s: &str) -> bool {
    if s.is_empty() || s.starts_with(' ') || s.ends_with(' ') {
        return true;
    }
    let first = s.chars().next().unwrap_or(' ');
    if "-?:,[]{}#&*!|>'\"%@`".contains(first) {
        return true;
    }
    if s.contains(": ") || s.contains(" #") || s.ends_with(':') {
        return true;
    }
    // Text that YAML would read as another type.
    let lower = s.to_ascii_lowercase();
    matches!(
        lower.as_str(),
        "true" | "false" | "yes" | "no" | "on" | "off" | "y" | "n" | "null" | "~"
    ) || parse_real(s).is_some()
        || s.parse::<i64>().is_ok()
}

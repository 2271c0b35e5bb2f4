//! Backslash escapes in string values, resolved the way Python's
//! `unicode_escape` codec does (rosidl runs it when turning `.msg` defaults
//! into IDL string literals).

/// Resolves `\\`, `\'`, `\"`, `\a`, `\b`, `\f`, `\n`, `\r`, `\t`, `\v`,
/// `\ooo` (octal), `\xHH`, `\uHHHH` and `\UHHHHHHHH`. Anything else after a
/// backslash, and malformed escapes, are kept as written.
pub fn unescape(text: &str) -> String {
    if !text.contains('\\') {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(pos) = rest.find('\\') {
        out.push_str(&rest[..pos]);
        let after = &rest[pos + 1..];
        let (value, used) = escape_at(after);
        match value {
            Some(c) => out.push(c),
            None => out.push('\\'),
        }
        rest = &after[used..];
    }
    out.push_str(rest);
    out
}

/// Decodes the escape that starts right after a backslash. Returns the
/// character (or `None` to keep the backslash literally) and how many bytes
/// of `after` it consumed.
fn escape_at(after: &str) -> (Option<char>, usize) {
    let Some(first) = after.chars().next() else {
        return (None, 0);
    };
    let simple = match first {
        '\\' => Some('\\'),
        '\'' => Some('\''),
        '"' => Some('"'),
        'a' => Some('\u{07}'),
        'b' => Some('\u{08}'),
        'f' => Some('\u{0c}'),
        'n' => Some('\n'),
        'r' => Some('\r'),
        't' => Some('\t'),
        'v' => Some('\u{0b}'),
        _ => None,
    };
    if simple.is_some() {
        return (simple, 1);
    }
    let hex = |len: usize| -> (Option<char>, usize) {
        let digits = after
            .get(1..1 + len)
            .filter(|d| d.len() == len && d.bytes().all(|b| b.is_ascii_hexdigit()));
        match digits
            .and_then(|d| u32::from_str_radix(d, 16).ok())
            .and_then(char::from_u32)
        {
            Some(c) => (Some(c), 1 + len),
            None => (None, 0),
        }
    };
    match first {
        'x' => hex(2),
        'u' => hex(4),
        'U' => hex(8),
        '0'..='7' => {
            let len = after
                .bytes()
                .take(3)
                .take_while(|b| (b'0'..=b'7').contains(b))
                .count();
            let value = u32::from_str_radix(&after[..len], 8).expect("octal digits");
            (char::from_u32(value), len)
        }
        _ => (None, 0),
    }
}

#[cfg(test)]
mod tests {
    use super::unescape;

    #[test]
    fn common_escapes_become_their_characters() {
        assert_eq!(unescape(r"a\nb\tc\\d"), "a\nb\tc\\d");
        assert_eq!(unescape(r#"\"q\'"#), "\"q'");
        assert_eq!(unescape(r"\x41\u00e9\U0001F600\101\0"), "Aé😀A\0");
    }

    #[test]
    fn unknown_or_malformed_escapes_stay_as_written() {
        assert_eq!(unescape(r"\q\xZZ\u12"), r"\q\xZZ\u12");
        assert_eq!(unescape("tail\\"), "tail\\");
        assert_eq!(unescape("plain"), "plain");
    }
}

//! Splitting one line of a `.msg` file into code, comment and tokens.

/// The parts of a definition line, as byte ranges of the line so errors can
/// point at them.
#[derive(Debug, PartialEq)]
pub enum Element<'a> {
    /// `TYPE NAME [DEFAULT]`
    Field {
        ty: Token<'a>,
        name: Token<'a>,
        default: Option<Token<'a>>,
    },
    /// `TYPE NAME=VALUE`
    Constant {
        ty: Token<'a>,
        name: Token<'a>,
        value: Token<'a>,
    },
}

/// A piece of a line and the byte offset where it starts.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Token<'a> {
    pub text: &'a str,
    pub offset: usize,
}

/// Splits a line at its comment: the first `#` that is not inside a quoted
/// string. Returns the code and the comment text with its leading `#`s
/// removed. If a quote is left open, the first `#` counts, as in rosidl.
pub fn split_comment(line: &str) -> (&str, Option<&str>) {
    let mut quote = None;
    let mut escaped = false;
    let mut hash = None;
    for (i, c) in line.char_indices() {
        match quote {
            Some(q) => {
                if escaped {
                    escaped = false;
                } else if c == '\\' {
                    escaped = true;
                } else if c == q {
                    quote = None;
                }
            }
            None if c == '"' || c == '\'' => quote = Some(c),
            None if c == '#' => {
                hash = Some(i);
                break;
            }
            None => {}
        }
    }
    if hash.is_none() && quote.is_some() {
        hash = line.find('#');
    }
    match hash {
        Some(i) => (&line[..i], Some(line[i..].trim_start_matches('#'))),
        None => (line, None),
    }
}

/// Splits the code part of a line (no comment, trailing spaces removed) into
/// a field or a constant. A `=` right after the name makes a constant.
/// Errors carry the byte offset they refer to.
pub fn split_element(code: &str) -> Result<Element<'_>, (usize, String)> {
    let start = code.len() - code.trim_start().len();
    let body = &code[start..];
    let ty_end = body.find(' ').unwrap_or(body.len());
    let ty = Token {
        text: &body[..ty_end],
        offset: start,
    };
    let after_ty = &body[ty_end..];
    let name_start = start + ty_end + (after_ty.len() - after_ty.trim_start().len());
    let rest = &code[name_start..];
    if rest.is_empty() {
        return Err((
            start + ty_end,
            format!(
                "`{}` needs a name: write `TYPE name` for a field or `TYPE NAME=VALUE` for a constant",
                ty.text
            ),
        ));
    }
    let name_len = rest.find([' ', '=']).unwrap_or(rest.len());
    let name = Token {
        text: &rest[..name_len],
        offset: name_start,
    };
    let after_name = &rest[name_len..];
    let value_rel = after_name.len() - after_name.trim_start().len();
    let after_name_trimmed = &after_name[value_rel..];
    if let Some(value) = after_name_trimmed.strip_prefix('=') {
        let value_offset = name_start + name_len + value_rel + 1;
        let lead = value.len() - value.trim_start().len();
        return Ok(Element::Constant {
            ty,
            name,
            value: Token {
                text: value.trim(),
                offset: value_offset + lead,
            },
        });
    }
    let default = (!after_name_trimmed.is_empty()).then(|| Token {
        text: after_name_trimmed.trim_end(),
        offset: name_start + name_len + value_rel,
    });
    Ok(Element::Field { ty, name, default })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tok(text: &str, offset: usize) -> Token<'_> {
        Token { text, offset }
    }

    #[test]
    fn a_hash_inside_quotes_does_not_start_a_comment() {
        assert_eq!(
            split_comment("string s \"a#b\" # c"),
            ("string s \"a#b\" ", Some(" c"))
        );
        assert_eq!(split_comment("int32 x ## two"), ("int32 x ", Some(" two")));
        assert_eq!(
            split_comment("string s it's # c"),
            ("string s it's ", Some(" c"))
        );
        assert_eq!(split_comment("int32 x"), ("int32 x", None));
    }

    #[test]
    fn fields_split_into_type_name_and_default() {
        assert_eq!(
            split_element("int32[] xs  [1, 2]").unwrap(),
            Element::Field {
                ty: tok("int32[]", 0),
                name: tok("xs", 8),
                default: Some(tok("[1, 2]", 12)),
            }
        );
        assert_eq!(
            split_element("  bool  b").unwrap(),
            Element::Field {
                ty: tok("bool", 2),
                name: tok("b", 8),
                default: None,
            }
        );
    }

    #[test]
    fn an_equals_sign_after_the_name_makes_a_constant() {
        assert_eq!(
            split_element("uint8 A = 3").unwrap(),
            Element::Constant {
                ty: tok("uint8", 0),
                name: tok("A", 6),
                value: tok("3", 10),
            }
        );
        assert_eq!(
            split_element("string S=a b").unwrap(),
            Element::Constant {
                ty: tok("string", 0),
                name: tok("S", 7),
                value: tok("a b", 9),
            }
        );
        // an `=` inside a default value is not a constant
        assert!(matches!(
            split_element("string s \"a=b\"").unwrap(),
            Element::Field { .. }
        ));
    }

    #[test]
    fn a_type_without_a_name_is_an_error_after_the_type() {
        assert_eq!(split_element("int32").unwrap_err().0, 5);
    }
}

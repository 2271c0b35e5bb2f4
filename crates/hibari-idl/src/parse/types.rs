//! Type expressions: `int32`, `string<=10`, `pkg/Type[<=5]`, `Type[]` and so on.

use super::names::{is_valid_package_name, is_valid_type_name, PACKAGE_RULE, TYPE_RULE};
use crate::model::{ArrayKind, BaseType, FieldType, InterfaceKind, Primitive, TypeName};

/// A problem inside a type expression, at a byte offset within it.
#[derive(Debug, PartialEq)]
pub struct TypeError {
    pub offset: usize,
    pub message: String,
}

fn err(offset: usize, message: impl Into<String>) -> TypeError {
    TypeError {
        offset,
        message: message.into(),
    }
}

/// Parses a type expression as written in a `.msg` file.
///
/// A relative name (`Type`) belongs to `owner_package`. `time` and
/// `duration` are the compatibility aliases of `builtin_interfaces/Time` and
/// `builtin_interfaces/Duration`.
pub fn parse_type(token: &str, owner_package: &str) -> Result<FieldType, TypeError> {
    let (base_text, array) = match token.strip_suffix(']') {
        None => (token, ArrayKind::Single),
        Some(inner) => {
            let open = inner.rfind('[').ok_or_else(|| {
                err(
                    token.len() - 1,
                    format!("`{token}` ends with `]` but has no `[`"),
                )
            })?;
            let size = &inner[open + 1..];
            let array = if size.is_empty() {
                ArrayKind::Unbounded
            } else if let Some(bound) = size.strip_prefix("<=") {
                ArrayKind::Bounded(parse_size(bound, open + 3, "sequence bound")?)
            } else {
                ArrayKind::Fixed(parse_size(size, open + 1, "array size")?)
            };
            (&inner[..open], array)
        }
    };
    Ok(FieldType {
        base: parse_base_type(base_text, owner_package)?,
        array,
    })
}

/// Parses `N` of `T[N]`, `T[<=N]` or `string<=N`: a decimal integer above 0.
fn parse_size(text: &str, offset: usize, what: &str) -> Result<u32, TypeError> {
    let bad = || {
        err(
            offset,
            format!("{what} `{text}` must be a whole number between 1 and 4294967295"),
        )
    };
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad());
    }
    match text.parse::<u32>() {
        Ok(n) if n > 0 => Ok(n),
        _ => Err(bad()),
    }
}

/// Parses the element type of a field (everything before an array suffix).
pub fn parse_base_type(text: &str, owner_package: &str) -> Result<BaseType, TypeError> {
    if let Some(primitive) = Primitive::from_msg_name(text) {
        return Ok(BaseType::Primitive(primitive));
    }
    match text {
        "string" => return Ok(BaseType::String { bound: None }),
        "wstring" => return Ok(BaseType::WString { bound: None }),
        "time" | "duration" => {
            let name = if text == "time" { "Time" } else { "Duration" };
            return Ok(BaseType::Named(TypeName::new(
                "builtin_interfaces",
                InterfaceKind::Msg,
                name,
            )));
        }
        _ => {}
    }
    if let Some(bound) = text.strip_prefix("string<=") {
        let bound = parse_size(bound, "string<=".len(), "string bound")?;
        return Ok(BaseType::String { bound: Some(bound) });
    }
    if let Some(bound) = text.strip_prefix("wstring<=") {
        let bound = parse_size(bound, "wstring<=".len(), "wstring bound")?;
        return Ok(BaseType::WString { bound: Some(bound) });
    }
    let (package, name, name_offset) = match text.split_once('/') {
        Some((package, name)) => (package, name, package.len() + 1),
        None => (owner_package, text, 0),
    };
    if name.contains('/') {
        return Err(err(
            0,
            format!("`{text}` is not a type: write `package/Type` (two parts) or `Type`"),
        ));
    }
    if text.contains('/') && !is_valid_package_name(package) {
        return Err(err(
            0,
            format!("`{package}` is not a valid package name: use {PACKAGE_RULE}"),
        ));
    }
    if !is_valid_type_name(name) {
        let hint = if text.contains(['[', ']', '<', '=']) {
            "this is not a valid array or string bound; use `T[N]`, `T[]`, `T[<=N]` or `string<=N`"
                .to_string()
        } else {
            format!("a type is a primitive, `string`, `wstring` or a message name: {TYPE_RULE}")
        };
        return Err(err(name_offset, format!("unknown type `{text}`: {hint}")));
    }
    Ok(BaseType::Named(TypeName::new(
        package,
        InterfaceKind::Msg,
        name,
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ty(text: &str) -> FieldType {
        parse_type(text, "owner").unwrap()
    }

    fn named(package: &str, name: &str) -> BaseType {
        BaseType::Named(TypeName::new(package, InterfaceKind::Msg, name))
    }

    #[test]
    fn every_primitive_parses_by_its_msg_name() {
        for p in Primitive::ALL {
            assert_eq!(ty(p.msg_name()).base, BaseType::Primitive(p));
        }
    }

    #[test]
    fn array_suffixes_become_fixed_bounded_and_unbounded() {
        assert_eq!(ty("int32").array, ArrayKind::Single);
        assert_eq!(ty("int32[3]").array, ArrayKind::Fixed(3));
        assert_eq!(ty("int32[<=5]").array, ArrayKind::Bounded(5));
        assert_eq!(ty("int32[]").array, ArrayKind::Unbounded);
    }

    #[test]
    fn bounded_strings_combine_with_arrays() {
        let t = ty("string<=10[<=5]");
        assert_eq!(t.base, BaseType::String { bound: Some(10) });
        assert_eq!(t.array, ArrayKind::Bounded(5));
        assert_eq!(
            ty("wstring<=3[2]").base,
            BaseType::WString { bound: Some(3) }
        );
        assert_eq!(ty("wstring").base, BaseType::WString { bound: None });
    }

    #[test]
    fn relative_names_take_the_owner_package_and_time_is_an_alias() {
        assert_eq!(ty("Point").base, named("owner", "Point"));
        assert_eq!(
            ty("geometry_msgs/Point[]").base,
            named("geometry_msgs", "Point")
        );
        assert_eq!(ty("time").base, named("builtin_interfaces", "Time"));
        assert_eq!(
            ty("duration[2]").base,
            named("builtin_interfaces", "Duration")
        );
    }

    #[test]
    fn bad_sizes_and_names_report_where_they_are() {
        let e = parse_type("int32[0]", "p").unwrap_err();
        assert_eq!(e.offset, 6);
        assert!(e.message.contains("array size `0`"), "{}", e.message);
        assert_eq!(parse_type("int32[<=x]", "p").unwrap_err().offset, 8);
        assert_eq!(parse_type("string<=0", "p").unwrap_err().offset, 8);
        assert_eq!(parse_type("int32]", "p").unwrap_err().offset, 5);
        assert_eq!(parse_type("Bad_pkg_/Type", "p").unwrap_err().offset, 0);
        assert_eq!(parse_type("pkg/lower", "p").unwrap_err().offset, 4);
        assert!(parse_type("pkg/msg/Type", "p").is_err());
        assert!(parse_type("int33", "p")
            .unwrap_err()
            .message
            .contains("unknown type"));
        assert!(parse_type("int32[3][4]", "p").is_err());
    }
}

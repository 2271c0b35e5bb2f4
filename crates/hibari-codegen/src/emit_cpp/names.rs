//! C++ spelling of ROS names and types: files, namespaces, identifiers.

use hibari_idl::model::{ArrayKind, BaseType, FieldType, InterfaceKind, Primitive, TypeName};

/// rosidl's file name of an interface: `PointCloud2` → `point_cloud2`,
/// `UInt8` → `u_int8`, `MultiDOFJointState` → `multi_dof_joint_state`.
///
/// rosidl_pycommon's `convert_camel_case_to_lower_case_underscore`: first an
/// underscore before every uppercase letter followed by lowercase ones
/// (`(.)([A-Z][a-z]+)`, matches taken left to right without overlap), then
/// one between a lowercase letter or digit and an uppercase letter
/// (`([a-z0-9])([A-Z])`), then everything lowercased.
pub fn snake_case(name: &str) -> String {
    let c: Vec<char> = name.chars().collect();
    let mut first = String::with_capacity(c.len() + 4);
    let mut i = 0;
    while i < c.len() {
        let starts_word = c.get(i + 1).is_some_and(char::is_ascii_uppercase)
            && c.get(i + 2).is_some_and(char::is_ascii_lowercase);
        if starts_word {
            first.push(c[i]);
            first.push('_');
            first.push(c[i + 1]);
            let mut j = i + 2;
            while j < c.len() && c[j].is_ascii_lowercase() {
                first.push(c[j]);
                j += 1;
            }
            i = j;
        } else {
            first.push(c[i]);
            i += 1;
        }
    }
    let c: Vec<char> = first.chars().collect();
    let mut out = String::with_capacity(c.len() + 4);
    let mut i = 0;
    while i < c.len() {
        let lower_or_digit = c[i].is_ascii_lowercase() || c[i].is_ascii_digit();
        if lower_or_digit && c.get(i + 1).is_some_and(char::is_ascii_uppercase) {
            out.push(c[i]);
            out.push('_');
            out.push(c[i + 1]);
            i += 2;
        } else {
            out.push(c[i]);
            i += 1;
        }
    }
    out.to_ascii_lowercase()
}

/// The header of an interface, relative to the include root:
/// `sensor_msgs/msg/point_cloud2.hpp`.
pub fn header_path(interface: &TypeName) -> String {
    format!(
        "{}/{}/{}.hpp",
        interface.package,
        interface.kind.as_str(),
        snake_case(&interface.name)
    )
}

/// The include guard of a generated header.
pub fn include_guard(interface: &TypeName) -> String {
    format!(
        "HIBARI_GENERATED__{}__{}__{}_HPP_",
        interface.package.to_ascii_uppercase(),
        interface.kind.as_str().to_ascii_uppercase(),
        snake_case(&interface.name).to_ascii_uppercase()
    )
}

/// The C++ namespace of a kind of interface: `sensor_msgs::msg`.
pub fn namespace(package: &str, kind: InterfaceKind) -> String {
    format!("{package}::{}", kind.as_str())
}

/// The fully qualified C++ type of a message: `::sensor_msgs::msg::Image`.
pub fn qualified(name: &TypeName) -> String {
    format!("::{}::{}", namespace(&name.package, name.kind), name.name)
}

#[rustfmt::skip]
const KEYWORDS: &[&str] = &[
    "alignas", "alignof", "and", "and_eq", "asm", "auto", "bitand", "bitor", "bool", "break",
    "case", "catch", "char", "char16_t", "char32_t", "char8_t", "class", "compl", "concept",
    "const", "consteval", "constexpr", "constinit", "const_cast", "continue", "co_await",
    "co_return", "co_yield", "decltype", "default", "delete", "do", "double", "dynamic_cast",
    "else", "enum", "explicit", "export", "extern", "false", "float", "for", "friend", "goto",
    "if", "inline", "int", "long", "mutable", "namespace", "new", "noexcept", "not", "not_eq",
    "nullptr", "operator", "or", "or_eq", "private", "protected", "public", "register",
    "reinterpret_cast", "requires", "return", "short", "signed", "sizeof", "static",
    "static_assert", "static_cast", "struct", "switch", "template", "this", "thread_local",
    "throw", "true", "try", "typedef", "typeid", "typename", "union", "unsigned", "using",
    "virtual", "void", "volatile", "wchar_t", "while", "xor", "xor_eq",
];

/// A field or constant name as a C++ identifier: a keyword gets a trailing
/// `_` (`delete` → `delete_`); no bundled interface uses one.
pub fn ident(name: &str) -> String {
    if KEYWORDS.contains(&name) {
        format!("{name}_")
    } else {
        name.to_owned()
    }
}

/// The C++ type of a primitive, as rosidl's C++ generator spells it
/// (`byte` and `char` are `uint8_t`).
pub fn prim_cpp(p: Primitive) -> &'static str {
    match p {
        Primitive::Bool => "bool",
        Primitive::Byte | Primitive::Char | Primitive::UInt8 => "uint8_t",
        Primitive::Int8 => "int8_t",
        Primitive::Int16 => "int16_t",
        Primitive::UInt16 => "uint16_t",
        Primitive::Int32 => "int32_t",
        Primitive::UInt32 => "uint32_t",
        Primitive::Int64 => "int64_t",
        Primitive::UInt64 => "uint64_t",
        Primitive::Float32 => "float",
        Primitive::Float64 => "double",
    }
}

/// The C++ type of one element of a field.
pub fn element_type(base: &BaseType) -> String {
    match base {
        BaseType::Primitive(p) => prim_cpp(*p).to_owned(),
        BaseType::String { .. } => "::std::string".to_owned(),
        BaseType::WString { .. } => "::std::u16string".to_owned(),
        BaseType::Named(n) => qualified(n),
    }
}

/// The C++ type of a field: bounded and unbounded sequences are
/// `std::vector` (rosidl's BoundedVector is not used; the bound is checked
/// on encode and decode), fixed arrays `std::array`.
pub fn field_type(ty: &FieldType) -> String {
    let elem = element_type(&ty.base);
    match ty.array {
        ArrayKind::Single => elem,
        ArrayKind::Fixed(n) => format!("::std::array<{elem}, {n}>"),
        ArrayKind::Bounded(_) | ArrayKind::Unbounded => format!("::std::vector<{elem}>"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snake_case_follows_rosidl_for_acronyms_and_digits() {
        for (camel, snake) in [
            ("String", "string"),
            ("PointCloud2", "point_cloud2"),
            ("GoalStatusArray", "goal_status_array"),
            ("UInt8", "u_int8"),
            ("UInt8MultiArray", "u_int8_multi_array"),
            ("MultiDOFJointState", "multi_dof_joint_state"),
            ("WStrings", "w_strings"),
            ("TF2Error", "tf2_error"),
            ("NavSatFix", "nav_sat_fix"),
            ("ColorRGBA", "color_rgba"),
            ("Int64", "int64"),
            ("ABCdEf", "ab_cd_ef"),
            ("A", "a"),
        ] {
            assert_eq!(snake_case(camel), snake, "{camel}");
        }
    }

    #[test]
    fn header_paths_are_rosidls() {
        let name = TypeName::parse("sensor_msgs/msg/PointCloud2").unwrap();
        assert_eq!(header_path(&name), "sensor_msgs/msg/point_cloud2.hpp");
        let name = TypeName::parse("action_msgs/srv/CancelGoal").unwrap();
        assert_eq!(header_path(&name), "action_msgs/srv/cancel_goal.hpp");
    }
}

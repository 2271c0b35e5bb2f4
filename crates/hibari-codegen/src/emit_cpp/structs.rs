//! Emits one message as a C++ struct: fields with their default values,
//! constants, pointer aliases, `TYPE_NAME`/`TYPE_HASH`, `View` (the
//! view type emitted after it, declared before) and `operator==`.

use std::fmt::Write;

use hibari_idl::model::{ArrayKind, BaseType, Constant, Field, MessageDef};
use hibari_idl::Registry;

use super::literals::{initializer, literal};
use super::names::{field_type, ident, prim_cpp};

/// rosidl's only member of a message without fields; it is written as one
/// byte, which is what ROS 2 sends for an empty message.
pub const EMPTY_MEMBER: &str = "structure_needs_at_least_one_member";

/// Writes `text` as `//` comment lines with `indent`. A line ending in a
/// backslash (or the `??/` trigraph) would splice the next line into the
/// comment, so it gets a marker after it.
pub fn comment(out: &mut String, indent: &str, prefix: &str, text: &str) {
    for line in text.lines() {
        let line = line.trim_end();
        let splices = line.ends_with('\\') || line.ends_with("??/");
        let marker = if splices { " (sic)" } else { "" };
        let sep = if line.is_empty() { "" } else { " " };
        let _ = writeln!(out, "{indent}{prefix}{sep}{line}{marker}");
    }
}

/// Emits `struct <Name> { … };` for `def`.
pub fn emit_struct(out: &mut String, def: &MessageDef, registry: &Registry) {
    let name = &def.name.name;
    let _ = writeln!(out, "struct {name}View;\n");
    let _ = writeln!(out, "/// `{}`", def.name);
    if !def.source.trim().is_empty() {
        let _ = writeln!(out, "///");
        comment(out, "", "/// ", def.source.trim_end());
    }
    let _ = writeln!(out, "struct {name} {{");
    let _ = writeln!(out, "  using SharedPtr = ::std::shared_ptr<{name}>;");
    let _ = writeln!(
        out,
        "  using ConstSharedPtr = ::std::shared_ptr<const {name}>;"
    );
    let _ = writeln!(out, "  using UniquePtr = ::std::unique_ptr<{name}>;");
    let _ = writeln!(
        out,
        "  using ConstUniquePtr = ::std::unique_ptr<const {name}>;"
    );
    let _ = writeln!(
        out,
        "  /// Its zero-copy view (hibari/view.hpp), defined after it.\n  using View = {name}View;\n"
    );
    let _ = writeln!(
        out,
        "  static constexpr const char *TYPE_NAME = \"{}\";",
        def.name
    );
    if let Ok(hash) = registry.type_hash(&def.name) {
        let _ = writeln!(
            out,
            "  static constexpr const char *TYPE_HASH = \"{hash}\";"
        );
    }
    for c in &def.constants {
        emit_constant(out, c);
    }
    let _ = writeln!(out);
    if def.fields.is_empty() {
        let _ = writeln!(out, "  uint8_t {EMPTY_MEMBER}{{0}};");
    }
    for f in &def.fields {
        emit_field(out, f);
    }
    let _ = writeln!(out);
    emit_equality(out, def);
    let _ = writeln!(out, "}};\n");
}

fn emit_constant(out: &mut String, c: &Constant) {
    comment(out, "  ", "///", &c.comment);
    let value = literal(&c.value, &c.ty);
    let decl = match &c.ty {
        BaseType::Primitive(p) => format!("{} ", prim_cpp(*p)),
        // rosidl: `static const char * const`; constexpr members are inline
        // in C++17, so this is one definition across translation units.
        BaseType::WString { .. } => "const char16_t *".to_owned(),
        _ => "const char *".to_owned(),
    };
    let _ = writeln!(
        out,
        "  static constexpr {decl}{} = {value};",
        ident(&c.name)
    );
}

fn emit_field(out: &mut String, f: &Field) {
    comment(out, "  ", "///", &f.comment);
    if let ArrayKind::Bounded(n) = f.ty.array {
        let _ = writeln!(
            out,
            "  /// At most {n} elements: a std::vector, not rosidl's BoundedVector; the bound is checked on encode and decode."
        );
    }
    match &f.ty.base {
        BaseType::String { bound: Some(n) } => {
            let _ = writeln!(
                out,
                "  /// Strings of at most {n} bytes, checked on encode and decode."
            );
        }
        BaseType::WString { bound: Some(n) } => {
            let _ = writeln!(
                out,
                "  /// Wide strings of at most {n} UTF-16 code units, checked on encode and decode."
            );
        }
        _ => {}
    }
    let _ = writeln!(
        out,
        "  {} {}{};",
        field_type(&f.ty),
        ident(&f.name),
        initializer(&f.ty, f.default.as_ref())
    );
}

fn emit_equality(out: &mut String, def: &MessageDef) {
    let name = &def.name.name;
    let members: Vec<String> = if def.fields.is_empty() {
        vec![EMPTY_MEMBER.to_owned()]
    } else {
        def.fields.iter().map(|f| ident(&f.name)).collect()
    };
    let _ = writeln!(out, "  bool operator==(const {name} &other) const {{");
    let compare: Vec<String> = members
        .iter()
        // `this->`: a field may be named `other`.
        .map(|m| format!("this->{m} == other.{m}"))
        .collect();
    let _ = writeln!(out, "    return {};", compare.join(" &&\n           "));
    let _ = writeln!(out, "  }}");
    let _ = writeln!(
        out,
        "  bool operator!=(const {name} &other) const {{ return !(*this == other); }}"
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    fn emitted(text: &str) -> String {
        super::super::emit_demo(text, emit_struct)
    }

    #[test]
    fn fields_are_typed_as_rclcpp_users_know_them_with_their_defaults() {
        let out = emitted(
            "byte b\nchar c 65\nfloat32 f 1.5\nstring s \"hi\\\"?\"\nwstring w \"é\"\n\
             int32[3] fixed [1, 2, 3]\nfloat64[<=4] bounded\nstring[] names [\"a\", \"b\"]\n\
             std_msgs/Header header\ngeometry_msgs/Point[2] points\n",
        );
        for want in [
            "  uint8_t b{};",
            "  uint8_t c{65};",
            "  float f{1.5f};",
            r#"  ::std::string s{"hi\"\?"};"#,
            r#"  ::std::u16string w{u"\u00E9"};"#,
            "  ::std::array<int32_t, 3> fixed{{1, 2, 3}};",
            "  ::std::vector<double> bounded{};",
            r#"  ::std::vector<::std::string> names{"a", "b"};"#,
            "  ::std_msgs::msg::Header header{};",
            "  ::std::array<::geometry_msgs::msg::Point, 2> points{};",
            "  static constexpr const char *TYPE_NAME = \"demo_msgs/msg/Demo\";",
            "  using ConstSharedPtr = ::std::shared_ptr<const Demo>;",
            "  using View = DemoView;",
            "  /// At most 4 elements",
        ] {
            assert!(out.contains(want), "missing {want:?} in\n{out}");
        }
    }

    #[test]
    fn constants_are_static_constexpr_members() {
        let out = emitted(
            "int64 LOW=-9223372036854775808\nuint8 HIGH=255\nstring NAME=\"x\"\nfloat64 PI=3.14\nbool ON=true\n",
        );
        for want in [
            "  static constexpr int64_t LOW = (-9223372036854775807LL - 1);",
            "  static constexpr uint8_t HIGH = 255;",
            "  static constexpr const char *NAME = \"x\";",
            "  static constexpr double PI = 3.14;",
            "  static constexpr bool ON = true;",
        ] {
            assert!(out.contains(want), "missing {want:?} in\n{out}");
        }
        assert!(out.contains("  uint8_t structure_needs_at_least_one_member{0};"));
        assert!(out.contains(
            "return this->structure_needs_at_least_one_member == other.structure_needs_at_least_one_member;"
        ));
    }

    #[test]
    fn cpp_keywords_and_the_name_other_stay_usable_as_field_names() {
        let out = emitted("int32 delete\nint32 other\n");
        assert!(out.contains("  int32_t delete_{};"), "{out}");
        assert!(
            out.contains("return this->delete_ == other.delete_ &&"),
            "{out}"
        );
        assert!(out.contains("this->other == other.other;"), "{out}");
    }

    #[test]
    fn a_comment_line_ending_in_a_backslash_does_not_swallow_the_next_line() {
        let mut out = String::new();
        comment(&mut out, "", "//", "C:\\path\\\nnext");
        assert_eq!(out, "// C:\\path\\ (sic)\n// next\n");
    }
}

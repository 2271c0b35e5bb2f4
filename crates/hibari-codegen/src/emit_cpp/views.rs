//! Emits the zero-copy view of one message, `struct <Name>View` over
//! `hibari/view.hpp`: byte arrays as `hibari::Span<const uint8_t>`, other
//! primitive arrays as `hibari::ArrayView<T>` (loaded element by element:
//! CDR leaves 8-byte elements misaligned in memory, and a payload may be
//! big-endian), strings as `std::string_view`, nested messages as their
//! views, sequences of strings or messages as a `hibari::SequenceView`
//! parsed as it is iterated, scalars by value. As the Rust views
//! (`emit_view.rs`), parsing costs O(fields), independent of array sizes.

use std::fmt::Write;

use hibari_idl::model::{ArrayKind, BaseType, FieldType, MessageDef, Primitive};
use hibari_idl::Registry;

use super::names::{ident, prim_cpp, qualified};
use super::serde::min_wire_size;
use super::structs::EMPTY_MEMBER;

/// The names a view's own members take; a field so named gets a `_`.
const VIEW_MEMBERS: &[&str] = &["parse", "read_fields", "to_message", "Message"];

/// The view's member for field `name`: the struct's, unless it would
/// collide with the view's own members.
pub fn view_ident(name: &str) -> String {
    let id = ident(name);
    if VIEW_MEMBERS.contains(&id.as_str()) {
        format!("{id}_")
    } else {
        id
    }
}

/// The view type of a message: `::std_msgs::msg::HeaderView`.
fn view_type_of(name: &hibari_idl::model::TypeName) -> String {
    format!("{}View", qualified(name))
}

/// Primitives whose arrays are plain byte spans.
fn is_byte(p: Primitive) -> bool {
    matches!(p, Primitive::Byte | Primitive::Char | Primitive::UInt8)
}

/// The view of one element of a string, wstring or message field.
fn element_view(base: &BaseType) -> String {
    match base {
        BaseType::Primitive(p) => prim_cpp(*p).to_owned(),
        BaseType::String { .. } => "::std::string_view".to_owned(),
        BaseType::WString { .. } => "::hibari::WStringView".to_owned(),
        BaseType::Named(n) => view_type_of(n),
    }
}

/// The C++ type of a field in the view.
pub fn view_field_type(ty: &FieldType) -> String {
    match (&ty.base, ty.array) {
        (base, ArrayKind::Single) => element_view(base),
        (BaseType::Primitive(p), _) if is_byte(*p) => "::hibari::Span<const uint8_t>".to_owned(),
        (BaseType::Primitive(p), _) => format!("::hibari::ArrayView<{}>", prim_cpp(*p)),
        (base, ArrayKind::Fixed(n)) => format!("::std::array<{}, {n}>", element_view(base)),
        (base, _) => format!("::hibari::SequenceView<{}>", element_view(base)),
    }
}

fn seq_bound(ty: &FieldType) -> String {
    match ty.array {
        ArrayKind::Bounded(n) => n.to_string(),
        _ => "::hibari::cdr::unbounded".to_owned(),
    }
}

fn string_bound(base: &BaseType) -> String {
    match base {
        BaseType::String { bound: Some(n) } | BaseType::WString { bound: Some(n) } => n.to_string(),
        _ => "::hibari::cdr::unbounded".to_owned(),
    }
}

/// The statement of `read_fields` that reads field `fname` into `v.<member>`.
fn read_field(member: &str, fname: &str, ty: &FieldType, registry: &Registry) -> String {
    let v = format!("v.{member}");
    let cdr = "::hibari::cdr";
    match (&ty.base, ty.array) {
        (BaseType::Primitive(_), ArrayKind::Single) => format!("r.read({v}, \"{fname}\");"),
        (BaseType::Primitive(p), ArrayKind::Fixed(n)) if is_byte(*p) => {
            format!("{v} = {cdr}::read_byte_array_view(r, {n}, \"{fname}\");")
        }
        (BaseType::Primitive(p), _) if is_byte(*p) => format!(
            "{v} = {cdr}::read_byte_sequence_view(r, {}, \"{fname}\");",
            seq_bound(ty)
        ),
        (BaseType::Primitive(p), ArrayKind::Fixed(n)) => format!(
            "{v} = {cdr}::read_array_view<{}>(r, {n}, \"{fname}\");",
            prim_cpp(*p)
        ),
        (BaseType::Primitive(p), _) => format!(
            "{v} = {cdr}::read_sequence_view<{}>(r, {}, \"{fname}\");",
            prim_cpp(*p),
            seq_bound(ty)
        ),
        (BaseType::String { .. }, ArrayKind::Single) => format!(
            "{v} = r.read_string_view({}, \"{fname}\");",
            string_bound(&ty.base)
        ),
        (BaseType::Named(n), ArrayKind::Single) => {
            format!("{v} = {}::read_fields(r);", view_type_of(n))
        }
        (base, ArrayKind::Single) => format!(
            "{v} = {cdr}::read_element_view<{}>(r, {}, \"{fname}\");",
            element_view(base),
            string_bound(base)
        ),
        (base, ArrayKind::Fixed(n)) => format!(
            "{v} = {cdr}::read_elements_view<{}, {n}>(r, {}, \"{fname}\");",
            element_view(base),
            string_bound(base)
        ),
        (base, _) => {
            let single = FieldType {
                base: base.clone(),
                array: ArrayKind::Single,
            };
            format!(
                "{v} = {cdr}::read_sequence_of_views<{}>(r, {}, {}, {}, \"{fname}\");",
                element_view(base),
                min_wire_size(&single, registry),
                seq_bound(ty),
                string_bound(base)
            )
        }
    }
}

/// One field as the view and the struct name it.
struct ViewField<'d> {
    /// The view's member.
    member: String,
    /// The struct's member.
    msg_member: String,
    /// The ROS field name (in error messages).
    name: &'d str,
    ty: &'d FieldType,
}

/// Emits `struct <Name>View { … };` for `def` (after `struct <Name>` and
/// its CDR functions).
pub fn emit_view(out: &mut String, def: &MessageDef, registry: &Registry) {
    let name = &def.name.name;
    let view = format!("{name}View");
    let _ = writeln!(
        out,
        "/// A zero-copy view of `{}` (hibari/view.hpp): arrays and strings are read in place in the",
        def.name
    );
    let _ = writeln!(
        out,
        "/// bytes it was parsed from, which must outlive it; scalars are copied. to_message() copies it all."
    );
    let _ = writeln!(out, "struct {view} {{");
    let _ = writeln!(out, "  using Message = {name};\n");
    let empty = FieldType {
        base: BaseType::Primitive(Primitive::UInt8),
        array: ArrayKind::Single,
    };
    let fields: Vec<ViewField<'_>> = if def.fields.is_empty() {
        vec![ViewField {
            member: EMPTY_MEMBER.to_owned(),
            msg_member: EMPTY_MEMBER.to_owned(),
            name: EMPTY_MEMBER,
            ty: &empty,
        }]
    } else {
        def.fields
            .iter()
            .map(|f| ViewField {
                member: view_ident(&f.name),
                msg_member: ident(&f.name),
                name: &f.name,
                ty: &f.ty,
            })
            .collect()
    };
    for ViewField { member, ty, .. } in &fields {
        let _ = writeln!(out, "  {} {member}{{}};", view_field_type(ty));
    }
    let _ = writeln!(
        out,
        "\n  /// Parses a whole payload (encapsulation header included) without copying arrays or strings;"
    );
    let _ = writeln!(
        out,
        "  /// throws hibari::cdr::DecodeError on bad or truncated input, as from_cdr does."
    );
    let _ = writeln!(
        out,
        "  static {view} parse(const uint8_t *cdr, size_t len) {{ return ::hibari::cdr::parse_view<{view}>(cdr, len); }}"
    );
    let _ = writeln!(
        out,
        "  static {view} parse(::hibari::Span<const uint8_t> cdr) {{ return parse(cdr.data(), cdr.size()); }}\n"
    );
    let _ = writeln!(
        out,
        "  /// Reads the fields (no header) from `r`'s position."
    );
    let _ = writeln!(
        out,
        "  static {view} read_fields(::hibari::cdr::Reader &r) {{"
    );
    let _ = writeln!(out, "    {view} v;");
    for f in &fields {
        let _ = writeln!(out, "    {}", read_field(&f.member, f.name, f.ty, registry));
    }
    let _ = writeln!(out, "    return v;\n  }}\n");
    let _ = writeln!(out, "  /// An owned copy.");
    let _ = writeln!(
        out,
        "  {name} to_message() const {{\n    {name} m;\n    to_message(m);\n    return m;\n  }}"
    );
    let _ = writeln!(
        out,
        "  /// Copies the view into `out`, reusing its allocations."
    );
    let _ = writeln!(out, "  void to_message({name} &out) const {{");
    for ViewField {
        member,
        msg_member,
        ty,
        ..
    } in &fields
    {
        match (&ty.base, ty.array) {
            (BaseType::Primitive(_), ArrayKind::Single) => {
                let _ = writeln!(out, "    out.{msg_member} = this->{member};");
            }
            _ => {
                let _ = writeln!(
                    out,
                    "    ::hibari::cdr::view_assign(out.{msg_member}, this->{member});"
                );
            }
        }
    }
    let _ = writeln!(out, "  }}\n}};\n");
}

#[cfg(test)]
mod tests {
    use super::*;

    fn emitted(text: &str) -> String {
        super::super::emit_demo(text, emit_view)
    }

    #[test]
    fn each_field_kind_gets_its_view_and_its_reader() {
        let out = emitted(
            "uint16 a\nfloat64[3] b\nint8[<=5] c\nstring<=7 d\nstring[] e\n\
             geometry_msgs/Point32[] f\nstd_msgs/Header[2] g\nuint8[] h\nchar[4] i\n\
             wstring w\nbool[] flags\nstd_msgs/Header header\nint32 parse\n",
        );
        for want in [
            "struct DemoView {",
            "  using Message = Demo;",
            "  uint16_t a{};",
            "  ::hibari::ArrayView<double> b{};",
            "  ::hibari::ArrayView<int8_t> c{};",
            "  ::std::string_view d{};",
            "  ::hibari::SequenceView<::std::string_view> e{};",
            "  ::hibari::SequenceView<::geometry_msgs::msg::Point32View> f{};",
            "  ::std::array<::std_msgs::msg::HeaderView, 2> g{};",
            "  ::hibari::Span<const uint8_t> h{};",
            "  ::hibari::Span<const uint8_t> i{};",
            "  ::hibari::WStringView w{};",
            "  ::hibari::ArrayView<bool> flags{};",
            "  ::std_msgs::msg::HeaderView header{};",
            "  int32_t parse_{};",
            "    r.read(v.a, \"a\");",
            "    v.b = ::hibari::cdr::read_array_view<double>(r, 3, \"b\");",
            "    v.c = ::hibari::cdr::read_sequence_view<int8_t>(r, 5, \"c\");",
            "    v.d = r.read_string_view(7, \"d\");",
            "    v.e = ::hibari::cdr::read_sequence_of_views<::std::string_view>(r, 4, ::hibari::cdr::unbounded, ::hibari::cdr::unbounded, \"e\");",
            // Point32 is three float32: 12 bytes at least per element, as the typed decode checks.
            "    v.f = ::hibari::cdr::read_sequence_of_views<::geometry_msgs::msg::Point32View>(r, 12, ::hibari::cdr::unbounded, ::hibari::cdr::unbounded, \"f\");",
            "    v.g = ::hibari::cdr::read_elements_view<::std_msgs::msg::HeaderView, 2>(r, ::hibari::cdr::unbounded, \"g\");",
            "    v.h = ::hibari::cdr::read_byte_sequence_view(r, ::hibari::cdr::unbounded, \"h\");",
            "    v.i = ::hibari::cdr::read_byte_array_view(r, 4, \"i\");",
            "    v.w = ::hibari::cdr::read_element_view<::hibari::WStringView>(r, ::hibari::cdr::unbounded, \"w\");",
            "    v.header = ::std_msgs::msg::HeaderView::read_fields(r);",
            "    r.read(v.parse_, \"parse\");",
            "    out.a = this->a;",
            "    ::hibari::cdr::view_assign(out.b, this->b);",
            "    out.parse = this->parse_;",
            "  static DemoView parse(const uint8_t *cdr, size_t len) { return ::hibari::cdr::parse_view<DemoView>(cdr, len); }",
            "  void to_message(Demo &out) const {",
        ] {
            assert!(out.contains(want), "missing {want:?} in\n{out}");
        }
    }

    #[test]
    fn an_empty_message_views_its_one_byte_member() {
        let out = emitted("# nothing\n");
        assert!(out.contains("  uint8_t structure_needs_at_least_one_member{};"));
        assert!(out.contains(
            "    r.read(v.structure_needs_at_least_one_member, \"structure_needs_at_least_one_member\");"
        ));
        assert!(out.contains(
            "    out.structure_needs_at_least_one_member = this->structure_needs_at_least_one_member;"
        ));
    }
}

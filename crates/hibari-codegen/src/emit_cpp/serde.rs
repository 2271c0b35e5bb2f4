//! Emits the CDR functions of one message, found by argument-dependent
//! lookup from `hibari::cdr::to_cdr`/`from_cdr`:
//! `cdr_serialize(const T &, hibari::cdr::Writer &)` and
//! `cdr_deserialize(hibari::cdr::Reader &, T &)`.

use std::fmt::Write;

use hibari_idl::model::{ArrayKind, BaseType, Field, FieldType, MessageDef};
use hibari_idl::Registry;

use super::names::ident;
use super::structs::EMPTY_MEMBER;
pub(crate) use crate::emit_msg::min_wire_size;

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

/// Emits both functions for `def`.
pub fn emit_cdr_functions(out: &mut String, def: &MessageDef, registry: &Registry) {
    let name = &def.name.name;
    let _ = writeln!(
        out,
        "inline void cdr_serialize(const {name} &msg, ::hibari::cdr::Writer &w) {{"
    );
    if def.fields.is_empty() {
        let _ = writeln!(out, "  w.write(msg.{EMPTY_MEMBER});");
    }
    for f in &def.fields {
        let _ = writeln!(out, "  {}", encode_field(f));
    }
    let _ = writeln!(out, "}}\n");
    let _ = writeln!(
        out,
        "inline void cdr_deserialize(::hibari::cdr::Reader &r, {name} &msg) {{"
    );
    if def.fields.is_empty() {
        let _ = writeln!(out, "  r.read(msg.{EMPTY_MEMBER}, \"{EMPTY_MEMBER}\");");
    }
    for f in &def.fields {
        let _ = writeln!(out, "  {}", decode_field(f, registry));
    }
    let _ = writeln!(out, "}}\n");
}

/// The statement writing one element `e` of a string, wstring or message field.
fn encode_element(base: &BaseType, e: &str, fname: &str) -> String {
    match base {
        BaseType::String { .. } => {
            format!("w.write_string({e}, {}, \"{fname}\");", string_bound(base))
        }
        BaseType::WString { .. } => {
            format!("w.write_wstring({e}, {}, \"{fname}\");", string_bound(base))
        }
        _ => format!("cdr_serialize({e}, w);"),
    }
}

fn decode_element(base: &BaseType, e: &str, fname: &str) -> String {
    match base {
        BaseType::String { .. } => {
            format!("r.read_string({e}, {}, \"{fname}\");", string_bound(base))
        }
        BaseType::WString { .. } => {
            format!("r.read_wstring({e}, {}, \"{fname}\");", string_bound(base))
        }
        _ => format!("cdr_deserialize(r, {e});"),
    }
}

fn encode_field(f: &Field) -> String {
    let v = format!("msg.{}", ident(&f.name));
    let fname = &f.name;
    let ty = &f.ty;
    match (&ty.base, ty.array) {
        (BaseType::Primitive(_), ArrayKind::Single) => format!("w.write({v});"),
        (BaseType::Primitive(_), ArrayKind::Fixed(_)) => format!("w.write_array({v});"),
        (BaseType::Primitive(_), _) => {
            format!("w.write_sequence({v}, {}, \"{fname}\");", seq_bound(ty))
        }
        (base, ArrayKind::Single) => encode_element(base, &v, fname),
        (base, ArrayKind::Fixed(_)) => format!(
            "for (const auto &e : {v}) {{ {} }}",
            encode_element(base, "e", fname)
        ),
        (base, _) => format!(
            "w.write_count({v}.size(), {}, \"{fname}\");\n  for (const auto &e : {v}) {{ {} }}",
            seq_bound(ty),
            encode_element(base, "e", fname)
        ),
    }
}

fn decode_field(f: &Field, registry: &Registry) -> String {
    let v = format!("msg.{}", ident(&f.name));
    let fname = &f.name;
    let ty = &f.ty;
    match (&ty.base, ty.array) {
        (BaseType::Primitive(_), ArrayKind::Single) => format!("r.read({v}, \"{fname}\");"),
        (BaseType::Primitive(_), ArrayKind::Fixed(_)) => {
            format!("r.read_array({v}, \"{fname}\");")
        }
        (BaseType::Primitive(_), _) => {
            format!("r.read_sequence({v}, {}, \"{fname}\");", seq_bound(ty))
        }
        (base, ArrayKind::Single) => decode_element(base, &v, fname),
        (base, ArrayKind::Fixed(_)) => format!(
            "for (auto &e : {v}) {{ {} }}",
            decode_element(base, "e", fname)
        ),
        (base, _) => {
            let single = FieldType {
                base: base.clone(),
                array: ArrayKind::Single,
            };
            format!(
                "{v}.resize(r.read_count({}, {}, \"{fname}\"));\n  for (auto &e : {v}) {{ {} }}",
                min_wire_size(&single, registry),
                seq_bound(ty),
                decode_element(base, "e", fname)
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn emitted(text: &str) -> String {
        super::super::emit_demo(text, emit_cdr_functions)
    }

    #[test]
    fn each_field_kind_calls_its_writer_and_reader_primitive() {
        let out = emitted(
            "uint16 a\nfloat64[3] b\nint8[<=5] c\nstring<=7 d\nstring[] e\n\
             geometry_msgs/Point32[] f\nstd_msgs/Header[2] g\n",
        );
        for want in [
            "inline void cdr_serialize(const Demo &msg, ::hibari::cdr::Writer &w) {",
            "  w.write(msg.a);",
            "  r.read(msg.a, \"a\");",
            "  w.write_array(msg.b);",
            "  r.read_array(msg.b, \"b\");",
            "  w.write_sequence(msg.c, 5, \"c\");",
            "  r.read_sequence(msg.c, 5, \"c\");",
            "  w.write_string(msg.d, 7, \"d\");",
            "  r.read_string(msg.d, 7, \"d\");",
            "  w.write_count(msg.e.size(), ::hibari::cdr::unbounded, \"e\");",
            "  msg.e.resize(r.read_count(4, ::hibari::cdr::unbounded, \"e\"));",
            // Point32 is three float32: 12 bytes at least per element.
            "  msg.f.resize(r.read_count(12, ::hibari::cdr::unbounded, \"f\"));",
            "  for (auto &e : msg.f) { cdr_deserialize(r, e); }",
            "  for (const auto &e : msg.g) { cdr_serialize(e, w); }",
        ] {
            assert!(out.contains(want), "missing {want:?} in\n{out}");
        }
    }

    #[test]
    fn an_empty_message_writes_its_one_byte_member() {
        let out = emitted("# nothing\n");
        assert!(out.contains("  w.write(msg.structure_needs_at_least_one_member);"));
    }
}

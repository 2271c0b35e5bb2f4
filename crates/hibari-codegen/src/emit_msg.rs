//! Emits one message: the owned struct, its `Default`, constants and CDR code.

use std::fmt::Write;

use hibari_idl::model::{ArrayKind, BaseType, Field, FieldType, MessageDef};
use hibari_idl::Registry;

use crate::names::{default_expr, field_ident, field_type, literal, prim_rust};
use crate::Context;

/// Smallest possible encoded size of a value of this type, used to bound
/// allocations when decoding counts (a forged count cannot exceed
/// `remaining / min_size` elements).
pub fn min_wire_size(ty: &FieldType, registry: &Registry) -> usize {
    let elem = match &ty.base {
        BaseType::Primitive(p) => p.size(),
        BaseType::String { .. } | BaseType::WString { .. } => 4,
        BaseType::Named(n) => registry
            .message(n)
            .map(|m| {
                let s: usize = m
                    .fields
                    .iter()
                    .map(|f| min_wire_size(&f.ty, registry))
                    .sum();
                s.max(1)
            })
            .unwrap_or(1),
    };
    match ty.array {
        ArrayKind::Single => elem,
        ArrayKind::Fixed(n) => elem * n as usize,
        ArrayKind::Bounded(_) | ArrayKind::Unbounded => 4,
    }
}

fn bound_of(ty: &FieldType) -> String {
    match ty.array {
        ArrayKind::Bounded(n) => format!("::core::option::Option::Some({n})"),
        _ => "::core::option::Option::None".to_owned(),
    }
}

fn string_bound(base: &BaseType) -> String {
    match base {
        BaseType::String { bound: Some(n) } | BaseType::WString { bound: Some(n) } => {
            format!("::core::option::Option::Some({n})")
        }
        _ => "::core::option::Option::None".to_owned(),
    }
}

/// Emits the owned struct with docs, `Default` and constants.
pub fn emit_struct(out: &mut String, def: &MessageDef, cx: &Context<'_>) {
    let name = &def.name.name;
    let _ = writeln!(out, "/// `{}`", def.name);
    let _ = writeln!(out, "///");
    let _ = writeln!(out, "/// ```text");
    for line in def.source.lines() {
        let _ = writeln!(out, "/// {}", line.replace("```", "'''"));
    }
    let _ = writeln!(out, "/// ```");
    let _ = writeln!(out, "#[derive(Clone, Debug, PartialEq)]");
    let _ = writeln!(out, "pub struct {name} {{");
    for f in &def.fields {
        if !f.comment.is_empty() {
            for l in f.comment.lines() {
                let _ = writeln!(out, "    /// {}", l.trim());
            }
        }
        let _ = writeln!(
            out,
            "    pub {}: {},",
            field_ident(&f.name),
            field_type(&f.ty, cx, false)
        );
    }
    let _ = writeln!(out, "}}\n");

    let _ = writeln!(out, "impl ::core::default::Default for {name} {{");
    let _ = writeln!(out, "    fn default() -> Self {{");
    let _ = writeln!(out, "        {name} {{");
    for f in &def.fields {
        let _ = writeln!(
            out,
            "            {}: {},",
            field_ident(&f.name),
            default_expr(&f.ty, f.default.as_ref())
        );
    }
    let _ = writeln!(out, "        }}\n    }}\n}}\n");

    if !def.constants.is_empty() {
        let _ = writeln!(out, "impl {name} {{");
        for c in &def.constants {
            if !c.comment.is_empty() {
                for l in c.comment.lines() {
                    let _ = writeln!(out, "    /// {}", l.trim());
                }
            }
            let ty = match &c.ty {
                BaseType::Primitive(p) => prim_rust(*p).to_owned(),
                _ => "&'static str".to_owned(),
            };
            let _ = writeln!(
                out,
                "    pub const {}: {ty} = {};",
                c.name,
                literal(&c.value, &c.ty)
            );
        }
        let _ = writeln!(out, "}}\n");
    }
}

/// Emits `impl Message`.
pub fn emit_message_impl(out: &mut String, def: &MessageDef, cx: &Context<'_>) {
    let name = &def.name.name;
    let hash = cx.registry.type_hash(&def.name).unwrap_or_default();
    let definition = cx.registry.msgdef_text(&def.name).unwrap_or_default();
    let _ = writeln!(out, "impl ::hibari_cdr::Message for {name} {{");
    let _ = writeln!(out, "    const TYPE_NAME: &'static str = \"{}\";", def.name);
    let _ = writeln!(out, "    const TYPE_HASH: &'static str = \"{hash}\";");
    let _ = writeln!(out, "    const DEFINITION: &'static str = {definition:?};");
    let _ = writeln!(
        out,
        "    fn encode_fields<S: ::hibari_cdr::CdrSink>(&self, w: &mut ::hibari_cdr::CdrWriter<S>) -> ::core::result::Result<(), ::hibari_cdr::CdrEncodeError> {{"
    );
    if def.fields.is_empty() {
        let _ = writeln!(out, "        w.write::<u8>(0)?;");
    }
    for f in &def.fields {
        encode_field(out, f);
    }
    let _ = writeln!(out, "        ::core::result::Result::Ok(())\n    }}");
    let _ = writeln!(
        out,
        "    fn decode_fields_into(&mut self, r: &mut ::hibari_cdr::CdrReader<'_>) -> ::core::result::Result<(), ::hibari_cdr::CdrDecodeError> {{"
    );
    if def.fields.is_empty() {
        let _ = writeln!(out, "        r.read::<u8>()?;");
    }
    for f in &def.fields {
        decode_field(out, f, cx);
    }
    let _ = writeln!(out, "        ::core::result::Result::Ok(())\n    }}\n}}\n");
}

fn encode_field(out: &mut String, f: &Field) {
    let id = field_ident(&f.name);
    let fname = &f.name;
    let v = format!("self.{id}");
    let ty = &f.ty;
    let line = match (&ty.base, ty.array) {
        (BaseType::WString { .. }, _) => format!(
            "return ::core::result::Result::Err(::hibari_cdr::CdrEncodeError::WStringUnsupported {{ field: \"{fname}\" }});"
        ),
        (BaseType::Primitive(_), ArrayKind::Single) => format!("w.write({v})?;"),
        (BaseType::Primitive(_), ArrayKind::Fixed(n)) => {
            format!("w.write_prim_array(\"{fname}\", &{v}, {n})?;")
        }
        (BaseType::Primitive(_), _) => {
            format!("w.write_prim_seq(\"{fname}\", &{v}, {})?;", bound_of(ty))
        }
        (BaseType::String { .. }, ArrayKind::Single) => format!(
            "w.write_str(\"{fname}\", &{v}, {})?;",
            string_bound(&ty.base)
        ),
        (BaseType::String { .. }, arr) => format!(
            "{}for s in {v}.iter() {{ w.write_str(\"{fname}\", s, {})?; }}",
            seq_prefix(arr, fname, &v, ty),
            string_bound(&ty.base)
        ),
        (BaseType::Named(_), ArrayKind::Single) => {
            format!("w.nested(|w| {v}.encode_fields(w))?;")
        }
        (BaseType::Named(_), arr) => format!(
            "{}for m in {v}.iter() {{ w.nested(|w| m.encode_fields(w))?; }}",
            seq_prefix(arr, fname, &v, ty)
        ),
    };
    let _ = writeln!(out, "        {line}");
}

fn seq_prefix(arr: ArrayKind, fname: &str, v: &str, ty: &FieldType) -> String {
    match arr {
        ArrayKind::Fixed(_) => String::new(),
        _ => format!(
            "w.write_seq_len(\"{fname}\", {v}.len(), {})?; ",
            bound_of(ty)
        ),
    }
}

fn decode_field(out: &mut String, f: &Field, cx: &Context<'_>) {
    let id = field_ident(&f.name);
    let v = format!("self.{id}");
    let ty = &f.ty;
    let elem_min = min_wire_size(
        &FieldType {
            base: ty.base.clone(),
            array: ArrayKind::Single,
        },
        cx.registry,
    );
    let line = match (&ty.base, ty.array) {
        (BaseType::WString { .. }, _) => {
            "return ::core::result::Result::Err(::hibari_cdr::CdrDecodeError::WStringUnsupported);"
                .to_owned()
        }
        (BaseType::Primitive(_), ArrayKind::Single) => format!("{v} = r.read()?;"),
        (BaseType::Primitive(p), ArrayKind::Fixed(n)) => {
            format!("{v} = r.read_prim_array::<{}, {n}>()?;", prim_rust(*p))
        }
        (BaseType::Primitive(_), _) => format!("r.read_prim_vec_into(&mut {v})?;"),
        (BaseType::String { .. }, ArrayKind::Single) => {
            format!("r.read_string_into(&mut {v})?;")
        }
        (BaseType::String { .. }, arr) => format!(
            "{}for e in {v}.iter_mut() {{ r.read_string_into(e)?; }}",
            resize_prefix(arr, &v, elem_min)
        ),
        (BaseType::Named(_), ArrayKind::Single) => format!("{v}.decode_fields_into(r)?;"),
        (BaseType::Named(_), arr) => format!(
            "{}for e in {v}.iter_mut() {{ e.decode_fields_into(r)?; }}",
            resize_prefix(arr, &v, elem_min)
        ),
    };
    let _ = writeln!(out, "        {line}");
}

fn resize_prefix(arr: ArrayKind, v: &str, elem_min: usize) -> String {
    match arr {
        ArrayKind::Fixed(_) => String::new(),
        _ => format!(
            "let n = r.read_count({elem_min})?; {v}.truncate(n); {v}.resize_with(n, ::core::default::Default::default); "
        ),
    }
}

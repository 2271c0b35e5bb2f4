//! Emits the zero-copy view of a message: `ImageView<'a>` borrows primitive
//! arrays from the encoded bytes as `PrimSeq` (which never promises the bytes
//! are immutable: they may be a publisher's shared-memory chunk) and strings
//! as `ViewStr<'a>` (borrowed from private bytes, copied then checked out of
//! shared ones, inline when short), so decoding it costs O(fields) plus
//! shared strings' bytes.

use std::fmt::Write;

use hibari_idl::model::{ArrayKind, BaseType, FieldType, MessageDef};

use crate::emit_msg::min_wire_size;
use crate::names::{field_ident, field_type, prim_rust, PathResolver};
use crate::Context;

/// Emits `struct NameView<'a>`, `impl MessageView` and `impl HasView`.
pub fn emit_view(out: &mut String, def: &MessageDef, cx: &Context<'_>) {
    let name = &def.name.name;
    let _ = writeln!(
        out,
        "/// A zero-copy view of [`{name}`]: primitive arrays are views of the encoded bytes, strings are borrowed from private bytes or copied out of shared memory."
    );
    let _ = writeln!(out, "#[derive(Clone, Debug, PartialEq)]");
    let _ = writeln!(out, "pub struct {name}View<'a> {{");
    for f in &def.fields {
        let _ = writeln!(
            out,
            "    pub {}: {},",
            field_ident(&f.name),
            field_type(&f.ty, cx, true)
        );
    }
    let _ = writeln!(out, "    _marker: ::core::marker::PhantomData<&'a ()>,");
    let _ = writeln!(out, "}}\n");

    let _ = writeln!(
        out,
        "impl<'a> ::hibari_cdr::MessageView<'a> for {name}View<'a> {{"
    );
    let _ = writeln!(out, "    type Owned = {name};");
    let _ = writeln!(
        out,
        "    fn decode_view_fields(r: &mut ::hibari_cdr::CdrReader<'a>) -> ::core::result::Result<Self, ::hibari_cdr::CdrDecodeError> {{"
    );
    if def.fields.is_empty() {
        let _ = writeln!(out, "        r.read::<u8>()?;");
    }
    for f in &def.fields {
        let _ = writeln!(
            out,
            "        let {} = {};",
            local(&f.name),
            view_decode_expr(&f.ty, cx)
        );
    }
    let _ = write!(out, "        ::core::result::Result::Ok({name}View {{ ");
    for f in &def.fields {
        let _ = write!(out, "{}: {}, ", field_ident(&f.name), local(&f.name));
    }
    let _ = writeln!(out, "_marker: ::core::marker::PhantomData }})\n    }}");

    let _ = writeln!(out, "    fn to_owned_message(&self) -> {name} {{");
    let _ = writeln!(out, "        {name} {{");
    for f in &def.fields {
        let _ = writeln!(
            out,
            "            {}: {},",
            field_ident(&f.name),
            to_owned_expr(&f.ty, &format!("self.{}", field_ident(&f.name)))
        );
    }
    let _ = writeln!(out, "        }}\n    }}\n}}\n");

    let _ = writeln!(out, "impl ::hibari_cdr::HasView for {name} {{");
    let _ = writeln!(out, "    type View<'a> = {name}View<'a>;");
    let _ = writeln!(out, "}}\n");
}

fn local(name: &str) -> String {
    format!("f_{name}")
}

fn view_decode_expr(ty: &FieldType, cx: &Context<'_>) -> String {
    let single = FieldType {
        base: ty.base.clone(),
        array: ArrayKind::Single,
    };
    let elem = match &ty.base {
        BaseType::WString { .. } => {
            return "return ::core::result::Result::Err(::hibari_cdr::CdrDecodeError::WStringUnsupported)".to_owned()
        }
        BaseType::Primitive(p) => {
            let p = prim_rust(*p);
            return match ty.array {
                ArrayKind::Single => "r.read()?".to_owned(),
                ArrayKind::Fixed(n) => format!("r.read_prim_seq::<{p}>({n})?"),
                _ => format!("r.read_prim_seq_counted::<{p}>()?"),
            };
        }
        BaseType::String { .. } => "r.read_view_str()?".to_owned(),
        BaseType::Named(n) => format!(
            "<{}View<'a> as ::hibari_cdr::MessageView<'a>>::decode_view_fields(r)?",
            cx.type_path(n)
        ),
    };
    match ty.array {
        ArrayKind::Single => elem,
        ArrayKind::Fixed(n) => format!(
            "{{ let mut v = ::std::vec::Vec::with_capacity({n}); for _ in 0..{n} {{ v.push({elem}); }} v }}"
        ),
        _ => format!(
            "{{ let n = r.read_count({})?; let mut v = ::std::vec::Vec::with_capacity(n); for _ in 0..n {{ v.push({elem}); }} v }}",
            min_wire_size(&single, cx.registry)
        ),
    }
}

fn to_owned_expr(ty: &FieldType, v: &str) -> String {
    match (&ty.base, ty.array) {
        (BaseType::Primitive(_), ArrayKind::Single) => v.to_owned(),
        (BaseType::Primitive(_), ArrayKind::Fixed(_)) => {
            format!("{{ let mut a = [::core::default::Default::default(); {n}]; for (s, x) in a.iter_mut().zip({v}.iter()) {{ *s = x; }} a }}", n = fixed_len(ty))
        }
        (BaseType::Primitive(_), _) => format!("{v}.to_vec()"),
        (BaseType::String { .. } | BaseType::WString { .. }, ArrayKind::Single) => {
            format!("::std::string::String::from(&*{v})")
        }
        (BaseType::String { .. } | BaseType::WString { .. }, ArrayKind::Fixed(_)) => format!(
            "::core::array::from_fn(|i| {v}.get(i).map(|s| ::std::string::String::from(&**s)).unwrap_or_default())"
        ),
        (BaseType::String { .. } | BaseType::WString { .. }, _) => {
            format!("{v}.iter().map(|s| ::std::string::String::from(&**s)).collect()")
        }
        (BaseType::Named(_), ArrayKind::Single) => {
            format!("::hibari_cdr::MessageView::to_owned_message(&{v})")
        }
        (BaseType::Named(_), ArrayKind::Fixed(_)) => format!(
            "::core::array::from_fn(|i| {v}.get(i).map(::hibari_cdr::MessageView::to_owned_message).unwrap_or_default())"
        ),
        (BaseType::Named(_), _) => {
            format!("{v}.iter().map(::hibari_cdr::MessageView::to_owned_message).collect()")
        }
    }
}

fn fixed_len(ty: &FieldType) -> u32 {
    match ty.array {
        ArrayKind::Fixed(n) => n,
        _ => 0,
    }
}

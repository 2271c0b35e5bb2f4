//! Rust spelling of ROS names, types and literals.

use hibari_idl::model::{ArrayKind, BaseType, FieldType, Literal, Primitive, TypeName};

const KEYWORDS: &[&str] = &[
    "as", "async", "await", "break", "const", "continue", "dyn", "else", "enum", "extern", "false",
    "fn", "for", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref",
    "return", "static", "struct", "trait", "true", "type", "unsafe", "use", "where", "while",
    "abstract", "become", "box", "do", "final", "gen", "macro", "override", "priv", "try",
    "typeof", "unsized", "virtual", "yield",
];

/// A field name as a Rust identifier (`type` becomes `r#type`).
pub fn field_ident(name: &str) -> String {
    if KEYWORDS.contains(&name) {
        format!("r#{name}")
    } else {
        name.to_owned()
    }
}

/// The Rust type of a primitive.
pub fn prim_rust(p: Primitive) -> &'static str {
    match p {
        Primitive::Bool => "bool",
        Primitive::Byte | Primitive::Char | Primitive::UInt8 => "u8",
        Primitive::Int8 => "i8",
        Primitive::Int16 => "i16",
        Primitive::UInt16 => "u16",
        Primitive::Int32 => "i32",
        Primitive::UInt32 => "u32",
        Primitive::Int64 => "i64",
        Primitive::UInt64 => "u64",
        Primitive::Float32 => "f32",
        Primitive::Float64 => "f64",
    }
}

/// Resolves where the Rust type of a ROS type lives.
pub trait PathResolver {
    /// Full Rust path of the owned type, e.g. `crate::sensor_msgs::msg::Image`.
    fn type_path(&self, name: &TypeName) -> String;
}

/// Rust type of one element of a field (no array applied).
pub fn element_type(base: &BaseType, paths: &dyn PathResolver, view: bool) -> String {
    match base {
        BaseType::Primitive(p) => prim_rust(*p).to_owned(),
        BaseType::String { .. } | BaseType::WString { .. } => {
            if view {
                "::hibari_cdr::ViewStr<'a>".to_owned()
            } else {
                "::std::string::String".to_owned()
            }
        }
        BaseType::Named(n) => {
            if view {
                format!("{}View<'a>", paths.type_path(n))
            } else {
                paths.type_path(n)
            }
        }
    }
}

/// Rust type of a field, owned or view.
pub fn field_type(ty: &FieldType, paths: &dyn PathResolver, view: bool) -> String {
    let elem = element_type(&ty.base, paths, view);
    if view {
        if let (
            BaseType::Primitive(p),
            ArrayKind::Fixed(_) | ArrayKind::Bounded(_) | ArrayKind::Unbounded,
        ) = (&ty.base, ty.array)
        {
            return format!("::hibari_cdr::PrimSeq<'a, {}>", prim_rust(*p));
        }
    }
    match ty.array {
        ArrayKind::Single => elem,
        ArrayKind::Fixed(n) if !view => format!("[{elem}; {n}]"),
        ArrayKind::Fixed(_) | ArrayKind::Bounded(_) | ArrayKind::Unbounded => {
            format!("::std::vec::Vec<{elem}>")
        }
    }
}

/// A literal as a Rust expression of the element type.
pub fn literal(lit: &Literal, base: &BaseType) -> String {
    match (lit, base) {
        (Literal::Bool(b), _) => b.to_string(),
        (Literal::Int(i), BaseType::Primitive(p)) => match p {
            Primitive::Float32 | Primitive::Float64 => format!("{i}.0"),
            Primitive::Bool => (*i != 0).to_string(),
            _ => format!("{i}{}", prim_rust(*p)),
        },
        (Literal::Float(f), BaseType::Primitive(p)) => float_literal(*f, prim_rust(*p)),
        (Literal::String(s), _) => format!("{s:?}"),
        (Literal::Array(items), _) => {
            let inner: Vec<String> = items.iter().map(|l| literal(l, base)).collect();
            format!("[{}]", inner.join(", "))
        }
        (Literal::Int(i), _) => i.to_string(),
        (Literal::Float(f), _) => float_literal(*f, "f64"),
    }
}

fn float_literal(f: f64, ty: &str) -> String {
    if f.is_nan() {
        format!("{ty}::NAN")
    } else if f.is_infinite() {
        if f > 0.0 {
            format!("{ty}::INFINITY")
        } else {
            format!("{ty}::NEG_INFINITY")
        }
    } else {
        format!("{f:?}{ty}")
    }
}

/// The default value expression of a field.
pub fn default_expr(ty: &FieldType, default: Option<&Literal>) -> String {
    let is_string = matches!(ty.base, BaseType::String { .. } | BaseType::WString { .. });
    let elem_default = match &ty.base {
        BaseType::Primitive(Primitive::Bool) => "false".to_owned(),
        BaseType::Primitive(Primitive::Float32 | Primitive::Float64) => "0.0".to_owned(),
        BaseType::Primitive(_) => "0".to_owned(),
        _ => "::core::default::Default::default()".to_owned(),
    };
    let elem = |lit: &Literal| {
        let l = literal(lit, &ty.base);
        if is_string {
            format!("::std::string::String::from({l})")
        } else {
            l
        }
    };
    match (ty.array, default) {
        (ArrayKind::Single, Some(lit)) => elem(lit),
        (ArrayKind::Single, None) if is_string => "::std::string::String::new()".to_owned(),
        (ArrayKind::Single, None) => elem_default,
        (ArrayKind::Fixed(_), Some(Literal::Array(items)))
        | (ArrayKind::Bounded(_) | ArrayKind::Unbounded, Some(Literal::Array(items))) => {
            let inner: Vec<String> = items.iter().map(elem).collect();
            if matches!(ty.array, ArrayKind::Fixed(_)) {
                format!("[{}]", inner.join(", "))
            } else {
                format!("::std::vec![{}]", inner.join(", "))
            }
        }
        (ArrayKind::Fixed(_), _) if matches!(ty.base, BaseType::Primitive(_)) => {
            let n = match ty.array {
                ArrayKind::Fixed(n) => n,
                _ => 0,
            };
            format!("[{elem_default}; {n}]")
        }
        (ArrayKind::Fixed(_), _) => {
            "::core::array::from_fn(|_| ::core::default::Default::default())".to_owned()
        }
        (_, _) => "::std::vec::Vec::new()".to_owned(),
    }
}

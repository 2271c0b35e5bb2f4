//! Messages as YAML, the way `ros2` reads and prints them.
//!
//! Input: the YAML a user types on the command line (`'{data: hello}'`,
//! `'linear: {x: 1.0}'`) becomes rosbridge JSON, which `hibari::dynamic`
//! turns into a message with its definition's rules (missing fields take
//! defaults, unknown fields and out-of-range numbers are errors).
//!
//! Output: what `ros2 topic echo` prints (PyYAML's block style with
//! `ros2`'s options): fields in definition order, sequences as `- item`
//! lines at the key's indentation, strings quoted only when YAML needs it,
//! floats as Python prints them (`1.0`, `1.0e-05`, `.nan`). Arrays and
//! strings longer than the truncation length end in `'...'`, as
//! `ros2 topic echo` does by default (its `--full-length` lifts that).

use anyhow::{bail, Context as _, Result};
use hibari::dynamic::Value;
use hibari::interfaces::model::{ArrayKind, BaseType, FieldType, TypeName};
use hibari::interfaces::Registry;
use serde_json::{Map, Number, Value as Json};
use yaml_rust2::{Yaml, YamlLoader};

use super::scalars::parse_real;
pub use super::scalars::{float, py_float, quote};

/// Parses command-line YAML (empty text is `{}`) into JSON.
pub fn parse(text: &str) -> Result<Json> {
    let docs = YamlLoader::load_from_str(text).context("reading the YAML argument")?;
    match docs.len() {
        0 => Ok(Json::Object(Map::new())),
        1 => to_json(&docs[0]),
        n => bail!("the YAML argument holds {n} documents; give one"),
    }
}

fn to_json(y: &Yaml) -> Result<Json> {
    Ok(match y {
        Yaml::Null => Json::Null,
        Yaml::Boolean(b) => Json::Bool(*b),
        Yaml::Integer(i) => Json::Number((*i).into()),
        Yaml::Real(text) => {
            let f = parse_real(text).with_context(|| format!("`{text}` is not a number"))?;
            if f.is_infinite() {
                // Values travel as rosbridge JSON, which has no infinity
                // (its `null` is NaN): refuse rather than change the value.
                bail!("`{text}`: an infinite value cannot be given here");
            }
            // NaN is JSON's null, which a float field reads as NaN.
            Number::from_f64(f).map_or(Json::Null, Json::Number)
        }
        Yaml::String(s) => Json::String(s.clone()),
        Yaml::Array(items) => Json::Array(items.iter().map(to_json).collect::<Result<_>>()?),
        Yaml::Hash(map) => {
            let mut out = Map::new();
            for (k, v) in map {
                let key = match k {
                    Yaml::String(s) => s.clone(),
                    Yaml::Integer(i) => i.to_string(),
                    other => bail!("a YAML key must be a field name, got {other:?}"),
                };
                out.insert(key, to_json(v)?);
            }
            Json::Object(out)
        }
        Yaml::Alias(_) | Yaml::BadValue => bail!("unsupported YAML value {y:?}"),
    })
}

/// How `print` shortens and which parts it leaves out (`ros2 topic echo`'s
/// `--truncate-length`, `--full-length`, `--no-arr`, `--no-str`).
#[derive(Clone, Copy, Debug)]
pub struct Style {
    /// Arrays and strings longer than this are cut (`None`: never).
    pub truncate: Option<usize>,
    pub no_arr: bool,
    pub no_str: bool,
}

/// Prints a message or a single value of type `field` in YAML block style.
pub struct Printer<'a> {
    pub registry: &'a Registry,
    pub style: Style,
}

impl<'a> Printer<'a> {
    /// A printer with `ros2`'s defaults: arrays and strings cut at 128.
    pub fn new(registry: &'a Registry) -> Printer<'a> {
        Printer {
            registry,
            style: Style {
                truncate: Some(128),
                no_arr: false,
                no_str: false,
            },
        }
    }

    /// The YAML text of `value` (a message of type `ty`), one line per
    /// scalar field, without a trailing `---`.
    pub fn message(&self, ty: &TypeName, value: &Value) -> String {
        let mut out = String::new();
        match value {
            Value::Message(s) if s.is_empty() => out.push_str("{}\n"),
            Value::Message(_) => self.fields(&mut out, ty, value, 0),
            other => self.value(&mut out, other, None, 0),
        }
        out
    }

    fn fields(&self, out: &mut String, ty: &TypeName, value: &Value, indent: usize) {
        let Some(s) = value.as_struct() else { return };
        let def = self.registry.message(ty);
        for (name, v) in s.iter() {
            let field = def.and_then(|d| d.fields.iter().find(|f| f.name == name));
            out.push_str(&" ".repeat(indent));
            out.push_str(name);
            out.push(':');
            self.after_key(out, v, field.map(|f| &f.ty), indent);
        }
    }

    /// What follows `key:` — a scalar on the same line, or a block below.
    fn after_key(&self, out: &mut String, v: &Value, ty: Option<&FieldType>, indent: usize) {
        if let Some(ty) = ty.filter(|t| t.array != ArrayKind::Single) {
            if self.style.no_arr {
                out.push(' ');
                out.push_str(&quote(&array_note(ty, v.array_len())));
                out.push('\n');
                return;
            }
        }
        match v {
            Value::Message(s) if s.is_empty() => out.push_str(" {}\n"),
            Value::Message(_) => {
                out.push('\n');
                let nested = nested_type(ty);
                self.fields_or_plain(out, nested.as_ref(), v, indent + 2);
            }
            _ if v.array_len().is_some() => {
                let items = items(v);
                if items.is_empty() {
                    out.push_str(" []\n");
                    return;
                }
                out.push('\n');
                let nested = nested_type(ty);
                let shown = self
                    .style
                    .truncate
                    .map_or(items.len(), |n| n.min(items.len()));
                for item in &items[..shown] {
                    out.push_str(&" ".repeat(indent));
                    out.push('-');
                    match item {
                        Value::Message(s) if !s.is_empty() => {
                            // The first field follows `- `, the rest align with it.
                            let mut block = String::new();
                            self.fields_or_plain(&mut block, nested.as_ref(), item, indent + 2);
                            out.push(' ');
                            out.push_str(&block[indent + 2..]);
                        }
                        _ => {
                            out.push(' ');
                            out.push_str(&self.scalar(item));
                            out.push('\n');
                        }
                    }
                }
                if shown < items.len() {
                    out.push_str(&" ".repeat(indent));
                    out.push_str("- '...'\n");
                }
            }
            scalar => {
                out.push(' ');
                out.push_str(&self.scalar(scalar));
                out.push('\n');
            }
        }
    }

    fn fields_or_plain(&self, out: &mut String, ty: Option<&TypeName>, v: &Value, indent: usize) {
        match ty {
            Some(ty) => self.fields(out, ty, v, indent),
            None => {
                let Some(s) = v.as_struct() else { return };
                for (name, item) in s.iter() {
                    out.push_str(&" ".repeat(indent));
                    out.push_str(name);
                    out.push(':');
                    self.after_key(out, item, None, indent);
                }
            }
        }
    }

    fn value(&self, out: &mut String, v: &Value, ty: Option<&FieldType>, indent: usize) {
        // A lone value (`--field data`): a scalar on its line, a block otherwise.
        if v.array_len().is_some() || matches!(v, Value::Message(_)) {
            let mut block = String::new();
            self.after_key(&mut block, v, ty, indent);
            out.push_str(block.trim_start_matches(' ').trim_start_matches('\n'));
        } else {
            out.push_str(&self.scalar(v));
            out.push('\n');
        }
    }

    /// A single value of type `ty` (from `--field`).
    pub fn lone(&self, value: &Value, ty: Option<&FieldType>) -> String {
        let mut out = String::new();
        self.value(&mut out, value, ty, 0);
        out
    }

    /// PyYAML's flow style: `{a: 1, b: [1, 2], c: {d: ''}}`.
    pub fn flow(&self, v: &Value) -> String {
        match v {
            Value::Message(s) => {
                let parts: Vec<String> = s
                    .iter()
                    .map(|(k, f)| format!("{k}: {}", self.flow(f)))
                    .collect();
                format!("{{{}}}", parts.join(", "))
            }
            _ if v.array_len().is_some() => {
                let items = items(v);
                let shown = self
                    .style
                    .truncate
                    .map_or(items.len(), |n| n.min(items.len()));
                let mut parts: Vec<String> = items[..shown].iter().map(|i| self.flow(i)).collect();
                if shown < items.len() {
                    parts.push("'...'".into());
                }
                format!("[{}]", parts.join(", "))
            }
            scalar => self.lone(scalar, None).trim_end().to_owned(),
        }
    }

    fn scalar(&self, v: &Value) -> String {
        match v {
            Value::Bool(b) => if *b { "true" } else { "false" }.to_owned(),
            Value::Int(i) => i.to_string(),
            Value::UInt(u) => u.to_string(),
            Value::Float(f) => float(*f),
            Value::String(s) if self.style.no_str => {
                quote(&format!("<string length: <{}>>", s.chars().count()))
            }
            Value::String(s) => match self.style.truncate {
                Some(n) if s.chars().count() > n => {
                    quote(&format!("{}...", s.chars().take(n).collect::<String>()))
                }
                _ => quote(s),
            },
            other => format!("{other:?}"),
        }
    }
}

fn nested_type(ty: Option<&FieldType>) -> Option<TypeName> {
    match ty.map(|t| &t.base) {
        Some(BaseType::Named(n)) => Some(n.clone()),
        _ => None,
    }
}

/// An array's elements as scalar values (the flat vectors widened).
pub fn items(v: &Value) -> Vec<Value> {
    fn map<T: Copy>(x: &[T], f: impl Fn(T) -> Value) -> Vec<Value> {
        x.iter().map(|&e| f(e)).collect()
    }
    match v {
        Value::Bytes(x) => map(x, |e| Value::UInt(e.into())),
        Value::I8s(x) => map(x, |e| Value::Int(e.into())),
        Value::I16s(x) => map(x, |e| Value::Int(e.into())),
        Value::U16s(x) => map(x, |e| Value::UInt(e.into())),
        Value::I32s(x) => map(x, |e| Value::Int(e.into())),
        Value::U32s(x) => map(x, |e| Value::UInt(e.into())),
        Value::I64s(x) => map(x, Value::Int),
        Value::U64s(x) => map(x, Value::UInt),
        Value::F32s(x) => map(x, |e| Value::Float(e.into())),
        Value::F64s(x) => map(x, Value::Float),
        Value::Array(x) => x.clone(),
        _ => Vec::new(),
    }
}

fn array_note(ty: &FieldType, len: Option<usize>) -> String {
    let base = match &ty.base {
        BaseType::Primitive(p) => p.msg_name().to_owned(),
        BaseType::String { .. } => "string".to_owned(),
        BaseType::WString { .. } => "wstring".to_owned(),
        BaseType::Named(n) => n.to_string(),
    };
    match ty.array {
        ArrayKind::Fixed(n) => format!("<array type: {base}[{n}]>"),
        _ => format!("<sequence type: {base}, length: {}>", len.unwrap_or(0)),
    }
}

//! YAML as rcl reads parameter values: a document as a tree with the line
//! of each node and whether each scalar was quoted, and the typing of
//! scalars and lists (see [`super::overrides`]).

use yaml_rust2::parser::{Event, MarkedEventReceiver, Parser};
use yaml_rust2::scanner::{Marker, TScalarStyle};

use super::ParameterValue;

/// A YAML document as a tree, with the line of each node.
#[derive(Debug)]
pub(crate) enum Yaml {
    Map(Vec<(String, Yaml)>, usize),
    Seq(Vec<Yaml>, usize),
    Scalar {
        text: String,
        plain: bool,
        line: usize,
    },
}

impl Yaml {
    pub(crate) fn line(&self) -> usize {
        match self {
            Yaml::Map(_, l) | Yaml::Seq(_, l) | Yaml::Scalar { line: l, .. } => *l,
        }
    }
}

#[derive(Default)]
struct Builder {
    stack: Vec<Yaml>,
    keys: Vec<Option<String>>,
    root: Option<Yaml>,
    error: Option<(usize, String)>,
}

impl Builder {
    fn push(&mut self, node: Yaml) {
        match self.stack.last_mut() {
            None => self.root = Some(node),
            Some(Yaml::Seq(items, _)) => items.push(node),
            Some(Yaml::Map(entries, _)) => {
                let key = self.keys.last_mut().expect("a key slot per map");
                match (key.take(), node) {
                    (None, Yaml::Scalar { text, .. }) => *key = Some(text),
                    (None, other) => {
                        let line = other.line();
                        self.error
                            .get_or_insert((line, "a map key must be a plain name".into()));
                    }
                    (Some(k), value) => entries.push((k, value)),
                }
            }
            Some(Yaml::Scalar { .. }) => unreachable!("scalars are never on the stack"),
        }
    }
}

impl MarkedEventReceiver for Builder {
    fn on_event(&mut self, ev: Event, mark: Marker) {
        let line = mark.line();
        match ev {
            Event::MappingStart(..) => {
                self.stack.push(Yaml::Map(Vec::new(), line));
                self.keys.push(None);
            }
            Event::SequenceStart(..) => self.stack.push(Yaml::Seq(Vec::new(), line)),
            Event::MappingEnd => {
                self.keys.pop();
                if let Some(node) = self.stack.pop() {
                    self.push(node);
                }
            }
            Event::SequenceEnd => {
                if let Some(node) = self.stack.pop() {
                    self.push(node);
                }
            }
            Event::Scalar(text, style, ..) => self.push(Yaml::Scalar {
                text,
                plain: style == TScalarStyle::Plain,
                line,
            }),
            Event::Alias(_) => {
                self.error
                    .get_or_insert((line, "YAML aliases are not parameter values".into()));
            }
            _ => {}
        }
    }
}

/// Parses one YAML document; `Err` holds the line and the reason.
pub(crate) fn parse_yaml(text: &str) -> Result<Option<Yaml>, (usize, String)> {
    let mut builder = Builder::default();
    Parser::new_from_str(text)
        .load(&mut builder, false)
        .map_err(|e| (e.marker().line(), e.info().to_string()))?;
    match builder.error {
        Some(e) => Err(e),
        None => Ok(builder.root),
    }
}

const TRUE: [&str; 11] = [
    "Y", "y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON",
];
const FALSE: [&str; 11] = [
    "N", "n", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF",
];

/// A scalar's value as rcl types it.
fn scalar(text: &str, plain: bool) -> ParameterValue {
    if !plain {
        return ParameterValue::String(text.into());
    }
    if TRUE.contains(&text) {
        return ParameterValue::Bool(true);
    }
    if FALSE.contains(&text) {
        return ParameterValue::Bool(false);
    }
    if let Ok(i) = text.parse::<i64>() {
        return ParameterValue::Integer(i);
    }
    let special = match text {
        ".nan" | ".NaN" | ".NAN" => Some(f64::NAN),
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" => Some(f64::INFINITY),
        "-.inf" | "-.Inf" | "-.INF" => Some(f64::NEG_INFINITY),
        _ => None,
    };
    let numeric = text.bytes().any(|b| b.is_ascii_digit())
        && text
            .bytes()
            .all(|b| b.is_ascii_digit() || b"+-.eE".contains(&b));
    match special.or_else(|| numeric.then(|| text.parse::<f64>().ok()).flatten()) {
        Some(d) => ParameterValue::Double(d),
        None => ParameterValue::String(text.into()),
    }
}

/// A leaf's value; `Err` holds the line and the reason.
pub(crate) fn to_value(node: &Yaml) -> Result<ParameterValue, (usize, String)> {
    match node {
        Yaml::Scalar { text, plain, .. } => Ok(scalar(text, *plain)),
        Yaml::Map(_, line) => Err((*line, "a map is not a parameter value".into())),
        Yaml::Seq(items, line) => {
            let mut values = Vec::with_capacity(items.len());
            for item in items {
                match item {
                    Yaml::Scalar { text, plain, .. } => values.push(scalar(text, *plain)),
                    other => {
                        return Err((other.line(), "a list may hold only plain values".into()))
                    }
                }
            }
            array(values).ok_or_else(|| {
                (
                    *line,
                    "a list must be non-empty and hold values of one type \
                     (bools, integers, doubles or strings)"
                        .into(),
                )
            })
        }
    }
}

fn array(values: Vec<ParameterValue>) -> Option<ParameterValue> {
    use ParameterValue as V;
    macro_rules! all {
        ($variant:ident) => {
            values
                .iter()
                .map(|v| match v {
                    V::$variant(x) => Some(x.clone()),
                    _ => None,
                })
                .collect::<Option<Vec<_>>>()
        };
    }
    Some(match values.first()? {
        V::Bool(_) => V::BoolArray(all!(Bool)?),
        V::Integer(_) => V::IntegerArray(all!(Integer)?),
        V::Double(_) => V::DoubleArray(all!(Double)?),
        V::String(_) => V::StringArray(all!(String)?),
        _ => return None,
    })
}

/// Why [`ParameterValue::from_yaml`] refused a value.
#[derive(Debug, thiserror::Error)]
#[error("`{text}` is not a parameter value: {reason}")]
pub struct ParameterValueParseError {
    /// The text given.
    pub text: String,
    /// What is wrong with it.
    pub reason: String,
}

impl ParameterValue {
    /// A value written as YAML, typed as rcl types `--ros-args -p` values and
    /// `ros2 param set` arguments: `true`, `3`, `3.0`, `hello`, `'3'` (a
    /// string), `[1, 2]` (an integer array). Empty text is the empty string.
    pub fn from_yaml(text: &str) -> Result<ParameterValue, ParameterValueParseError> {
        let refuse = |reason: String| ParameterValueParseError {
            text: text.to_owned(),
            reason,
        };
        match parse_yaml(text).map_err(|(_, reason)| refuse(reason))? {
            None => Ok(ParameterValue::String(String::new())),
            Some(node) => to_value(&node).map_err(|(_, reason)| refuse(reason)),
        }
    }
}

//! Parameter overrides from the command line, as rcl reads them:
//! `--ros-args -p [node:]name:=value` (the value is YAML) and
//! `--params-file file.yaml` (ROS 2's layout: node names, optionally
//! nested by namespace, each with a `ros__parameters` map whose nested keys
//! join with dots; `/**` and `*` wildcards in node names).
//!
//! YAML values are typed as rcl types them: an unquoted `true`/`yes`/`on`
//! (any case rcl accepts) is a bool, a whole number an integer, a number
//! with a point or exponent (or `.inf`, `.nan`) a double, anything else —
//! and anything quoted — a string; a list of one kind is an array of it.

use std::path::Path;

use thiserror::Error;
use yaml_rust2::parser::{Event, MarkedEventReceiver, Parser};
use yaml_rust2::scanner::{Marker, TScalarStyle};

use super::ParameterValue;

/// A malformed `-p` value or parameter file: where, and why.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[error("{source_name}{}{}: {reason}", line.map(|l| format!(":{l}")).unwrap_or_default(), parameter.as_ref().map(|p| format!(": parameter `{p}`")).unwrap_or_default())]
pub struct ParameterOverrideError {
    /// The file, or the `-p` argument.
    pub source_name: String,
    /// The line (1-based) in a file, when known.
    pub line: Option<usize>,
    /// The parameter, when the error is in one.
    pub parameter: Option<String>,
    /// What is wrong and what to write instead.
    pub reason: String,
}

/// One override: for the nodes `node` matches (all when `None`).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct OverrideRule {
    pub node: Option<String>,
    pub name: String,
    pub value: ParameterValue,
}

impl OverrideRule {
    /// Whether the rule names `fqn` exactly (not through a wildcard).
    fn exact(&self, fqn: &str) -> bool {
        self.node.as_deref() == Some(fqn)
    }

    fn matches(&self, fqn: &str) -> bool {
        self.node.as_deref().is_none_or(|p| {
            let pattern: Vec<&str> = p.split('/').filter(|s| !s.is_empty()).collect();
            let name: Vec<&str> = fqn.split('/').filter(|s| !s.is_empty()).collect();
            wildcard(&pattern, &name)
        })
    }
}

/// `**` is any number of tokens, `*` one token.
fn wildcard(pattern: &[&str], name: &[&str]) -> bool {
    match pattern.split_first() {
        None => name.is_empty(),
        Some((&"**", rest)) => (0..=name.len()).any(|i| wildcard(rest, &name[i..])),
        Some((p, rest)) => name
            .split_first()
            .is_some_and(|(n, tail)| (*p == "*" || p == n) && wildcard(rest, tail)),
    }
}

/// The overrides for the node `fqn`: wildcard rules first, then the rules
/// that name it, each in the order given, so the last that applies wins.
pub(crate) fn for_node(rules: &[OverrideRule], fqn: &str) -> super::ParameterOverrides {
    let mut out = super::ParameterOverrides::new();
    let (exact, wild): (Vec<_>, Vec<_>) = rules
        .iter()
        .filter(|r| r.matches(fqn))
        .partition(|r| r.exact(fqn));
    for r in wild.into_iter().chain(exact) {
        out.insert(r.name.clone(), r.value.clone());
    }
    out
}

/// A node name in a rule: absolute.
fn absolute(node: &str) -> String {
    if node.starts_with('/') {
        node.to_string()
    } else {
        format!("/{node}")
    }
}

/// Parses `-p [node:]name:=value`.
pub(crate) fn parse_param_rule(rule: &str) -> Result<OverrideRule, ParameterOverrideError> {
    let error = |parameter: Option<&str>, reason: String| ParameterOverrideError {
        source_name: format!("-p {rule}"),
        line: None,
        parameter: parameter.map(String::from),
        reason,
    };
    let Some((lhs, value)) = rule.split_once(":=") else {
        return Err(error(
            None,
            "write it as `name:=value` (or `node:name:=value`)".into(),
        ));
    };
    let (node, name) = match lhs.split_once(':') {
        Some((node, name)) => (Some(absolute(node)), name),
        None => (None, lhs),
    };
    if name.is_empty() {
        return Err(error(None, "the parameter has no name".into()));
    }
    let tree = parse_yaml(value).map_err(|(line, reason)| ParameterOverrideError {
        line: (line > 1).then_some(line),
        ..error(Some(name), reason)
    })?;
    let value = tree
        .as_ref()
        .map(to_value)
        .unwrap_or(Ok(ParameterValue::String(String::new())))
        .map_err(|(_, reason)| error(Some(name), reason))?;
    Ok(OverrideRule {
        node,
        name: name.into(),
        value,
    })
}

/// Reads a parameter file.
pub(crate) fn parse_params_file(path: &Path) -> Result<Vec<OverrideRule>, ParameterOverrideError> {
    let source_name = path.display().to_string();
    let error =
        |line: Option<usize>, parameter: Option<String>, reason: String| ParameterOverrideError {
            source_name: source_name.clone(),
            line,
            parameter,
            reason,
        };
    let text = std::fs::read_to_string(path)
        .map_err(|e| error(None, None, format!("cannot read it: {e}")))?;
    let tree = parse_yaml(&text).map_err(|(line, reason)| error(Some(line), None, reason))?;
    let mut rules = Vec::new();
    let Some(tree) = tree else {
        return Ok(rules);
    };
    let mut walk = Walk {
        rules: &mut rules,
        error: &error,
    };
    walk.nodes(&tree, "")?;
    Ok(rules)
}

struct Walk<'a, E> {
    rules: &'a mut Vec<OverrideRule>,
    error: &'a E,
}

impl<E> Walk<'_, E>
where
    E: Fn(Option<usize>, Option<String>, String) -> ParameterOverrideError,
{
    /// Keys down to `ros__parameters` name the node.
    fn nodes(&mut self, tree: &Yaml, prefix: &str) -> Result<(), ParameterOverrideError> {
        let Yaml::Map(entries, line) = tree else {
            return Err((self.error)(
                Some(tree.line()),
                None,
                "expected a map of node names to `ros__parameters`".into(),
            ));
        };
        if entries.is_empty() && prefix.is_empty() {
            return Ok(());
        }
        for (key, value) in entries {
            if key == "ros__parameters" {
                if prefix.is_empty() {
                    return Err((self.error)(
                        Some(*line),
                        None,
                        "`ros__parameters` needs a node name above it (`/**:` for every node)"
                            .into(),
                    ));
                }
                self.parameters(value, &absolute(prefix), "")?;
            } else {
                let node = format!("{}/{}", prefix.trim_end_matches('/'), key.trim_matches('/'));
                self.nodes(value, &node)?;
            }
        }
        Ok(())
    }

    fn parameters(
        &mut self,
        tree: &Yaml,
        node: &str,
        prefix: &str,
    ) -> Result<(), ParameterOverrideError> {
        match tree {
            Yaml::Map(entries, _) => {
                for (key, value) in entries {
                    let name = if prefix.is_empty() {
                        key.clone()
                    } else {
                        format!("{prefix}.{key}")
                    };
                    self.parameters(value, node, &name)?;
                }
                Ok(())
            }
            leaf => {
                let value = to_value(leaf)
                    .map_err(|(line, r)| (self.error)(Some(line), Some(prefix.into()), r))?;
                self.rules.push(OverrideRule {
                    node: Some(node.into()),
                    name: prefix.into(),
                    value,
                });
                Ok(())
            }
        }
    }
}

/// A YAML document as a tree, with the line of each node.
#[derive(Debug)]
enum Yaml {
    Map(Vec<(String, Yaml)>, usize),
    Seq(Vec<Yaml>, usize),
    Scalar {
        text: String,
        plain: bool,
        line: usize,
    },
}

impl Yaml {
    fn line(&self) -> usize {
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
fn parse_yaml(text: &str) -> Result<Option<Yaml>, (usize, String)> {
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
fn to_value(node: &Yaml) -> Result<ParameterValue, (usize, String)> {
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

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

use super::yaml::{parse_yaml, to_value, Yaml};
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

/// The parameters a ROS 2 parameters file (the YAML `--params-file` reads,
/// and `ros2 param dump` writes) gives the node `fqn` (`/ns/name`): its own
/// section's and the wildcard sections' (`/**`), the last that applies
/// winning — what `ros2 param load` sets.
pub fn parameters_from_file(
    path: &Path,
    fqn: &str,
) -> Result<Vec<super::Parameter>, ParameterOverrideError> {
    let rules = parse_params_file(path)?;
    Ok(for_node(&rules, fqn)
        .into_iter()
        .map(|(name, value)| super::Parameter::new(name, value))
        .collect())
}

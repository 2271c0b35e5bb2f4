//! Remapping rules from the command line (`--ros-args -r from:=to`), applied
//! as rcl applies them.
//!
//! A rule is `[node:]from:=to`. With a `node:` prefix it applies only to the
//! node of that name. `from` and `to` are topic names, expanded with the
//! node's name and namespace before they are compared with (and replace) a
//! topic's expanded name; the first rule that matches wins. Two keys rename
//! the node itself: `__node:=name` (or `__name`) and `__ns:=/namespace`.

use std::path::Path;

use crate::context::ContextCreateError;
use crate::logging::LogConfig;
use crate::node::names::{
    expand_topic_name, validate_namespace, validate_node_name, validate_topic_name, NameError,
};
use crate::parameter::overrides::{self, OverrideRule};

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct RemapRule {
    /// Only for this node, when set.
    node: Option<String>,
    kind: Kind,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Kind {
    Topic { from: String, to: String },
    NodeName(String),
    Namespace(String),
}

impl RemapRule {
    fn applies_to(&self, node: &str) -> bool {
        self.node.as_deref().is_none_or(|n| n == node)
    }
}

fn bad_rule(rule: &str, reason: impl Into<String>) -> ContextCreateError {
    ContextCreateError::InvalidRemapRule {
        rule: rule.into(),
        reason: reason.into(),
    }
}

/// Parses one rule (`[node:]from:=to`).
pub(crate) fn parse_rule(rule: &str) -> Result<RemapRule, ContextCreateError> {
    let Some((lhs, to)) = rule.split_once(":=") else {
        return Err(bad_rule(
            rule,
            "write it as `from:=to` (or `node:from:=to`)",
        ));
    };
    let (node, from) = match lhs.split_once(':') {
        Some((node, from)) => {
            validate_node_name(node).map_err(|e| bad_rule(rule, e.to_string()))?;
            (Some(node.to_string()), from)
        }
        None => (None, lhs),
    };
    let named = |e: NameError| bad_rule(rule, e.to_string());
    let kind = match from {
        "__node" | "__name" => {
            validate_node_name(to).map_err(named)?;
            Kind::NodeName(to.into())
        }
        "__ns" => {
            validate_namespace(to).map_err(named)?;
            Kind::Namespace(to.into())
        }
        _ => {
            validate_topic_name(from).map_err(named)?;
            validate_topic_name(to).map_err(named)?;
            Kind::Topic {
                from: from.into(),
                to: to.into(),
            }
        }
    };
    Ok(RemapRule { node, kind })
}

/// What the ROS arguments of a program say.
#[derive(Debug, Default)]
pub(crate) struct RosArgs {
    pub rules: Vec<RemapRule>,
    /// Parameter overrides, in the order given.
    pub params: Vec<OverrideRule>,
    /// `--log-level`, `--disable-stdout-logs`, `--disable-rosout-logs`.
    pub logging: LogConfig,
}

/// Reads the ROS arguments out of a program's arguments: those after
/// `--ros-args` up to `--` (or the end): remapping rules (`-r rule`,
/// `--remap rule`) and parameter overrides (`-p name:=value`, `--param`,
/// `--params-file file.yaml`). Arguments outside `--ros-args` are the
/// program's own and are ignored.
pub(crate) fn parse_ros_args<I, S>(args: I) -> Result<RosArgs, ContextCreateError>
where
    I: IntoIterator<Item = S>,
    S: AsRef<str>,
{
    let mut rules = Vec::new();
    let mut params = Vec::new();
    let mut logging = LogConfig::default();
    let mut in_ros_args = false;
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        let arg = arg.as_ref();
        if !in_ros_args {
            in_ros_args = arg == "--ros-args";
            continue;
        }
        match arg {
            "--" => in_ros_args = false,
            "--ros-args" => {}
            "-r" | "--remap" => {
                let rule = args
                    .next()
                    .ok_or_else(|| ContextCreateError::InvalidArgument {
                        argument: arg.into(),
                        reason: "it needs a rule after it, such as `-r chatter:=talk`".into(),
                    })?;
                rules.push(parse_rule(rule.as_ref())?);
            }
            "-p" | "--param" => {
                let rule = args
                    .next()
                    .ok_or_else(|| ContextCreateError::InvalidArgument {
                        argument: arg.into(),
                        reason: "it needs a parameter after it, such as `-p rate:=30`".into(),
                    })?;
                params.push(overrides::parse_param_rule(rule.as_ref())?);
            }
            "--params-file" => {
                let file = args
                    .next()
                    .ok_or_else(|| ContextCreateError::InvalidArgument {
                        argument: arg.into(),
                        reason: "it needs a YAML file after it".into(),
                    })?;
                params.extend(overrides::parse_params_file(Path::new(file.as_ref()))?);
            }
            "--log-level" => {
                let level = args
                    .next()
                    .ok_or_else(|| ContextCreateError::InvalidArgument {
                        argument: arg.into(),
                        reason: "it needs a level after it, such as `--log-level debug` or \
                                 `--log-level my_node:=debug`"
                            .into(),
                    })?;
                logging.log_level(level.as_ref())?;
            }
            "--enable-stdout-logs" => logging.console = true,
            "--disable-stdout-logs" => logging.console = false,
            "--enable-rosout-logs" => logging.rosout = true,
            "--disable-rosout-logs" => logging.rosout = false,
            other => {
                return Err(ContextCreateError::InvalidArgument {
                    argument: other.into(),
                    reason: "hibari understands `-r`/`--remap from:=to`, `-p`/`--param \
                             name:=value`, `--params-file file.yaml`, `--log-level [name:=]level` \
                             and `--enable-`/`--disable-stdout-logs`/`rosout-logs` after \
                             `--ros-args`; end the ROS arguments with `--`"
                        .into(),
                })
            }
        }
    }
    Ok(RosArgs {
        rules,
        params,
        logging,
    })
}

/// The remapping rules of [`parse_ros_args`].
#[cfg(test)]
pub(crate) fn parse_args<I, S>(args: I) -> Result<Vec<RemapRule>, ContextCreateError>
where
    I: IntoIterator<Item = S>,
    S: AsRef<str>,
{
    parse_ros_args(args).map(|a| a.rules)
}

/// The node's name after `__node` rules.
pub(crate) fn node_name<'a>(rules: &'a [RemapRule], node: &'a str) -> &'a str {
    rules
        .iter()
        .filter(|r| r.applies_to(node))
        .find_map(|r| match &r.kind {
            Kind::NodeName(n) => Some(n.as_str()),
            _ => None,
        })
        .unwrap_or(node)
}

/// The namespace after `__ns` rules (matched against the node's given name).
pub(crate) fn namespace<'a>(rules: &'a [RemapRule], node: &str, ns: &'a str) -> &'a str {
    rules
        .iter()
        .filter(|r| r.applies_to(node))
        .find_map(|r| match &r.kind {
            Kind::Namespace(n) => Some(n.as_str()),
            _ => None,
        })
        .unwrap_or(ns)
}

/// Applies the first matching topic rule to an expanded name.
pub(crate) fn topic(
    rules: &[RemapRule],
    expanded: &str,
    node: &str,
    ns: &str,
) -> Result<String, NameError> {
    for rule in rules.iter().filter(|r| r.applies_to(node)) {
        if let Kind::Topic { from, to } = &rule.kind {
            if expand_topic_name(from, node, ns)? == expanded {
                return expand_topic_name(to, node, ns);
            }
        }
    }
    Ok(expanded.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(args: &[&str]) -> Vec<RemapRule> {
        parse_args(args.iter().copied()).unwrap()
    }

    #[test]
    fn only_arguments_after_ros_args_and_before_a_double_dash_are_read() {
        let r = rules(&[
            "prog",
            "-r",
            "x",
            "--ros-args",
            "-r",
            "a:=b",
            "--",
            "-r",
            "junk",
        ]);
        assert_eq!(r.len(), 1);
        assert!(rules(&["prog", "-r", "a:=b"]).is_empty());
    }

    #[test]
    fn a_relative_rule_matches_the_expanded_name_in_the_nodes_namespace() {
        let r = rules(&["--ros-args", "-r", "chatter:=talk"]);
        assert_eq!(topic(&r, "/chatter", "n", "/").unwrap(), "/talk");
        assert_eq!(topic(&r, "/r1/chatter", "n", "/r1").unwrap(), "/r1/talk");
        assert_eq!(topic(&r, "/other", "n", "/").unwrap(), "/other");
    }

    #[test]
    fn absolute_and_private_rules_expand_both_sides() {
        let r = rules(&["--ros-args", "--remap", "~/out:=/global/out", "-r", "/a:=b"]);
        assert_eq!(
            topic(&r, "/r1/cam/out", "cam", "/r1").unwrap(),
            "/global/out"
        );
        assert_eq!(topic(&r, "/a", "cam", "/r1").unwrap(), "/r1/b");
    }

    #[test]
    fn the_first_matching_rule_wins() {
        let r = rules(&["--ros-args", "-r", "a:=b", "-r", "a:=c"]);
        assert_eq!(topic(&r, "/a", "n", "/").unwrap(), "/b");
    }

    #[test]
    fn a_node_prefixed_rule_applies_only_to_that_node() {
        let r = rules(&["--ros-args", "-r", "talker:chatter:=talk"]);
        assert_eq!(topic(&r, "/chatter", "talker", "/").unwrap(), "/talk");
        assert_eq!(topic(&r, "/chatter", "listener", "/").unwrap(), "/chatter");
    }

    #[test]
    fn node_and_namespace_keys_rename_the_node() {
        let r = rules(&["--ros-args", "-r", "__node:=renamed", "-r", "old:__ns:=/r2"]);
        assert_eq!(node_name(&r, "old"), "renamed");
        assert_eq!(namespace(&r, "old", "/"), "/r2");
        assert_eq!(namespace(&r, "other", "/r1"), "/r1");
    }

    #[test]
    fn malformed_rules_and_unknown_arguments_are_refused_with_advice() {
        for bad in [
            &["--ros-args", "-r", "a=b"][..],
            &["--ros-args", "-r", "a:=2b"],
            &["--ros-args", "-r", "__ns:=relative"],
            &["--ros-args", "-r", "bad-node:a:=b"],
        ] {
            let e = parse_args(bad.iter().copied()).unwrap_err();
            assert!(
                matches!(e, ContextCreateError::InvalidRemapRule { .. }),
                "{bad:?}: {e}"
            );
        }
        let e = parse_args(["--ros-args", "-r"]).unwrap_err();
        assert!(e.to_string().contains("needs a rule"), "{e}");
        let e = parse_args(["--ros-args", "--frobnicate"]).unwrap_err();
        assert!(
            e.to_string().contains("end the ROS arguments with `--`"),
            "{e}"
        );
    }
}

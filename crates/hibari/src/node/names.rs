//! Node names, namespaces and topic names, checked and expanded as ROS 2 does
//! (rcl and rmw's rules), so that a name valid here is valid in ROS 2.
//!
//! - A **node name** is `[A-Za-z_][A-Za-z0-9_]*`, at most 255 characters, and
//!   holds no `__` (ROS reserves it: `__node`, `__ns` are remapping keys).
//! - A **namespace** is absolute (`/`, `/robot1`, `/robot1/arm`): tokens of
//!   `[A-Za-z0-9_]` not starting with a digit, split by single slashes, no
//!   trailing slash. A relative namespace given to a node (`robot1`) is made
//!   absolute (`/robot1`), and an empty one is `/`.
//! - A **topic name** as written by a user may be
//!   - relative, `chatter` → `/<ns>/chatter`,
//!   - absolute, `/chatter` → `/chatter`,
//!   - private, `~/status` → `/<ns>/<node>/status` (and `~` alone → `/<ns>/<node>`),
//!   - with substitutions `{node}` and `{ns}` (or `{namespace}`).
//!
//!   Expanded, it must be a **fully qualified name**: absolute, tokens of
//!   `[A-Za-z0-9_]` not starting with a digit, no `//`, no trailing `/`, at
//!   most 247 characters.
//!
//! ```
//! use hibari::names::expand_topic_name;
//! assert_eq!(expand_topic_name("chatter", "talker", "/robot1").unwrap(), "/robot1/chatter");
//! assert_eq!(expand_topic_name("~/status", "talker", "/robot1").unwrap(), "/robot1/talker/status");
//! assert_eq!(expand_topic_name("/{node}/out", "talker", "/").unwrap(), "/talker/out");
//! assert!(expand_topic_name("2fast", "talker", "/").is_err());
//! ```

use std::fmt;

use thiserror::Error;

/// The longest node name (rmw's `RMW_NODE_NAME_MAX_NAME_LENGTH`).
pub const NODE_NAME_MAX_LENGTH: usize = 255;
/// The longest fully qualified topic name (rmw's `RMW_TOPIC_MAX_NAME_LENGTH`).
pub const TOPIC_NAME_MAX_LENGTH: usize = 247;
/// The longest namespace (rmw's `RMW_NAMESPACE_MAX_LENGTH`).
pub const NAMESPACE_MAX_LENGTH: usize = TOPIC_NAME_MAX_LENGTH - 2;

/// What kind of name was checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum NameKind {
    /// A node name (`talker`).
    NodeName,
    /// A node namespace (`/robot1`).
    Namespace,
    /// A topic name as written (`chatter`, `~/x`, `/{node}/y`).
    TopicName,
    /// A topic name after expansion (`/robot1/chatter`).
    FullTopicName,
}

impl fmt::Display for NameKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            NameKind::NodeName => "node name",
            NameKind::Namespace => "namespace",
            NameKind::TopicName => "topic name",
            NameKind::FullTopicName => "fully qualified topic name",
        })
    }
}

/// Why a name is not valid; the message says how to fix it.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum NameError {
    /// The name is empty.
    #[error("the {kind} is empty: give a name such as `talker` or `chatter`")]
    Empty {
        /// What was checked.
        kind: NameKind,
    },
    /// A character outside the allowed set.
    #[error("the {kind} `{name}` holds `{character}` at {index}: use only letters, digits and `_`{}",
        if matches!(kind, NameKind::NodeName) { "" } else { " (and `/` between tokens)" })]
    InvalidCharacter {
        /// What was checked.
        kind: NameKind,
        /// The name.
        name: String,
        /// The character.
        character: char,
        /// Its byte index.
        index: usize,
    },
    /// The name, or one of its tokens, starts with a digit.
    #[error("the {kind} `{name}` has a token starting with a digit at {index}: start each token with a letter or `_`")]
    StartsWithDigit {
        /// What was checked.
        kind: NameKind,
        /// The name.
        name: String,
        /// The byte index of the digit.
        index: usize,
    },
    /// A node name holding `__`.
    #[error("the node name `{name}` holds `__`, which ROS reserves: use a single `_`")]
    DoubleUnderscore {
        /// The name.
        name: String,
    },
    /// Two slashes in a row.
    #[error("the {kind} `{name}` holds `//` at {index}: separate tokens with a single `/`")]
    RepeatedSlash {
        /// What was checked.
        kind: NameKind,
        /// The name.
        name: String,
        /// The byte index of the second slash.
        index: usize,
    },
    /// A trailing slash.
    #[error("the {kind} `{name}` ends with `/`: remove the trailing slash")]
    EndsWithSlash {
        /// What was checked.
        kind: NameKind,
        /// The name.
        name: String,
    },
    /// A name that must be absolute is not.
    #[error("the {kind} `{name}` is not absolute: start it with `/`")]
    NotAbsolute {
        /// What was checked.
        kind: NameKind,
        /// The name.
        name: String,
    },
    /// `~` anywhere but at the start, or not followed by `/`.
    #[error("the topic name `{name}` misplaces `~`: write `~` alone or `~/name` at the start (private names)")]
    MisplacedTilde {
        /// The name.
        name: String,
    },
    /// An unbalanced, empty or unknown `{substitution}`.
    #[error("the topic name `{name}` has a bad substitution: {reason}")]
    Substitution {
        /// The name.
        name: String,
        /// What is wrong and what is allowed.
        reason: String,
    },
    /// Too long.
    #[error("the {kind} `{name}` is {length} characters long: the most is {max}")]
    TooLong {
        /// What was checked.
        kind: NameKind,
        /// The name.
        name: String,
        /// Its length.
        length: usize,
        /// The limit.
        max: usize,
    },
}

fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

fn check_length(kind: NameKind, name: &str, max: usize) -> Result<(), NameError> {
    if name.len() > max {
        return Err(NameError::TooLong {
            kind,
            name: name.into(),
            length: name.len(),
            max,
        });
    }
    Ok(())
}

/// Checks a node name: `[A-Za-z_][A-Za-z0-9_]*`, no `__`, at most 255 characters.
pub fn validate_node_name(name: &str) -> Result<(), NameError> {
    let kind = NameKind::NodeName;
    if name.is_empty() {
        return Err(NameError::Empty { kind });
    }
    if let Some((index, character)) = name.char_indices().find(|&(_, c)| !is_name_char(c)) {
        return Err(NameError::InvalidCharacter {
            kind,
            name: name.into(),
            character,
            index,
        });
    }
    if name.starts_with(|c: char| c.is_ascii_digit()) {
        return Err(NameError::StartsWithDigit {
            kind,
            name: name.into(),
            index: 0,
        });
    }
    if name.contains("__") {
        return Err(NameError::DoubleUnderscore { name: name.into() });
    }
    check_length(kind, name, NODE_NAME_MAX_LENGTH)
}

/// Checks an absolute name made of `/`-separated tokens (a namespace, or a
/// fully qualified topic name); `/` alone is allowed when `root_ok`.
fn validate_absolute(
    kind: NameKind,
    name: &str,
    root_ok: bool,
    max: usize,
) -> Result<(), NameError> {
    if name.is_empty() {
        return Err(NameError::Empty { kind });
    }
    if !name.starts_with('/') {
        return Err(NameError::NotAbsolute {
            kind,
            name: name.into(),
        });
    }
    if name == "/" && root_ok {
        return Ok(());
    }
    let mut previous = '\0';
    for (index, c) in name.char_indices() {
        if c == '/' {
            if previous == '/' {
                return Err(NameError::RepeatedSlash {
                    kind,
                    name: name.into(),
                    index,
                });
            }
        } else if !is_name_char(c) {
            return Err(NameError::InvalidCharacter {
                kind,
                name: name.into(),
                character: c,
                index,
            });
        } else if previous == '/' && c.is_ascii_digit() {
            return Err(NameError::StartsWithDigit {
                kind,
                name: name.into(),
                index,
            });
        }
        previous = c;
    }
    if name.ends_with('/') {
        return Err(NameError::EndsWithSlash {
            kind,
            name: name.into(),
        });
    }
    check_length(kind, name, max)
}

/// Checks an absolute namespace (`/` or `/a/b`).
pub fn validate_namespace(namespace: &str) -> Result<(), NameError> {
    validate_absolute(NameKind::Namespace, namespace, true, NAMESPACE_MAX_LENGTH)
}

/// Checks a fully qualified topic name (`/a/b`), as after expansion.
pub fn validate_full_topic_name(name: &str) -> Result<(), NameError> {
    validate_absolute(NameKind::FullTopicName, name, false, TOPIC_NAME_MAX_LENGTH)
}

/// Makes a node's namespace absolute: `""` → `/`, `robot1` → `/robot1`; then
/// checks it.
pub fn normalize_namespace(namespace: &str) -> Result<String, NameError> {
    let ns = if namespace.is_empty() {
        "/".to_string()
    } else if namespace.starts_with('/') {
        namespace.to_string()
    } else {
        format!("/{namespace}")
    };
    validate_namespace(&ns)?;
    Ok(ns)
}

/// Checks a topic name as written (relative, absolute, private, with
/// substitutions), before expansion.
pub fn validate_topic_name(name: &str) -> Result<(), NameError> {
    let kind = NameKind::TopicName;
    if name.is_empty() {
        return Err(NameError::Empty { kind });
    }
    let err_sub = |reason: &str| NameError::Substitution {
        name: name.into(),
        reason: reason.into(),
    };
    let mut open: Option<usize> = None;
    let mut previous = '\0';
    for (index, c) in name.char_indices() {
        match c {
            '{' if open.is_some() => return Err(err_sub("substitutions do not nest")),
            '{' => open = Some(index),
            '}' => match open.take() {
                None => return Err(err_sub("`}` without `{`")),
                Some(start) if start + 1 == index => {
                    return Err(err_sub("`{}` is empty: write `{node}` or `{ns}`"))
                }
                Some(_) => {}
            },
            _ if open.is_some() && !is_name_char(c) => {
                return Err(err_sub(
                    "a substitution holds only letters, digits and `_`: write `{node}` or `{ns}`",
                ))
            }
            _ if open.is_some() => {}
            '~' if index != 0 || name[1..].chars().next().is_some_and(|n| n != '/') => {
                return Err(NameError::MisplacedTilde { name: name.into() })
            }
            '~' => {}
            '/' if previous == '/' => {
                return Err(NameError::RepeatedSlash {
                    kind,
                    name: name.into(),
                    index,
                })
            }
            '/' => {}
            _ if !is_name_char(c) => {
                return Err(NameError::InvalidCharacter {
                    kind,
                    name: name.into(),
                    character: c,
                    index,
                })
            }
            _ if c.is_ascii_digit() && (index == 0 || previous == '/') => {
                return Err(NameError::StartsWithDigit {
                    kind,
                    name: name.into(),
                    index,
                })
            }
            _ => {}
        }
        previous = c;
    }
    if open.is_some() {
        return Err(err_sub("`{` without `}`"));
    }
    if name.ends_with('/') {
        return Err(NameError::EndsWithSlash {
            kind,
            name: name.into(),
        });
    }
    Ok(())
}

/// Expands a topic name for the node `node` in `namespace` (absolute) and
/// checks the result: `~` becomes the node's fully qualified name, `{node}`
/// and `{ns}`/`{namespace}` are substituted, and a relative name is put in
/// the namespace.
pub fn expand_topic_name(name: &str, node: &str, namespace: &str) -> Result<String, NameError> {
    validate_topic_name(name)?;
    let node_fqn = if namespace == "/" {
        format!("/{node}")
    } else {
        format!("{namespace}/{node}")
    };
    let mut out = String::with_capacity(name.len() + node_fqn.len());
    let mut rest = name;
    if let Some(after) = rest.strip_prefix('~') {
        out.push_str(&node_fqn);
        rest = after;
    }
    while let Some(start) = rest.find('{') {
        out.push_str(&rest[..start]);
        let end = start + rest[start..].find('}').expect("validated: balanced");
        match &rest[start + 1..end] {
            "node" => out.push_str(node),
            "ns" | "namespace" => out.push_str(namespace),
            other => {
                return Err(NameError::Substitution {
                    name: name.into(),
                    reason: format!("`{{{other}}}` is unknown: use `{{node}}` or `{{ns}}`"),
                })
            }
        }
        rest = &rest[end + 1..];
    }
    out.push_str(rest);
    if !out.starts_with('/') {
        out = if namespace == "/" {
            format!("/{out}")
        } else {
            format!("{namespace}/{out}")
        };
    }
    // `{ns}` of the root namespace can leave `//`: ROS collapses it.
    while let Some(i) = out.find("//") {
        out.remove(i);
    }
    validate_full_topic_name(&out)?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn node_names_are_letters_digits_and_underscores_not_starting_with_a_digit() {
        for ok in ["talker", "_hidden", "node_2", "N"] {
            assert_eq!(validate_node_name(ok), Ok(()), "{ok}");
        }
        assert!(matches!(
            validate_node_name(""),
            Err(NameError::Empty { .. })
        ));
        assert!(matches!(
            validate_node_name("2d"),
            Err(NameError::StartsWithDigit { .. })
        ));
        assert!(matches!(
            validate_node_name("my-node"),
            Err(NameError::InvalidCharacter {
                character: '-',
                index: 2,
                ..
            })
        ));
        assert!(matches!(
            validate_node_name("ns/node"),
            Err(NameError::InvalidCharacter { character: '/', .. })
        ));
    }

    #[test]
    fn node_names_may_not_hold_a_double_underscore() {
        assert_eq!(
            validate_node_name("my__node"),
            Err(NameError::DoubleUnderscore {
                name: "my__node".into()
            })
        );
        assert!(validate_node_name("__node").is_err());
    }

    #[test]
    fn node_names_longer_than_255_are_refused() {
        assert!(validate_node_name(&"a".repeat(255)).is_ok());
        assert!(matches!(
            validate_node_name(&"a".repeat(256)),
            Err(NameError::TooLong { max: 255, .. })
        ));
    }

    #[test]
    fn namespaces_are_made_absolute_and_empty_means_root() {
        assert_eq!(normalize_namespace("").unwrap(), "/");
        assert_eq!(normalize_namespace("robot1").unwrap(), "/robot1");
        assert_eq!(normalize_namespace("/robot1/arm").unwrap(), "/robot1/arm");
    }

    #[test]
    fn namespaces_refuse_double_and_trailing_slashes_and_leading_digits() {
        assert!(matches!(
            validate_namespace("/a//b"),
            Err(NameError::RepeatedSlash { index: 3, .. })
        ));
        assert!(matches!(
            validate_namespace("/a/"),
            Err(NameError::EndsWithSlash { .. })
        ));
        assert!(matches!(
            validate_namespace("/a/1b"),
            Err(NameError::StartsWithDigit { index: 3, .. })
        ));
        assert!(matches!(
            validate_namespace("/a b"),
            Err(NameError::InvalidCharacter { character: ' ', .. })
        ));
        assert!(matches!(
            validate_namespace("a"),
            Err(NameError::NotAbsolute { .. })
        ));
    }

    #[test]
    fn relative_topic_names_are_put_in_the_namespace() {
        assert_eq!(expand_topic_name("chatter", "n", "/").unwrap(), "/chatter");
        assert_eq!(
            expand_topic_name("chatter", "n", "/r1").unwrap(),
            "/r1/chatter"
        );
        assert_eq!(expand_topic_name("a/b", "n", "/r1").unwrap(), "/r1/a/b");
    }

    #[test]
    fn absolute_topic_names_are_kept() {
        assert_eq!(
            expand_topic_name("/chatter", "n", "/r1").unwrap(),
            "/chatter"
        );
    }

    #[test]
    fn private_topic_names_are_put_under_the_node() {
        assert_eq!(expand_topic_name("~/x", "n", "/r1").unwrap(), "/r1/n/x");
        assert_eq!(expand_topic_name("~/x", "n", "/").unwrap(), "/n/x");
        assert_eq!(expand_topic_name("~", "n", "/r1").unwrap(), "/r1/n");
    }

    #[test]
    fn a_tilde_must_be_first_and_followed_by_a_slash() {
        for bad in ["a~", "~x", "/~/x"] {
            assert_eq!(
                expand_topic_name(bad, "n", "/"),
                Err(NameError::MisplacedTilde { name: bad.into() }),
                "{bad}"
            );
        }
    }

    #[test]
    fn node_and_namespace_substitutions_are_expanded() {
        assert_eq!(
            expand_topic_name("{node}/out", "cam", "/r1").unwrap(),
            "/r1/cam/out"
        );
        assert_eq!(
            expand_topic_name("{ns}/out", "cam", "/r1").unwrap(),
            "/r1/out"
        );
        assert_eq!(
            expand_topic_name("/x/{namespace}", "cam", "/r1").unwrap(),
            "/x/r1"
        );
        assert_eq!(expand_topic_name("{ns}/out", "cam", "/").unwrap(), "/out");
    }

    #[test]
    fn unknown_unbalanced_or_empty_substitutions_are_refused() {
        for bad in [
            "{robot}/x",
            "{node/x",
            "node}/x",
            "{}/x",
            "{a{b}}",
            "{no-de}",
        ] {
            assert!(
                matches!(
                    expand_topic_name(bad, "n", "/"),
                    Err(NameError::Substitution { .. })
                ),
                "{bad}"
            );
        }
    }

    #[test]
    fn topic_names_refuse_bad_characters_leading_digits_and_stray_slashes() {
        assert!(matches!(
            expand_topic_name("chat ter", "n", "/"),
            Err(NameError::InvalidCharacter { character: ' ', .. })
        ));
        assert!(matches!(
            expand_topic_name("9lives", "n", "/"),
            Err(NameError::StartsWithDigit { index: 0, .. })
        ));
        assert!(matches!(
            expand_topic_name("a/9", "n", "/"),
            Err(NameError::StartsWithDigit { index: 2, .. })
        ));
        assert!(matches!(
            expand_topic_name("a//b", "n", "/"),
            Err(NameError::RepeatedSlash { .. })
        ));
        assert!(matches!(
            expand_topic_name("a/", "n", "/"),
            Err(NameError::EndsWithSlash { .. })
        ));
        assert!(matches!(
            expand_topic_name("/", "n", "/"),
            Err(NameError::EndsWithSlash { .. })
        ));
        assert!(matches!(
            expand_topic_name("", "n", "/"),
            Err(NameError::Empty { .. })
        ));
    }

    #[test]
    fn a_substitution_that_makes_a_bad_name_is_caught_after_expansion() {
        assert!(matches!(
            expand_topic_name("/x/{ns}", "n", "/"),
            Err(NameError::EndsWithSlash {
                kind: NameKind::FullTopicName,
                ..
            })
        ));
    }

    #[test]
    fn expanded_topic_names_longer_than_247_are_refused() {
        let long = "a".repeat(247);
        assert!(expand_topic_name(&long[1..], "n", "/").is_ok());
        assert!(matches!(
            expand_topic_name(&long, "n", "/"),
            Err(NameError::TooLong { max: 247, .. })
        ));
    }

    #[test]
    fn error_messages_say_what_to_do() {
        let e = validate_node_name("my-node").unwrap_err().to_string();
        assert!(e.contains("use only letters, digits and `_`"), "{e}");
        let e = expand_topic_name("a//b", "n", "/").unwrap_err().to_string();
        assert!(e.contains("single `/`"), "{e}");
    }
}

//! Reading an op's fields with rosbridge's checks: a missing required field
//! is `MissingArgument`, a field of the wrong JSON type `InvalidArgument`
//! (rosbridge's `basic_type_check`), each reported with the field's name.
//! Also what the service and action ops share: type names and message
//! arguments read the same way.

use hibari::dynamic::{self, FromJsonOptions, Value};
use hibari::interfaces::TypeName;
use serde_json::{Map, Value as Json};
use thiserror::Error;

use crate::core::Core;

/// Why an op could not be carried out; sent back as a rosbridge `status`
/// (to clients that asked for them with `set_level`).
#[derive(Debug, Error, Clone, PartialEq)]
#[non_exhaustive]
pub enum OpError {
    /// The message is not a JSON object with a string `op`.
    #[error("not a rosbridge message: {0}")]
    NotAMessage(String),
    /// An op this bridge does not know.
    #[error("unknown op `{0}`")]
    UnknownOp(String),
    /// A required field is missing.
    #[error("`{op}` needs the field `{field}`")]
    MissingArgument {
        /// The op.
        op: String,
        /// The field.
        field: &'static str,
    },
    /// A field has the wrong JSON type.
    #[error("`{op}`: the field `{field}` must be {expected}")]
    InvalidArgument {
        /// The op.
        op: String,
        /// The field.
        field: &'static str,
        /// What it must be.
        expected: &'static str,
    },
    /// The name is one the access-control globs (`topics_glob`,
    /// `services_glob`) keep out: the op has no effect.
    #[error("{0}")]
    Denied(String),
    /// Anything else, in words (an unknown type, a type conflict, a
    /// message that does not fit its type…).
    #[error("{0}")]
    Failed(String),
}

/// One incoming op, its fields checked as they are read.
pub(crate) struct Op<'a> {
    pub name: &'a str,
    pub map: &'a Map<String, Json>,
}

impl<'a> Op<'a> {
    /// Reads `{"op": …}` from a parsed message.
    pub fn parse(json: &'a Json) -> Result<Op<'a>, OpError> {
        let map = json
            .as_object()
            .ok_or_else(|| OpError::NotAMessage("a message must be a JSON object".into()))?;
        let name = match map.get("op") {
            Some(Json::String(s)) => s.as_str(),
            Some(_) => return Err(OpError::NotAMessage("`op` must be a string".into())),
            None => return Err(OpError::NotAMessage("the field `op` is missing".into())),
        };
        Ok(Op { name, map })
    }

    fn invalid(&self, field: &'static str, expected: &'static str) -> OpError {
        OpError::InvalidArgument {
            op: self.name.to_owned(),
            field,
            expected,
        }
    }

    fn missing(&self, field: &'static str) -> OpError {
        OpError::MissingArgument {
            op: self.name.to_owned(),
            field,
        }
    }

    /// The raw field (`null` counts as absent).
    pub fn get(&self, field: &str) -> Option<&'a Json> {
        self.map.get(field).filter(|v| !v.is_null())
    }

    pub fn opt_str(&self, field: &'static str) -> Result<Option<&'a str>, OpError> {
        match self.get(field) {
            None => Ok(None),
            Some(Json::String(s)) => Ok(Some(s)),
            Some(_) => Err(self.invalid(field, "a string")),
        }
    }

    pub fn str(&self, field: &'static str) -> Result<&'a str, OpError> {
        self.opt_str(field)?.ok_or_else(|| self.missing(field))
    }

    /// A non-negative integer (rosbridge takes ints; floats with no
    /// fraction are accepted, as JavaScript clients may send `5.0`).
    pub fn opt_uint(&self, field: &'static str) -> Result<Option<u64>, OpError> {
        match self.get(field) {
            None => Ok(None),
            Some(Json::Number(n)) => {
                if let Some(u) = n.as_u64() {
                    Ok(Some(u))
                } else {
                    match n.as_f64() {
                        Some(f) if f >= 0.0 && f.fract() == 0.0 && f < 1e15 => Ok(Some(f as u64)),
                        _ => Err(self.invalid(field, "a non-negative integer")),
                    }
                }
            }
            Some(_) => Err(self.invalid(field, "a non-negative integer")),
        }
    }

    pub fn opt_f64(&self, field: &'static str) -> Result<Option<f64>, OpError> {
        match self.get(field) {
            None => Ok(None),
            Some(Json::Number(n)) => Ok(n.as_f64()),
            Some(_) => Err(self.invalid(field, "a number")),
        }
    }

    pub fn opt_bool(&self, field: &'static str) -> Result<Option<bool>, OpError> {
        match self.get(field) {
            None => Ok(None),
            Some(Json::Bool(b)) => Ok(Some(*b)),
            Some(_) => Err(self.invalid(field, "true or false")),
        }
    }

    /// The `id`: a string or an integer, echoed back as it came.
    pub fn id(&self) -> Result<Option<&'a Json>, OpError> {
        match self.get("id") {
            None => Ok(None),
            Some(v @ (Json::String(_) | Json::Number(_))) => Ok(Some(v)),
            Some(_) => Err(self.invalid("id", "a string or an integer")),
        }
    }

    /// The `id` as a key (`""` when absent).
    pub fn id_key(&self) -> Result<String, OpError> {
        Ok(self.id()?.map(id_key).unwrap_or_default())
    }
}

/// An id as a map key: strings as they are, numbers as written.
pub(crate) fn id_key(id: &Json) -> String {
    match id {
        Json::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// A type name as clients write it — `pkg/Type`, `pkg/msg/Type`, with stray
/// leading, trailing or doubled slashes (bridge.md E5) — in the graph's form
/// `pkg/<kind>/Type`, `kind` being `msg` or `srv` for short names.
pub(crate) fn normalize_type(name: &str, kind: &str) -> Option<String> {
    let parts: Vec<&str> = name.split('/').filter(|p| !p.is_empty()).collect();
    let valid = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    match parts.as_slice() {
        [p, n] if valid(p) && valid(n) => Some(format!("{p}/{kind}/{n}")),
        [p, k, n] if valid(p) && valid(n) && matches!(*k, "msg" | "srv" | "action") => {
            Some(format!("{p}/{k}/{n}"))
        }
        _ => None,
    }
}

/// Any error, as an op's failure in words.
pub(crate) fn failed(e: impl std::fmt::Display) -> OpError {
    OpError::Failed(e.to_string())
}

/// The message type `base` + `suffix`, as services and actions name their
/// parts (`pkg/srv/X` + `_Request`, `pkg/action/X` + `_Goal`).
pub(crate) fn part(base: &str, suffix: &str) -> Result<TypeName, OpError> {
    TypeName::parse(&format!("{base}{suffix}"))
        .ok_or_else(|| failed(format!("`{base}` is not an interface type name")))
}

/// `args` as a value of the message type `ty`, as rosbridge reads a
/// request or a goal: an object, a list zipped positionally with the
/// fields, or nothing (the default message). `"now"` stamps are now.
pub(crate) fn value_from_json(
    core: &Core,
    ty: &TypeName,
    args: Option<&Json>,
) -> Result<Value, OpError> {
    let registry = &*core.registry;
    let json = match args {
        Some(Json::Array(items)) => {
            let names = registry
                .message(ty)
                .map(|d| d.fields.iter().map(|f| f.name.clone()).collect::<Vec<_>>())
                .unwrap_or_default();
            Json::Object(names.into_iter().zip(items.iter().cloned()).collect())
        }
        Some(other) => other.clone(),
        None => Json::Object(Map::new()),
    };
    let (sec, nanosec) = core.now();
    let options = FromJsonOptions::default().with_now(sec, nanosec);
    dynamic::from_json_with(registry, ty, &json, &options).map_err(failed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn type_names_take_every_spelling_rosbridge_takes() {
        for name in [
            "std_msgs/String",
            "std_msgs/msg/String",
            "/std_msgs/msg/String/",
            "std_msgs//msg//String",
        ] {
            assert_eq!(
                normalize_type(name, "msg").as_deref(),
                Some("std_msgs/msg/String"),
                "{name}"
            );
        }
        assert_eq!(
            normalize_type("std_srvs/SetBool", "srv").as_deref(),
            Some("std_srvs/srv/SetBool")
        );
        assert_eq!(normalize_type("String", "msg"), None);
        assert_eq!(normalize_type("a/b/c/d", "msg"), None);
        assert_eq!(normalize_type("a b/C", "msg"), None);
    }

    #[test]
    fn wrong_field_types_are_named() {
        let j: Json =
            serde_json::from_str(r#"{"op":"subscribe","topic":3,"throttle_rate":"fast"}"#).unwrap();
        let op = Op::parse(&j).unwrap();
        assert!(matches!(
            op.str("topic"),
            Err(OpError::InvalidArgument { field: "topic", .. })
        ));
        assert!(op.opt_uint("throttle_rate").is_err());
        assert!(matches!(
            op.str("type"),
            Err(OpError::MissingArgument { field: "type", .. })
        ));
        assert!(Op::parse(&serde_json::json!([1])).is_err());
        assert!(Op::parse(&serde_json::json!({"op": 1})).is_err());
    }
}

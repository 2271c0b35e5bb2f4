//! Checking that definitions refer only to known types and never to themselves.

use std::borrow::Cow;
use std::collections::BTreeMap;

use super::Registry;
use crate::model::{BaseType, MessageDef, TypeName};

/// A type that cannot be resolved against the registry.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum IdlResolveError {
    /// No message, service or action has this name.
    #[error("unknown type `{name}`: load its package (bundled, HIBARI_INTERFACE_PATH or Registry::add_*)")]
    UnknownType { name: String },
    /// A field's type is not in the registry.
    #[error("field `{field}` of `{owner}` has unknown type `{missing}`: load the package that defines it")]
    UnresolvedField {
        owner: TypeName,
        field: String,
        missing: TypeName,
    },
    /// A type contains itself; the path starts and ends with the same type.
    #[error("`{}` contains itself through {}; a message cannot contain itself, not even in a sequence", path[0], path_text(path))]
    Cycle { path: Vec<TypeName> },
    /// The operation needs a message, and this names a service or action.
    #[error("`{name}` is a service or action, not a message: use one of its parts such as `{name}_Request`")]
    NotAMessage { name: TypeName },
}

fn path_text(path: &[TypeName]) -> String {
    path.iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(" -> ")
}

#[derive(Clone, Copy, PartialEq)]
enum Mark {
    InProgress,
    Done,
}

impl Registry {
    /// Checks that every nested type of every message exists and that no
    /// message contains itself, directly or through other types (sequences
    /// included: ROS 2 has no recursive types).
    pub fn validate(&self) -> Result<(), IdlResolveError> {
        let mut marks = BTreeMap::new();
        for name in self.messages.keys() {
            let mut stack = Vec::new();
            self.visit(name, &mut marks, &mut stack)?;
        }
        Ok(())
    }

    /// Depth-first search that reports the first unresolved field or cycle.
    fn visit<'a>(
        &'a self,
        name: &'a TypeName,
        marks: &mut BTreeMap<&'a TypeName, Mark>,
        stack: &mut Vec<&'a TypeName>,
    ) -> Result<(), IdlResolveError> {
        match marks.get(name) {
            Some(Mark::Done) => return Ok(()),
            Some(Mark::InProgress) => {
                let start = stack.iter().position(|n| *n == name).unwrap_or(0);
                let mut path: Vec<TypeName> = stack[start..].iter().map(|n| (*n).clone()).collect();
                path.push(name.clone());
                return Err(IdlResolveError::Cycle { path });
            }
            None => {}
        }
        let def = self
            .messages
            .get(name)
            .ok_or_else(|| IdlResolveError::UnknownType {
                name: name.to_string(),
            })?;
        marks.insert(name, Mark::InProgress);
        stack.push(name);
        for field in &def.fields {
            if let BaseType::Named(nested) = &field.ty.base {
                if !self.messages.contains_key(nested) {
                    return Err(IdlResolveError::UnresolvedField {
                        owner: name.clone(),
                        field: field.name.clone(),
                        missing: nested.clone(),
                    });
                }
                self.visit(nested, marks, stack)?;
            }
        }
        stack.pop();
        marks.insert(name, Mark::Done);
        Ok(())
    }

    /// The message `name` (or a synthesized service event) for operations
    /// that need one, with errors that say why not.
    pub(crate) fn require_message(
        &self,
        name: &TypeName,
    ) -> Result<Cow<'_, MessageDef>, IdlResolveError> {
        if let Some(def) = self.resolve_message(name) {
            return Ok(def);
        }
        if self.services.contains_key(name) || self.actions.contains_key(name) {
            return Err(IdlResolveError::NotAMessage { name: name.clone() });
        }
        Err(IdlResolveError::UnknownType {
            name: name.to_string(),
        })
    }

    /// The nested type of `field` in `owner`, which must exist.
    pub(crate) fn require_nested(
        &self,
        owner: &TypeName,
        field: &str,
        nested: &TypeName,
    ) -> Result<Cow<'_, MessageDef>, IdlResolveError> {
        self.resolve_message(nested)
            .ok_or_else(|| IdlResolveError::UnresolvedField {
                owner: owner.clone(),
                field: field.to_string(),
                missing: nested.clone(),
            })
    }
}

//! `ros2 interface show`-style text.
//!
//! The definition is printed as written, comments and blank lines included.
//! Below each field of a nested type, that type's definition follows,
//! indented by one tab per level, without comments or blank lines (ros2cli's
//! default: comments for the top level only). Fields written with the
//! compatibility types `time` and `duration` are not expanded, as in ros2cli.

use crate::model::{BaseType, MessageDef, Primitive, TypeName};
use crate::parse::{split_comment, split_element, Element};
use crate::registry::{IdlResolveError, Registry};

impl Registry {
    /// The definition of a message, service or action with nested types
    /// expanded, like `ros2 interface show`. A service prints request `---`
    /// response; an action prints goal `---` result `---` feedback.
    pub fn show(&self, name: &TypeName) -> Result<String, IdlResolveError> {
        let sections: Vec<MessageDef> = if let Some(srv) = self.service(name) {
            vec![srv.request.clone(), srv.response.clone()]
        } else if let Some(action) = self.action(name) {
            vec![
                action.goal.clone(),
                action.result.clone(),
                action.feedback.clone(),
            ]
        } else {
            vec![self.require_message(name)?.into_owned()]
        };
        let mut out = String::new();
        for (i, def) in sections.iter().enumerate() {
            if i > 0 {
                out.push_str("---\n");
            }
            let mut stack = Vec::new();
            self.show_message(def, 0, &mut stack, &mut out)?;
        }
        Ok(out)
    }

    fn show_message(
        &self,
        def: &MessageDef,
        level: usize,
        stack: &mut Vec<TypeName>,
        out: &mut String,
    ) -> Result<(), IdlResolveError> {
        if stack.contains(&def.name) {
            let mut path = stack.clone();
            path.push(def.name.clone());
            return Err(IdlResolveError::Cycle { path });
        }
        stack.push(def.name.clone());
        for raw in def.source.lines() {
            let line = raw.replace('\t', " ");
            let line = line.trim_end();
            let (code, _) = split_comment(line);
            let code = code.trim_end();
            let text = if level == 0 {
                line
            } else if code.trim().is_empty() {
                continue;
            } else {
                code.trim()
            };
            for _ in 0..level {
                out.push('\t');
            }
            out.push_str(text);
            out.push('\n');
            if let Some(nested) = nested_of_line(def, code) {
                let nested_def = self.require_nested(&def.name, &nested.1, &nested.0)?;
                self.show_message(&nested_def, level + 1, stack, out)?;
            }
        }
        stack.pop();
        Ok(())
    }
}

/// The nested type (and field name) a line declares, if ros2cli would expand it.
fn nested_of_line(def: &MessageDef, code: &str) -> Option<(TypeName, String)> {
    if code.trim().is_empty() {
        return None;
    }
    let Ok(Element::Field { ty, name, .. }) = split_element(code) else {
        return None;
    };
    let base = ty.text.split('[').next().unwrap_or_default();
    let is_builtin = Primitive::from_msg_name(base).is_some()
        || matches!(base, "time" | "duration")
        || matches!(base, "string" | "wstring")
        || base.starts_with("string<=")
        || base.starts_with("wstring<=");
    if is_builtin {
        return None;
    }
    let field = def.fields.iter().find(|f| f.name == name.text)?;
    match &field.ty.base {
        BaseType::Named(nested) => Some((nested.clone(), field.name.clone())),
        _ => None,
    }
}

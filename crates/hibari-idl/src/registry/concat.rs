//! The concatenated `ros2msg` form used by MCAP schemas and rosbag2.
//!
//! The top-level `.msg` text comes first. Each dependency follows as a line
//! of exactly 80 `=`, a line `MSG: <name>`, and its text. Readers meet both
//! `pkg/Type` and `pkg/msg/Type` as `<name>`, and sometimes the same
//! dependency twice; both are accepted.

use super::{IdlResolveError, Registry};
use crate::model::{BaseType, MessageDef, TypeName};
use crate::parse::{parse_msg_at, IdlParseError};

/// The line between definitions.
pub const SEPARATOR: &str =
    "================================================================================";

impl Registry {
    /// Parses a concatenated `ros2msg` definition (an MCAP schema) whose
    /// top-level type is `top`, and adds every definition in it, replacing
    /// those of the same name. Nothing is added if any part fails.
    pub fn add_concatenated(&mut self, top: TypeName, text: &str) -> Result<(), IdlParseError> {
        let file = top.to_string();
        let mut parsed: Vec<MessageDef> = Vec::new();
        let mut current = top;
        let mut block_start = 0;
        let mut block_line = 1;
        let mut offset = 0;
        let mut lines = text.split_inclusive('\n').enumerate().peekable();
        while let Some((index, line)) = lines.next() {
            let line_start = offset;
            offset += line.len();
            if line.trim_end() != SEPARATOR {
                continue;
            }
            let block = &text[block_start..line_start];
            parsed.push(parse_msg_at(block, current, &file, block_line)?);
            let header_line = index + 2;
            let (_, header) = lines.next().ok_or_else(|| {
                IdlParseError::new(
                    &file,
                    header_line,
                    1,
                    "expected `MSG: pkg/Type` after the separator line",
                )
            })?;
            offset += header.len();
            let header = header.trim_end();
            let name_text = header.strip_prefix("MSG:").map(str::trim).ok_or_else(|| {
                let hint = if header.starts_with("IDL:") {
                    "this is a `ros2idl` schema, which is not supported"
                } else {
                    "expected `MSG: pkg/Type` after the separator line"
                };
                IdlParseError::new(&file, header_line, 1, hint)
            })?;
            current = TypeName::parse(name_text).ok_or_else(|| {
                IdlParseError::new(
                    &file,
                    header_line,
                    6,
                    format!("`{name_text}` is not a type name: write `pkg/Type` or `pkg/msg/Type`"),
                )
            })?;
            block_start = offset;
            block_line = header_line + 1;
        }
        parsed.push(parse_msg_at(
            &text[block_start..],
            current,
            &file,
            block_line,
        )?);
        for def in parsed {
            self.add_message(def);
        }
        Ok(())
    }

    /// The concatenated `ros2msg` text of message `name`: its source, then
    /// each type it depends on, transitively and once, in the order rosbags'
    /// `generate_msgdef` emits them (depth first, in field order, each type
    /// before its own dependencies), each introduced by the separator and
    /// `MSG: pkg/msg/Type`.
    pub fn msgdef_text(&self, name: &TypeName) -> Result<String, IdlResolveError> {
        let top = self.require_message(name)?;
        let mut order: Vec<TypeName> = Vec::new();
        self.collect_dependencies(&top, name, &mut order)?;
        let mut out = top.source.clone();
        for dep in &order {
            let def = self.require_message(dep)?;
            if !out.is_empty() && !out.ends_with('\n') {
                out.push('\n');
            }
            out.push_str(SEPARATOR);
            out.push_str("\nMSG: ");
            out.push_str(&dep.to_string());
            out.push('\n');
            out.push_str(&def.source);
        }
        Ok(out)
    }

    fn collect_dependencies(
        &self,
        def: &MessageDef,
        top: &TypeName,
        order: &mut Vec<TypeName>,
    ) -> Result<(), IdlResolveError> {
        for field in &def.fields {
            let BaseType::Named(nested) = &field.ty.base else {
                continue;
            };
            if nested == top || order.contains(nested) {
                continue;
            }
            order.push(nested.clone());
            let nested_def = self.require_nested(&def.name, &field.name, nested)?;
            self.collect_dependencies(&nested_def, top, order)?;
        }
        Ok(())
    }
}

//! Parsing the body of one message (a `.msg` file or one section of a
//! `.srv`/`.action` file).

use super::line::{split_comment, split_element, Element, Token};
use super::literal::{parse_default, parse_scalar};
use super::names::{is_valid_constant_name, is_valid_field_name, CONSTANT_RULE, PACKAGE_RULE};
use super::types::{parse_base_type, parse_type};
use super::IdlParseError;
use crate::model::{BaseType, Constant, Field, MessageDef, TypeName};

/// Where a section sits in its file, for error positions.
pub(crate) struct Origin<'a> {
    pub file: &'a str,
    /// Line number of the section's first line in the file (1-based).
    pub first_line: usize,
}

impl Origin<'_> {
    fn error(&self, line: usize, line_text: &str, offset: usize, message: String) -> IdlParseError {
        let column = line_text[..offset.min(line_text.len())].chars().count() + 1;
        IdlParseError::new(self.file, self.first_line + line, column, message)
    }
}

/// Which element a comment line continues.
#[derive(Clone, Copy)]
enum Last {
    Field(usize),
    Constant(usize),
}

/// Parses a message body. `text` is kept verbatim as `MessageDef::source`.
///
/// Comments follow rosidl: the comment block at the top of the file belongs
/// to the file; comment lines above an element and its trailing comment
/// belong to that element; an indented comment line continues the element
/// above it.
pub(crate) fn parse_body(
    text: &str,
    name: &TypeName,
    origin: &Origin<'_>,
) -> Result<MessageDef, IdlParseError> {
    let mut fields: Vec<Field> = Vec::new();
    let mut field_lines: Vec<usize> = Vec::new();
    let mut constants: Vec<Constant> = Vec::new();
    let mut comments: Vec<Vec<String>> = Vec::new();
    let mut constant_comments: Vec<Vec<String>> = Vec::new();
    let mut pending: Vec<String> = Vec::new();
    let mut last: Option<Last> = None;
    let mut in_file_header = true;

    for (index, raw) in text.lines().enumerate() {
        let line = raw.replace('\t', " ");
        if in_file_header && line.starts_with('#') {
            continue;
        }
        in_file_header = false;
        let line = line.trim_end();
        if line.is_empty() {
            continue;
        }
        let (code, comment) = split_comment(line);
        if let Some(comment) = comment {
            if code.trim().is_empty() {
                if code.is_empty() {
                    pending.push(comment.to_string());
                } else {
                    match last {
                        Some(Last::Field(i)) => comments[i].push(comment.to_string()),
                        Some(Last::Constant(i)) => constant_comments[i].push(comment.to_string()),
                        None => {}
                    }
                }
                continue;
            }
            pending.push(comment.to_string());
        }
        let code = code.trim_end();
        let at = |offset: usize, message: String| origin.error(index, line, offset, message);
        match split_element(code).map_err(|(offset, message)| at(offset, message))? {
            Element::Field {
                ty,
                name: field_name,
                default,
            } => {
                let field = parse_field(ty, field_name, default, &name.package)
                    .map_err(|(offset, message)| at(offset, message))?;
                if let Some(first) = fields.iter().position(|f| f.name == field.name) {
                    return Err(at(
                        field_name.offset,
                        format!(
                            "duplicate field name `{}` (first defined on line {}); rename one of them",
                            field.name,
                            origin.first_line + field_lines[first]
                        ),
                    ));
                }
                fields.push(field);
                field_lines.push(index);
                comments.push(std::mem::take(&mut pending));
                last = Some(Last::Field(fields.len() - 1));
            }
            Element::Constant {
                ty,
                name: constant_name,
                value,
            } => {
                let constant = parse_constant(ty, constant_name, value)
                    .map_err(|(offset, message)| at(offset, message))?;
                if constants.iter().any(|c| c.name == constant.name) {
                    return Err(at(
                        constant_name.offset,
                        format!("duplicate constant name `{}`", constant.name),
                    ));
                }
                constants.push(constant);
                constant_comments.push(std::mem::take(&mut pending));
                last = Some(Last::Constant(constants.len() - 1));
            }
        }
    }
    for (field, lines) in fields.iter_mut().zip(comments) {
        field.comment = tidy_comment(lines);
    }
    for (constant, lines) in constants.iter_mut().zip(constant_comments) {
        constant.comment = tidy_comment(lines);
    }
    Ok(MessageDef {
        name: name.clone(),
        fields,
        constants,
        source: text.to_string(),
    })
}

type ElementResult<T> = Result<T, (usize, String)>;

fn parse_field(
    ty: Token<'_>,
    name: Token<'_>,
    default: Option<Token<'_>>,
    package: &str,
) -> ElementResult<Field> {
    let field_type = parse_type(ty.text, package).map_err(|e| (ty.offset + e.offset, e.message))?;
    if !is_valid_field_name(name.text) {
        return Err((
            name.offset,
            format!(
                "`{}` is not a valid field name: use {PACKAGE_RULE}",
                name.text
            ),
        ));
    }
    let default = match default {
        None => None,
        Some(value) => Some(
            parse_default(&field_type.base, field_type.array, value.text)
                .map_err(|message| (value.offset, format!("invalid default value: {message}")))?,
        ),
    };
    Ok(Field {
        name: name.text.to_string(),
        ty: field_type,
        default,
        comment: String::new(),
    })
}

fn parse_constant(ty: Token<'_>, name: Token<'_>, value: Token<'_>) -> ElementResult<Constant> {
    let not_allowed = || {
        (
            ty.offset,
            format!(
                "constants must have a primitive or string type, not `{}`",
                ty.text
            ),
        )
    };
    if ty.text.ends_with(']') || matches!(ty.text, "time" | "duration") {
        return Err(not_allowed());
    }
    let base = parse_base_type(ty.text, "").map_err(|e| (ty.offset + e.offset, e.message))?;
    if matches!(base, BaseType::Named(_)) {
        return Err(not_allowed());
    }
    if !is_valid_constant_name(name.text) {
        return Err((
            name.offset,
            format!(
                "`{}` is not a valid constant name: use {CONSTANT_RULE}",
                name.text
            ),
        ));
    }
    let literal = parse_scalar(&base, value.text)
        .map_err(|message| (value.offset, format!("invalid constant value: {message}")))?;
    Ok(Constant {
        name: name.text.to_string(),
        ty: base,
        value: literal,
        comment: String::new(),
    })
}

/// Condenses comment lines like rosidl's `process_comments`: drops leading
/// and trailing blank lines, merges runs of blank lines, removes the common
/// indentation and joins with `\n`.
fn tidy_comment(mut lines: Vec<String>) -> String {
    for line in &mut lines {
        if line.trim().is_empty() {
            line.clear();
        }
    }
    while lines.first().is_some_and(String::is_empty) {
        lines.remove(0);
    }
    while lines.last().is_some_and(String::is_empty) {
        lines.pop();
    }
    lines.dedup_by(|a, b| a.is_empty() && b.is_empty());
    let indent = lines
        .iter()
        .filter(|l| !l.is_empty())
        .map(|l| l.len() - l.trim_start_matches(' ').len())
        .min()
        .unwrap_or(0);
    lines
        .iter()
        .map(|l| l.get(indent..).unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n")
}

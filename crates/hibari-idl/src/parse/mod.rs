//! Parsing `.msg`, `.srv` and `.action` text into the [model](crate::model).
//!
//! The language is rosidl's (interop.md §2). A `.msg` file is a list of lines
//! `TYPE name [default]` (a field) or `TYPE NAME=value` (a constant), with
//! `#` comments. A `.srv` file is a request and a response separated by a line
//! `---`; an `.action` file is goal, result and feedback separated the same
//! way. Parsing checks everything that can be checked within one file: type
//! expressions, names, defaults, constant values and duplicate names.
//! Whether nested types exist is checked later by
//! [`Registry::validate`](crate::Registry::validate).

mod escape;
mod line;
mod literal;
mod message;
mod names;
mod types;

use std::fmt;

pub use names::{
    is_valid_constant_name, is_valid_field_name, is_valid_package_name, is_valid_type_name,
};

use crate::model::{ActionDef, MessageDef, ServiceDef, TypeName};
pub(crate) use line::{split_comment, split_element, Element};
use message::{parse_body, Origin};

/// A `.msg`, `.srv` or `.action` text that does not follow the language.
///
/// `line` and `column` are 1-based and point into the text given to the
/// parser; line 0 means the problem is with the type name itself, not the text.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub struct IdlParseError {
    pub file: String,
    pub line: usize,
    pub column: usize,
    pub message: String,
}

impl IdlParseError {
    pub(crate) fn new(
        file: impl Into<String>,
        line: usize,
        column: usize,
        message: impl Into<String>,
    ) -> Self {
        IdlParseError {
            file: file.into(),
            line,
            column,
            message: message.into(),
        }
    }
}

impl fmt::Display for IdlParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            write!(f, "{}: {}", self.file, self.message)
        } else {
            write!(
                f,
                "{}:{}:{}: {}",
                self.file, self.line, self.column, self.message
            )
        }
    }
}

/// Parses a `.msg` file into the message `name`.
///
/// `file` only labels errors. The text is kept verbatim in
/// [`MessageDef::source`].
pub fn parse_msg(text: &str, name: TypeName, file: &str) -> Result<MessageDef, IdlParseError> {
    parse_msg_at(text, name, file, 1)
}

/// Like [`parse_msg`], for text that starts on line `first_line` of `file`.
pub(crate) fn parse_msg_at(
    text: &str,
    name: TypeName,
    file: &str,
    first_line: usize,
) -> Result<MessageDef, IdlParseError> {
    check_name(&name, file)?;
    parse_body(text, &name, &Origin { file, first_line })
}

/// Parses a `.srv` file: request `---` response.
///
/// The parts are named `<pkg>/srv/<Name>_Request` and `<pkg>/srv/<Name>_Response`.
pub fn parse_srv(text: &str, name: TypeName, file: &str) -> Result<ServiceDef, IdlParseError> {
    check_name(&name, file)?;
    let [request, response] = split_sections::<2>(text, file, "a service")?;
    let part =
        |suffix: &str| TypeName::new(&name.package, name.kind, format!("{}_{suffix}", name.name));
    Ok(ServiceDef {
        request: section(request, part("Request"), file)?,
        response: section(response, part("Response"), file)?,
        name,
        source: text.to_string(),
    })
}

/// Parses an `.action` file: goal `---` result `---` feedback.
///
/// Besides `<Name>_Goal`, `<Name>_Result` and `<Name>_Feedback` this derives
/// the parts rosidl adds: the `<Name>_SendGoal` and `<Name>_GetResult`
/// services and the `<Name>_FeedbackMessage`.
pub fn parse_action(text: &str, name: TypeName, file: &str) -> Result<ActionDef, IdlParseError> {
    check_name(&name, file)?;
    let [goal, result, feedback] = split_sections::<3>(text, file, "an action")?;
    let part =
        |suffix: &str| TypeName::new(&name.package, name.kind, format!("{}_{suffix}", name.name));
    let goal = section(goal, part("Goal"), file)?;
    let result = section(result, part("Result"), file)?;
    let feedback = section(feedback, part("Feedback"), file)?;
    Ok(crate::derive::action(name, goal, result, feedback, text))
}

fn section(s: Section<'_>, name: TypeName, file: &str) -> Result<MessageDef, IdlParseError> {
    parse_body(
        s.text,
        &name,
        &Origin {
            file,
            first_line: s.first_line,
        },
    )
}

fn check_name(name: &TypeName, file: &str) -> Result<(), IdlParseError> {
    if !is_valid_package_name(&name.package) {
        return Err(IdlParseError::new(
            file,
            0,
            0,
            format!(
                "`{}` is not a valid package name: use {}",
                name.package,
                names::PACKAGE_RULE
            ),
        ));
    }
    if !is_valid_type_name(&name.name) {
        return Err(IdlParseError::new(
            file,
            0,
            0,
            format!(
                "`{}` is not a valid {} name: use {}",
                name.name,
                name.kind.as_str(),
                names::TYPE_RULE
            ),
        ));
    }
    Ok(())
}

/// One part of a `.srv` or `.action` file.
#[derive(Clone, Copy)]
struct Section<'a> {
    text: &'a str,
    first_line: usize,
}

/// Splits `text` at lines that are exactly `---` (surrounding spaces allowed)
/// into `N` sections, keeping each section's text verbatim.
fn split_sections<'a, const N: usize>(
    text: &'a str,
    file: &str,
    what: &str,
) -> Result<[Section<'a>; N], IdlParseError> {
    let mut sections = Vec::with_capacity(N);
    let mut start = 0;
    let mut first_line = 1;
    let mut offset = 0;
    let mut line_no = 0;
    for line in text.split_inclusive('\n') {
        line_no += 1;
        let line_start = offset;
        offset += line.len();
        if line.trim() != "---" {
            continue;
        }
        if sections.len() == N - 1 {
            return Err(IdlParseError::new(
                file,
                line_no,
                1,
                format!(
                    "{what} has {N} parts, so it needs exactly {} `---` lines; remove this one",
                    N - 1
                ),
            ));
        }
        sections.push(Section {
            text: &text[start..line_start],
            first_line,
        });
        start = offset;
        first_line = line_no + 1;
    }
    if sections.len() != N - 1 {
        return Err(IdlParseError::new(
            file,
            line_no + 1,
            1,
            format!(
                "{what} needs {} `---` line(s) separating its {N} parts, found {}",
                N - 1,
                sections.len()
            ),
        ));
    }
    sections.push(Section {
        text: &text[start..],
        first_line,
    });
    Ok(sections
        .try_into()
        .unwrap_or_else(|_| unreachable!("N sections")))
}

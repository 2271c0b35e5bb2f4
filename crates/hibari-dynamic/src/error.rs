//! One error enum per operation, each naming the field where it went wrong.

use std::fmt;

use hibari_cdr::{CdrDecodeError, CdrEncodeError};
use hibari_idl::model::TypeName;
use thiserror::Error;

/// Where in a message something went wrong: `header.stamp.sec`, `points[3].x`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FieldPath {
    /// Innermost first: errors grow their path while unwinding.
    rev: Vec<PathSegment>,
}

/// One step of a [`FieldPath`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PathSegment {
    Field(String),
    Index(usize),
}

impl FieldPath {
    /// The message itself.
    pub fn root() -> Self {
        FieldPath::default()
    }

    pub fn is_root(&self) -> bool {
        self.rev.is_empty()
    }

    /// The segments, outermost first.
    pub fn segments(&self) -> impl Iterator<Item = &PathSegment> {
        self.rev.iter().rev()
    }

    pub(crate) fn push_field(&mut self, name: &str) {
        self.rev.push(PathSegment::Field(name.to_owned()));
    }

    pub(crate) fn push_index(&mut self, i: usize) {
        self.rev.push(PathSegment::Index(i));
    }
}

impl fmt::Display for FieldPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_root() {
            return f.write_str("<root>");
        }
        for (i, seg) in self.segments().enumerate() {
            match seg {
                PathSegment::Field(n) if i == 0 => f.write_str(n)?,
                PathSegment::Field(n) => write!(f, ".{n}")?,
                PathSegment::Index(ix) => write!(f, "[{ix}]")?,
            }
        }
        Ok(())
    }
}

/// Errors that carry a [`FieldPath`], so helpers can prefix it while unwinding.
pub(crate) trait HasPath: Sized {
    /// `None` for errors that happen before any field is visited.
    fn path_mut(&mut self) -> Option<&mut FieldPath>;
}

/// Adds the enclosing field or index to an error's path on the way out.
pub(crate) trait AtPath {
    fn at_field(self, name: &str) -> Self;
    fn at_index(self, i: usize) -> Self;
}

impl<T, E: HasPath> AtPath for Result<T, E> {
    #[inline]
    fn at_field(self, name: &str) -> Self {
        self.map_err(|mut e| {
            if let Some(p) = e.path_mut() {
                p.push_field(name);
            }
            e
        })
    }
    #[inline]
    fn at_index(self, i: usize) -> Self {
        self.map_err(|mut e| {
            if let Some(p) = e.path_mut() {
                p.push_index(i);
            }
            e
        })
    }
}

macro_rules! has_path {
    ($ty:ident { $($variant:ident),* $(,)? } $(, $pathless:pat)?) => {
        impl HasPath for $ty {
            fn path_mut(&mut self) -> Option<&mut FieldPath> {
                match self {
                    $($ty::$variant { path, .. } => Some(path),)*
                    $($pathless => None,)?
                }
            }
        }

        impl $ty {
            /// The field where it went wrong (`None` only for JSON syntax errors).
            pub fn path(&self) -> Option<&FieldPath> {
                match self {
                    $($ty::$variant { path, .. } => Some(path),)*
                    $($pathless => None,)?
                }
            }
        }
    };
}

/// Why [`default_value`](crate::default_value) failed.
#[derive(Debug, Error, Clone, PartialEq)]
#[non_exhaustive]
pub enum DynamicDefaultError {
    #[error("{path}: unknown message type `{name}`; add its definition to the registry")]
    UnknownType { path: FieldPath, name: TypeName },
    /// The definition's default literal does not fit the field's type.
    #[error("{path}: invalid default in the definition: {reason}")]
    InvalidDefault { path: FieldPath, reason: String },
    /// The definition nests (or recurses) deeper than the limit.
    #[error("{path}: messages nest deeper than {limit} levels; is the definition recursive?")]
    TooDeep { path: FieldPath, limit: usize },
}

has_path!(DynamicDefaultError {
    UnknownType,
    InvalidDefault,
    TooDeep
});

/// Why [`decode`](crate::decode) failed.
#[derive(Debug, Error, Clone, PartialEq)]
#[non_exhaustive]
pub enum DynamicDecodeError {
    /// The bytes are not a valid encoding of the type (truncated, a forged
    /// count, bad UTF-8, a bool that is not 0 or 1, trailing bytes, …).
    #[error("{path}: {source}")]
    Cdr {
        path: FieldPath,
        source: CdrDecodeError,
    },
    #[error("{path}: unknown message type `{name}`; add its definition to the registry")]
    UnknownType { path: FieldPath, name: TypeName },
    /// `wstring` has no single interoperable ROS 2 encoding (interop.md §1.4).
    #[error("{path}: wstring fields cannot be decoded: ROS 2 vendors disagree on their bytes")]
    WStringUnsupported { path: FieldPath },
    #[error("{path}: messages nest deeper than {limit} levels")]
    TooDeep { path: FieldPath, limit: usize },
}

has_path!(DynamicDecodeError {
    Cdr,
    UnknownType,
    WStringUnsupported,
    TooDeep
});

impl From<CdrDecodeError> for DynamicDecodeError {
    fn from(source: CdrDecodeError) -> Self {
        DynamicDecodeError::Cdr {
            path: FieldPath::root(),
            source,
        }
    }
}

/// Why [`encode`](crate::encode) failed.
#[derive(Debug, Error, Clone, PartialEq)]
#[non_exhaustive]
pub enum DynamicEncodeError {
    #[error("{path}: unknown message type `{name}`; add its definition to the registry")]
    UnknownType { path: FieldPath, name: TypeName },
    #[error("{path}: expected {expected}, got {got}")]
    TypeMismatch {
        path: FieldPath,
        expected: String,
        got: &'static str,
    },
    #[error("{path}: {value} does not fit in {ty}")]
    OutOfRange {
        path: FieldPath,
        value: String,
        ty: &'static str,
    },
    /// A field of the definition is absent from the `Struct`.
    #[error(
        "{path}: field missing from the value; start from `default_value()` to get every field"
    )]
    MissingField { path: FieldPath },
    /// The `Struct` holds a field the definition does not have.
    #[error("{path}: `{ty}` has no such field")]
    UnknownField { path: FieldPath, ty: TypeName },
    #[error("{path}: holds {len} elements/bytes but its type allows at most {bound}")]
    BoundExceeded {
        path: FieldPath,
        len: usize,
        bound: usize,
    },
    #[error("{path}: is a fixed array of {expected} elements but holds {len}")]
    FixedLengthMismatch {
        path: FieldPath,
        len: usize,
        expected: usize,
    },
    #[error("{path}: contains a NUL byte, which CDR strings cannot carry")]
    NulInString { path: FieldPath },
    /// `wstring` has no single interoperable ROS 2 encoding (interop.md §1.4).
    #[error("{path}: wstring fields cannot be encoded: ROS 2 vendors disagree on their bytes")]
    WStringUnsupported { path: FieldPath },
    #[error("{path}: messages nest deeper than {limit} levels")]
    TooDeep { path: FieldPath, limit: usize },
    /// The sink refused the bytes (a caller buffer too small) or a length
    /// does not fit CDR's 32-bit counts.
    #[error("{path}: {source}")]
    Cdr {
        path: FieldPath,
        source: CdrEncodeError,
    },
}

has_path!(DynamicEncodeError {
    UnknownType,
    TypeMismatch,
    OutOfRange,
    MissingField,
    UnknownField,
    BoundExceeded,
    FixedLengthMismatch,
    NulInString,
    WStringUnsupported,
    TooDeep,
    Cdr
});

impl From<CdrEncodeError> for DynamicEncodeError {
    fn from(source: CdrEncodeError) -> Self {
        DynamicEncodeError::Cdr {
            path: FieldPath::root(),
            source,
        }
    }
}

/// Why [`from_json`](crate::from_json) failed.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum DynamicJsonError {
    /// The text is not JSON, or nests deeper than serde_json's limit (128).
    #[error("invalid JSON: {0}")]
    Syntax(#[from] serde_json::Error),
    #[error("{path}: unknown message type `{name}`; add its definition to the registry")]
    UnknownType { path: FieldPath, name: TypeName },
    /// rosbridge rejects unknown fields too (`NonexistentFieldException`).
    #[error("{path}: `{ty}` has no such field")]
    UnknownField { path: FieldPath, ty: TypeName },
    #[error("{path}: expected {expected}, got {got}")]
    TypeMismatch {
        path: FieldPath,
        expected: String,
        got: &'static str,
    },
    #[error("{path}: {value} does not fit in {ty}")]
    OutOfRange {
        path: FieldPath,
        value: String,
        ty: &'static str,
    },
    #[error("{path}: invalid base64: {reason}")]
    InvalidBase64 { path: FieldPath, reason: String },
    #[error("{path}: holds {len} elements/bytes but its type allows at most {bound}")]
    BoundExceeded {
        path: FieldPath,
        len: usize,
        bound: usize,
    },
    #[error("{path}: is a fixed array of {expected} elements but holds {len}")]
    FixedLengthMismatch {
        path: FieldPath,
        len: usize,
        expected: usize,
    },
    #[error("{path}: contains a NUL character, which ROS strings cannot carry")]
    NulInString { path: FieldPath },
    /// `"now"` was given for a Time but no clock reading was supplied.
    #[error("{path}: \"now\" needs a clock reading; pass `FromJsonOptions::with_now`")]
    NowUnavailable { path: FieldPath },
    #[error("{path}: invalid default in the definition: {reason}")]
    InvalidDefault { path: FieldPath, reason: String },
    #[error("{path}: messages nest deeper than {limit} levels")]
    TooDeep { path: FieldPath, limit: usize },
    /// `wstring` has no single interoperable ROS 2 encoding (interop.md §1.4).
    #[error("{path}: wstring fields cannot be encoded: ROS 2 vendors disagree on their bytes")]
    WStringUnsupported { path: FieldPath },
}

has_path!(
    DynamicJsonError {
        UnknownType,
        UnknownField,
        TypeMismatch,
        OutOfRange,
        InvalidBase64,
        BoundExceeded,
        FixedLengthMismatch,
        NulInString,
        NowUnavailable,
        InvalidDefault,
        TooDeep,
        WStringUnsupported
    },
    DynamicJsonError::Syntax(_)
);

impl From<DynamicDefaultError> for DynamicJsonError {
    fn from(e: DynamicDefaultError) -> Self {
        match e {
            DynamicDefaultError::UnknownType { path, name } => {
                DynamicJsonError::UnknownType { path, name }
            }
            DynamicDefaultError::InvalidDefault { path, reason } => {
                DynamicJsonError::InvalidDefault { path, reason }
            }
            DynamicDefaultError::TooDeep { path, limit } => {
                DynamicJsonError::TooDeep { path, limit }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_grow_outward_while_the_error_unwinds() {
        let r: Result<(), DynamicDecodeError> = Err(DynamicDecodeError::WStringUnsupported {
            path: FieldPath::root(),
        });
        let err = r.at_field("x").at_index(3).at_field("points").unwrap_err();
        let DynamicDecodeError::WStringUnsupported { path } = &err else {
            unreachable!()
        };
        assert_eq!(path.to_string(), "points[3].x");
        assert!(err.to_string().starts_with("points[3].x: wstring"));
    }

    #[test]
    fn the_root_path_prints_as_root() {
        assert_eq!(FieldPath::root().to_string(), "<root>");
    }

    #[test]
    fn syntax_errors_have_no_path_to_grow() {
        let syntax = serde_json::from_str::<serde_json::Value>("{").unwrap_err();
        let r: Result<(), DynamicJsonError> = Err(syntax.into());
        assert!(matches!(r.at_field("x"), Err(DynamicJsonError::Syntax(_))));
    }
}

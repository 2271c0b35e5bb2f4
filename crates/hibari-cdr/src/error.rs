use thiserror::Error;

/// Why a message could not be encoded.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum CdrEncodeError {
    /// The caller-provided buffer is smaller than the encoded message.
    #[error("buffer too small: the message needs {needed} bytes but the buffer holds {capacity}; size it with `serialized_size()`")]
    BufferTooSmall { needed: usize, capacity: usize },
    /// A bounded string or sequence holds more than its bound allows.
    #[error("field `{field}` holds {len} elements/bytes but its type allows at most {bound}")]
    BoundExceeded {
        field: &'static str,
        len: usize,
        bound: usize,
    },
    /// A fixed-size array has the wrong number of elements.
    #[error("field `{field}` is a fixed array of {expected} elements but holds {len}")]
    FixedLengthMismatch {
        field: &'static str,
        len: usize,
        expected: usize,
    },
    /// Strings on the wire end with NUL, so they cannot contain one.
    #[error("field `{field}` contains a NUL byte, which CDR strings cannot carry")]
    NulInString { field: &'static str },
    /// A sequence longer than 2^32-1 elements cannot be encoded.
    #[error("field `{field}` has {len} elements; CDR counts are 32-bit")]
    TooLong { field: &'static str, len: usize },
    /// `wstring` has no single interoperable ROS 2 encoding.
    #[error("field `{field}` is a wstring, which hibari does not encode: ROS 2 vendors disagree on its bytes")]
    WStringUnsupported { field: &'static str },
    /// An in-place layout named a field that is not a top-level primitive sequence.
    #[error("no top-level primitive sequence or fixed array named `{field}` to lay out in place")]
    NoSuchHole { field: String },
    /// A value of another language's type failed to encode itself (its
    /// encoder's own report).
    #[error("the value's own encoder failed: {0}")]
    Foreign(String),
}

/// Why bytes could not be decoded as a message.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum CdrDecodeError {
    /// The input ended before the message did.
    #[error("truncated input: needed {needed} more bytes at offset {offset}, {available} left")]
    Truncated {
        offset: usize,
        needed: usize,
        available: usize,
    },
    /// The 4-byte encapsulation header is not plain CDR.
    #[error("unsupported encapsulation header {0:02x?}: expected 00 01 (CDR little-endian) or 00 00 (CDR big-endian)")]
    BadHeader([u8; 4]),
    /// A length or count claims more data than the input holds.
    #[error("length {len} at offset {offset} is larger than the {available} bytes left")]
    LengthTooLarge {
        offset: usize,
        len: u64,
        available: usize,
    },
    /// A string is not valid UTF-8.
    #[error("string at offset {offset} is not valid UTF-8")]
    InvalidUtf8 { offset: usize },
    /// A bool byte other than 0 or 1.
    #[error("bool at offset {offset} holds {value}, expected 0 or 1")]
    InvalidBool { offset: usize, value: u8 },
    /// More than 3 bytes follow the last field.
    #[error("{extra} bytes follow the end of the message (at most 3 padding bytes are allowed)")]
    TrailingBytes { extra: usize },
    /// `wstring` has no single interoperable ROS 2 encoding.
    #[error("wstring fields are not supported: ROS 2 vendors disagree on their bytes")]
    WStringUnsupported,
    /// Nesting went deeper than the decoder's limit.
    #[error("nesting deeper than {limit} levels")]
    TooDeep { limit: usize },
}

//! The parsed form of ROS 2 interface definitions.
//!
//! A definition is a list of [`Field`]s and [`Constant`]s. Each field has a
//! [`FieldType`]: a [`BaseType`] (a primitive, a possibly bounded string, or a
//! nested message named by a [`TypeName`]) wrapped in an [`ArrayKind`]. This is
//! exactly the information CDR, the RIHS01 hash and the code generator need.

use std::fmt;

/// The primitive types of the `.msg` language.
///
/// `char` and `byte` are kept apart from `uint8` because `ros2 interface show`
/// prints them as written; on the wire all three are one byte, and for the
/// RIHS01 hash `char` counts as `uint8` (rosidl maps `.msg` `char` to IDL `uint8`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Primitive {
    Bool,
    Byte,
    Char,
    Int8,
    UInt8,
    Int16,
    UInt16,
    Int32,
    UInt32,
    Int64,
    UInt64,
    Float32,
    Float64,
}

impl Primitive {
    /// All primitives, in the order the `.msg` documentation lists them.
    pub const ALL: [Primitive; 13] = [
        Primitive::Bool,
        Primitive::Byte,
        Primitive::Char,
        Primitive::Int8,
        Primitive::UInt8,
        Primitive::Int16,
        Primitive::UInt16,
        Primitive::Int32,
        Primitive::UInt32,
        Primitive::Int64,
        Primitive::UInt64,
        Primitive::Float32,
        Primitive::Float64,
    ];

    /// The name as written in a `.msg` file.
    pub fn msg_name(self) -> &'static str {
        match self {
            Primitive::Bool => "bool",
            Primitive::Byte => "byte",
            Primitive::Char => "char",
            Primitive::Int8 => "int8",
            Primitive::UInt8 => "uint8",
            Primitive::Int16 => "int16",
            Primitive::UInt16 => "uint16",
            Primitive::Int32 => "int32",
            Primitive::UInt32 => "uint32",
            Primitive::Int64 => "int64",
            Primitive::UInt64 => "uint64",
            Primitive::Float32 => "float32",
            Primitive::Float64 => "float64",
        }
    }

    /// Parses a `.msg` primitive name.
    pub fn from_msg_name(name: &str) -> Option<Primitive> {
        Primitive::ALL.into_iter().find(|p| p.msg_name() == name)
    }

    /// Size in bytes on the wire, which is also the CDR alignment.
    pub fn size(self) -> usize {
        match self {
            Primitive::Bool
            | Primitive::Byte
            | Primitive::Char
            | Primitive::Int8
            | Primitive::UInt8 => 1,
            Primitive::Int16 | Primitive::UInt16 => 2,
            Primitive::Int32 | Primitive::UInt32 | Primitive::Float32 => 4,
            Primitive::Int64 | Primitive::UInt64 | Primitive::Float64 => 8,
        }
    }

    /// Whether this is an integer type (including `byte` and `char`).
    pub fn is_integer(self) -> bool {
        !matches!(
            self,
            Primitive::Bool | Primitive::Float32 | Primitive::Float64
        )
    }

    /// Inclusive integer range, for integer types.
    pub fn int_range(self) -> Option<(i128, i128)> {
        Some(match self {
            Primitive::Byte | Primitive::Char | Primitive::UInt8 => (0, u8::MAX as i128),
            Primitive::Int8 => (i8::MIN as i128, i8::MAX as i128),
            Primitive::Int16 => (i16::MIN as i128, i16::MAX as i128),
            Primitive::UInt16 => (0, u16::MAX as i128),
            Primitive::Int32 => (i32::MIN as i128, i32::MAX as i128),
            Primitive::UInt32 => (0, u32::MAX as i128),
            Primitive::Int64 => (i64::MIN as i128, i64::MAX as i128),
            Primitive::UInt64 => (0, u64::MAX as i128),
            Primitive::Bool | Primitive::Float32 | Primitive::Float64 => return None,
        })
    }
}

/// The kind of interface a type belongs to: `pkg/msg/T`, `pkg/srv/T`, `pkg/action/T`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum InterfaceKind {
    Msg,
    Srv,
    Action,
}

impl InterfaceKind {
    pub fn as_str(self) -> &'static str {
        match self {
            InterfaceKind::Msg => "msg",
            InterfaceKind::Srv => "srv",
            InterfaceKind::Action => "action",
        }
    }
}

/// A fully qualified type name such as `sensor_msgs/msg/Image`.
///
/// Request, response and action parts are message types whose kind is the
/// kind of the file they come from: `std_srvs/srv/SetBool_Request`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TypeName {
    pub package: String,
    pub kind: InterfaceKind,
    pub name: String,
}

impl TypeName {
    pub fn new(package: impl Into<String>, kind: InterfaceKind, name: impl Into<String>) -> Self {
        TypeName {
            package: package.into(),
            kind,
            name: name.into(),
        }
    }

    /// Parses `pkg/msg/Name`, `pkg/srv/Name`, `pkg/action/Name` or the short
    /// `pkg/Name` (taken as a message).
    pub fn parse(text: &str) -> Option<TypeName> {
        let parts: Vec<&str> = text.split('/').collect();
        let (package, kind, name) = match parts.as_slice() {
            [p, n] => (*p, InterfaceKind::Msg, *n),
            [p, "msg", n] => (*p, InterfaceKind::Msg, *n),
            [p, "srv", n] => (*p, InterfaceKind::Srv, *n),
            [p, "action", n] => (*p, InterfaceKind::Action, *n),
            _ => return None,
        };
        if package.is_empty() || name.is_empty() {
            return None;
        }
        Some(TypeName::new(package, kind, name))
    }
}

impl fmt::Display for TypeName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}/{}", self.package, self.kind.as_str(), self.name)
    }
}

/// The element type of a field, before any array is applied.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum BaseType {
    Primitive(Primitive),
    /// `string` or `string<=N`.
    String {
        bound: Option<u32>,
    },
    /// `wstring` or `wstring<=N`. Parsed, but CDR support is refused: ROS 2
    /// vendors disagree on its bytes (interop.md §1.4).
    WString {
        bound: Option<u32>,
    },
    /// A nested message type.
    Named(TypeName),
}

/// How a field repeats its base type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ArrayKind {
    /// A single value.
    Single,
    /// `T[N]`: exactly N elements, no count on the wire.
    Fixed(u32),
    /// `T[<=N]`: at most N elements, count on the wire.
    Bounded(u32),
    /// `T[]`: any number of elements, count on the wire.
    Unbounded,
}

/// A field's full type.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct FieldType {
    pub base: BaseType,
    pub array: ArrayKind,
}

impl FieldType {
    /// True for a sequence (`T[]` or `T[<=N]`), which carries a count on the wire.
    pub fn is_sequence(&self) -> bool {
        matches!(self.array, ArrayKind::Bounded(_) | ArrayKind::Unbounded)
    }
}

/// A literal from a default value or a constant.
#[derive(Clone, Debug, PartialEq)]
pub enum Literal {
    Bool(bool),
    Int(i128),
    Float(f64),
    String(String),
    Array(Vec<Literal>),
}

/// One field of a message.
#[derive(Clone, Debug, PartialEq)]
pub struct Field {
    pub name: String,
    pub ty: FieldType,
    pub default: Option<Literal>,
    /// Comment lines attached to the field (leading and trailing), without `#`.
    pub comment: String,
}

/// A constant: `int8 STATUS_FIX=0`.
#[derive(Clone, Debug, PartialEq)]
pub struct Constant {
    pub name: String,
    /// A primitive or a (possibly bounded) string.
    pub ty: BaseType,
    pub value: Literal,
    pub comment: String,
}

/// A message definition (also each part of a service or action).
#[derive(Clone, Debug, PartialEq)]
pub struct MessageDef {
    pub name: TypeName,
    pub fields: Vec<Field>,
    pub constants: Vec<Constant>,
    /// The definition text this came from (for `interface show` and MCAP
    /// schemas); derived parts of actions carry synthesized text.
    pub source: String,
}

/// A service: `Name_Request` and `Name_Response`.
#[derive(Clone, Debug, PartialEq)]
pub struct ServiceDef {
    pub name: TypeName,
    pub request: MessageDef,
    pub response: MessageDef,
    pub source: String,
}

/// An action: goal, result, feedback and the derived messages and services.
#[derive(Clone, Debug, PartialEq)]
pub struct ActionDef {
    pub name: TypeName,
    pub goal: MessageDef,
    pub result: MessageDef,
    pub feedback: MessageDef,
    /// `Name_SendGoal`, `Name_GetResult` services and the `Name_FeedbackMessage`.
    pub send_goal: ServiceDef,
    pub get_result: ServiceDef,
    pub feedback_message: MessageDef,
    pub source: String,
}

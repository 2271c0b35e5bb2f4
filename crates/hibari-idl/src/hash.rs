//! RIHS01 type hashes (REP-2016; interop.md §5).
//!
//! A type's hash is the SHA-256 of a JSON description of the type and of
//! every type it refers to, recursively. The JSON is what Python's
//! `json.dumps` writes by default: separators `", "` and `": "`, keys in a
//! fixed order, non-ASCII escaped. Field names, field types and nested type
//! names are hashed; comments, constants and default values are not, so only
//! layout changes change the hash.
//!
//! `.msg` `char` counts as `uint8` (rosidl turns it into IDL `uint8`), which
//! is where rosbags' `hash_rihs01` goes wrong. A message without fields is
//! hashed with rosidl's placeholder field `uint8 structure_needs_at_least_one_member`.
//!
//! Services and actions hash a synthetic struct: a service `pkg/srv/S` has the
//! fields `request_message`, `response_message` and `event_message`; an
//! action `pkg/action/A` has `goal`, `result`, `feedback`,
//! `send_goal_service`, `get_result_service` and `feedback_message`
//! (rosidl_generator_type_description's `add_srv` and `add_action`).

use std::collections::BTreeMap;
use std::fmt::Write as _;

use sha2::{Digest, Sha256};

use crate::model::{ArrayKind, BaseType, Primitive, TypeName};
use crate::registry::{IdlResolveError, Registry};

/// One field as the type description sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
struct HashField {
    name: String,
    type_id: u32,
    capacity: u32,
    string_capacity: u32,
    nested: Option<TypeName>,
}

impl HashField {
    fn nested(name: &str, ty: TypeName) -> HashField {
        HashField {
            name: name.to_string(),
            type_id: 1,
            capacity: 0,
            string_capacity: 0,
            nested: Some(ty),
        }
    }
}

/// `type_description_interfaces/msg/FieldType` ids of element types.
fn base_type_id(base: &BaseType) -> (u32, u32) {
    match base {
        BaseType::Named(_) => (1, 0),
        BaseType::Primitive(p) => (
            match p {
                Primitive::Int8 => 2,
                Primitive::UInt8 | Primitive::Char => 3,
                Primitive::Int16 => 4,
                Primitive::UInt16 => 5,
                Primitive::Int32 => 6,
                Primitive::UInt32 => 7,
                Primitive::Int64 => 8,
                Primitive::UInt64 => 9,
                Primitive::Float32 => 10,
                Primitive::Float64 => 11,
                Primitive::Bool => 15,
                Primitive::Byte => 16,
            },
            0,
        ),
        BaseType::String { bound: None } => (17, 0),
        BaseType::WString { bound: None } => (18, 0),
        BaseType::String { bound: Some(n) } => (21, *n),
        BaseType::WString { bound: Some(n) } => (22, *n),
    }
}

impl Registry {
    /// The RIHS01 hash of a message, service, action, or service event
    /// message, as `RIHS01_<64 lowercase hex digits>`.
    ///
    /// Fails if the type or anything it refers to is unknown; hashing a
    /// service needs `service_msgs/msg/ServiceEventInfo` (Jazzy has it,
    /// Humble, which has no type hashes, does not).
    pub fn type_hash(&self, name: &TypeName) -> Result<String, IdlResolveError> {
        let json = self.type_description_json(name)?;
        let digest = Sha256::digest(json.as_bytes());
        let mut out = String::with_capacity(71);
        out.push_str("RIHS01_");
        for byte in digest {
            write!(out, "{byte:02x}").expect("write to String");
        }
        Ok(out)
    }

    /// The exact JSON text that [`type_hash`](Self::type_hash) hashes.
    pub fn type_description_json(&self, name: &TypeName) -> Result<String, IdlResolveError> {
        let top = self.hash_fields(name)?;
        let mut referenced: BTreeMap<String, Vec<HashField>> = BTreeMap::new();
        let mut queue: Vec<(TypeName, TypeName, String)> = nested_of(name, &top);
        while let Some((owner, nested, field)) = queue.pop() {
            let key = nested.to_string();
            if referenced.contains_key(&key) || nested == *name {
                continue;
            }
            let fields = match self.hash_fields(&nested) {
                Ok(fields) => fields,
                Err(IdlResolveError::UnknownType { .. }) => {
                    return Err(IdlResolveError::UnresolvedField {
                        owner,
                        field,
                        missing: nested,
                    })
                }
                Err(e) => return Err(e),
            };
            queue.extend(nested_of(&nested, &fields));
            referenced.insert(key, fields);
        }
        let mut json = String::from("{\"type_description\": ");
        write_struct(&mut json, &name.to_string(), &top);
        json.push_str(", \"referenced_type_descriptions\": [");
        for (i, (type_name, fields)) in referenced.iter().enumerate() {
            if i > 0 {
                json.push_str(", ");
            }
            write_struct(&mut json, type_name, fields);
        }
        json.push_str("]}");
        Ok(json)
    }

    /// The fields of the struct that describes `name`.
    fn hash_fields(&self, name: &TypeName) -> Result<Vec<HashField>, IdlResolveError> {
        if let Some(def) = self.resolve_message(name) {
            if def.fields.is_empty() {
                return Ok(vec![HashField {
                    name: "structure_needs_at_least_one_member".to_string(),
                    type_id: 3,
                    capacity: 0,
                    string_capacity: 0,
                    nested: None,
                }]);
            }
            return Ok(def
                .fields
                .iter()
                .map(|f| {
                    let (base_id, string_capacity) = base_type_id(&f.ty.base);
                    let (offset, capacity) = match f.ty.array {
                        ArrayKind::Single => (0, 0),
                        ArrayKind::Fixed(n) => (48, n),
                        ArrayKind::Bounded(n) => (96, n),
                        ArrayKind::Unbounded => (144, 0),
                    };
                    HashField {
                        name: f.name.clone(),
                        type_id: base_id + offset,
                        capacity,
                        string_capacity,
                        nested: match &f.ty.base {
                            BaseType::Named(n) => Some(n.clone()),
                            _ => None,
                        },
                    }
                })
                .collect());
        }
        if let Some(srv) = self.service(name) {
            return Ok(vec![
                HashField::nested("request_message", srv.request.name.clone()),
                HashField::nested("response_message", srv.response.name.clone()),
                HashField::nested(
                    "event_message",
                    TypeName::new(&name.package, name.kind, format!("{}_Event", name.name)),
                ),
            ]);
        }
        if let Some(action) = self.action(name) {
            return Ok(vec![
                HashField::nested("goal", action.goal.name.clone()),
                HashField::nested("result", action.result.name.clone()),
                HashField::nested("feedback", action.feedback.name.clone()),
                HashField::nested("send_goal_service", action.send_goal.name.clone()),
                HashField::nested("get_result_service", action.get_result.name.clone()),
                HashField::nested("feedback_message", action.feedback_message.name.clone()),
            ]);
        }
        Err(IdlResolveError::UnknownType {
            name: name.to_string(),
        })
    }
}

/// `(owner, nested type, field)` for every nested field, to visit next.
fn nested_of(owner: &TypeName, fields: &[HashField]) -> Vec<(TypeName, TypeName, String)> {
    fields
        .iter()
        .filter_map(|f| Some((owner.clone(), f.nested.clone()?, f.name.clone())))
        .collect()
}

fn write_struct(json: &mut String, type_name: &str, fields: &[HashField]) {
    json.push_str("{\"type_name\": ");
    write_json_string(json, type_name);
    json.push_str(", \"fields\": [");
    for (i, f) in fields.iter().enumerate() {
        if i > 0 {
            json.push_str(", ");
        }
        json.push_str("{\"name\": ");
        write_json_string(json, &f.name);
        write!(
            json,
            ", \"type\": {{\"type_id\": {}, \"capacity\": {}, \"string_capacity\": {}, \"nested_type_name\": ",
            f.type_id, f.capacity, f.string_capacity
        )
        .expect("write to String");
        let nested = f
            .nested
            .as_ref()
            .map(ToString::to_string)
            .unwrap_or_default();
        write_json_string(json, &nested);
        json.push_str("}}");
    }
    json.push_str("]}");
}

/// Writes a JSON string as Python's `json.dumps(ensure_ascii=True)` does.
fn write_json_string(json: &mut String, text: &str) {
    json.push('"');
    for c in text.chars() {
        match c {
            '"' => json.push_str("\\\""),
            '\\' => json.push_str("\\\\"),
            '\n' => json.push_str("\\n"),
            '\r' => json.push_str("\\r"),
            '\t' => json.push_str("\\t"),
            '\u{08}' => json.push_str("\\b"),
            '\u{0c}' => json.push_str("\\f"),
            ' '..='~' => json.push(c),
            _ => {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    write!(json, "\\u{unit:04x}").expect("write to String");
                }
            }
        }
    }
    json.push('"');
}

#[cfg(test)]
mod tests {
    use super::write_json_string;

    #[test]
    fn json_strings_are_escaped_like_python_ensure_ascii() {
        let mut out = String::new();
        write_json_string(&mut out, "a\"b\\c\n\u{1}é😀~");
        assert_eq!(out, r#""a\"b\\c\n\u0001\u00e9\ud83d\ude00~""#);
    }
}

//! C++ code generation: one header per interface, as rosidl lays them out.
//!
//! `pkg/msg/PointCloud2` becomes `<pkg/msg/point_cloud2.hpp>` with
//! `struct pkg::msg::PointCloud2`; a service `pkg/srv/S` becomes
//! `<pkg/srv/s.hpp>` with `S_Request`, `S_Response`, `S_Event` (when
//! `service_msgs` is known, as on Jazzy) and `struct S` naming them; an action
//! `pkg/action/A` becomes `<pkg/action/a.hpp>` with its goal, result and
//! feedback, the `A_SendGoal` and `A_GetResult` services and
//! `A_FeedbackMessage`, and `struct A`. Every message struct comes with
//! `cdr_serialize`/`cdr_deserialize`, so `hibari::cdr::to_cdr` and
//! `from_cdr` (crates/hibari-c/include/hibari/cdr.hpp) work on it, and with
//! `struct <Name>View` (`<Name>::View`), its zero-copy view
//! (crates/hibari-c/include/hibari/view.hpp): `parse` reads arrays and
//! strings in place, `to_message` copies.

mod files;
mod literals;
mod names;
mod serde;
mod structs;
mod views;
mod write;

/// What the emitters' unit tests share: `emit` run over `demo_msgs/msg/Demo`
/// defined by `text` (against the bundled Jazzy packages).
#[cfg(test)]
fn emit_demo(
    text: &str,
    emit: fn(&mut String, &hibari_idl::model::MessageDef, &Registry),
) -> String {
    let name = TypeName::parse("demo_msgs/msg/Demo").unwrap();
    let mut registry = Registry::bundled(hibari_idl::Distro::Jazzy);
    registry
        .add_msg_text(name.clone(), text, "Demo.msg")
        .unwrap();
    let mut out = String::new();
    emit(&mut out, registry.message(&name).unwrap(), &registry);
    out
}

use std::collections::BTreeMap;

use hibari_idl::model::{InterfaceKind, TypeName};
use hibari_idl::Registry;

pub use names::snake_case;
pub use write::{write_if_changed, CppWriteError, WriteSummary};

/// One generated header.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CppHeader {
    /// Relative to the include root: `sensor_msgs/msg/point_cloud2.hpp`.
    pub path: String,
    pub text: String,
}

/// One generated message struct (services and actions are not messages;
/// their parts are).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CppType {
    /// `example_interfaces/srv/AddTwoInts_Request`.
    pub ros_name: String,
    /// `::example_interfaces::srv::AddTwoInts_Request`.
    pub cpp_name: String,
    /// The header that defines it: `example_interfaces/srv/add_two_ints.hpp`.
    pub header: String,
}

/// The headers and message types generated for some packages.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CppOutput {
    pub headers: Vec<CppHeader>,
    pub types: Vec<CppType>,
}

impl CppOutput {
    /// One line per message type, `ros_name<TAB>cpp_name<TAB>header`, for
    /// build scripts that need the list (a dispatch table, a CMake target).
    pub fn manifest(&self) -> String {
        self.types
            .iter()
            .map(|t| format!("{}\t{}\t{}\n", t.ros_name, t.cpp_name, t.header))
            .collect()
    }
}

/// Generates the C++ headers of `packages`, resolving every type they use
/// in `registry` (which should [validate](Registry::validate)). Types of
/// other packages are included as `<other_pkg/msg/foo.hpp>`, expected to be
/// generated as well (e.g. the bundled packages).
pub fn generate_cpp(registry: &Registry, packages: &[String]) -> CppOutput {
    let owners = interface_owners(registry);
    let mut out = CppOutput::default();
    let mut add = |file: files::InterfaceFile<'_>| {
        let header = file.render(registry, &owners);
        for def in &file.messages {
            out.types.push(CppType {
                ros_name: def.name.to_string(),
                cpp_name: names::qualified(&def.name),
                header: header.path.clone(),
            });
        }
        out.headers.push(header);
    };
    let local = |name: &TypeName| packages.contains(&name.package);
    for m in registry.messages() {
        if m.name.kind == InterfaceKind::Msg && local(&m.name) {
            add(files::InterfaceFile::message(m));
        }
    }
    for s in registry.services() {
        if s.name.kind == InterfaceKind::Srv && local(&s.name) {
            add(files::InterfaceFile::service(s, registry));
        }
    }
    for a in registry.actions() {
        if local(&a.name) {
            add(files::InterfaceFile::action(a, registry));
        }
    }
    out.headers.sort_by(|a, b| a.path.cmp(&b.path));
    out.types.sort_by(|a, b| a.ros_name.cmp(&b.ros_name));
    out
}

/// Which interface (and so which header) defines each message: a message
/// itself, the service of a request or response, the action of every part.
fn interface_owners(registry: &Registry) -> BTreeMap<TypeName, TypeName> {
    let mut owners = BTreeMap::new();
    for s in registry.services() {
        if s.name.kind == InterfaceKind::Srv {
            for part in [&s.request.name, &s.response.name] {
                owners.insert(part.clone(), s.name.clone());
            }
            owners.insert(files::event_name(&s.name), s.name.clone());
        }
    }
    for a in registry.actions() {
        let parts = [
            &a.goal.name,
            &a.result.name,
            &a.feedback.name,
            &a.feedback_message.name,
            &a.send_goal.request.name,
            &a.send_goal.response.name,
            &a.get_result.request.name,
            &a.get_result.response.name,
        ];
        for part in parts {
            owners.insert(part.clone(), a.name.clone());
        }
        for service in [&a.send_goal.name, &a.get_result.name] {
            owners.insert(files::event_name(service), a.name.clone());
        }
    }
    owners
}

#[cfg(test)]
mod tests {
    use super::*;
    use hibari_idl::Distro;

    fn bundled_output() -> CppOutput {
        let registry = Registry::bundled_ref(Distro::Jazzy);
        let mut packages: Vec<String> = registry
            .messages()
            .map(|m| m.name.package.clone())
            .collect();
        packages.dedup();
        generate_cpp(registry, &packages)
    }

    #[test]
    fn every_bundled_interface_gets_one_header_named_as_rosidl_names_it() {
        let out = bundled_output();
        let paths: Vec<&str> = out.headers.iter().map(|h| h.path.as_str()).collect();
        for want in [
            "std_msgs/msg/string.hpp",
            "std_msgs/msg/u_int8_multi_array.hpp",
            "sensor_msgs/msg/point_cloud2.hpp",
            "action_msgs/msg/goal_status_array.hpp",
            "example_interfaces/srv/add_two_ints.hpp",
            "test_msgs/action/fibonacci.hpp",
        ] {
            assert!(paths.contains(&want), "no {want}");
        }
        let registry = Registry::bundled_ref(Distro::Jazzy);
        let msg_files = registry
            .messages()
            .filter(|m| m.name.kind == InterfaceKind::Msg)
            .count();
        let srv_files = registry
            .services()
            .filter(|s| s.name.kind == InterfaceKind::Srv)
            .count();
        let action_files = registry.actions().count();
        assert_eq!(out.headers.len(), msg_files + srv_files + action_files);
        // Every stored message, plus the event message of every service
        // (action services included), as rosidl generates on Jazzy.
        let events = registry.services().count();
        assert_eq!(out.types.len(), registry.messages().count() + events);
    }

    #[test]
    fn a_service_header_defines_its_parts_and_the_service_struct() {
        let out = bundled_output();
        let h = out
            .headers
            .iter()
            .find(|h| h.path == "example_interfaces/srv/add_two_ints.hpp")
            .unwrap();
        for want in [
            "namespace example_interfaces::srv {",
            "struct AddTwoInts_Request {",
            "struct AddTwoInts_Response {",
            "struct AddTwoInts_Event {",
            "#include <service_msgs/msg/service_event_info.hpp>",
            "  using Request = AddTwoInts_Request;",
            "  using Event = AddTwoInts_Event;",
            "  static constexpr const char *TYPE_NAME = \"example_interfaces/srv/AddTwoInts\";",
        ] {
            assert!(h.text.contains(want), "missing {want:?} in\n{}", h.text);
        }
    }

    #[test]
    fn an_action_header_defines_the_derived_types_rosidl_defines() {
        let out = bundled_output();
        let h = out
            .headers
            .iter()
            .find(|h| h.path == "test_msgs/action/fibonacci.hpp")
            .unwrap();
        for want in [
            "struct Fibonacci_Goal {",
            "struct Fibonacci_SendGoal_Request {",
            "struct Fibonacci_GetResult_Response {",
            "struct Fibonacci_FeedbackMessage {",
            "struct Fibonacci_SendGoal {",
            "  using Feedback = Fibonacci_Feedback;",
            "    using CancelGoalService = ::action_msgs::srv::CancelGoal;",
            "#include <unique_identifier_msgs/msg/uuid.hpp>",
            "#include <action_msgs/srv/cancel_goal.hpp>",
        ] {
            assert!(h.text.contains(want), "missing {want:?} in\n{}", h.text);
        }
        // Parts come before the parts that use them.
        let at = |s: &str| h.text.find(s).unwrap();
        assert!(at("struct Fibonacci_Goal {") < at("struct Fibonacci_SendGoal_Request {"));
    }
}

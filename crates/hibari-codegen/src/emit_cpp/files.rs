//! One header per interface: which messages it holds, in which order, what
//! it includes, and the service and action structs that name the parts.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

use hibari_idl::model::{ActionDef, BaseType, InterfaceKind, MessageDef, ServiceDef, TypeName};
use hibari_idl::Registry;

use super::names::{header_path, include_guard, namespace, qualified};
use super::serde::emit_cdr_functions;
use super::structs::emit_struct;
use super::views::emit_view;
use super::CppHeader;

/// The standard headers every generated header includes, whether or not it
/// uses each (they are also what `hibari/cdr.hpp` needs).
const STD_INCLUDES: &[&str] = &["array", "cstdint", "limits", "memory", "string", "vector"];

/// `pkg/srv/S_Event`, the service event message of `pkg/srv/S`.
pub fn event_name(service: &TypeName) -> TypeName {
    TypeName::new(
        &service.package,
        service.kind,
        format!("{}_Event", service.name),
    )
}

/// Whether `registry` knows `service_msgs/msg/ServiceEventInfo`: Jazzy
/// does, and rosidl there generates `S_Event` for every service; Humble
/// has neither.
fn has_service_events(registry: &Registry) -> bool {
    let info = TypeName::new("service_msgs", InterfaceKind::Msg, "ServiceEventInfo");
    registry.message(&info).is_some()
}

/// The contents of one interface's header, before rendering.
pub struct InterfaceFile<'r> {
    interface: TypeName,
    /// Message structs in dependency order (a part before its users).
    pub messages: Vec<Cow<'r, MessageDef>>,
    /// Service and action structs, rendered; they follow the messages.
    wrappers: Vec<String>,
    /// Headers needed beyond the field types (the action's `Impl` types).
    extra_includes: Vec<TypeName>,
}

impl<'r> InterfaceFile<'r> {
    pub fn message(def: &'r MessageDef) -> Self {
        InterfaceFile {
            interface: def.name.clone(),
            messages: vec![Cow::Borrowed(def)],
            wrappers: Vec::new(),
            extra_includes: Vec::new(),
        }
    }

    pub fn service(def: &'r ServiceDef, registry: &Registry) -> Self {
        let mut file = InterfaceFile {
            interface: def.name.clone(),
            messages: Vec::new(),
            wrappers: Vec::new(),
            extra_includes: Vec::new(),
        };
        file.add_service(def, registry);
        file
    }

    fn add_service(&mut self, def: &'r ServiceDef, registry: &Registry) {
        self.messages.push(Cow::Borrowed(&def.request));
        self.messages.push(Cow::Borrowed(&def.response));
        let events = has_service_events(registry);
        if events {
            self.messages.push(Cow::Owned(def.event_message()));
        }
        let mut w = String::new();
        let n = &def.name.name;
        let _ = writeln!(w, "/// The service `{}`.", def.name);
        let _ = writeln!(w, "struct {n} {{");
        let _ = writeln!(w, "  using Request = {};", def.request.name.name);
        let _ = writeln!(w, "  using Response = {};", def.response.name.name);
        if events {
            let _ = writeln!(w, "  using Event = {};", event_name(&def.name).name);
        }
        let _ = writeln!(
            w,
            "\n  static constexpr const char *TYPE_NAME = \"{}\";",
            def.name
        );
        if let Ok(hash) = registry.type_hash(&def.name) {
            let _ = writeln!(w, "  static constexpr const char *TYPE_HASH = \"{hash}\";");
        }
        let _ = writeln!(w, "}};\n");
        self.wrappers.push(w);
    }

    pub fn action(def: &'r ActionDef, registry: &Registry) -> Self {
        let mut file = InterfaceFile {
            interface: def.name.clone(),
            messages: vec![
                Cow::Borrowed(&def.goal),
                Cow::Borrowed(&def.result),
                Cow::Borrowed(&def.feedback),
            ],
            wrappers: Vec::new(),
            extra_includes: Vec::new(),
        };
        file.add_service(&def.send_goal, registry);
        file.add_service(&def.get_result, registry);
        file.messages.push(Cow::Borrowed(&def.feedback_message));

        let cancel = TypeName::new("action_msgs", InterfaceKind::Srv, "CancelGoal");
        let status = TypeName::new("action_msgs", InterfaceKind::Msg, "GoalStatusArray");
        let has_impl_types =
            registry.service(&cancel).is_some() && registry.message(&status).is_some();
        let n = &def.name.name;
        let mut w = String::new();
        let _ = writeln!(w, "/// The action `{}`.", def.name);
        let _ = writeln!(w, "struct {n} {{");
        let _ = writeln!(w, "  using Goal = {};", def.goal.name.name);
        let _ = writeln!(w, "  using Result = {};", def.result.name.name);
        let _ = writeln!(w, "  using Feedback = {};\n", def.feedback.name.name);
        let _ = writeln!(w, "  struct Impl {{");
        let _ = writeln!(
            w,
            "    using SendGoalService = {};",
            def.send_goal.name.name
        );
        let _ = writeln!(
            w,
            "    using GetResultService = {};",
            def.get_result.name.name
        );
        let _ = writeln!(
            w,
            "    using FeedbackMessage = {};",
            def.feedback_message.name.name
        );
        if has_impl_types {
            let _ = writeln!(w, "    using CancelGoalService = {};", qualified(&cancel));
            let _ = writeln!(w, "    using GoalStatusMessage = {};", qualified(&status));
            file.extra_includes.extend([cancel, status]);
        }
        let _ = writeln!(w, "  }};\n");
        let _ = writeln!(
            w,
            "  static constexpr const char *TYPE_NAME = \"{}\";",
            def.name
        );
        if let Ok(hash) = registry.type_hash(&def.name) {
            let _ = writeln!(w, "  static constexpr const char *TYPE_HASH = \"{hash}\";");
        }
        let _ = writeln!(w, "}};\n");
        file.wrappers.push(w);
        file
    }

    /// The headers of the interfaces this one's fields (and `Impl`) use.
    fn includes(&self, owners: &BTreeMap<TypeName, TypeName>) -> BTreeSet<String> {
        let mut used: Vec<&TypeName> = self.extra_includes.iter().collect();
        for m in &self.messages {
            for f in &m.fields {
                if let BaseType::Named(n) = &f.ty.base {
                    used.push(owners.get(n).unwrap_or(n));
                }
            }
        }
        used.into_iter()
            .filter(|owner| **owner != self.interface)
            .map(header_path)
            .collect()
    }

    /// The header text.
    pub fn render(&self, registry: &Registry, owners: &BTreeMap<TypeName, TypeName>) -> CppHeader {
        let guard = include_guard(&self.interface);
        let mut out = String::new();
        let _ = writeln!(
            out,
            "// Generated by hibari-cpp-gen from `{}`: do not edit.",
            self.interface
        );
        let _ = writeln!(out, "#ifndef {guard}\n#define {guard}\n");
        for h in STD_INCLUDES {
            let _ = writeln!(out, "#include <{h}>");
        }
        let _ = writeln!(
            out,
            "\n#include <hibari/cdr.hpp>\n#include <hibari/view.hpp>"
        );
        let includes = self.includes(owners);
        if !includes.is_empty() {
            let _ = writeln!(out);
        }
        for h in includes {
            let _ = writeln!(out, "#include <{h}>");
        }
        let ns = namespace(&self.interface.package, self.interface.kind);
        let _ = writeln!(out, "\nnamespace {ns} {{\n");
        for m in &self.messages {
            emit_struct(&mut out, m, registry);
            emit_cdr_functions(&mut out, m, registry);
            emit_view(&mut out, m, registry);
        }
        for w in &self.wrappers {
            out.push_str(w);
        }
        let _ = writeln!(out, "}}  // namespace {ns}\n\n#endif  // {guard}");
        CppHeader {
            path: header_path(&self.interface),
            text: out,
        }
    }
}

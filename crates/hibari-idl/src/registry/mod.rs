//! A set of interface definitions that refer to each other.
//!
//! A [`Registry`] maps fully qualified names to parsed definitions. Every part
//! of a service or action is also a message in it, so
//! `std_srvs/srv/SetBool_Request` is looked up like `std_msgs/msg/String`;
//! the services `<Action>_SendGoal` and `<Action>_GetResult` are services in
//! it too. Adding a definition whose name is already present replaces the old
//! one, so user packages loaded after the [bundled](Registry::bundled) ones
//! override them.
//!
//! Parsing checks one file at a time; [`Registry::validate`] checks that
//! every nested type exists and that no type contains itself.

mod concat;
mod distro;
mod load;
mod validate;

use std::borrow::Cow;
use std::collections::BTreeMap;

pub use distro::{Distro, DistroParseError};
pub use load::{IdlLoadError, RegistryFromEnvError, DISTRO_VAR};
pub use validate::IdlResolveError;

use crate::model::{ActionDef, InterfaceKind, MessageDef, ServiceDef, TypeName};
use crate::parse::{parse_action, parse_msg, parse_srv, IdlParseError};

/// Interface definitions by name: messages (including every service and
/// action part), services and actions.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Registry {
    messages: BTreeMap<TypeName, MessageDef>,
    services: BTreeMap<TypeName, ServiceDef>,
    actions: BTreeMap<TypeName, ActionDef>,
}

impl Registry {
    /// A registry with no definitions.
    pub fn empty() -> Registry {
        Registry::default()
    }

    /// Adds a parsed message, replacing one of the same name.
    pub fn add_message(&mut self, def: MessageDef) {
        self.messages.insert(def.name.clone(), def);
    }

    /// Adds a parsed service and its request and response messages.
    pub fn add_service(&mut self, def: ServiceDef) {
        self.add_message(def.request.clone());
        self.add_message(def.response.clone());
        self.services.insert(def.name.clone(), def);
    }

    /// Adds a parsed action, its goal, result, feedback and feedback message,
    /// and its `SendGoal` and `GetResult` services.
    pub fn add_action(&mut self, def: ActionDef) {
        self.add_message(def.goal.clone());
        self.add_message(def.result.clone());
        self.add_message(def.feedback.clone());
        self.add_message(def.feedback_message.clone());
        self.add_service(def.send_goal.clone());
        self.add_service(def.get_result.clone());
        self.actions.insert(def.name.clone(), def);
    }

    /// Parses `.msg` text as `name` and adds it. `file` labels errors.
    pub fn add_msg_text(
        &mut self,
        name: TypeName,
        text: &str,
        file: &str,
    ) -> Result<(), IdlParseError> {
        let def = parse_msg(text, name, file)?;
        self.add_message(def);
        Ok(())
    }

    /// Parses `.srv` text as `name` and adds it with its parts.
    pub fn add_srv_text(
        &mut self,
        name: TypeName,
        text: &str,
        file: &str,
    ) -> Result<(), IdlParseError> {
        let def = parse_srv(text, name, file)?;
        self.add_service(def);
        Ok(())
    }

    /// Parses `.action` text as `name` and adds it with its parts.
    pub fn add_action_text(
        &mut self,
        name: TypeName,
        text: &str,
        file: &str,
    ) -> Result<(), IdlParseError> {
        let def = parse_action(text, name, file)?;
        self.add_action(def);
        Ok(())
    }

    /// Adds every definition of `other`, replacing those of the same name.
    pub fn extend(&mut self, other: Registry) {
        self.messages.extend(other.messages);
        self.services.extend(other.services);
        self.actions.extend(other.actions);
    }

    /// The message (or service/action part) named `name`.
    pub fn message(&self, name: &TypeName) -> Option<&MessageDef> {
        self.messages.get(name)
    }

    /// The message named by `pkg/msg/Type`, `pkg/Type` or a part such as
    /// `pkg/srv/Type_Request`.
    pub fn message_str(&self, name: &str) -> Option<&MessageDef> {
        self.message(&TypeName::parse(name)?)
    }

    /// Like [`message`](Self::message), and also synthesizes the event
    /// message `pkg/srv/S_Event` of a known service (see
    /// [`ServiceDef::event_message`]), which is not stored.
    pub fn resolve_message(&self, name: &TypeName) -> Option<Cow<'_, MessageDef>> {
        if let Some(def) = self.messages.get(name) {
            return Some(Cow::Borrowed(def));
        }
        let service = TypeName::new(&name.package, name.kind, name.name.strip_suffix("_Event")?);
        Some(Cow::Owned(self.services.get(&service)?.event_message()))
    }

    /// The service named `name` (`pkg/srv/S`, or `pkg/action/A_SendGoal`).
    pub fn service(&self, name: &TypeName) -> Option<&ServiceDef> {
        self.services.get(name)
    }

    /// The action named `name` (`pkg/action/A`).
    pub fn action(&self, name: &TypeName) -> Option<&ActionDef> {
        self.actions.get(name)
    }

    /// All messages, sorted by name.
    pub fn messages(&self) -> impl Iterator<Item = &MessageDef> + '_ {
        self.messages.values()
    }

    /// All services, sorted by name.
    pub fn services(&self) -> impl Iterator<Item = &ServiceDef> + '_ {
        self.services.values()
    }

    /// All actions, sorted by name.
    pub fn actions(&self) -> impl Iterator<Item = &ActionDef> + '_ {
        self.actions.values()
    }

    /// Finds what `name` refers to and returns its full name.
    ///
    /// `pkg/msg/T`, `pkg/srv/T` and `pkg/action/T` are looked up as written
    /// (a `pkg/srv/T_Request` is found among messages). The short `pkg/T` is
    /// tried as a message, then a service, then an action.
    pub fn resolve(&self, name: &str) -> Option<TypeName> {
        let parsed = TypeName::parse(name)?;
        let is_short = name.matches('/').count() == 1;
        let kinds: &[InterfaceKind] = if is_short {
            &[
                InterfaceKind::Msg,
                InterfaceKind::Srv,
                InterfaceKind::Action,
            ]
        } else {
            std::slice::from_ref(&parsed.kind)
        };
        kinds.iter().find_map(|kind| {
            let candidate = TypeName::new(&parsed.package, *kind, &parsed.name);
            let found = self.messages.contains_key(&candidate)
                || self.services.contains_key(&candidate)
                || self.actions.contains_key(&candidate);
            found.then_some(candidate)
        })
    }

    /// Number of messages, services and actions.
    pub fn len(&self) -> usize {
        self.messages.len() + self.services.len() + self.actions.len()
    }

    /// True if the registry holds no definitions.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

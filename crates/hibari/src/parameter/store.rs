//! A node's parameters: the declared values with their descriptors, the
//! callbacks, and the rules of declare, set and undeclare (rclpy's, see the
//! module docs of [`crate::parameter`]).

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::thread::{self, ThreadId};

use super::callbacks::{Callback, PostSet, PreSet};

use super::{
    DeclareParameterError, Parameter, ParameterAccessError, ParameterDescriptor, ParameterType,
    ParameterValue, SetParametersResult,
};
use crate::context::lock;

/// Parameter values given to a node from outside: its options, the command
/// line and parameter files, by name.
pub type ParameterOverrides = BTreeMap<String, ParameterValue>;

/// What a successful set changed, for the `/parameter_events` message.
#[derive(Default)]
pub(crate) struct Changes {
    pub new: Vec<Parameter>,
    pub changed: Vec<Parameter>,
    pub deleted: Vec<Parameter>,
}

/// Called after every successful change (the node publishes the event).
pub(crate) type Publish = Box<dyn Fn(&Changes) + Send + Sync>;

pub(crate) struct ParameterStore {
    values: Mutex<BTreeMap<String, (ParameterValue, ParameterDescriptor)>>,
    pub(super) callbacks: Mutex<Vec<(u64, Callback)>>,
    pub(super) next_callback: Mutex<u64>,
    /// Serializes sets; names the thread running a set's callbacks, so that
    /// a callback that sets parameters of its own node is refused instead
    /// of deadlocking.
    setting: Mutex<()>,
    pub(super) in_callbacks: Mutex<Option<ThreadId>>,
    overrides: ParameterOverrides,
    allow_undeclared: bool,
    publish: Mutex<Option<Publish>>,
}

impl ParameterStore {
    pub fn new(overrides: ParameterOverrides, allow_undeclared: bool, auto_declare: bool) -> Self {
        let mut values = BTreeMap::new();
        if auto_declare {
            for (name, value) in &overrides {
                values.insert(name.clone(), (value.clone(), dynamic(name, value)));
            }
        }
        ParameterStore {
            values: Mutex::new(values),
            callbacks: Mutex::new(Vec::new()),
            next_callback: Mutex::new(0),
            setting: Mutex::new(()),
            in_callbacks: Mutex::new(None),
            overrides,
            allow_undeclared,
            publish: Mutex::new(None),
        }
    }

    pub fn set_publisher(&self, publish: Publish) {
        *lock(&self.publish) = Some(publish);
    }

    fn in_own_callback(&self) -> bool {
        *lock(&self.in_callbacks) == Some(thread::current().id())
    }

    /// Declares `name`. `value` `NotSet` with a `ty` declares a statically
    /// typed parameter without a value.
    pub fn declare(
        &self,
        name: &str,
        value: ParameterValue,
        ty: Option<ParameterType>,
        mut descriptor: ParameterDescriptor,
        ignore_override: bool,
    ) -> Result<ParameterValue, DeclareParameterError> {
        if name.is_empty() {
            return Err(DeclareParameterError::InvalidName);
        }
        if self.in_own_callback() {
            return Err(DeclareParameterError::InCallback { name: name.into() });
        }
        descriptor.name = name.into();
        if !descriptor.dynamic_typing {
            descriptor.parameter_type = ty.unwrap_or(value.parameter_type());
            if descriptor.parameter_type == ParameterType::NotSet {
                return Err(DeclareParameterError::NoType { name: name.into() });
            }
        }
        let value = match self.overrides.get(name) {
            Some(o) if !ignore_override => o.clone(),
            _ => value,
        };
        let _set = lock(&self.setting);
        if lock(&self.values).contains_key(name) {
            return Err(DeclareParameterError::AlreadyDeclared { name: name.into() });
        }
        if let Err(reason) = descriptor.admits(name, &value) {
            return Err(if !descriptor.admits_type(&value) {
                DeclareParameterError::InvalidType {
                    name: name.into(),
                    reason,
                }
            } else {
                DeclareParameterError::InvalidValue {
                    name: name.into(),
                    value,
                    reason,
                }
            });
        }
        if descriptor.dynamic_typing {
            descriptor.parameter_type = value.parameter_type();
        }
        let list = [Parameter::new(name, value.clone())];
        let refused = self.run_on_set(&list);
        if !refused.successful {
            return Err(DeclareParameterError::InvalidValue {
                name: name.into(),
                value,
                reason: refused.reason,
            });
        }
        lock(&self.values).insert(name.into(), (value.clone(), descriptor));
        self.finish(Changes {
            new: list.to_vec(),
            ..Changes::default()
        });
        Ok(value)
    }

    pub fn undeclare(&self, name: &str) -> Result<(), ParameterAccessError> {
        if self.in_own_callback() {
            return Err(ParameterAccessError::InCallback { name: name.into() });
        }
        let _set = lock(&self.setting);
        let mut values = lock(&self.values);
        match values.get(name) {
            None => Err(ParameterAccessError::NotDeclared { name: name.into() }),
            Some((_, d)) if d.read_only => {
                Err(ParameterAccessError::ReadOnly { name: name.into() })
            }
            Some(_) => {
                values.remove(name);
                Ok(())
            }
        }
    }

    pub fn has(&self, name: &str) -> bool {
        lock(&self.values).contains_key(name)
    }

    /// The value; `NotSet` for an undeclared one when those are allowed.
    pub fn get(&self, name: &str) -> Result<ParameterValue, ParameterAccessError> {
        match lock(&self.values).get(name) {
            Some((ParameterValue::NotSet, d)) if !d.dynamic_typing => {
                Err(ParameterAccessError::Uninitialized { name: name.into() })
            }
            Some((v, _)) => Ok(v.clone()),
            None if self.allow_undeclared => Ok(ParameterValue::NotSet),
            None => Err(ParameterAccessError::NotDeclared { name: name.into() }),
        }
    }

    /// The type of the value; `NotSet` for one declared with a type but not
    /// set yet (and for an undeclared one when those are allowed).
    pub fn type_of(&self, name: &str) -> Result<ParameterType, ParameterAccessError> {
        match self.get(name) {
            Ok(v) => Ok(v.parameter_type()),
            Err(ParameterAccessError::Uninitialized { .. }) => Ok(ParameterType::NotSet),
            Err(e) => Err(e),
        }
    }

    pub fn describe(&self, name: &str) -> Result<ParameterDescriptor, ParameterAccessError> {
        match lock(&self.values).get(name) {
            Some((_, d)) => Ok(d.clone()),
            None if self.allow_undeclared => Ok(ParameterDescriptor::default()),
            None => Err(ParameterAccessError::NotDeclared { name: name.into() }),
        }
    }

    /// The names and values, in name order.
    pub fn snapshot(&self) -> Vec<(String, ParameterValue)> {
        lock(&self.values)
            .iter()
            .map(|(n, (v, _))| (n.clone(), v.clone()))
            .collect()
    }

    /// Sets `list` all or nothing (see the module docs for the order).
    pub fn set_atomically(&self, mut list: Vec<Parameter>) -> SetParametersResult {
        if self.in_own_callback() {
            return SetParametersResult::refused(
                "parameters cannot be set from inside a parameter callback of the same node",
            );
        }
        let _set = lock(&self.setting);
        let pre: Vec<Arc<PreSet>> = self.callbacks_of(|c| match c {
            Callback::Pre(f) => Some(f.clone()),
            _ => None,
        });
        if !pre.is_empty() {
            let mut modified = Vec::new();
            self.with_callbacks(|| {
                for f in &pre {
                    let mut copy = list.clone();
                    f(&mut copy);
                    modified.extend(copy);
                }
            });
            list = modified;
            if list.is_empty() {
                return SetParametersResult::refused(
                    "parameter list cannot be empty, this might be due to \
                     pre_set_parameters_callback modifying the original parameters list.",
                );
            }
        }
        let mut changes = Changes::default();
        {
            let values = lock(&self.values);
            let undeclared: Vec<&str> = list
                .iter()
                .filter(|p| !values.contains_key(&p.name))
                .map(|p| p.name.as_str())
                .collect();
            if !self.allow_undeclared && !undeclared.is_empty() {
                return SetParametersResult::refused(format!(
                    "Invalid access to undeclared parameter(s): {undeclared:?}"
                ));
            }
            for p in &list {
                let Some((old, d)) = values.get(&p.name) else {
                    // Undeclared, and allowed: setting "not set" deletes nothing.
                    if p.value == ParameterValue::NotSet {
                        changes.deleted.push(p.clone());
                    } else {
                        changes.new.push(p.clone());
                    }
                    continue;
                };
                if d.read_only {
                    return SetParametersResult::refused(format!(
                        "Trying to set a read-only parameter: {}.",
                        p.name
                    ));
                }
                if p.value == ParameterValue::NotSet {
                    if !d.dynamic_typing {
                        return SetParametersResult::refused(
                            "Static parameter cannot be undeclared",
                        );
                    }
                    changes.deleted.push(p.clone());
                    continue;
                }
                if let Err(reason) = d.admits(&p.name, &p.value) {
                    return SetParametersResult::refused(reason);
                }
                if *old == ParameterValue::NotSet {
                    changes.new.push(p.clone());
                } else {
                    changes.changed.push(p.clone());
                }
            }
        }
        let result = self.run_on_set(&list);
        if !result.successful {
            return result;
        }
        {
            let mut values = lock(&self.values);
            for p in &list {
                if p.value == ParameterValue::NotSet {
                    values.remove(&p.name);
                    continue;
                }
                let entry = values
                    .entry(p.name.clone())
                    .or_insert_with(|| (ParameterValue::NotSet, dynamic(&p.name, &p.value)));
                if entry.1.dynamic_typing {
                    entry.1.parameter_type = p.value.parameter_type();
                }
                entry.0 = p.value.clone();
            }
        }
        self.finish(changes);
        result
    }

    /// Publishes the event and runs the post-set callbacks.
    fn finish(&self, changes: Changes) {
        if let Some(publish) = &*lock(&self.publish) {
            publish(&changes);
        }
        let post: Vec<Arc<PostSet>> = self.callbacks_of(|c| match c {
            Callback::Post(f) => Some(f.clone()),
            _ => None,
        });
        let mut all = changes.new;
        all.extend(changes.changed);
        all.extend(changes.deleted);
        self.with_callbacks(|| post.iter().for_each(|f| f(&all)));
    }
}

/// The descriptor of a parameter that came without a declaration (an
/// override declared automatically, or a set allowed undeclared).
fn dynamic(name: &str, value: &ParameterValue) -> ParameterDescriptor {
    ParameterDescriptor {
        name: name.to_string(),
        parameter_type: value.parameter_type(),
        dynamic_typing: true,
        ..ParameterDescriptor::default()
    }
}

//! Where definitions come from: anything that maps a type name to its definition.

use std::collections::{BTreeMap, HashMap};

use hibari_idl::model::{MessageDef, TypeName};

/// A source of message definitions: the bundled
/// [`Registry`](hibari_idl::Registry), or a map of your own.
pub trait TypeLookup {
    /// The definition of `name`, if known.
    fn message(&self, name: &TypeName) -> Option<&MessageDef>;
}

impl<T: TypeLookup + ?Sized> TypeLookup for &T {
    fn message(&self, name: &TypeName) -> Option<&MessageDef> {
        (**self).message(name)
    }
}

impl<S: std::hash::BuildHasher> TypeLookup for HashMap<TypeName, MessageDef, S> {
    fn message(&self, name: &TypeName) -> Option<&MessageDef> {
        self.get(name)
    }
}

impl TypeLookup for BTreeMap<TypeName, MessageDef> {
    fn message(&self, name: &TypeName) -> Option<&MessageDef> {
        self.get(name)
    }
}

/// A handful of definitions searched in order (each knows its own name).
impl TypeLookup for [MessageDef] {
    fn message(&self, name: &TypeName) -> Option<&MessageDef> {
        self.iter().find(|d| &d.name == name)
    }
}

impl TypeLookup for Vec<MessageDef> {
    fn message(&self, name: &TypeName) -> Option<&MessageDef> {
        self.as_slice().message(name)
    }
}

impl TypeLookup for hibari_idl::Registry {
    fn message(&self, name: &TypeName) -> Option<&MessageDef> {
        hibari_idl::Registry::message(self, name)
    }
}

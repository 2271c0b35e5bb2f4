//! Values of another language's message types, for language bindings.
//!
//! A binding (hibari's C ABI, under its C++ layer) publishes objects Rust
//! cannot read. [`Publisher::publish_foreign`] hands such an object to the
//! transports as it is, with its encoder ([`ForeignMessage`]): subscribers of
//! this process that know its type read it in place through a
//! [`foreign subscription`](Node::create_foreign_subscription); Rust
//! subscriptions of the topic's type get it decoded from its encoding, and
//! subscribers in other processes and on other hosts get the encoding,
//! written straight into shared memory or the network buffer, as for a Rust
//! value. Nothing is serialized for a reader that does not need bytes.

use std::collections::HashSet;
use std::sync::{Mutex, OnceLock};

use hibari_transport::{CdrBytes, ForeignMessage, Payload, PayloadError, SampleInfo, WriteError};

use crate::context::lock;
use crate::node::Node;
use crate::options::SubscriptionOptions;
use crate::topic::generic::Serialized;
use crate::topic::pubsub::{PublishError, Publisher};
use crate::topic::subscription::{Handler, Subscription};
use crate::SubscriptionCreateError;

/// A sample of a [foreign subscription](Node::create_foreign_subscription):
/// a value published in this process (possibly a foreign one, borrowed
/// through [`foreign`](ForeignSample::foreign)), or CDR bytes.
pub struct ForeignSample(Payload);

impl ForeignSample {
    /// The value as published, if it is a foreign value of type `F`.
    pub fn foreign<F: ForeignMessage>(&self) -> Option<&F> {
        self.0.foreign_ref::<F>()
    }

    /// The CDR bytes: as received, or the value's encoding (made at most
    /// once per sample and shared with the other readers that need it).
    pub fn into_cdr_bytes(self) -> Result<CdrBytes, PayloadError> {
        self.0
            .into_cdr_bytes()
            .map_err(|source| PayloadError::Encode {
                type_name: "generic",
                source,
            })
    }
}

/// Type names of foreign values (the payload's type is `&'static str`): one
/// leaked copy per distinct name, however many publishers use it.
fn intern(name: &str) -> &'static str {
    static NAMES: OnceLock<Mutex<HashSet<&'static str>>> = OnceLock::new();
    let mut names = lock(NAMES.get_or_init(Mutex::default));
    if let Some(known) = names.get(name) {
        return known;
    }
    let leaked: &'static str = Box::leak(name.to_owned().into_boxed_str());
    names.insert(leaked);
    leaked
}

impl Publisher<Serialized> {
    /// Publishes a foreign value of the publisher's type, handed over as
    /// it is (see the [module](self) docs). On failure the value has been
    /// dropped (the error's message is `()`).
    pub fn publish_foreign<F: ForeignMessage>(&self, value: F) -> Result<(), PublishError<()>> {
        self.publish_foreign_placed(value, |_| Ok::<(), PublishError<()>>(()))
    }

    /// [`publish_foreign`](Self::publish_foreign), with `place` run on the
    /// value where the sample holds it — its address fixed from then on —
    /// before anything is sent: a binding whose objects cannot be moved
    /// bit by bit (C++'s) constructs its object there, so the sample and
    /// the object are one allocation. When `place` fails nothing is sent,
    /// the value is dropped and `place`'s error comes back.
    pub fn publish_foreign_placed<F, E>(
        &self,
        value: F,
        place: impl FnOnce(&F) -> Result<(), E>,
    ) -> Result<(), E>
    where
        F: ForeignMessage,
        E: From<PublishError<()>>,
    {
        let type_name = *self
            .shared
            .foreign_type
            .get_or_init(|| intern(&self.shared.writer.spec().type_name));
        let payload = Payload::from_foreign(value, type_name);
        if let Some(placed) = payload.foreign_ref::<F>() {
            place(placed)?;
        }
        let written = self.shared.writer.write(payload);
        if written.is_ok() {
            self.shared.events.on_publish();
        }
        written.map_err(|e| {
            E::from(match e {
                WriteError::Timeout { timeout, .. } => PublishError::Timeout {
                    message: (),
                    timeout,
                },
                WriteError::Full { .. } => PublishError::Full { message: () },
                other => PublishError::Transport(other),
            })
        })
    }
}

impl Node {
    /// A generic subscription (see [`create_generic_subscription`](Node::create_generic_subscription))
    /// whose callback gets each sample as a [`ForeignSample`]: a binding
    /// reads the foreign values of its own type published in this process
    /// in place, and takes the CDR bytes of everything else.
    pub fn create_foreign_subscription(
        &self,
        topic: &str,
        type_name: &str,
        options: impl Into<SubscriptionOptions>,
        callback: impl FnMut(ForeignSample, SampleInfo) + Send + 'static,
    ) -> Result<Subscription<Serialized>, SubscriptionCreateError> {
        let mut callback = callback;
        let handler: Handler = Box::new(move |sample| {
            callback(ForeignSample(sample.payload), sample.info);
            Ok(())
        });
        self.generic_subscription(topic, type_name, Some(handler), options.into())
    }
}

//! View subscriptions: the callback reads the message in place, through its
//! generated zero-copy view (`ImageView<'_>`), without decoding it into an
//! owned value.
//!
//! A sample from another process is read where the transport holds it — for
//! shared memory, the publisher's segment, mapped read-only — and stays valid
//! for the callback's duration; nothing is copied, whatever the size. A
//! sample published in this process is encoded once (shared by every view
//! subscription that wants it) and viewed. Strings and primitive arrays are
//! borrowed slices (`PrimSeq::as_slice()`); call `to_owned_message()` on the
//! view to copy when you must keep it.

use hibari_cdr::HasView;
use hibari_transport::{PayloadError, QosProfile, SampleInfo};

use crate::events::SubscriptionOptions;
use crate::node::Node;
use crate::subscription::{Handler, Subscription};
use crate::SubscriptionCreateError;
use std::marker::PhantomData;

impl Node {
    /// Creates a subscription of `M` whose callback gets each sample as
    /// `M::View<'_>` (see [the module](crate::view)), with its info.
    pub fn create_view_subscription<M, F>(
        &self,
        topic: &str,
        qos: QosProfile,
        callback: F,
    ) -> Result<Subscription<M>, SubscriptionCreateError>
    where
        M: HasView,
        F: for<'a> FnMut(M::View<'a>, &SampleInfo) + Send + 'static,
    {
        self.create_view_subscription_with::<M, F>(
            topic,
            qos,
            SubscriptionOptions::default(),
            callback,
        )
    }

    /// [`create_view_subscription`](Node::create_view_subscription) with options.
    pub fn create_view_subscription_with<M, F>(
        &self,
        topic: &str,
        qos: QosProfile,
        options: SubscriptionOptions,
        mut callback: F,
    ) -> Result<Subscription<M>, SubscriptionCreateError>
    where
        M: HasView,
        F: for<'a> FnMut(M::View<'a>, &SampleInfo) + Send + 'static,
    {
        let handler: Handler = Box::new(move |sample| {
            let bytes = sample
                .payload
                .into_cdr_bytes()
                .map_err(|source| PayloadError::Encode {
                    type_name: M::TYPE_NAME,
                    source,
                })?;
            let view = M::view(&bytes).map_err(|source| PayloadError::Decode {
                type_name: M::TYPE_NAME,
                source,
            })?;
            callback(view, &sample.info);
            Ok(())
        });
        let topic = self
            .resolve_topic_name(topic)
            .map_err(SubscriptionCreateError::InvalidTopic)?;
        let spec = hibari_transport::EndpointSpec::new::<M>(topic, qos);
        Ok(Subscription {
            shared: self.subscription_shared(spec, Some(handler), options)?,
            _adapter: PhantomData,
        })
    }
}

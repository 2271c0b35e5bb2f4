//! View subscriptions: the callback reads the message in place, through its
//! generated zero-copy view (`ImageView<'_>`), without decoding it into an
//! owned value.
//!
//! A sample from another process is read where the transport holds it — for
//! shared memory, the publisher's segment, mapped read-only — and stays valid
//! for the callback's duration; arrays are not copied, whatever the size. A
//! sample published in this process is encoded once (shared by every view
//! subscription that wants it) and viewed. Primitive arrays are `PrimSeq`s:
//! a borrowed slice (`as_slice()`) for private bytes; over shared memory,
//! which the publisher could still change, read them with `get`, `iter` or
//! `copy_to_slice` (see the trust model in `docs/architecture.md`). Strings
//! are `Cow<str>`: borrowed, or copied out of shared memory and then
//! checked. Call `to_owned_message()` on the view to copy when you must keep
//! it.

use hibari_cdr::HasView;
use hibari_transport::{PayloadError, SampleInfo};

use crate::node::Node;
use crate::options::SubscriptionOptions;
use crate::topic::subscription::{Handler, Subscription};
use crate::SubscriptionCreateError;
use std::marker::PhantomData;

impl Node {
    /// Creates a subscription of `M` whose callback gets each sample as
    /// `M::View<'_>` (see [the module](crate::view)), with its info.
    /// `options` is a [`QosProfile`](crate::QosProfile) or
    /// [`SubscriptionOptions`].
    pub fn create_view_subscription<M, F>(
        &self,
        topic: &str,
        options: impl Into<SubscriptionOptions>,
        mut callback: F,
    ) -> Result<Subscription<M>, SubscriptionCreateError>
    where
        M: HasView,
        F: for<'a> FnMut(M::View<'a>, &SampleInfo) + Send + 'static,
    {
        let options = options.into();
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
        let spec = hibari_transport::EndpointSpec::new::<M>(topic, options.qos);
        Ok(Subscription {
            shared: self.subscription_shared(spec, Some(handler), options)?,
            _adapter: PhantomData,
        })
    }
}

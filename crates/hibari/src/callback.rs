//! The shapes a subscription callback may take (rclcpp's
//! `AnySubscriptionCallback`), each getting the sample the cheapest way.
//!
//! | closure | gets the message | copies |
//! |---|---|---|
//! | `FnMut(T)` | owned | none when this subscription holds the last reference to the sample (one subscriber); one clone otherwise |
//! | `FnMut(&T)` | borrowed from the sample | none, however many subscribers |
//! | `FnMut(T, SampleInfo)` | owned, with its [`SampleInfo`] | as `FnMut(T)` |
//! | `FnMut(&T, &SampleInfo)` | borrowed, with its [`SampleInfo`] | none |
//!
//! With a [`TypeAdapter`], `T` is the adapter's custom type; a sample
//! published as that type reaches the callback without any conversion.
//!
//! The marker types ([`Owned`], [`Borrowed`], [`OwnedWithInfo`],
//! [`BorrowedWithInfo`]) only tell these shapes apart; they are inferred, so
//! annotate the closure's argument (`|msg: Chatter| …` or `|msg: &Chatter| …`).
//! [`MessageCallback`] is the same for ROS messages; its extra bound is what
//! lets the compiler infer the message type from the annotation alone.

use hibari_transport::{PayloadError, Sample, SampleInfo, TypeAdapter};

use crate::Message;

/// Marks a `FnMut(T)` callback.
pub enum Owned {}
/// Marks a `FnMut(&T)` callback.
pub enum Borrowed {}
/// Marks a `FnMut(T, SampleInfo)` callback.
pub enum OwnedWithInfo {}
/// Marks a `FnMut(&T, &SampleInfo)` callback.
pub enum BorrowedWithInfo {}

/// A closure that can receive samples of `T`; see the [module](self) for the
/// shapes it may take. `Marker` is inferred.
pub trait SubscriptionCallback<T, Marker>: Send + 'static {
    /// Delivers one sample through the adapter `A` (whose custom type is `T`).
    #[doc(hidden)]
    fn deliver<A: TypeAdapter<Custom = T>>(&mut self, sample: Sample) -> Result<(), PayloadError>;
}

impl<T: Clone, F: FnMut(T) + Send + 'static> SubscriptionCallback<T, Owned> for F {
    fn deliver<A: TypeAdapter<Custom = T>>(&mut self, sample: Sample) -> Result<(), PayloadError> {
        self(sample.payload.into_owned::<A>()?);
        Ok(())
    }
}

impl<T: 'static, F: FnMut(&T) + Send + 'static> SubscriptionCallback<T, Borrowed> for F {
    fn deliver<A: TypeAdapter<Custom = T>>(&mut self, sample: Sample) -> Result<(), PayloadError> {
        let shared = sample.payload.into_shared::<A>()?;
        self(&*shared);
        Ok(())
    }
}

impl<T: Clone, F: FnMut(T, SampleInfo) + Send + 'static> SubscriptionCallback<T, OwnedWithInfo>
    for F
{
    fn deliver<A: TypeAdapter<Custom = T>>(&mut self, sample: Sample) -> Result<(), PayloadError> {
        self(sample.payload.into_owned::<A>()?, sample.info);
        Ok(())
    }
}

impl<T: 'static, F: FnMut(&T, &SampleInfo) + Send + 'static>
    SubscriptionCallback<T, BorrowedWithInfo> for F
{
    fn deliver<A: TypeAdapter<Custom = T>>(&mut self, sample: Sample) -> Result<(), PayloadError> {
        let shared = sample.payload.into_shared::<A>()?;
        self(&*shared, &sample.info);
        Ok(())
    }
}

/// A [`SubscriptionCallback`] of a ROS message type `M`: what
/// [`Node::create_subscription`](crate::Node::create_subscription) takes.
/// Implemented for the same closure shapes.
pub trait MessageCallback<M: Message, Marker>: SubscriptionCallback<M, Marker> {}

impl<M: Message, F: FnMut(M) + Send + 'static> MessageCallback<M, Owned> for F {}
impl<M: Message, F: FnMut(&M) + Send + 'static> MessageCallback<M, Borrowed> for F {}
impl<M: Message, F: FnMut(M, SampleInfo) + Send + 'static> MessageCallback<M, OwnedWithInfo> for F {}
impl<M: Message, F: FnMut(&M, &SampleInfo) + Send + 'static> MessageCallback<M, BorrowedWithInfo>
    for F
{
}

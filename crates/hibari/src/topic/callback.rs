//! The shapes a subscription callback may take (rclcpp's
//! `AnySubscriptionCallback`), each getting the sample the cheapest way.
//!
//! | closure | gets the message | copies |
//! |---|---|---|
//! | `FnMut(T)` | owned | none when this subscription holds the last reference to the sample (one subscriber); one clone otherwise |
//! | `FnMut(&T)` | borrowed from the sample | none, however many subscribers; from another process, decoded into a message the subscription keeps (its sequences' buffers reused: no allocation once they are large enough) |
//! | `FnMut(T, SampleInfo)` | owned, with its [`SampleInfo`] | as `FnMut(T)` |
//! | `FnMut(&T, &SampleInfo)` | borrowed, with its [`SampleInfo`] | none |
//!
//! With a [`TypeAdapter`], `T` is the adapter's custom type; a sample
//! published as that type reaches the callback without any conversion.
//!
//! The marker types ([`Owned`], [`Borrowed`], [`OwnedWithInfo`],
//! [`BorrowedWithInfo`]) only tell these shapes apart; they are inferred, so
//! annotate the closure's argument (`|msg: Chatter| …` or `|msg: &Chatter| …`).
//! Without an adapter ([`NoAdapter`], the default of
//! [`SubscriptionOptions`](crate::SubscriptionOptions)) that annotation is
//! also what names the message type; with
//! [`adapter::<A>()`](crate::SubscriptionOptions::adapter) the closure takes
//! `A`'s custom type.
//!
//! The traits are sealed: the closures above are the only implementations.

use hibari_transport::{Payload, PayloadError, Sample, SampleInfo, TypeAdapter};

use crate::Message;

/// Marks a `FnMut(T)` callback.
pub enum Owned {}
/// Marks a `FnMut(&T)` callback.
pub enum Borrowed {}
/// Marks a `FnMut(T, SampleInfo)` callback.
pub enum OwnedWithInfo {}
/// Marks a `FnMut(&T, &SampleInfo)` callback.
pub enum BorrowedWithInfo {}

/// The adapter parameter of [`SubscriptionOptions`](crate::SubscriptionOptions)
/// until one is named: the callback's argument names the message type.
#[derive(Debug)]
pub enum NoAdapter {}

pub(crate) mod sealed {
    use hibari_transport::{PayloadError, Sample, TypeAdapter};

    /// Delivers one sample through the adapter `A`. `kept` is the
    /// subscription's message that borrowed shapes decode serialized samples
    /// into (reusing its buffers); the others leave it alone.
    pub trait Deliver<A: TypeAdapter, Ad, Marker> {
        fn deliver(
            &mut self,
            sample: Sample,
            kept: &mut Option<A::Ros>,
        ) -> Result<(), PayloadError>;
    }
}

/// `sample`'s message for a borrowed callback: a serialized one decoded into
/// `kept` (made on first use), reusing its allocations; a local one shared.
fn with_borrowed<M: Message>(
    sample: Sample,
    kept: &mut Option<M>,
    callback: impl FnOnce(&M, &SampleInfo),
) -> Result<(), PayloadError> {
    match sample.payload {
        Payload::Serialized(bytes) => {
            let m = kept.get_or_insert_with(M::default);
            m.decode_into(bytes.bytes())
                .map_err(|source| PayloadError::Decode {
                    type_name: M::TYPE_NAME,
                    source,
                })?;
            callback(m, &sample.info);
        }
        local => callback(&*local.into_shared::<M>()?, &sample.info),
    }
    Ok(())
}

/// A closure that can receive samples through the adapter `A` (a message type
/// is its own adapter); see the [module](self) for the shapes it may take.
/// `Ad` is the options' adapter parameter, `Marker` the closure's shape; both
/// are inferred. Sealed.
pub trait SubscriptionCallback<A: TypeAdapter, Ad, Marker>:
    sealed::Deliver<A, Ad, Marker> + Send + 'static
{
}

impl<A: TypeAdapter, Ad, Marker, F> SubscriptionCallback<A, Ad, Marker> for F where
    F: sealed::Deliver<A, Ad, Marker> + Send + 'static
{
}

// Each closure shape twice: without an adapter the closure's argument is
// the message `M` itself (which is what names `M`); with the adapter `A` it is
// `A::Custom`.

impl<M: Message, F: FnMut(M) + Send + 'static> sealed::Deliver<M, NoAdapter, Owned> for F {
    fn deliver(&mut self, sample: Sample, _: &mut Option<M>) -> Result<(), PayloadError> {
        self(sample.payload.into_owned::<M>()?);
        Ok(())
    }
}

impl<M: Message, F: FnMut(&M) + Send + 'static> sealed::Deliver<M, NoAdapter, Borrowed> for F {
    fn deliver(&mut self, sample: Sample, kept: &mut Option<M>) -> Result<(), PayloadError> {
        with_borrowed(sample, kept, |m, _| self(m))
    }
}

impl<M: Message, F: FnMut(M, SampleInfo) + Send + 'static>
    sealed::Deliver<M, NoAdapter, OwnedWithInfo> for F
{
    fn deliver(&mut self, sample: Sample, _: &mut Option<M>) -> Result<(), PayloadError> {
        self(sample.payload.into_owned::<M>()?, sample.info);
        Ok(())
    }
}

impl<M: Message, F: FnMut(&M, &SampleInfo) + Send + 'static>
    sealed::Deliver<M, NoAdapter, BorrowedWithInfo> for F
{
    fn deliver(&mut self, sample: Sample, kept: &mut Option<M>) -> Result<(), PayloadError> {
        with_borrowed(sample, kept, |m, info| self(m, info))
    }
}

impl<A: TypeAdapter, F: FnMut(A::Custom) + Send + 'static> sealed::Deliver<A, A, Owned> for F
where
    A::Custom: Clone,
{
    fn deliver(&mut self, sample: Sample, _: &mut Option<A::Ros>) -> Result<(), PayloadError> {
        self(sample.payload.into_owned::<A>()?);
        Ok(())
    }
}

impl<A: TypeAdapter, F: FnMut(&A::Custom) + Send + 'static> sealed::Deliver<A, A, Borrowed> for F {
    fn deliver(&mut self, sample: Sample, _: &mut Option<A::Ros>) -> Result<(), PayloadError> {
        self(&*sample.payload.into_shared::<A>()?);
        Ok(())
    }
}

impl<A: TypeAdapter, F: FnMut(A::Custom, SampleInfo) + Send + 'static>
    sealed::Deliver<A, A, OwnedWithInfo> for F
where
    A::Custom: Clone,
{
    fn deliver(&mut self, sample: Sample, _: &mut Option<A::Ros>) -> Result<(), PayloadError> {
        self(sample.payload.into_owned::<A>()?, sample.info);
        Ok(())
    }
}

impl<A: TypeAdapter, F: FnMut(&A::Custom, &SampleInfo) + Send + 'static>
    sealed::Deliver<A, A, BorrowedWithInfo> for F
{
    fn deliver(&mut self, sample: Sample, _: &mut Option<A::Ros>) -> Result<(), PayloadError> {
        self(&*sample.payload.into_shared::<A>()?, &sample.info);
        Ok(())
    }
}

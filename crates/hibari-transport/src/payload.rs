//! What a sample carries: a value that never left the process, or CDR bytes.
//!
//! # Hand-over without copies
//!
//! A publish wraps the value in one `Arc` ([`Payload::from_value`], the only
//! allocation of an in-process publish). An in-process transport hands that
//! `Arc` to every matched reader. A reader then asks for the value:
//!
//! - [`Payload::into_shared`] borrows it: no copy however many readers share it;
//! - [`Payload::into_owned`] moves it out when this reader holds the last
//!   reference (one reader: a move) and clones it only when others still do.
//!
//! # Type adaptation
//!
//! A [`TypeAdapter`] lets an application publish and subscribe with its own
//! type (`Custom`) that stands for a ROS message (`Ros`). The sample keeps the
//! custom value as published. A reader of the same custom type gets it as is;
//! the conversion to the ROS message runs only when a reader wants the ROS type
//! or the sample must be serialized ([`LocalSample::cdr`]), and then at most
//! once per sample, shared by all who need it; likewise the CDR encoding. Every
//! ROS message is its own (identity) adapter, so plain messages use the same
//! path without any conversion.

use std::any::Any;
use std::fmt;
use std::ops::Deref;
use std::sync::{Arc, OnceLock};

use hibari_cdr::{Bytes, CdrDecodeError, CdrEncodeError, Message};

use crate::cdr_bytes::CdrBytes;
use thiserror::Error;

/// Publishes and subscribes an application type as the ROS message it stands
/// for (rclcpp's `TypeAdapter<Custom, Ros>`).
///
/// ```
/// use hibari_transport::TypeAdapter;
/// # #[derive(Clone, Debug, Default, PartialEq)] struct RosPoint { x: f64, y: f64 }
/// # impl hibari_cdr::Message for RosPoint {
/// #   const TYPE_NAME: &'static str = "my_msgs/msg/Point"; const TYPE_HASH: &'static str = "";
/// #   const DEFINITION: &'static str = "float64 x\nfloat64 y\n";
/// #   fn encode_fields<S: hibari_cdr::CdrSink>(&self, w: &mut hibari_cdr::CdrWriter<S>) -> Result<(), hibari_cdr::CdrEncodeError> { w.write(self.x)?; w.write(self.y) }
/// #   fn decode_fields_into(&mut self, r: &mut hibari_cdr::CdrReader<'_>) -> Result<(), hibari_cdr::CdrDecodeError> { self.x = r.read()?; self.y = r.read()?; Ok(()) }
/// # }
/// struct Point2([f32; 2]);
/// struct Point2Adapter;
/// impl TypeAdapter for Point2Adapter {
///     type Custom = Point2;
///     type Ros = RosPoint;
///     fn to_ros(p: &Point2) -> RosPoint {
///         RosPoint { x: p.0[0].into(), y: p.0[1].into() }
///     }
///     fn from_ros(m: &RosPoint) -> Point2 {
///         Point2([m.x as f32, m.y as f32])
///     }
/// }
/// ```
pub trait TypeAdapter: 'static {
    /// The application's type.
    type Custom: Send + Sync + 'static;
    /// The ROS message it stands for (its name and hash are the topic's type).
    type Ros: Message;

    /// Converts to the ROS message.
    fn to_ros(custom: &Self::Custom) -> Self::Ros;

    /// Converts from the ROS message.
    fn from_ros(ros: &Self::Ros) -> Self::Custom;

    /// Converts an owned value (override to reuse its allocations).
    fn into_ros(custom: Self::Custom) -> Self::Ros {
        Self::to_ros(&custom)
    }

    /// Converts an owned ROS message (override to reuse its allocations).
    fn from_ros_owned(ros: Self::Ros) -> Self::Custom {
        Self::from_ros(&ros)
    }

    /// The value viewed as the ROS message when it already is one (identity
    /// adapters); `None` means "convert".
    fn as_ros(custom: &Self::Custom) -> Option<&Self::Ros> {
        let _ = custom;
        None
    }
}

/// Every ROS message is its own adapter: no conversion ever runs.
impl<M: Message> TypeAdapter for M {
    type Custom = M;
    type Ros = M;

    fn to_ros(custom: &M) -> M {
        custom.clone()
    }
    fn from_ros(ros: &M) -> M {
        ros.clone()
    }
    fn into_ros(custom: M) -> M {
        custom
    }
    fn from_ros_owned(ros: M) -> M {
        ros
    }
    fn as_ros(custom: &M) -> Option<&M> {
        Some(custom)
    }
}

/// A value published in this process, type-erased so that transports need not
/// be generic. Implemented by the cell behind [`Payload::from_value`]; other
/// implementations must keep the same at-most-once guarantees.
pub trait LocalSample: Send + Sync + 'static {
    /// The ROS type name (`pkg/msg/Name`).
    fn type_name(&self) -> &'static str;
    /// The value as published (`&Custom`).
    fn value_any(&self) -> &dyn Any;
    /// The value as the ROS message (`&Ros`): the value itself for plain
    /// messages, else converted on first use and kept (at most once per sample).
    fn ros_any(&self) -> &dyn Any;
    /// The CDR encoding (header included), encoded on first use and kept.
    fn cdr(&self) -> Result<&[u8], CdrEncodeError>;
    /// The length of the CDR encoding (header included), without encoding.
    fn encoded_len(&self) -> Result<usize, CdrEncodeError>;
    /// Encodes straight into `out` (at least [`encoded_len`](Self::encoded_len)
    /// bytes, e.g. a shared-memory loan) and returns the bytes written: the kept
    /// encoding copied if there is one, else encoded in place without keeping it.
    fn encode_into(&self, out: &mut [u8]) -> Result<usize, CdrEncodeError>;
    /// Moves the value into `out` if this is the last reference. `out` is an
    /// `&mut Option<Custom>` (gets the value) or `&mut Option<Ros>` (gets the
    /// ROS message: the kept conversion, or one conversion of the moved
    /// value). Hands the sample back if it is shared or `out` fits neither.
    fn take_into(self: Arc<Self>, out: &mut dyn Any) -> Result<(), Arc<dyn LocalSample>>;
}

struct Cell<A: TypeAdapter> {
    value: A::Custom,
    /// Boxed so that plain messages (never converted) keep a small cell.
    ros: OnceLock<Box<A::Ros>>,
    cdr: OnceLock<Result<Vec<u8>, CdrEncodeError>>,
}

impl<A: TypeAdapter> Cell<A> {
    fn ros(&self) -> &A::Ros {
        match A::as_ros(&self.value) {
            Some(ros) => ros,
            None => self.ros.get_or_init(|| Box::new(A::to_ros(&self.value))),
        }
    }
}

impl<A: TypeAdapter> LocalSample for Cell<A> {
    fn type_name(&self) -> &'static str {
        <A::Ros as Message>::TYPE_NAME
    }
    fn value_any(&self) -> &dyn Any {
        &self.value
    }
    fn ros_any(&self) -> &dyn Any {
        self.ros()
    }
    fn cdr(&self) -> Result<&[u8], CdrEncodeError> {
        match self.cdr.get_or_init(|| self.ros().to_cdr()) {
            Ok(bytes) => Ok(bytes),
            Err(e) => Err(e.clone()),
        }
    }
    fn encoded_len(&self) -> Result<usize, CdrEncodeError> {
        match self.cdr.get() {
            Some(Ok(bytes)) => Ok(bytes.len()),
            Some(Err(e)) => Err(e.clone()),
            None => self.ros().serialized_size(),
        }
    }
    fn encode_into(&self, out: &mut [u8]) -> Result<usize, CdrEncodeError> {
        match self.cdr.get() {
            Some(Ok(bytes)) => copy_into(Bytes::Private(bytes), out),
            Some(Err(e)) => Err(e.clone()),
            None => self.ros().encode_into_slice(out),
        }
    }
    fn take_into(self: Arc<Self>, out: &mut dyn Any) -> Result<(), Arc<dyn LocalSample>> {
        let wants_value = out.is::<Option<A::Custom>>();
        if !wants_value && !out.is::<Option<A::Ros>>() {
            return Err(self);
        }
        let cell = Arc::try_unwrap(self).map_err(|shared| shared as Arc<dyn LocalSample>)?;
        if let Some(slot) = out.downcast_mut::<Option<A::Custom>>() {
            *slot = Some(cell.value);
        } else if let Some(slot) = out.downcast_mut::<Option<A::Ros>>() {
            *slot = Some(match cell.ros.into_inner() {
                Some(ros) => *ros,
                None => A::into_ros(cell.value),
            });
        }
        Ok(())
    }
}

/// The payload of a sample. Cloning shares it (an `Arc` increment).
#[derive(Clone)]
pub enum Payload {
    /// A value that never left this process.
    Local(Arc<dyn LocalSample>),
    /// CDR bytes (from another process, or written by a bridge or recorder).
    Serialized(CdrBytes),
}

impl fmt::Debug for Payload {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Payload::Local(s) => write!(f, "Payload::Local({})", s.type_name()),
            Payload::Serialized(b) => write!(f, "Payload::Serialized({b:?})"),
        }
    }
}

/// Why a payload could not be read as the requested type.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum PayloadError {
    /// A local sample of another ROS type: the endpoints were matched with a
    /// type they do not share (a transport bug, or a wrong adapter).
    #[error("the sample is a `{found}`, not a `{expected}`: subscribe with the topic's type")]
    TypeMismatch {
        /// The type asked for.
        expected: &'static str,
        /// The sample's type.
        found: &'static str,
    },
    /// A local sample could not be encoded for a reader that wants bytes.
    #[error("the sample cannot be encoded as a `{type_name}`: {source}")]
    Encode {
        /// The type asked for.
        type_name: &'static str,
        /// What the encoder found.
        source: CdrEncodeError,
    },
    /// The bytes are not a valid encoding of the type.
    #[error("the sample's CDR bytes are not a valid `{type_name}`: {source}")]
    Decode {
        /// The type asked for.
        type_name: &'static str,
        /// What the decoder found.
        source: CdrDecodeError,
    },
}

impl Payload {
    /// Wraps a value published in this process: one allocation, no copy, no
    /// conversion, no encoding. `A` is the publisher's adapter (a plain
    /// message is its own: `Payload::from_value::<Image>(image)`).
    pub fn from_value<A: TypeAdapter>(value: A::Custom) -> Self {
        Payload::Local(Arc::new(Cell::<A> {
            value,
            ros: OnceLock::new(),
            cdr: OnceLock::new(),
        }))
    }

    /// [`from_value`](Payload::from_value) for a plain message.
    pub fn from_message<M: Message>(message: M) -> Self {
        Self::from_value::<M>(message)
    }

    /// The CDR bytes: the bytes themselves (private, or shared memory), or a
    /// local sample's encoding (private; encoded at most once per sample,
    /// shared by every caller).
    pub fn cdr(&self) -> Result<Bytes<'_>, CdrEncodeError> {
        match self {
            Payload::Local(s) => s.cdr().map(Bytes::Private),
            Payload::Serialized(b) => Ok(b.bytes()),
        }
    }

    /// The length of [`cdr`](Payload::cdr), computed without encoding.
    pub fn encoded_len(&self) -> Result<usize, CdrEncodeError> {
        match self {
            Payload::Local(s) => s.encoded_len(),
            Payload::Serialized(b) => Ok(b.len()),
        }
    }

    /// Writes the CDR bytes into `out` (at least [`encoded_len`](Payload::encoded_len)
    /// bytes) and returns how many were written: a local sample is encoded
    /// straight into `out` (the one serialization of a shared-memory publish),
    /// bytes are copied.
    pub fn encode_into(&self, out: &mut [u8]) -> Result<usize, CdrEncodeError> {
        match self {
            Payload::Local(s) => s.encode_into(out),
            Payload::Serialized(b) => copy_into(b.bytes(), out),
        }
    }

    /// The CDR bytes as a shareable buffer: the bytes themselves, or a local
    /// sample's encoding (made at most once per sample and kept in the
    /// sample, not copied).
    pub fn into_cdr_bytes(self) -> Result<CdrBytes, CdrEncodeError> {
        match self {
            Payload::Serialized(b) => Ok(b),
            Payload::Local(sample) => {
                sample.cdr()?;
                Ok(CdrBytes::new(Arc::new(EncodedLocal(sample))))
            }
        }
    }

    /// The value as `A::Custom`, owned: moved out when this is the last
    /// reference, else cloned (or converted from the shared ROS message);
    /// decoded from bytes.
    pub fn into_owned<A: TypeAdapter>(self) -> Result<A::Custom, PayloadError>
    where
        A::Custom: Clone,
    {
        match self {
            Payload::Serialized(bytes) => decode::<A>(&bytes).map(A::from_ros_owned),
            Payload::Local(sample) => {
                if sample.value_any().is::<A::Custom>() {
                    let mut out: Option<A::Custom> = None;
                    return Ok(match sample.take_into(&mut out) {
                        Ok(()) => out.expect("take_into filled the slot"),
                        Err(shared) => downcast::<A::Custom>(shared.value_any()).clone(),
                    });
                }
                let mut out: Option<A::Ros> = None;
                match sample.take_into(&mut out) {
                    Ok(()) => Ok(A::from_ros_owned(out.expect("take_into filled the slot"))),
                    Err(shared) => match shared.ros_any().downcast_ref::<A::Ros>() {
                        Some(ros) => Ok(A::from_ros(ros)),
                        None => decode_local::<A>(&*shared).map(A::from_ros_owned),
                    },
                }
            }
        }
    }

    /// The value as `A::Custom`, borrowed: shared with the other readers
    /// without a copy when it is the published type or the ROS type;
    /// converted (from the shared ROS message) or decoded otherwise.
    pub fn into_shared<A: TypeAdapter>(self) -> Result<Shared<A::Custom>, PayloadError> {
        match self {
            Payload::Serialized(bytes) => {
                decode::<A>(&bytes).map(|ros| Shared(Inner::Owned(A::from_ros_owned(ros))))
            }
            Payload::Local(sample) => {
                if sample.value_any().is::<A::Custom>() {
                    Ok(Shared(Inner::Value(sample)))
                } else if sample.ros_any().is::<A::Custom>() {
                    Ok(Shared(Inner::Ros(sample)))
                } else if let Some(ros) = sample.ros_any().downcast_ref::<A::Ros>() {
                    Ok(Shared(Inner::Owned(A::from_ros(ros))))
                } else {
                    decode_local::<A>(&*sample)
                        .map(|ros| Shared(Inner::Owned(A::from_ros_owned(ros))))
                }
            }
        }
    }
}

/// A local sample whose encoding is known to be kept.
struct EncodedLocal(Arc<dyn LocalSample>);

impl AsRef<[u8]> for EncodedLocal {
    fn as_ref(&self) -> &[u8] {
        // Checked before wrapping: the kept encoding is `Ok`.
        self.0.cdr().unwrap_or_default()
    }
}

pub(crate) fn copy_into(bytes: Bytes<'_>, out: &mut [u8]) -> Result<usize, CdrEncodeError> {
    let capacity = out.len();
    let dst = out
        .get_mut(..bytes.len())
        .ok_or(CdrEncodeError::BufferTooSmall {
            needed: bytes.len(),
            capacity,
        })?;
    bytes.copy_to_slice(dst);
    Ok(bytes.len())
}

fn decode<A: TypeAdapter>(bytes: &CdrBytes) -> Result<A::Ros, PayloadError> {
    A::Ros::from_cdr(bytes).map_err(|source| PayloadError::Decode {
        type_name: <A::Ros as Message>::TYPE_NAME,
        source,
    })
}

/// A local sample of `A`'s ROS type held in another representation (a
/// foreign value: see `ForeignMessage`), decoded from its encoding; a
/// sample of another type is a mismatch.
fn decode_local<A: TypeAdapter>(sample: &dyn LocalSample) -> Result<A::Ros, PayloadError> {
    let type_name = <A::Ros as Message>::TYPE_NAME;
    if sample.type_name() != type_name {
        return Err(mismatch::<A>(sample));
    }
    let bytes = sample
        .cdr()
        .map_err(|source| PayloadError::Encode { type_name, source })?;
    A::Ros::from_cdr(bytes).map_err(|source| PayloadError::Decode { type_name, source })
}

fn mismatch<A: TypeAdapter>(sample: &dyn LocalSample) -> PayloadError {
    PayloadError::TypeMismatch {
        expected: <A::Ros as Message>::TYPE_NAME,
        found: sample.type_name(),
    }
}

fn downcast<T: 'static>(any: &dyn Any) -> &T {
    any.downcast_ref::<T>()
        .expect("the variant was chosen after checking the type")
}

/// A value shared with the other readers of the same sample (no copy), or
/// owned when it had to be converted or decoded. Dereferences to `T`.
pub struct Shared<T: 'static>(Inner<T>);

enum Inner<T> {
    Value(Arc<dyn LocalSample>),
    Ros(Arc<dyn LocalSample>),
    Owned(T),
}

impl<T: 'static> Shared<T> {
    /// Whether this reader holds its own copy (converted or decoded) rather
    /// than sharing the published sample.
    pub fn is_owned(&self) -> bool {
        matches!(self.0, Inner::Owned(_))
    }
}

impl<T: 'static> Deref for Shared<T> {
    type Target = T;
    fn deref(&self) -> &T {
        match &self.0 {
            Inner::Value(s) => downcast(s.value_any()),
            Inner::Ros(s) => downcast(s.ros_any()),
            Inner::Owned(v) => v,
        }
    }
}

impl<T: fmt::Debug + 'static> fmt::Debug for Shared<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        (**self).fmt(f)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use hibari_cdr::{CdrReader, CdrSink, CdrWriter};

    /// A message of bytes (also used by the foreign values' tests).
    #[derive(Clone, Debug, Default, PartialEq)]
    pub(crate) struct Word(pub(crate) Vec<u8>);

    impl Message for Word {
        const TYPE_NAME: &'static str = "t/msg/Word";
        const TYPE_HASH: &'static str = "";
        const DEFINITION: &'static str = "uint8[] data\n";
        fn encode_fields<S: CdrSink>(&self, w: &mut CdrWriter<S>) -> Result<(), CdrEncodeError> {
            w.write_prim_seq("data", &self.0, None)
        }
        fn decode_fields_into(&mut self, r: &mut CdrReader<'_>) -> Result<(), CdrDecodeError> {
            r.read_prim_vec_into(&mut self.0)
        }
    }

    /// A message of another type.
    #[derive(Clone, Debug, Default, PartialEq)]
    pub(crate) struct Other;

    impl Message for Other {
        const TYPE_NAME: &'static str = "t/msg/Other";
        const TYPE_HASH: &'static str = "";
        const DEFINITION: &'static str = "";
        fn encode_fields<S: CdrSink>(&self, _: &mut CdrWriter<S>) -> Result<(), CdrEncodeError> {
            Ok(())
        }
        fn decode_fields_into(&mut self, _: &mut CdrReader<'_>) -> Result<(), CdrDecodeError> {
            Ok(())
        }
    }

    #[test]
    fn the_last_reference_moves_and_a_shared_one_clones() {
        let w = Word(vec![1; 64]);
        let ptr = w.0.as_ptr();
        let p = Payload::from_message(w);
        let q = p.clone();
        let copy = p.into_owned::<Word>().unwrap();
        assert_ne!(copy.0.as_ptr(), ptr, "shared: cloned");
        assert_eq!(
            q.into_owned::<Word>().unwrap().0.as_ptr(),
            ptr,
            "last: moved"
        );
    }

    #[test]
    fn a_local_sample_is_encoded_once_and_decodes_back() {
        let p = Payload::from_message(Word(b"abc".to_vec()));
        let a = p.cdr().unwrap().as_ptr();
        assert_eq!(p.cdr().unwrap().as_ptr(), a);
        let bytes = Payload::Serialized(p.cdr().unwrap().to_vec().into());
        assert_eq!(*bytes.into_shared::<Word>().unwrap(), Word(b"abc".to_vec()));
    }

    #[test]
    fn encode_into_writes_the_same_bytes_in_place_or_refuses_a_short_buffer() {
        let expected = Word(vec![7; 100]).to_cdr().unwrap();
        for payload in [
            Payload::from_message(Word(vec![7; 100])),
            Payload::Serialized(expected.clone().into()),
        ] {
            assert_eq!(payload.encoded_len().unwrap(), expected.len());
            let mut out = vec![0u8; expected.len() + 8];
            let n = payload.encode_into(&mut out).unwrap();
            assert_eq!(&out[..n], &expected[..]);
            // After `cdr()` kept the encoding, the copy gives the same bytes.
            payload.cdr().unwrap();
            assert_eq!(payload.encoded_len().unwrap(), expected.len());
            let n = payload.encode_into(&mut out).unwrap();
            assert_eq!(&out[..n], &expected[..]);
            let mut short = vec![0u8; expected.len() - 1];
            assert!(matches!(
                payload.encode_into(&mut short),
                Err(CdrEncodeError::BufferTooSmall { .. })
            ));
        }
    }

    #[test]
    fn into_cdr_bytes_shares_the_kept_encoding() {
        let p = Payload::from_message(Word(vec![3; 10]));
        let kept = p.cdr().unwrap().as_ptr();
        let bytes = p.clone().into_cdr_bytes().unwrap();
        assert_eq!(bytes.as_ptr(), kept);
        assert_eq!(Word::from_cdr(&bytes).unwrap(), Word(vec![3; 10]));
    }

    #[test]
    fn the_wrong_type_or_bad_bytes_are_errors_not_panics() {
        let p = Payload::from_message(Word(vec![]));
        assert_eq!(
            p.into_shared::<Other>().unwrap_err(),
            PayloadError::TypeMismatch {
                expected: "t/msg/Other",
                found: "t/msg/Word"
            }
        );
        let bad = Payload::Serialized(vec![0, 1, 0, 0, 9, 0, 0, 0].into());
        let err = bad.into_owned::<Word>().unwrap_err();
        assert!(
            matches!(
                err,
                PayloadError::Decode {
                    type_name: "t/msg/Word",
                    ..
                }
            ),
            "{err}"
        );
    }
}

//! Values of another language's message types, handed over in this process.
//!
//! A C++ program publishing a `sensor_msgs::msg::Image` through hibari's C
//! ABI owns an object Rust cannot read. Serializing it for the subscribers
//! of its own process would cost what in-process hand-over exists to avoid,
//! so the object rides in the sample as it is, with the two functions that
//! encode it: [`ForeignMessage`]. A subscriber that knows the object's type
//! (the same C++ program) reads it in place
//! ([`Payload::foreign_ref`]); every other reader — a Rust subscription, a
//! shared-memory writer serving other processes, a recorder — gets its CDR
//! encoding, made at most once per sample (or written straight into a
//! shared-memory loan), exactly as for a Rust value.

use std::any::Any;
use std::sync::{Arc, OnceLock};

use hibari_cdr::{Bytes, CdrEncodeError};

use crate::payload::{copy_into, LocalSample, Payload};

/// A message value owned by code in another language, published in this
/// process. Its encoder must produce the CDR of the topic's type (4-byte
/// encapsulation header included); the value is dropped (on any thread)
/// when the last reader lets go of the sample.
pub trait ForeignMessage: Send + Sync + 'static {
    /// The exact length of the encoding, header included.
    fn encoded_len(&self) -> Result<usize, CdrEncodeError>;
    /// Encodes into `out` and returns the bytes written; an `out` shorter
    /// than [`encoded_len`](Self::encoded_len) is
    /// [`BufferTooSmall`](CdrEncodeError::BufferTooSmall), a longer one is
    /// written at its start.
    fn encode_into(&self, out: &mut [u8]) -> Result<usize, CdrEncodeError>;
}

struct ForeignCell<F> {
    value: F,
    type_name: &'static str,
    cdr: OnceLock<Result<Vec<u8>, CdrEncodeError>>,
}

impl<F: ForeignMessage> ForeignCell<F> {
    fn encode(&self) -> Result<Vec<u8>, CdrEncodeError> {
        let len = self.value.encoded_len()?;
        let mut out = Vec::new();
        out.try_reserve_exact(len).map_err(|_| {
            CdrEncodeError::Foreign(format!("no memory for an encoding of {len} bytes"))
        })?;
        out.resize(len, 0);
        let written = self.value.encode_into(&mut out)?;
        out.truncate(written);
        Ok(out)
    }
}

impl<F: ForeignMessage> LocalSample for ForeignCell<F> {
    fn type_name(&self) -> &'static str {
        self.type_name
    }
    fn value_any(&self) -> &dyn Any {
        &self.value
    }
    /// No Rust type stands for it: readers of a Rust type decode its CDR
    /// (see `Payload::into_owned`).
    fn ros_any(&self) -> &dyn Any {
        &self.value
    }
    fn cdr(&self) -> Result<&[u8], CdrEncodeError> {
        match self.cdr.get_or_init(|| self.encode()) {
            Ok(bytes) => Ok(bytes),
            Err(e) => Err(e.clone()),
        }
    }
    fn encoded_len(&self) -> Result<usize, CdrEncodeError> {
        match self.cdr.get() {
            Some(Ok(bytes)) => Ok(bytes.len()),
            Some(Err(e)) => Err(e.clone()),
            None => self.value.encoded_len(),
        }
    }
    fn encode_into(&self, out: &mut [u8]) -> Result<usize, CdrEncodeError> {
        match self.cdr.get() {
            Some(Ok(bytes)) => copy_into(Bytes::Private(bytes), out),
            Some(Err(e)) => Err(e.clone()),
            None => self.value.encode_into(out),
        }
    }
    /// A foreign value is never moved out: its readers borrow it.
    fn take_into(self: Arc<Self>, _out: &mut dyn Any) -> Result<(), Arc<dyn LocalSample>> {
        Err(self)
    }
}

impl Payload {
    /// Wraps a foreign value of the ROS type `type_name` (one allocation, no
    /// copy, no encoding until a reader needs bytes).
    pub fn from_foreign<F: ForeignMessage>(value: F, type_name: &'static str) -> Self {
        Payload::Local(Arc::new(ForeignCell {
            value,
            type_name,
            cdr: OnceLock::new(),
        }))
    }

    /// The foreign value, borrowed, if this is a sample of one of type `F`.
    pub fn foreign_ref<F: ForeignMessage>(&self) -> Option<&F> {
        match self {
            Payload::Local(s) => s.value_any().downcast_ref::<F>(),
            Payload::Serialized(_) => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use hibari_cdr::Message;

    use super::*;
    use crate::payload::tests::{Other, Word};
    use crate::PayloadError;

    /// A "foreign" word: encodes as `Word`, counts its encodings.
    struct Alien {
        text: &'static str,
        encodings: AtomicUsize,
    }

    impl Alien {
        fn word(&self) -> Word {
            Word(self.text.as_bytes().to_vec())
        }
    }

    impl ForeignMessage for Alien {
        fn encoded_len(&self) -> Result<usize, CdrEncodeError> {
            self.word().serialized_size()
        }
        fn encode_into(&self, out: &mut [u8]) -> Result<usize, CdrEncodeError> {
            self.encodings.fetch_add(1, Ordering::SeqCst);
            self.word().encode_into_slice(out)
        }
    }

    fn alien(text: &'static str) -> Payload {
        let value = Alien {
            text,
            encodings: AtomicUsize::new(0),
        };
        Payload::from_foreign(value, "t/msg/Word")
    }

    fn word(text: &str) -> Word {
        Word(text.as_bytes().to_vec())
    }

    #[test]
    fn readers_of_the_foreign_type_borrow_it_and_rust_readers_decode_it() {
        let p = alien("hi");
        assert_eq!(p.foreign_ref::<Alien>().map(|a| a.text), Some("hi"));
        let shared = p.clone().into_shared::<Word>().unwrap();
        assert!(shared.is_owned());
        assert_eq!(*shared, word("hi"));
        assert_eq!(p.clone().into_owned::<Word>().unwrap(), word("hi"));
        let bytes = p.clone().into_cdr_bytes().unwrap();
        assert_eq!(Word::from_cdr(&bytes).unwrap(), word("hi"));
        let encodings = &p.foreign_ref::<Alien>().unwrap().encodings;
        assert_eq!(encodings.load(Ordering::SeqCst), 1, "encoded once, shared");
    }

    #[test]
    fn a_foreign_value_is_encoded_into_a_buffer_and_refuses_other_types() {
        let p = alien("into");
        let mut buf = vec![0u8; p.encoded_len().unwrap()];
        let n = p.encode_into(&mut buf).unwrap();
        assert_eq!(Word::from_cdr(&buf[..n]).unwrap(), word("into"));
        let small = p.encode_into(&mut [0u8; 3]);
        assert!(matches!(small, Err(CdrEncodeError::BufferTooSmall { .. })));
        let wrong = p.into_owned::<Other>();
        assert!(matches!(wrong, Err(PayloadError::TypeMismatch { .. })));
    }
}

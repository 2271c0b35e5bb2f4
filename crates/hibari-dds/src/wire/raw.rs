//! hibari's CDR bytes through RustDDS without a second serializer.
//!
//! A DDS serialized payload is a 4-byte encapsulation header (representation
//! id, options) and the body. hibari's CDR bytes already have that header.
//! RustDDS writes the header itself from the adapter's `output_encoding()`,
//! which it calls right after `to_bytes()` on the writing thread; `to_bytes`
//! hands RustDDS the body after hibari's header, as a slice of the same
//! buffer (no copy for a local sample's encoding), and notes the header's
//! representation id for `output_encoding` in a thread-local, so the
//! header goes out as it came (little or big endian). The
//! reader gets the body and the representation id and puts a header back in
//! front (one copy into the sample's buffer); hibari's bounds-checked
//! decoders then read it. Only plain CDR (XCDR1, either byte order) is
//! accepted; anything else is dropped by RustDDS as an unsupported encoding.

use std::cell::Cell;
use std::convert::Infallible;

use rustdds::bytes::Bytes;
use rustdds::no_key::{Decode, DefaultDecoder, DeserializerAdapter, SerializerAdapter};
use rustdds::RepresentationIdentifier;

/// One sample's CDR bytes, header included.
#[derive(Clone, Debug)]
pub struct RawCdr(pub Bytes);

/// The length of the encapsulation header.
pub const HEADER_LEN: usize = 4;

/// Whether `cdr` starts with a plain CDR header (`00 01` little endian or
/// `00 00` big endian), the only encodings a writer sends.
pub fn is_plain_cdr(cdr: &[u8]) -> bool {
    cdr.len() >= HEADER_LEN && cdr[0] == 0 && cdr[1] <= 1
}

thread_local! {
    /// The representation id of the sample `to_bytes` last saw on this thread.
    static ENCODING: Cell<RepresentationIdentifier> = const { Cell::new(RepresentationIdentifier::CDR_LE) };
}

/// The (de)serializer adapter for [`RawCdr`].
pub struct RawAdapter;

impl SerializerAdapter<RawCdr> for RawAdapter {
    type Error = Infallible;

    fn output_encoding() -> RepresentationIdentifier {
        ENCODING.with(Cell::get)
    }

    fn to_bytes(value: &RawCdr) -> Result<Bytes, Infallible> {
        // The writer checked the header (`is_plain_cdr`); the body follows it.
        let big_endian = value.0.get(1) == Some(&0);
        ENCODING.with(|e| {
            e.set(if big_endian {
                RepresentationIdentifier::CDR_BE
            } else {
                RepresentationIdentifier::CDR_LE
            })
        });
        Ok(value.0.slice(HEADER_LEN.min(value.0.len())..))
    }
}

impl DeserializerAdapter<RawCdr> for RawAdapter {
    type Error = Infallible;
    type Decoded = RawCdr;

    fn supported_encodings() -> &'static [RepresentationIdentifier] {
        &[
            RepresentationIdentifier::CDR_LE,
            RepresentationIdentifier::CDR_BE,
        ]
    }

    fn transform_decoded(decoded: RawCdr) -> RawCdr {
        decoded
    }
}

impl DefaultDecoder<RawCdr> for RawAdapter {
    type Decoder = RawDecoder;
    const DECODER: RawDecoder = RawDecoder;
}

/// Puts the encapsulation header back in front of a received body.
#[derive(Clone, Copy)]
pub struct RawDecoder;

impl<'de> Decode<'de, RawCdr> for RawDecoder {
    type Error = Infallible;

    fn decode_bytes(
        self,
        input_bytes: &'de [u8],
        encoding: RepresentationIdentifier,
    ) -> Result<RawCdr, Infallible> {
        let mut cdr = Vec::with_capacity(HEADER_LEN + input_bytes.len());
        cdr.extend_from_slice(&encoding.to_bytes());
        cdr.extend_from_slice(&[0, 0]);
        cdr.extend_from_slice(input_bytes);
        Ok(RawCdr(Bytes::from(cdr)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_body_goes_out_and_comes_back_with_its_header() {
        let cdr = vec![0, 1, 0, 0, 5, 0, 0, 0, b'h', b'i', 0, 0];
        assert!(is_plain_cdr(&cdr));
        let body = RawAdapter::to_bytes(&RawCdr(Bytes::from(cdr.clone()))).unwrap();
        assert_eq!(&body[..], &cdr[4..]);
        assert_eq!(
            RawAdapter::output_encoding(),
            RepresentationIdentifier::CDR_LE
        );
        RawAdapter::to_bytes(&RawCdr(Bytes::from(vec![0, 0, 0, 0, 1]))).unwrap();
        assert_eq!(
            RawAdapter::output_encoding(),
            RepresentationIdentifier::CDR_BE
        );
        let back = RawDecoder
            .decode_bytes(&body, RepresentationIdentifier::CDR_LE)
            .unwrap();
        assert_eq!(&back.0[..], &cdr[..]);
        assert!(is_plain_cdr(&[0, 0, 0, 0]));
        assert!(!is_plain_cdr(&[0, 2, 0, 0]));
        assert!(!is_plain_cdr(&[0, 1]));
    }
}

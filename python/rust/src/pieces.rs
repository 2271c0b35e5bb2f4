//! The pieces of an encoded message and their final copy.
//!
//! [`Encoded`](crate::encode::Encoded) leaves a gap in its skeleton for each
//! big array; the copy that makes the CDR bytes ([`assemble`] into a new
//! buffer, [`assemble_into`] into lent memory) runs without the GIL. A
//! loan's *hole* is a gap whose bytes are not copied at all: they are the
//! array the application fills in place.

use hibari::interfaces::Primitive;

/// One big array's place in the final bytes: at `at` in the skeleton, the
/// `bytes` to copy there, or `None` for a hole of `len` bytes left as it is.
pub(crate) struct Piece<'a> {
    pub at: usize,
    pub bytes: Option<&'a [u8]>,
    pub len: usize,
}

/// The array field a loan leaves as a hole (see [`Encoded::encode_with_hole`](crate::encode::Encoded::encode_with_hole)).
#[derive(Clone, Copy)]
pub(crate) struct HoleSpec<'a> {
    /// The top-level field's name.
    pub field: &'a str,
    /// Its number of elements.
    pub count: usize,
}

/// Where the hole ended up: `bytes` bytes of `element` at `offset` of the
/// final bytes.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) struct HolePlace {
    pub offset: usize,
    pub bytes: usize,
    pub element: Primitive,
}

/// Copies the skeleton and the big arrays into `out` (one pass, no GIL
/// needed): the CDR bytes of the message (which has no hole).
pub(crate) fn assemble(skeleton: &[u8], pieces: &[Piece<'_>], out: &mut Vec<u8>) {
    let mut from = 0;
    for p in pieces {
        out.extend_from_slice(&skeleton[from..p.at]);
        out.extend_from_slice(p.bytes.unwrap_or_default());
        from = p.at;
    }
    out.extend_from_slice(&skeleton[from..]);
}

/// Copies the skeleton and the big arrays into `out`, exactly the final
/// length long (lent memory), leaving a hole's bytes as they are.
pub(crate) fn assemble_into(skeleton: &[u8], pieces: &[Piece<'_>], out: &mut [u8]) {
    let (mut from, mut to) = (0, 0);
    let mut put = |to: &mut usize, bytes: &[u8]| {
        out[*to..*to + bytes.len()].copy_from_slice(bytes);
        *to += bytes.len();
    };
    for p in pieces {
        put(&mut to, &skeleton[from..p.at]);
        match p.bytes {
            Some(bytes) => put(&mut to, bytes),
            None => to += p.len,
        }
        from = p.at;
    }
    put(&mut to, &skeleton[from..]);
}

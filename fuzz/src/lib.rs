//! Shared pieces of hibari's fuzz targets (see `fuzz/README.md`).
//!
//! Every target reads its input the same way: the first two bytes (a
//! little-endian `u16`, taken modulo the list's length) pick a type from
//! [`hibari_msgs::jazzy::TYPE_NAMES`]; the rest is the payload (CDR bytes, or
//! JSON text for `json_decode`). Seeds in `fuzz/seeds/` use that layout.
//!
//! # `unsafe`
//!
//! hibari allows `unsafe` only in its shared-memory crate. The one exception
//! here is the allocation guard, [`GuardAlloc`]: a global allocator must
//! `unsafe impl GlobalAlloc`. It only forwards to `System`, and the allow is
//! on that impl alone; the rest of the crate and every target forbid it.
#![deny(unsafe_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use hibari_cdr::{CdrDecodeError, CdrEncodeError, HasView, TypeVisitor};
use hibari_msgs::jazzy::TYPE_NAMES;

/// Splits an input into the type it names and its payload.
pub fn split(data: &[u8]) -> Option<(&'static str, &[u8])> {
    let (idx, rest) = data.split_first_chunk::<2>()?;
    let i = u16::from_le_bytes(*idx) as usize % TYPE_NAMES.len();
    Some((TYPE_NAMES[i], rest))
}

/// The input prefix that selects `name` (for writing seeds).
pub fn prefix(name: &str) -> [u8; 2] {
    let i = TYPE_NAMES
        .iter()
        .position(|n| *n == name)
        .unwrap_or_else(|| panic!("{name} is not in jazzy::TYPE_NAMES"));
    (i as u16).to_le_bytes()
}

// --- allocation guard ---------------------------------------------------------

/// The global allocator of every target: `System` (so ASan still sees every
/// allocation), recording the largest single request so a decoder that sizes
/// an allocation from an unchecked length is caught even when the request is
/// below libFuzzer's absolute `-malloc_limit_mb`.
pub struct GuardAlloc;

static LARGEST: AtomicUsize = AtomicUsize::new(0);

#[global_allocator]
static GLOBAL: GuardAlloc = GuardAlloc;

// SAFETY: every method forwards its arguments unchanged to `System`, which
// upholds `GlobalAlloc`'s contract; recording a size has no effect on it.
#[allow(unsafe_code)]
unsafe impl GlobalAlloc for GuardAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LARGEST.fetch_max(layout.size(), Ordering::Relaxed);
        System.alloc(layout)
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        LARGEST.fetch_max(layout.size(), Ordering::Relaxed);
        System.alloc_zeroed(layout)
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout)
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        LARGEST.fetch_max(new_size, Ordering::Relaxed);
        System.realloc(ptr, layout, new_size)
    }
}

/// The largest single allocation a decoder may make for `input_len` bytes:
/// proportional to the input (a decoded tree is bigger than its bytes: a
/// 1-byte empty message becomes a 32-byte `Value`, a 4-byte empty string a
/// 24-byte `String`), never to a length field read from it.
pub fn alloc_limit(input_len: usize) -> usize {
    64 * input_len + (64 << 10)
}

/// Runs `f` (a decode) and panics if any single allocation it made exceeded
/// [`alloc_limit`] of `input_len`.
pub fn guarded<R>(what: &str, input_len: usize, f: impl FnOnce() -> R) -> R {
    LARGEST.store(0, Ordering::Relaxed);
    let r = f();
    let largest = LARGEST.load(Ordering::Relaxed);
    let limit = alloc_limit(input_len);
    assert!(
        largest <= limit,
        "{what}: one allocation of {largest} bytes for a {input_len}-byte input \
         (limit {limit}): sized by an unchecked length?"
    );
    r
}

// --- typed helpers ------------------------------------------------------------

/// Encode errors a successfully decoded message may legitimately hit: decoding
/// accepts out-of-bound strings/sequences (interop.md §1.5, "accept on read"),
/// and a string whose bytes hold a NUL before the terminator, which CDR
/// writers refuse. Anything else means decode produced a value encode rejects.
pub fn reencode_error_ok(e: &CdrEncodeError) -> bool {
    matches!(
        e,
        CdrEncodeError::BoundExceeded { .. } | CdrEncodeError::NulInString { .. }
    )
}

/// Typed decode of `bytes`, then re-encode: `Err` if decoding failed, else the
/// encoding (which may itself fail with an error [`reencode_error_ok`] allows).
pub type TypedOutcome = Result<Result<Vec<u8>, CdrEncodeError>, CdrDecodeError>;

/// [`TypeVisitor`] that decodes with the generated type and re-encodes.
pub struct TypedReencode<'a>(pub &'a [u8]);

impl TypeVisitor for TypedReencode<'_> {
    type Output = TypedOutcome;
    fn visit<M: HasView>(self) -> TypedOutcome {
        let m = guarded(M::TYPE_NAME, self.0.len(), || M::from_cdr(self.0))?;
        Ok(m.to_cdr())
    }
}

/// Typed decode and re-encode of `bytes` as the bundled Jazzy type `name`.
pub fn typed_reencode(name: &str, bytes: &[u8]) -> TypedOutcome {
    hibari_msgs::jazzy::visit_type(name, TypedReencode(bytes))
        .unwrap_or_else(|| panic!("visit_type does not know {name}, listed in TYPE_NAMES"))
}

/// Short hex of a byte string for assertion messages.
pub fn hex(b: &[u8]) -> String {
    const SHOWN: usize = 256;
    let mut s: String = b.iter().take(SHOWN).map(|x| format!("{x:02x}")).collect();
    if b.len() > SHOWN {
        s.push_str(&format!("…(+{} bytes)", b.len() - SHOWN));
    }
    s
}

// --- dynamic helpers ----------------------------------------------------------

/// `a == b`, except that any NaN equals any NaN (other floats are compared
/// bit for bit, so `-0.0` and `0.0` still differ).
pub fn same_up_to_nan_payload(a: &hibari_dynamic::Value, b: &hibari_dynamic::Value) -> bool {
    use hibari_dynamic::Value as V;
    fn f64_same(x: f64, y: f64) -> bool {
        (x.is_nan() && y.is_nan()) || x.to_bits() == y.to_bits()
    }
    fn f32_same(x: f32, y: f32) -> bool {
        (x.is_nan() && y.is_nan()) || x.to_bits() == y.to_bits()
    }
    match (a, b) {
        (V::Float(x), V::Float(y)) => f64_same(*x, *y),
        (V::F32s(x), V::F32s(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| f32_same(*x, *y))
        }
        (V::F64s(x), V::F64s(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| f64_same(*x, *y))
        }
        (V::Array(x), V::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same_up_to_nan_payload(x, y))
        }
        (V::Message(x), V::Message(y)) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y.iter())
                    .all(|((n, x), (m, y))| n == m && same_up_to_nan_payload(x, y))
        }
        _ => a == b,
    }
}

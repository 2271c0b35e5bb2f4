//! [`ViewStr`]: a string field of a message view.
//!
//! Read from private bytes, a view's string borrows them. Read from shared
//! memory (a publisher's chunk, which its process could still change) it
//! must be copied before its UTF-8 is checked; a string of up to
//! [`ViewStr::INLINE`] bytes — a `frame_id`, an image `encoding` — is copied
//! into the value itself, a longer one to the heap. Taking a view of a
//! typical sensor message out of shared memory therefore allocates nothing.
//!
//! It derefs to `str` and compares, hashes, prints and converts like one
//! (`&*s`, `s == "rgb8"`, `String::from(s)`, [`into_owned`](ViewStr::into_owned)).

use std::borrow::Cow;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::Deref;

/// A string of a message view: borrowed, inline or owned (see the module).
#[derive(Clone)]
pub struct ViewStr<'a>(Repr<'a>);

#[derive(Clone)]
enum Repr<'a> {
    Borrowed(&'a str),
    /// `buf[..len]`, valid UTF-8 (checked when made).
    Inline {
        len: u8,
        buf: [u8; ViewStr::INLINE],
    },
    Owned(String),
}

impl<'a> ViewStr<'a> {
    /// The longest string kept inside the value (no allocation).
    pub const INLINE: usize = 30;

    /// A string borrowed from bytes nobody else changes.
    pub fn borrowed(s: &'a str) -> Self {
        ViewStr(Repr::Borrowed(s))
    }

    /// A copy of `s`: inline when it fits, else on the heap.
    pub fn copied(s: &str) -> Self {
        match Self::inline(s.as_bytes()) {
            Some(v) => v,
            None => ViewStr(Repr::Owned(s.to_owned())),
        }
    }

    /// `bytes` (already a copy) checked as UTF-8, kept inline when they
    /// fit; `None` when they are not UTF-8.
    pub(crate) fn from_copy(bytes: &[u8]) -> Option<Self> {
        std::str::from_utf8(bytes).ok()?;
        Some(Self::inline(bytes).unwrap_or_else(|| {
            ViewStr(Repr::Owned(
                String::from_utf8(bytes.to_vec()).unwrap_or_default(),
            ))
        }))
    }

    fn inline(bytes: &[u8]) -> Option<Self> {
        let len = u8::try_from(bytes.len())
            .ok()
            .filter(|&n| usize::from(n) <= Self::INLINE)?;
        let mut buf = [0; Self::INLINE];
        buf[..bytes.len()].copy_from_slice(bytes);
        Some(ViewStr(Repr::Inline { len, buf }))
    }

    /// The string.
    pub fn as_str(&self) -> &str {
        match &self.0 {
            Repr::Borrowed(s) => s,
            // Checked as UTF-8 when made; checked again here (at most
            // `INLINE` bytes) rather than trusted with `unsafe`.
            Repr::Inline { len, buf } => std::str::from_utf8(&buf[..usize::from(*len)])
                .expect("an inline view string was checked as UTF-8 when made"),
            Repr::Owned(s) => s,
        }
    }

    /// The string, owned.
    pub fn into_owned(self) -> String {
        match self.0 {
            Repr::Owned(s) => s,
            _ => self.as_str().to_owned(),
        }
    }

    /// Whether it borrows the bytes it was read from (`false`: a copy).
    pub fn is_borrowed(&self) -> bool {
        matches!(self.0, Repr::Borrowed(_))
    }
}

impl Deref for ViewStr<'_> {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for ViewStr<'_> {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl Default for ViewStr<'_> {
    fn default() -> Self {
        ViewStr::borrowed("")
    }
}

impl fmt::Debug for ViewStr<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl fmt::Display for ViewStr<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self.as_str(), f)
    }
}

impl PartialEq for ViewStr<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for ViewStr<'_> {}

impl PartialEq<str> for ViewStr<'_> {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for ViewStr<'_> {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialEq<String> for ViewStr<'_> {
    fn eq(&self, other: &String) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<ViewStr<'_>> for str {
    fn eq(&self, other: &ViewStr<'_>) -> bool {
        self == other.as_str()
    }
}

impl PartialEq<ViewStr<'_>> for &str {
    fn eq(&self, other: &ViewStr<'_>) -> bool {
        *self == other.as_str()
    }
}

impl PartialEq<ViewStr<'_>> for String {
    fn eq(&self, other: &ViewStr<'_>) -> bool {
        self == other.as_str()
    }
}

impl Hash for ViewStr<'_> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.as_str().hash(state);
    }
}

impl From<ViewStr<'_>> for String {
    fn from(s: ViewStr<'_>) -> String {
        s.into_owned()
    }
}

impl<'a> From<&'a str> for ViewStr<'a> {
    fn from(s: &'a str) -> Self {
        ViewStr::borrowed(s)
    }
}

impl<'a> From<ViewStr<'a>> for Cow<'a, str> {
    fn from(s: ViewStr<'a>) -> Self {
        match s.0 {
            Repr::Borrowed(s) => Cow::Borrowed(s),
            other => Cow::Owned(ViewStr(other).into_owned()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_copies_stay_inline_and_long_ones_go_to_the_heap() {
        let short = ViewStr::copied("camera_optical_frame");
        assert!(matches!(short.0, Repr::Inline { .. }));
        assert_eq!(short, "camera_optical_frame");
        let exact = "x".repeat(ViewStr::INLINE);
        assert!(matches!(ViewStr::copied(&exact).0, Repr::Inline { .. }));
        let long = "y".repeat(ViewStr::INLINE + 1);
        let v = ViewStr::copied(&long);
        assert!(matches!(v.0, Repr::Owned(_)));
        assert_eq!(v.into_owned(), long);
        assert_eq!(std::mem::size_of::<ViewStr<'_>>(), 32);
    }

    #[test]
    fn a_copy_that_is_not_utf8_is_refused() {
        assert!(ViewStr::from_copy(&[0xff, 0xfe]).is_none());
        assert!(ViewStr::from_copy(&[0xe2, 0x82]).is_none(), "truncated");
        assert_eq!(ViewStr::from_copy("añb".as_bytes()).unwrap(), "añb");
    }

    #[test]
    fn it_compares_and_converts_like_a_str() {
        let b = ViewStr::borrowed("rgb8");
        let c = ViewStr::copied("rgb8");
        assert_eq!(b, c);
        let owned = String::from("rgb8");
        assert_eq!(b, "rgb8");
        assert_eq!("rgb8", c);
        assert_eq!(owned, c);
        assert_eq!(c, owned);
        assert_eq!(format!("{b} {c:?}"), "rgb8 \"rgb8\"");
        assert_eq!(&*c, "rgb8");
        assert!(b.is_borrowed() && !c.is_borrowed());
        assert_eq!(Cow::from(b), Cow::Borrowed("rgb8"));
        assert_eq!(String::from(c), "rgb8");
    }
}

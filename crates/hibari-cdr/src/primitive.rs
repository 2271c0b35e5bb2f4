//! The Rust types that stand for CDR primitives, and how each goes on the wire.

use crate::error::CdrEncodeError;
use crate::writer::CdrSink;

/// Byte order of an encapsulated payload (byte 1 of the header).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Endian {
    Little,
    Big,
}

impl Endian {
    /// The byte order of this machine.
    pub const NATIVE: Endian = if cfg!(target_endian = "little") {
        Endian::Little
    } else {
        Endian::Big
    };
}

/// A fixed-size CDR primitive. `bool` is one byte, 0 or 1.
pub trait Primitive: Copy + Default + PartialEq + std::fmt::Debug + Send + Sync + 'static {
    /// Size in bytes, which is also the alignment.
    const SIZE: usize;
    /// Writes the value little-endian.
    fn put_le<S: CdrSink + ?Sized>(self, sink: &mut S) -> Result<(), CdrEncodeError>;
    /// Writes many values little-endian; one copy on little-endian hosts.
    fn put_slice_le<S: CdrSink + ?Sized>(
        values: &[Self],
        sink: &mut S,
    ) -> Result<(), CdrEncodeError>;
    /// Reads one value from exactly `SIZE` bytes. `None` only for a bool
    /// byte that is neither 0 nor 1.
    fn from_bytes(bytes: &[u8], endian: Endian) -> Option<Self>;
    /// Views raw element bytes as a slice without copying, when their byte
    /// order is native and their address is aligned for `Self`.
    fn view_slice(bytes: &[u8], endian: Endian) -> Option<&[Self]>;
    /// The values' memory as bytes to copy native-order elements into;
    /// `None` for types with invalid bit patterns (`bool`).
    fn bytes_mut(values: &mut [Self]) -> Option<&mut [u8]> {
        let _ = values;
        None
    }
}

macro_rules! numeric {
    ($($t:ty),*) => {$(
        impl Primitive for $t {
            const SIZE: usize = std::mem::size_of::<$t>();
            #[inline]
            fn put_le<S: CdrSink + ?Sized>(self, sink: &mut S) -> Result<(), CdrEncodeError> {
                sink.put(&self.to_le_bytes())
            }
            #[inline]
            fn put_slice_le<S: CdrSink + ?Sized>(
                values: &[Self],
                sink: &mut S,
            ) -> Result<(), CdrEncodeError> {
                if cfg!(target_endian = "little") {
                    sink.put(bytemuck::cast_slice(values))
                } else {
                    values.iter().try_for_each(|v| v.put_le(sink))
                }
            }
            #[inline]
            fn from_bytes(bytes: &[u8], endian: Endian) -> Option<Self> {
                let arr: [u8; std::mem::size_of::<$t>()] = bytes.try_into().ok()?;
                Some(match endian {
                    Endian::Little => <$t>::from_le_bytes(arr),
                    Endian::Big => <$t>::from_be_bytes(arr),
                })
            }
            #[inline]
            fn view_slice(bytes: &[u8], endian: Endian) -> Option<&[Self]> {
                if endian != Endian::NATIVE && Self::SIZE > 1 {
                    return None;
                }
                bytemuck::try_cast_slice(bytes).ok()
            }
            #[inline]
            fn bytes_mut(values: &mut [Self]) -> Option<&mut [u8]> {
                Some(bytemuck::cast_slice_mut(values))
            }
        }
    )*};
}

numeric!(u8, i8, u16, i16, u32, i32, u64, i64, f32, f64);

impl Primitive for bool {
    const SIZE: usize = 1;
    #[inline]
    fn put_le<S: CdrSink + ?Sized>(self, sink: &mut S) -> Result<(), CdrEncodeError> {
        sink.put(&[self as u8])
    }
    #[inline]
    fn put_slice_le<S: CdrSink + ?Sized>(
        values: &[Self],
        sink: &mut S,
    ) -> Result<(), CdrEncodeError> {
        values.iter().try_for_each(|v| v.put_le(sink))
    }
    #[inline]
    fn from_bytes(bytes: &[u8], _endian: Endian) -> Option<Self> {
        match bytes {
            [0] => Some(false),
            [1] => Some(true),
            _ => None,
        }
    }
    #[inline]
    fn view_slice(_bytes: &[u8], _endian: Endian) -> Option<&[Self]> {
        None
    }
}

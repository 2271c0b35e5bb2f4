//! JPEG encoding through the system's libjpeg-turbo (`jpeg.c`, built by
//! `build.rs` when `jpeglib.h` is there): the encoder the ROS 1 and ROS 2
//! peers use, with the same settings, so that the bench's JPEG series compare
//! the middleware and not the encoders.

use std::ffi::{c_int, c_ulong, c_void};
use std::ptr::NonNull;

extern "C" {
    fn hibari_jpeg_new() -> *mut c_void;
    fn hibari_jpeg_free(j: *mut c_void);
    fn hibari_jpeg_encode(
        j: *mut c_void,
        rgb: *const u8,
        width: u32,
        height: u32,
        quality: c_int,
        out: *mut *mut u8,
        len: *mut c_ulong,
    ) -> c_int;
    fn hibari_jpeg_release(out: *mut u8);
}

/// Why a frame was not encoded.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum JpegError {
    /// The pixels are not `width × height × 3` bytes.
    #[error("{len} bytes are not a {width}x{height} rgb8 frame")]
    Shape {
        /// Bytes given.
        len: usize,
        /// Width asked for.
        width: u32,
        /// Height asked for.
        height: u32,
    },
    /// libjpeg refused (out of memory, or a size it does not take).
    #[error("libjpeg could not encode the frame")]
    Encode,
}

/// One libjpeg compressor, for any number of frames in turn.
pub struct LibJpeg {
    handle: NonNull<c_void>,
}

// SAFETY: the compressor holds no thread-local state; `&mut self` on every
// call keeps it to one thread at a time.
unsafe impl Send for LibJpeg {}

impl LibJpeg {
    /// A compressor; `None` when libjpeg could not allocate one.
    pub fn new() -> Option<LibJpeg> {
        // SAFETY: no arguments; a null result (out of memory) is checked.
        let handle = unsafe { hibari_jpeg_new() };
        NonNull::new(handle).map(|handle| LibJpeg { handle })
    }

    /// Encodes `rgb` (`width × height` rgb8 pixels, rows packed) at `quality`
    /// (clamped to 1..=100) into `out`, replacing what it held.
    pub fn encode(
        &mut self,
        rgb: &[u8],
        width: u32,
        height: u32,
        quality: u8,
        out: &mut Vec<u8>,
    ) -> Result<(), JpegError> {
        let want = width as usize * height as usize * 3;
        if rgb.len() != want || want == 0 {
            return Err(JpegError::Shape {
                len: rgb.len(),
                width,
                height,
            });
        }
        let (mut buf, mut len): (*mut u8, c_ulong) = (std::ptr::null_mut(), 0);
        // SAFETY: `handle` is a live compressor used by this thread only
        // (`&mut self`); `rgb` holds exactly `height` rows of `width * 3`
        // bytes (checked above), which is all the encoder reads; `buf` and
        // `len` are written only on success.
        let ok = unsafe {
            hibari_jpeg_encode(
                self.handle.as_ptr(),
                rgb.as_ptr(),
                width,
                height,
                c_int::from(quality.clamp(1, 100)),
                &mut buf,
                &mut len,
            )
        };
        if ok == 0 || buf.is_null() {
            return Err(JpegError::Encode);
        }
        // SAFETY: on success `buf` is a malloc'd block of `len` initialized
        // bytes that nothing else refers to; it is copied out, then freed once.
        unsafe {
            out.clear();
            out.extend_from_slice(std::slice::from_raw_parts(buf, len as usize));
            hibari_jpeg_release(buf);
        }
        Ok(())
    }
}

impl Drop for LibJpeg {
    fn drop(&mut self) {
        // SAFETY: `handle` came from `hibari_jpeg_new` and is freed once, here.
        unsafe { hibari_jpeg_free(self.handle.as_ptr()) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_frame_encodes_to_a_jpeg_and_a_wrong_shape_is_refused() {
        let (w, h) = (64u32, 48u32);
        let rgb: Vec<u8> = (0..(w * h * 3) as usize).map(|i| (i % 251) as u8).collect();
        let mut enc = LibJpeg::new().expect("a compressor");
        let mut out = vec![1, 2, 3];
        for _ in 0..2 {
            enc.encode(&rgb, w, h, 30, &mut out).expect("encoded");
            // SOI first, EOI last.
            assert_eq!(&out[..2], &[0xFF, 0xD8]);
            assert_eq!(&out[out.len() - 2..], &[0xFF, 0xD9]);
        }
        let err = enc.encode(&rgb[1..], w, h, 30, &mut out).unwrap_err();
        assert!(matches!(err, JpegError::Shape { .. }), "{err}");
        let err = enc.encode(&[], 0, 0, 30, &mut out).unwrap_err();
        assert!(matches!(err, JpegError::Shape { .. }), "{err}");
    }
}

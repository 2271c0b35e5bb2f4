//! The JPEG encoder of the bench's JPEG series: libjpeg-turbo, the ROS 1 and
//! ROS 2 peers' encoder with their settings (baseline, quality scaling of the
//! IJG, 4:2:0 below quality 90), when this crate was built with it (`build.rs`
//! finds `jpeglib.h`); else the `jpeg-encoder` crate, whose figures are then
//! not comparable with the peers' (it is ~1.5x slower here). Records name the
//! encoder ([`FrameEncoder::name`]).

/// Why a frame was not encoded.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum EncodeError {
    /// libjpeg refused the frame.
    #[cfg(libjpeg)]
    #[error(transparent)]
    LibJpeg(#[from] crate::sys::jpeg::JpegError),
    /// The `jpeg-encoder` crate refused the frame.
    #[error("jpeg-encoder: {0}")]
    Crate(String),
}

/// An rgb8 → JPEG encoder for one thread's frames.
pub enum FrameEncoder {
    /// libjpeg-turbo through `sys/jpeg.c`.
    #[cfg(libjpeg)]
    LibJpeg(crate::sys::jpeg::LibJpeg),
    /// The `jpeg-encoder` crate (AVX2 kernels chosen at run time).
    Crate,
}

impl Default for FrameEncoder {
    fn default() -> Self {
        Self::new()
    }
}

impl FrameEncoder {
    /// libjpeg-turbo when built with it (and it could allocate a compressor),
    /// else `jpeg-encoder`.
    pub fn new() -> FrameEncoder {
        #[cfg(libjpeg)]
        if let Some(j) = crate::sys::jpeg::LibJpeg::new() {
            return FrameEncoder::LibJpeg(j);
        }
        FrameEncoder::Crate
    }

    /// `libjpeg-turbo` or `jpeg-encoder`.
    pub fn name(&self) -> &'static str {
        match self {
            #[cfg(libjpeg)]
            FrameEncoder::LibJpeg(_) => "libjpeg-turbo",
            FrameEncoder::Crate => "jpeg-encoder",
        }
    }

    /// Encodes `rgb` (`width × height` rgb8 pixels) at `quality` into `out`,
    /// replacing what it held.
    pub fn encode(
        &mut self,
        rgb: &[u8],
        width: u16,
        height: u16,
        quality: u8,
        out: &mut Vec<u8>,
    ) -> Result<(), EncodeError> {
        match self {
            #[cfg(libjpeg)]
            FrameEncoder::LibJpeg(j) => {
                Ok(j.encode(rgb, width.into(), height.into(), quality, out)?)
            }
            FrameEncoder::Crate => {
                out.clear();
                jpeg_encoder::Encoder::new(&mut *out, quality)
                    .encode(rgb, width, height, jpeg_encoder::ColorType::Rgb)
                    .map_err(|e| EncodeError::Crate(e.to_string()))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_encoder_makes_a_jpeg_of_a_frame_and_refuses_a_short_one() {
        let (w, h) = (64u16, 48u16);
        let rgb: Vec<u8> = (0..w as usize * h as usize * 3)
            .map(|i| (i % 251) as u8)
            .collect();
        for mut enc in [FrameEncoder::new(), FrameEncoder::Crate] {
            let mut out = Vec::new();
            let name = enc.name();
            enc.encode(&rgb, w, h, 30, &mut out)
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(&out[..2], &[0xFF, 0xD8], "{}", enc.name());
            assert_eq!(&out[out.len() - 2..], &[0xFF, 0xD9], "{}", enc.name());
            assert!(
                enc.encode(&rgb[3..], w, h, 30, &mut out).is_err(),
                "{}",
                enc.name()
            );
        }
        // Built here with libjpeg-dev (scripts/setup.sh installs it).
        assert_eq!(FrameEncoder::new().name(), "libjpeg-turbo");
    }
}

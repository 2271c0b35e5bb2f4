// JPEG encoding for ros1_pub's `--type jpeg` (E1's CompressedImage series), through Debian's
// libjpeg-turbo (package libjpeg-dev, the libjpeg API; link with -ljpeg).
//
// The same library, settings and call sequence as hibari's own JPEG series (crates/hibari-bench-ipc/src/sys/jpeg.c): baseline,
// the standard Huffman tables, the IJG quality scaling, 4:2:0 chroma subsampling below quality
// 90 (jpeg_set_defaults gives 2x2 luma sampling), so the compressed sizes are comparable.
#pragma once

#include <cstdio>  // jpeglib.h needs FILE
#include <jpeglib.h>

#include <csetjmp>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

namespace peer {

// One compressor reused for every frame. libjpeg reports errors through error_exit, which by
// default exits the process; here it longjmps back into encode(), which throws.
class JpegEncoder {
 public:
  JpegEncoder() {
    cinfo_.err = jpeg_std_error(&err_.base);
    err_.base.error_exit = on_error;
    jpeg_create_compress(&cinfo_);
  }
  ~JpegEncoder() { jpeg_destroy_compress(&cinfo_); }
  JpegEncoder(const JpegEncoder&) = delete;
  JpegEncoder& operator=(const JpegEncoder&) = delete;

  // Encodes a packed rgb8 frame of `w` x `h` at `quality` (1-100) into `out` (replaced).
  void encode(const uint8_t* rgb, uint32_t w, uint32_t h, int quality, std::vector<uint8_t>& out) {
    unsigned char* buf = nullptr;  // libjpeg mallocs and grows it; freed below
    unsigned long size = 0;
    if (setjmp(err_.jump)) {
      jpeg_abort_compress(&cinfo_);
      std::free(buf);
      throw std::runtime_error("libjpeg: " + std::string(err_.message));
    }
    jpeg_mem_dest(&cinfo_, &buf, &size);
    cinfo_.image_width = w;
    cinfo_.image_height = h;
    cinfo_.input_components = 3;
    cinfo_.in_color_space = JCS_RGB;
    jpeg_set_defaults(&cinfo_);
    jpeg_set_quality(&cinfo_, quality, TRUE);
    jpeg_start_compress(&cinfo_, TRUE);
    const size_t stride = size_t(w) * 3;
    while (cinfo_.next_scanline < cinfo_.image_height) {
      JSAMPROW row = const_cast<JSAMPROW>(rgb + size_t(cinfo_.next_scanline) * stride);
      jpeg_write_scanlines(&cinfo_, &row, 1);
    }
    jpeg_finish_compress(&cinfo_);
    out.assign(buf, buf + size);
    std::free(buf);
  }

 private:
  struct Error {
    jpeg_error_mgr base;  // first member: libjpeg hands back a pointer to it
    std::jmp_buf jump;
    char message[JMSG_LENGTH_MAX];
  };
  static void on_error(j_common_ptr c) {
    Error* e = reinterpret_cast<Error*>(c->err);
    (*c->err->format_message)(c, e->message);
    std::longjmp(e->jump, 1);
  }
  jpeg_compress_struct cinfo_{};
  Error err_{};
};

}  // namespace peer

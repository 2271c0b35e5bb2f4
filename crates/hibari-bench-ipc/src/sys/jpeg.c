/*
 * JPEG encoding through the system's libjpeg (Debian's libjpeg-turbo, package
 * libjpeg-dev), for the bench's JPEG series: the same library, settings and
 * call sequence as the ROS 1 and ROS 2 peers (peers/ros1/src/jpeg.hpp,
 * peers/ros2/kinds.c), so that a JPEG series compares the middleware and not
 * the encoders. Built by build.rs when jpeglib.h is there.
 *
 * libjpeg reports errors through error_exit, which must not return: it jumps
 * back here (setjmp), and the call fails with 0 instead of exiting the process.
 */
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h> /* jpeglib.h needs FILE */
#include <stdlib.h>

#include <jpeglib.h>

struct hibari_jpeg {
    struct jpeg_compress_struct c;
    struct {
        struct jpeg_error_mgr base; /* first: libjpeg hands back a pointer to it */
        jmp_buf jump;
    } err;
};

static void fail(j_common_ptr c) { longjmp(((struct hibari_jpeg *)c)->err.jump, 1); }

/* A compressor for any number of frames, one at a time; NULL when out of memory. */
struct hibari_jpeg *hibari_jpeg_new(void) {
    struct hibari_jpeg *volatile j = calloc(1, sizeof *j); /* read again after a longjmp */
    if (j == NULL) return NULL;
    j->c.err = jpeg_std_error(&j->err.base);
    j->err.base.error_exit = fail;
    if (setjmp(j->err.jump)) {
        free(j);
        return NULL;
    }
    jpeg_create_compress(&j->c);
    return j;
}

void hibari_jpeg_free(struct hibari_jpeg *j) {
    if (j == NULL) return;
    jpeg_destroy_compress(&j->c);
    free(j);
}

/* Encodes width x height rgb8 pixels (rows of width * 3 bytes) at quality
 * 1..=100. On success returns 1 and *out (free with hibari_jpeg_release) and
 * *len; on a libjpeg error returns 0 and leaves nothing to free. */
int hibari_jpeg_encode(struct hibari_jpeg *j, const uint8_t *rgb, uint32_t width, uint32_t height,
                       int quality, uint8_t **out, unsigned long *len) {
    unsigned char *volatile buf = NULL;
    unsigned long size = 0;
    if (setjmp(j->err.jump)) {
        jpeg_abort_compress(&j->c);
        free(buf);
        return 0;
    }
    jpeg_mem_dest(&j->c, (unsigned char **)&buf, &size);
    j->c.image_width = width;
    j->c.image_height = height;
    j->c.input_components = 3;
    j->c.in_color_space = JCS_RGB;
    jpeg_set_defaults(&j->c);
    jpeg_set_quality(&j->c, quality, TRUE);
    jpeg_start_compress(&j->c, TRUE);
    while (j->c.next_scanline < j->c.image_height) {
        JSAMPROW row = (JSAMPROW)(rgb + (size_t)j->c.next_scanline * width * 3);
        jpeg_write_scanlines(&j->c, &row, 1);
    }
    jpeg_finish_compress(&j->c);
    *out = buf;
    *len = size;
    return 1;
}

void hibari_jpeg_release(uint8_t *out) { free(out); }

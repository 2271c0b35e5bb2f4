/* The message kinds of the native rcl peer (rcl_peer.c): how a kind is named on the command line,
 * how message i of it is built and how a received one is checked. The same kinds and the same
 * bytes as the rclpy peer (rclpy_peer.py), so either peer can sit on either side of a cell.
 *
 *   image[:BYTES]        sensor_msgs/Image, mono8 BYTES x 1 (rgb8 1920x1080 without BYTES)
 *   image:WxH            sensor_msgs/Image, rgb8 W x H
 *   laser:N              sensor_msgs/LaserScan, N ranges, no intensities
 *   jpeg:WxH:Q           sensor_msgs/CompressedImage "jpeg": the rgb8 W x H frame whose byte k is
 *                        k mod 251 (the frame hibari's and ROS 1's E1 series encode), encoded anew
 *                        for every message at quality Q by libjpeg(-turbo), encode time inside the
 *                        latency (after the due time)
 *
 * Image i carries frame_id "<i>" and the pixels of a fixed pseudo-random block rotated left by
 * i * 7919 bytes; scan i the ranges of that block's bytes as floats, rotated by i * 7919 places.
 * A byte of another message, or a misplaced fragment, fails the exact comparison. A JPEG is exact
 * when it starts with SOI and ends with EOI (decoding it is not the subscriber's work here). */
#ifndef HIBARI_RCL_PEER_KINDS_H
#define HIBARI_RCL_PEER_KINDS_H

#include <stddef.h>
#include <stdint.h>

#include <rosidl_runtime_c/message_type_support_struct.h>

typedef enum { KIND_IMAGE, KIND_LASER, KIND_JPEG } kind_tag;

typedef struct {
  kind_tag tag;
  uint32_t width, height; /* image, jpeg: pixels; laser: ranges in width */
  int quality;            /* jpeg */
  int rgb;                /* image: rgb8 W x H (else mono8 BYTES x 1) */
  size_t payload;         /* pixel bytes, ranges x 4; jpeg: the raw frame's bytes */
  uint8_t *base;          /* the block the payload is cut from (jpeg: the k mod 251 frame) */
  float *base_f;          /* laser: base as floats */
} kind_t;

/* Parses SPEC into K; 0 on success, -1 (with a message on stderr) when it is not a kind. */
int kind_parse(const char *spec, kind_t *k);

/* The message's type support. */
const rosidl_message_type_support_t *kind_type_support(const kind_t *k);

/* A message of K's type, initialised and sized for the payload; NULL when memory runs out. */
void *kind_create(const kind_t *k);
void kind_destroy(const kind_t *k, void *msg);

/* Fills MSG as message I (frame_id, payload); for jpeg only the frame_id. 0 or -1. */
int kind_fill(const kind_t *k, void *msg, uint64_t i);

/* Work after the due time and before publishing: the jpeg encode. 0 or -1. */
int kind_finish(const kind_t *k, void *msg);

/* Stamps MSG with STAMP_NS (CLOCK_REALTIME). */
void kind_stamp(const kind_t *k, void *msg, int64_t stamp_ns);

/* A received message: its sequence (frame_id, -1 when not a number), payload bytes, stamp, and
 * whether its payload is exactly message SEQ's (0 without COMPARE: nothing compared). */
typedef struct {
  int64_t seq;
  size_t bytes;
  int64_t stamp_ns;
  int exact;
} received_t;

received_t kind_check(const kind_t *k, const void *msg, int compare);

#endif

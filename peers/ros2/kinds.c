/* The message kinds of the native rcl peer: see kinds.h. */
#include "kinds.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>
#include <rosidl_runtime_c/primitives_sequence_functions.h>
#include <rosidl_runtime_c/string_functions.h>
#include <sensor_msgs/msg/compressed_image.h>
#include <sensor_msgs/msg/image.h>
#include <sensor_msgs/msg/laser_scan.h>

#define FULL_HD (1920u * 1080u * 3u)
#define BLOCK 65521u /* a prime: rotations by 7919 never line the pattern up with itself again */
#define MAX_PAYLOAD (256u << 20)

/* SIZE bytes of the fixed pseudo-random block (the rclpy peer's `base`). */
static uint8_t *base_bytes(size_t size) {
  uint8_t block[BLOCK];
  uint32_t x = 1;
  for (size_t j = 0; j < BLOCK; j++) {
    x = (x * 1103515245u + 12345u) & 0x7fffffffu;
    block[j] = (uint8_t)(x >> 16);
  }
  uint8_t *b = malloc(size ? size : 1);
  for (size_t j = 0; b && j < size; j++) b[j] = block[j % BLOCK];
  return b;
}

int kind_parse(const char *spec, kind_t *k) {
  memset(k, 0, sizeof *k);
  unsigned long long n = 0;
  unsigned w = 0, h = 0;
  int q = 0;
  char tail;
  if (strcmp(spec, "image") == 0) {
    *k = (kind_t){.tag = KIND_IMAGE, .width = 1920, .height = 1080, .rgb = 1, .payload = FULL_HD};
  } else if (sscanf(spec, "image:%ux%u%c", &w, &h, &tail) == 2) {
    *k = (kind_t){.tag = KIND_IMAGE, .width = w, .height = h, .rgb = 1};
    k->payload = (size_t)w * h * 3;
  } else if (sscanf(spec, "image:%llu%c", &n, &tail) == 1) {
    *k = (kind_t){.tag = KIND_IMAGE, .width = (uint32_t)n, .height = 1, .payload = (size_t)n};
  } else if (sscanf(spec, "laser:%llu%c", &n, &tail) == 1) {
    *k = (kind_t){.tag = KIND_LASER, .width = (uint32_t)n, .payload = (size_t)n * 4};
  } else if (sscanf(spec, "jpeg:%ux%u:%d%c", &w, &h, &q, &tail) == 3 && q >= 1 && q <= 100) {
    *k = (kind_t){.tag = KIND_JPEG, .width = w, .height = h, .quality = q};
    k->payload = (size_t)w * h * 3;
  } else {
    fprintf(stderr, "rcl_peer: not a kind: %s\n", spec);
    return -1;
  }
  if (k->payload == 0 || k->payload > MAX_PAYLOAD) {
    fprintf(stderr, "rcl_peer: %s: payload must be 1 byte to 256 MiB\n", spec);
    return -1;
  }
  if (k->tag == KIND_JPEG) {
    k->base = malloc(k->payload);
    for (size_t j = 0; k->base && j < k->payload; j++) k->base[j] = (uint8_t)(j % 251);
  } else {
    k->base = base_bytes(k->tag == KIND_LASER ? k->width : k->payload);
  }
  if (k->base && k->tag == KIND_LASER) {
    k->base_f = malloc(sizeof(float) * k->width);
    for (size_t j = 0; k->base_f && j < k->width; j++) k->base_f[j] = (float)k->base[j];
    if (!k->base_f) return -1;
  }
  return k->base ? 0 : -1;
}

const rosidl_message_type_support_t *kind_type_support(const kind_t *k) {
  switch (k->tag) {
    case KIND_IMAGE: return ROSIDL_GET_MSG_TYPE_SUPPORT(sensor_msgs, msg, Image);
    case KIND_LASER: return ROSIDL_GET_MSG_TYPE_SUPPORT(sensor_msgs, msg, LaserScan);
    default: return ROSIDL_GET_MSG_TYPE_SUPPORT(sensor_msgs, msg, CompressedImage);
  }
}

void *kind_create(const kind_t *k) {
  if (k->tag == KIND_IMAGE) {
    sensor_msgs__msg__Image *m = sensor_msgs__msg__Image__create();
    if (!m || !rosidl_runtime_c__uint8__Sequence__init(&m->data, k->payload)) return NULL;
    m->width = k->width;
    m->height = k->height;
    m->step = k->rgb ? k->width * 3 : k->width;
    rosidl_runtime_c__String__assign(&m->encoding, k->rgb ? "rgb8" : "mono8");
    return m;
  }
  if (k->tag == KIND_LASER) {
    sensor_msgs__msg__LaserScan *m = sensor_msgs__msg__LaserScan__create();
    if (!m || !rosidl_runtime_c__float__Sequence__init(&m->ranges, k->width)) return NULL;
    m->angle_max = 3.14159265f;
    m->angle_min = -m->angle_max;
    m->angle_increment = k->width ? 2 * m->angle_max / (float)k->width : 0;
    m->range_max = 100.f;
    return m;
  }
  sensor_msgs__msg__CompressedImage *m = sensor_msgs__msg__CompressedImage__create();
  if (m) rosidl_runtime_c__String__assign(&m->format, "jpeg");
  return m;
}

void kind_destroy(const kind_t *k, void *msg) {
  if (!msg) return;
  switch (k->tag) {
    case KIND_IMAGE: sensor_msgs__msg__Image__destroy(msg); break;
    case KIND_LASER: sensor_msgs__msg__LaserScan__destroy(msg); break;
    default: sensor_msgs__msg__CompressedImage__destroy(msg); break;
  }
}

/* The header every kind starts with. */
static std_msgs__msg__Header *header(const kind_t *k, void *msg) {
  switch (k->tag) {
    case KIND_IMAGE: return &((sensor_msgs__msg__Image *)msg)->header;
    case KIND_LASER: return &((sensor_msgs__msg__LaserScan *)msg)->header;
    default: return &((sensor_msgs__msg__CompressedImage *)msg)->header;
  }
}

int kind_fill(const kind_t *k, void *msg, uint64_t i) {
  char id[24];
  snprintf(id, sizeof id, "%llu", (unsigned long long)i);
  if (!rosidl_runtime_c__String__assign(&header(k, msg)->frame_id, id)) return -1;
  if (k->tag == KIND_IMAGE) {
    uint8_t *d = ((sensor_msgs__msg__Image *)msg)->data.data;
    size_t off = (size_t)((i * 7919u) % k->payload);
    memcpy(d, k->base + off, k->payload - off);
    memcpy(d + (k->payload - off), k->base, off);
  } else if (k->tag == KIND_LASER) {
    float *r = ((sensor_msgs__msg__LaserScan *)msg)->ranges.data;
    size_t n = k->width, off = (size_t)((i * 7919u) % n);
    memcpy(r, k->base_f + off, (n - off) * sizeof(float));
    memcpy(r + (n - off), k->base_f, off * sizeof(float));
  }
  return 0;
}

struct jpeg_fail {
  struct jpeg_error_mgr base; /* first: libjpeg hands back a pointer to it */
  jmp_buf jump;
};

static void jpeg_fail_exit(j_common_ptr c) { longjmp(((struct jpeg_fail *)c->err)->jump, 1); }

int kind_finish(const kind_t *k, void *msg) {
  if (k->tag != KIND_JPEG) return 0;
  sensor_msgs__msg__CompressedImage *m = msg;
  static struct jpeg_compress_struct c; /* one compressor for every frame */
  static struct jpeg_fail fail;
  static int ready;
  unsigned char *volatile out = NULL;
  unsigned long size = 0;
  if (!ready) {
    c.err = jpeg_std_error(&fail.base);
    fail.base.error_exit = jpeg_fail_exit;
    jpeg_create_compress(&c);
    ready = 1;
  }
  if (setjmp(fail.jump)) {
    jpeg_abort_compress(&c);
    free(out);
    return -1;
  }
  jpeg_mem_dest(&c, (unsigned char **)&out, &size);
  c.image_width = k->width;
  c.image_height = k->height;
  c.input_components = 3;
  c.in_color_space = JCS_RGB;
  jpeg_set_defaults(&c);
  jpeg_set_quality(&c, k->quality, TRUE);
  jpeg_start_compress(&c, TRUE);
  while (c.next_scanline < c.image_height) {
    JSAMPROW row = k->base + (size_t)c.next_scanline * k->width * 3;
    jpeg_write_scanlines(&c, &row, 1);
  }
  jpeg_finish_compress(&c);
  rosidl_runtime_c__uint8__Sequence__fini(&m->data);
  bool ok = rosidl_runtime_c__uint8__Sequence__init(&m->data, size);
  if (ok) memcpy(m->data.data, out, size);
  free(out);
  return ok ? 0 : -1;
}

void kind_stamp(const kind_t *k, void *msg, int64_t stamp_ns) {
  std_msgs__msg__Header *h = header(k, msg);
  h->stamp.sec = (int32_t)(stamp_ns / 1000000000);
  h->stamp.nanosec = (uint32_t)(stamp_ns % 1000000000);
}

/* Whether D (N units of SIZE bytes) is BASE rotated left by OFF units. */
static int rotated(const void *d, const void *base, size_t n, size_t off, size_t size) {
  const char *a = d, *b = base;
  return memcmp(a, b + off * size, (n - off) * size) == 0 &&
         memcmp(a + (n - off) * size, b, off * size) == 0;
}

received_t kind_check(const kind_t *k, const void *msg, int compare) {
  received_t r = {.seq = -1};
  const std_msgs__msg__Header *h = header(k, (void *)msg);
  char *end = NULL;
  const char *id = h->frame_id.data;
  if (id && *id) {
    long long v = strtoll(id, &end, 10);
    if (*end == '\0' && v > 0) r.seq = v;
  }
  r.stamp_ns = (int64_t)h->stamp.sec * 1000000000 + h->stamp.nanosec;
  if (k->tag == KIND_IMAGE) {
    const sensor_msgs__msg__Image *m = msg;
    r.bytes = m->data.size;
    r.exact = compare && r.seq > 0 && r.bytes == k->payload &&
              rotated(m->data.data, k->base, k->payload, (size_t)((r.seq * 7919u) % k->payload), 1);
  } else if (k->tag == KIND_LASER) {
    const sensor_msgs__msg__LaserScan *m = msg;
    r.bytes = m->ranges.size * sizeof(float);
    r.exact = compare && r.seq > 0 && m->ranges.size == k->width &&
              rotated(m->ranges.data, k->base_f, k->width, (size_t)((r.seq * 7919u) % k->width),
                      sizeof(float));
  } else {
    const sensor_msgs__msg__CompressedImage *m = msg;
    const uint8_t *d = m->data.data;
    size_t n = m->data.size;
    r.bytes = n;
    r.exact = compare && r.seq > 0 && n >= 4 && d[0] == 0xff && d[1] == 0xd8 && d[n - 2] == 0xff &&
              d[n - 1] == 0xd9;
  }
  return r;
}

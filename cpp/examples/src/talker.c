/* talker.c: the talker in C over hibari.h — std_msgs/String "Hello World: N"
 * on `chatter`, its CDR written by hand (the encapsulation header, then the
 * string's length with its NUL, then its bytes).
 *   talker_c COUNT [--ros-args …]   waits for one subscription, then
 * publishes COUNT messages 100 ms apart, and exits 0. */
#define _POSIX_C_SOURCE 199309L /* nanosleep */
#include <hibari.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CHECK(call)                                                              \
  do {                                                                           \
    hibari_ret_t ret_ = (call);                                                  \
    if (ret_ != HIBARI_OK) {                                                     \
      fprintf(stderr, "%s failed (%d): %s\n", #call, (int)ret_, hibari_last_error()); \
      return 1;                                                                  \
    }                                                                            \
  } while (0)

static size_t encode_string(const char *text, uint8_t *out, size_t cap) {
  const uint32_t len = (uint32_t)strlen(text) + 1; /* with its NUL */
  if (8 + (size_t)len > cap) return 0;
  const uint8_t header[4] = {0x00, 0x01, 0x00, 0x00}; /* CDR, little endian */
  memcpy(out, header, 4);
  for (int i = 0; i < 4; i++) out[4 + i] = (uint8_t)(len >> (8 * i));
  memcpy(out + 8, text, len);
  return 8 + (size_t)len;
}

static void sleep_ms(long ms) {
  struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&t, NULL);
}

int main(int argc, char **argv) {
  const long count = argc > 1 ? strtol(argv[1], NULL, 10) : 5;
  hibari_context_t context;
  hibari_node_t node;
  hibari_publisher_t publisher;
  CHECK(hibari_context_init(argc, (const char *const *)argv, &context));
  CHECK(hibari_node_create(context, "talker_c", NULL, &node));
  CHECK(hibari_publisher_create(node, "chatter", "std_msgs/msg/String", NULL, &publisher));
  size_t matched = 0;
  for (int tries = 0; matched == 0; tries++) {
    if (tries == 300) {
      fprintf(stderr, "no subscription matched within 30 s\n");
      return 1;
    }
    CHECK(hibari_publisher_get_subscription_count(publisher, &matched));
    if (matched == 0) sleep_ms(100);
  }
  for (long i = 1; i <= count; i++) {
    char text[64];
    uint8_t cdr[96];
    snprintf(text, sizeof text, "Hello World: %ld", i);
    const size_t len = encode_string(text, cdr, sizeof cdr);
    CHECK(hibari_publisher_publish(publisher, cdr, len));
    printf("Publishing: '%s'\n", text);
    fflush(stdout);
    sleep_ms(100);
  }
  sleep_ms(300);
  CHECK(hibari_publisher_destroy(publisher));
  CHECK(hibari_node_destroy(node));
  CHECK(hibari_context_shutdown(context));
  CHECK(hibari_context_destroy(context));
  return 0;
}

/* The native ROS 2 peer: C against rcl from the Jazzy wheels (what rclcpp runs under its C++
 * layer), over rmw_fastrtps_cpp with Fast DDS's defaults. The native side of `hibari bench`'s
 * ROS 2 series (crates/hibari-bench/src/dds.rs); built by scripts/ros2-peer.sh into
 * .venv-ros2-<distro>/bin/rcl_peer.
 *
 * Speaks the rclpy peer's line protocol (peers/ros2/rclpy_peer.py), one line per event on stdout:
 *
 *   pub  TOPIC KIND COUNT HZ  READY, MATCHED, SENT seq=i call_ns=c (each), DONE sent=n cpu_ns=c
 *                             vcsw=v ivcsw=i; then stays (publishing nothing) until killed or
 *                             its timeout, so late repairs still happen
 *   sub  TOPIC KIND COUNT     READY, RECV seq=i bytes=n exact=0|1 lat_us=t rx_ns=r, DONE received=n
 *                             exact=n in_order=0|1 cpu_ns=c vcsw=v ivcsw=i
 *   both TOPIC KIND COUNT HZ  one process, one context, two nodes (a publisher's and a
 *                             subscriber's) on one thread: READY, MATCHED, SENT and RECV lines,
 *                             DONE received=n exact=n in_order=0|1 sent=n cpu_ns=c vcsw=v ivcsw=i
 *                             (the whole process, from MATCHED). rcl has no intra-process path
 *                             (rclcpp's is above it): the sample goes through Fast DDS.
 *
 * KIND: see kinds.h. Message i is built before its due time start + (i - 1) / HZ, stamped with
 * that due time (CLOCK_REALTIME) and published at it, so a late publisher shows as latency;
 * HZ 0 is as fast as possible (each message due when the previous one was published; SENT
 * lines are then not flushed one by one). lat_us is the subscriber's CLOCK_REALTIME after
 * rcl_take minus the stamp; rx_ns its CLOCK_MONOTONIC then (throughput spans). RECV lines are
 * flushed once per wake-up, after every waiting sample was taken. call_ns is how long
 * rcl_publish took (E4's publish-call time). QoS: reliable, keep all, volatile. The subscriber
 * takes into one message it reuses (the typesupport resizes its sequences).
 *
 * Environment: ROS_DOMAIN_ID; NETNS_PEER_NAME (node name, default rcl_peer_<role>);
 * NETNS_PEER_CHECK=0: the subscriber compares no bytes (exact=0; E5's "subscriber does nothing");
 * NETNS_PEER_SUBSCRIBERS=N: the publisher waits for N matched subscriptions (default 1);
 * NETNS_PEER_TOPICS=N (pub and sub only; default 1): N topics TOPIC/t0 … TOPIC/t<N-1>, one
 * publisher or subscription each, COUNT messages on each at HZ, sent in turn (N x HZ in all); the
 * lines then number messages across topics: seq = (seq on its topic - 1) x N + topic + 1;
 * NETNS_PEER_TIMEOUT (seconds, default 60) bounds every wait. Exit 0 after DONE, 2 on a timeout,
 * 1 on an rcl error or bad arguments (with the reason on stderr). */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include <rcl/error_handling.h>
#include <rcl/rcl.h>
#include <rmw/types.h>

#include "kinds.h"

static double timeout_s = 60;
static int compare = 1;
static size_t subscribers = 1;
static size_t topics = 1;

static int64_t now_ns(clockid_t clock) {
  struct timespec t;
  clock_gettime(clock, &t);
  return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

typedef struct { int64_t cpu_ns, vcsw, ivcsw; } usage_t;

static usage_t usage(void) {
  struct rusage u;
  getrusage(RUSAGE_SELF, &u);
  int64_t us = (u.ru_utime.tv_sec + u.ru_stime.tv_sec) * 1000000LL + u.ru_utime.tv_usec +
               u.ru_stime.tv_usec;
  return (usage_t){us * 1000, u.ru_nvcsw, u.ru_nivcsw};
}

static void say_usage(const char *head, usage_t before) {
  usage_t n = usage();
  printf("%s cpu_ns=%" PRId64 " vcsw=%" PRId64 " ivcsw=%" PRId64 "\n", head,
         n.cpu_ns - before.cpu_ns, n.vcsw - before.vcsw, n.ivcsw - before.ivcsw);
  fflush(stdout);
}

static int fail(const char *what) {
  fprintf(stderr, "rcl_peer: %s: %s\n", what, rcl_get_error_string().str);
  rcl_reset_error();
  return 1;
}

static rmw_qos_profile_t qos(void) {
  rmw_qos_profile_t q = rmw_qos_profile_default;
  q.reliability = RMW_QOS_POLICY_RELIABILITY_RELIABLE;
  q.history = RMW_QOS_POLICY_HISTORY_KEEP_ALL;
  q.durability = RMW_QOS_POLICY_DURABILITY_VOLATILE;
  q.depth = 1;
  return q;
}

/* What a subscriber has seen. */
typedef struct {
  const kind_t *kind;
  rcl_subscription_t sub;
  void *msg;
  int64_t n, exact, last, in_order;
  usage_t first;
  size_t index; /* its topic */
} taker_t;

/* The topic name of topic I. */
static void topic_name(char *out, size_t len, const char *topic, size_t i) {
  if (topics == 1)
    snprintf(out, len, "%s", topic);
  else
    snprintf(out, len, "%s/t%zu", topic, i);
}

/* Samples taken by the `topics` takers at T. */
static int64_t taken(const taker_t *t) {
  int64_t n = 0;
  for (size_t i = 0; i < topics; i++) n += t[i].n;
  return n;
}

/* Takes every sample waiting in T's subscription, one RECV line each; -1 on an rcl error. */
static int take_all(taker_t *t) {
  for (;;) {
    rmw_message_info_t info = rmw_get_zero_initialized_message_info();
    rcl_ret_t ret = rcl_take(&t->sub, t->msg, &info, NULL);
    if (ret == RCL_RET_SUBSCRIPTION_TAKE_FAILED) return fflush(stdout), 0;
    if (ret != RCL_RET_OK) return fail("rcl_take"), -1;
    int64_t now = now_ns(CLOCK_REALTIME), rx = now_ns(CLOCK_MONOTONIC);
    received_t r = kind_check(t->kind, t->msg, compare);
    if (t->n == 0) t->first = usage();
    t->n++;
    t->exact += r.exact;
    if (r.seq != t->last + 1) t->in_order = 0;
    t->last = r.seq;
    int64_t seq = (r.seq - 1) * (int64_t)topics + (int64_t)t->index + 1;
    printf("RECV seq=%" PRId64 " bytes=%zu exact=%d lat_us=%" PRId64 " rx_ns=%" PRId64 "\n", seq,
           r.bytes, r.exact, (now - r.stamp_ns) / 1000, rx);
  }
}

/* Waits on WS (holding the subscriptions of the `topics` takers at T) up to UNTIL
 * (CLOCK_MONOTONIC ns), taking what arrives. -1 on an rcl error. */
static int wait_take(rcl_wait_set_t *ws, taker_t *t, int64_t until) {
  int64_t left = until - now_ns(CLOCK_MONOTONIC);
  if (left < 0) left = 0;
  if (rcl_wait_set_clear(ws) != RCL_RET_OK) return fail("wait set"), -1;
  for (size_t i = 0; i < topics; i++)
    if (rcl_wait_set_add_subscription(ws, &t[i].sub, NULL) != RCL_RET_OK)
      return fail("wait set"), -1;
  rcl_ret_t ret = rcl_wait(ws, left);
  if (ret == RCL_RET_TIMEOUT) return 0;
  if (ret != RCL_RET_OK) return fail("rcl_wait"), -1;
  for (size_t i = 0; i < topics; i++)
    if (ws->subscriptions[i] && take_all(&t[i]) < 0) return -1;
  return 0;
}

/* Sleeps until AT (CLOCK_MONOTONIC ns), or, with a taker, waits for samples until then. */
static int pause_until(int64_t at, rcl_wait_set_t *ws, taker_t *t) {
  if (t) {
    while (now_ns(CLOCK_MONOTONIC) < at)
      if (wait_take(ws, t, at) < 0) return -1;
    return 0;
  }
  struct timespec ts = {at / 1000000000, at % 1000000000};
  while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) != 0) {
  }
  return 0;
}

/* Publishes COUNT messages of K at HZ on each of the `topics` publishers at PUB, in turn; with a
 * taker, serves it between messages. */
static int publish(const kind_t *k, rcl_publisher_t *pub, int64_t count, double hz,
                   rcl_wait_set_t *ws, taker_t *t) {
  void *msg = kind_create(k);
  if (!msg) return fprintf(stderr, "rcl_peer: out of memory\n"), 1;
  int64_t end = now_ns(CLOCK_MONOTONIC) + (int64_t)(timeout_s * 1e9);
  for (size_t p = 0; p < topics; p++) {
    size_t matched = 0;
    while (matched < subscribers) {
      if (rcl_publisher_get_subscription_count(&pub[p], &matched) != RCL_RET_OK)
        return fail("subscription count");
      if (now_ns(CLOCK_MONOTONIC) > end) return printf("TIMEOUT waiting for a subscriber\n"), 2;
      if (matched < subscribers && pause_until(now_ns(CLOCK_MONOTONIC) + 10000000, ws, t) < 0)
        return 1;
    }
  }
  printf("MATCHED\n");
  fflush(stdout);
  usage_t before = usage();
  if (t) t->first = before;
  int64_t n = (int64_t)topics;
  double period = hz > 0 ? 1e9 / hz / (double)n : 0;
  int64_t start = now_ns(CLOCK_MONOTONIC), start_rt = now_ns(CLOCK_REALTIME);
  for (int64_t m = 0; m < count * n; m++) {
    int64_t i = m / n + 1;
    if (kind_fill(k, msg, (uint64_t)i) < 0) return fprintf(stderr, "rcl_peer: fill\n"), 1;
    int64_t due = hz > 0 ? (int64_t)((double)m * period) : now_ns(CLOCK_MONOTONIC) - start;
    if (pause_until(start + due, ws, t) < 0) return 1;
    kind_stamp(k, msg, start_rt + due);
    if (kind_finish(k, msg) < 0) return fprintf(stderr, "rcl_peer: jpeg encode failed\n"), 1;
    int64_t call = now_ns(CLOCK_MONOTONIC);
    if (rcl_publish(&pub[m % n], msg, NULL) != RCL_RET_OK) return fail("rcl_publish");
    call = now_ns(CLOCK_MONOTONIC) - call;
    printf("SENT seq=%" PRId64 " call_ns=%" PRId64 "\n", m + 1, call);
    if (hz > 0) fflush(stdout);
  }
  kind_destroy(k, msg);
  if (t) {
    end = now_ns(CLOCK_MONOTONIC) + (int64_t)(timeout_s * 1e9);
    while (t->n < count && now_ns(CLOCK_MONOTONIC) < end)
      if (wait_take(ws, t, now_ns(CLOCK_MONOTONIC) + 50000000) < 0) return 1;
    char head[160];
    snprintf(head, sizeof head, "DONE received=%" PRId64 " exact=%" PRId64 " in_order=%d sent=%" PRId64,
             t->n, t->exact, (int)t->in_order, count);
    say_usage(head, before);
    return t->n >= count ? 0 : 2;
  }
  char head[64];
  snprintf(head, sizeof head, "DONE sent=%" PRId64, count * n);
  say_usage(head, before);
  struct timespec idle = {(time_t)timeout_s, 0};
  nanosleep(&idle, NULL);
  return 0;
}

/* Takes COUNT messages on each of the `topics` takers at T. */
static int subscribe(taker_t *t, rcl_wait_set_t *ws, int64_t count) {
  int64_t end = now_ns(CLOCK_MONOTONIC) + (int64_t)(timeout_s * 1e9), all = count * (int64_t)topics;
  while (taken(t) < all && now_ns(CLOCK_MONOTONIC) < end)
    if (wait_take(ws, t, now_ns(CLOCK_MONOTONIC) + 50000000) < 0) return 1;
  int64_t exact = 0, in_order = 1;
  usage_t first = usage();
  for (size_t i = 0; i < topics; i++) {
    exact += t[i].exact;
    in_order &= t[i].in_order;
    if (t[i].n && t[i].first.cpu_ns < first.cpu_ns) first = t[i].first;
  }
  char head[128];
  snprintf(head, sizeof head, "DONE received=%" PRId64 " exact=%" PRId64 " in_order=%d", taken(t),
           exact, (int)in_order);
  say_usage(head, first);
  return taken(t) >= all ? 0 : 2;
}

int main(int argc, char **argv) {
  const char *role = argc > 1 ? argv[1] : "";
  int pubs = !strcmp(role, "pub") || !strcmp(role, "both"), subs = strcmp(role, "pub") != 0;
  if (!(argc == 6 && pubs) && !(argc == 5 && !strcmp(role, "sub"))) {
    fprintf(stderr, "usage: rcl_peer pub|both TOPIC KIND COUNT HZ | sub TOPIC KIND COUNT\n");
    return 1;
  }
  const char *topic = argv[2];
  kind_t kind;
  if (kind_parse(argv[3], &kind) < 0) return 1;
  int64_t count = atoll(argv[4]);
  double hz = pubs ? atof(argv[5]) : 1;
  if (count < 1 || !(hz >= 0))
    return fprintf(stderr, "rcl_peer: COUNT must be > 0 and HZ >= 0\n"), 1;
  const char *t_env = getenv("NETNS_PEER_TIMEOUT");
  if (t_env && atof(t_env) > 0) timeout_s = atof(t_env);
  const char *c_env = getenv("NETNS_PEER_CHECK");
  compare = !(c_env && strcmp(c_env, "0") == 0);
  const char *n_env = getenv("NETNS_PEER_SUBSCRIBERS");
  if (n_env && atoi(n_env) > 0) subscribers = (size_t)atoi(n_env);
  const char *topics_env = getenv("NETNS_PEER_TOPICS");
  if (topics_env && atoi(topics_env) > 0) topics = (size_t)atoi(topics_env);
  if (topics > 1 && !strcmp(role, "both"))
    return fprintf(stderr, "rcl_peer: NETNS_PEER_TOPICS is for pub and sub\n"), 1;

  rcl_allocator_t alloc = rcl_get_default_allocator();
  rcl_init_options_t opts = rcl_get_zero_initialized_init_options();
  rcl_context_t ctx = rcl_get_zero_initialized_context();
  if (rcl_init_options_init(&opts, alloc) != RCL_RET_OK) return fail("init options");
  if (rcl_init(argc, (const char *const *)argv, &opts, &ctx) != RCL_RET_OK) return fail("rcl_init");
  char name[96];
  const char *given = getenv("NETNS_PEER_NAME");
  snprintf(name, sizeof name, "%s", given ? given : "");
  if (!given) snprintf(name, sizeof name, "rcl_peer_%s", role);
  rcl_node_options_t node_opts = rcl_node_get_default_options();
  rcl_node_t pub_node = rcl_get_zero_initialized_node(), sub_node = rcl_get_zero_initialized_node();
  char sub_name[128];
  snprintf(sub_name, sizeof sub_name, "%s_sub", name);
  if (pubs && rcl_node_init(&pub_node, name, "", &ctx, &node_opts) != RCL_RET_OK)
    return fail("node");
  if (subs && rcl_node_init(&sub_node, pubs ? sub_name : name, "", &ctx, &node_opts) != RCL_RET_OK)
    return fail("node");

  const rosidl_message_type_support_t *ts = kind_type_support(&kind);
  rcl_publisher_t *pub = calloc(topics, sizeof *pub);
  taker_t *takers = calloc(topics, sizeof *takers);
  if (!pub || !takers) return fprintf(stderr, "rcl_peer: out of memory\n"), 1;
  char name_i[512];
  for (size_t i = 0; pubs && i < topics; i++) {
    rcl_publisher_options_t o = rcl_publisher_get_default_options();
    o.qos = qos();
    pub[i] = rcl_get_zero_initialized_publisher();
    topic_name(name_i, sizeof name_i, topic, i);
    if (rcl_publisher_init(&pub[i], &pub_node, ts, name_i, &o) != RCL_RET_OK)
      return fail("publisher");
  }
  rcl_wait_set_t ws = rcl_get_zero_initialized_wait_set();
  for (size_t i = 0; subs && i < topics; i++) {
    taker_t *t = &takers[i];
    *t = (taker_t){.kind = &kind, .sub = rcl_get_zero_initialized_subscription(), .in_order = 1,
                   .index = i};
    rcl_subscription_options_t o = rcl_subscription_get_default_options();
    o.qos = qos();
    topic_name(name_i, sizeof name_i, topic, i);
    if (rcl_subscription_init(&t->sub, &sub_node, ts, name_i, &o) != RCL_RET_OK)
      return fail("subscription");
    if (!(t->msg = kind_create(&kind))) return fprintf(stderr, "rcl_peer: out of memory\n"), 1;
  }
  if (subs && rcl_wait_set_init(&ws, topics, 0, 0, 0, 0, 0, &ctx, alloc) != RCL_RET_OK)
    return fail("wait set");
  printf("READY\n");
  fflush(stdout);
  int rc = pubs ? publish(&kind, pub, count, hz, &ws, subs ? takers : NULL)
                : subscribe(takers, &ws, count);
  /* Tear-down errors change nothing the lines have said: counted, reported, exit unchanged. */
  int bad = 0;
  if (subs) {
    bad += rcl_wait_set_fini(&ws) != RCL_RET_OK;
    for (size_t i = 0; i < topics; i++) {
      kind_destroy(&kind, takers[i].msg);
      bad += rcl_subscription_fini(&takers[i].sub, &sub_node) != RCL_RET_OK;
    }
    bad += rcl_node_fini(&sub_node) != RCL_RET_OK;
  }
  if (pubs) {
    for (size_t i = 0; i < topics; i++)
      bad += rcl_publisher_fini(&pub[i], &pub_node) != RCL_RET_OK;
    bad += rcl_node_fini(&pub_node) != RCL_RET_OK;
  }
  free(pub);
  free(takers);
  bad += rcl_shutdown(&ctx) != RCL_RET_OK;
  bad += rcl_context_fini(&ctx) != RCL_RET_OK;
  bad += rcl_init_options_fini(&opts) != RCL_RET_OK;
  if (bad) fprintf(stderr, "rcl_peer: %d tear-down calls failed\n", bad);
  return rc;
}

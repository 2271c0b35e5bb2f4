// ros1_sub: the roscpp subscriber for the hibari bench's ROS 1 peer (pairs with ros1_pub or
// py/pub.py).
//
// One single-threaded callback queue, as ros::spin() runs it. The callback reads CLOCK_REALTIME
// first thing, then takes the intended send time and index out of the message (see pub.cpp);
// latency = receive − intended. Indices below --warmup are counted but not measured. The program
// exits when the last index (warmup + count − 1) has arrived, when nothing arrived for
// --idle seconds after the first message, after --timeout seconds, or on SIGINT/SIGTERM — and
// in every case prints its summary.
//
//   ros1_sub --type laser|image|jpeg|bytes --topic /t [--count 200] [--warmup 20] [--rate 100]
//            [--tcp-nodelay] [--queue 1000] [--seq-base 0] [--csv out.csv] [--idle 5] [--timeout 600]
//
// --csv writes one line per measured message: seq,intended_ns,recv_ns,latency_us (seq is the
// 0-based measured index). --rate is only used for "bunched_pct": the share of receive gaps
// shorter than 20 % of the publish period (messages that arrived in a burst).
// --seq-base: the header.seq value of the publisher's first message (roscpp 0, rospy 1).
#include <ros/callback_queue.h>
#include <ros/ros.h>
#include <sensor_msgs/CompressedImage.h>
#include <sensor_msgs/Image.h>
#include <sensor_msgs/LaserScan.h>
#include <std_msgs/UInt8MultiArray.h>

#include <csignal>
#include <cstring>
#include <fstream>
#include <iostream>

#include "common.hpp"

namespace {

volatile std::sig_atomic_t g_stop = 0;
void on_signal(int) { g_stop = 1; }

struct Record {
  long seq;
  int64_t intended, recv;
};

struct State {
  long count = 200, warmup = 20, seq_base = 0;
  long warmup_seen = 0, ignored = 0;
  std::vector<Record> recs;
  std::vector<char> seen;
  long dups = 0, out_of_order = 0, last_seq = -1;
  bool done = false;
  int64_t last_rx_mono = 0;
  long size_bytes = -1;
  peer::Usage u0;
  bool window_open = false;

  void on_message(long index, int64_t intended, int64_t recv, long size) {
    last_rx_mono = peer::mono_ns();
    if (size_bytes < 0) size_bytes = size;
    if (index < 0 || index >= warmup + count) {
      ++ignored;
      return;
    }
    if (index < warmup) {
      ++warmup_seen;
      return;
    }
    if (!window_open) {
      u0 = peer::Usage::take();
      window_open = true;
    }
    const long seq = index - warmup;
    if (seen[size_t(seq)]) {
      ++dups;
      return;
    }
    seen[size_t(seq)] = 1;
    if (seq < last_seq) ++out_of_order;
    last_seq = std::max(last_seq, seq);
    recs.push_back({seq, intended, recv});
    if (index == warmup + count - 1) done = true;
  }
};

State g;

void on_laser(const sensor_msgs::LaserScan::ConstPtr& m) {
  const int64_t rx = peer::real_ns();
  g.on_message(long(m->header.seq) - g.seq_base, int64_t(m->header.stamp.toNSec()), rx,
               long(ros::serialization::serializationLength(*m)));
}
void on_image(const sensor_msgs::Image::ConstPtr& m) {
  const int64_t rx = peer::real_ns();
  g.on_message(long(m->header.seq) - g.seq_base, int64_t(m->header.stamp.toNSec()), rx,
               long(ros::serialization::serializationLength(*m)));
}
void on_jpeg(const sensor_msgs::CompressedImage::ConstPtr& m) {
  const int64_t rx = peer::real_ns();
  g.on_message(long(m->header.seq) - g.seq_base, int64_t(m->header.stamp.toNSec()), rx,
               long(ros::serialization::serializationLength(*m)));
}
void on_bytes(const std_msgs::UInt8MultiArray::ConstPtr& m) {
  const int64_t rx = peer::real_ns();
  int64_t t = 0, seq = -1;
  if (m->data.size() >= 16) {
    std::memcpy(&t, m->data.data(), 8);
    std::memcpy(&seq, m->data.data() + 8, 8);
  }
  g.on_message(long(seq), t, rx, long(ros::serialization::serializationLength(*m)));
}

}  // namespace

int main(int argc, char** argv) {
  ros::init(argc, argv, "ros1_sub", ros::init_options::AnonymousName | ros::init_options::NoSigintHandler);
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
  std::string type, topic, csv;
  bool nodelay = false;
  double rate = 0, idle_s = 5, timeout_s = 600;
  int queue = 1000;
  try {
    peer::Args a(argc, argv);
    type = a.str("type", "laser");
    topic = a.str("topic", "/hibari_bench");
    csv = a.str("csv", "");
    nodelay = a.has("tcp-nodelay");
    rate = a.num("rate", 0);
    idle_s = a.num("idle", 5);
    timeout_s = a.num("timeout", 600);
    queue = int(a.num("queue", 1000));
    g.count = long(a.num("count", 200));
    g.warmup = long(a.num("warmup", 20));
    g.seq_base = long(a.num("seq-base", 0));
    if (g.count <= 0 || g.warmup < 0) throw std::invalid_argument("--count must be > 0, --warmup >= 0");
    if (type != "laser" && type != "image" && type != "jpeg" && type != "bytes")
      throw std::invalid_argument("--type must be laser, image, jpeg or bytes, got '" + type + "'");
  } catch (const std::exception& e) {
    std::cout << peer::Json().str("role", "sub").str("error", e.what()).done() << std::endl;
    return 1;
  }
  g.seen.assign(size_t(g.count), 0);
  g.recs.reserve(size_t(g.count));

  if (!ros::master::check()) {
    std::cout << peer::Json().str("role", "sub").str("error", "no roscore answers at " + ros::master::getURI()).done()
              << std::endl;
    return 1;
  }
  ros::NodeHandle nh;
  ros::TransportHints hints;
  if (nodelay) hints = hints.tcpNoDelay();
  ros::Subscriber sub;
  if (type == "laser") sub = nh.subscribe(topic, uint32_t(queue), on_laser, hints);
  if (type == "image") sub = nh.subscribe(topic, uint32_t(queue), on_image, hints);
  if (type == "jpeg") sub = nh.subscribe(topic, uint32_t(queue), on_jpeg, hints);
  if (type == "bytes") sub = nh.subscribe(topic, uint32_t(queue), on_bytes, hints);

  const int64_t start = peer::mono_ns();
  std::string ended = "last";
  ros::CallbackQueue* q = ros::getGlobalCallbackQueue();
  while (!g.done) {
    if (g_stop || !ros::ok()) { ended = "signal"; break; }
    const int64_t now = peer::mono_ns();
    if (g.last_rx_mono != 0 && now - g.last_rx_mono > int64_t(idle_s * 1e9)) { ended = "idle"; break; }
    if (now - start > int64_t(timeout_s * 1e9)) { ended = "timeout"; break; }
    q->callAvailable(ros::WallDuration(0.05));
  }
  const peer::Usage u1 = peer::Usage::take();
  sub.shutdown();  // the publisher sees us leave and stops lingering

  std::vector<double> lat;
  lat.reserve(g.recs.size());
  for (const auto& r : g.recs) lat.push_back(double(r.recv - r.intended) / 1e3);
  long bunched = 0, over5 = 0;
  for (double l : lat) over5 += l > 5000.0;
  for (size_t i = 1; i < g.recs.size(); ++i)
    if (rate > 0 && double(g.recs[i].recv - g.recs[i - 1].recv) < 0.2e9 / rate) ++bunched;
  if (!csv.empty()) {
    std::ofstream f(csv);
    f << "seq,intended_ns,recv_ns,latency_us\n";
    for (size_t i = 0; i < g.recs.size(); ++i)
      f << g.recs[i].seq << ',' << g.recs[i].intended << ',' << g.recs[i].recv << ',' << lat[i] << '\n';
  }

  peer::Json j;
  j.str("role", "sub").str("lang", "cpp").str("type", type).str("topic", topic).boolean("tcp_nodelay", nodelay);
  j.integer("size_bytes", g.size_bytes).integer("expected", g.count).integer("received", long(g.recs.size()));
  j.integer("lost", g.count - long(g.recs.size())).integer("duplicates", g.dups);
  j.integer("out_of_order", g.out_of_order).integer("warmup_received", g.warmup_seen).integer("ignored", g.ignored);
  j.integer("over_5ms", over5);
  j.num("bunched_pct", g.recs.size() > 1 && rate > 0 ? 100.0 * double(bunched) / double(g.recs.size() - 1) : 0.0);
  j.str("ended", ended);
  peer::stats_json(j, "", lat);
  peer::usage_json(j, g.window_open ? g.u0 : u1, u1);
  std::cout << j.done() << std::endl;
  return g.recs.empty() ? 4 : 0;
}

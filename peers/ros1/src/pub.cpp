// ros1_pub: an open-loop, fixed-rate roscpp publisher for the hibari bench's ROS 1 peer.
//
// Message i (0-based; the first --warmup are warm-up, then --count measured) has the intended
// send time t0 + i/rate on CLOCK_REALTIME. The loop sleeps until that instant (or goes at once
// when late: no message is skipped and none is re-timed), writes the intended time into the
// message, fills it (for images a memcpy of a whole frame, as a camera driver would; for jpeg
// the JPEG encoding of the frame, so the encode time is inside the latency), and calls
// publish(). The subscriber computes latency = receive − intended, so a publisher that falls
// behind shows up as latency instead of hiding it (no coordinated omission).
//
//   ros1_pub --type laser|image|jpeg|bytes --topic /t [--rate 100] [--count 200] [--warmup 20]
//            [--ranges 1000 | --width 640 --height 480 [--quality 30] | --size 1024] [--queue 1000]
//            [--subs 1] [--wait 30] [--settle 0.5] [--linger 10]
//
// jpeg: sensor_msgs/CompressedImage (format "jpeg") of the frame hibari's E1 series encodes
// (byte k of the packed rgb8 frame is k mod 251), encoded anew for every message by libjpeg-turbo
// (jpeg.hpp) at --quality; the summary adds jpeg_bytes_mean and encode_{p50,mean,max}_us.
//
// Where the ids live: LaserScan, Image and CompressedImage carry the intended time in header.stamp and the index
// in header.seq (roscpp writes its own publication counter there: 0, 1, 2, … one per publish()
// call, which is the loop index); bytes (std_msgs/UInt8MultiArray) carry both in the first 16
// data bytes, little endian (intended ns, then index).
//
// Prints one JSON line on stdout when done (README.md, "Output").
#include <ros/ros.h>
#include <sensor_msgs/CompressedImage.h>
#include <sensor_msgs/Image.h>
#include <sensor_msgs/LaserScan.h>
#include <std_msgs/UInt8MultiArray.h>

#include <csignal>
#include <cstring>
#include <iostream>

#include "common.hpp"
#include "jpeg.hpp"

namespace {

volatile std::sig_atomic_t g_stop = 0;
void on_signal(int) { g_stop = 1; }

// Filled by the jpeg fill for measured messages; added to the summary when not empty.
std::vector<double> g_encode_us, g_jpeg_bytes;

struct Config {
  std::string topic;
  double rate = 100;
  long count = 200;
  long warmup = 20;
  int queue = 1000;
  int subs = 1;
  double wait_s = 30, settle_s = 0.5, linger_s = 10;
};

ros::Time to_ros(int64_t ns) {
  ros::Time t;
  t.fromNSec(uint64_t(ns));
  return t;
}

// Runs the publish loop for message type M; `fill(msg, i, intended_ns)` stamps and fills.
template <class M, class Fill>
int run(ros::NodeHandle& nh, const Config& c, const std::string& type, M& msg, Fill fill) {
  ros::Publisher pub = nh.advertise<M>(c.topic, c.queue);
  const int64_t wait_end = peer::mono_ns() + int64_t(c.wait_s * 1e9);
  while (pub.getNumSubscribers() < uint32_t(c.subs) && !g_stop) {
    if (peer::mono_ns() > wait_end || !ros::ok()) {
      std::cout << peer::Json().str("role", "pub").str("error", "no subscriber within --wait").done()
                << std::endl;
      return 2;
    }
    ros::WallDuration(0.01).sleep();
  }
  ros::WallDuration(c.settle_s).sleep();

  const long total = c.warmup + c.count;
  const int64_t period = int64_t(1e9 / c.rate);
  std::vector<double> call_us, late_us;
  call_us.reserve(size_t(c.count));
  late_us.reserve(size_t(c.count));
  peer::Usage u0 = peer::Usage::take();
  const int64_t t0 = peer::real_ns() + period;  // first slot one period ahead
  long sent = 0;
  for (long i = 0; i < total && !g_stop && ros::ok(); ++i) {
    const int64_t intended = t0 + i * period;
    peer::sleep_until_real(intended);
    if (i == c.warmup) u0 = peer::Usage::take();
    const double late = double(peer::real_ns() - intended) / 1e3;
    fill(msg, i, intended);
    const int64_t a = peer::mono_ns();
    pub.publish(msg);
    const int64_t b = peer::mono_ns();
    if (i >= c.warmup) {
      call_us.push_back(double(b - a) / 1e3);
      late_us.push_back(late);
      ++sent;
    }
  }
  const peer::Usage u1 = peer::Usage::take();

  // Stay until the subscriber has everything and leaves (it exits on the last index).
  const int64_t linger_end = peer::mono_ns() + int64_t(c.linger_s * 1e9);
  while (pub.getNumSubscribers() > 0 && peer::mono_ns() < linger_end && !g_stop && ros::ok())
    ros::WallDuration(0.01).sleep();

  peer::Json j;
  j.str("role", "pub").str("lang", "cpp").str("type", type).str("topic", c.topic);
  j.integer("size_bytes", long(ros::serialization::serializationLength(msg)));
  j.num("rate_hz", c.rate).integer("warmup", c.warmup).integer("sent", sent);
  j.integer("seq_base", 0).integer("queue", c.queue);
  peer::stats_json(j, "publish_", call_us);
  peer::stats_json(j, "late_", late_us);
  peer::usage_json(j, u0, u1);
  if (!g_jpeg_bytes.empty()) {
    double sum = 0;
    for (double b : g_jpeg_bytes) sum += b;
    j.num("jpeg_bytes_mean", sum / double(g_jpeg_bytes.size()));
    std::sort(g_encode_us.begin(), g_encode_us.end());
    double esum = 0;
    for (double e : g_encode_us) esum += e;
    j.num("encode_p50_us", g_encode_us[(g_encode_us.size() - 1) / 2]);
    j.num("encode_mean_us", esum / double(g_encode_us.size())).num("encode_max_us", g_encode_us.back());
  }
  std::cout << j.done() << std::endl;
  return sent == c.count ? 0 : 3;
}

}  // namespace

int main(int argc, char** argv) {
  ros::init(argc, argv, "ros1_pub", ros::init_options::AnonymousName | ros::init_options::NoSigintHandler);
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
  try {
    peer::Args a(argc, argv);
    Config c;
    const std::string type = a.str("type", "laser");
    c.topic = a.str("topic", "/hibari_bench");
    c.rate = a.num("rate", 100);
    c.count = long(a.num("count", 200));
    c.warmup = long(a.num("warmup", 20));
    c.queue = int(a.num("queue", 1000));
    c.subs = int(a.num("subs", 1));
    c.wait_s = a.num("wait", 30);
    c.settle_s = a.num("settle", 0.5);
    c.linger_s = a.num("linger", 10);
    if (c.rate <= 0 || c.count <= 0 || c.warmup < 0) throw std::invalid_argument("--rate and --count must be > 0");
    if (type != "laser" && type != "image" && type != "jpeg" && type != "bytes")
      throw std::invalid_argument("--type must be laser, image, jpeg or bytes, got '" + type + "'");
    if (!ros::master::check()) throw std::runtime_error("no roscore answers at " + ros::master::getURI());
    ros::NodeHandle nh;

    if (type == "laser") {
      sensor_msgs::LaserScan m;
      const long n = long(a.num("ranges", 1000));
      m.header.frame_id = "laser";
      m.angle_min = -3.14159f;
      m.angle_max = 3.14159f;
      m.angle_increment = n > 1 ? (m.angle_max - m.angle_min) / float(n - 1) : 0.f;
      m.time_increment = 0.f;
      m.scan_time = float(1.0 / c.rate);
      m.range_min = 0.1f;
      m.range_max = 30.f;
      m.ranges.resize(size_t(n));
      for (long k = 0; k < n; ++k) m.ranges[size_t(k)] = 1.f + float(k % 1000) * 0.01f;
      return run(nh, c, type, m, [](sensor_msgs::LaserScan& msg, long, int64_t t) { msg.header.stamp = to_ros(t); });
    }
    if (type == "image") {
      sensor_msgs::Image m;
      const uint32_t w = uint32_t(a.num("width", 640)), h = uint32_t(a.num("height", 480));
      m.header.frame_id = "camera";
      m.width = w;
      m.height = h;
      m.encoding = "rgb8";
      m.is_bigendian = 0;
      m.step = w * 3;
      m.data.resize(size_t(w) * h * 3);
      // Four synthetic frames (gradient plus a moving band) copied in turn, like a camera driver.
      std::vector<std::vector<uint8_t>> frames(4, std::vector<uint8_t>(m.data.size()));
      for (size_t f = 0; f < frames.size(); ++f)
        for (size_t p = 0; p < m.data.size(); ++p) frames[f][p] = uint8_t((p / 3 + f * 37 + (p % 3) * 85) & 0xff);
      return run(nh, c, type, m, [&frames](sensor_msgs::Image& msg, long i, int64_t t) {
        msg.header.stamp = to_ros(t);
        const auto& src = frames[size_t(i) % frames.size()];
        std::memcpy(msg.data.data(), src.data(), src.size());
      });
    }
    if (type == "jpeg") {
      sensor_msgs::CompressedImage m;
      const uint32_t w = uint32_t(a.num("width", 640)), h = uint32_t(a.num("height", 480));
      const int quality = int(a.num("quality", 30));
      if (w == 0 || h == 0 || quality < 1 || quality > 100)
        throw std::invalid_argument("--width/--height must be > 0, --quality 1-100");
      m.header.frame_id = "camera";
      m.format = "jpeg";
      // hibari's E1 frame (crates/hibari-bench workload.rs): byte k is k mod 251.
      std::vector<uint8_t> frame(size_t(w) * h * 3);
      for (size_t k = 0; k < frame.size(); ++k) frame[k] = uint8_t(k % 251);
      peer::JpegEncoder enc;
      g_encode_us.reserve(size_t(c.count));
      g_jpeg_bytes.reserve(size_t(c.count));
      const long warmup = c.warmup;
      return run(nh, c, type, m, [&](sensor_msgs::CompressedImage& msg, long i, int64_t t) {
        msg.header.stamp = to_ros(t);
        const int64_t e0 = peer::mono_ns();
        enc.encode(frame.data(), w, h, quality, msg.data);
        if (i >= warmup) {
          g_encode_us.push_back(double(peer::mono_ns() - e0) / 1e3);
          g_jpeg_bytes.push_back(double(msg.data.size()));
        }
      });
    }
    if (type == "bytes") {
      std_msgs::UInt8MultiArray m;
      const size_t n = std::max<size_t>(16, size_t(a.num("size", 1024)));
      m.data.resize(n);
      for (size_t k = 0; k < n; ++k) m.data[k] = uint8_t(k * 31);
      return run(nh, c, type, m, [](std_msgs::UInt8MultiArray& msg, long i, int64_t t) {
        const int64_t seq = i;
        std::memcpy(msg.data.data(), &t, 8);
        std::memcpy(msg.data.data() + 8, &seq, 8);
      });
    }
    return 1;  // unreachable: --type was checked above
  } catch (const std::exception& e) {
    std::cout << peer::Json().str("role", "pub").str("error", e.what()).done() << std::endl;
    return 1;
  }
}

// Shared pieces of the ROS 1 peer programs (ros1_pub, ros1_sub): argument parsing, clocks,
// order statistics, getrusage windows and a tiny JSON writer. Header-only so the build is one
// g++ call per program (scripts/ros1-peer.sh).
//
// Clocks: stamps and receive times are CLOCK_REALTIME nanoseconds (what ros::Time::now() reads),
// so publisher and subscriber in different processes on one host share them without sync.
// Durations inside one process (the publish() call) use CLOCK_MONOTONIC.
#pragma once

#include <sys/resource.h>
#include <time.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace peer {

inline int64_t now_ns(clockid_t clock) {
  timespec ts{};
  clock_gettime(clock, &ts);
  return int64_t(ts.tv_sec) * 1000000000LL + ts.tv_nsec;
}
inline int64_t real_ns() { return now_ns(CLOCK_REALTIME); }
inline int64_t mono_ns() { return now_ns(CLOCK_MONOTONIC); }

// Sleeps until the absolute CLOCK_REALTIME instant `t_ns` (returns at once when it has passed).
inline void sleep_until_real(int64_t t_ns) {
  timespec ts{};
  ts.tv_sec = t_ns / 1000000000LL;
  ts.tv_nsec = t_ns % 1000000000LL;
  while (clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &ts, nullptr) == EINTR) {
  }
}

// `--key value` and bare `--flag` arguments; ROS remappings (`a:=b`) are left to ros::init.
class Args {
 public:
  Args(int argc, char** argv) {
    for (int i = 1; i < argc; ++i) {
      std::string a = argv[i];
      if (a.rfind("--", 0) != 0) continue;
      a = a.substr(2);
      auto eq = a.find('=');
      if (eq != std::string::npos) {
        kv_[a.substr(0, eq)] = a.substr(eq + 1);
      } else if (i + 1 < argc && std::string(argv[i + 1]).rfind("--", 0) != 0) {
        kv_[a] = argv[++i];
      } else {
        kv_[a] = "";
      }
    }
  }
  bool has(const std::string& k) const { return kv_.count(k) > 0; }
  std::string str(const std::string& k, const std::string& def) const {
    auto it = kv_.find(k);
    return it == kv_.end() ? def : it->second;
  }
  double num(const std::string& k, double def) const {
    auto it = kv_.find(k);
    if (it == kv_.end()) return def;
    char* end = nullptr;
    double v = std::strtod(it->second.c_str(), &end);
    if (end == it->second.c_str() || *end != '\0')
      throw std::invalid_argument("--" + k + " expects a number, got '" + it->second + "'");
    return v;
  }

 private:
  std::map<std::string, std::string> kv_;
};

// Resource use over a window: getrusage (user/sys split, context switches) plus
// CLOCK_PROCESS_CPUTIME_ID (precise user+sys total; the tick-based split can read 0 on a VM).
struct Usage {
  rusage ru{};
  int64_t cpu_ns = 0;
  int64_t mono = 0;
  static Usage take() {
    Usage u;
    getrusage(RUSAGE_SELF, &u.ru);
    u.cpu_ns = now_ns(CLOCK_PROCESS_CPUTIME_ID);
    u.mono = mono_ns();
    return u;
  }
};

inline double tv_s(const timeval& t) { return double(t.tv_sec) + double(t.tv_usec) / 1e6; }

// A flat JSON object built field by field (numbers, strings, booleans, nested raw objects).
class Json {
 public:
  Json& num(const std::string& k, double v) {
    std::ostringstream o;
    if (std::isfinite(v)) {
      o.precision(15);
      o << v;
    } else {
      o << "null";
    }
    return raw(k, o.str());
  }
  Json& integer(const std::string& k, long long v) { return raw(k, std::to_string(v)); }
  Json& str(const std::string& k, const std::string& v) {
    std::string e;
    for (char ch : v) {
      if (ch == '"' || ch == '\\') e += '\\';
      if (static_cast<unsigned char>(ch) >= 0x20) e += ch;
    }
    return raw(k, "\"" + e + "\"");
  }
  Json& boolean(const std::string& k, bool v) { return raw(k, v ? "true" : "false"); }
  Json& raw(const std::string& k, const std::string& v) {
    body_ += (body_.empty() ? "" : ",") + ("\"" + k + "\":") + v;
    return *this;
  }
  std::string done() const { return "{" + body_ + "}"; }

 private:
  std::string body_;
};

// Adds the window [a, b] of resource use to `j` with keys cpu_s, cpu_user_s, cpu_sys_s,
// ctx_voluntary, ctx_involuntary, window_s.
inline void usage_json(Json& j, const Usage& a, const Usage& b) {
  j.num("cpu_s", double(b.cpu_ns - a.cpu_ns) / 1e9)
      .num("cpu_user_s", tv_s(b.ru.ru_utime) - tv_s(a.ru.ru_utime))
      .num("cpu_sys_s", tv_s(b.ru.ru_stime) - tv_s(a.ru.ru_stime))
      .integer("ctx_voluntary", b.ru.ru_nvcsw - a.ru.ru_nvcsw)
      .integer("ctx_involuntary", b.ru.ru_nivcsw - a.ru.ru_nivcsw)
      .num("window_s", double(b.mono - a.mono) / 1e9);
}

// Order statistics of samples in µs: nearest-rank percentiles (p = 50 → the ceil(n/2)-th
// smallest), population standard deviation. Prefix each key with `prefix`.
inline void stats_json(Json& j, const std::string& prefix, std::vector<double> v) {
  const char* names[] = {"p50", "p90", "p99", "p999"};
  const double ps[] = {50.0, 90.0, 99.0, 99.9};
  if (v.empty()) {
    for (auto n : names) j.raw(prefix + n + "_us", "null");
    j.raw(prefix + "max_us", "null").raw(prefix + "min_us", "null");
    j.raw(prefix + "mean_us", "null").raw(prefix + "stddev_us", "null");
    return;
  }
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  for (int i = 0; i < 4; ++i) {
    size_t rank = size_t(std::ceil(ps[i] / 100.0 * double(n)));
    j.num(prefix + names[i] + "_us", v[std::max<size_t>(rank, 1) - 1]);
  }
  double sum = 0;
  for (double x : v) sum += x;
  const double mean = sum / double(n);
  double ss = 0;
  for (double x : v) ss += (x - mean) * (x - mean);
  j.num(prefix + "max_us", v.back()).num(prefix + "min_us", v.front());
  j.num(prefix + "mean_us", mean).num(prefix + "stddev_us", std::sqrt(ss / double(n)));
}

}  // namespace peer

// hibari C++: time stamps (system time) and a clock, enough for now().
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <thread>

namespace hibari {

/// A duration in ns (rclcpp::Duration, reduced).
class Duration {
public:
  explicit Duration(int64_t ns = 0) : ns_(ns) {}
  template <class Rep, class Period>
  Duration(std::chrono::duration<Rep, Period> d)  // NOLINT: implicit, as rclcpp's
      : ns_(std::chrono::duration_cast<std::chrono::nanoseconds>(d).count()) {}
  static Duration from_seconds(double s) { return Duration(static_cast<int64_t>(s * 1e9)); }
  int64_t nanoseconds() const { return ns_; }
  double seconds() const { return static_cast<double>(ns_) * 1e-9; }
  std::chrono::nanoseconds to_chrono() const { return std::chrono::nanoseconds(ns_); }

private:
  int64_t ns_;
};

/// A point in time: ns since the UNIX epoch (rclcpp::Time, reduced).
class Time {
public:
  explicit Time(int64_t ns = 0) : ns_(ns) {}
  Time(int32_t sec, uint32_t nanosec) : ns_(static_cast<int64_t>(sec) * 1000000000 + nanosec) {}
  int64_t nanoseconds() const { return ns_; }
  double seconds() const { return static_cast<double>(ns_) * 1e-9; }
  Duration operator-(const Time &other) const { return Duration(ns_ - other.ns_); }
  Time operator+(const Duration &d) const { return Time(ns_ + d.nanoseconds()); }
  Time operator-(const Duration &d) const { return Time(ns_ - d.nanoseconds()); }
  bool operator==(const Time &o) const { return ns_ == o.ns_; }
  bool operator!=(const Time &o) const { return ns_ != o.ns_; }
  bool operator<(const Time &o) const { return ns_ < o.ns_; }
  bool operator<=(const Time &o) const { return ns_ <= o.ns_; }
  bool operator>(const Time &o) const { return ns_ > o.ns_; }
  bool operator>=(const Time &o) const { return ns_ >= o.ns_; }

private:
  int64_t ns_;
};

/// The system clock. Node::now() reads the node's ROS clock instead, which
/// follows /clock while use_sim_time is true.
class Clock {
public:
  using SharedPtr = std::shared_ptr<Clock>;
  Time now() const {
    const auto since = std::chrono::system_clock::now().time_since_epoch();
    return Time(std::chrono::duration_cast<std::chrono::nanoseconds>(since).count());
  }
};

/// Paces a loop on the steady clock (rclcpp::WallRate): sleep() waits until
/// one period after the previous wake-up, so the loop's own work does not
/// stretch the period. After an overrun it starts over from now and returns
/// false (rclcpp does the same), instead of rushing to catch up.
class WallRate {
public:
  explicit WallRate(double hz)
      : period_(std::chrono::duration_cast<std::chrono::steady_clock::duration>(
            std::chrono::duration<double>(1.0 / hz))),
        next_(std::chrono::steady_clock::now() + period_) {}
  template <class Rep, class Period>
  explicit WallRate(std::chrono::duration<Rep, Period> period)
      : period_(std::chrono::duration_cast<std::chrono::steady_clock::duration>(period)),
        next_(std::chrono::steady_clock::now() + period_) {}

  /// Sleeps to the end of the period; false if it had already passed.
  bool sleep() {
    const auto now = std::chrono::steady_clock::now();
    if (now >= next_) {
      next_ = now + period_;
      return false;
    }
    std::this_thread::sleep_until(next_);
    next_ += period_;
    return true;
  }
  /// Starts the period over from now.
  void reset() { next_ = std::chrono::steady_clock::now() + period_; }
  std::chrono::nanoseconds period() const { return period_; }

private:
  std::chrono::steady_clock::duration period_;
  std::chrono::steady_clock::time_point next_;
};
/// rclcpp::Rate: here the same as WallRate (steady, not simulated, time).
using Rate = WallRate;

}  // namespace hibari

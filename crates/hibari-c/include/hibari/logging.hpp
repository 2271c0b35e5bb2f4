// hibari C++: loggers and the HIBARI_* logging macros (rclcpp's RCLCPP_*).
//
//   HIBARI_INFO(node->get_logger(), "sum: %" PRId64, sum);     // printf-style
//   HIBARI_WARN_STREAM(get_logger(), "pose " << x << ", " << y);
//   HIBARI_ERROR_ONCE(get_logger(), "shown once");
//   HIBARI_WARN_THROTTLE(get_logger(), *get_clock(), 1000, "at most once a second");
//
// A node's logger writes to the console in ROS 2's format and to /rosout;
// hibari::get_logger(name) is one of its own, to the console only. The
// message is formatted only when its severity is enabled.
#pragma once

#include <hibari.h>

#include <atomic>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <sstream>
#include <string>
#include <utility>

#include "hibari/exceptions.hpp"

namespace hibari {

namespace detail {
class NodeHandle;
}

/// A logger: a node's (Node::get_logger) or a named one (get_logger).
class Logger {
public:
  /// rclcpp's Logger::Level.
  enum class Level : int32_t {
    Unset = HIBARI_LOG_UNSET,
    Debug = HIBARI_LOG_DEBUG,
    Info = HIBARI_LOG_INFO,
    Warn = HIBARI_LOG_WARN,
    Error = HIBARI_LOG_ERROR,
    Fatal = HIBARI_LOG_FATAL,
  };

  /// A node's logger; `keep` keeps the node alive as long as the logger.
  Logger(hibari_node_t node, std::string name, std::shared_ptr<void> keep)
      : node_(node), name_(std::move(name)), keep_(std::move(keep)) {}
  /// A named logger of its own.
  explicit Logger(std::string name) : name_(std::move(name)) {}

  const char *get_name() const { return name_.c_str(); }

  /// `name.suffix`, to the console only.
  Logger get_child(const std::string &suffix) const { return Logger(name_ + "." + suffix); }

  bool is_enabled_for(int32_t severity) const {
    bool enabled = false;
    const hibari_ret_t r = node_.id != 0
                               ? hibari_logger_is_enabled_for(node_, severity, &enabled)
                               : hibari_named_logger_is_enabled_for(name_.c_str(), severity, &enabled);
    return r == HIBARI_OK && enabled;
  }

  /// Writes a record (the macros check is_enabled_for first). Never throws.
  void log(int32_t severity, const char *file, int line, const char *function,
           const std::string &message) const noexcept {
    if (node_.id != 0) {
      hibari_log(node_, severity, file, line, function, message.c_str());
    } else {
      hibari_log_named(name_.c_str(), severity, file, line, function, message.c_str());
    }
  }

  /// Sets the level of a node's logger.
  void set_level(Level level) const {
    detail::check(hibari_logger_set_level(node_, static_cast<int32_t>(level)), "Logger::set_level");
  }

private:
  hibari_node_t node_{};
  std::string name_;
  std::shared_ptr<void> keep_;
};

/// A logger of its own named `name` (rclcpp::get_logger).
inline Logger get_logger(const std::string &name) { return Logger(name); }

namespace detail {

#if defined(__GNUC__)
__attribute__((format(printf, 1, 2)))
#endif
inline std::string
format(const char *fmt, ...) {
  va_list args;
  va_start(args, fmt);
  va_list copy;
  va_copy(copy, args);
  const int n = std::vsnprintf(nullptr, 0, fmt, copy);
  va_end(copy);
  std::string out;
  if (n > 0) {
    out.resize(static_cast<size_t>(n) + 1);
    std::vsnprintf(&out[0], out.size(), fmt, args);
    out.resize(static_cast<size_t>(n));
  }
  va_end(args);
  return out;
}

}  // namespace detail
}  // namespace hibari

#define HIBARI_DETAIL_LOG(severity, logger, ...)                                                   \
  do {                                                                                             \
    const ::hibari::Logger &hibari_logger_ = (logger);                                             \
    if (hibari_logger_.is_enabled_for(severity)) {                                                 \
      hibari_logger_.log(severity, __FILE__, __LINE__, __func__,                                   \
                         ::hibari::detail::format(__VA_ARGS__));                                   \
    }                                                                                              \
  } while (0)

#define HIBARI_DETAIL_LOG_STREAM(severity, logger, stream_arg)                                     \
  do {                                                                                             \
    const ::hibari::Logger &hibari_logger_ = (logger);                                             \
    if (hibari_logger_.is_enabled_for(severity)) {                                                 \
      std::stringstream hibari_stream_;                                                            \
      hibari_stream_ << stream_arg;                                                                \
      hibari_logger_.log(severity, __FILE__, __LINE__, __func__, hibari_stream_.str());            \
    }                                                                                              \
  } while (0)

#define HIBARI_DETAIL_LOG_ONCE(severity, logger, ...)                                              \
  do {                                                                                             \
    static std::atomic<bool> hibari_once_{false};                                                  \
    if (!hibari_once_.exchange(true)) HIBARI_DETAIL_LOG(severity, logger, __VA_ARGS__);            \
  } while (0)

// At most once per `duration_ms` of `clock` (a hibari::Clock) per call site.
#define HIBARI_DETAIL_LOG_THROTTLE(severity, logger, clock, duration_ms, ...)                      \
  do {                                                                                             \
    static std::atomic<int64_t> hibari_last_ns_{INT64_MIN};                                        \
    const int64_t hibari_now_ns_ = (clock).now().nanoseconds();                                    \
    int64_t hibari_seen_ = hibari_last_ns_.load();                                                 \
    if ((hibari_seen_ == INT64_MIN ||                                                              \
         hibari_now_ns_ - hibari_seen_ >= static_cast<int64_t>(duration_ms) * 1000000) &&          \
        hibari_last_ns_.compare_exchange_strong(hibari_seen_, hibari_now_ns_)) {                   \
      HIBARI_DETAIL_LOG(severity, logger, __VA_ARGS__);                                            \
    }                                                                                              \
  } while (0)

#define HIBARI_DEBUG(logger, ...) HIBARI_DETAIL_LOG(HIBARI_LOG_DEBUG, logger, __VA_ARGS__)
#define HIBARI_INFO(logger, ...) HIBARI_DETAIL_LOG(HIBARI_LOG_INFO, logger, __VA_ARGS__)
#define HIBARI_WARN(logger, ...) HIBARI_DETAIL_LOG(HIBARI_LOG_WARN, logger, __VA_ARGS__)
#define HIBARI_ERROR(logger, ...) HIBARI_DETAIL_LOG(HIBARI_LOG_ERROR, logger, __VA_ARGS__)
#define HIBARI_FATAL(logger, ...) HIBARI_DETAIL_LOG(HIBARI_LOG_FATAL, logger, __VA_ARGS__)
#define HIBARI_DEBUG_STREAM(logger, s) HIBARI_DETAIL_LOG_STREAM(HIBARI_LOG_DEBUG, logger, s)
#define HIBARI_INFO_STREAM(logger, s) HIBARI_DETAIL_LOG_STREAM(HIBARI_LOG_INFO, logger, s)
#define HIBARI_WARN_STREAM(logger, s) HIBARI_DETAIL_LOG_STREAM(HIBARI_LOG_WARN, logger, s)
#define HIBARI_ERROR_STREAM(logger, s) HIBARI_DETAIL_LOG_STREAM(HIBARI_LOG_ERROR, logger, s)
#define HIBARI_FATAL_STREAM(logger, s) HIBARI_DETAIL_LOG_STREAM(HIBARI_LOG_FATAL, logger, s)
#define HIBARI_DEBUG_ONCE(logger, ...) HIBARI_DETAIL_LOG_ONCE(HIBARI_LOG_DEBUG, logger, __VA_ARGS__)
#define HIBARI_INFO_ONCE(logger, ...) HIBARI_DETAIL_LOG_ONCE(HIBARI_LOG_INFO, logger, __VA_ARGS__)
#define HIBARI_WARN_ONCE(logger, ...) HIBARI_DETAIL_LOG_ONCE(HIBARI_LOG_WARN, logger, __VA_ARGS__)
#define HIBARI_ERROR_ONCE(logger, ...) HIBARI_DETAIL_LOG_ONCE(HIBARI_LOG_ERROR, logger, __VA_ARGS__)
#define HIBARI_FATAL_ONCE(logger, ...) HIBARI_DETAIL_LOG_ONCE(HIBARI_LOG_FATAL, logger, __VA_ARGS__)
#define HIBARI_DEBUG_THROTTLE(logger, clock, ms, ...) \
  HIBARI_DETAIL_LOG_THROTTLE(HIBARI_LOG_DEBUG, logger, clock, ms, __VA_ARGS__)
#define HIBARI_INFO_THROTTLE(logger, clock, ms, ...) \
  HIBARI_DETAIL_LOG_THROTTLE(HIBARI_LOG_INFO, logger, clock, ms, __VA_ARGS__)
#define HIBARI_WARN_THROTTLE(logger, clock, ms, ...) \
  HIBARI_DETAIL_LOG_THROTTLE(HIBARI_LOG_WARN, logger, clock, ms, __VA_ARGS__)
#define HIBARI_ERROR_THROTTLE(logger, clock, ms, ...) \
  HIBARI_DETAIL_LOG_THROTTLE(HIBARI_LOG_ERROR, logger, clock, ms, __VA_ARGS__)
#define HIBARI_FATAL_THROTTLE(logger, clock, ms, ...) \
  HIBARI_DETAIL_LOG_THROTTLE(HIBARI_LOG_FATAL, logger, clock, ms, __VA_ARGS__)

// hibari C++: QoS profiles, shaped like rclcpp::QoS.
#pragma once

#include <hibari.h>

#include <chrono>
#include <cstddef>
#include <cstdint>

namespace hibari {

/// rclcpp::KeepLast: keep the last `depth` samples.
struct KeepLast {
  explicit KeepLast(size_t d) : depth(d) {}
  size_t depth;
};

/// rclcpp::KeepAll: keep every sample until taken.
struct KeepAll {};

/// A QoS profile: `hibari::QoS(10).reliable().transient_local()`. A bare
/// depth converts to one (reliable, keep last `depth`, volatile).
class QoS {
public:
  QoS(size_t depth) : qos_(hibari_qos_default()) { keep_last(depth); }  // NOLINT: implicit, as rclcpp's
  QoS(KeepLast history) : QoS(history.depth) {}                        // NOLINT
  QoS(KeepAll) : qos_(hibari_qos_default()) { keep_all(); }             // NOLINT
  explicit QoS(const hibari_qos_t &qos) : qos_(qos) {}

  QoS &reliable() { qos_.reliability = HIBARI_RELIABILITY_RELIABLE; return *this; }
  QoS &best_effort() { qos_.reliability = HIBARI_RELIABILITY_BEST_EFFORT; return *this; }
  QoS &durability_volatile() { qos_.durability = HIBARI_DURABILITY_VOLATILE; return *this; }
  QoS &transient_local() { qos_.durability = HIBARI_DURABILITY_TRANSIENT_LOCAL; return *this; }
  QoS &keep_last(size_t depth) {
    qos_.history = HIBARI_HISTORY_KEEP_LAST;
    qos_.depth = static_cast<uint32_t>(depth == 0 ? 1 : depth);
    return *this;
  }
  QoS &keep_all() { qos_.history = HIBARI_HISTORY_KEEP_ALL; return *this; }
  template <class Rep, class Period> QoS &deadline(std::chrono::duration<Rep, Period> d) {
    qos_.deadline_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(d).count();
    return *this;
  }
  template <class Rep, class Period> QoS &lifespan(std::chrono::duration<Rep, Period> d) {
    qos_.lifespan_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(d).count();
    return *this;
  }
  QoS &liveliness_automatic() { qos_.liveliness = HIBARI_LIVELINESS_AUTOMATIC; return *this; }
  QoS &liveliness_manual_by_topic() { qos_.liveliness = HIBARI_LIVELINESS_MANUAL_BY_TOPIC; return *this; }
  template <class Rep, class Period> QoS &liveliness_lease_duration(std::chrono::duration<Rep, Period> d) {
    qos_.liveliness_lease_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(d).count();
    return *this;
  }

  size_t depth() const { return qos_.depth; }
  /// The C struct, for hibari.h's functions.
  const hibari_qos_t &get_c_qos() const { return qos_; }

private:
  QoS(hibari_qos_t qos, int) : qos_(qos) {}
  hibari_qos_t qos_;
  friend class SensorDataQoS;
  friend class ServicesQoS;
};

/// Best effort, keep last 5, volatile.
class SensorDataQoS : public QoS {
public:
  SensorDataQoS() : QoS(hibari_qos_sensor_data(), 0) {}
};

/// The services profile: reliable, keep last 10, volatile.
class ServicesQoS : public QoS {
public:
  ServicesQoS() : QoS(hibari_qos_services_default(), 0) {}
};

/// rclcpp's SystemDefaultsQoS: here, the default profile.
class SystemDefaultsQoS : public QoS {
public:
  SystemDefaultsQoS() : QoS(hibari_qos_default()) {}
};

}  // namespace hibari

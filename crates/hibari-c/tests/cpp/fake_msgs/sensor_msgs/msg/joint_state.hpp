// Test stand-in for the generated sensor_msgs/msg/JointState (its header's
// stamp and frame_id inline): arrays of float64 after strings, and fields
// after each array (what loan_with_array's layout must get right).
#pragma once
#include <hibari/cdr.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace sensor_msgs::msg {
struct JointState {
  int32_t stamp_sec = 0;
  uint32_t stamp_nanosec = 0;
  std::string frame_id;
  std::vector<std::string> name;
  std::vector<double> position;
  std::vector<double> velocity;
  std::vector<double> effort;
  using SharedPtr = std::shared_ptr<JointState>;
  using ConstSharedPtr = std::shared_ptr<const JointState>;
  using UniquePtr = std::unique_ptr<JointState>;
  static constexpr const char *TYPE_NAME = "sensor_msgs/msg/JointState";
  bool operator==(const JointState &o) const {
    return stamp_sec == o.stamp_sec && stamp_nanosec == o.stamp_nanosec && frame_id == o.frame_id &&
           name == o.name && position == o.position && velocity == o.velocity && effort == o.effort;
  }
  bool operator!=(const JointState &o) const { return !(*this == o); }
};
inline void cdr_serialize(const JointState &m, ::hibari::cdr::Writer &w) {
  using ::hibari::cdr::unbounded;
  w.write(m.stamp_sec);
  w.write(m.stamp_nanosec);
  w.write_string(m.frame_id, unbounded, "header.frame_id");
  w.write_count(m.name.size(), unbounded, "name");
  for (const auto &n : m.name) w.write_string(n, unbounded, "name");
  w.write_sequence(m.position, unbounded, "position");
  w.write_sequence(m.velocity, unbounded, "velocity");
  w.write_sequence(m.effort, unbounded, "effort");
}
inline void cdr_deserialize(::hibari::cdr::Reader &r, JointState &m) {
  using ::hibari::cdr::unbounded;
  r.read(m.stamp_sec, "header.stamp.sec");
  r.read(m.stamp_nanosec, "header.stamp.nanosec");
  r.read_string(m.frame_id, unbounded, "header.frame_id");
  m.name.resize(r.read_count(4, unbounded, "name"));
  for (auto &n : m.name) r.read_string(n, unbounded, "name");
  r.read_sequence(m.position, unbounded, "position");
  r.read_sequence(m.velocity, unbounded, "velocity");
  r.read_sequence(m.effort, unbounded, "effort");
}
}  // namespace sensor_msgs::msg

// Test stand-in for the generated sensor_msgs/msg/Image (its header's stamp
// and frame_id inline).
#pragma once
#include <hibari/cdr.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace sensor_msgs::msg {
struct Image {
  int32_t stamp_sec = 0;
  uint32_t stamp_nanosec = 0;
  std::string frame_id;
  uint32_t height = 0;
  uint32_t width = 0;
  std::string encoding;
  uint8_t is_bigendian = 0;
  uint32_t step = 0;
  std::vector<uint8_t> data;
  using SharedPtr = std::shared_ptr<Image>;
  using ConstSharedPtr = std::shared_ptr<const Image>;
  using UniquePtr = std::unique_ptr<Image>;
  static constexpr const char *TYPE_NAME = "sensor_msgs/msg/Image";
  bool operator==(const Image &o) const {
    return stamp_sec == o.stamp_sec && stamp_nanosec == o.stamp_nanosec && frame_id == o.frame_id &&
           height == o.height && width == o.width && encoding == o.encoding && is_bigendian == o.is_bigendian &&
           step == o.step && data == o.data;
  }
  bool operator!=(const Image &o) const { return !(*this == o); }
};
inline void cdr_serialize(const Image &m, ::hibari::cdr::Writer &w) {
  using ::hibari::cdr::unbounded;
  w.write(m.stamp_sec);
  w.write(m.stamp_nanosec);
  w.write_string(m.frame_id, unbounded, "header.frame_id");
  w.write(m.height);
  w.write(m.width);
  w.write_string(m.encoding, unbounded, "encoding");
  w.write(m.is_bigendian);
  w.write(m.step);
  w.write_sequence(m.data, unbounded, "data");
}
inline void cdr_deserialize(::hibari::cdr::Reader &r, Image &m) {
  using ::hibari::cdr::unbounded;
  r.read(m.stamp_sec, "header.stamp.sec");
  r.read(m.stamp_nanosec, "header.stamp.nanosec");
  r.read_string(m.frame_id, unbounded, "header.frame_id");
  r.read(m.height, "height");
  r.read(m.width, "width");
  r.read_string(m.encoding, unbounded, "encoding");
  r.read(m.is_bigendian, "is_bigendian");
  r.read(m.step, "step");
  r.read_sequence(m.data, unbounded, "data");
}
}  // namespace sensor_msgs::msg

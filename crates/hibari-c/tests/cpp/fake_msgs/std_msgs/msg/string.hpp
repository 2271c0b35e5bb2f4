// Test stand-in for the generated std_msgs/msg/String (see ../../README.md).
#pragma once
#include <hibari/cdr.hpp>

#include <memory>
#include <string>

namespace std_msgs::msg {
struct String {
  std::string data;
  using SharedPtr = std::shared_ptr<String>;
  using ConstSharedPtr = std::shared_ptr<const String>;
  using UniquePtr = std::unique_ptr<String>;
  static constexpr const char *TYPE_NAME = "std_msgs/msg/String";
  bool operator==(const String &o) const { return data == o.data; }
  bool operator!=(const String &o) const { return !(*this == o); }
};
inline void cdr_serialize(const String &m, ::hibari::cdr::Writer &w) {
  w.write_string(m.data, ::hibari::cdr::unbounded, "data");
}
inline void cdr_deserialize(::hibari::cdr::Reader &r, String &m) {
  r.read_string(m.data, ::hibari::cdr::unbounded, "data");
}
}  // namespace std_msgs::msg

// Test stand-in for the generated example_interfaces/srv/AddTwoInts.
#pragma once
#include <hibari/cdr.hpp>

#include <cstdint>
#include <memory>

namespace example_interfaces::srv {
struct AddTwoInts_Request {
  int64_t a = 0;
  int64_t b = 0;
  using SharedPtr = std::shared_ptr<AddTwoInts_Request>;
  static constexpr const char *TYPE_NAME = "example_interfaces/srv/AddTwoInts_Request";
  bool operator==(const AddTwoInts_Request &o) const { return a == o.a && b == o.b; }
  bool operator!=(const AddTwoInts_Request &o) const { return !(*this == o); }
};
inline void cdr_serialize(const AddTwoInts_Request &m, ::hibari::cdr::Writer &w) {
  w.write(m.a);
  w.write(m.b);
}
inline void cdr_deserialize(::hibari::cdr::Reader &r, AddTwoInts_Request &m) {
  r.read(m.a, "a");
  r.read(m.b, "b");
}
struct AddTwoInts_Response {
  int64_t sum = 0;
  using SharedPtr = std::shared_ptr<AddTwoInts_Response>;
  static constexpr const char *TYPE_NAME = "example_interfaces/srv/AddTwoInts_Response";
  bool operator==(const AddTwoInts_Response &o) const { return sum == o.sum; }
  bool operator!=(const AddTwoInts_Response &o) const { return !(*this == o); }
};
inline void cdr_serialize(const AddTwoInts_Response &m, ::hibari::cdr::Writer &w) { w.write(m.sum); }
inline void cdr_deserialize(::hibari::cdr::Reader &r, AddTwoInts_Response &m) { r.read(m.sum, "sum"); }
struct AddTwoInts {
  using Request = AddTwoInts_Request;
  using Response = AddTwoInts_Response;
  static constexpr const char *TYPE_NAME = "example_interfaces/srv/AddTwoInts";
};
}  // namespace example_interfaces::srv

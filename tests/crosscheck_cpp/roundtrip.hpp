// The typed round trip every generated message type is checked with, and
// the table the generated dispatch sources fill (build.py writes them).
#pragma once

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include <hibari/cdr.hpp>

namespace crosscheck {

using RoundtripFn = std::vector<uint8_t> (*)(const std::vector<uint8_t> &);
using RoundtripTable = std::map<std::string, RoundtripFn>;

/// Defined by the generated dispatch.cpp: every generated type by ROS name.
void register_all_types(RoundtripTable &table);

/// Decodes `in` as a T (from_cdr) and re-encodes it (to_cdr). Also checks
/// what one pass cannot show: serialized_size equals the bytes written,
/// to_cdr into a used vector writes the same bytes, and decoding the result
/// into a message holding other data (the definition's defaults, then the
/// first decode) gives the same bytes and, without NaNs, an equal message.
template <class T>
std::vector<uint8_t> roundtrip(const std::vector<uint8_t> &in) {
  const T msg = hibari::cdr::from_cdr<T>(in.data(), in.size());
  std::vector<uint8_t> out = hibari::cdr::to_cdr(msg);
  const size_t size = hibari::cdr::serialized_size(msg);
  if (size != out.size()) {
    throw std::runtime_error("serialized_size " + std::to_string(size) + " != " + std::to_string(out.size()) +
                             " bytes written");
  }
  std::vector<uint8_t> reused(out.size() + 64, 0xAA);
  hibari::cdr::to_cdr(msg, reused);
  if (reused != out) {
    throw std::runtime_error("to_cdr into a used vector differs from to_cdr");
  }
  T dirty;
  hibari::cdr::from_cdr(out.data(), out.size(), dirty);
  hibari::cdr::to_cdr(dirty, reused);
  if (reused != out) {
    throw std::runtime_error("decoding the re-encoded bytes over a default message re-encodes differently");
  }
  // A NaN anywhere makes a message unequal to itself, as in rclcpp.
  const bool reflexive = msg == msg;  // NOLINT(misc-redundant-expression)
  if ((reflexive && !(dirty == msg)) || (dirty != msg) != !(dirty == msg)) {
    throw std::runtime_error("operator==/!= disagree with the bytes: two decodes of the same bytes differ");
  }
  T again = msg;
  hibari::cdr::from_cdr(in.data(), in.size(), again);
  hibari::cdr::to_cdr(again, reused);
  if (reused != out) {
    throw std::runtime_error("decoding into an already decoded message re-encodes differently");
  }
  return out;
}

}  // namespace crosscheck

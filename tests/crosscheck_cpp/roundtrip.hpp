// The round trips every generated message type is checked with — typed
// (from_cdr, to_cdr) and through its view (T::View::parse, to_message,
// to_cdr) — and the table the generated dispatch sources fill (build.py
// writes them).
#pragma once

#include <cstdint>
#include <cstring>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include <hibari/cdr.hpp>
#include <hibari/view.hpp>

namespace crosscheck {

/// The re-encodings of one input: through the typed decode and the view.
struct Reencoded {
  std::vector<uint8_t> typed;
  std::vector<uint8_t> view;
};

using RoundtripFn = Reencoded (*)(const std::vector<uint8_t> &);
using RoundtripTable = std::map<std::string, RoundtripFn>;

/// Defined by the generated dispatch.cpp: every generated type by ROS name.
void register_all_types(RoundtripTable &table);

/// Decodes `in` as a T (from_cdr) and re-encodes it (to_cdr). Also checks
/// what one pass cannot show: serialized_size equals the bytes written,
/// to_cdr into a used vector writes the same bytes, and decoding the result
/// into a message holding other data (the definition's defaults, then the
/// first decode) gives the same bytes and, without NaNs, an equal message.
template <class T>
std::vector<uint8_t> typed_roundtrip(const std::vector<uint8_t> &in) {
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

/// Parses `in` as a T::View and re-encodes its to_message(). Also: the same
/// bytes parsed at an odd address (every multi-byte element misaligned in
/// memory, which ArrayView must load without faulting) copy to the same
/// message, and to_message into a message holding other data (the
/// definition's defaults, then the first copy) re-encodes the same.
template <class T>
std::vector<uint8_t> view_roundtrip(const std::vector<uint8_t> &in) {
  using View = typename T::View;
  static_assert(std::is_same_v<typename View::Message, T>, "T::View::Message is T");
  const View view = View::parse(in.data(), in.size());
  const T msg = view.to_message();
  std::vector<uint8_t> out = hibari::cdr::to_cdr(msg);
  std::vector<uint8_t> shifted(in.size() + 1);
  if (!in.empty()) {
    std::memcpy(shifted.data() + 1, in.data(), in.size());
  }
  const View odd = View::parse(hibari::Span<const uint8_t>(shifted.data() + 1, in.size()));
  if (hibari::cdr::to_cdr(odd.to_message()) != out) {
    throw std::runtime_error("the view of the same bytes at an odd address copies differently");
  }
  T reused;
  odd.to_message(reused);
  view.to_message(reused);
  if (hibari::cdr::to_cdr(reused) != out) {
    throw std::runtime_error("to_message into a used message re-encodes differently");
  }
  return out;
}

/// Both round trips of `in`. Bytes either refuses, both must refuse with
/// the same message (thrown as the DecodeError it is).
template <class T>
Reencoded roundtrip(const std::vector<uint8_t> &in) {
  Reencoded out;
  std::optional<std::string> typed_error;
  std::optional<std::string> view_error;
  try {
    out.typed = typed_roundtrip<T>(in);
  } catch (const hibari::cdr::DecodeError &e) {
    typed_error = e.what();
  }
  try {
    out.view = view_roundtrip<T>(in);
  } catch (const hibari::cdr::DecodeError &e) {
    view_error = e.what();
  }
  if (typed_error && view_error) {
    if (*typed_error != *view_error) {
      throw std::runtime_error("the view refuses with `" + *view_error + "`, the typed decode with `" +
                               *typed_error + "`");
    }
    throw hibari::cdr::DecodeError(*typed_error);
  }
  if (typed_error) {
    throw std::runtime_error("the view accepts what the typed decode refuses: " + *typed_error);
  }
  if (view_error) {
    throw std::runtime_error("the view refuses what the typed decode accepts: " + *view_error);
  }
  return out;
}

}  // namespace crosscheck

// hibari-crosscheck-cpp: the C++ side of the rosbags cross-check
// (tests/python/test_rosbags_crosscheck.py), over the headers hibari-cpp-gen
// writes for every bundled package of one distro. build.py builds it.
//
// One JSON object per line on stdin, one reply per line on stdout, as the
// Rust tests/crosscheck does:
//   {"op":"types"}                          -> {"types":[...]}, every generated message type
//   {"op":"roundtrip","type":T,"hex":H}     -> {"typed":hex,"view":hex}: from_cdr as the
//                                              generated T, then to_cdr; T::View::parse, then
//                                              to_message and to_cdr (roundtrip.hpp adds its
//                                              checks; input either refuses, both must refuse
//                                              alike, and the reply is that decode error)
//   {"op":"batch","requests":[...]}         -> {"replies":[...]}
// A "distro" member, if present, must name the distro it was built for.
// Any failure is the reply {"error":"..."}; the process keeps serving.

#include <cstdint>
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "json.hpp"
#include "roundtrip.hpp"

#ifndef HIBARI_CROSSCHECK_DISTRO
#define HIBARI_CROSSCHECK_DISTRO "jazzy"
#endif

namespace {

using crosscheck::json::quote;
using crosscheck::json::Value;

const crosscheck::RoundtripTable &table() {
  static const crosscheck::RoundtripTable t = [] {
    crosscheck::RoundtripTable built;
    crosscheck::register_all_types(built);
    return built;
  }();
  return t;
}

std::string to_hex(const std::vector<uint8_t> &bytes) {
  static const char digits[] = "0123456789abcdef";
  std::string s;
  s.reserve(bytes.size() * 2);
  for (const uint8_t b : bytes) {
    s += digits[b >> 4];
    s += digits[b & 15];
  }
  return s;
}

int nibble(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::vector<uint8_t> from_hex(const std::string &hex) {
  if (hex.size() % 2 != 0) {
    throw std::runtime_error("bad hex: odd length " + std::to_string(hex.size()));
  }
  std::vector<uint8_t> out(hex.size() / 2);
  for (size_t i = 0; i < out.size(); ++i) {
    const int hi = nibble(hex[2 * i]);
    const int lo = nibble(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) {
      throw std::runtime_error("bad hex at " + std::to_string(2 * i));
    }
    out[i] = static_cast<uint8_t>(hi * 16 + lo);
  }
  return out;
}

std::string dispatch(const Value &req) {
  if (req.kind != Value::Kind::Object) {
    throw std::runtime_error("a request must be a JSON object");
  }
  if (const Value *distro = req.get("distro")) {
    if (distro->kind != Value::Kind::String || distro->string != HIBARI_CROSSCHECK_DISTRO) {
      throw std::runtime_error(std::string("this build has the types of ") + HIBARI_CROSSCHECK_DISTRO +
                               " only");
    }
  }
  const std::string &op = req.str("op");
  if (op == "types") {
    std::string out = "{\"types\":[";
    bool first = true;
    for (const auto &entry : table()) {
      out += (first ? "" : ",") + quote(entry.first);
      first = false;
    }
    return out + "]}";
  }
  if (op == "roundtrip") {
    const std::string &type = req.str("type");
    const auto found = table().find(type);
    if (found == table().end()) {
      throw std::runtime_error("no generated type " + type);
    }
    const std::vector<uint8_t> bytes = from_hex(req.str("hex"));
    const crosscheck::Reencoded out = found->second(bytes);
    return "{\"typed\":\"" + to_hex(out.typed) + "\",\"view\":\"" + to_hex(out.view) + "\"}";
  }
  throw std::runtime_error("unknown op " + quote(op));
}

std::string handle(const Value &req) {
  if (req.kind == Value::Kind::Object) {
    const Value *op = req.get("op");
    if (op != nullptr && op->kind == Value::Kind::String && op->string == "batch") {
      const Value *reqs = req.get("requests");
      if (reqs == nullptr || reqs->kind != Value::Kind::Array) {
        return "{\"error\":\"batch: `requests` must be an array\"}";
      }
      std::string out = "{\"replies\":[";
      for (size_t i = 0; i < reqs->array.size(); ++i) {
        out += (i == 0 ? "" : ",") + handle(reqs->array[i]);
      }
      return out + "]}";
    }
  }
  try {
    return dispatch(req);
  } catch (const hibari::cdr::DecodeError &e) {
    return "{\"error\":" + quote(std::string("decode: ") + e.what()) + "}";
  } catch (const hibari::cdr::EncodeError &e) {
    return "{\"error\":" + quote(std::string("encode: ") + e.what()) + "}";
  } catch (const std::exception &e) {
    return "{\"error\":" + quote(e.what()) + "}";
  }
}

}  // namespace

int main() {
  std::ios::sync_with_stdio(false);
  std::string line;
  while (std::getline(std::cin, line)) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) {
      continue;
    }
    std::string reply;
    try {
      reply = handle(crosscheck::json::parse(line));
    } catch (const std::exception &e) {
      reply = "{\"error\":" + quote(e.what()) + "}";
    }
    std::cout << reply << '\n' << std::flush;
  }
  return 0;
}

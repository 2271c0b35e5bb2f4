// hibari C++: parameter values and parameters (rclcpp's ParameterValue and
// Parameter, reduced), converted to and from hibari.h's tagged struct.
#pragma once

#include <hibari.h>

#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "hibari/exceptions.hpp"

namespace hibari {

enum class ParameterType : int32_t {
  PARAMETER_NOT_SET = HIBARI_PARAMETER_NOT_SET,
  PARAMETER_BOOL = HIBARI_PARAMETER_BOOL,
  PARAMETER_INTEGER = HIBARI_PARAMETER_INTEGER,
  PARAMETER_DOUBLE = HIBARI_PARAMETER_DOUBLE,
  PARAMETER_STRING = HIBARI_PARAMETER_STRING,
  PARAMETER_BYTE_ARRAY = HIBARI_PARAMETER_BYTE_ARRAY,
  PARAMETER_BOOL_ARRAY = HIBARI_PARAMETER_BOOL_ARRAY,
  PARAMETER_INTEGER_ARRAY = HIBARI_PARAMETER_INTEGER_ARRAY,
  PARAMETER_DOUBLE_ARRAY = HIBARI_PARAMETER_DOUBLE_ARRAY,
  PARAMETER_STRING_ARRAY = HIBARI_PARAMETER_STRING_ARRAY,
};

inline const char *to_string(ParameterType t) {
  static const char *names[] = {"not set",      "bool",          "integer",       "double",
                                "string",       "byte_array",    "bool_array",    "integer_array",
                                "double_array", "string_array"};
  const auto i = static_cast<int32_t>(t);
  return i >= 0 && i <= 9 ? names[i] : "unknown";
}

/// A value of one of ROS 2's parameter types. An integer is not a double.
class ParameterValue {
public:
  ParameterValue() = default;
  ParameterValue(bool v) : type_(ParameterType::PARAMETER_BOOL), bool_(v) {}  // NOLINT: implicit
  template <class T, std::enable_if_t<std::is_integral<T>::value && !std::is_same<T, bool>::value, int> = 0>
  ParameterValue(T v) : type_(ParameterType::PARAMETER_INTEGER), int_(static_cast<int64_t>(v)) {}  // NOLINT
  template <class T, std::enable_if_t<std::is_floating_point<T>::value, int> = 0>
  ParameterValue(T v) : type_(ParameterType::PARAMETER_DOUBLE), double_(static_cast<double>(v)) {}  // NOLINT
  ParameterValue(const std::string &v) : type_(ParameterType::PARAMETER_STRING), string_(v) {}  // NOLINT
  ParameterValue(const char *v) : ParameterValue(std::string(v)) {}                             // NOLINT
  ParameterValue(const std::vector<uint8_t> &v) : type_(ParameterType::PARAMETER_BYTE_ARRAY), bytes_(v) {}  // NOLINT
  ParameterValue(const std::vector<bool> &v) : type_(ParameterType::PARAMETER_BOOL_ARRAY), bools_(v) {}     // NOLINT
  template <class T, std::enable_if_t<std::is_integral<T>::value && !std::is_same<T, bool>::value &&
                                          !std::is_same<T, uint8_t>::value, int> = 0>
  ParameterValue(const std::vector<T> &v) : type_(ParameterType::PARAMETER_INTEGER_ARRAY), ints_(v.begin(), v.end()) {}  // NOLINT
  template <class T, std::enable_if_t<std::is_floating_point<T>::value, int> = 0>
  ParameterValue(const std::vector<T> &v) : type_(ParameterType::PARAMETER_DOUBLE_ARRAY), doubles_(v.begin(), v.end()) {}  // NOLINT
  ParameterValue(const std::vector<std::string> &v) : type_(ParameterType::PARAMETER_STRING_ARRAY), strings_(v) {}  // NOLINT

  ParameterType get_type() const { return type_; }

  /// The value as `T` (bool, any integer, any floating point, std::string,
  /// or a vector of those); throws InvalidParameterTypeException when the
  /// value is of another type.
  template <class T> T get() const {
    if constexpr (std::is_same<T, bool>::value) {
      expect(ParameterType::PARAMETER_BOOL);
      return bool_;
    } else if constexpr (std::is_integral<T>::value) {
      expect(ParameterType::PARAMETER_INTEGER);
      return static_cast<T>(int_);
    } else if constexpr (std::is_floating_point<T>::value) {
      expect(ParameterType::PARAMETER_DOUBLE);
      return static_cast<T>(double_);
    } else if constexpr (std::is_same<T, std::string>::value) {
      expect(ParameterType::PARAMETER_STRING);
      return string_;
    } else if constexpr (std::is_same<T, std::vector<uint8_t>>::value) {
      expect(ParameterType::PARAMETER_BYTE_ARRAY);
      return bytes_;
    } else if constexpr (std::is_same<T, std::vector<bool>>::value) {
      expect(ParameterType::PARAMETER_BOOL_ARRAY);
      return bools_;
    } else if constexpr (std::is_same<T, std::vector<std::string>>::value) {
      expect(ParameterType::PARAMETER_STRING_ARRAY);
      return strings_;
    } else if constexpr (std::is_floating_point<typename T::value_type>::value) {
      expect(ParameterType::PARAMETER_DOUBLE_ARRAY);
      return T(doubles_.begin(), doubles_.end());
    } else {
      expect(ParameterType::PARAMETER_INTEGER_ARRAY);
      return T(ints_.begin(), ints_.end());
    }
  }

  /// The C view of this value; valid while this value and `storage` live.
  hibari_parameter_value_t to_c(std::vector<const char *> &pointers, std::vector<uint8_t> &flags) const {
    hibari_parameter_value_t v{};
    v.type = static_cast<int32_t>(type_);
    switch (type_) {
    case ParameterType::PARAMETER_BOOL: v.bool_value = bool_; break;
    case ParameterType::PARAMETER_INTEGER: v.integer_value = int_; break;
    case ParameterType::PARAMETER_DOUBLE: v.double_value = double_; break;
    case ParameterType::PARAMETER_STRING: v.string_value = const_cast<char *>(string_.c_str()); break;
    case ParameterType::PARAMETER_BYTE_ARRAY: set_array(v, bytes_.data(), bytes_.size()); break;
    case ParameterType::PARAMETER_BOOL_ARRAY:
      flags.assign(bools_.begin(), bools_.end());
      set_array(v, flags.data(), flags.size());
      break;
    case ParameterType::PARAMETER_INTEGER_ARRAY: set_array(v, ints_.data(), ints_.size()); break;
    case ParameterType::PARAMETER_DOUBLE_ARRAY: set_array(v, doubles_.data(), doubles_.size()); break;
    case ParameterType::PARAMETER_STRING_ARRAY:
      pointers.clear();
      for (const auto &s : strings_) pointers.push_back(s.c_str());
      set_array(v, pointers.data(), pointers.size());
      break;
    default: break;
    }
    return v;
  }

  /// Takes a value hibari wrote (and frees what it holds).
  static ParameterValue from_c(hibari_parameter_value_t &v) {
    ParameterValue out;
    out.type_ = static_cast<ParameterType>(v.type);
    const size_t n = v.array_len;
    switch (out.type_) {
    case ParameterType::PARAMETER_BOOL: out.bool_ = v.bool_value; break;
    case ParameterType::PARAMETER_INTEGER: out.int_ = v.integer_value; break;
    case ParameterType::PARAMETER_DOUBLE: out.double_ = v.double_value; break;
    case ParameterType::PARAMETER_STRING: out.string_ = v.string_value ? v.string_value : ""; break;
    case ParameterType::PARAMETER_BYTE_ARRAY: {
      auto *p = static_cast<const uint8_t *>(v.array);
      out.bytes_.assign(p, p + n);
      break;
    }
    case ParameterType::PARAMETER_BOOL_ARRAY: {
      auto *p = static_cast<const bool *>(v.array);
      out.bools_.assign(p, p + n);
      break;
    }
    case ParameterType::PARAMETER_INTEGER_ARRAY: {
      auto *p = static_cast<const int64_t *>(v.array);
      out.ints_.assign(p, p + n);
      break;
    }
    case ParameterType::PARAMETER_DOUBLE_ARRAY: {
      auto *p = static_cast<const double *>(v.array);
      out.doubles_.assign(p, p + n);
      break;
    }
    case ParameterType::PARAMETER_STRING_ARRAY: {
      auto *p = static_cast<char *const *>(v.array);
      for (size_t i = 0; i < n; i++) out.strings_.emplace_back(p[i]);
      break;
    }
    default: break;
    }
    hibari_parameter_value_fini(&v);
    return out;
  }

private:
  void expect(ParameterType t) const {
    if (type_ != t) {
      throw exceptions::InvalidParameterTypeException(std::string("the parameter is of type ") +
                                                      to_string(type_) + ", not " + to_string(t));
    }
  }
  template <class E> static void set_array(hibari_parameter_value_t &v, const E *data, size_t n) {
    v.array = const_cast<void *>(static_cast<const void *>(data));
    v.array_len = n;
  }

  ParameterType type_ = ParameterType::PARAMETER_NOT_SET;
  bool bool_ = false;
  int64_t int_ = 0;
  double double_ = 0.0;
  std::string string_;
  std::vector<uint8_t> bytes_;
  std::vector<bool> bools_;
  std::vector<int64_t> ints_;
  std::vector<double> doubles_;
  std::vector<std::string> strings_;
};

/// A name and a value.
class Parameter {
public:
  Parameter() = default;
  Parameter(std::string name, ParameterValue value) : name_(std::move(name)), value_(std::move(value)) {}

  const std::string &get_name() const { return name_; }
  ParameterType get_type() const { return value_.get_type(); }
  std::string get_type_name() const { return to_string(value_.get_type()); }
  const ParameterValue &get_parameter_value() const { return value_; }
  template <class T> T get_value() const { return value_.get<T>(); }

  bool as_bool() const { return value_.get<bool>(); }
  int64_t as_int() const { return value_.get<int64_t>(); }
  double as_double() const { return value_.get<double>(); }
  std::string as_string() const { return value_.get<std::string>(); }
  std::vector<uint8_t> as_byte_array() const { return value_.get<std::vector<uint8_t>>(); }
  std::vector<bool> as_bool_array() const { return value_.get<std::vector<bool>>(); }
  std::vector<int64_t> as_integer_array() const { return value_.get<std::vector<int64_t>>(); }
  std::vector<double> as_double_array() const { return value_.get<std::vector<double>>(); }
  std::vector<std::string> as_string_array() const { return value_.get<std::vector<std::string>>(); }

private:
  std::string name_;
  ParameterValue value_;
};

/// Whether a set succeeded, and if not, why.
struct SetParametersResult {
  bool successful = false;
  std::string reason;
};

}  // namespace hibari

// hibari/cdr.hpp: CDR encoding and decoding of generated ROS 2 message types,
// byte for byte what rmw_fastrtps (Fast CDR, XCDR1) writes. Header-only, C++17.
//
// A payload is the 4-byte encapsulation header (00 01 00 00: plain CDR,
// little-endian) and the message's fields. Every primitive is aligned to its
// own size, counted from the first byte after the header; strings are a
// uint32 length that counts a terminating NUL, the bytes and the NUL;
// sequences are a uint32 count and the elements; fixed arrays have no count;
// a nested message is its fields inline; nothing follows the last field.
//
//   std_msgs::msg::String msg;
//   msg.data = "hello";
//   std::vector<uint8_t> bytes = hibari::cdr::to_cdr(msg);  // 00 01 00 00 06 00 00 00 68 65 6c 6c 6f 00
//   auto back = hibari::cdr::from_cdr<std_msgs::msg::String>(bytes.data(), bytes.size());
//
// Decoding accepts either byte order (00 01 little-endian, 00 00 big-endian)
// and up to 3 trailing bytes, as ROS 2 readers do; it never trusts a length:
// a count is checked against the bytes left before anything is allocated.
// Padding content is not checked. Bounded strings and sequences (rosidl's
// BoundedVector; here std::string and std::vector) are checked on encode
// (EncodeError) and on decode (DecodeError).
//
// wstring (std::u16string) is written as rosidl_typesupport_fastrtps_cpp does
// (serialization_helpers.hpp): a uint32 count of UTF-16 code units, no
// terminator, then each code unit as a uint32. Fast CDR's own wstring and
// rmw_cyclonedds agree on 4 bytes per unit; rosbags has no wstring at all.
//
// Generated types provide, in their own namespace (found by argument-
// dependent lookup):
//   void cdr_serialize(const T &msg, hibari::cdr::Writer &w);
//   void cdr_deserialize(hibari::cdr::Reader &r, T &msg);
// and T::View, which reads a payload in place instead of copying it
// (hibari/view.hpp, over Reader's read_string_view and read_in_place).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

// The Writer's per-field steps are forced inline (GCC otherwise keeps
// write<T> out of line, a call and two bounds checks per field); what
// throws stays out of line.
#if defined(__GNUC__)
#define HIBARI_CDR_INLINE inline __attribute__((always_inline))
#define HIBARI_CDR_COLD __attribute__((noinline, cold))
#else
#define HIBARI_CDR_INLINE inline
#define HIBARI_CDR_COLD
#endif

namespace hibari::cdr {

/// Bytes that are not a valid CDR payload of the requested type.
struct DecodeError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// A value that cannot be written: a bound exceeded, a NUL inside a string,
/// a sequence longer than 2^32-1 elements.
struct EncodeError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// The bound of an unbounded string or sequence.
inline constexpr size_t unbounded = std::numeric_limits<size_t>::max();

/// Size of the encapsulation header; alignment counts from its end.
inline constexpr size_t header_size = 4;

namespace detail {

inline bool host_is_little_endian() {
  const uint16_t probe = 1;
  uint8_t first = 0;
  std::memcpy(&first, &probe, 1);
  return first == 1;
}

template <class T>
inline void reverse_bytes(T &value) {
  uint8_t bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof(T));
  for (size_t i = 0; i < sizeof(T) / 2; ++i) {
    const uint8_t t = bytes[i];
    bytes[i] = bytes[sizeof(T) - 1 - i];
    bytes[sizeof(T) - 1 - i] = t;
  }
  std::memcpy(&value, bytes, sizeof(T));
}

template <class T>
inline constexpr bool is_primitive_v =
    std::is_arithmetic_v<T> && (sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8);

inline std::string field_label(const char *field) {
  return field != nullptr && field[0] != '\0' ? std::string("field `") + field + "`: " : std::string();
}

}  // namespace detail

/// Appends a message's fields to a byte vector (or only counts them, for
/// serialized_size). Generated cdr_serialize functions call it.
class Writer {
 public:
  /// Clears `out`, writes the little-endian header; fields follow.
  explicit Writer(std::vector<uint8_t> &out) : out_(&out), pos_(header_size), swap_(!detail::host_is_little_endian()) {
    // Element by element: GCC 12 at -O2 warns falsely (-Wstringop-overflow)
    // of an insert of the four bytes into the cleared vector.
    out.resize(header_size);
    out[0] = 0x00;
    out[1] = 0x01;
    out[2] = 0x00;
    out[3] = 0x00;
  }

  /// Counts the bytes a message needs, header included, without writing.
  Writer() : out_(nullptr), pos_(header_size), swap_(false) {}

  /// Writes the header and then the fields into `capacity` bytes at `data`
  /// (lent memory, say: serialized_size first); a write past them throws
  /// EncodeError. size() is then the bytes written.
  Writer(uint8_t *data, size_t capacity)
      : out_(nullptr), raw_(data), capacity_(capacity), pos_(0), swap_(!detail::host_is_little_endian()) {
    const uint8_t header[header_size] = {0x00, 0x01, 0x00, 0x00};
    std::memcpy(reserve(1, header_size), header, header_size);
  }

  /// Bytes written (or counted) so far, header included.
  size_t size() const { return pos_; }

  /// No hole was left (hole_offset()).
  static constexpr size_t no_hole = std::numeric_limits<size_t>::max();

  /// Leaves one sequence's elements out: the write_sequence of the vector
  /// at `field` (a member of the message written) writes `count` as its
  /// length and, in place of its elements, leaves a hole of `count`
  /// elements — aligned as they would be, the fields after it where they go
  /// after them — whose offset hole_offset() then tells. A counting Writer
  /// counts the hole; one writing at an address leaves its bytes as they
  /// are, to be filled there (Publisher::loan_with_array); a vector gets
  /// zeros.
  void leave_hole(const void *field, size_t count) {
    hole_field_ = field;
    hole_count_ = count;
  }

  /// Offset of the hole's first byte (header included), or no_hole if the
  /// sequence was not written.
  size_t hole_offset() const { return hole_at_; }

  /// One primitive, aligned to its size.
  template <class T>
  HIBARI_CDR_INLINE void write(T value) {
    static_assert(detail::is_primitive_v<T>, "hibari::cdr::Writer::write takes a CDR primitive");
    uint8_t *at = reserve(sizeof(T), sizeof(T));
    if (at != nullptr) {
      if (swap_ && sizeof(T) > 1) {
        detail::reverse_bytes(value);
      }
      std::memcpy(at, &value, sizeof(T));
    }
  }

  /// A sequence count, checked against the bound.
  HIBARI_CDR_INLINE void write_count(size_t count, size_t bound, const char *field) {
    if (count > bound || count > std::numeric_limits<uint32_t>::max()) {
      count_error(count, bound, field);
    }
    write(static_cast<uint32_t>(count));
  }

  /// A string: length with NUL, the bytes, the NUL. `bound` counts bytes.
  void write_string(const std::string &s, size_t bound, const char *field) {
    if (s.size() > bound) {
      throw EncodeError(detail::field_label(field) + "holds " + std::to_string(s.size()) +
                        " bytes but its type allows at most " + std::to_string(bound));
    }
    if (std::memchr(s.data(), 0, s.size()) != nullptr) {
      throw EncodeError(detail::field_label(field) + "contains a NUL byte, which CDR strings cannot carry");
    }
    write_count(s.size() + 1, unbounded, field);
    uint8_t *at = reserve(1, s.size() + 1);
    if (at != nullptr) {
      std::memcpy(at, s.data(), s.size());
      at[s.size()] = 0;
    }
  }

  /// A wstring: count of UTF-16 code units, each as a uint32 (see the file
  /// comment). `bound` counts code units.
  void write_wstring(const std::u16string &s, size_t bound, const char *field) {
    write_count(s.size(), bound, field);
    for (const char16_t unit : s) {
      write(static_cast<uint32_t>(unit));
    }
  }

  /// A counted sequence of primitives: count, then (if any) the elements.
  template <class T, class A>
  void write_sequence(const std::vector<T, A> &v, size_t bound, const char *field) {
    if (hole_field_ != nullptr && static_cast<const void *>(&v) == hole_field_) {
      write_hole<T>(bound, field);
      return;
    }
    write_count(v.size(), bound, field);
    write_elements(v.data(), v.size());
  }

  /// std::vector<bool> has no data(): element by element.
  template <class A>
  void write_sequence(const std::vector<bool, A> &v, size_t bound, const char *field) {
    write_count(v.size(), bound, field);
    for (const bool b : v) {
      write(static_cast<uint8_t>(b ? 1 : 0));
    }
  }

  /// A fixed array of primitives: the elements, no count.
  template <class T, size_t N>
  void write_array(const std::array<T, N> &a) {
    write_elements(a.data(), N);
  }

  /// `n` primitives; an empty run adds no padding (as Fast CDR).
  template <class T>
  void write_elements(const T *data, size_t n) {
    static_assert(detail::is_primitive_v<T>, "hibari::cdr::Writer::write_elements takes CDR primitives");
    if (n == 0) {
      return;
    }
    if constexpr (std::is_same_v<T, bool>) {
      for (size_t i = 0; i < n; ++i) {
        write(static_cast<uint8_t>(data[i] ? 1 : 0));
      }
      return;
    }
    if (swap_ && sizeof(T) > 1 && writes()) {
      for (size_t i = 0; i < n; ++i) {
        write(data[i]);
      }
      return;
    }
    uint8_t *at = reserve(sizeof(T), n * sizeof(T));
    if (at != nullptr) {
      std::memcpy(at, data, n * sizeof(T));
    }
  }

 private:
  bool writes() const { return out_ != nullptr || raw_ != nullptr; }

  /// Pads to `alignment` (1, 2, 4 or 8; counted from the header's end; the
  /// padding zeroed) and makes room for `n` bytes after it: where they go
  /// (left as they are, for the caller to write), or nullptr when only
  /// counting. Moves past both.
  HIBARI_CDR_INLINE uint8_t *reserve(size_t alignment, size_t n) {
    const size_t pad = (size_t{0} - (pos_ - header_size)) & (alignment - 1);
    uint8_t *at = nullptr;
    if (raw_ != nullptr) {
      const size_t left = capacity_ - pos_;
      if (pad > left || n > left - pad) {
        too_small();
      }
      at = raw_ + pos_;
      if (pad != 0) {
        std::memset(at, 0, pad);
      }
      at += pad;
    } else if (out_ != nullptr) {
      out_->resize(pos_ + pad + n);  // the new bytes are zeros
      at = out_->data() + pos_ + pad;
    }
    pos_ += pad + n;
    return at;
  }

  /// The hole leave_hole asked for, in place of a sequence of T.
  template <class T>
  void write_hole(size_t bound, const char *field) {
    static_assert(detail::is_primitive_v<T>, "hibari::cdr::Writer::leave_hole takes a sequence of CDR primitives");
    const size_t count = hole_count_;
    hole_field_ = nullptr;
    write_count(count, bound, field);
    if (count > (std::numeric_limits<size_t>::max() - pos_) / sizeof(T)) {
      throw EncodeError(detail::field_label(field) + "a hole of " + std::to_string(count) + " elements is too large");
    }
    if (count == 0) {
      hole_at_ = pos_;
      return;
    }
    reserve(sizeof(T), count * sizeof(T));  // the hole's bytes are the caller's to fill
    hole_at_ = pos_ - count * sizeof(T);
  }

  [[noreturn]] HIBARI_CDR_COLD void too_small() const {
    throw EncodeError("the message needs more than the " + std::to_string(capacity_) + " bytes given to write it");
  }

  [[noreturn]] HIBARI_CDR_COLD static void count_error(size_t count, size_t bound, const char *field) {
    if (count > bound) {
      throw EncodeError(detail::field_label(field) + "holds " + std::to_string(count) +
                        " elements but its type allows at most " + std::to_string(bound));
    }
    throw EncodeError(detail::field_label(field) + "has " + std::to_string(count) +
                      " elements; CDR counts are 32-bit");
  }

  std::vector<uint8_t> *out_;
  uint8_t *raw_ = nullptr;
  size_t capacity_ = 0;
  const void *hole_field_ = nullptr;
  size_t hole_count_ = 0;
  size_t hole_at_ = no_hole;
  size_t pos_;
  bool swap_;
};

/// Reads a message's fields from one payload. Generated cdr_deserialize
/// functions call it. Every read checks the bytes left first.
class Reader {
 public:
  /// A reader at the end of an empty little-endian payload: every read
  /// throws. What a default-constructed view holds.
  Reader() : data_(empty_payload()), len_(header_size), pos_(header_size), swap_(!detail::host_is_little_endian()) {}

  /// Reads the encapsulation header: 00 01 (little-endian) or 00 00 (big-endian).
  Reader(const uint8_t *data, size_t len) : data_(data), len_(len), pos_(header_size) {
    if (data == nullptr && len != 0) {
      throw DecodeError("hibari::cdr: null data with a non-zero length");
    }
    if (len < header_size) {
      throw DecodeError("truncated input: " + std::to_string(len) +
                        " bytes cannot hold the 4-byte CDR encapsulation header");
    }
    if (data[0] != 0 || data[1] > 1) {
      static const char digits[] = "0123456789abcdef";
      std::string hex;
      for (size_t i = 0; i < header_size; ++i) {
        hex += digits[data[i] >> 4];
        hex += digits[data[i] & 15];
        hex += i + 1 < header_size ? " " : "";
      }
      throw DecodeError("unsupported encapsulation header " + hex +
                        ": expected 00 01 (CDR little-endian) or 00 00 (CDR big-endian)");
    }
    little_ = data[1] == 1;
    swap_ = little_ != detail::host_is_little_endian();
  }

  /// Offset of the next byte, header included.
  size_t position() const { return pos_; }

  /// Bytes not yet read.
  size_t remaining() const { return len_ - pos_; }

  /// Whether the payload is little-endian (header 00 01).
  bool little_endian() const { return little_; }

  /// One primitive, aligned to its size; a bool must be 0 or 1.
  template <class T>
  void read(T &value, const char *field) {
    static_assert(detail::is_primitive_v<T>, "hibari::cdr::Reader::read takes a CDR primitive");
    align(sizeof(T), field);
    need(sizeof(T), field);
    if constexpr (std::is_same_v<T, bool>) {
      value = to_bool(data_[pos_], field);
    } else {
      std::memcpy(&value, data_ + pos_, sizeof(T));
      if (swap_ && sizeof(T) > 1) {
        detail::reverse_bytes(value);
      }
    }
    pos_ += sizeof(T);
  }

  /// A sequence count, checked against the bound and against the bytes
  /// left (each element takes at least `min_element_size` bytes), so the
  /// caller may allocate `count` elements.
  size_t read_count(size_t min_element_size, size_t bound, const char *field) {
    const size_t at = position_after_align(4);
    uint32_t count = 0;
    read(count, field);
    if (count > bound) {
      throw DecodeError(detail::field_label(field) + "sequence count " + std::to_string(count) + " at offset " +
                        std::to_string(at) + " exceeds the bound " + std::to_string(bound));
    }
    const uint64_t needed = static_cast<uint64_t>(count) * (min_element_size == 0 ? 1 : min_element_size);
    if (needed > remaining()) {
      throw DecodeError(detail::field_label(field) + "count " + std::to_string(count) + " at offset " +
                        std::to_string(at) + " needs at least " + std::to_string(needed) + " bytes but only " +
                        std::to_string(remaining()) + " are left");
    }
    return count;
  }

  /// A string; length 0 reads as "" (as Fast CDR), otherwise the last
  /// byte must be the NUL terminator. `bound` counts bytes without the NUL.
  void read_string(std::string &out, size_t bound, const char *field) {
    out.assign(read_string_view(bound, field));
  }

  /// A string as read_string checks it, left in place: its bytes without
  /// the NUL, valid as long as the input is.
  std::string_view read_string_view(size_t bound, const char *field) {
    const size_t at = position_after_align(4);
    const size_t len = read_count(1, unbounded, field);
    if (len == 0) {
      return std::string_view();
    }
    if (data_[pos_ + len - 1] != 0) {
      throw DecodeError(detail::field_label(field) + "string of length " + std::to_string(len) + " at offset " +
                        std::to_string(at) + " does not end with a NUL byte");
    }
    if (len - 1 > bound) {
      throw DecodeError(detail::field_label(field) + "string of " + std::to_string(len - 1) + " bytes at offset " +
                        std::to_string(at) + " exceeds the bound " + std::to_string(bound));
    }
    const std::string_view s(reinterpret_cast<const char *>(data_ + pos_), len - 1);
    pos_ += len;
    return s;
  }

  /// A wstring (see the file comment); each code unit must fit in 16 bits.
  void read_wstring(std::u16string &out, size_t bound, const char *field) {
    const size_t n = read_count(4, bound, field);
    out.resize(n);
    for (size_t i = 0; i < n; ++i) {
      uint32_t unit = 0;
      read(unit, field);
      if (unit > 0xFFFF) {
        throw DecodeError(detail::field_label(field) + "wstring code unit " + std::to_string(unit) + " at offset " +
                          std::to_string(pos_ - 4) + " does not fit in UTF-16");
      }
      out[i] = static_cast<char16_t>(unit);
    }
  }

  /// A counted sequence of primitives.
  template <class T, class A>
  void read_sequence(std::vector<T, A> &v, size_t bound, const char *field) {
    const size_t n = read_count(sizeof(T), bound, field);
    if constexpr (sizeof(T) == 1 && !std::is_same_v<T, bool>) {
      // Bytes (an image's pixels) copied once, straight into the vector:
      // resize would zero them first, a second pass over a large frame.
      // A one-byte type may read any object's bytes.
      const T *first = reinterpret_cast<const T *>(read_in_place<T>(n, field));
      v.assign(first, first + n);
    } else {
      v.resize(n);
      read_elements(v.data(), n, field);
    }
  }

  template <class A>
  void read_sequence(std::vector<bool, A> &v, size_t bound, const char *field) {
    const size_t n = read_count(1, bound, field);
    v.resize(n);
    for (size_t i = 0; i < n; ++i) {
      bool b = false;
      read(b, field);
      v[i] = b;
    }
  }

  /// A fixed array of primitives.
  template <class T, size_t N>
  void read_array(std::array<T, N> &a, const char *field) {
    read_elements(a.data(), N, field);
  }

  /// `n` primitives; an empty run reads no padding.
  template <class T>
  void read_elements(T *out, size_t n, const char *field) {
    static_assert(detail::is_primitive_v<T>, "hibari::cdr::Reader::read_elements takes CDR primitives");
    if (n == 0) {
      return;
    }
    align(sizeof(T), field);
    if (n > remaining() / sizeof(T)) {
      need(n * sizeof(T), field);
    }
    if (std::is_same_v<T, bool> || (swap_ && sizeof(T) > 1)) {  // bytes other than 0 and 1 are refused
      for (size_t i = 0; i < n; ++i) {
        read(out[i], field);
      }
      return;
    }
    std::memcpy(out, data_ + pos_, n * sizeof(T));
    pos_ += n * sizeof(T);
  }

  /// `n` primitives of type T as read_elements checks them (aligned to
  /// sizeof(T) unless `n` is 0, a bool 0 or 1), left in place: returns the
  /// address of the first element's bytes, in the payload's byte order and
  /// not necessarily aligned in memory for T (hibari/view.hpp reads them).
  template <class T>
  const uint8_t *read_in_place(size_t n, const char *field) {
    static_assert(detail::is_primitive_v<T>, "hibari::cdr::Reader::read_in_place takes CDR primitives");
    if (n == 0) {
      return data_ + pos_;
    }
    align(sizeof(T), field);
    if (n > remaining() / sizeof(T)) {
      throw DecodeError(detail::field_label(field) + "truncated input: needed " +
                        std::to_string(static_cast<uint64_t>(n) * sizeof(T)) + " more bytes at offset " +
                        std::to_string(pos_) + ", " + std::to_string(remaining()) + " left");
    }
    const uint8_t *first = data_ + pos_;
    if constexpr (std::is_same_v<T, bool>) {
      for (size_t i = 0; i < n; ++i) {
        to_bool(data_[pos_], field);
        ++pos_;
      }
      return first;
    }
    pos_ += n * sizeof(T);
    return first;
  }

  /// Ends a payload: at most 3 bytes may follow the last field.
  void finish() const {
    if (remaining() > 3) {
      throw DecodeError(std::to_string(remaining()) +
                        " bytes follow the end of the message (at most 3 padding bytes are allowed)");
    }
  }

 private:
  static const uint8_t *empty_payload() {
    static const uint8_t bytes[header_size] = {0x00, 0x01, 0x00, 0x00};
    return bytes;
  }

  size_t position_after_align(size_t n) const { return pos_ + (n - (pos_ - header_size) % n) % n; }

  void align(size_t n, const char *field) {
    const size_t pad = (n - (pos_ - header_size) % n) % n;
    need(pad, field);
    pos_ += pad;
  }

  void need(size_t n, const char *field) const {
    if (n > remaining()) {
      throw DecodeError(detail::field_label(field) + "truncated input: needed " + std::to_string(n) +
                        " more bytes at offset " + std::to_string(pos_) + ", " + std::to_string(remaining()) +
                        " left");
    }
  }

  bool to_bool(uint8_t byte, const char *field) const {
    if (byte > 1) {
      throw DecodeError(detail::field_label(field) + "bool at offset " + std::to_string(pos_) + " holds " +
                        std::to_string(byte) + ", expected 0 or 1");
    }
    return byte == 1;
  }

  const uint8_t *data_;
  size_t len_;
  size_t pos_;
  bool little_ = true;
  bool swap_ = false;
};

/// Encodes `msg` into `out` (cleared first, its capacity reused).
template <class T>
void to_cdr(const T &msg, std::vector<uint8_t> &out) {
  Writer w(out);
  cdr_serialize(msg, w);
}

/// Encodes `msg` into `capacity` bytes at `data` (serialized_size(msg) of
/// them suffice: lent memory, say); returns the bytes written, header
/// included. Throws EncodeError if they do not suffice.
template <class T>
size_t to_cdr(const T &msg, uint8_t *data, size_t capacity) {
  Writer w(data, capacity);
  cdr_serialize(msg, w);
  return w.size();
}

/// Exact encoded size of `msg` in bytes, header included.
template <class T>
size_t serialized_size(const T &msg) {
  Writer w;
  cdr_serialize(msg, w);
  return w.size();
}

/// Encodes `msg` into a new vector: header and fields.
template <class T>
std::vector<uint8_t> to_cdr(const T &msg) {
  std::vector<uint8_t> out;
  out.reserve(serialized_size(msg));
  to_cdr(msg, out);
  return out;
}

/// Decodes a whole payload into `msg`, reusing its allocations. On a
/// DecodeError `msg` holds a mix of old and new values.
template <class T>
void from_cdr(const uint8_t *data, size_t len, T &msg) {
  Reader r(data, len);
  cdr_deserialize(r, msg);
  r.finish();
}

/// Decodes a whole payload.
template <class T>
T from_cdr(const uint8_t *data, size_t len) {
  T msg;
  from_cdr(data, len, msg);
  return msg;
}

}  // namespace hibari::cdr

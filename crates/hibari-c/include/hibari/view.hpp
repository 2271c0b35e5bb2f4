// hibari/view.hpp: zero-copy views of CDR payloads. Header-only, C++17;
// every generated message header includes it.
//
// For each message type `Name`, hibari-cpp-gen also emits `NameView` (and
// `Name::View` names it): its fields read in place in the bytes it was
// parsed from, which must outlive it and stay unchanged while it is used.
//
//   auto view = sensor_msgs::msg::ImageView::parse(cdr, len);  // O(fields): no pixel is read
//   hibari::Span<const uint8_t> pixels = view.data;             // the payload's own bytes
//   sensor_msgs::msg::Image copy = view.to_message();           // an owned copy, when wanted
//
// Field by field:
//   uint8/byte/char arrays and sequences   hibari::Span<const uint8_t>: a pointer and a length
//   other primitive arrays and sequences   hibari::ArrayView<T>: element i loaded on access
//                                          (Span and ArrayView: hibari/span.hpp)
//   string                                 std::string_view (without the NUL)
//   wstring                                hibari::WStringView
//   nested message                         its view type
//   fixed array of strings or messages     std::array of their views
//   sequence of strings or messages        hibari::SequenceView<E>, parsed as it is iterated
//   scalar                                 the value, copied at parse
//
// Alignment and byte order. CDR aligns each primitive to its size counted
// from the end of the 4-byte encapsulation header, so in a buffer that
// starts 8-aligned an 8-byte element sits at 4 mod 8 in memory; a payload
// may also be big-endian. Reading such bytes through a `const double *`
// would be undefined behaviour (misaligned) or wrong (byte order), so only
// byte arrays are a Span. Every other primitive array is an ArrayView<T>,
// whose operator[] memcpy's the element's bytes into a T and swaps them when
// the payload's order is not this machine's: no misaligned access, ever.
// ArrayView::as_span() offers the elements as a Span<const T> when that is
// sound — this machine's byte order, packed, and the first element's address
// aligned for T (typically float and int32 arrays; float64 ones usually
// not) — and an empty optional otherwise. bool elements are always loaded
// one by one (a byte other than 0 or 1 is not a bool). This is the Rust
// views' rule (hibari_cdr::PrimSeq: `get(i)` always, `as_slice` only when
// native and aligned), except that Rust also refuses a slice of shared
// memory, because its references promise bytes nobody changes; in C++ the
// serialized subscription already hands out those bytes, and a Span of them
// is read on the terms below.
//
// Parsing checks what decoding checks (from_cdr, with the same messages):
// every count and length against the bytes left, bounds, NUL terminators,
// bools, wstring code units, the header and at most 3 trailing bytes; on
// bad or truncated input it throws hibari::cdr::DecodeError. It allocates
// nothing (an error's message aside): a sequence of strings or messages is
// walked once to check it (each element takes at least one byte, so the
// work is bounded by the input, whatever a count claims) and re-read as it
// is iterated. Strings are not checked as UTF-8, as from_cdr does not.
//
// Shared memory. From another process the bytes are the publisher's chunk,
// mapped read-only. A well-behaved publisher never changes a chunk it has
// sent; one that does makes this process read changing values, never out
// of bounds: the lengths a view uses were read once and checked, scalars
// were copied, and iterating a SequenceView checks again as it reads (a
// changed element may then throw DecodeError).
#pragma once

#include <hibari/cdr.hpp>
#include <hibari/span.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace hibari {
namespace cdr {

/// Reads one element of a SequenceView (or a view field) of type V: a
/// string_view, a WStringView, or a generated view (V::read_fields).
template <class V>
struct ViewElement {
  static V read(Reader &r, size_t, const char *) { return V::read_fields(r); }
};

template <>
struct ViewElement<std::string_view> {
  static std::string_view read(Reader &r, size_t bound, const char *field) { return r.read_string_view(bound, field); }
};

template <>
struct ViewElement<WStringView> {
  static WStringView read(Reader &r, size_t bound, const char *field) {
    const size_t n = r.read_count(4, bound, field);
    const uint8_t *units = r.read_in_place<uint32_t>(n, field);
    const size_t first = r.position() - 4 * n;
    const ArrayView<uint32_t> view(units, n, r.little_endian());
    for (size_t i = 0; i < n; ++i) {
      const uint32_t unit = view[i];
      if (unit > 0xFFFF) {
        throw DecodeError(detail::field_label(field) + "wstring code unit " + std::to_string(unit) + " at offset " +
                          std::to_string(first + 4 * i) + " does not fit in UTF-16");
      }
    }
    return WStringView(view);
  }
};

}  // namespace cdr

/// A sequence of strings or messages in place: size() is known, the
/// elements are parsed as they are iterated (forward only; at(i) walks from
/// the first). The input was checked when the view was parsed.
template <class E>
class SequenceView {
 public:
  using value_type = E;
  using size_type = size_t;

  class iterator {
   public:
    using iterator_category = std::input_iterator_tag;
    using value_type = E;
    using difference_type = std::ptrdiff_t;
    using pointer = const E *;
    using reference = const E &;

    iterator() = default;
    const E &operator*() const { return value_; }
    const E *operator->() const { return &value_; }
    iterator &operator++() {
      if (--left_ != 0) {
        value_ = cdr::ViewElement<E>::read(reader_, bound_, field_);
      }
      return *this;
    }
    iterator operator++(int) {
      iterator before = *this;
      ++*this;
      return before;
    }
    friend bool operator==(const iterator &a, const iterator &b) { return a.left_ == b.left_; }
    friend bool operator!=(const iterator &a, const iterator &b) { return a.left_ != b.left_; }

   private:
    friend class SequenceView;
    iterator(const cdr::Reader &first, size_t left, size_t bound, const char *field)
        : reader_(first), left_(left), bound_(bound), field_(field) {
      if (left_ != 0) {
        value_ = cdr::ViewElement<E>::read(reader_, bound_, field_);
      }
    }
    cdr::Reader reader_;
    size_t left_ = 0;
    size_t bound_ = cdr::unbounded;
    const char *field_ = "";
    E value_{};
  };
  using const_iterator = iterator;

  SequenceView() = default;

  /// Checks `count` elements from `r`'s position (each string's `bound`),
  /// leaving `r` after the last; the view re-reads them from there.
  SequenceView(cdr::Reader &r, size_t count, size_t bound, const char *field)
      : first_(r), count_(count), bound_(bound), field_(field) {
    for (size_t i = 0; i < count; ++i) {
      (void)cdr::ViewElement<E>::read(r, bound, field);
    }
  }

  size_t size() const { return count_; }
  bool empty() const { return count_ == 0; }
  iterator begin() const { return iterator(first_, count_, bound_, field_); }
  iterator end() const { return iterator(); }
  /// Element `i`, parsed after the ones before it: O(i).
  E at(size_t i) const {
    if (i >= count_) {
      throw std::out_of_range("hibari::SequenceView::at(" + std::to_string(i) + ") of " + std::to_string(count_));
    }
    iterator it = begin();
    for (size_t k = 0; k < i; ++k) {
      ++it;
    }
    return *it;
  }

 private:
  cdr::Reader first_;
  size_t count_ = 0;
  size_t bound_ = cdr::unbounded;
  const char *field_ = "";
};

namespace cdr {

/// Parses a whole payload (header, fields, at most 3 trailing bytes) as the
/// view V; generated `V::parse` calls it.
template <class V>
V parse_view(const uint8_t *data, size_t len) {
  Reader r(data, len);
  V view = V::read_fields(r);
  r.finish();
  return view;
}

// What generated views call, field by field.

/// A fixed array of bytes (`uint8[N]`, `byte[N]`, `char[N]`).
inline Span<const uint8_t> read_byte_array_view(Reader &r, size_t n, const char *field) {
  return Span<const uint8_t>(r.read_in_place<uint8_t>(n, field), n);
}

/// A counted sequence of bytes.
inline Span<const uint8_t> read_byte_sequence_view(Reader &r, size_t bound, const char *field) {
  const size_t n = r.read_count(1, bound, field);
  return read_byte_array_view(r, n, field);
}

/// A fixed array of other primitives.
template <class T>
ArrayView<T> read_array_view(Reader &r, size_t n, const char *field) {
  return ArrayView<T>(r.read_in_place<T>(n, field), n, r.little_endian());
}

/// A counted sequence of other primitives.
template <class T>
ArrayView<T> read_sequence_view(Reader &r, size_t bound, const char *field) {
  const size_t n = r.read_count(sizeof(T), bound, field);
  return read_array_view<T>(r, n, field);
}

/// A string, a wstring or a nested message (`bound`: a string's).
template <class E>
E read_element_view(Reader &r, size_t bound, const char *field) {
  return ViewElement<E>::read(r, bound, field);
}

/// A fixed array of strings, wstrings or messages.
template <class E, size_t N>
std::array<E, N> read_elements_view(Reader &r, size_t bound, const char *field) {
  std::array<E, N> out{};
  for (E &e : out) {
    e = ViewElement<E>::read(r, bound, field);
  }
  return out;
}

/// A counted sequence of strings, wstrings or messages, each at least
/// `min_element_size` bytes.
template <class E>
SequenceView<E> read_sequence_of_views(Reader &r, size_t min_element_size, size_t bound, size_t element_bound,
                                       const char *field) {
  const size_t n = r.read_count(min_element_size, bound, field);
  return SequenceView<E>(r, n, element_bound, field);
}

// Owned copies: view_assign(message field, view field), for to_message().

inline void view_assign(std::string &out, std::string_view v) { out.assign(v.data(), v.size()); }
inline void view_assign(std::u16string &out, const WStringView &v) { out = v.to_u16string(); }

template <class A>
void view_assign(std::vector<uint8_t, A> &out, Span<const uint8_t> v) {
  out.assign(v.begin(), v.end());
}
template <size_t N>
void view_assign(std::array<uint8_t, N> &out, Span<const uint8_t> v) {
  if (v.size() == N && N != 0) {
    std::memcpy(out.data(), v.data(), N);
  }
}

template <class T, class A>
void view_assign(std::vector<T, A> &out, const ArrayView<T> &v) {
  out.resize(v.size());
  if constexpr (std::is_same_v<T, bool>) {
    for (size_t i = 0; i < v.size(); ++i) {
      out[i] = v[i];
    }
  } else {
    v.copy_to(out.data());
  }
}
template <class T, size_t N>
void view_assign(std::array<T, N> &out, const ArrayView<T> &v) {
  if (v.size() == N) {
    v.copy_to(out.data());
  }
}

/// A nested message from its view.
template <class M, class V>
auto view_assign(M &out, const V &v) -> decltype(v.to_message(out), void()) {
  v.to_message(out);
}

template <class M, class V, size_t N>
void view_assign(std::array<M, N> &out, const std::array<V, N> &v) {
  for (size_t i = 0; i < N; ++i) {
    view_assign(out[i], v[i]);
  }
}

template <class M, class A, class V>
void view_assign(std::vector<M, A> &out, const SequenceView<V> &v) {
  out.resize(v.size());
  size_t i = 0;
  for (const V &e : v) {
    view_assign(out[i++], e);
  }
}

}  // namespace cdr
}  // namespace hibari

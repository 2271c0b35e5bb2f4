// hibari/span.hpp: read-only views of arrays inside bytes, as the
// generated message views (hibari/view.hpp) hand them out. Header-only, C++17.
//
// hibari::Span<const T>   a pointer and a length (std::span's C++17 stand-in):
//                         what byte arrays are, in place
// hibari::ArrayView<T>    primitives of T stored as bytes that may be
//                         misaligned for T or in the other byte order:
//                         operator[] loads one (memcpy, then a byte swap if
//                         needed), never through a misaligned T pointer;
//                         as_span() gives a Span<const T> when that is sound;
//                         strided() reads one field of packed records (a
//                         PointCloud2's x of every point)
// hibari::WStringView     a wstring's code units, in place
//
// The alignment rule is explained in hibari/view.hpp.
#pragma once

#include <hibari/cdr.hpp>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace hibari {

/// A run of T in memory, not owned: std::span's C++17 stand-in. Views give
/// Span<const uint8_t> for byte arrays, pointing into the parsed bytes.
template <class T>
class Span {
 public:
  using element_type = T;
  using value_type = std::remove_cv_t<T>;
  using size_type = size_t;
  using pointer = T *;
  using reference = T &;
  using iterator = T *;

  constexpr Span() noexcept = default;
  constexpr Span(T *data, size_t size) noexcept : data_(data), size_(size) {}
  /// Span<const T> from Span<T>.
  template <class U, class = std::enable_if_t<std::is_convertible_v<U (*)[], T (*)[]>>>
  constexpr Span(const Span<U> &other) noexcept : data_(other.data()), size_(other.size()) {}

  constexpr T *data() const noexcept { return data_; }
  constexpr size_t size() const noexcept { return size_; }
  constexpr size_t size_bytes() const noexcept { return size_ * sizeof(T); }
  constexpr bool empty() const noexcept { return size_ == 0; }
  constexpr T *begin() const noexcept { return data_; }
  constexpr T *end() const noexcept { return data_ + size_; }
  /// Element `i`; `i` must be below size() (as std::span, unchecked).
  constexpr T &operator[](size_t i) const { return data_[i]; }
  /// Element `i`, checked: std::out_of_range past the end.
  T &at(size_t i) const {
    if (i >= size_) {
      throw std::out_of_range("hibari::Span::at(" + std::to_string(i) + ") of " + std::to_string(size_));
    }
    return data_[i];
  }
  constexpr T &front() const { return data_[0]; }
  constexpr T &back() const { return data_[size_ - 1]; }
  /// `count` elements from `offset` (all that are left by default);
  /// std::out_of_range if they are not all inside.
  Span subspan(size_t offset, size_t count = static_cast<size_t>(-1)) const {
    if (offset > size_ || (count != static_cast<size_t>(-1) && count > size_ - offset)) {
      throw std::out_of_range("hibari::Span::subspan(" + std::to_string(offset) + ", " + std::to_string(count) +
                              ") of " + std::to_string(size_));
    }
    return Span(data_ + offset, count == static_cast<size_t>(-1) ? size_ - offset : count);
  }

 private:
  T *data_ = nullptr;
  size_t size_ = 0;
};

namespace detail {

template <class T>
inline T load(const uint8_t *bytes, bool swap) {
  if constexpr (std::is_same_v<T, bool>) {
    return bytes[0] == 1;  // a changed byte reads as false, never as an invalid bool
  } else {
    T value;
    std::memcpy(&value, bytes, sizeof(T));
    if (swap && sizeof(T) > 1) {
      cdr::detail::reverse_bytes(value);
    }
    return value;
  }
}

}  // namespace detail

/// Primitives of type T stored as bytes that may be misaligned for T or in
/// the other byte order: each access loads one (memcpy, then a byte swap if
/// needed). Elements are `stride` bytes apart (sizeof(T): packed, as a CDR
/// array; more to read one field of every point of a PointCloud2, see
/// strided()). Like Span it owns nothing.
template <class T>
class ArrayView {
  static_assert(cdr::detail::is_primitive_v<T>, "hibari::ArrayView holds CDR primitives");

 public:
  using value_type = T;
  using size_type = size_t;

  /// Random access over the values (a proxy iterator, like
  /// std::vector<bool>'s: operator* returns the value).
  class iterator {
   public:
    using iterator_category = std::random_access_iterator_tag;
    using value_type = T;
    using difference_type = std::ptrdiff_t;
    using pointer = void;
    using reference = T;

    iterator() = default;
    iterator(const uint8_t *bytes, size_t stride, bool swap, size_t i)
        : bytes_(bytes), stride_(stride), swap_(swap), i_(i) {}
    T operator*() const { return detail::load<T>(bytes_ + i_ * stride_, swap_); }
    T operator[](difference_type n) const { return *(*this + n); }
    iterator &operator++() { return ++i_, *this; }
    iterator operator++(int) {
      iterator before = *this;
      ++i_;
      return before;
    }
    iterator &operator--() { return --i_, *this; }
    iterator operator--(int) {
      iterator before = *this;
      --i_;
      return before;
    }
    iterator &operator+=(difference_type n) { return i_ += static_cast<size_t>(n), *this; }
    iterator &operator-=(difference_type n) { return i_ -= static_cast<size_t>(n), *this; }
    friend iterator operator+(iterator it, difference_type n) { return it += n; }
    friend iterator operator+(difference_type n, iterator it) { return it += n; }
    friend iterator operator-(iterator it, difference_type n) { return it -= n; }
    friend difference_type operator-(const iterator &a, const iterator &b) {
      return static_cast<difference_type>(a.i_) - static_cast<difference_type>(b.i_);
    }
    friend bool operator==(const iterator &a, const iterator &b) { return a.i_ == b.i_; }
    friend bool operator!=(const iterator &a, const iterator &b) { return a.i_ != b.i_; }
    friend bool operator<(const iterator &a, const iterator &b) { return a.i_ < b.i_; }
    friend bool operator>(const iterator &a, const iterator &b) { return a.i_ > b.i_; }
    friend bool operator<=(const iterator &a, const iterator &b) { return a.i_ <= b.i_; }
    friend bool operator>=(const iterator &a, const iterator &b) { return a.i_ >= b.i_; }

   private:
    const uint8_t *bytes_ = nullptr;
    size_t stride_ = sizeof(T);
    bool swap_ = false;
    size_t i_ = 0;
  };
  using const_iterator = iterator;

  ArrayView() = default;
  /// `count` elements, the first at `bytes`, each `stride` bytes after the
  /// previous one, little- or big-endian. Unchecked: strided() checks.
  ArrayView(const uint8_t *bytes, size_t count, bool little_endian = true, size_t stride = sizeof(T))
      : bytes_(bytes),
        count_(count),
        stride_(stride),
        little_(little_endian),
        swap_(little_endian != cdr::detail::host_is_little_endian()) {}

  /// One field of every record in `bytes`: `count` elements, the first at
  /// `offset`, `stride` bytes apart (a PointCloud2's `x`: its PointField's
  /// offset, point_step, width * height, !is_bigendian). std::out_of_range
  /// unless every element lies inside `bytes`.
  static ArrayView strided(Span<const uint8_t> bytes, size_t offset, size_t count, size_t stride,
                           bool little_endian = true) {
    if (count != 0) {
      const uint64_t last = static_cast<uint64_t>(count - 1);
      const bool fits = stride != 0 && offset <= bytes.size() && sizeof(T) <= bytes.size() - offset &&
                        last <= (bytes.size() - offset - sizeof(T)) / stride;
      if (!fits) {
        throw std::out_of_range("hibari::ArrayView::strided: " + std::to_string(count) + " elements of " +
                                std::to_string(sizeof(T)) + " bytes from offset " + std::to_string(offset) +
                                " every " + std::to_string(stride) + " bytes do not fit in " +
                                std::to_string(bytes.size()) + " bytes");
      }
    }
    return ArrayView(bytes.data() + offset, count, little_endian, stride);
  }

  size_t size() const { return count_; }
  bool empty() const { return count_ == 0; }
  size_t stride() const { return stride_; }
  bool little_endian() const { return little_; }

  /// Element `i` (below size(), unchecked), in this machine's byte order.
  T operator[](size_t i) const { return detail::load<T>(bytes_ + i * stride_, swap_); }
  /// Element `i`, checked: std::out_of_range past the end.
  T at(size_t i) const {
    if (i >= count_) {
      throw std::out_of_range("hibari::ArrayView::at(" + std::to_string(i) + ") of " + std::to_string(count_));
    }
    return (*this)[i];
  }
  T front() const { return (*this)[0]; }
  T back() const { return (*this)[count_ - 1]; }
  iterator begin() const { return iterator(bytes_, stride_, swap_, 0); }
  iterator end() const { return iterator(bytes_, stride_, swap_, count_); }

  /// The bytes from the first element's to the end of the last, as stored.
  Span<const uint8_t> bytes() const {
    return Span<const uint8_t>(bytes_, count_ == 0 ? 0 : (count_ - 1) * stride_ + sizeof(T));
  }

  /// The elements as a Span<const T>, read in place, when that is sound:
  /// packed, this machine's byte order, T not bool, and the first element's
  /// address aligned for T. Empty otherwise: use operator[] or copy_to.
  std::optional<Span<const T>> as_span() const {
    if constexpr (std::is_same_v<T, bool>) {
      return std::nullopt;
    } else {
      if (swap_ || stride_ != sizeof(T) || reinterpret_cast<uintptr_t>(bytes_) % alignof(T) != 0) {
        return std::nullopt;
      }
      return Span<const T>(reinterpret_cast<const T *>(bytes_), count_);
    }
  }

  /// Copies the size() elements to `out` (one memcpy when packed and in
  /// this machine's order).
  void copy_to(T *out) const {
    if constexpr (!std::is_same_v<T, bool>) {
      if (!swap_ && stride_ == sizeof(T)) {
        if (count_ != 0) {
          std::memcpy(out, bytes_, count_ * sizeof(T));
        }
        return;
      }
    }
    for (size_t i = 0; i < count_; ++i) {
      out[i] = (*this)[i];
    }
  }

  /// The elements, copied.
  std::vector<T> to_vector() const {
    std::vector<T> out(count_);
    if constexpr (std::is_same_v<T, bool>) {
      for (size_t i = 0; i < count_; ++i) {
        out[i] = (*this)[i];
      }
    } else {
      copy_to(out.data());
    }
    return out;
  }

 private:
  const uint8_t *bytes_ = nullptr;
  size_t count_ = 0;
  size_t stride_ = sizeof(T);
  bool little_ = true;
  bool swap_ = false;
};

/// A wstring field in place: its UTF-16 code units, each stored as a uint32
/// (see hibari/cdr.hpp), checked to fit in 16 bits when parsed.
class WStringView {
 public:
  WStringView() = default;
  explicit WStringView(ArrayView<uint32_t> units) : units_(units) {}

  size_t size() const { return units_.size(); }
  bool empty() const { return units_.empty(); }
  char16_t operator[](size_t i) const { return static_cast<char16_t>(units_[i]); }
  /// The code units as stored.
  const ArrayView<uint32_t> &units() const { return units_; }
  std::u16string to_u16string() const {
    std::u16string out(units_.size(), u'\0');
    for (size_t i = 0; i < units_.size(); ++i) {
      out[i] = (*this)[i];
    }
    return out;
  }

 private:
  ArrayView<uint32_t> units_;
};

}  // namespace hibari

// hibari C++: what hibari calls on a message object handed over in this
// program (Publisher<T>::publish(std::unique_ptr<T>), publish(T &&)): its
// encoder, for readers that need bytes, its deleter, and the move and
// destructor that construct and end a T in a sample's own storage. The address of
// ValueOps<T>::ops is T's tag: typed subscriptions of T read objects that
// carry it in place (hibari_subscription_create_with_values).
#pragma once

#include <hibari.h>
#include <hibari/cdr.hpp>

#include <cstddef>
#include <cstdint>
#include <new>
#include <type_traits>
#include <utility>

namespace hibari {
namespace detail {
/// The functions hibari calls on a handed-over T (hibari_value_ops_t); the
/// address of `ops` is T's tag in this program.
template <class T> struct ValueOps {
  static size_t encoded_len(const void *v) noexcept {
    try {
      return hibari::cdr::serialized_size(*static_cast<const T *>(v));
    } catch (...) {
      return 0;
    }
  }
  static bool encode(const void *v, uint8_t *out, size_t len) noexcept {
    try {
      return hibari::cdr::to_cdr(*static_cast<const T *>(v), out, len) == len;
    } catch (...) {
      return false;
    }
  }
  static void drop(void *v) noexcept { delete static_cast<T *>(v); }
  static bool move_into(void *dst, void *src) noexcept {
    try {
      ::new (dst) T(std::move(*static_cast<T *>(src)));
      return true;
    } catch (...) {
      return false;
    }
  }
  static void destroy(void *v) noexcept { static_cast<T *>(v)->~T(); }
  /// Whether a T fits a sample's own storage (hibari_publisher_publish_value_from).
  static constexpr bool fits_inline = sizeof(T) <= HIBARI_VALUE_INLINE_SIZE &&
                                      alignof(T) <= HIBARI_VALUE_INLINE_ALIGN &&
                                      std::is_move_constructible<T>::value;
  static const void *tag() { return &ops; }
  static const hibari_value_ops_t ops;
};
template <class T>
const hibari_value_ops_t ValueOps<T>::ops = {&ValueOps<T>::ops,       &ValueOps<T>::encoded_len,
                                             &ValueOps<T>::encode,    &ValueOps<T>::drop,
                                             sizeof(T),               alignof(T),
                                             &ValueOps<T>::move_into, &ValueOps<T>::destroy};
}  // namespace detail

}  // namespace hibari

// hibari C++: publishers of message types and of CDR bytes, and loans.
//
// Zero copy: publisher->loan(n) lends n bytes where the transport carries
// them (shared memory when a subscriber is in another process) to write a
// whole message's CDR in place; loan_with_array(message, &Msg::field, n)
// lays a message out around its one big array (an image's pixels), left as
// a hole of n elements to fill in place. Both are sent with publish().
#pragma once

#include <hibari.h>
#include <hibari/cdr.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <exception>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "hibari/context.hpp"
#include "hibari/exceptions.hpp"
#include "hibari/handover.hpp"
#include "hibari/qos.hpp"

namespace hibari {

/// Bytes lent by a publisher: write the message's CDR (header included),
/// then publish(). Dropped unsent, the memory goes back. Move-only.
class LoanedBytes {
public:
  LoanedBytes() = default;
  explicit LoanedBytes(hibari_loan_t loan) : loan_(loan) {}
  LoanedBytes(LoanedBytes &&o) noexcept : loan_(o.loan_) { o.loan_ = hibari_loan_t{}; }
  LoanedBytes &operator=(LoanedBytes &&o) noexcept {
    if (this != &o) {
      discard();
      loan_ = o.loan_;
      o.loan_ = hibari_loan_t{};
    }
    return *this;
  }
  LoanedBytes(const LoanedBytes &) = delete;
  LoanedBytes &operator=(const LoanedBytes &) = delete;
  ~LoanedBytes() { discard(); }

  uint8_t *data() { return loan_.data; }
  size_t size() const { return loan_.len; }
  uint8_t *begin() { return loan_.data; }
  uint8_t *end() { return loan_.data + loan_.len; }
  /// Whether it still holds bytes (not published or discarded).
  bool valid() const { return loan_.id != 0; }

  /// Sends the bytes; the loan is consumed (even when it throws).
  void publish() { detail::check(hibari_loan_send(&loan_), "LoanedBytes::publish"); }

  /// Gives the memory back unsent.
  void discard() noexcept {
    if (loan_.id != 0) hibari_loan_discard(&loan_);
  }

private:
  hibari_loan_t loan_{};
};

/// A message laid out in lent memory with its big array a hole of size()
/// elements at data() to fill in place; then publish().
template <class E> class LoanedArray {
public:
  LoanedArray(LoanedBytes loan, uint8_t *hole, size_t count)
      : loan_(std::move(loan)), hole_(hole), count_(count) {}

  /// The elements, if their address suits E (CDR aligns 8-byte elements
  /// at 4 mod 8 of the memory: use bytes() for those).
  E *data() {
    if (reinterpret_cast<uintptr_t>(hole_) % alignof(E) != 0) {
      throw exceptions::HibariError(HIBARI_ERROR,
                                    "the array's bytes are not aligned for its element type: write them with bytes()");
    }
    return reinterpret_cast<E *>(hole_);
  }
  uint8_t *bytes() { return hole_; }
  size_t size() const { return count_; }
  size_t size_bytes() const { return count_ * sizeof(E); }
  E *begin() { return data(); }
  E *end() { return data() + count_; }
  E &operator[](size_t i) { return data()[i]; }

  /// The whole message's lent bytes.
  LoanedBytes &message() { return loan_; }
  void publish() { loan_.publish(); }

private:
  LoanedBytes loan_;
  uint8_t *hole_;
  size_t count_;
};

/// What every publisher has: its handle, its counts, loans of bytes.
class PublisherBase {
public:
  PublisherBase(std::shared_ptr<detail::NodeHandle> node, const std::string &topic, const std::string &type_name,
                const QoS &qos)
      : node_(std::move(node)) {
    detail::check(hibari_publisher_create(node_->handle, topic.c_str(), type_name.c_str(), &qos.get_c_qos(), &handle_),
                  "create_publisher");
  }
  virtual ~PublisherBase() { hibari_publisher_destroy(handle_); }
  PublisherBase(const PublisherBase &) = delete;
  PublisherBase &operator=(const PublisherBase &) = delete;

  size_t get_subscription_count() const {
    size_t n = 0;
    detail::check(hibari_publisher_get_subscription_count(handle_, &n), "get_subscription_count");
    return n;
  }
  /// The matched subscriptions in this process: the ones publish(std::unique_ptr<T>)
  /// hands its object to (with none, the object is encoded, as publish(const T &) does).
  size_t get_intra_process_subscription_count() const {
    size_t n = 0;
    detail::check(hibari_publisher_get_intra_process_subscription_count(handle_, &n),
                  "get_intra_process_subscription_count");
    return n;
  }
  std::string get_topic_name() const {
    return detail::get_string(handle_, hibari_publisher_get_topic_name, "get_topic_name");
  }
  /// Waits until at least `count` subscriptions are matched; whether they are.
  template <class Rep, class Period> bool wait_for_subscriptions(size_t count, std::chrono::duration<Rep, Period> timeout) {
    bool matched = false;
    const int64_t ns = std::chrono::duration_cast<std::chrono::nanoseconds>(timeout).count();
    detail::check(hibari_publisher_wait_for_subscriptions(handle_, count, ns, &matched), "wait_for_subscriptions");
    return matched;
  }

  /// Lends `bytes` bytes to write one message's CDR in place.
  LoanedBytes loan(size_t bytes) {
    hibari_loan_t l{};
    detail::check(hibari_publisher_loan(handle_, bytes, &l), "loan");
    return LoanedBytes(l);
  }

  /// Publishes CDR bytes (header included) as they are.
  void publish_serialized(const uint8_t *cdr, size_t len) {
    detail::check(hibari_publisher_publish(handle_, cdr, len), "publish");
  }

  hibari_publisher_t get_c_handle() const { return handle_; }

protected:
  std::shared_ptr<detail::NodeHandle> node_;
  hibari_publisher_t handle_{};
};

/// A publisher of the message type T (with T::TYPE_NAME).
template <class T> class Publisher : public PublisherBase {
public:
  using SharedPtr = std::shared_ptr<Publisher<T>>;
  using ConstSharedPtr = std::shared_ptr<const Publisher<T>>;

  Publisher(std::shared_ptr<detail::NodeHandle> node, const std::string &topic, const QoS &qos)
      : PublisherBase(std::move(node), topic, T::TYPE_NAME, qos) {}

  /// Encodes `msg` straight into the memory the transport carries — the
  /// shared memory subscribers in other processes read in place, else a
  /// buffer handed to the subscribers of this process — and publishes it:
  /// its exact size first, then one pass that writes it, no other copy.
  void publish(const T &msg) {
    Encoding e{&msg, nullptr};
    const size_t len = hibari::cdr::serialized_size(msg);
    const hibari_ret_t r = hibari_publisher_publish_with(handle_, len, &Publisher::encode, &e);
    if (e.error) std::rethrow_exception(e.error);
    detail::check(r, "publish");
  }
  /// Hands `msg` over: subscriptions of T in this program get this very
  /// object (a `const T &` callback reads it in place, however large; it is
  /// freed when the last of them is done), and it is encoded only for
  /// readers that need bytes — in other processes, straight into the shared
  /// memory they read. rclcpp's intra-process publish of a unique_ptr.
  /// With no subscription in this program (get_intra_process_subscription_count()
  /// is 0), the object is encoded at once, as publish(const T &) does, and freed.
  void publish(std::unique_ptr<T> msg) {
    if (!msg) throw exceptions::InvalidArgument(HIBARI_ERROR_INVALID_ARGUMENT, "publish: the unique_ptr is empty");
    // hibari owns the object from here on, also when the call fails.
    const hibari_ret_t r = hibari_publisher_publish_value(handle_, msg.release(), &detail::ValueOps<T>::ops);
    detail::check(r, "publish");
  }
  /// publish(std::unique_ptr<T>) of `msg`'s contents, moved (not copied)
  /// straight into the sample's own storage — one allocation per message —
  /// when a subscription in this program may read it, and only encoded
  /// otherwise; a T too large for that storage is moved into a new object.
  void publish(T &&msg) {
    if constexpr (detail::ValueOps<T>::fits_inline) {
      const hibari_ret_t r = hibari_publisher_publish_value_from(handle_, &msg, &detail::ValueOps<T>::ops);
      detail::check(r, "publish");
    } else {
      publish(std::make_unique<T>(std::move(msg)));
    }
  }

  /// Lays `msg` out in lent memory with its array `field` (a std::vector of
  /// numbers, empty or not in `msg`) left as a hole of `count` elements,
  /// to fill in place before publish(). The other fields are written now,
  /// straight into the loan (hibari::cdr::Writer::leave_hole).
  template <class E> LoanedArray<E> loan_with_array(const T &msg, std::vector<E> T::*field, size_t count) {
    static_assert(std::is_arithmetic<E>::value && !std::is_same<E, bool>::value,
                  "loan_with_array needs an array of numbers");
    const void *array = &(msg.*field);
    hibari::cdr::Writer counter;
    counter.leave_hole(array, count);
    cdr_serialize(msg, counter);
    if (counter.hole_offset() == hibari::cdr::Writer::no_hole) {
      throw exceptions::HibariError(HIBARI_ERROR, "loan_with_array: the field's place in the CDR could not be found");
    }
    LoanedBytes lent = loan(counter.size());
    hibari::cdr::Writer writer(lent.data(), lent.size());
    writer.leave_hole(array, count);
    cdr_serialize(msg, writer);
    uint8_t *hole = lent.data() + writer.hole_offset();
    return LoanedArray<E>(std::move(lent), hole, count);
  }

private:
  struct Encoding {
    const T *msg;
    std::exception_ptr error;
  };

  /// hibari_publisher_publish_with's write function: no exception leaves it.
  static bool encode(uint8_t *data, size_t len, void *user) noexcept {
    auto *e = static_cast<Encoding *>(user);
    try {
      return hibari::cdr::to_cdr(*e->msg, data, len) == len;
    } catch (...) {
      e->error = std::current_exception();
      return false;
    }
  }
};

/// A publisher of CDR bytes of a type named at run time.
class GenericPublisher : public PublisherBase {
public:
  using SharedPtr = std::shared_ptr<GenericPublisher>;
  GenericPublisher(std::shared_ptr<detail::NodeHandle> node, const std::string &topic, const std::string &type_name,
                   const QoS &qos)
      : PublisherBase(std::move(node), topic, type_name, qos) {}
  void publish(const uint8_t *cdr, size_t len) { publish_serialized(cdr, len); }
  void publish(const std::vector<uint8_t> &cdr) { publish_serialized(cdr.data(), cdr.size()); }
};

}  // namespace hibari

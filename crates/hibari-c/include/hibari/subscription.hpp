// hibari C++: subscriptions of message types, and of CDR bytes read in
// place.
//
// A typed subscription decodes each sample (hibari::cdr::from_cdr) and
// calls one of (as rclcpp):
//   void(const T &)                      void(const T &, const MessageInfo &)
//   void(std::shared_ptr<T>)             void(std::shared_ptr<T>, const MessageInfo &)
//   void(std::shared_ptr<const T>)       void(std::unique_ptr<T>)
// A sample that does not decode is logged (ERROR) and skipped.
// create_serialized_subscription's callback gets the CDR bytes themselves,
// borrowed for the call — from another process, read in place in the
// publisher's shared memory: void(ByteSpan[, const MessageInfo &]).
// create_view_subscription<T>'s callback gets T's zero-copy view
// (hibari/view.hpp) of those same bytes, parsed without copying arrays or
// strings: void(const T::View &[, const MessageInfo &]).
//
// Any of them may also be taken from without an executor, as rclcpp's
// (after a hibari::WaitSet found it ready): take(msg, info) decodes the
// oldest sample into msg; take_in_place(f) lends its bytes to f. Each
// sample goes to whoever takes it first, a take or the callback.
#pragma once

#include <hibari.h>
#include <hibari/cdr.hpp>

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "hibari/callback_group.hpp"
#include "hibari/context.hpp"
#include "hibari/exceptions.hpp"
#include "hibari/handover.hpp"
#include "hibari/logging.hpp"
#include "hibari/message_info.hpp"
#include "hibari/qos.hpp"

namespace hibari {

/// rclcpp's SubscriptionOptions: the callback group the callback runs in
/// (null: the node's default group).
struct SubscriptionOptions {
  CallbackGroup::SharedPtr callback_group;
};

namespace detail {
using RawCallback = std::function<void(ByteSpan, const MessageInfo &)>;
using ValueCallback = std::function<void(const void *, const MessageInfo &)>;

/// What a subscription calls: with CDR bytes, or (typed subscriptions)
/// with an object its type's publishers of this program handed over.
struct Delivery {
  RawCallback bytes;
  ValueCallback value;
  const void *type_tag = nullptr;
  void operator()(ByteSpan b, const MessageInfo &i) { bytes(b, i); }
  void operator()(const void *v, const MessageInfo &i) { value(v, i); }
};
using RawBox = CallbackBox<Delivery>;

inline void on_sample(const uint8_t *cdr, size_t len, const hibari_sample_info_t *info, void *user) {
  RawBox::call(user, ByteSpan{cdr, len}, MessageInfo::from_c(*info));
}
inline void on_value(const void *value, const hibari_sample_info_t *info, void *user) {
  RawBox::call(user, value, MessageInfo::from_c(*info));
}
}  // namespace detail

/// What every subscription has: its handle and counts.
class SubscriptionBase {
public:
  SubscriptionBase(std::shared_ptr<detail::NodeHandle> node, const std::string &topic, const std::string &type_name,
                   const QoS &qos, detail::RawCallback callback,
                   const SubscriptionOptions &options = SubscriptionOptions())
      : SubscriptionBase(std::move(node), topic, type_name, qos, detail::Delivery{std::move(callback), {}, nullptr},
                         options) {}

  /// With `delivery.value`, objects published in this program with
  /// `delivery.type_tag` reach it as they are (hibari_subscription_create_with_values).
  SubscriptionBase(std::shared_ptr<detail::NodeHandle> node, const std::string &topic, const std::string &type_name,
                   const QoS &qos, detail::Delivery delivery, const SubscriptionOptions &options)
      : node_(std::move(node)), box_(new detail::RawBox(std::move(delivery))) {
    const auto &group = options.callback_group;
    const hibari_callback_group_t g = group ? group->get_c_handle() : hibari_callback_group_t{};
    const hibari_ret_t r =
        box_->fn().value
            ? hibari_subscription_create_with_values(node_->handle, g, topic.c_str(), type_name.c_str(),
                                                     &qos.get_c_qos(), detail::on_sample, box_->fn().type_tag,
                                                     detail::on_value, box_, &handle_)
        : group ? hibari_subscription_create_in_group(node_->handle, g, topic.c_str(), type_name.c_str(),
                                                      &qos.get_c_qos(), detail::on_sample, box_, &handle_)
                : hibari_subscription_create(node_->handle, topic.c_str(), type_name.c_str(), &qos.get_c_qos(),
                                             detail::on_sample, box_, &handle_);
    if (r != HIBARI_OK) {
      delete box_;
      detail::check(r, "create_subscription");
    }
  }
  virtual ~SubscriptionBase() {
    hibari_subscription_destroy(handle_);
    detail::RawBox::release(box_);
  }
  SubscriptionBase(const SubscriptionBase &) = delete;
  SubscriptionBase &operator=(const SubscriptionBase &) = delete;

  size_t get_publisher_count() const {
    size_t n = 0;
    detail::check(hibari_subscription_get_publisher_count(handle_, &n), "get_publisher_count");
    return n;
  }
  std::string get_topic_name() const {
    return detail::get_string(handle_, hibari_subscription_get_topic_name, "get_topic_name");
  }
  hibari_subscription_t get_c_handle() const { return handle_; }

  /// Takes the oldest sample, if any, without waiting: calls f(ByteSpan,
  /// const MessageInfo &) with its CDR bytes, borrowed for the call (from
  /// another process, read in place in the publisher's shared memory), and
  /// returns true; false when none waits. An exception from f propagates,
  /// the sample released.
  template <class F> bool take_in_place(F &&f) {
    hibari_sample_t sample{};
    bool taken = false;
    detail::check(hibari_subscription_take(handle_, &sample, &taken), "take");
    if (!taken) return false;
    struct Release {
      hibari_sample_t *sample;
      ~Release() { hibari_sample_release(sample); }
    } release{&sample};
    f(ByteSpan{sample.data, sample.len}, MessageInfo::from_c(sample.info));
    return true;
  }

private:
  std::shared_ptr<detail::NodeHandle> node_;
  detail::RawBox *box_;
  hibari_subscription_t handle_{};
};

/// A subscription of the message type T.
template <class T> class Subscription : public SubscriptionBase {
public:
  using SharedPtr = std::shared_ptr<Subscription<T>>;

  /// Samples published in this program with publish(std::unique_ptr<T>)
  /// or publish(T &&) reach the callback as the publisher's object: a
  /// `const T &` callback reads it in place (shared with the program's other
  /// subscriptions), the others get a copy. Other samples are decoded.
  template <class F>
  Subscription(std::shared_ptr<detail::NodeHandle> node, const std::string &topic, const QoS &qos, F &&callback,
               const SubscriptionOptions &options = SubscriptionOptions())
      : SubscriptionBase(node, topic, T::TYPE_NAME, qos, adapt(node, std::forward<F>(callback)), options) {}

  /// rclcpp's take: decodes the oldest sample into `msg` and its info into
  /// `info`; false at once when none waits. A sample that does not decode
  /// throws (hibari::cdr's exception), and is gone.
  bool take(T &msg, MessageInfo &info) {
    return take_in_place([&](ByteSpan bytes, const MessageInfo &i) {
      hibari::cdr::from_cdr(bytes.data(), bytes.size(), msg);
      info = i;
    });
  }

private:
  /// The callback, behind a decoder for its signature and an adapter for
  /// handed-over objects.
  template <class F> static detail::Delivery adapt(const std::shared_ptr<detail::NodeHandle> &node, F &&f) {
    using Fn = std::decay_t<F>;
    static_assert(std::is_invocable<Fn &, const T &, const MessageInfo &>::value ||
                      std::is_invocable<Fn &, const T &>::value ||
                      std::is_invocable<Fn &, std::shared_ptr<T>, const MessageInfo &>::value ||
                      std::is_invocable<Fn &, std::shared_ptr<T>>::value ||
                      std::is_invocable<Fn &, std::unique_ptr<T>>::value,
                  "a subscription callback takes (const T &[, const hibari::MessageInfo &]), "
                  "std::shared_ptr<T> (or <const T>), or std::unique_ptr<T>");
    // One callable for both paths (never called twice at once).
    auto fn = std::make_shared<Fn>(std::forward<F>(f));
    detail::Delivery d;
    d.bytes = decoding(node, fn);
    d.value = handed_over(fn);
    d.type_tag = detail::ValueOps<T>::tag();
    return d;
  }

  /// Calls `f` with a handed-over object, in the shape it takes.
  template <class Fn> static detail::ValueCallback handed_over(std::shared_ptr<Fn> f) {
    return [f](const void *v, const MessageInfo &info) {
      const T &msg = *static_cast<const T *>(v);
      if constexpr (std::is_invocable<Fn &, const T &, const MessageInfo &>::value) {
        (*f)(msg, info);
      } else if constexpr (std::is_invocable<Fn &, const T &>::value) {
        (*f)(msg);
      } else if constexpr (std::is_invocable<Fn &, std::shared_ptr<T>, const MessageInfo &>::value) {
        (*f)(std::make_shared<T>(msg), info);
      } else if constexpr (std::is_invocable<Fn &, std::shared_ptr<T>>::value) {
        (*f)(std::make_shared<T>(msg));
      } else {
        (*f)(std::make_unique<T>(msg));
      }
    };
  }

  /// Calls `f` with each sample's bytes decoded, in the shape it takes.
  template <class Fn>
  static detail::RawCallback decoding(const std::shared_ptr<detail::NodeHandle> &node, std::shared_ptr<Fn> f) {
    hibari_node_t n = node->handle;
    auto decode = [n](ByteSpan bytes, T &msg) {
      try {
        hibari::cdr::from_cdr(bytes.data(), bytes.size(), msg);
        return true;
      } catch (const std::exception &e) {
        const std::string text = std::string("a sample of ") + T::TYPE_NAME + " does not decode: " + e.what();
        hibari_log(n, HIBARI_LOG_ERROR, __FILE__, __LINE__, "hibari::Subscription", text.c_str());
        return false;
      }
    };
    if constexpr (std::is_invocable<Fn &, const T &, const MessageInfo &>::value) {
      auto msg = std::make_shared<T>();
      return [f, decode, msg](ByteSpan b, const MessageInfo &info) {
        if (decode(b, *msg)) (*f)(static_cast<const T &>(*msg), info);
      };
    } else if constexpr (std::is_invocable<Fn &, const T &>::value) {
      auto msg = std::make_shared<T>();
      return [f, decode, msg](ByteSpan b, const MessageInfo &) {
        if (decode(b, *msg)) (*f)(static_cast<const T &>(*msg));
      };
    } else if constexpr (std::is_invocable<Fn &, std::shared_ptr<T>, const MessageInfo &>::value) {
      return [f, decode](ByteSpan b, const MessageInfo &info) {
        auto msg = std::make_shared<T>();
        if (decode(b, *msg)) (*f)(msg, info);
      };
    } else if constexpr (std::is_invocable<Fn &, std::shared_ptr<T>>::value) {
      return [f, decode](ByteSpan b, const MessageInfo &) {
        auto msg = std::make_shared<T>();
        if (decode(b, *msg)) (*f)(msg);
      };
    } else {
      return [f, decode](ByteSpan b, const MessageInfo &) {
        auto msg = std::make_unique<T>();
        if (decode(b, *msg)) (*f)(std::move(msg));
      };
    }
  }
};

/// A subscription of the message type T whose callback reads each sample
/// in place, through T::View (`sensor_msgs::msg::ImageView`: the pixels are
/// a hibari::Span of the received bytes, from another process the
/// publisher's shared memory). The view is valid only during the call: it
/// points into bytes that are handed back when the callback returns, so
/// neither it nor any span, string_view or iterator taken from it may be
/// kept; copy what must outlive the call (view.to_message(), or a field).
/// Callbacks: void(const T::View &[, const MessageInfo &]). A sample that
/// does not parse is logged (ERROR) and skipped.
template <class T> class ViewSubscription : public SubscriptionBase {
public:
  using SharedPtr = std::shared_ptr<ViewSubscription<T>>;
  using View = typename T::View;

  template <class F>
  ViewSubscription(std::shared_ptr<detail::NodeHandle> node, const std::string &topic, const QoS &qos, F &&callback,
                   const SubscriptionOptions &options = SubscriptionOptions())
      : SubscriptionBase(node, topic, T::TYPE_NAME, qos, adapt(node, std::forward<F>(callback)), options) {}

private:
  template <class F> static detail::RawCallback adapt(const std::shared_ptr<detail::NodeHandle> &node, F &&f) {
    using Fn = std::decay_t<F>;
    constexpr bool with_info = std::is_invocable<Fn &, const View &, const MessageInfo &>::value;
    static_assert(with_info || std::is_invocable<Fn &, const View &>::value,
                  "a view subscription callback takes (const T::View &[, const hibari::MessageInfo &])");
    hibari_node_t n = node->handle;
    return [f = Fn(std::forward<F>(f)), n](ByteSpan bytes, const MessageInfo &info) mutable {
      View view;
      try {
        view = View::parse(bytes.data(), bytes.size());
      } catch (const std::exception &e) {
        const std::string text = std::string("a sample of ") + T::TYPE_NAME + " does not parse: " + e.what();
        hibari_log(n, HIBARI_LOG_ERROR, __FILE__, __LINE__, "hibari::ViewSubscription", text.c_str());
        return;
      }
      if constexpr (with_info) {
        f(static_cast<const View &>(view), info);
      } else {
        f(static_cast<const View &>(view));
      }
    };
  }
};

/// A subscription of CDR bytes of a type named at run time, read in place.
class SerializedSubscription : public SubscriptionBase {
public:
  using SharedPtr = std::shared_ptr<SerializedSubscription>;

  template <class F>
  SerializedSubscription(std::shared_ptr<detail::NodeHandle> node, const std::string &topic,
                         const std::string &type_name, const QoS &qos, F &&callback,
                         const SubscriptionOptions &options = SubscriptionOptions())
      : SubscriptionBase(std::move(node), topic, type_name, qos, adapt(std::forward<F>(callback)), options) {}

  /// rclcpp's take_serialized: copies the oldest sample's CDR bytes into
  /// `bytes`; false at once when none waits.
  bool take_serialized(std::vector<uint8_t> &bytes, MessageInfo &info) {
    return take_in_place([&](ByteSpan b, const MessageInfo &i) {
      bytes.assign(b.begin(), b.end());
      info = i;
    });
  }

private:
  template <class F> static detail::RawCallback adapt(F &&f) {
    using Fn = std::decay_t<F>;
    if constexpr (std::is_invocable<Fn &, ByteSpan, const MessageInfo &>::value) {
      return detail::RawCallback(std::forward<F>(f));
    } else {
      static_assert(std::is_invocable<Fn &, ByteSpan>::value,
                    "a serialized subscription callback takes (hibari::ByteSpan[, const hibari::MessageInfo &])");
      return [f = Fn(std::forward<F>(f))](ByteSpan b, const MessageInfo &) mutable { f(b); };
    }
  }
};

}  // namespace hibari

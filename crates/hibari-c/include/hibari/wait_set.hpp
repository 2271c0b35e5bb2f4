// hibari C++: wait sets, as rclcpp's rclcpp::WaitSet. Instead of an
// executor running callbacks, the program sleeps until subscriptions have
// samples, guard conditions were triggered or timers are due, then takes
// and calls itself:
//
//   auto guard = std::make_shared<hibari::GuardCondition>();
//   hibari::WaitSet wait_set({{sub}}, {guard}, {timer});
//   auto wait_result = wait_set.wait(std::chrono::seconds(3));
//   if (wait_result.kind() == hibari::WaitResultKind::Ready) {
//     const auto &ready = wait_result.get_wait_set().get_rcl_wait_set();
//     if (ready.subscriptions[0]) { T msg; hibari::MessageInfo info; sub->take(msg, info); }
//     if (ready.guard_conditions[0]) { /* the wait consumed the trigger */ }
//     if (ready.timers[0]) { if (auto data = timer->call()) timer->execute_callback(data); }
//   }
//
// A subscription is ready when a sample waits (the wait takes nothing; a
// take may still find nothing, as in rclcpp), a guard condition when it was
// triggered (the wait consumes it), a timer when it is due. The wait sleeps
// without polling, woken by the entities themselves (samples from other
// processes included). The wait set keeps what it holds alive.
#pragma once

#include <hibari.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <utility>
#include <vector>

#include "hibari/exceptions.hpp"
#include "hibari/subscription.hpp"
#include "hibari/timer.hpp"

namespace hibari {

/// rclcpp's mask of what of a subscription to wait on: hibari waits on its
/// samples (its QoS events also wake it).
struct SubscriptionWaitSetMask {
  bool include_subscription = true;
  bool include_events = true;
  bool include_intra_process_waitable = true;
};

/// A subscription and its mask, as the WaitSet constructor takes them:
/// `{sub}` or `{sub, mask}`.
struct WaitSetSubscriptionEntry {
  WaitSetSubscriptionEntry(std::shared_ptr<SubscriptionBase> s, SubscriptionWaitSetMask m = {})
      : subscription(std::move(s)), mask(m) {}
  std::shared_ptr<SubscriptionBase> subscription;
  SubscriptionWaitSetMask mask;
};

/// What the last wait found, in rcl's shape: the i-th pointer of a kind is
/// the i-th entity added of that kind when it is ready, null otherwise.
struct WaitSetReadiness {
  std::vector<const SubscriptionBase *> subscriptions;
  std::vector<const GuardCondition *> guard_conditions;
  std::vector<const TimerBase *> timers;
  size_t size_of_subscriptions = 0;
  size_t size_of_guard_conditions = 0;
  size_t size_of_timers = 0;
};

enum class WaitResultKind { Ready, Timeout, Empty };

class WaitSet;

/// What WaitSet::wait returns: its kind, and the wait set to ask which
/// entities are ready.
class WaitResult {
public:
  WaitResult(WaitResultKind kind, WaitSet &wait_set) : kind_(kind), wait_set_(&wait_set) {}
  WaitResultKind kind() const { return kind_; }
  WaitSet &get_wait_set() { return *wait_set_; }
  const WaitSet &get_wait_set() const { return *wait_set_; }

private:
  WaitResultKind kind_;
  WaitSet *wait_set_;
};

/// Subscriptions, guard conditions and timers to wait on together (of any
/// nodes). Not shared between threads: one thread adds, waits and reads.
class WaitSet {
public:
  /// Bound to the default context, as rclcpp's: once it is shut down
  /// (Ctrl-C), wait() returns Ready with no entity ready, at once — loops
  /// that check hibari::ok() end.
  explicit WaitSet(const std::vector<WaitSetSubscriptionEntry> &subscriptions = {},
                   const std::vector<GuardCondition::SharedPtr> &guard_conditions = {},
                   const std::vector<TimerBase::SharedPtr> &timers = {})
      : context_(detail::default_context()) {
    detail::check(hibari_wait_set_create(context_->handle, &handle_), "WaitSet");
    try {
      for (const auto &s : subscriptions) add_subscription(s.subscription, s.mask);
      for (const auto &g : guard_conditions) add_guard_condition(g);
      for (const auto &t : timers) add_timer(t);
    } catch (...) {
      hibari_wait_set_destroy(handle_);
      throw;
    }
  }
  ~WaitSet() { hibari_wait_set_destroy(handle_); }
  WaitSet(const WaitSet &) = delete;
  WaitSet &operator=(const WaitSet &) = delete;

  void add_subscription(std::shared_ptr<SubscriptionBase> subscription, SubscriptionWaitSetMask = {}) {
    if (!subscription) throw std::invalid_argument("WaitSet::add_subscription: subscription is null");
    size_t index = 0;
    detail::check(hibari_wait_set_add_subscription(handle_, subscription->get_c_handle(), &index),
                  "WaitSet::add_subscription");
    subscriptions_.push_back(std::move(subscription));
    reset_readiness();
  }
  void add_guard_condition(GuardCondition::SharedPtr guard_condition) {
    if (!guard_condition) throw std::invalid_argument("WaitSet::add_guard_condition: guard condition is null");
    size_t index = 0;
    detail::check(hibari_wait_set_add_guard_condition(handle_, guard_condition->get_c_handle(), &index),
                  "WaitSet::add_guard_condition");
    guard_conditions_.push_back(std::move(guard_condition));
    reset_readiness();
  }
  void add_timer(TimerBase::SharedPtr timer) {
    if (!timer) throw std::invalid_argument("WaitSet::add_timer: timer is null");
    size_t index = 0;
    detail::check(hibari_wait_set_add_timer(handle_, timer->get_c_handle(), &index), "WaitSet::add_timer");
    timers_.push_back(std::move(timer));
    reset_readiness();
  }

  /// Removing shifts the later entities of that kind down by one index.
  void remove_subscription(const std::shared_ptr<SubscriptionBase> &subscription) {
    remove(subscriptions_, subscription, "WaitSet::remove_subscription");
  }
  void remove_guard_condition(const GuardCondition::SharedPtr &guard_condition) {
    remove(guard_conditions_, guard_condition, "WaitSet::remove_guard_condition");
  }
  void remove_timer(const TimerBase::SharedPtr &timer) { remove(timers_, timer, "WaitSet::remove_timer"); }

  /// Waits up to `timeout` (negative, the default: forever) until at least
  /// one entity is ready; Empty at once when the wait set holds nothing.
  template <class Rep = int64_t, class Period = std::milli>
  WaitResult wait(std::chrono::duration<Rep, Period> timeout = std::chrono::duration<Rep, Period>(-1)) {
    if (subscriptions_.empty() && guard_conditions_.empty() && timers_.empty()) {
      reset_readiness();
      return WaitResult(WaitResultKind::Empty, *this);
    }
    const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(timeout).count();
    bool ready = false;
    const hibari_ret_t r = hibari_wait_set_wait(handle_, ns, &ready);
    reset_readiness();
    if (r == HIBARI_ERROR_SHUTDOWN) return WaitResult(WaitResultKind::Ready, *this);  // rclcpp: the context's own
    detail::check(r, "WaitSet::wait");
    if (!ready) return WaitResult(WaitResultKind::Timeout, *this);
    mark(subscriptions_, readiness_.subscriptions, hibari_wait_set_subscription_is_ready);
    mark(guard_conditions_, readiness_.guard_conditions, hibari_wait_set_guard_condition_is_ready);
    mark(timers_, readiness_.timers, hibari_wait_set_timer_is_ready);
    return WaitResult(WaitResultKind::Ready, *this);
  }

  /// rclcpp's name for what the last wait found.
  const WaitSetReadiness &get_rcl_wait_set() const { return readiness_; }
  hibari_wait_set_t get_c_handle() const { return handle_; }

private:
  /// Every pointer null, one per entity.
  void reset_readiness() {
    readiness_.subscriptions.assign(subscriptions_.size(), nullptr);
    readiness_.guard_conditions.assign(guard_conditions_.size(), nullptr);
    readiness_.timers.assign(timers_.size(), nullptr);
    readiness_.size_of_subscriptions = subscriptions_.size();
    readiness_.size_of_guard_conditions = guard_conditions_.size();
    readiness_.size_of_timers = timers_.size();
  }

  template <class E, class P>
  void mark(const std::vector<std::shared_ptr<E>> &entities, std::vector<P> &out,
            hibari_ret_t (*is_ready)(hibari_wait_set_t, size_t, bool *)) {
    for (size_t i = 0; i < entities.size(); ++i) {
      bool ready = false;
      detail::check(is_ready(handle_, i, &ready), "WaitSet::wait");
      if (ready) out[i] = entities[i].get();
    }
  }

  /// Drops `entity` from `list`, then adds every entity again in order
  /// (the C wait set's indices are the order of adding).
  template <class E> void remove(std::vector<std::shared_ptr<E>> &list, const std::shared_ptr<E> &entity,
                                 const char *what) {
    auto it = std::find(list.begin(), list.end(), entity);
    if (it == list.end()) throw std::runtime_error(std::string(what) + ": not in this wait set");
    list.erase(it);
    auto subscriptions = std::move(subscriptions_);
    auto guard_conditions = std::move(guard_conditions_);
    auto timers = std::move(timers_);
    subscriptions_.clear();
    guard_conditions_.clear();
    timers_.clear();
    detail::check(hibari_wait_set_clear(handle_), what);
    for (auto &s : subscriptions) add_subscription(std::move(s));
    for (auto &g : guard_conditions) add_guard_condition(std::move(g));
    for (auto &t : timers) add_timer(std::move(t));
  }

  std::shared_ptr<detail::ContextHandle> context_;
  hibari_wait_set_t handle_{};
  std::vector<std::shared_ptr<SubscriptionBase>> subscriptions_;
  std::vector<GuardCondition::SharedPtr> guard_conditions_;
  std::vector<TimerBase::SharedPtr> timers_;
  WaitSetReadiness readiness_;
};

}  // namespace hibari

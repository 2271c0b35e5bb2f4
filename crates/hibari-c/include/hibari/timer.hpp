// hibari C++: timers (steady time, as create_wall_timer, or the node's
// clock, as create_timer — simulated under use_sim_time) and guard
// conditions. Both are also waited on in a hibari::WaitSet
// (hibari/wait_set.hpp): a due timer is run there with call() and
// execute_callback(), a guard condition may belong to no node.
#pragma once

#include <hibari.h>

#include <chrono>
#include <functional>
#include <atomic>
#include <memory>
#include <thread>
#include <type_traits>
#include <utility>

#include "hibari/callback_group.hpp"
#include "hibari/context.hpp"
#include "hibari/exceptions.hpp"

namespace hibari {

namespace detail {
using VoidBox = CallbackBox<std::function<void()>>;
inline void on_tick(void *user) { VoidBox::call(user); }
}  // namespace detail

/// Which clock a timer follows: steady time (create_wall_timer), or the
/// node's clock (create_timer: ROS time, simulated under use_sim_time).
enum class TimerClock { Steady, Node };

/// A timer: its callback runs on the executor spinning its node every
/// period of its clock, the first time one period after it was created, in
/// `group` (null: the node's default group). It never overlaps its own
/// previous tick, whatever its group.
class TimerBase {
public:
  using SharedPtr = std::shared_ptr<TimerBase>;

  template <class F>
  TimerBase(std::shared_ptr<detail::NodeHandle> node, std::chrono::nanoseconds period, F &&callback,
            const CallbackGroup::SharedPtr &group = nullptr, TimerClock clock = TimerClock::Steady)
      : node_(std::move(node)), callback_(adapt(std::forward<F>(callback))), box_(new detail::VoidBox([this] {
          // call() moves the schedule on; execute_callback() runs it.
          if (deferring_.load() != std::this_thread::get_id()) callback_();
        })) {
    const hibari_callback_group_t g = group ? group->get_c_handle() : hibari_callback_group_t{};
    const hibari_ret_t r =
        clock == TimerClock::Node
            ? hibari_timer_create_on_node_clock(node_->handle, g, period.count(), detail::on_tick, box_, &handle_)
        : group ? hibari_timer_create_in_group(node_->handle, g, period.count(), detail::on_tick, box_, &handle_)
                : hibari_timer_create(node_->handle, period.count(), detail::on_tick, box_, &handle_);
    if (r != HIBARI_OK) {
      delete box_;
      detail::check(r, clock == TimerClock::Node ? "create_timer" : "create_wall_timer");
    }
  }
  virtual ~TimerBase() {
    hibari_timer_destroy(handle_);
    detail::VoidBox::release(box_);
  }
  TimerBase(const TimerBase &) = delete;
  TimerBase &operator=(const TimerBase &) = delete;

  void cancel() { detail::check(hibari_timer_cancel(handle_), "TimerBase::cancel"); }
  void reset() { detail::check(hibari_timer_reset(handle_), "TimerBase::reset"); }
  bool is_canceled() const {
    bool canceled = false;
    detail::check(hibari_timer_is_canceled(handle_, &canceled), "TimerBase::is_canceled");
    return canceled;
  }
  std::chrono::nanoseconds get_period() const {
    int64_t ns = 0;
    detail::check(hibari_timer_get_period(handle_, &ns), "TimerBase::get_period");
    return std::chrono::nanoseconds(ns);
  }
  hibari_timer_t get_c_handle() const { return handle_; }

  /// rclcpp's TimerBase::call, for a timer a wait set found ready: if the
  /// timer is due, moves it to its next period and returns a non-null
  /// token for execute_callback(), which runs the callback; null when it
  /// is not due, is canceled, or its callback runs on another thread now.
  std::shared_ptr<void> call() {
    bool called = false;
    deferring_.store(std::this_thread::get_id());
    const hibari_ret_t r = hibari_timer_call(handle_, &called);
    deferring_.store(std::thread::id());
    detail::check(r, "TimerBase::call");
    return called ? std::make_shared<bool>(true) : nullptr;
  }
  /// Runs the callback on this thread (after call(); exceptions propagate).
  void execute_callback(const std::shared_ptr<void> & = nullptr) { callback_(); }

private:
  /// void() or void(TimerBase &), as rclcpp's.
  template <class F> std::function<void()> adapt(F &&f) {
    using Fn = std::decay_t<F>;
    if constexpr (std::is_invocable<Fn &, TimerBase &>::value) {
      return [f = Fn(std::forward<F>(f)), this]() mutable { f(*this); };
    } else {
      static_assert(std::is_invocable<Fn &>::value, "a timer callback takes () or (hibari::TimerBase &)");
      return std::function<void()>(std::forward<F>(f));
    }
  }

  std::shared_ptr<detail::NodeHandle> node_;
  std::function<void()> callback_;
  /// The thread inside call(): its tick is deferred to execute_callback().
  std::atomic<std::thread::id> deferring_{};
  detail::VoidBox *box_;
  hibari_timer_t handle_{};
};

/// rclcpp's name for a steady timer.
class WallTimer : public TimerBase {
public:
  using SharedPtr = std::shared_ptr<WallTimer>;
  using TimerBase::TimerBase;
};

/// rclcpp's name for a timer on a clock (here the node's).
class GenericTimer : public TimerBase {
public:
  using SharedPtr = std::shared_ptr<GenericTimer>;
  template <class F>
  GenericTimer(std::shared_ptr<detail::NodeHandle> node, std::chrono::nanoseconds period, F &&callback,
               const CallbackGroup::SharedPtr &group = nullptr)
      : TimerBase(std::move(node), period, std::forward<F>(callback), group, TimerClock::Node) {}
};

/// A guard condition: trigger() it from any thread to have the executor
/// spinning its node run the callback, in `group` (null: the node's default
/// group), and the wait sets holding it wake. Made with no node
/// (std::make_shared<hibari::GuardCondition>(), as rclcpp's), it only wakes
/// wait sets.
class GuardCondition {
public:
  using SharedPtr = std::shared_ptr<GuardCondition>;

  GuardCondition() : box_(nullptr) {
    detail::check(hibari_guard_condition_create_standalone(&handle_), "GuardCondition");
  }
  GuardCondition(std::shared_ptr<detail::NodeHandle> node, std::function<void()> callback,
                 const CallbackGroup::SharedPtr &group = nullptr)
      : node_(std::move(node)), box_(new detail::VoidBox(std::move(callback))) {
    const hibari_ret_t r =
        group ? hibari_guard_condition_create_in_group(node_->handle, group->get_c_handle(), detail::on_tick, box_,
                                                       &handle_)
              : hibari_guard_condition_create(node_->handle, detail::on_tick, box_, &handle_);
    if (r != HIBARI_OK) {
      delete box_;
      detail::check(r, "create_guard_condition");
    }
  }
  ~GuardCondition() {
    hibari_guard_condition_destroy(handle_);
    detail::VoidBox::release(box_);
  }
  GuardCondition(const GuardCondition &) = delete;
  GuardCondition &operator=(const GuardCondition &) = delete;

  void trigger() { detail::check(hibari_guard_condition_trigger(handle_), "GuardCondition::trigger"); }
  hibari_guard_condition_t get_c_handle() const { return handle_; }

private:
  std::shared_ptr<detail::NodeHandle> node_;
  detail::VoidBox *box_;
  hibari_guard_condition_t handle_{};
};

}  // namespace hibari

// hibari C++: executors and the spin functions (rclcpp's).
//
// An exception a callback threw ends the spin call running at the time
// (or the next one) and is rethrown from it (see exceptions.hpp).
#pragma once

#include <hibari.h>

#include <chrono>
#include <functional>
#include <future>
#include <memory>

#include "hibari/context.hpp"
#include "hibari/exceptions.hpp"
#include "hibari/node.hpp"
#include "hibari/service.hpp"

namespace hibari {

/// rclcpp's ExecutorOptions (nothing to choose yet).
struct ExecutorOptions {};

class Executor {
public:
  using SharedPtr = std::shared_ptr<Executor>;
  virtual ~Executor() { hibari_executor_destroy(handle_); }
  Executor(const Executor &) = delete;
  Executor &operator=(const Executor &) = delete;

  /// Adds a node (a node is in one executor at a time). The executor does
  /// not keep it alive: a node destroyed leaves it.
  void add_node(const std::shared_ptr<Node> &node) { add_node(*node); }
  void add_node(const Node &node) {
    detail::check(hibari_executor_add_node(handle_, node.get_c_handle()), "add_node");
  }
  void remove_node(const std::shared_ptr<Node> &node) { remove_node(*node); }
  void remove_node(const Node &node) {
    detail::check(hibari_executor_remove_node(handle_, node.get_c_handle()), "remove_node");
  }

  /// Runs callbacks until cancel() or shutdown.
  void spin() {
    detail::rethrow_pending();
    {
      detail::SpinScope scope(handle_);
      detail::check(hibari_executor_spin(handle_), "spin");
    }
    detail::rethrow_pending();
  }

  /// Runs at most one callback, waiting up to `timeout` (negative: forever).
  template <class Rep = int64_t, class Period = std::nano>
  void spin_once(std::chrono::duration<Rep, Period> timeout = std::chrono::duration<Rep, Period>(-1)) {
    const int64_t ns = std::chrono::duration_cast<std::chrono::nanoseconds>(timeout).count();
    detail::rethrow_pending();
    {
      detail::SpinScope scope(handle_);
      detail::check(hibari_executor_spin_once(handle_, ns, nullptr), "spin_once");
    }
    detail::rethrow_pending();
  }

  /// Runs the callbacks ready now.
  void spin_some() {
    detail::rethrow_pending();
    {
      detail::SpinScope scope(handle_);
      detail::check(hibari_executor_spin_some(handle_, nullptr), "spin_some");
    }
    detail::rethrow_pending();
  }

  /// Spins until `future` is ready (SUCCESS), `timeout` passes (TIMEOUT;
  /// negative: never) or the spin is canceled or shut down (INTERRUPTED).
  /// A client's response wakes the executor spinning its node.
  template <class FutureT, class Rep = int64_t, class Period = std::milli>
  FutureReturnCode spin_until_future_complete(const FutureT &future,
                                              std::chrono::duration<Rep, Period> timeout =
                                                  std::chrono::duration<Rep, Period>(-1)) {
    const int64_t ns = std::chrono::duration_cast<std::chrono::nanoseconds>(timeout).count();
    std::function<bool()> ready = [&future] {
      return future.wait_for(std::chrono::seconds(0)) == std::future_status::ready;
    };
    const auto start = std::chrono::steady_clock::now();
    bool done = false;
    detail::rethrow_pending();
    {
      detail::SpinScope scope(handle_);
      detail::check(hibari_executor_spin_until(handle_, &Executor::ask, &ready, ns, &done),
                    "spin_until_future_complete");
    }
    detail::rethrow_pending();
    if (done) return FutureReturnCode::SUCCESS;
    const bool timed_out = ns >= 0 && std::chrono::steady_clock::now() - start >= std::chrono::nanoseconds(ns);
    return timed_out ? FutureReturnCode::TIMEOUT : FutureReturnCode::INTERRUPTED;
  }

  /// Makes the spins running now return (from any thread).
  void cancel() { detail::check(hibari_executor_cancel(handle_), "cancel"); }

  hibari_executor_t get_c_handle() const { return handle_; }

protected:
  Executor() = default;
  hibari_executor_t handle_{};

private:
  static bool ask(void *user) {
    bool answer = false;
    detail::guarded([&] { answer = (*static_cast<std::function<bool()> *>(user))(); });
    return answer;
  }
};

namespace executors {

/// Runs callbacks on the thread that spins it.
class SingleThreadedExecutor : public Executor {
public:
  using SharedPtr = std::shared_ptr<SingleThreadedExecutor>;
  explicit SingleThreadedExecutor(const ExecutorOptions & = ExecutorOptions()) {
    detail::check(hibari_executor_create_single(&handle_), "SingleThreadedExecutor");
  }
};

/// Runs callbacks on `number_of_threads` threads (0: one per core). One
/// mutually exclusive callback group's callbacks still run one at a time —
/// so one node's do, unless some are in other groups (callback_group.hpp).
class MultiThreadedExecutor : public Executor {
public:
  using SharedPtr = std::shared_ptr<MultiThreadedExecutor>;
  explicit MultiThreadedExecutor(const ExecutorOptions & = ExecutorOptions(), size_t number_of_threads = 0) {
    detail::check(hibari_executor_create_multi(number_of_threads, &handle_), "MultiThreadedExecutor");
  }
  explicit MultiThreadedExecutor(size_t number_of_threads) : MultiThreadedExecutor(ExecutorOptions(), number_of_threads) {}
};

}  // namespace executors

/// Spins `node` until shutdown (or an exception a callback threw).
inline void spin(const std::shared_ptr<Node> &node) {
  executors::SingleThreadedExecutor executor;
  executor.add_node(node);
  executor.spin();
}

/// Runs the callbacks of `node` ready now.
inline void spin_some(const std::shared_ptr<Node> &node) {
  executors::SingleThreadedExecutor executor;
  executor.add_node(node);
  executor.spin_some();
}

/// Spins `node` until `future` is ready, `timeout` passes or shutdown.
template <class FutureT, class Rep = int64_t, class Period = std::milli>
FutureReturnCode spin_until_future_complete(const std::shared_ptr<Node> &node, const FutureT &future,
                                            std::chrono::duration<Rep, Period> timeout =
                                                std::chrono::duration<Rep, Period>(-1)) {
  executors::SingleThreadedExecutor executor;
  executor.add_node(node);
  return executor.spin_until_future_complete(future, timeout);
}

}  // namespace hibari

// hibari C++: exceptions, and the boundary where C callbacks enter C++.
//
// Every failing call throws an exception derived from
// hibari::exceptions::HibariError (a std::runtime_error) carrying the C
// code and hibari_last_error()'s message.
//
// Callbacks (subscriptions, timers, services, …) are called from Rust
// through C, where no exception may pass. An exception a callback throws is
// caught there, every executor spinning at the time is canceled, and the
// exception is rethrown from the spin call that returns (the first one
// caught wins; later ones are dropped) — as rclpy raises a callback's
// exception from spin. rclcpp would terminate instead.
#pragma once

#include <hibari.h>

#include <atomic>
#include <cstdint>
#include <exception>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>

namespace hibari {
namespace exceptions {

/// A hibari call failed: code() is the C code, what() the message.
class HibariError : public std::runtime_error {
public:
  HibariError(hibari_ret_t code, const std::string &message)
      : std::runtime_error(message), code_(code) {}
  hibari_ret_t code() const noexcept { return code_; }

private:
  hibari_ret_t code_;
};

#define HIBARI_DETAIL_ERROR(Name)                                                                  \
  class Name : public HibariError {                                                                \
  public:                                                                                          \
    using HibariError::HibariError;                                                                \
  };
/// A NULL pointer, a string that is not UTF-8, an invalid name or value.
HIBARI_DETAIL_ERROR(InvalidArgument)
/// A destroyed or never created entity.
HIBARI_DETAIL_ERROR(InvalidHandle)
/// A type name hibari does not know.
HIBARI_DETAIL_ERROR(UnknownType)
/// Nothing came within the timeout.
HIBARI_DETAIL_ERROR(Timeout)
/// No server of the service, no such parameter.
HIBARI_DETAIL_ERROR(NotFound)
/// The context was shut down.
HIBARI_DETAIL_ERROR(Shutdown)
/// The request was forgotten before its response came.
HIBARI_DETAIL_ERROR(Canceled)
/// hibari panicked (a bug).
HIBARI_DETAIL_ERROR(Panic)
#undef HIBARI_DETAIL_ERROR

/// rclcpp's name: get_parameter of an undeclared parameter.
class ParameterNotDeclaredException : public NotFound {
public:
  using NotFound::NotFound;
};

/// rclcpp's name: a parameter read as another type than its own.
class InvalidParameterTypeException : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

}  // namespace exceptions

namespace detail {

/// The exception for `code`, with `what` and the thread's last error.
inline std::exception_ptr error(hibari_ret_t code, const std::string &what) {
  const std::string message = what + ": " + hibari_last_error();
  using namespace exceptions;
  switch (code) {
  case HIBARI_ERROR_INVALID_ARGUMENT: return std::make_exception_ptr(InvalidArgument(code, message));
  case HIBARI_ERROR_INVALID_HANDLE: return std::make_exception_ptr(InvalidHandle(code, message));
  case HIBARI_ERROR_UNKNOWN_TYPE: return std::make_exception_ptr(UnknownType(code, message));
  case HIBARI_ERROR_TIMEOUT: return std::make_exception_ptr(Timeout(code, message));
  case HIBARI_ERROR_NOT_FOUND: return std::make_exception_ptr(NotFound(code, message));
  case HIBARI_ERROR_SHUTDOWN: return std::make_exception_ptr(Shutdown(code, message));
  case HIBARI_ERROR_CANCELED: return std::make_exception_ptr(Canceled(code, message));
  case HIBARI_ERROR_PANIC: return std::make_exception_ptr(Panic(code, message));
  default: return std::make_exception_ptr(HibariError(code, message));
  }
}

/// Throws unless `code` is HIBARI_OK.
inline void check(hibari_ret_t code, const char *what) {
  if (code != HIBARI_OK) std::rethrow_exception(error(code, what));
}

/// The executors spinning now, and the first exception a callback threw.
struct Spinning {
  std::mutex mutex;
  std::set<uint64_t> executors;
  std::exception_ptr pending;
  std::atomic<bool> has_pending{false};

  static Spinning &get() {
    static Spinning *s = new Spinning();  // never destroyed: callbacks may run at exit
    return *s;
  }
};

/// Keeps a caught exception for the spin calls and cancels every spin.
inline void report(std::exception_ptr e) noexcept {
  Spinning &s = Spinning::get();
  std::set<uint64_t> spinning;
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    if (!s.pending) s.pending = std::move(e);
    s.has_pending = true;
    spinning = s.executors;
  }
  for (uint64_t id : spinning) hibari_executor_cancel(hibari_executor_t{id});
}

/// Rethrows the exception a callback threw, once.
inline void rethrow_pending() {
  Spinning &s = Spinning::get();
  if (!s.has_pending) return;
  std::exception_ptr e;
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    e = std::move(s.pending);
    s.pending = nullptr;
    s.has_pending = false;
  }
  if (e) std::rethrow_exception(e);
}

/// Runs `f` at the C boundary: no exception leaves.
template <class F> void guarded(F &&f) noexcept {
  try {
    f();
  } catch (...) {
    report(std::current_exception());
  }
}

/// Marks executor `id` as spinning for the scope (see report()).
class SpinScope {
public:
  explicit SpinScope(hibari_executor_t e) : id_(e.id) {
    std::lock_guard<std::mutex> lock(Spinning::get().mutex);
    Spinning::get().executors.insert(id_);
  }
  ~SpinScope() {
    std::lock_guard<std::mutex> lock(Spinning::get().mutex);
    Spinning::get().executors.erase(id_);
  }
  SpinScope(const SpinScope &) = delete;
  SpinScope &operator=(const SpinScope &) = delete;

private:
  uint64_t id_;
};

/// A callback object handed to C as user_data. The C entity's destroy
/// waits for a call running on another thread; called from inside the
/// callback itself, it returns at once — then the box deletes itself when
/// the callback returns.
template <class Fn> class CallbackBox {
public:
  explicit CallbackBox(Fn fn) : fn_(std::move(fn)) {}

  template <class... A> static void call(void *user, A &&...args) noexcept {
    auto *box = static_cast<CallbackBox *>(user);
    box->running_ = true;
    guarded([&] { box->fn_(std::forward<A>(args)...); });
    box->running_ = false;
    if (box->orphaned_) delete box;
  }

  /// After the C entity was destroyed.
  static void release(CallbackBox *box) noexcept {
    if (box == nullptr) return;
    if (box->running_) {
      box->orphaned_ = true;  // destroyed from inside its own callback
    } else {
      delete box;
    }
  }

  Fn &fn() { return fn_; }

private:
  Fn fn_;
  std::atomic<bool> running_{false};
  std::atomic<bool> orphaned_{false};
};

}  // namespace detail
}  // namespace hibari

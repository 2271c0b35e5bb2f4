// hibari C++: the process's default context (rclcpp's init/shutdown/ok).
#pragma once

#include <hibari.h>

#include <cstdio>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "hibari/exceptions.hpp"

namespace hibari {

/// How hibari::init creates the default context.
struct InitOptions {
  /// The domain; negative: ROS_DOMAIN_ID (else 0).
  int64_t domain_id = -1;
  /// A domain no other context reaches (in-process only): for tests.
  bool isolated = false;
  /// Install hibari's SIGINT/SIGTERM/SIGHUP handler, as rclcpp::init does:
  /// the first signal shuts every context down (spin returns, ok() is
  /// false), a second exits at once (status 130).
  bool install_signal_handlers = true;
};

namespace detail {

/// A C context, destroyed with the last node that uses it.
class ContextHandle {
public:
  explicit ContextHandle(hibari_context_t c) : handle(c) {}
  ~ContextHandle() { hibari_context_destroy(handle); }
  ContextHandle(const ContextHandle &) = delete;
  ContextHandle &operator=(const ContextHandle &) = delete;
  const hibari_context_t handle;
};

/// A C node: its entities hold it, so it is destroyed after them.
class NodeHandle {
public:
  NodeHandle(hibari_node_t n, std::shared_ptr<ContextHandle> c) : handle(n), context(std::move(c)) {}
  ~NodeHandle() { hibari_node_destroy(handle); }
  NodeHandle(const NodeHandle &) = delete;
  NodeHandle &operator=(const NodeHandle &) = delete;
  const hibari_node_t handle;
  const std::shared_ptr<ContextHandle> context;
};

/// A C string getter (`hibari_*_get_name`-shaped) as a std::string.
template <class H, class F> std::string get_string(H handle, F getter, const char *what) {
  size_t len = 0;
  hibari_ret_t r = getter(handle, nullptr, 0, &len);
  if (r != HIBARI_ERROR_BUFFER_TOO_SMALL) check(r, what);
  std::string out(len + 1, '\0');
  check(getter(handle, &out[0], out.size(), &len), what);
  out.resize(len);
  return out;
}

struct DefaultContext {
  std::mutex mutex;
  std::shared_ptr<ContextHandle> context;
  // Never destroyed: nodes living until exit may still reach it.
  static DefaultContext &get() {
    static DefaultContext *d = new DefaultContext();
    return *d;
  }
};

inline std::shared_ptr<ContextHandle> make_context(int argc, const char *const *argv,
                                                   const InitOptions &options) {
  hibari_context_options_t o = hibari_context_options_default();
  o.argc = argc;
  o.argv = argv;
  o.domain_id = options.domain_id;
  o.isolated = options.isolated;
  hibari_context_t c{};
  check(hibari_context_init_with_options(&o, &c), "hibari::init");
  return std::make_shared<ContextHandle>(c);
}

/// The default context; created without arguments if init was not called.
inline std::shared_ptr<ContextHandle> default_context() {
  DefaultContext &d = DefaultContext::get();
  std::lock_guard<std::mutex> lock(d.mutex);
  if (!d.context) d.context = make_context(0, nullptr, InitOptions{});
  return d.context;
}

}  // namespace detail

/// Creates the default context from the program's arguments (their
/// `--ros-args` rules: remapping, `-p name:=value`, `--log-level`). Throws
/// if it exists and is not shut down. Without init, the first node creates
/// one without arguments.
inline void init(int argc, const char *const *argv, const InitOptions &options = InitOptions()) {
  detail::DefaultContext &d = detail::DefaultContext::get();
  std::lock_guard<std::mutex> lock(d.mutex);
  if (d.context) {
    bool ok = false;
    if (hibari_context_ok(d.context->handle, &ok) == HIBARI_OK && ok) {
      throw exceptions::HibariError(HIBARI_ERROR, "hibari::init: the context is already initialized");
    }
  }
  d.context = detail::make_context(argc, argv, options);
  if (options.install_signal_handlers && hibari_install_signal_handlers() != HIBARI_OK) {
    std::fprintf(stderr, "hibari::init: Ctrl-C will not shut down cleanly: %s\n", hibari_last_error());
  }
}

/// Shuts the default context down: spins return, ok() is false. Returns
/// whether there was one to shut down.
inline bool shutdown() {
  detail::DefaultContext &d = detail::DefaultContext::get();
  std::lock_guard<std::mutex> lock(d.mutex);
  if (!d.context) return false;
  return hibari_context_shutdown(d.context->handle) == HIBARI_OK;
}

/// Whether the default context exists and is not shut down.
inline bool ok() {
  detail::DefaultContext &d = detail::DefaultContext::get();
  std::lock_guard<std::mutex> lock(d.mutex);
  bool alive = false;
  return d.context && hibari_context_ok(d.context->handle, &alive) == HIBARI_OK && alive;
}

/// Adds the interface packages under `path` to the types hibari knows.
inline void add_interface_path(const std::string &path) {
  detail::check(hibari_add_interface_path(path.c_str(), nullptr), "add_interface_path");
}

}  // namespace hibari

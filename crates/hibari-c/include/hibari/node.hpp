// hibari C++: the node, shaped like rclcpp::Node (derive from it, or
// std::make_shared<hibari::Node>("name")). Its entities keep it alive:
// the C node is destroyed after the last of them.
#pragma once

#include <hibari.h>

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "hibari/callback_group.hpp"
#include "hibari/context.hpp"
#include "hibari/exceptions.hpp"
#include "hibari/logging.hpp"
#include "hibari/parameter.hpp"
#include "hibari/publisher.hpp"
#include "hibari/qos.hpp"
#include "hibari/service.hpp"
#include "hibari/subscription.hpp"
#include "hibari/time.hpp"
#include "hibari/timer.hpp"

namespace hibari {

/// rclcpp's NodeOptions (nothing to choose yet: the context's arguments
/// give remapping and parameter overrides).
struct NodeOptions {};

class Node : public std::enable_shared_from_this<Node> {
public:
  using SharedPtr = std::shared_ptr<Node>;
  using WeakPtr = std::weak_ptr<Node>;

  /// A node named `name` in the root namespace of the default context.
  explicit Node(const std::string &name, const NodeOptions &options = NodeOptions())
      : Node(name, "", options) {}

  /// A node named `name` in `namespace_` (relative ones are made absolute).
  Node(const std::string &name, const std::string &namespace_, const NodeOptions & = NodeOptions()) {
    auto context = detail::default_context();
    hibari_node_t n{};
    detail::check(hibari_node_create(context->handle, name.c_str(), namespace_.c_str(), &n), "hibari::Node");
    handle_ = std::make_shared<detail::NodeHandle>(n, std::move(context));
    const std::string ns = get_namespace();
    logger_name_ = ns == "/" ? get_name() : ns.substr(1) + "/" + get_name();
    for (char &ch : logger_name_) ch = ch == '/' ? '.' : ch;
  }

  virtual ~Node() = default;
  Node(const Node &) = delete;
  Node &operator=(const Node &) = delete;

  std::string get_name() const { return detail::get_string(c(), hibari_node_get_name, "get_name"); }
  std::string get_namespace() const { return detail::get_string(c(), hibari_node_get_namespace, "get_namespace"); }
  std::string get_fully_qualified_name() const {
    return detail::get_string(c(), hibari_node_get_fully_qualified_name, "get_fully_qualified_name");
  }

  /// The node's logger (console and /rosout), named `namespace.name`.
  Logger get_logger() const { return Logger(c(), logger_name_, handle_); }

  /// The node clock's time: ROS time, simulated while the node's
  /// use_sim_time parameter is true (then it follows /clock), else system time.
  Time now() const {
    int64_t ns = 0;
    detail::check(hibari_node_now(handle_->handle, &ns), "Node::now");
    return Time(ns);
  }
  Clock::SharedPtr get_clock() const { return clock_; }

  /// A callback group of this node, for its entities' callbacks (see
  /// callback_group.hpp). Entities created without one run in the node's
  /// default group, mutually exclusive.
  CallbackGroup::SharedPtr create_callback_group(CallbackGroupType type) {
    return std::make_shared<CallbackGroup>(handle_, type);
  }

  // Topics.

  template <class T>
  typename Publisher<T>::SharedPtr create_publisher(const std::string &topic, const QoS &qos) {
    return std::make_shared<Publisher<T>>(handle_, topic, qos);
  }

  template <class T, class F>
  typename Subscription<T>::SharedPtr create_subscription(const std::string &topic, const QoS &qos, F &&callback,
                                                          const SubscriptionOptions &options = SubscriptionOptions()) {
    return std::make_shared<Subscription<T>>(handle_, topic, qos, std::forward<F>(callback), options);
  }

  /// A subscription whose callback gets each sample's zero-copy view,
  /// read in place: void(const T::View &[, const MessageInfo &]). The view
  /// (and every span and string_view in it) is valid only during the call;
  /// see ViewSubscription.
  template <class T, class F>
  typename ViewSubscription<T>::SharedPtr create_view_subscription(
      const std::string &topic, const QoS &qos, F &&callback,
      const SubscriptionOptions &options = SubscriptionOptions()) {
    return std::make_shared<ViewSubscription<T>>(handle_, topic, qos, std::forward<F>(callback), options);
  }

  /// A publisher of CDR bytes of the type named `type_name`.
  GenericPublisher::SharedPtr create_generic_publisher(const std::string &topic, const std::string &type_name,
                                                       const QoS &qos) {
    return std::make_shared<GenericPublisher>(handle_, topic, type_name, qos);
  }

  /// A subscription whose callback reads the CDR bytes in place.
  template <class F>
  SerializedSubscription::SharedPtr create_serialized_subscription(const std::string &topic,
                                                                   const std::string &type_name, const QoS &qos,
                                                                   F &&callback,
                                                                   const SubscriptionOptions &options =
                                                                       SubscriptionOptions()) {
    return std::make_shared<SerializedSubscription>(handle_, topic, type_name, qos, std::forward<F>(callback),
                                                    options);
  }

  // Services.

  template <class S, class F>
  typename Service<S>::SharedPtr create_service(const std::string &name, F &&callback,
                                                const QoS &qos = ServicesQoS(),
                                                CallbackGroup::SharedPtr group = nullptr) {
    return std::make_shared<Service<S>>(handle_, name, std::forward<F>(callback), qos, group);
  }

  template <class S>
  typename Client<S>::SharedPtr create_client(const std::string &name, const QoS &qos = ServicesQoS(),
                                              CallbackGroup::SharedPtr group = nullptr) {
    return std::make_shared<Client<S>>(handle_, name, qos, group);
  }

  // Timers and guard conditions.

  template <class Rep, class Period, class F>
  WallTimer::SharedPtr create_wall_timer(std::chrono::duration<Rep, Period> period, F &&callback,
                                         CallbackGroup::SharedPtr group = nullptr) {
    const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(period);
    return std::make_shared<WallTimer>(handle_, ns, std::forward<F>(callback), group);
  }

  /// A timer on the node's clock (rclcpp's create_timer): ROS time, which
  /// under use_sim_time is /clock's simulated time — it fires as simulated
  /// time passes each period, and not while it stands still.
  template <class Rep, class Period, class F>
  GenericTimer::SharedPtr create_timer(std::chrono::duration<Rep, Period> period, F &&callback,
                                       CallbackGroup::SharedPtr group = nullptr) {
    const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(period);
    return std::make_shared<GenericTimer>(handle_, ns, std::forward<F>(callback), group);
  }

  GuardCondition::SharedPtr create_guard_condition(std::function<void()> callback = [] {},
                                                   CallbackGroup::SharedPtr group = nullptr) {
    return std::make_shared<GuardCondition>(handle_, std::move(callback), group);
  }

  // Parameters.

  /// Declares `name` with `default_value` and returns its value: the
  /// override's (`--ros-args -p name:=value`) if one names it.
  ParameterValue declare_parameter(const std::string &name, const ParameterValue &default_value) {
    std::vector<const char *> pointers;
    std::vector<uint8_t> flags;
    const hibari_parameter_value_t in = default_value.to_c(pointers, flags);
    hibari_parameter_value_t out{};
    detail::check(hibari_node_declare_parameter(c(), name.c_str(), &in, &out), "declare_parameter");
    return ParameterValue::from_c(out);
  }

  template <class T> T declare_parameter(const std::string &name, const T &default_value) {
    return declare_parameter(name, ParameterValue(default_value)).template get<T>();
  }
  std::string declare_parameter(const std::string &name, const char *default_value) {
    return declare_parameter<std::string>(name, std::string(default_value));
  }

  bool has_parameter(const std::string &name) const {
    bool declared = false;
    detail::check(hibari_node_has_parameter(c(), name.c_str(), &declared), "has_parameter");
    return declared;
  }

  /// Throws exceptions::ParameterNotDeclaredException when undeclared.
  Parameter get_parameter(const std::string &name) const {
    hibari_parameter_value_t out{};
    const hibari_ret_t r = hibari_node_get_parameter(c(), name.c_str(), &out);
    if (r == HIBARI_ERROR_NOT_FOUND) {
      throw exceptions::ParameterNotDeclaredException(r, std::string("get_parameter: ") + hibari_last_error());
    }
    detail::check(r, "get_parameter");
    return Parameter(name, ParameterValue::from_c(out));
  }

  /// Whether `name` is declared; if so, its value goes to `value`.
  template <class T> bool get_parameter(const std::string &name, T &value) const {
    if (!has_parameter(name)) return false;
    value = get_parameter(name).get_value<T>();
    return true;
  }

  SetParametersResult set_parameter(const Parameter &parameter) {
    std::vector<const char *> pointers;
    std::vector<uint8_t> flags;
    const hibari_parameter_value_t in = parameter.get_parameter_value().to_c(pointers, flags);
    SetParametersResult result;
    const hibari_ret_t r = hibari_node_set_parameter(c(), parameter.get_name().c_str(), &in);
    result.successful = r == HIBARI_OK;
    if (!result.successful) result.reason = hibari_last_error();
    return result;
  }

  std::vector<SetParametersResult> set_parameters(const std::vector<Parameter> &parameters) {
    std::vector<SetParametersResult> results;
    for (const auto &p : parameters) results.push_back(set_parameter(p));
    return results;
  }

  // The graph.

  std::vector<std::string> get_node_names() const {
    hibari_string_array_t names{};
    detail::check(hibari_node_get_node_names(c(), &names), "get_node_names");
    std::vector<std::string> out(names.data, names.data + names.len);
    hibari_string_array_fini(&names);
    return out;
  }

  std::map<std::string, std::vector<std::string>> get_topic_names_and_types() const {
    return pairs(hibari_node_get_topic_names_and_types, "get_topic_names_and_types");
  }

  std::map<std::string, std::vector<std::string>> get_service_names_and_types() const {
    return pairs(hibari_node_get_service_names_and_types, "get_service_names_and_types");
  }

  size_t count_publishers(const std::string &topic) const {
    size_t n = 0;
    detail::check(hibari_node_count_publishers(c(), topic.c_str(), &n), "count_publishers");
    return n;
  }

  size_t count_subscribers(const std::string &topic) const {
    size_t n = 0;
    detail::check(hibari_node_count_subscribers(c(), topic.c_str(), &n), "count_subscribers");
    return n;
  }

  /// The C handle, for hibari.h's functions.
  hibari_node_t get_c_handle() const { return c(); }

private:
  hibari_node_t c() const { return handle_->handle; }

  template <class F> std::map<std::string, std::vector<std::string>> pairs(F query, const char *what) const {
    hibari_string_array_t names{}, types{};
    detail::check(query(c(), &names, &types), what);
    std::map<std::string, std::vector<std::string>> out;
    for (size_t i = 0; i < names.len; i++) out[names.data[i]].emplace_back(types.data[i]);
    hibari_string_array_fini(&names);
    hibari_string_array_fini(&types);
    return out;
  }

  std::shared_ptr<detail::NodeHandle> handle_;
  std::shared_ptr<Clock> clock_ = std::make_shared<Clock>();
  std::string logger_name_;
};

}  // namespace hibari

// hibari C++: callback groups, shaped like rclcpp's.
//
//   auto parallel = node->create_callback_group(hibari::CallbackGroupType::Reentrant);
//   hibari::SubscriptionOptions options;
//   options.callback_group = parallel;
//   auto sub = node->create_subscription<T>("topic", 10, callback, options);
//   auto timer = node->create_wall_timer(100ms, callback, parallel);
//   auto service = node->create_service<S>("name", callback, hibari::ServicesQoS(), parallel);
//   auto client = node->create_client<S>("name", hibari::ServicesQoS(), parallel);
//
// An entity created without a group runs in its node's default group,
// mutually exclusive: a MultiThreadedExecutor runs one node's callbacks one
// at a time unless they are in other groups. In a Reentrant group, callbacks
// of different entities may run at the same time (one entity's callback
// never overlaps itself); in a MutuallyExclusive one, one at a time. A
// group serves the entities of the node that created it (another node's is
// refused: exceptions::InvalidArgument).
//
// Unlike rclcpp, hibari's clients need no executor (a response completes
// its future on the thread that delivers it): what a service callback
// waiting on a client's future needs is that the service it calls can run
// meanwhile — when it is a service of the same node, that the two callbacks
// are not in one mutually exclusive group (such as the default one).
#pragma once

#include <hibari.h>

#include <memory>
#include <utility>

#include "hibari/context.hpp"
#include "hibari/exceptions.hpp"

namespace hibari {

/// How the callbacks of a group may overlap (rclcpp's CallbackGroupType).
enum class CallbackGroupType {
  /// One callback of the group at a time.
  MutuallyExclusive,
  /// Callbacks of different entities at once, on a multi-threaded executor.
  Reentrant,
};

/// A callback group of a node (Node::create_callback_group). Entities
/// created in it keep it: dropping the last SharedPtr only ends its use
/// for new entities.
class CallbackGroup {
public:
  using SharedPtr = std::shared_ptr<CallbackGroup>;
  using WeakPtr = std::weak_ptr<CallbackGroup>;

  CallbackGroup(std::shared_ptr<detail::NodeHandle> node, CallbackGroupType type)
      : node_(std::move(node)), type_(type) {
    const hibari_callback_group_type_t t = type == CallbackGroupType::Reentrant
                                               ? HIBARI_CALLBACK_GROUP_REENTRANT
                                               : HIBARI_CALLBACK_GROUP_MUTUALLY_EXCLUSIVE;
    detail::check(hibari_callback_group_create(node_->handle, t, &handle_), "create_callback_group");
  }
  ~CallbackGroup() { hibari_callback_group_destroy(handle_); }
  CallbackGroup(const CallbackGroup &) = delete;
  CallbackGroup &operator=(const CallbackGroup &) = delete;

  CallbackGroupType type() const { return type_; }
  hibari_callback_group_t get_c_handle() const { return handle_; }

private:
  std::shared_ptr<detail::NodeHandle> node_;
  CallbackGroupType type_;
  hibari_callback_group_t handle_{};
};

}  // namespace hibari

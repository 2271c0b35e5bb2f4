// A wait-set program written for rclcpp, in the shape of the rclcpp
// wait-set examples: two subscriptions whose callbacks never run (nobody
// spins the node), two guard conditions, one rclcpp::WaitSet. The main loop
// waits, takes the messages itself with take(msg, info), and watches the
// guard conditions. It is not compiled as is: the build renames `rclcpp` to
// `hibari` and `RCLCPP` to `HIBARI` and compiles the result against hibari
// (the port test). Nothing else may change.
//
// Parameters: count (messages expected on each topic), local_publishers
// (true: a thread of this program publishes them; false: other processes
// do). It exits 0 once it has `count` messages of topic_a and of topic_b and
// has seen guard condition 1 triggered; 1 when a wait times out.
#include <chrono>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>

#include "rclcpp/rclcpp.hpp"
#include "std_msgs/msg/string.hpp"

using namespace std::chrono_literals;

int main(int argc, char * argv[])
{
  rclcpp::init(argc, argv);
  auto node = std::make_shared<rclcpp::Node>("wait_set_listener");
  const int64_t count = node->declare_parameter<int64_t>("count", 5);
  const bool local_publishers = node->declare_parameter<bool>("local_publishers", true);

  auto never_called = [](const std_msgs::msg::String &) {
      throw std::runtime_error("nobody spins this node: the callback must not run");
    };
  auto sub1 = node->create_subscription<std_msgs::msg::String>("topic_a", 10, never_called);
  auto sub2 = node->create_subscription<std_msgs::msg::String>("topic_b", 10, never_called);
  auto guard_condition1 = std::make_shared<rclcpp::GuardCondition>();
  auto guard_condition2 = std::make_shared<rclcpp::GuardCondition>();

  rclcpp::WaitSet wait_set({{sub1}, {sub2}}, {guard_condition1});
  wait_set.add_guard_condition(guard_condition2);

  auto pub1 = node->create_publisher<std_msgs::msg::String>("topic_a", 10);
  auto pub2 = node->create_publisher<std_msgs::msg::String>("topic_b", 10);
  std::thread worker([&]() {
      for (int64_t i = 0; local_publishers && i < count; ++i) {
        std_msgs::msg::String msg;
        msg.data = "a " + std::to_string(i);
        pub1->publish(msg);
        msg.data = "b " + std::to_string(i);
        pub2->publish(msg);
        std::this_thread::sleep_for(20ms);
      }
      guard_condition1->trigger();
    });

  int64_t got_a = 0, got_b = 0;
  bool guard_seen = false;
  int status = 0;
  while (got_a < count || got_b < count || !guard_seen) {
    auto wait_result = wait_set.wait(10s);
    if (wait_result.kind() != rclcpp::WaitResultKind::Ready) {
      RCLCPP_ERROR(
        node->get_logger(), "wait timed out with %ld of topic_a, %ld of topic_b, guard %s",
        static_cast<long>(got_a), static_cast<long>(got_b), guard_seen ? "seen" : "not seen");
      status = 1;
      break;
    }
    const auto & ready = wait_result.get_wait_set().get_rcl_wait_set();
    if (ready.guard_conditions[0]) {
      RCLCPP_INFO(node->get_logger(), "guard condition 1 triggered");
      guard_seen = true;
    }
    if (ready.guard_conditions[1]) {
      RCLCPP_ERROR(node->get_logger(), "guard condition 2 was never triggered");
      status = 1;
      break;
    }
    std_msgs::msg::String msg;
    rclcpp::MessageInfo info;
    if (ready.subscriptions[0]) {
      while (sub1->take(msg, info)) {
        RCLCPP_INFO(node->get_logger(), "topic_a: '%s'", msg.data.c_str());
        ++got_a;
      }
    }
    if (ready.subscriptions[1]) {
      while (sub2->take(msg, info)) {
        RCLCPP_INFO(node->get_logger(), "topic_b: '%s'", msg.data.c_str());
        ++got_b;
      }
    }
  }
  worker.join();
  if (status == 0) {
    RCLCPP_INFO(
      node->get_logger(), "took %ld of topic_a and %ld of topic_b",
      static_cast<long>(got_a), static_cast<long>(got_b));
  }
  rclcpp::shutdown();
  return status;
}

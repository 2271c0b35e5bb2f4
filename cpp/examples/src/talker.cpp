// talker: publishes std_msgs/String "Hello World: N" on `chatter`, as the
// ROS 2 demo does. Parameters (--ros-args -p name:=value):
//   count                 stop after this many messages (0: never)
//   wait_for_subscribers  start publishing once this many subscriptions matched
//   period_ms             the timer's period
//   hand_over             publish each message as a std::unique_ptr (handed
//                         over, encoded only for readers that need bytes)
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include <hibari/hibari.hpp>
#include <std_msgs/msg/string.hpp>

using namespace std::chrono_literals;

class Talker : public hibari::Node {
public:
  Talker() : Node("talker") {
    count_ = declare_parameter<int64_t>("count", 0);
    wait_for_ = declare_parameter<int64_t>("wait_for_subscribers", 0);
    hand_over_ = declare_parameter<bool>("hand_over", false);
    const auto period = std::chrono::milliseconds(declare_parameter<int64_t>("period_ms", 100));
    publisher_ = create_publisher<std_msgs::msg::String>("chatter", 10);
    timer_ = create_wall_timer(period, [this] { on_timer(); });
  }

private:
  void on_timer() {
    if (count_ > 0 && sent_ >= count_) {
      // Lingers a few periods after the last message so a reliable
      // subscription over the network gets any repair before we go.
      if (++idle_ >= 5) hibari::shutdown();
      return;
    }
    if (sent_ == 0 && static_cast<int64_t>(publisher_->get_subscription_count()) < wait_for_) return;
    auto message = std::make_unique<std_msgs::msg::String>();
    message->data = "Hello World: " + std::to_string(++sent_);
    HIBARI_INFO(get_logger(), "Publishing: '%s'", message->data.c_str());
    if (hand_over_) {
      publisher_->publish(std::move(message));
    } else {
      publisher_->publish(*message);
    }
  }

  int64_t count_ = 0, wait_for_ = 0, sent_ = 0, idle_ = 0;
  bool hand_over_ = false;
  hibari::Publisher<std_msgs::msg::String>::SharedPtr publisher_;
  hibari::TimerBase::SharedPtr timer_;
};

int main(int argc, char **argv) {
  hibari::init(argc, argv);
  hibari::spin(std::make_shared<Talker>());
  hibari::shutdown();
  return 0;
}

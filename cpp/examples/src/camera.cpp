// camera: a 1080p rgb8 camera at 30 Hz that writes each frame straight into
// lent memory — the shared memory its subscribers in other processes read —
// with Publisher::loan_with_array: the Image's header fields are laid out
// first, its pixels are a hole filled in place, nothing is encoded or copied.
// Parameters: count (frames, default 30), wait_for_subscribers (1),
// width, height. Frame k's pixel byte i is (i * 7 + k) mod 256
// (camera_viewer checks it).
#include <chrono>
#include <cstdint>
#include <cstring>
#include <memory>
#include <thread>

#include <hibari/hibari.hpp>
#include <sensor_msgs/msg/image.hpp>

using Image = sensor_msgs::msg::Image;
using namespace std::chrono_literals;

int main(int argc, char **argv) {
  hibari::init(argc, argv);
  auto node = std::make_shared<hibari::Node>("camera");
  const int64_t count = node->declare_parameter<int64_t>("count", 30);
  const int64_t wait_for = node->declare_parameter<int64_t>("wait_for_subscribers", 1);
  const auto width = static_cast<uint32_t>(node->declare_parameter<int64_t>("width", 1920));
  const auto height = static_cast<uint32_t>(node->declare_parameter<int64_t>("height", 1080));
  auto publisher = node->create_publisher<Image>("image", hibari::QoS(5).reliable());
  if (!publisher->wait_for_subscriptions(static_cast<size_t>(wait_for), 30s)) {
    HIBARI_ERROR(node->get_logger(), "no subscription matched within 30 s");
    return 1;
  }
  Image frame;
  frame.width = width;
  frame.height = height;
  frame.encoding = "rgb8";
  frame.step = width * 3;
  const size_t size = static_cast<size_t>(frame.step) * height;
  auto due = std::chrono::steady_clock::now();
  for (int64_t k = 0; k < count && hibari::ok(); k++) {
    const auto now = node->now();
    frame.header.stamp.sec = static_cast<int32_t>(now.nanoseconds() / 1000000000);
    frame.header.stamp.nanosec = static_cast<uint32_t>(now.nanoseconds() % 1000000000);
    frame.header.frame_id = "camera_" + std::to_string(k);
    auto loan = publisher->loan_with_array(frame, &Image::data, size);
    uint8_t *pixels = loan.bytes();
    for (size_t i = 0; i < size; i++) pixels[i] = static_cast<uint8_t>(i * 7 + static_cast<size_t>(k));
    loan.publish();
    due += std::chrono::microseconds(33333);
    std::this_thread::sleep_until(due);
  }
  HIBARI_INFO(node->get_logger(), "sent %lld frames of %ux%u", static_cast<long long>(count), width, height);
  std::this_thread::sleep_for(300ms);
  hibari::shutdown();
  return 0;
}

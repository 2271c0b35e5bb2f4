// camera_viewer: reads the camera's frames in place — the callback's bytes
// are the publisher's shared memory, borrowed for the call — and checks every
// pixel of each (the pixels are the Image's last field, so the CDR's last
// width*height*3 bytes). Parameters: count (frames to get, default 30),
// width, height. Exits 1 on a wrong pixel or a missing frame.
#include <cstdint>
#include <cstdio>
#include <memory>

#include <hibari/hibari.hpp>

int main(int argc, char **argv) {
  hibari::init(argc, argv);
  auto node = std::make_shared<hibari::Node>("camera_viewer");
  const int64_t count = node->declare_parameter<int64_t>("count", 30);
  const auto width = static_cast<size_t>(node->declare_parameter<int64_t>("width", 1920));
  const auto height = static_cast<size_t>(node->declare_parameter<int64_t>("height", 1080));
  const size_t size = width * height * 3;
  int64_t frames = 0;
  int status = 0;
  auto subscription = node->create_serialized_subscription(
      "image", "sensor_msgs/msg/Image", hibari::QoS(5).reliable(),
      [&](hibari::ByteSpan cdr, const hibari::MessageInfo &info) {
        const auto k = static_cast<size_t>(frames);
        bool good = cdr.size() >= size + 4 && info.lost_before == 0;
        const uint8_t *pixels = cdr.data() + cdr.size() - size;
        for (size_t i = 0; good && i < size; i++) {
          good = pixels[i] == static_cast<uint8_t>(i * 7 + k);
        }
        if (!good) {
          std::fprintf(stderr, "frame %zu (#%llu): wrong size, pixels or a lost frame\n", k,
                       static_cast<unsigned long long>(info.sequence));
          status = 1;
          hibari::shutdown();
          return;
        }
        if (++frames == count) {
          std::printf("got all %lld frames of %zux%zu, every pixel as sent\n", static_cast<long long>(frames), width,
                      height);
          std::fflush(stdout);
          hibari::shutdown();
        }
      });
  hibari::spin(node);
  return status;
}

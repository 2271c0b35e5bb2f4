// camera_viewer: reads the camera's frames in place through the Image's
// generated zero-copy view (create_view_subscription): `view.data` is a span
// over the publisher's shared memory, valid during the callback; the header
// fields are parsed, the pixels are never copied. It checks every pixel of
// each frame. Parameters: count (frames to get, default 30). Exits 1 on a
// wrong size or pixel, or a lost frame.
#include <cstdint>
#include <cstdio>
#include <memory>

#include <hibari/hibari.hpp>
#include <sensor_msgs/msg/image.hpp>

using Image = sensor_msgs::msg::Image;

int main(int argc, char **argv) {
  hibari::init(argc, argv);
  auto node = std::make_shared<hibari::Node>("camera_viewer");
  const int64_t count = node->declare_parameter<int64_t>("count", 30);
  int64_t frames = 0;
  int status = 0;
  auto subscription = node->create_view_subscription<Image>(
      "image", hibari::QoS(5).reliable(), [&](const Image::View &view, const hibari::MessageInfo &info) {
        const auto k = static_cast<size_t>(frames);
        const hibari::Span<const uint8_t> pixels = view.data;
        bool good = view.encoding == "rgb8" && pixels.size() == static_cast<size_t>(view.step) * view.height &&
                    view.step == view.width * 3 && info.lost_before == 0;
        for (size_t i = 0; good && i < pixels.size(); i++) {
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
          std::printf("got all %lld frames of %ux%u, every pixel as sent\n", static_cast<long long>(frames),
                      view.width, view.height);
          std::fflush(stdout);
          hibari::shutdown();
        }
      });
  hibari::spin(node);
  return status;
}

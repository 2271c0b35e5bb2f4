// clock_check: waits (up to 30 s) until the node's clock reads at least
// `expect_sec` seconds, printing it at most twice a second, then prints
// "now is <s> s" and exits 0 (1 on timeout). Run with
// `--ros-args -p use_sim_time:=true` and a /clock publisher to see
// simulated time drive Node::now(). Paced by hibari::WallRate.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <memory>

#include <hibari/hibari.hpp>

int main(int argc, char **argv) {
  hibari::init(argc, argv);
  auto node = std::make_shared<hibari::Node>("clock_check");
  const int64_t expect_sec = node->declare_parameter<int64_t>("expect_sec", 0);
  hibari::WallRate rate(std::chrono::milliseconds(20));
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (hibari::ok() && std::chrono::steady_clock::now() < give_up) {
    const hibari::Time now = node->now();
    HIBARI_INFO_THROTTLE(node->get_logger(), *node->get_clock(), 500, "the node's clock reads %.3f s", now.seconds());
    if (now.nanoseconds() >= expect_sec * 1000000000) {
      std::printf("now is %.9f s\n", now.seconds());
      std::fflush(stdout);
      return 0;
    }
    rate.sleep();
  }
  std::fprintf(stderr, "the node's clock never reached %lld s\n", static_cast<long long>(expect_sec));
  return 1;
}

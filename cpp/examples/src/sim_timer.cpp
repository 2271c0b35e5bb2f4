// sim_timer: a timer made with create_timer on a node under use_sim_time
// fires as simulated time passes each period. Run with
// `--ros-args -p use_sim_time:=true`: a second node of this program
// publishes /clock from 100 s, 0.1 s of simulated time every 5 ms of real
// time; the timer (1 s) must fire once in each simulated second 101, 102,
// 103 — three ticks in ~0.15 s of real time, which a steady timer could not
// give. Prints each tick, then "sim timer ok" and exits 0 (1 otherwise, or
// after 30 s of real time).
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <vector>

#include <hibari/hibari.hpp>
#include <rosgraph_msgs/msg/clock.hpp>

using namespace std::chrono_literals;

int main(int argc, char **argv) {
  hibari::init(argc, argv);
  auto node = std::make_shared<hibari::Node>("sim_timer");
  auto source = std::make_shared<hibari::Node>("clock_source");
  auto clock_pub = source->create_publisher<rosgraph_msgs::msg::Clock>("/clock", 10);
  int64_t sim_ns = 100'000'000'000;
  auto publish_clock = [&] {
    rosgraph_msgs::msg::Clock c;
    c.clock.sec = static_cast<int32_t>(sim_ns / 1'000'000'000);
    c.clock.nanosec = static_cast<uint32_t>(sim_ns % 1'000'000'000);
    clock_pub->publish(c);
  };
  hibari::executors::SingleThreadedExecutor executor;
  executor.add_node(node);
  executor.add_node(source);
  // Simulated time starts at 100 s before the timer exists.
  const auto give_up = std::chrono::steady_clock::now() + 30s;
  while (node->now().seconds() < 100.0 && std::chrono::steady_clock::now() < give_up) {
    publish_clock();
    executor.spin_once(10ms);
  }
  std::vector<double> ticks;
  auto timer = node->create_timer(1s, [&] {
    ticks.push_back(node->now().seconds());
    std::printf("tick at %.3f s\n", ticks.back());
    std::fflush(stdout);
  });
  auto pacer = source->create_wall_timer(5ms, [&] {
    sim_ns += 100'000'000;
    publish_clock();
  });
  while (ticks.size() < 3 && hibari::ok() && std::chrono::steady_clock::now() < give_up) executor.spin_once(10ms);
  bool ok = ticks.size() == 3;
  for (size_t k = 0; ok && k < ticks.size(); k++) {
    ok = std::floor(ticks[k]) == 101.0 + static_cast<double>(k);  // once in each simulated second
  }
  std::printf("%s\n", ok ? "sim timer ok" : "sim timer WRONG");
  return ok ? 0 : 1;
}

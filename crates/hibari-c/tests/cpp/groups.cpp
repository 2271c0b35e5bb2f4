// Callback groups in the C++ layer, in one process (an isolated context),
// on a MultiThreadedExecutor of 2 threads (tests/c_and_cpp_programs.rs
// runs it):
// - rclcpp's pattern: a service in a Reentrant group whose callback calls
//   another service of the same node through a client in another Reentrant
//   group, and waits on the future (10 s at most), gets the answer. With
//   every entity in the node's default group (mutually exclusive), the
//   called service cannot run while the caller waits: the wait (1 s here)
//   times out. (hibari's clients need no executor, unlike rclcpp's: what
//   the wait needs is the called service's callback, not the response's.)
// - Two timers whose callbacks take 20 ms run at the same time in one
//   Reentrant group, never in one MutuallyExclusive group; neither ever
//   overlaps itself.
// - The rclcpp shapes: SubscriptionOptions::callback_group, a guard
//   condition's group, and another node's group refused.
// Prints one line per check and "groups ok" at the end; exits 0 when all
// went well. Every wait is bounded.
#include <hibari/hibari.hpp>

#include <example_interfaces/srv/add_two_ints.hpp>
#include <std_msgs/msg/string.hpp>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <exception>
#include <functional>
#include <future>
#include <memory>
#include <string>
#include <thread>

#include "check.hpp"

using namespace std::chrono_literals;
using AddTwoInts = example_interfaces::srv::AddTwoInts;
using String = std_msgs::msg::String;
using hibari::CallbackGroupType;

namespace {

/// A MultiThreadedExecutor spinning `node` on a thread of its own (at most
/// 30 s) until destroyed.
class Spinning {
public:
  Spinning(const std::shared_ptr<hibari::Node> &node, size_t threads) : executor_(threads) {
    executor_.add_node(node);
    thread_ = std::thread([this] {
      try {
        executor_.spin_until_future_complete(stopped_, 30s);
      } catch (const std::exception &e) {
        say(std::string("FAILED: the spin threw: ") + e.what());
        failures++;
      }
    });
  }
  ~Spinning() {
    stop_.set_value();  // seen before the spin's first wait, or…
    executor_.cancel();  // …wakes it if it waits
    thread_.join();
  }
  Spinning(const Spinning &) = delete;
  Spinning &operator=(const Spinning &) = delete;

private:
  hibari::executors::MultiThreadedExecutor executor_;
  std::promise<void> stop_;
  std::shared_future<void> stopped_ = stop_.get_future().share();
  std::thread thread_;
};

/// Calls `outer`(1, 2), whose callback calls `inner`(10, 20) and waits up
/// to `patience` for it: the sum `outer` answers (-1: its wait timed out).
int64_t nested_call(bool with_groups, std::chrono::milliseconds patience) {
  auto node = std::make_shared<hibari::Node>(with_groups ? "grouped" : "ungrouped");
  hibari::CallbackGroup::SharedPtr service_group, client_group;
  if (with_groups) {
    service_group = node->create_callback_group(CallbackGroupType::Reentrant);
    client_group = node->create_callback_group(CallbackGroupType::Reentrant);
    EXPECT(service_group->type() == CallbackGroupType::Reentrant);
  }
  auto inner = node->create_service<AddTwoInts>(
      "inner", [](const AddTwoInts::Request::SharedPtr request, AddTwoInts::Response::SharedPtr response) {
        response->sum = request->a + request->b;
      });
  auto inner_client = node->create_client<AddTwoInts>("inner", hibari::ServicesQoS(), client_group);
  auto outer = node->create_service<AddTwoInts>(
      "outer",
      [&](const AddTwoInts::Request::SharedPtr request, AddTwoInts::Response::SharedPtr response) {
        auto nested = std::make_shared<AddTwoInts::Request>();
        nested->a = request->a * 10;
        nested->b = request->b * 10;
        auto future = inner_client->async_send_request(nested);
        response->sum = future.wait_for(patience) == std::future_status::ready ? future.get()->sum : -1;
      },
      hibari::ServicesQoS(), service_group);
  auto caller = node->create_client<AddTwoInts>("outer");
  EXPECT(caller->wait_for_service(5s) && inner_client->wait_for_service(5s));
  Spinning spinning(node, 2);
  auto request = std::make_shared<AddTwoInts::Request>();
  request->a = 1;
  request->b = 2;
  auto future = caller->async_send_request(request);
  if (future.wait_for(patience + 10s) != std::future_status::ready) return say("FAILED: outer never answered"), -2;
  return future.get()->sum;
}

/// How many callbacks run at once, at most.
struct Overlap {
  std::atomic<int> running{0};
  std::atomic<int> most{0};
  std::atomic<int> runs{0};
  void enter() {
    const int now = ++running;
    int seen = most.load();
    while (now > seen && !most.compare_exchange_weak(seen, now)) {
    }
  }
  void leave() {
    --running;
    ++runs;
  }
};

/// Two 2 ms timers whose callbacks take 20 ms, in one group of `type`,
/// spun until 2 ran at once (Reentrant) or 20 ran (MutuallyExclusive), at
/// most 10 s: the most that ran at once.
int timers_at_once(CallbackGroupType type) {
  auto node = std::make_shared<hibari::Node>("timers");
  auto group = node->create_callback_group(type);
  Overlap all, own[2];
  auto tick = [&](int i) {
    all.enter();
    own[i].enter();
    std::this_thread::sleep_for(20ms);
    own[i].leave();
    all.leave();
  };
  auto t0 = node->create_wall_timer(2ms, [&] { tick(0); }, group);
  auto t1 = node->create_wall_timer(2ms, [&] { tick(1); }, group);
  {
    Spinning spinning(node, 2);
    const auto deadline = std::chrono::steady_clock::now() + 10s;
    auto done = [&] { return type == CallbackGroupType::Reentrant ? all.most >= 2 : all.runs >= 20; };
    while (!done() && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(5ms);
  }
  t0.reset();  // waits for a callback still running
  t1.reset();
  EXPECT(own[0].most == 1 && own[1].most == 1);  // a timer never overlaps itself
  EXPECT(own[0].runs > 0 && own[1].runs > 0);
  return all.most;
}

/// SubscriptionOptions::callback_group and a guard condition's group, on a
/// single-threaded executor; another node's group is refused.
void shapes() {
  auto node = std::make_shared<hibari::Node>("shapes");
  auto group = node->create_callback_group(CallbackGroupType::MutuallyExclusive);
  EXPECT(group->type() == CallbackGroupType::MutuallyExclusive);
  hibari::SubscriptionOptions options;
  options.callback_group = group;
  int heard = 0, triggered = 0;
  auto sub = node->create_subscription<String>("grouped", 10, [&](const String &) { heard++; }, options);
  auto guard = node->create_guard_condition([&] { triggered++; }, group);
  auto pub = node->create_publisher<String>("grouped", 10);
  String hello;
  hello.data = "hi";
  pub->publish(hello);
  guard->trigger();
  hibari::executors::SingleThreadedExecutor executor;
  executor.add_node(node);
  for (int i = 0; i < 100 && (heard == 0 || triggered == 0); i++) executor.spin_once(100ms);
  EXPECT(heard == 1 && triggered == 1);
  say("a subscription and a guard condition in a group: " + std::to_string(heard) + " sample, " +
      std::to_string(triggered) + " trigger");

  auto other = std::make_shared<hibari::Node>("other");
  try {
    auto timer = node->create_wall_timer(1s, [] {}, other->create_callback_group(CallbackGroupType::Reentrant));
    EXPECT(false);
  } catch (const hibari::exceptions::InvalidArgument &e) {
    EXPECT(std::string(e.what()).find("belongs to node") != std::string::npos);
    say("another node's group: refused");
  }
}

}  // namespace

int main() {
  try {
    hibari::InitOptions options;
    options.isolated = true;
    options.install_signal_handlers = false;
    hibari::init(0, nullptr, options);

    const int64_t grouped = nested_call(true, 10s);
    say("nested call with Reentrant groups: " + std::to_string(grouped));
    EXPECT(grouped == 30);
    const int64_t ungrouped = nested_call(false, 1s);
    say("nested call in the default group: " + std::to_string(ungrouped));
    EXPECT(ungrouped == -1);

    const int reentrant = timers_at_once(CallbackGroupType::Reentrant);
    say("timers of a Reentrant group at once: " + std::to_string(reentrant));
    EXPECT(reentrant == 2);
    const int exclusive = timers_at_once(CallbackGroupType::MutuallyExclusive);
    say("timers of a MutuallyExclusive group at once: " + std::to_string(exclusive));
    EXPECT(exclusive == 1);

    shapes();
    hibari::shutdown();
  } catch (const std::exception &e) {
    std::printf("exception: %s\n", e.what());
    return 1;
  }
  say(failures == 0 ? "groups ok" : "groups FAILED");
  return failures == 0 ? 0 : 1;
}

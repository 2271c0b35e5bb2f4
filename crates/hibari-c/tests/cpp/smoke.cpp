// The C++ layer's smoke test, as real processes (tests/c_and_cpp_programs.rs
// runs them):
//   smoke talk TOPIC N         publish N strings once a listener matched
//   smoke listen TOPIC N       print what comes; exit 0 after N in order
//   smoke image-talk TOPIC N   N images, pixels written in place (loan_with_array)
//   smoke image-listen TOPIC N check N images' fields and pixels
//   smoke serve NAME K         answer AddTwoInts K times, then exit
//   smoke call NAME            three async calls (spin_until_future_complete)
//   smoke throttle             the _ONCE/_THROTTLE macros and WallRate
//   smoke stubborn             outlives a first SIGINT; a second one ends it (130)
//   smoke selftest             in one process: parameters, callback forms,
//                              exceptions, loans, the graph (isolated context)
// Every mode prints what it did, one line each, and exits 0 when all went well.
#include <hibari/hibari.hpp>

#include <example_interfaces/srv/add_two_ints.hpp>
#include <sensor_msgs/msg/image.hpp>
#include <sensor_msgs/msg/joint_state.hpp>
#include <std_msgs/msg/string.hpp>

#include <algorithm>
#include <atomic>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "check.hpp"

using namespace std::chrono_literals;
using String = std_msgs::msg::String;
using Image = sensor_msgs::msg::Image;
using JointState = sensor_msgs::msg::JointState;
using AddTwoInts = example_interfaces::srv::AddTwoInts;

namespace {

int talk(const std::string &topic, int n) {
  auto node = std::make_shared<hibari::Node>("cpp_talker");
  auto pub = node->create_publisher<String>(topic, hibari::QoS(n).reliable());
  if (!pub->wait_for_subscriptions(1, 30s)) return say("no listener"), 1;
  int sent = 0;
  auto timer = node->create_wall_timer(20ms, [&] {
    if (sent == n) {
      hibari::shutdown();
      return;
    }
    auto msg = std::make_unique<String>();
    msg->data = "hello " + std::to_string(++sent);
    pub->publish(std::move(msg));
  });
  hibari::spin(node);
  say("sent " + std::to_string(sent));
  return 0;
}

int listen(const std::string &topic, int n) {
  auto node = std::make_shared<hibari::Node>("cpp_listener");
  int heard = 0;
  auto sub = node->create_subscription<String>(topic, hibari::QoS(n).reliable(),
                                               [&](const String &msg, const hibari::MessageInfo &info) {
                                                 const std::string want = "hello " + std::to_string(++heard);
                                                 if (msg.data != want || info.sequence == 0) failures++;
                                                 say("heard " + msg.data);
                                                 if (heard == n) hibari::shutdown();
                                               });
  say("listening");
  hibari::spin(node);
  say("heard all " + std::to_string(heard));
  return failures == 0 && heard == n ? 0 : 1;
}

constexpr uint32_t W = 64, H = 48;

int image_talk(const std::string &topic, int n) {
  auto node = std::make_shared<hibari::Node>("cpp_camera");
  auto pub = node->create_publisher<Image>(topic, hibari::QoS(n).reliable());
  if (!pub->wait_for_subscriptions(1, 30s)) return say("no listener"), 1;
  for (int i = 1; i <= n; i++) {
    Image frame;  // everything but the pixels
    frame.stamp_sec = i;
    frame.frame_id = "camera";
    frame.height = H;
    frame.width = W;
    frame.encoding = "rgb8";
    frame.step = W * 3;
    auto loan = pub->loan_with_array(frame, &Image::data, W * H * 3);
    for (size_t p = 0; p < loan.size(); p++) loan[p] = static_cast<uint8_t>(p * 7 + static_cast<size_t>(i));
    loan.publish();
  }
  say("sent " + std::to_string(n) + " images");
  std::this_thread::sleep_for(300ms);
  return 0;
}

int image_listen(const std::string &topic, int n) {
  auto node = std::make_shared<hibari::Node>("cpp_viewer");
  int seen = 0;
  auto sub = node->create_subscription<Image>(topic, hibari::QoS(n).reliable(), [&](Image::UniquePtr frame) {
    seen++;
    bool pixels = frame->data.size() == W * H * 3;
    for (size_t p = 0; pixels && p < frame->data.size(); p++) {
      pixels = frame->data[p] == static_cast<uint8_t>(p * 7 + static_cast<size_t>(frame->stamp_sec));
    }
    const bool fields = frame->frame_id == "camera" && frame->encoding == "rgb8" && frame->width == W &&
                        frame->height == H && frame->step == W * 3;
    if (!pixels || !fields) failures++;
    say("image " + std::to_string(frame->stamp_sec) + (pixels && fields ? " ok" : " WRONG"));
    if (seen == n) hibari::shutdown();
  });
  say("listening");
  hibari::spin(node);
  return failures == 0 && seen == n ? 0 : 1;
}

int serve(const std::string &name, int k) {
  auto node = std::make_shared<hibari::Node>("cpp_adder");
  int answered = 0;
  auto service = node->create_service<AddTwoInts>(
      name, [&](const std::shared_ptr<AddTwoInts::Request> request, std::shared_ptr<AddTwoInts::Response> response) {
        response->sum = request->a + request->b;
        HIBARI_INFO(node->get_logger(), "Incoming request a: %" PRId64 " b: %" PRId64, request->a, request->b);
        if (++answered == k) {
          // Lets the reply leave before the process does.
          static auto stop = node->create_wall_timer(200ms, [] { hibari::shutdown(); });
        }
      });
  say("serving");
  hibari::spin(node);
  say("answered " + std::to_string(answered));
  return 0;
}

int call(const std::string &name) {
  auto node = std::make_shared<hibari::Node>("cpp_caller");
  auto client = node->create_client<AddTwoInts>(name);
  if (!client->wait_for_service(30s)) return say("no service"), 1;
  const int64_t pairs[][2] = {{2, 3}, {-7, 7}, {123456789012, 987654321098}};
  for (const auto &p : pairs) {
    auto request = std::make_shared<AddTwoInts::Request>();
    request->a = p[0];
    request->b = p[1];
    auto future = client->async_send_request(request);
    if (hibari::spin_until_future_complete(node, future, 30s) != hibari::FutureReturnCode::SUCCESS) {
      return say("no answer"), 1;
    }
    const int64_t sum = future.get()->sum;
    std::printf("sum %" PRId64 " + %" PRId64 " = %" PRId64 " (request %" PRId64 ")\n", p[0], p[1], sum,
                future.request_id);
    if (sum != p[0] + p[1]) failures++;
  }
  std::fflush(stdout);
  return failures == 0 ? 0 : 1;
}

// selftest: one process, an isolated context.

class Counter : public hibari::Node {
public:
  Counter() : Node("counter", "/selftest") {
    answer = declare_parameter<int64_t>("answer", 0);
    publisher_ = create_publisher<String>("numbers", 10);
    sub_ = create_subscription<String>("numbers", 10,
                                       std::bind(&Counter::on_shared, this, std::placeholders::_1));
  }
  int64_t answer = 0;
  std::vector<std::string> heard;
  hibari::Publisher<String>::SharedPtr publisher_;

private:
  void on_shared(const String::SharedPtr msg) { heard.push_back(msg->data); }
  hibari::Subscription<String>::SharedPtr sub_;
};

void spin_a_little(const std::shared_ptr<hibari::Node> &node) {
  hibari::executors::SingleThreadedExecutor e;
  e.add_node(node);
  for (int i = 0; i < 20; i++) e.spin_once(10ms);
}

int selftest() {
  const char *argv[] = {"smoke", "--ros-args", "-p", "answer:=42", "-p", "name:=hibari"};
  hibari::InitOptions options;
  options.isolated = true;
  hibari::init(6, argv, options);
  EXPECT(hibari::ok());

  auto counter = std::make_shared<Counter>();
  EXPECT(counter->answer == 42);
  EXPECT(counter->get_fully_qualified_name() == "/selftest/counter");
  EXPECT(std::string(counter->get_logger().get_name()) == "selftest.counter");
  EXPECT(counter->declare_parameter("name", "nobody") == "hibari");
  EXPECT(counter->get_parameter("answer").as_int() == 42);
  double ratio = 0;
  EXPECT(!counter->get_parameter("ratio", ratio));
  EXPECT(counter->declare_parameter("ratio", 0.5) == 0.5);
  EXPECT(counter->set_parameter(hibari::Parameter("ratio", 2.5)).successful);
  EXPECT(counter->get_parameter("ratio", ratio) && ratio == 2.5);
  const auto refused = counter->set_parameter(hibari::Parameter("ratio", "text"));
  EXPECT(!refused.successful && refused.reason.find("ratio") != std::string::npos);
  const auto list = counter->declare_parameter("list", std::vector<std::string>{"a", "b"});
  EXPECT(list.size() == 2 && list[1] == "b");
  try {
    counter->get_parameter("nope");
    EXPECT(false);
  } catch (const hibari::exceptions::ParameterNotDeclaredException &) {
  }
  try {
    (void)counter->get_parameter("answer").as_string();
    EXPECT(false);
  } catch (const hibari::exceptions::InvalidParameterTypeException &) {
  }

  // Every callback form, one publisher.
  auto node = std::make_shared<hibari::Node>("forms");
  int by_ref = 0, by_shared = 0, by_const_shared = 0, by_unique = 0, with_info = 0;
  auto pub = node->create_publisher<String>("forms", hibari::QoS(10));
  auto s1 = node->create_subscription<String>("forms", 10, [&](const String &) { by_ref++; });
  auto s2 = node->create_subscription<String>("forms", 10, [&](String::SharedPtr) { by_shared++; });
  auto s3 = node->create_subscription<String>("forms", 10, [&](String::ConstSharedPtr) { by_const_shared++; });
  auto s4 = node->create_subscription<String>("forms", 10, [&](std::unique_ptr<String>) { by_unique++; });
  auto s5 = node->create_subscription<String>("forms", hibari::SensorDataQoS().reliable(),
                                              [&](const String &, const hibari::MessageInfo &i) {
                                                with_info += i.sequence > 0;
                                              });
  String hello;
  hello.data = "hi";
  pub->publish(hello);
  counter->publisher_->publish(hello);
  spin_a_little(node);
  spin_a_little(counter);
  EXPECT(by_ref == 1 && by_shared == 1 && by_const_shared == 1 && by_unique == 1 && with_info == 1);
  EXPECT(counter->heard.size() == 1);
  EXPECT(pub->get_intra_process_subscription_count() == 5);

  // publish(std::unique_ptr<T>) hands the object itself to the typed
  // subscriptions of this program (const T & reads it in place, the others
  // get copies); a serialized subscription gets its encoding, to_cdr's bytes.
  {
    const String *published = nullptr, *by_ref_at = nullptr, *with_info_at = nullptr;
    String::SharedPtr copy;
    std::vector<uint8_t> encoded;
    auto hpub = node->create_publisher<String>("handover", 10);
    auto h1 = node->create_subscription<String>("handover", 10, [&](const String &m) { by_ref_at = &m; });
    auto h2 = node->create_subscription<String>(
        "handover", 10, [&](const String &m, const hibari::MessageInfo &i) { with_info_at = i.sequence ? &m : nullptr; });
    auto h3 = node->create_subscription<String>("handover", 10, [&](String::SharedPtr m) { copy = m; });
    auto h4 = node->create_serialized_subscription("handover", "std_msgs/msg/String", 10,
                                                   [&](hibari::ByteSpan b) { encoded.assign(b.begin(), b.end()); });
    auto big = std::make_unique<String>();
    big->data = std::string(100000, 'x');
    published = big.get();
    hpub->publish(std::move(big));
    spin_a_little(node);
    EXPECT(by_ref_at == published && with_info_at == published);
    EXPECT(copy && copy.get() != published && copy->data == std::string(100000, 'x'));
    String expected;
    expected.data = std::string(100000, 'x');
    EXPECT(encoded == hibari::cdr::to_cdr(expected));
    // publish(T &&) moves the contents into the sample's own storage, where
    // both `const T &` subscriptions read the one object.
    String moved;
    moved.data = "moved";
    by_ref_at = with_info_at = nullptr;
    hpub->publish(std::move(moved));
    spin_a_little(node);
    EXPECT(copy->data == "moved");
    EXPECT(by_ref_at != nullptr && by_ref_at == with_info_at && by_ref_at != &moved);
    EXPECT(encoded == hibari::cdr::to_cdr(*copy));
    try {
      hpub->publish(std::unique_ptr<String>());
      EXPECT(false);
    } catch (const hibari::exceptions::InvalidArgument &) {
    }
  }

  // A whole message in a loan, and bytes read in place.
  size_t seen_bytes = 0;
  auto raw = node->create_serialized_subscription("forms", "std_msgs/msg/String", 10,
                                                  [&](hibari::ByteSpan cdr) { seen_bytes = cdr.size(); });
  const std::vector<uint8_t> cdr = hibari::cdr::to_cdr(hello);
  auto loan = pub->loan(cdr.size());
  std::memcpy(loan.data(), cdr.data(), cdr.size());
  loan.publish();
  EXPECT(!loan.valid());
  spin_a_little(node);
  EXPECT(seen_bytes == cdr.size() && by_ref == 2);

  // loan_with_array writes every field around the hole where to_cdr puts
  // them — 8-byte elements after strings (aligned), fields after the
  // array, an empty hole, the last field — and publish(const T &) encodes
  // into lent memory exactly what to_cdr writes.
  {
    JointState joints;
    joints.frame_id = "arm";
    joints.name = {"a", "bc"};
    joints.velocity = {1.5, -2.0, 3.25};
    auto joint_pub = node->create_publisher<JointState>("joints", 10);
    for (auto field : {&JointState::position, &JointState::effort}) {
      for (const size_t n : {size_t{0}, size_t{1}, size_t{3}}) {
        auto lent = joint_pub->loan_with_array(joints, field, n);
        EXPECT(lent.size() == n);
        JointState full = joints;
        for (size_t i = 0; i < n; i++) {
          const double v = 0.25 * static_cast<double>(i + 1);
          std::memcpy(lent.bytes() + i * sizeof(double), &v, sizeof v);
          (full.*field).push_back(v);
        }
        const std::vector<uint8_t> want = hibari::cdr::to_cdr(full);
        EXPECT(lent.message().size() == want.size() &&
               std::equal(want.begin(), want.end(), lent.message().data()));
      }
    }
    std::vector<uint8_t> bytes;
    auto joint_raw = node->create_serialized_subscription(
        "joints", "sensor_msgs/msg/JointState", 10,
        [&](hibari::ByteSpan cdr) { bytes.assign(cdr.begin(), cdr.end()); });
    joint_pub->publish(joints);
    spin_a_little(node);
    const std::vector<uint8_t> want = hibari::cdr::to_cdr(joints);
    EXPECT(bytes == want);
    std::vector<uint8_t> small(want.size() - 1);
    try {
      hibari::cdr::to_cdr(joints, small.data(), small.size());
      EXPECT(false);
    } catch (const hibari::cdr::EncodeError &) {
    }
  }

  // Errors are exceptions, with hibari's message.
  try {
    auto bad = node->create_generic_publisher("x", "no_such_pkg/msg/Nope", 10);
    EXPECT(false);
  } catch (const hibari::exceptions::UnknownType &e) {
    EXPECT(std::string(e.what()).find("no_such_pkg/msg/Nope") != std::string::npos);
  }

  // A callback's exception comes out of spin.
  auto thrower = node->create_wall_timer(1ms, [] { throw std::runtime_error("boom"); });
  bool caught = false;
  try {
    hibari::executors::MultiThreadedExecutor e(2);
    e.add_node(node);
    e.spin();
  } catch (const std::runtime_error &e) {
    caught = std::string(e.what()) == "boom";
  }
  EXPECT(caught);
  thrower.reset();

  // A service with the request header, and a call whose callback runs.
  int64_t header_sequence = 0;
  auto adder = node->create_service<AddTwoInts>(
      "add", [&](const std::shared_ptr<hibari::RequestHeader> header,
                 const std::shared_ptr<AddTwoInts::Request> request, std::shared_ptr<AddTwoInts::Response> response) {
        header_sequence = header->sequence_number;
        response->sum = request->a + request->b;
      });
  auto client = node->create_client<AddTwoInts>("add");
  EXPECT(client->wait_for_service(5s) && client->service_is_ready());
  auto request = std::make_shared<AddTwoInts::Request>();
  request->a = 20;
  request->b = 22;
  std::atomic<int64_t> from_callback{0};
  auto future = client->async_send_request(
      request, [&](hibari::Client<AddTwoInts>::SharedFuture f) { from_callback = f.get()->sum; });
  EXPECT(hibari::spin_until_future_complete(node, future, 5s) == hibari::FutureReturnCode::SUCCESS);
  EXPECT(future.get()->sum == 42 && header_sequence == future.request_id);
  for (int i = 0; i < 500 && from_callback == 0; i++) std::this_thread::sleep_for(1ms);
  EXPECT(from_callback == 42);
  auto lost = node->create_client<AddTwoInts>("nobody_serves_this");
  try {
    lost->async_send_request(request).get();
    EXPECT(false);
  } catch (const hibari::exceptions::NotFound &) {
  }

  // The graph, logging, time.
  const auto names = node->get_node_names();
  EXPECT(std::find(names.begin(), names.end(), "/forms") != names.end());
  EXPECT(node->get_topic_names_and_types()["/forms"] == std::vector<std::string>{"std_msgs/msg/String"});
  EXPECT(node->count_subscribers("forms") == 6);
  HIBARI_INFO_STREAM(node->get_logger(), "selftest at " << node->now().seconds() << " s");
  HIBARI_WARN(hibari::get_logger("selftest"), "a named logger, %d", 1);
  EXPECT(node->now().nanoseconds() > 0);

  hibari::shutdown();
  EXPECT(!hibari::ok());
  say(failures == 0 ? "selftest ok" : "selftest FAILED");
  return failures == 0 ? 0 : 1;
}

/// The _ONCE and _THROTTLE macros log once over a loop, a level below the
/// logger's never (their arguments are evaluated only when they log, as
/// rclcpp's), and WallRate paces.
int throttle() {
  auto node = std::make_shared<hibari::Node>("throttled");
  int once = 0, throttled = 0, every = 0, debug = 0;
  hibari::WallRate rate(std::chrono::milliseconds(5));
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < 20; i++) {
    HIBARI_INFO_ONCE(node->get_logger(), "once %d", ++once);
    HIBARI_INFO_THROTTLE(node->get_logger(), *node->get_clock(), 600000, "throttled %d", ++throttled);
    HIBARI_INFO(node->get_logger(), "every %d", ++every);
    HIBARI_DEBUG(node->get_logger(), "below the level: never formatted %d", ++debug);
    rate.sleep();  // false when this iteration overran (a loaded machine): no assertion on that
  }
  const auto took = std::chrono::steady_clock::now() - start;
  EXPECT(took >= std::chrono::milliseconds(100));  // 20 periods of 5 ms: never sooner
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT(!rate.sleep());  // the period had passed: false, and no sleep
  say("once " + std::to_string(once) + " throttled " + std::to_string(throttled) + " every " +
      std::to_string(every) + " debug " + std::to_string(debug));
  return failures == 0 ? 0 : 1;
}

/// Ignores the shutdown the first SIGINT brings (it says so): the second
/// SIGINT ends the process with status 130, as rclcpp's handler does.
int stubborn() {
  say("ready");
  bool said = false;
  for (;;) {
    if (!hibari::ok() && !said) {
      say("shut down");
      said = true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

}  // namespace

int main(int argc, char **argv) {
  if (argc < 2) return std::fprintf(stderr, "usage: smoke MODE ...\n"), 2;
  const std::string mode = argv[1];
  try {
    if (mode == "selftest") return selftest();
    if (mode == "throttle" || mode == "stubborn") {
      hibari::init(argc, argv);
      return mode == "throttle" ? throttle() : stubborn();
    }
    if (argc < 3) return std::fprintf(stderr, "%s needs a topic or service name\n", argv[1]), 2;
    hibari::init(argc, argv);
    const std::string name = argv[2];
    const int n = argc > 3 ? std::atoi(argv[3]) : 3;
    if (mode == "talk") return talk(name, n);
    if (mode == "listen") return listen(name, n);
    if (mode == "image-talk") return image_talk(name, n);
    if (mode == "image-listen") return image_listen(name, n);
    if (mode == "serve") return serve(name, n);
    if (mode == "call") return call(name);
  } catch (const std::exception &e) {
    std::printf("exception: %s\n", e.what());
    return 1;
  }
  return std::fprintf(stderr, "unknown mode %s\n", argv[1]), 2;
}

// listener: prints what `chatter` carries and checks it is "Hello World: N"
// for N = 1, 2, 3… in order, none missing. Parameters:
//   count       exit (status 0) after this many messages (0: never)
//   check_text  whether each must be "Hello World: N" (default true): a
//               message out of order or malformed then ends it with status 1
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>

#include <hibari/hibari.hpp>
#include <std_msgs/msg/string.hpp>

class Listener : public hibari::Node {
public:
  Listener() : Node("listener") {
    count_ = declare_parameter<int64_t>("count", 0);
    check_text_ = declare_parameter<bool>("check_text", true);
    subscription_ = create_subscription<std_msgs::msg::String>(
        "chatter", 10, [this](const std_msgs::msg::String &message, const hibari::MessageInfo &info) {
          on_message(message, info);
        });
  }
  int status = 0;

private:
  void on_message(const std_msgs::msg::String &message, const hibari::MessageInfo &info) {
    HIBARI_INFO(get_logger(), "I heard: [%s] (#%llu)", message.data.c_str(),
                static_cast<unsigned long long>(info.sequence));
    const std::string expected = "Hello World: " + std::to_string(++heard_);
    if (check_text_ && message.data != expected) {
      std::fprintf(stderr, "expected '%s', got '%s'\n", expected.c_str(), message.data.c_str());
      status = 1;
      hibari::shutdown();
    } else if (count_ > 0 && heard_ >= count_) {
      std::printf("heard all %lld messages\n", static_cast<long long>(heard_));
      std::fflush(stdout);
      hibari::shutdown();
    }
  }

  int64_t count_ = 0, heard_ = 0;
  bool check_text_ = true;
  hibari::Subscription<std_msgs::msg::String>::SharedPtr subscription_;
};

int main(int argc, char **argv) {
  hibari::init(argc, argv);
  auto node = std::make_shared<Listener>();
  hibari::spin(node);
  hibari::shutdown();
  return node->status;
}

// add_two_ints_server: the service example_interfaces/srv/AddTwoInts on
// `add_two_ints`, until interrupted.
#include <cinttypes>
#include <memory>

#include <example_interfaces/srv/add_two_ints.hpp>
#include <hibari/hibari.hpp>

using AddTwoInts = example_interfaces::srv::AddTwoInts;

int main(int argc, char **argv) {
  hibari::init(argc, argv);
  auto node = std::make_shared<hibari::Node>("add_two_ints_server");
  auto service = node->create_service<AddTwoInts>(
      "add_two_ints", [&node](const std::shared_ptr<AddTwoInts::Request> request,
                              std::shared_ptr<AddTwoInts::Response> response) {
        response->sum = request->a + request->b;
        HIBARI_INFO(node->get_logger(), "Incoming request a: %" PRId64 " b: %" PRId64, request->a,
                    request->b);
      });
  HIBARI_INFO(node->get_logger(), "Ready to add two ints.");
  hibari::spin(node);
  hibari::shutdown();
  return 0;
}

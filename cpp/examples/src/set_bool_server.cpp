// set_bool_server: the service std_srvs/srv/SetBool on `set_bool`, until
// interrupted: success = data, message "cpp:true" or "cpp:false".
#include <memory>

#include <hibari/hibari.hpp>
#include <std_srvs/srv/set_bool.hpp>

using SetBool = std_srvs::srv::SetBool;

int main(int argc, char **argv) {
  hibari::init(argc, argv);
  auto node = std::make_shared<hibari::Node>("set_bool_server");
  auto service = node->create_service<SetBool>(
      "set_bool", [](const std::shared_ptr<SetBool::Request> request, std::shared_ptr<SetBool::Response> response) {
        response->success = request->data;
        response->message = request->data ? "cpp:true" : "cpp:false";
      });
  HIBARI_INFO(node->get_logger(), "Ready to set bools.");
  hibari::spin(node);
  hibari::shutdown();
  return 0;
}

// add_two_ints_client: calls `add_two_ints` with a few pairs and checks each
// sum; exits 0 when all are right, 1 otherwise (or when no server appears
// within 10 s).
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <memory>
#include <utility>
#include <vector>

#include <example_interfaces/srv/add_two_ints.hpp>
#include <hibari/hibari.hpp>

using AddTwoInts = example_interfaces::srv::AddTwoInts;
using namespace std::chrono_literals;

int main(int argc, char **argv) {
  hibari::init(argc, argv);
  auto node = std::make_shared<hibari::Node>("add_two_ints_client");
  auto client = node->create_client<AddTwoInts>("add_two_ints");
  if (!client->wait_for_service(10s)) {
    HIBARI_ERROR(node->get_logger(), "service not available after waiting");
    return 1;
  }
  const std::vector<std::pair<int64_t, int64_t>> pairs = {
      {2, 3}, {-7, 7}, {INT64_MAX - 1, 1}, {123456789012, 987654321098}};
  int status = 0;
  for (const auto &[a, b] : pairs) {
    auto request = std::make_shared<AddTwoInts::Request>();
    request->a = a;
    request->b = b;
    auto future = client->async_send_request(request);
    if (hibari::spin_until_future_complete(node, future, 10s) != hibari::FutureReturnCode::SUCCESS) {
      HIBARI_ERROR(node->get_logger(), "no answer to %" PRId64 " + %" PRId64, a, b);
      status = 1;
      break;
    }
    const int64_t sum = future.get()->sum;
    std::printf("Result of add_two_ints: %" PRId64 " + %" PRId64 " = %" PRId64 "\n", a, b, sum);
    if (sum != a + b) status = 1;
  }
  std::fflush(stdout);
  hibari::shutdown();
  return status;
}

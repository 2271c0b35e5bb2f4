// hibari C++: service servers and clients of service types S (with
// S::Request, S::Response and S::TYPE_NAME).
//
// A server's callback is void(std::shared_ptr<Request>, std::shared_ptr<
// Response>) — or with a first std::shared_ptr<RequestHeader> — and fills
// the response, which is sent when it returns. A request that does not
// decode is logged (ERROR) and not answered; neither is one whose callback
// threw (the exception goes to the spin call).
//
// A client's async_send_request needs no executor: the response is
// decoded, and the future completed, on the thread that delivers it (then
// the client's node is woken, so spin_until_future_complete returns at
// once). A callback given to async_send_request runs there too. So a
// service callback may wait on a client's future (future.wait_for) while a
// MultiThreadedExecutor spins its node, provided the service it calls can
// run meanwhile: not in the same mutually exclusive callback group (see
// callback_group.hpp; the node's default group is one).
#pragma once

#include <hibari.h>
#include <hibari/cdr.hpp>

#include <array>
#include <chrono>
#include <functional>
#include <future>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "hibari/callback_group.hpp"
#include "hibari/context.hpp"
#include "hibari/exceptions.hpp"
#include "hibari/qos.hpp"
#include "hibari/subscription.hpp"

namespace hibari {

/// Who asked (rmw_request_id_t): the client's GID and its request number.
struct RequestHeader {
  std::array<uint8_t, 16> writer_guid{};
  int64_t sequence_number = 0;
};

/// How spin_until_future_complete ended.
enum class FutureReturnCode { SUCCESS, INTERRUPTED, TIMEOUT };

namespace detail {
using ServiceCallback = std::function<void(ByteSpan, hibari_response_t *)>;
using ServiceBox = CallbackBox<ServiceCallback>;

inline void on_request(const uint8_t *req, size_t len, hibari_response_t *response, void *user) {
  ServiceBox::call(user, ByteSpan{req, len}, response);
}
}  // namespace detail

/// Answers requests of the service type S.
template <class S> class Service {
public:
  using SharedPtr = std::shared_ptr<Service<S>>;
  using Request = typename S::Request;
  using Response = typename S::Response;

  /// Its callback runs in `group` (null: the node's default group).
  template <class F>
  Service(std::shared_ptr<detail::NodeHandle> node, const std::string &name, F &&callback, const QoS &qos,
          const CallbackGroup::SharedPtr &group = nullptr)
      : node_(std::move(node)), box_(new detail::ServiceBox(adapt(node_->handle, std::forward<F>(callback)))) {
    const hibari_ret_t r =
        group ? hibari_service_create_in_group(node_->handle, group->get_c_handle(), name.c_str(), S::TYPE_NAME,
                                               &qos.get_c_qos(), detail::on_request, box_, &handle_)
              : hibari_service_create(node_->handle, name.c_str(), S::TYPE_NAME, &qos.get_c_qos(), detail::on_request,
                                      box_, &handle_);
    if (r != HIBARI_OK) {
      delete box_;
      detail::check(r, "create_service");
    }
  }
  ~Service() {
    hibari_service_destroy(handle_);
    detail::ServiceBox::release(box_);
  }
  Service(const Service &) = delete;
  Service &operator=(const Service &) = delete;

private:
  template <class F> static detail::ServiceCallback adapt(hibari_node_t node, F &&f) {
    using Fn = std::decay_t<F>;
    constexpr bool with_header = std::is_invocable<Fn &, std::shared_ptr<RequestHeader>, std::shared_ptr<Request>,
                                                   std::shared_ptr<Response>>::value;
    static_assert(with_header || std::is_invocable<Fn &, std::shared_ptr<Request>, std::shared_ptr<Response>>::value,
                  "a service callback takes (std::shared_ptr<Request>, std::shared_ptr<Response>), "
                  "optionally after a std::shared_ptr<hibari::RequestHeader>");
    return [f = Fn(std::forward<F>(f)), node](ByteSpan bytes, hibari_response_t *response) mutable {
      auto request = std::make_shared<Request>();
      try {
        hibari::cdr::from_cdr(bytes.data(), bytes.size(), *request);
      } catch (const std::exception &e) {
        const std::string text = std::string("a request of ") + S::TYPE_NAME + " does not decode: " + e.what();
        hibari_log(node, HIBARI_LOG_ERROR, __FILE__, __LINE__, "hibari::Service", text.c_str());
        return;
      }
      auto reply = std::make_shared<Response>();
      if constexpr (with_header) {
        hibari_sample_info_t info{};
        auto header = std::make_shared<RequestHeader>();
        if (hibari_response_get_request_info(response, &info) == HIBARI_OK) {
          std::copy(std::begin(info.publisher_id), std::end(info.publisher_id), header->writer_guid.begin());
          header->sequence_number = static_cast<int64_t>(info.sequence);
        }
        f(header, request, reply);
      } else {
        f(request, reply);
      }
      const std::vector<uint8_t> cdr = hibari::cdr::to_cdr(*reply);
      detail::check(hibari_response_set(response, cdr.data(), cdr.size()), "sending the response");
    };
  }

  std::shared_ptr<detail::NodeHandle> node_;
  detail::ServiceBox *box_;
  hibari_service_t handle_{};
};

/// Calls the service type S.
template <class S> class Client {
public:
  using SharedPtr = std::shared_ptr<Client<S>>;
  using Request = typename S::Request;
  using Response = typename S::Response;
  using SharedRequest = std::shared_ptr<Request>;
  using SharedResponse = std::shared_ptr<Response>;
  using SharedFuture = std::shared_future<SharedResponse>;

  /// rclcpp's FutureAndRequestId: the response's future and the request's
  /// sequence number (-1 when it could not be sent: the future then holds
  /// the error).
  struct FutureAndRequestId {
    SharedFuture future;
    int64_t request_id = -1;
    SharedResponse get() const { return future.get(); }
    bool valid() const { return future.valid(); }
    void wait() const { future.wait(); }
    template <class Rep, class Period> std::future_status wait_for(const std::chrono::duration<Rep, Period> &d) const {
      return future.wait_for(d);
    }
    SharedFuture share() const { return future; }
  };

  /// In `group` (null: the node's default group), as rclcpp's: it only
  /// holds the client's wake-up of its node (see above).
  Client(std::shared_ptr<detail::NodeHandle> node, const std::string &name, const QoS &qos,
         const CallbackGroup::SharedPtr &group = nullptr)
      : node_(std::move(node)) {
    const hibari_ret_t r =
        group ? hibari_client_create_in_group(node_->handle, group->get_c_handle(), name.c_str(), S::TYPE_NAME,
                                              &qos.get_c_qos(), &handle_)
              : hibari_client_create(node_->handle, name.c_str(), S::TYPE_NAME, &qos.get_c_qos(), &handle_);
    detail::check(r, "create_client");
  }
  /// Pending requests complete with hibari::exceptions::Canceled.
  ~Client() { hibari_client_destroy(handle_); }
  Client(const Client &) = delete;
  Client &operator=(const Client &) = delete;

  bool service_is_ready() const {
    bool ready = false;
    detail::check(hibari_client_service_is_ready(handle_, &ready), "service_is_ready");
    return ready;
  }

  /// Waits up to `timeout` (negative: forever) for a server.
  template <class Rep = int64_t, class Period = std::milli>
  bool wait_for_service(std::chrono::duration<Rep, Period> timeout = std::chrono::duration<Rep, Period>(-1)) {
    bool available = false;
    const int64_t ns = std::chrono::duration_cast<std::chrono::nanoseconds>(timeout).count();
    detail::check(hibari_client_wait_for_service(handle_, ns, &available), "wait_for_service");
    return available;
  }

  /// Sends `request`; the future completes with the response, or with the
  /// exception that ended the call (NotFound: no server; Shutdown;
  /// Canceled: the client was destroyed).
  FutureAndRequestId async_send_request(const SharedRequest &request) {
    return send(*request, nullptr);
  }

  /// Also calls `callback(future)` once it is complete, on the thread that
  /// completed it.
  template <class F> FutureAndRequestId async_send_request(const SharedRequest &request, F &&callback) {
    return send(*request, std::function<void(SharedFuture)>(std::forward<F>(callback)));
  }

  /// Forgets a request: its future completes with Canceled.
  bool remove_pending_request(int64_t request_id) {
    bool removed = false;
    detail::check(hibari_client_remove_pending_request(handle_, request_id, &removed), "remove_pending_request");
    return removed;
  }
  bool remove_pending_request(const FutureAndRequestId &f) { return remove_pending_request(f.request_id); }

private:
  struct Call {
    std::promise<SharedResponse> promise;
    std::function<void(SharedFuture)> on_done;
    SharedFuture future;
  };

  static void on_response(hibari_ret_t status, const uint8_t *cdr, size_t len, void *user) {
    std::unique_ptr<Call> call(static_cast<Call *>(user));
    try {
      if (status != HIBARI_OK) std::rethrow_exception(detail::error(status, "the service call failed"));
      auto response = std::make_shared<Response>();
      hibari::cdr::from_cdr(cdr, len, *response);
      call->promise.set_value(std::move(response));
    } catch (...) {
      call->promise.set_exception(std::current_exception());
    }
    if (call->on_done) detail::guarded([&] { call->on_done(call->future); });
  }

  FutureAndRequestId send(const Request &request, std::function<void(SharedFuture)> on_done) {
    const std::vector<uint8_t> cdr = hibari::cdr::to_cdr(request);
    auto call = std::make_unique<Call>();
    call->on_done = std::move(on_done);
    call->future = call->promise.get_future().share();
    FutureAndRequestId out{call->future, -1};
    Call *raw = call.release();  // on_response owns it once the request is sent
    const hibari_ret_t r =
        hibari_client_send_request(handle_, cdr.data(), cdr.size(), &Client::on_response, raw, &out.request_id);
    if (r != HIBARI_OK) {
      delete raw;
      detail::check(r, "async_send_request");
    }
    return out;
  }

  std::shared_ptr<detail::NodeHandle> node_;
  hibari_client_t handle_{};
};

}  // namespace hibari

"""Services and clients: blocking calls, futures completed without an
executor or by spin_until_future_complete, asyncio, and the failures
(no server, a server that raises, a timeout)."""

from __future__ import annotations

import asyncio
import threading

import pytest

import hibari
from conftest import LONG


@pytest.fixture
def served(node):
    """A SetBool server answering success = not data on a background executor."""
    from hibari.msg.std_srvs import SetBool

    requests = []

    def answer(request, response):
        requests.append(request.data)
        response.success = not request.data
        response.message = f"got {request.data}"
        return response

    node.create_service(SetBool, "flip", answer)
    with hibari.aio.spin_in_background(node) as executor:
        yield SetBool, requests, executor


def test_a_blocking_call_returns_the_response(served, context) -> None:
    SetBool, requests, _ = served
    client = hibari.Node("caller", context=context).create_client(SetBool, "flip")
    assert client.wait_for_service(timeout_sec=LONG) and client.service_is_ready()
    response = client.call(SetBool.Request(data=True), timeout_sec=LONG)
    assert (response.success, response.message) == (False, "got True")
    assert requests == [True]


def test_futures_complete_without_spinning_the_clients_node(served, context) -> None:
    SetBool, _, _ = served
    client = hibari.Node("caller", context=context).create_client(SetBool, "flip")
    assert client.wait_for_service(timeout_sec=LONG)
    futures = [client.call_async(SetBool.Request(data=i % 2 == 0)) for i in range(20)]
    done = []
    futures[-1].add_done_callback(done.append)
    assert all(f.wait(LONG) for f in futures)
    assert [f.result().success for f in futures] == [i % 2 == 1 for i in range(20)]
    assert done == [futures[-1]]


def test_spin_until_future_complete_drives_the_servers_node(node, context) -> None:
    from hibari.msg.std_srvs import Trigger

    count = []

    def answer(request, response):
        count.append(1)
        response.success, response.message = True, f"call {len(count)}"
        return response

    node.create_service(Trigger, "count", answer)
    client = hibari.Node("counter", context=context).create_client(Trigger, "count")
    assert client.wait_for_service(timeout_sec=LONG)
    future = client.call_async(Trigger.Request())
    executor = hibari.SingleThreadedExecutor()
    executor.add_node(node)
    executor.spin_until_future_complete(future, timeout_sec=LONG)
    assert future.done() and future.result().message == "call 1"


def test_a_call_can_be_awaited_in_asyncio(served, context) -> None:
    SetBool, _, _ = served
    client = hibari.Node("caller", context=context).create_client(SetBool, "flip")

    async def main():
        assert await asyncio.get_running_loop().run_in_executor(None, client.wait_for_service, LONG)
        replies = await asyncio.gather(*(client.call_async(SetBool.Request(data=False)) for _ in range(5)))
        return [r.success for r in replies]

    assert asyncio.run(asyncio.wait_for(main(), LONG)) == [True] * 5


def test_without_a_server_a_call_fails_at_once(node) -> None:
    from hibari.msg.std_srvs import Trigger

    client = node.create_client(Trigger, "nobody")
    assert not client.wait_for_service(timeout_sec=0.01)
    with pytest.raises(hibari.ServiceUnavailableError, match="wait_for_service"):
        client.call(Trigger.Request(), timeout_sec=LONG)
    future = client.call_async(Trigger.Request())
    assert future.done() and isinstance(future.exception(), hibari.ServiceUnavailableError)


def test_a_server_callback_that_raises_fails_the_spin_and_the_call_times_out(node, context) -> None:
    from hibari.msg.std_srvs import Trigger

    def broken(request, response):
        raise RuntimeError("server bug")

    service = node.create_service(Trigger, "broken", broken)
    client = hibari.Node("caller", context=context).create_client(Trigger, "broken")
    assert client.wait_for_service(timeout_sec=LONG)
    future = client.call_async(Trigger.Request())
    executor = hibari.SingleThreadedExecutor()
    executor.add_node(node)
    with pytest.raises(RuntimeError, match="server bug"):
        executor.spin_once(timeout_sec=LONG)
    assert service.failed_replies == 1
    with pytest.raises(TimeoutError):
        client.call(Trigger.Request(), timeout_sec=0.05)
    future.cancel()
    assert future.cancelled()


def test_a_callback_may_call_a_service_synchronously(context) -> None:
    """rclpy deadlocks here on one executor; a hibari client needs none."""
    from hibari.msg.std_srvs import SetBool
    from hibari.msg.std_msgs import Bool

    server = hibari.Node("server", context=context)
    server.create_service(SetBool, "s", lambda rq, rs: (setattr(rs, "success", rq.data), rs)[1])
    user = hibari.Node("user", context=context)
    client = user.create_client(SetBool, "s")
    answers = []
    user.create_subscription(Bool, "/ask", lambda m: answers.append(client.call(SetBool.Request(data=m.data), LONG)), 10)
    user.create_publisher(Bool, "/ask", 10).publish(Bool(data=True))
    executor = hibari.MultiThreadedExecutor(num_threads=2)
    executor.add_node(server)
    executor.add_node(user)
    thread = threading.Thread(target=executor.spin)
    thread.start()
    try:
        assert client.wait_for_service(LONG)
        deadline = threading.Event()
        for _ in range(int(LONG / 0.01)):
            if answers:
                break
            deadline.wait(0.01)
        assert answers and answers[0].success
    finally:
        executor.shutdown()
        thread.join(LONG)

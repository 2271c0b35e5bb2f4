"""roslibpy 2.x as a test peer of hibari-bridge.

    python roslibpy_peer.py <port> <scenario> [transport]
    python roslibpy_peer.py <port> ros2 <heard topic> <said topic> <count>

Each scenario talks to the bridge (and, through it, to native hibari nodes
the Rust test set up), asserts what it gets and exits 0. roslibpy stops
delivering anything after one binary frame, an unsolicited status or a
fragment (bridge.md section 4.2), so every scenario passing also shows the
bridge sent it none of those.
"""

import sys
import threading
import time

import roslibpy

PORT = int(sys.argv[1])
SCENARIO = sys.argv[2]
# `ros2 <heard topic> <said topic> <count>` takes arguments of its own.
TRANSPORT = sys.argv[3] if len(sys.argv) > 3 and SCENARIO != "ros2" else None
TIMEOUT = 15


def wait_for(cond, what):
    deadline = time.monotonic() + TIMEOUT
    while time.monotonic() < deadline:
        if cond():
            return
        time.sleep(0.01)
    raise AssertionError(f"timed out waiting for {what}")


def connect():
    ros = roslibpy.Ros(host="127.0.0.1", port=PORT, transport=TRANSPORT)
    ros.run(timeout=TIMEOUT)
    assert ros.is_connected
    return ros


def echo(ros):
    """Publish to a native node, hear its uppercased answers."""
    got = []
    back = roslibpy.Topic(ros, "/to_py", "std_msgs/msg/String")
    back.subscribe(lambda m: got.append(m["data"]))
    out = roslibpy.Topic(ros, "/from_py", "std_msgs/msg/String")
    out.advertise()
    time.sleep(0.2)
    for i in range(5):
        out.publish(roslibpy.Message({"data": f"py {i}"}))
    wait_for(lambda: len(got) == 5, "five answers")
    assert got == [f"PY {i}" for i in range(5)], got


def ros2(ros, heard_topic, said_topic, count):
    """Through the bridge to stock ROS 2 nodes (rclpy over DDS): hear `count`
    strings `msg <i>` of an rclpy talker, print `heard`, then publish
    `roslibpy <i>` to an rclpy listener every 20 ms until a `stop` line
    comes on stdin."""
    count = int(count)
    got = []
    heard = roslibpy.Topic(ros, heard_topic, "std_msgs/msg/String")
    heard.subscribe(lambda m: got.append(m["data"]))
    print("subscribed", flush=True)
    wait_for(lambda: len(got) >= count, f"{count} strings from the rclpy talker (got {got})")
    assert got[:count] == [f"msg {i}" for i in range(count)], got
    print("heard", flush=True)
    stop = threading.Event()
    threading.Thread(target=lambda: (sys.stdin.readline(), stop.set()), daemon=True).start()
    said = roslibpy.Topic(ros, said_topic, "std_msgs/msg/String")
    said.advertise()
    deadline = time.monotonic() + 4 * TIMEOUT
    i = 0
    while not stop.is_set():
        if time.monotonic() > deadline:
            raise AssertionError("never told to stop: the rclpy listener heard nothing")
        said.publish(roslibpy.Message({"data": f"roslibpy {i}"}))
        i += 1
        stop.wait(0.02)


def exact(ros):
    """int64/uint64 exact both ways; ROS 1 secs/nsecs accepted on input."""
    got = []
    big = roslibpy.Topic(ros, "/i64_out", "std_msgs/msg/Int64")
    big.subscribe(lambda m: got.append(m["data"]))
    u64 = roslibpy.Topic(ros, "/u64_in", "std_msgs/msg/UInt64")
    header = roslibpy.Topic(ros, "/header_in", "std_msgs/msg/Header")
    ready = roslibpy.Topic(ros, "/ready", "std_msgs/msg/String")
    time.sleep(0.2)
    u64.publish(roslibpy.Message({"data": 2**64 - 1}))
    header.publish(roslibpy.Message({"stamp": {"secs": 7, "nsecs": 8}, "frame_id": "py"}))
    ready.publish(roslibpy.Message({"data": "go"}))
    wait_for(lambda: got, "the int64")
    assert got[0] == 2**62 + 1, got


def services(ros):
    """Call a native service and rosapi; serve a native caller."""
    set_bool = roslibpy.Service(ros, "/set", "std_srvs/srv/SetBool")
    r = set_bool.call(roslibpy.ServiceRequest({"data": True}), timeout=TIMEOUT)
    assert r["success"] is True and r["message"] == "got true", r
    topics = ros.get_topics()
    assert "/rosout" in topics, topics
    served = []

    def handler(request, response):
        response["success"] = not request["data"]
        response["message"] = f"py saw {request['data']}"
        served.append(request["data"])
        return True

    mine = roslibpy.Service(ros, "/py_service", "std_srvs/srv/SetBool")
    mine.advertise(handler)
    wait_for(lambda: len(served) == 2, "two native calls")
    time.sleep(0.2)


def main():
    ros = connect()
    try:
        if SCENARIO == "ros2":
            ros2(ros, *sys.argv[3:6])
        else:
            {"echo": echo, "exact": exact, "services": services}[SCENARIO](ros)
    finally:
        ros.terminate() if TRANSPORT is None else ros.close()
    print(f"ok {SCENARIO}")


if __name__ == "__main__":
    threading.Timer(TIMEOUT * 2, lambda: (print("timed out", file=sys.stderr), sys.exit(2))).start()
    main()
    sys.stdout.flush()
    import os

    os._exit(0)

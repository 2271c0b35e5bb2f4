"""An rclpy peer (ROS 2 from the PyPI wheels, rmw_fastrtps_cpp): the ROS 2 side
of the network-namespace tests (crates/hibari-dds/tests/netns_dds.rs) and of
`hibari bench dds` (crates/hibari-bench/src/dds.rs).

Speaks the same line protocol as the hibari peers (the tests'
crates/hibari-dds/tests/netns/peer.rs, the bench's
crates/hibari-bench/src/dds/peer.rs), one line per event on stdout,
`KEY key=value ...`:

    pub   TOPIC KIND COUNT HZ   READY, MATCHED, SENT seq=i (each), DONE sent=n
                                cpu_ns=c vcsw=v ivcsw=i; then stays (publishing
                                nothing) until killed or its timeout, so late
                                repairs still happen.
    sub   TOPIC KIND COUNT      READY, RECV seq=i bytes=n exact=0|1 lat_us=t,
                                DONE received=n exact=n in_order=0|1 cpu_ns=c
                                vcsw=v ivcsw=i
    graph NODE                  NODES a,b,... whenever the set of other
                                nodes in the graph changes

KIND is `string` (std_msgs/String "netns <i>") or `image[:BYTES]`
(sensor_msgs/Image, rgb8 1920x1080 = 6,220,800 bytes unless BYTES is given,
then mono8 BYTES x 1). Image i is built before its due time
start + (i - 1) / HZ, stamped with that due time (CLOCK_REALTIME) and
published at it, so a late publisher shows as latency. It carries frame_id
"<i>" and the pixels of `frame(i)`: a fixed pseudo-random buffer rotated by
i * 7919 bytes, so a byte of another image, or a misplaced fragment, fails the
exact comparison. QoS: reliable, keep all, volatile. Usage (CPU, voluntary
and involuntary context switches, getrusage of the process) runs from MATCHED
to DONE for the publisher and from the first sample to DONE for the
subscriber.

Environment: ROS_DOMAIN_ID; NETNS_PEER_NAME (the node's name, default
netns_rclpy_<role>); NETNS_PEER_TIMEOUT (seconds, default 60) bounds
every wait; the process exits 0 after DONE, 2 when it timed out.
"""

import os
import resource
import sys
import time

import rclpy
from rclpy.node import Node
from rclpy.qos import HistoryPolicy, QoSProfile, ReliabilityPolicy
from sensor_msgs.msg import Image
from std_msgs.msg import String

TIMEOUT = float(os.environ.get("NETNS_PEER_TIMEOUT", "60"))
FULL_HD = 1920 * 1080 * 3
BLOCK = 65521  # a prime: rotations by 7919 never line the pattern up again


def say(*words):
    print(*words, flush=True)


def base(size):
    x, block = 1, bytearray(BLOCK)
    for j in range(BLOCK):
        x = (x * 1103515245 + 12345) & 0x7FFFFFFF
        block[j] = (x >> 16) & 0xFF
    whole = bytes(block) * (size // BLOCK + 1)
    return whole[:size]


def frame(buf, i):
    off = (i * 7919) % len(buf)
    return buf[off:] + buf[:off]


def kind_of(spec):
    name, _, size = spec.partition(":")
    if name == "string":
        return String, None
    return Image, int(size) if size else FULL_HD


def usage():
    u = resource.getrusage(resource.RUSAGE_SELF)
    return (int((u.ru_utime + u.ru_stime) * 1e9), u.ru_nvcsw, u.ru_nivcsw)


def usage_words(before):
    now = usage()
    return "cpu_ns={} vcsw={} ivcsw={}".format(*(a - b for a, b in zip(now, before)))


def qos():
    return QoSProfile(
        reliability=ReliabilityPolicy.RELIABLE, history=HistoryPolicy.KEEP_ALL, depth=1
    )


def spin_until(node, done):
    end = time.monotonic() + TIMEOUT
    while not done():
        if time.monotonic() > end:
            return False
        rclpy.spin_once(node, timeout_sec=0.05)
    return True


def publish(node, topic, spec, count, hz):
    msg_type, size = kind_of(spec)
    pub = node.create_publisher(msg_type, topic, qos())
    buf = base(size) if size else None
    say("READY")
    if not spin_until(node, lambda: pub.get_subscription_count() > 0):
        say("TIMEOUT waiting for a subscriber")
        return 2
    say("MATCHED")
    before = usage()
    period, start, start_rt = 1.0 / hz, time.monotonic(), time.time_ns()
    for i in range(1, count + 1):
        if msg_type is String:
            msg = String(data=f"netns {i}")
        else:
            msg = Image(height=1, width=size, encoding="mono8", step=size)
            if size == FULL_HD:
                msg.height, msg.width, msg.encoding, msg.step = 1080, 1920, "rgb8", 5760
            msg.header.frame_id = str(i)
            msg.data = frame(buf, i)
        due = (i - 1) * period
        pause = start + due - time.monotonic()
        if pause > 0:
            rclpy.spin_once(node, timeout_sec=pause)
            # spin_once returns early when there is work: wait out the rest
            time.sleep(max(0.0, start + due - time.monotonic()))
        if msg_type is Image:
            stamp = start_rt + int(due * 1e9)
            msg.header.stamp.sec, msg.header.stamp.nanosec = divmod(stamp, 1_000_000_000)
        pub.publish(msg)
        say(f"SENT seq={i}")
    say(f"DONE sent={count} {usage_words(before)}")
    spin_until(node, lambda: False)
    return 0


def subscribe(node, topic, spec, count):
    msg_type, size = kind_of(spec)
    buf = base(size) if size else None
    state = {"n": 0, "exact": 0, "last": 0, "in_order": 1, "first": None}

    def got(msg):
        now = time.time_ns()
        if msg_type is String:
            seq = int(msg.data.split()[-1]) if msg.data.startswith("netns ") else -1
            exact, length, lat = int(msg.data == f"netns {seq}"), len(msg.data), 0
        else:
            seq = int(msg.header.frame_id) if msg.header.frame_id.isdigit() else -1
            data = msg.data.tobytes() if hasattr(msg.data, "tobytes") else bytes(msg.data)
            exact, length = int(seq > 0 and data == frame(buf, seq)), len(data)
            stamp = msg.header.stamp.sec * 1_000_000_000 + msg.header.stamp.nanosec
            lat = (now - stamp) // 1000
        if state["first"] is None:
            state["first"] = usage()
        state["n"] += 1
        state["exact"] += exact
        if seq != state["last"] + 1:
            state["in_order"] = 0
        state["last"] = seq
        say(f"RECV seq={seq} bytes={length} exact={exact} lat_us={lat}")

    node.create_subscription(msg_type, topic, got, qos())
    say("READY")
    ok = spin_until(node, lambda: state["n"] >= count)
    used = usage_words(state["first"] or usage())
    say(
        f"DONE received={state['n']} exact={state['exact']} "
        f"in_order={state['in_order']} {used}"
    )
    return 0 if ok else 2


def graph(node):
    shown, me = None, node.get_name()
    end = time.monotonic() + TIMEOUT
    while time.monotonic() < end:
        rclpy.spin_once(node, timeout_sec=0.1)
        names = sorted(n for n, _ in node.get_node_names_and_namespaces() if n != me)
        if names != shown:
            shown = names
            say("NODES " + ",".join(names))
    return 0


def main(argv):
    role = argv[1]
    rclpy.init()
    node = Node(os.environ.get("NETNS_PEER_NAME", f"netns_rclpy_{role}"))
    try:
        if role == "pub":
            return publish(node, argv[2], argv[3], int(argv[4]), float(argv[5]))
        if role == "sub":
            return subscribe(node, argv[2], argv[3], int(argv[4]))
        return graph(node)
    finally:
        node.destroy_node()
        rclpy.try_shutdown()


if __name__ == "__main__":
    sys.exit(main(sys.argv))

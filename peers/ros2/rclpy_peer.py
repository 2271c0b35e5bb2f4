"""An rclpy peer (ROS 2 from the PyPI wheels, rmw_fastrtps_cpp): the ROS 2 side
of the network-namespace tests (crates/hibari-dds/tests/netns_dds.rs) and of
`hibari bench dds` (crates/hibari-bench/src/dds.rs).

Speaks the same line protocol as the hibari peers (the tests'
crates/hibari-dds/tests/netns/peer.rs, the bench's
crates/hibari-bench/src/dds/peer.rs), one line per event on stdout,
`KEY key=value ...`:

    pub   TOPIC KIND COUNT HZ   READY, MATCHED, SENT seq=i call_ns=c (each: c is
                                how long publish() took), DONE sent=n
                                cpu_ns=c vcsw=v ivcsw=i; then stays (publishing
                                nothing) until killed or its timeout, so late
                                repairs still happen.
    sub   TOPIC KIND COUNT      READY, RECV seq=i bytes=n exact=0|1 lat_us=t,
                                DONE received=n exact=n in_order=0|1 cpu_ns=c
                                vcsw=v ivcsw=i
    both  TOPIC KIND COUNT HZ   one process, one context, two nodes (a publisher's
                                and a subscriber's) served by one executor on one
                                thread: READY, MATCHED, SENT and RECV lines, DONE
                                received=n exact=n in_order=0|1 sent=n cpu_ns=c
                                vcsw=v ivcsw=i (the whole process, from MATCHED).
                                rclpy has no intra-process path: the sample goes
                                through Fast DDS.
    graph NODE                  NODES a,b,... whenever the set of other
                                nodes in the graph changes

KIND is `string` (std_msgs/String "netns <i>"), `image[:BYTES]`
(sensor_msgs/Image, rgb8 1920x1080 = 6,220,800 bytes unless BYTES is given,
then mono8 BYTES x 1), `image:WxH` (rgb8 W x H) or `laser:N`
(sensor_msgs/LaserScan, N ranges: the bytes of the image pattern below as
floats, rotated by i * 7919 places; no intensities). The native peer
(rcl_peer.c, kinds.h) speaks the same kinds and also `jpeg:WxH:Q`. Image i is built before its due time
start + (i - 1) / HZ, stamped with that due time (CLOCK_REALTIME) and
published at it, so a late publisher shows as latency. It carries frame_id
"<i>" and the pixels of `frame(i)`: a fixed pseudo-random buffer rotated by
i * 7919 bytes, so a byte of another image, or a misplaced fragment, fails the
exact comparison. QoS: reliable, keep all, volatile. Usage (CPU, voluntary
and involuntary context switches, getrusage of the process) runs from MATCHED
to DONE for the publisher and from the first sample to DONE for the
subscriber.

Environment: ROS_DOMAIN_ID; NETNS_PEER_NAME (the node's name, default
netns_rclpy_<role>); NETNS_PEER_CHECK=0: the subscriber compares no bytes
(exact=0; E5's "the subscriber does nothing"); NETNS_PEER_TIMEOUT (seconds, default 60) bounds
every wait; the process exits 0 after DONE, 2 when it timed out.
"""

import array
import math
import os
import resource
import sys
import time

import rclpy
import rclpy.executors
from rclpy.node import Node
from rclpy.qos import HistoryPolicy, QoSProfile, ReliabilityPolicy
from sensor_msgs.msg import Image, LaserScan
from std_msgs.msg import String

TIMEOUT = float(os.environ.get("NETNS_PEER_TIMEOUT", "60"))
CHECK = os.environ.get("NETNS_PEER_CHECK", "1") != "0"
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


class Kind:
    """A KIND argument: the message type, its payload and how message i looks."""

    def __init__(self, spec):
        name, _, arg = spec.partition(":")
        self.type, self.dims, self.size = String, None, 0
        if name == "image" and "x" in arg:
            w, h = (int(v) for v in arg.split("x"))
            self.type, self.dims, self.size = Image, (w, h, "rgb8", w * 3), w * h * 3
        elif name == "image":
            size = int(arg) if arg else FULL_HD
            dims = (1920, 1080, "rgb8", 5760) if not arg else (size, 1, "mono8", size)
            self.type, self.dims, self.size = Image, dims, size
        elif name == "laser":
            self.type, self.size = LaserScan, int(arg)
        elif name != "string":
            raise SystemExit(f"rclpy_peer: not a kind: {spec}")
        if not 0 <= self.size <= 256 << 20:
            raise SystemExit(f"rclpy_peer: {spec}: payload over 256 MiB")
        self.buf = base(self.size) if self.size else None
        if self.type is LaserScan:
            self.buf = array.array("f", (float(b) for b in self.buf))

    def message(self, i):
        if self.type is String:
            return String(data=f"netns {i}")
        if self.type is LaserScan:
            msg = LaserScan(angle_min=-math.pi, angle_max=math.pi, range_max=100.0)
            msg.angle_increment = 2 * math.pi / max(1, self.size)
            msg.ranges = frame(self.buf, i)
        else:
            w, h, encoding, step = self.dims
            msg = Image(height=h, width=w, encoding=encoding, step=step)
            msg.data = frame(self.buf, i)
        msg.header.frame_id = str(i)
        return msg

    def check(self, msg):
        """(seq, payload bytes, exact, stamp_ns) of a received message."""
        if self.type is String:
            seq = int(msg.data.split()[-1]) if msg.data.startswith("netns ") else -1
            return seq, len(msg.data), int(msg.data == f"netns {seq}"), None
        seq = int(msg.header.frame_id) if msg.header.frame_id.isdigit() else -1
        data = msg.ranges if self.type is LaserScan else msg.data
        if not CHECK:
            length, exact = len(data) * (4 if self.type is LaserScan else 1), 0
        elif self.type is LaserScan:
            length = len(data) * 4
            exact = int(seq > 0 and len(data) == self.size and data == frame(self.buf, seq))
        else:
            data = data.tobytes() if hasattr(data, "tobytes") else bytes(data)
            length = len(data)
            exact = int(seq > 0 and data == frame(self.buf, seq))
        stamp = msg.header.stamp.sec * 1_000_000_000 + msg.header.stamp.nanosec
        return seq, length, exact, stamp


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


def spinner(node):
    """spin(timeout_sec): serve NODE's work for up to that long."""
    return lambda timeout_sec: rclpy.spin_once(node, timeout_sec=timeout_sec)


def spin_until(spin, done):
    end = time.monotonic() + TIMEOUT
    while not done():
        if time.monotonic() > end:
            return False
        spin(0.05)
    return True


def wait_for_match(spin, pub):
    if not spin_until(spin, lambda: pub.get_subscription_count() > 0):
        say("TIMEOUT waiting for a subscriber")
        return False
    say("MATCHED")
    return True


def send(spin, pub, kind, count, hz):
    """Publishes COUNT messages of KIND at HZ, spinning between them."""
    period, start, start_rt = 1.0 / hz, time.monotonic(), time.time_ns()
    for i in range(1, count + 1):
        msg = kind.message(i)
        due = (i - 1) * period
        pause = start + due - time.monotonic()
        while pause > 0:
            spin(pause)
            # spin_once returns early when there is work: wait out the rest
            pause = start + due - time.monotonic()
        if kind.type is not String:
            stamp = start_rt + int(due * 1e9)
            msg.header.stamp.sec, msg.header.stamp.nanosec = divmod(stamp, 1_000_000_000)
        call = time.perf_counter_ns()
        pub.publish(msg)
        say(f"SENT seq={i} call_ns={time.perf_counter_ns() - call}")


def publish(node, topic, spec, count, hz):
    kind = Kind(spec)
    pub = node.create_publisher(kind.type, topic, qos())
    say("READY")
    spin = spinner(node)
    if not wait_for_match(spin, pub):
        return 2
    before = usage()
    send(spin, pub, kind, count, hz)
    say(f"DONE sent={count} {usage_words(before)}")
    spin_until(spin, lambda: False)
    return 0


class Taker:
    """A subscription of KIND on NODE that says RECV for every sample."""

    def __init__(self, node, topic, kind):
        self.kind, self.n, self.exact, self.last, self.in_order = kind, 0, 0, 0, 1
        self.first = None
        node.create_subscription(kind.type, topic, self.got, qos())

    def got(self, msg):
        now = time.time_ns()
        seq, length, exact, stamp = self.kind.check(msg)
        lat = 0 if stamp is None else (now - stamp) // 1000
        if self.first is None:
            self.first = usage()
        self.n += 1
        self.exact += exact
        if seq != self.last + 1:
            self.in_order = 0
        self.last = seq
        say(f"RECV seq={seq} bytes={length} exact={exact} lat_us={lat}")

    def summary(self):
        return f"received={self.n} exact={self.exact} in_order={self.in_order}"


def subscribe(node, topic, spec, count):
    taker = Taker(node, topic, Kind(spec))
    say("READY")
    ok = spin_until(spinner(node), lambda: taker.n >= count)
    say(f"DONE {taker.summary()} {usage_words(taker.first or usage())}")
    return 0 if ok else 2


def both(node, topic, spec, count, hz):
    kind = Kind(spec)
    sub_node = Node(node.get_name() + "_sub")
    executor = rclpy.executors.SingleThreadedExecutor()
    executor.add_node(node)
    executor.add_node(sub_node)
    taker = Taker(sub_node, topic, kind)
    pub = node.create_publisher(kind.type, topic, qos())
    say("READY")
    spin = executor.spin_once
    try:
        if not wait_for_match(spin, pub):
            return 2
        before = usage()
        send(spin, pub, kind, count, hz)
        ok = spin_until(spin, lambda: taker.n >= count)
        say(f"DONE {taker.summary()} sent={count} {usage_words(before)}")
        return 0 if ok else 2
    finally:
        executor.shutdown()
        sub_node.destroy_node()


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
        if role == "both":
            return both(node, argv[2], argv[3], int(argv[4]), float(argv[5]))
        return graph(node)
    finally:
        node.destroy_node()
        rclpy.try_shutdown()


if __name__ == "__main__":
    sys.exit(main(sys.argv))

#!/usr/bin/python3
"""pub.py: the rospy twin of ros1_pub (src/pub.cpp) for E4's Python-vs-native comparison.

Same options, same open-loop schedule (message i is due at t0 + i/rate on CLOCK_REALTIME; late
messages go at once, none is skipped or re-timed), same JSON line on stdout. rospy writes its own
publish counter into header.seq starting at 1, so this publisher reports "seq_base": 1 and the
subscriber must be told --seq-base 1. --sync publishes with queue_size=None (the socket write
happens inside publish()); otherwise queue_size=--queue hands the write to rospy's thread.

Run it with Debian's /usr/bin/python3: rospy exists only there.
"""
import argparse
import json
import os
import signal
import struct
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402


def parse():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--type", default="laser", choices=["laser", "image", "bytes"])
    p.add_argument("--topic", default="/hibari_bench")
    p.add_argument("--rate", type=float, default=100.0)
    p.add_argument("--count", type=int, default=200)
    p.add_argument("--warmup", type=int, default=20)
    p.add_argument("--ranges", type=int, default=1000)
    p.add_argument("--width", type=int, default=640)
    p.add_argument("--height", type=int, default=480)
    p.add_argument("--size", type=int, default=1024)
    p.add_argument("--queue", type=int, default=1000)
    p.add_argument("--sync", action="store_true", help="queue_size=None")
    p.add_argument("--subs", type=int, default=1)
    p.add_argument("--wait", type=float, default=30.0)
    p.add_argument("--settle", type=float, default=0.5)
    p.add_argument("--linger", type=float, default=10.0)
    args, _ = p.parse_known_args()  # ROS remappings pass through
    if args.rate <= 0 or args.count <= 0 or args.warmup < 0:
        p.error("--rate and --count must be > 0, --warmup >= 0")
    return args


def build(a):
    """The message and a fill(msg, i, intended_ns) that stamps (and for images copies a frame)."""
    import rospy
    cls = common.msg_class(a.type)
    m = cls()
    if a.type == "laser":
        n = a.ranges
        m.header.frame_id = "laser"
        m.angle_min, m.angle_max = -3.14159, 3.14159
        m.angle_increment = (m.angle_max - m.angle_min) / (n - 1) if n > 1 else 0.0
        m.scan_time = 1.0 / a.rate
        m.range_min, m.range_max = 0.1, 30.0
        m.ranges = [1.0 + (k % 1000) * 0.01 for k in range(n)]

        def fill(msg, i, t):
            msg.header.stamp = rospy.Time(t // 1_000_000_000, t % 1_000_000_000)
    elif a.type == "image":
        m.header.frame_id = "camera"
        m.width, m.height, m.encoding, m.is_bigendian, m.step = a.width, a.height, "rgb8", 0, a.width * 3
        size = a.width * a.height * 3
        base = bytes(range(256)) * (size // 256 + 1)
        frames = [base[f * 37 % 256:][:size] for f in range(4)]
        m.data = frames[0]

        def fill(msg, i, t):
            msg.header.stamp = rospy.Time(t // 1_000_000_000, t % 1_000_000_000)
            msg.data = bytes(memoryview(frames[i % 4]))  # a copy per frame, like ros1_pub's memcpy
    else:
        size = max(16, a.size)
        rest = bytes((k * 31) & 0xFF for k in range(16, size))
        m.data = bytes(16) + rest

        def fill(msg, i, t):
            msg.data = struct.pack("<qq", t, i) + rest
    return cls, m, fill


def main():
    a = parse()
    import rospy
    stop = []
    rospy.init_node("ros1_pub_py", anonymous=True, disable_signals=True)
    signal.signal(signal.SIGINT, lambda *_: stop.append(1))
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    cls, msg, fill = build(a)
    pub = rospy.Publisher(a.topic, cls, queue_size=None if a.sync else a.queue)
    wait_end = time.monotonic() + a.wait
    while pub.get_num_connections() < a.subs and not stop:
        if time.monotonic() > wait_end:
            print(json.dumps({"role": "pub", "error": "no subscriber within --wait"}), flush=True)
            return 2
        time.sleep(0.01)
    time.sleep(a.settle)

    period = int(1e9 / a.rate)
    call_us, late_us = [], []
    u0 = common.Usage()
    t0 = time.time_ns() + period
    sent = 0
    for i in range(a.warmup + a.count):
        if stop:
            break
        intended = t0 + i * period
        delay = intended - time.time_ns()
        if delay > 0:
            time.sleep(delay / 1e9)
        if i == a.warmup:
            u0 = common.Usage()
        late = (time.time_ns() - intended) / 1e3
        fill(msg, i, intended)
        t_a = time.perf_counter_ns()
        pub.publish(msg)
        t_b = time.perf_counter_ns()
        if i >= a.warmup:
            call_us.append((t_b - t_a) / 1e3)
            late_us.append(late)
            sent += 1
    u1 = common.Usage()

    linger_end = time.monotonic() + a.linger
    while pub.get_num_connections() > 0 and time.monotonic() < linger_end and not stop:
        time.sleep(0.01)

    out = {"role": "pub", "lang": "python", "type": a.type, "topic": a.topic,
           "size_bytes": common.serialized_len(msg), "rate_hz": a.rate, "warmup": a.warmup,
           "sent": sent, "seq_base": 0 if a.type == "bytes" else 1,
           "queue": None if a.sync else a.queue}
    out.update(common.stats("publish_", call_us))
    out.update(common.stats("late_", late_us))
    out.update(common.Usage.window(u0, u1))
    print(json.dumps(out), flush=True)
    rospy.signal_shutdown("done")
    return 0 if sent == a.count else 3


if __name__ == "__main__":
    sys.exit(main())

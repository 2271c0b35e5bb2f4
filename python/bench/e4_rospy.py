#!/usr/bin/python3
"""E4's rospy series: publish-call time and end-to-end latency of a
``sensor_msgs/Image`` with rospy (ROS 1, TCPROS), for ``bench/e4.py``.

    /usr/bin/python3 python/bench/e4_rospy.py [--sizes 1024,6220800] [--iterations N] [--records]

Run it with the system python3 that has rospy (Debian's ros-core); it starts
a private roscore on a free port (or uses $ROS_MASTER_URI when that answers)
and stops what it started (``peers/ros1/run.py``'s ``Master``; set
HIBARI_ROS1_KEEP_HOME=1 to keep its ROS_HOME, with the subscriber's child.log). The same workload as e4.py's two-process set-up:
a frame of ``size`` bytes held by the application as a numpy array (a
``bytes`` object where numpy is missing); each iteration converts it to the
``bytes`` rospy wants (``tobytes()``, the copy an application makes) and
calls ``publish`` with the header stamped (CLOCK_REALTIME) — that is the
publish call timed; a subscriber process (this script, ``--child``) stamps
the reception in its callback and acknowledges each message with a byte on a
pipe, so the loop is closed. ``queue_size=None`` (the socket write happens
in ``publish``) and ``tcp_nodelay``. Prints a table, and with ``--records``
one ``RECORD {json}`` line per series (system ``ros1``, transport
``tcpros``).
"""

import argparse
import json
import math
import os
import resource
import shutil
import subprocess
import sys
import time

from placement import pin

# The ROS 1 peer's driver owns the roscore lifecycle (the bench's ROS 1 cells use it too).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "peers", "ros1"))
from run import Master  # noqa: E402

SIZES = [1024, 65536, 1048576, 4194304, 6220800]


def iterations(size):
    return max(30, min(1000, 100_000_000 // size))


def stats(values):
    v = sorted(values)
    n = len(v)
    if n == 0:
        return {k: 0.0 for k in ("p50_us", "p90_us", "p99_us", "p999_us", "max_us", "mean_us", "stddev_us")}
    rank = lambda p: v[max(1, math.ceil(p / 100.0 * n)) - 1]  # noqa: E731
    mean = sum(v) / n
    return {"count": n, "p50_us": rank(50), "p90_us": rank(90), "p99_us": rank(99), "p999_us": rank(99.9),
            "max_us": v[-1], "mean_us": mean, "stddev_us": math.sqrt(sum((x - mean) ** 2 for x in v) / n)}


def ctx_switches():
    ru = resource.getrusage(resource.RUSAGE_SELF)
    return ru.ru_nvcsw + ru.ru_nivcsw


def child(count, topic, out):
    """The subscriber process: latency per message, an ack byte each on the
    pipe ``out`` (not stdout, where rospy may log)."""
    import rospy
    from sensor_msgs.msg import Image

    pin(1)
    rospy.init_node("e4_rospy_sub", anonymous=True, disable_signals=True)
    e2e = []
    state = {"cpu0": None, "cs0": None, "seq": -1}

    def callback(msg):
        now = time.time_ns()
        # rospy may connect a subscriber to a publisher twice (a known race of
        # its publisherUpdate): count each message once, by its header.seq.
        if msg.header.seq <= state["seq"]:
            return
        state["seq"] = msg.header.seq
        if state["cpu0"] is None:
            state["cpu0"], state["cs0"] = time.process_time(), ctx_switches()
        msg.data[:1]
        e2e.append((now - msg.header.stamp.to_nsec()) / 1e3)
        os.write(out, b".")

    rospy.Subscriber(topic, Image, callback, queue_size=10, tcp_nodelay=True)
    os.write(out, b"ready\n")
    deadline = time.monotonic() + 120
    while len(e2e) < count and time.monotonic() < deadline:
        time.sleep(0.01)
    cpu = time.process_time() - (state["cpu0"] or 0.0)
    os.write(out, (json.dumps({"e2e_us": e2e, "cpu_s": cpu, "ctx_switches": ctx_switches() - (state["cs0"] or 0)})
                 + "\n").encode())
    rospy.signal_shutdown("done")
    os._exit(0)


def frame_of(size):
    try:
        import numpy as np

        return np.full(size, 7, dtype=np.uint8)
    except ImportError:
        return bytes([7]) * size


def run(size, n, master, topic):
    import rospy
    from sensor_msgs.msg import Image

    warmup = n // 10 + 3
    count = warmup + n
    fd, w = os.pipe()
    proc = subprocess.Popen([sys.executable, __file__, "--child", str(count), topic, str(w)], pass_fds=(w,),
                            stdout=subprocess.DEVNULL, stderr=open(os.path.join(master.home, "child.log"), "w"),
                            env=master.env())
    os.close(w)
    ready = b""
    while not ready.endswith(b"\n"):
        byte = os.read(fd, 1)
        if not byte:
            raise SystemExit("the rospy subscriber did not start")
        ready += byte
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # queue_size=None is meant: the write happens in publish()
        pub = rospy.Publisher(topic, Image, queue_size=None, tcp_nodelay=True)
    deadline = time.monotonic() + 30
    while pub.get_num_connections() < 1:
        if time.monotonic() > deadline:
            raise SystemExit("the rospy subscriber did not connect")
        time.sleep(0.01)
    time.sleep(0.3)
    frame = frame_of(size)
    msg = Image(height=1, width=size, encoding="mono8", is_bigendian=0, step=size)
    publish = []
    cpu0, cs0, wall = time.process_time(), ctx_switches(), time.perf_counter()
    for i in range(count):
        t0 = time.perf_counter_ns()
        msg.data = frame.tobytes() if hasattr(frame, "tobytes") else bytes(frame)
        msg.header.stamp = rospy.Time(*divmod(time.time_ns(), 1_000_000_000))
        pub.publish(msg)
        t1 = time.perf_counter_ns()
        ack = os.read(fd, 1)
        if ack != b".":
            raise SystemExit(f"the rospy subscriber stopped (read {ack!r}, exit {proc.poll()})")
        if i >= warmup:
            publish.append((t1 - t0) / 1e3)
    cpu, cs, secs = time.process_time() - cpu0, ctx_switches() - cs0, time.perf_counter() - wall
    tail = b""
    while not tail.endswith(b"\n"):
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            break
        tail += chunk
    proc.wait(30)
    os.close(fd)
    pub.unregister()
    sub = json.loads(tail)
    return {"publish_us": publish, "e2e_us": sub["e2e_us"][warmup:], "cpu_pub_s": cpu, "cpu_sub_s": sub["cpu_s"],
            "ctx_switches": cs + sub["ctx_switches"], "duration_s": secs}


def record(series, size, what):
    values = series["e2e_us"] if what == "e2e" else series["publish_us"]
    sent = len(series["publish_us"])
    rec = {"experiment": "e4-python", "system": "ros1", "transport": "tcpros", "language": "python",
           "size_bytes": size, "rate_hz": 0.0, "sent": sent, "received": len(series["e2e_us"]),
           "lost": max(0, sent - len(series["e2e_us"]))}
    rec.update(stats(values))
    rec.update({"cpu_pub_s": round(series["cpu_pub_s"], 4), "cpu_sub_s": round(series["cpu_sub_s"], 4),
                "ctx_switches": int(series["ctx_switches"]), "published": False, "rep": 0,
                "setup": "two processes, reliable" + (", publish call" if what == "publish" else ""),
                "note": ("rospy publish-call time (tobytes + publish, queue_size=None)" if what == "publish"
                         else "rospy end-to-end latency, closed loop, tcp_nodelay")
                + f"; CPUs pub,sub {os.environ.get('HIBARI_E4_CPUS') or 'free'}",
                "duration_s": round(series["duration_s"], 4)})
    return rec


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default=",".join(map(str, SIZES)))
    ap.add_argument("--iterations", type=int, default=None)
    ap.add_argument("--records", action="store_true")
    ap.add_argument("--child", nargs=3, metavar=("COUNT", "TOPIC", "FD"), help=argparse.SUPPRESS)
    args, _ = ap.parse_known_args()
    if args.child:
        child(int(args.child[0]), args.child[1], int(args.child[2]))
        return
    pin(0)
    if shutil.which("roscore") is None:
        raise SystemExit("roscore is not on PATH (Debian package ros-core)")
    master = Master()
    try:
        os.environ.update(master.env())
        import rospy

        rospy.init_node("e4_rospy_pub", anonymous=True, disable_signals=True)
        records = []
        for size in [int(s) for s in args.sizes.split(",")]:
            series = run(size, args.iterations or iterations(size), master, f"/e4_rospy_{os.getpid()}_{size}")
            for what in ("publish", "e2e"):
                rec = record(series, size, what)
                records.append(rec)
                if args.records:
                    print("RECORD " + json.dumps(rec), flush=True)
        print(f"| {'setup':40} | {'bytes':>8} | {'p50 µs':>9} | {'mean µs':>9} | {'p99 µs':>9} |")
        for r in records:
            print(f"| {r['setup']:40} | {r['size_bytes']:8d} | {r['p50_us']:9.1f} | {r['mean_us']:9.1f} | "
                  f"{r['p99_us']:9.1f} |")
        rospy.signal_shutdown("done")
    finally:
        master.stop()


if __name__ == "__main__":
    main()

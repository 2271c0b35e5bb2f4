#!/usr/bin/python3
"""sub.py: the rospy twin of ros1_sub (src/sub.cpp): same options, CSV and JSON line.

rospy runs each subscription's callback in the thread that reads its socket, so the receive time
is taken there. --tcp-nodelay passes tcp_nodelay=True; --queue is the subscriber's queue_size.
Run it with Debian's /usr/bin/python3.
"""
import argparse
import json
import os
import signal
import struct
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402


def parse():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--type", default="laser", choices=["laser", "image", "bytes"])
    p.add_argument("--topic", default="/hibari_bench")
    p.add_argument("--count", type=int, default=200)
    p.add_argument("--warmup", type=int, default=20)
    p.add_argument("--rate", type=float, default=0.0)
    p.add_argument("--tcp-nodelay", action="store_true")
    p.add_argument("--queue", type=int, default=1000)
    p.add_argument("--seq-base", type=int, default=0)
    p.add_argument("--csv", default="")
    p.add_argument("--idle", type=float, default=5.0)
    p.add_argument("--timeout", type=float, default=600.0)
    a, _ = p.parse_known_args()
    if a.count <= 0 or a.warmup < 0:
        p.error("--count must be > 0, --warmup >= 0")
    return a


def main():
    a = parse()
    import rospy
    rospy.init_node("ros1_sub_py", anonymous=True, disable_signals=True)
    stop = threading.Event()
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    st = {"recs": [], "seen": bytearray(a.count), "dups": 0, "ooo": 0, "last": -1,
          "warm": 0, "ignored": 0, "last_rx": 0, "size": -1, "u0": None}
    lock = threading.Lock()
    done = threading.Event()
    total = a.warmup + a.count

    def on_msg(m):
        rx = time.time_ns()
        if a.type == "bytes":
            data = m.data
            t, idx = struct.unpack_from("<qq", data, 0) if len(data) >= 16 else (0, -1)
        else:
            t, idx = m.header.stamp.to_nsec(), m.header.seq - a.seq_base
        with lock:
            st["last_rx"] = time.monotonic_ns()
            if st["size"] < 0:
                st["size"] = common.serialized_len(m)
            if idx < 0 or idx >= total:
                st["ignored"] += 1
                return
            if idx < a.warmup:
                st["warm"] += 1
                return
            if st["u0"] is None:
                st["u0"] = common.Usage()
            seq = idx - a.warmup
            if st["seen"][seq]:
                st["dups"] += 1
                return
            st["seen"][seq] = 1
            if seq < st["last"]:
                st["ooo"] += 1
            st["last"] = max(st["last"], seq)
            st["recs"].append((seq, t, rx))
            if idx == total - 1:
                done.set()

    sub = rospy.Subscriber(a.topic, common.msg_class(a.type), on_msg, queue_size=a.queue,
                           tcp_nodelay=a.tcp_nodelay, buff_size=65536)
    start = time.monotonic_ns()
    ended = "last"
    while not done.is_set():
        now = time.monotonic_ns()
        if stop.is_set() or rospy.is_shutdown():
            ended = "signal"
            break
        if st["last_rx"] and now - st["last_rx"] > a.idle * 1e9:
            ended = "idle"
            break
        if now - start > a.timeout * 1e9:
            ended = "timeout"
            break
        done.wait(0.05)
    u1 = common.Usage()
    sub.unregister()
    with lock:
        recs = list(st["recs"])
    lat = [(rx - t) / 1e3 for _, t, rx in recs]
    gap = 0.2e9 / a.rate if a.rate > 0 else 0
    bunched = sum(1 for i in range(1, len(recs)) if recs[i][2] - recs[i - 1][2] < gap)
    if a.csv:
        with open(a.csv, "w") as f:
            f.write("seq,intended_ns,recv_ns,latency_us\n")
            for (seq, t, rx), l in zip(recs, lat):
                f.write(f"{seq},{t},{rx},{l}\n")
    out = {"role": "sub", "lang": "python", "type": a.type, "topic": a.topic,
           "tcp_nodelay": a.tcp_nodelay, "size_bytes": st["size"], "expected": a.count,
           "received": len(recs), "lost": a.count - len(recs), "duplicates": st["dups"],
           "out_of_order": st["ooo"], "warmup_received": st["warm"], "ignored": st["ignored"],
           "over_5ms": sum(1 for l in lat if l > 5000.0),
           "bunched_pct": 100.0 * bunched / (len(recs) - 1) if len(recs) > 1 and gap else 0.0,
           "ended": ended}
    out.update(common.stats("", lat))
    out.update(common.Usage.window(st["u0"] or u1, u1))
    print(json.dumps(out), flush=True)
    rospy.signal_shutdown("done")
    return 0 if recs else 4


if __name__ == "__main__":
    sys.exit(main())

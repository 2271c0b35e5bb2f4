"""E4 (shared/EXPERIMENTS.md): Python vs Rust — publish-call time and
end-to-end latency of a ``sensor_msgs/Image`` from 1 KB to a 1080p frame, in
one process and between two, reliable and best effort; and rospy's, with
``bench/e4_rospy.py`` (run by the system python3 that has rospy).

    python bench/e4.py                                  # everything, a table
    python bench/e4.py --sizes 1024,6220800 --setups shm --qos reliable
    python bench/e4.py --records                        # + one RECORD {json} line per series
    python bench/e4.py --rust /path/to/e4_rust          # default: $CARGO_TARGET_DIR/release/examples/e4_rust
    python bench/e4.py --no-rospy
    python bench/e4.py --placement cross           # publisher on CPU 0, subscriber on CPU 1 (default: both on 0)

What is timed (the Rust twin, python/rust/examples/e4_rust.rs, does the
same): the message holds the application's pixels (a numpy array here, a
``Vec`` built by ``clone()`` there); "publish" is the publish call (and, in
Rust, the clone); "e2e" runs from just before the publish to the first clock reading in
the subscription callback, whose message's ``data`` is a read-only numpy
view of the received bytes. Closed loop: the next message goes after the
callback ran. ``inproc`` (one process): an isolated context, an executor
spinning on its own thread. ``shm`` (two processes): the subscriber is
another process (``e4.py --child``, or ``e4_rust sub`` with a view
subscription, which reads the frame in place as the numpy view does) that
stamps each reception against ``header.stamp`` (CLOCK_REALTIME) and
acknowledges it with a byte on a pipe. ``loan`` (Python): ``pub.loan_image`` then
``np.copyto(loan.array, frame)`` (the one copy, into the memory the transport
carries) and ``publish(loan)``, and in Rust ``loan_message`` + a copy of the
pixels into the hole; plain ``publish(msg)`` in Python copies the numpy
frame once (into shared memory when another process listens), Rust's
``publish(image)`` after ``clone()`` copies twice between processes. The
table compares each Python series with the Rust series of the same
transport, set-up and size. Times in µs.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import select
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, Dict, List, Optional

import numpy as np

from placement import PLACEMENTS, pin

SIZES = [1024, 65536, 1048576, 4194304, 6220800]
HERE = Path(__file__).resolve().parent


def iterations(size: int) -> int:
    return max(100, min(2000, 500_000_000 // size))


def stats(values: List[float]) -> Dict[str, float]:
    """Nearest-rank percentiles, as hibari-bench's records have them."""
    v = np.sort(np.asarray(values, dtype=float))
    if len(v) == 0:
        return {k: 0.0 for k in ("p50_us", "p90_us", "p99_us", "p999_us", "max_us", "mean_us", "stddev_us")} | {"count": 0}
    rank = lambda p: float(v[max(1, int(np.ceil(p / 100 * len(v)))) - 1])  # noqa: E731
    return {"count": int(len(v)), "p50_us": rank(50), "p90_us": rank(90), "p99_us": rank(99),
            "p999_us": rank(99.9), "max_us": float(v[-1]), "mean_us": float(v.mean()),
            "stddev_us": float(v.std())}


def ctx_switches() -> int:
    import resource

    ru = resource.getrusage(resource.RUSAGE_SELF)
    return ru.ru_nvcsw + ru.ru_nivcsw


def qos_of(name: str) -> Any:
    import hibari

    reliability = hibari.ReliabilityPolicy.RELIABLE if name == "reliable" else hibari.ReliabilityPolicy.BEST_EFFORT
    return hibari.QoSProfile(depth=10, reliability=reliability)


def frame_of(size: int) -> np.ndarray:
    return np.full(size, 7, dtype=np.uint8)


def stamp(msg: Any, ns: int) -> None:
    msg.header.stamp.sec, msg.header.stamp.nanosec = divmod(ns, 1_000_000_000)


def run_python_inproc(size: int, qos: str, variant: str, n: int) -> Dict[str, Any]:
    import hibari
    from hibari.msg.sensor_msgs import Image

    context = hibari.Context([], isolated=True)
    node = hibari.Node("e4", context=context)
    arrived = threading.Event()
    when = [0]

    def callback(msg: Any) -> None:
        when[0] = time.perf_counter_ns()
        msg.data[0]  # the view is there
        arrived.set()

    node.create_subscription(Image, "/e4", callback, qos_of(qos))
    pub = node.create_publisher(Image, "/e4", qos_of(qos))
    executor = hibari.SingleThreadedExecutor()
    executor.add_node(node)
    def spin() -> None:
        pin(1)  # the subscribing side's CPU
        executor.spin()

    spinner = threading.Thread(target=spin, daemon=True)
    spinner.start()
    frame = frame_of(size)
    msg = Image(height=1, width=size, encoding="mono8", step=size, data=frame)
    publish, e2e = [], []
    warmup = n // 10 + 5
    cpu0, cs0, wall = time.process_time(), ctx_switches(), time.perf_counter()
    for i in range(warmup + n):
        t0 = time.perf_counter_ns()
        if variant == "loan":
            loan = pub.loan_image(1, size, "mono8")
            np.copyto(loan.data, frame)
            pub.publish(loan)
        else:
            pub.publish(msg)
        t1 = time.perf_counter_ns()
        if not arrived.wait(5.0):
            raise RuntimeError(f"no callback for size {size}")
        arrived.clear()
        if i >= warmup:
            publish.append((t1 - t0) / 1e3)
            e2e.append((when[0] - t0) / 1e3)
    cpu, cs, secs = time.process_time() - cpu0, ctx_switches() - cs0, time.perf_counter() - wall
    executor.shutdown()
    spinner.join(5.0)
    context.shutdown()
    return {"publish_us": publish, "e2e_us": e2e, "cpu_pub_s": cpu, "cpu_sub_s": 0.0,
            "ctx_switches": cs, "duration_s": secs}


def child(size: int, count: int, qos: str, topic: str) -> None:
    """The subscriber process of the ``shm`` set-up."""
    pin(1)
    import hibari
    from hibari.msg.sensor_msgs import Image

    node = hibari.Node("e4_sub", context=hibari.Context([]))
    e2e: List[float] = []
    done = threading.Event()

    def callback(msg: Any) -> None:
        now = time.time_ns()
        msg.data[0]
        e2e.append((now - (msg.header.stamp.sec * 1_000_000_000 + msg.header.stamp.nanosec)) / 1e3)
        os.write(1, b".")
        if len(e2e) >= count:
            done.set()

    node.create_subscription(Image, topic, callback, qos_of(qos))
    executor = hibari.SingleThreadedExecutor()
    executor.add_node(node)
    spinner = threading.Thread(target=executor.spin, daemon=True)
    spinner.start()
    os.write(1, b"ready\n")
    cpu0, cs0 = time.process_time(), ctx_switches()
    done.wait(60.0)
    os.write(1, (json.dumps({"e2e_us": e2e, "cpu_s": time.process_time() - cpu0,
                             "ctx_switches": ctx_switches() - cs0}) + "\n").encode())
    executor.shutdown()
    os._exit(0)


def run_python_shm(size: int, qos: str, variant: str, n: int, domain: int) -> Dict[str, Any]:
    import hibari
    from hibari.msg.sensor_msgs import Image

    topic = f"/e4_py_{os.getpid()}"
    warmup = n // 10 + 5
    count = warmup + n
    env = dict(os.environ, ROS_DOMAIN_ID=str(domain))
    proc = subprocess.Popen([sys.executable, __file__, "--child", str(size), str(count), qos, topic],
                            stdout=subprocess.PIPE, env=env)
    assert proc.stdout is not None
    try:
        fd = proc.stdout.fileno()
        if proc.stdout.readline().strip() != b"ready":
            raise RuntimeError("the subscriber process did not start")
        context = hibari.Context([], domain_id=domain)
        pub = hibari.Node("e4_pub", context=context).create_publisher(Image, topic, qos_of(qos))
        if not pub.wait_for_subscribers(1, 10.0):
            raise RuntimeError("the subscriber process did not match")
        frame = frame_of(size)
        msg = Image(height=1, width=size, encoding="mono8", step=size, data=frame)
        publish = []
        cpu0, cs0, wall = time.process_time(), ctx_switches(), time.perf_counter()
        for i in range(count):
            t0 = time.perf_counter_ns()
            if variant == "loan":
                ns = time.time_ns()
                loan = pub.loan_image(1, size, "mono8")
                np.copyto(loan.data, frame)
                stamp(loan.message, ns)
                pub.publish(loan)
            else:
                stamp(msg, time.time_ns())
                pub.publish(msg)
            t1 = time.perf_counter_ns()
            if _ack(fd) != b".":
                raise RuntimeError("the subscriber process stopped")
            if i >= warmup:
                publish.append((t1 - t0) / 1e3)
        cpu, cs, secs = time.process_time() - cpu0, ctx_switches() - cs0, time.perf_counter() - wall
        tail = b""
        while not tail.endswith(b"\n"):
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                break
            tail += chunk
        proc.wait(10.0)
        context.shutdown()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    sub = json.loads(tail)
    return {"publish_us": publish, "e2e_us": sub["e2e_us"][warmup:], "cpu_pub_s": cpu,
            "cpu_sub_s": sub["cpu_s"], "ctx_switches": cs + sub["ctx_switches"], "duration_s": secs}


def _ack(fd: int, timeout_s: float = 10.0) -> bytes:
    """The subscriber's one-byte acknowledgement, or an error when none comes
    (a sample lost under best effort must not hang the run)."""
    readable, _, _ = select.select([fd], [], [], timeout_s)
    if not readable:
        raise RuntimeError(f"no acknowledgement from the subscriber process within {timeout_s} s")
    return os.read(fd, 1)


def run_rust(binary: Path, sizes: List[int], mode: str, qos: str, domain: int,
             n: Optional[int], variant: str) -> List[Dict[str, Any]]:
    env = dict(os.environ, ROS_DOMAIN_ID=str(domain))
    cmd = [str(binary), "--sizes", ",".join(map(str, sizes)), "--mode", mode, "--qos", qos, "--variant", variant]
    cmd += ["--iterations", str(n)] if n else []
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=1800, check=True, env=env)
    return [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]


def record(series: Dict[str, Any], *, language: str, transport: str, setup: str, size: int,
           qos: str, what: str, note: str = "", system: str = "hibari") -> Dict[str, Any]:
    """One series in hibari-bench's record format."""
    values = series["e2e_us"] if what == "e2e" else series["publish_us"]
    sent = len(series["publish_us"]) if "publish_us" in series else len(values)
    rec: Dict[str, Any] = {
        "experiment": "e4-python", "system": system, "transport": transport, "language": language,
        "size_bytes": size, "rate_hz": 0.0, "sent": sent, "received": len(series["e2e_us"]),
        "lost": max(0, sent - len(series["e2e_us"])),
    }
    rec.update(stats(values))
    rec.update({
        "cpu_pub_s": round(series.get("cpu_pub_s", 0.0), 4), "cpu_sub_s": round(series.get("cpu_sub_s", 0.0), 4),
        "ctx_switches": int(series.get("ctx_switches", 0)), "published": False, "rep": 0,
        "setup": f"{setup}, {qos.replace('_', ' ')}" + (", publish call" if what == "publish" else ""),
        "note": ("publish-call time" if what == "publish" else "end-to-end latency, closed loop")
                + (f"; {note}" if note else "") + f"; CPUs pub,sub {os.environ.get('HIBARI_E4_CPUS') or 'free'}",
        "duration_s": round(series.get("duration_s", 0.0), 4),
    })
    return rec


def rospy_records(sizes: List[int], args: argparse.Namespace) -> List[Dict[str, Any]]:
    python = args.rospy_python
    if not (os.access(python, os.X_OK) and shutil.which("roscore")):
        print(f"(no rospy run: {python} or roscore missing)", file=sys.stderr)
        return []
    ok = subprocess.run([python, "-c", "import rospy"], capture_output=True)
    if ok.returncode != 0:
        print(f"(no rospy run: {python} cannot import rospy)", file=sys.stderr)
        return []
    cmd = [python, str(HERE / "e4_rospy.py"), "--sizes", ",".join(map(str, sizes)), "--records"]
    cmd += ["--iterations", str(args.iterations)] if args.iterations else []
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=3600)
    if out.returncode != 0:
        print(f"(rospy run failed: {out.stderr.strip()[-400:]})", file=sys.stderr)
    return [json.loads(line[len("RECORD "):]) for line in out.stdout.splitlines() if line.startswith("RECORD ")]


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("--sizes", default=",".join(map(str, SIZES)))
    ap.add_argument("--setups", default="inproc,shm", help="inproc (one process), shm (two processes)")
    ap.add_argument("--qos", default="reliable,best_effort")
    ap.add_argument("--iterations", type=int, default=None)
    ap.add_argument("--rust", type=Path, default=None)
    ap.add_argument("--no-rospy", action="store_true")
    ap.add_argument("--rospy-python", default="/usr/bin/python3")
    ap.add_argument("--records", action="store_true", help="print one RECORD {json} line per series")
    ap.add_argument("--json", type=Path, default=None)
    ap.add_argument("--placement", choices=sorted(PLACEMENTS), default="same",
                    help="publisher and subscriber on one CPU (same), on two (cross), or as the kernel likes (free)")
    ap.add_argument("--child", nargs=4, metavar=("SIZE", "COUNT", "QOS", "TOPIC"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(int(args.child[0]), int(args.child[1]), args.child[2], args.child[3])
        return
    os.environ["HIBARI_E4_CPUS"] = PLACEMENTS[args.placement]
    pin(0)
    sizes = [int(s) for s in args.sizes.split(",")]
    setups = args.setups.split(",")
    qoses = args.qos.split(",")
    rust = args.rust or Path(os.environ.get("CARGO_TARGET_DIR", HERE.parents[1] / "target")) \
        / "release" / "examples" / "e4_rust"
    domain = random.randrange(120, 220)
    n_of = (lambda s: args.iterations) if args.iterations else iterations

    records: List[Dict[str, Any]] = []

    def add(series: Dict[str, Any], **kw: Any) -> None:
        for what in ("publish", "e2e"):
            rec = record(series, what=what, **kw)
            records.append(rec)
            if args.records:
                print("RECORD " + json.dumps(rec), flush=True)

    for qos in qoses:
        for setup in setups:
            for size in sizes:
                for variant in ("publish", "loan"):
                    if setup == "inproc":
                        s = run_python_inproc(size, qos, variant, n_of(size))
                        kw = dict(transport="inproc", setup="one process")
                    else:
                        s = run_python_shm(size, qos, variant, n_of(size), domain)
                        kw = dict(transport="shm", setup="two processes")
                    if variant == "loan":
                        kw["transport"] += " loan"
                    add(s, language="python", size=size, qos=qos, **kw)  # type: ignore[arg-type]
            if rust.exists():
                mode = "thread" if setup == "inproc" else "procs"
                for variant in ("publish", "loan"):
                    for s in run_rust(rust, sizes, mode, qos, domain, args.iterations, variant):
                        base = "inproc" if setup == "inproc" else "shm"
                        add(s, language="rust", size=s["size"], qos=qos,
                            transport=base + (" loan" if variant == "loan" else ""),
                            setup="one process" if setup == "inproc" else "two processes",
                            note="" if setup == "inproc" else "view subscription (reads the frame in place)")
            else:
                print(f"(no Rust run: {rust} not built; scripts/python.sh builds it)", file=sys.stderr)
    if not args.no_rospy:
        for rec in rospy_records(sizes, args):
            records.append(rec)
            if args.records:
                print("RECORD " + json.dumps(rec), flush=True)
    table(records)
    summary(records)
    if args.json:
        machine = {"uname": " ".join(os.uname()), "cpus": os.cpu_count(), "python": sys.version.split()[0]}
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"machine": machine, "records": records}, indent=1))


def table(records: List[Dict[str, Any]]) -> None:
    """The terminal table: each series with its Rust twin's figure and the ratio."""
    def key(r: Dict[str, Any]) -> Any:
        return (r["transport"], r["setup"], r["size_bytes"])

    rust = {key(r): r for r in records if r["language"] == "rust" and r["system"] == "hibari"}
    print(f"| {'system':6} | {'lang':6} | {'transport':11} | {'setup':44} | {'bytes':>8} | {'p50 µs':>9} | "
          f"{'mean µs':>9} | {'p99 µs':>9} | {'rust mean':>9} | {'x rust':>6} |")
    print("|" + "|".join("-" * w for w in (8, 8, 13, 46, 10, 11, 11, 11, 11, 8)) + "|")
    for r in records:
        twin: Optional[Dict[str, Any]] = rust.get(key(r))
        rm = twin["mean_us"] if twin else float("nan")
        ratio = r["mean_us"] / rm if twin and rm > 0 else float("nan")
        print(f"| {r['system']:6} | {r['language']:6} | {r['transport']:11} | {r['setup']:44} | {r['size_bytes']:8d} | "
              f"{r['p50_us']:9.1f} | {r['mean_us']:9.1f} | {r['p99_us']:9.1f} | {rm:9.1f} | {ratio:6.2f} |")


def summary(records: List[Dict[str, Any]]) -> None:
    """End-to-end p50 per size: Python's best against Rust's best (publish or
    loan), and rospy against Python, per set-up and QoS."""
    def p50(system: str, language: str, transport: str, setup: str, size: int) -> Optional[float]:
        for r in records:
            if (r["system"], r["language"], r["transport"], r["setup"], r["size_bytes"]) == \
                    (system, language, transport, setup, size):
                return float(r["p50_us"])
        return None

    sizes = sorted({r["size_bytes"] for r in records})
    setups = sorted({r["setup"] for r in records if r["system"] == "hibari" and "publish call" not in r["setup"]})
    for setup in setups:
        base = "shm" if setup.startswith("two") else "inproc"
        print(f"\nend-to-end p50 µs, {setup}: | bytes | python | python loan | rust | rust loan | rospy | "
              "python/rust (best of each) | rospy/python |")
        for size in sizes:
            py = [p50("hibari", "python", t, setup, size) for t in (base, base + " loan")]
            rs = [p50("hibari", "rust", t, setup, size) for t in (base, base + " loan")]
            ros = p50("ros1", "python", "tcpros", setup, size)
            best_py = min((v for v in py if v), default=None)
            best_rs = min((v for v in rs if v), default=None)
            cell = lambda v: "-" if v is None else f"{v:.1f}"  # noqa: E731
            ratio = f"{best_py / best_rs:.2f}" if best_py and best_rs else "-"
            vs_ros = f"{ros / best_py:.0f}x" if ros and best_py else "-"
            print(f"| {size} | {cell(py[0])} | {cell(py[1])} | {cell(rs[0])} | {cell(rs[1])} | {cell(ros)} | "
                  f"{ratio} | {vs_ros} |")


if __name__ == "__main__":
    main()

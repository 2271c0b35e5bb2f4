"""E4 (shared/EXPERIMENTS.md): Python vs Rust — publish-call time and
end-to-end latency of a ``sensor_msgs/Image`` from 1 KB to a 1080p frame, in
one process and between two, reliable and best effort; and rospy's, with
``bench/e4_rospy.py`` (run by the system python3 that has rospy).

    python bench/e4.py                                  # everything, a table
    python bench/e4.py --sizes 1024,6220800 --setups shm --qos reliable
    python bench/e4.py --records                        # + one RECORD {json} line per series
    python bench/e4.py --rust /path/to/e4_rust          # default: $CARGO_TARGET_DIR/release/examples/e4_rust
    python bench/e4.py --cpp /path/to/e4_cpp            # default: target/cpp/bench/e4_cpp (cpp/bench/build.sh)
    python bench/e4.py --no-rospy
    python bench/e4.py --placement cross           # publisher on CPU 0, subscriber on CPU 1 (default: both on 0)
    python bench/e4.py --no-allocs                      # without the allocation pass
    python bench/e4.py --languages rust,cpp --rounds 8  # only the compiled twins, interleaved

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

The C++ twin, cpp/bench/e4_cpp.cpp (built by cpp/bench/build.sh against
the hibari scripts/cpp.sh installs), speaks e4_rust's protocol and times the
same things: a new ``Image`` whose ``data`` is a copy of the pixels, then
``publish(const Image &)``; ``loan_with_array`` + a copy of the pixels into
the hole; in one process a typed subscription (``const Image &``, decoded
from the bytes the C ABI carries), between two a serialized subscription
that parses the frame in place. Its records are language ``cpp``; the
"C++ / Rust" report compares them with Rust's, series by series. The twins
run size by size, each size's series back to back; with ``--rounds R`` they
run R times over, the twins' order swapped every round, their samples pooled,
and the report gives each round's ratio as well: a drift of the machine then
lands on both sides of a ratio instead of on whichever ran later.

Allocations (``allocs.py``): before the timed runs, the Python series run
again, fewer messages, in a process of their own that counts every heap
allocation; each record then carries ``allocs_per_msg`` (the publish-call
record: the publish; the end-to-end record: publish and delivery).
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

from allocs import Allocs, Counts, Delivery, count_pass, mean
from e4_report import cpp_vs_rust, record, summary, table
from placement import PLACEMENTS, pin

SIZES = [1024, 65536, 1048576, 4194304, 6220800]
# Messages per series in the allocation pass: the counts are steady after warm-up.
ALLOC_ITERATIONS = 200
HERE = Path(__file__).resolve().parent


def iterations(size: int) -> int:
    return max(100, min(2000, 500_000_000 // size))


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


def run_python_inproc(size: int, qos: str, variant: str, n: int,
                      allocs: Optional[Allocs] = None) -> Dict[str, Any]:
    import hibari
    from hibari.msg.sensor_msgs import Image

    context = hibari.Context([], isolated=True)
    node = hibari.Node("e4", context=context)
    arrived = threading.Event()
    when = [0]
    delivery = Delivery(allocs)

    def callback(msg: Any) -> None:
        when[0] = time.perf_counter_ns()
        msg.data[0]  # the view is there
        arrived.set()

    node.create_subscription(Image, "/e4", delivery.wrap(callback), qos_of(qos))
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
    publish, e2e, publish_allocs = [], [], []
    warmup = n // 10 + 5
    cpu0, cs0, wall = time.process_time(), ctx_switches(), time.perf_counter()
    for i in range(warmup + n):
        t0 = time.perf_counter_ns()
        a0 = allocs.now() if allocs else 0
        if variant == "loan":
            loan = pub.loan_image(1, size, "mono8")
            np.copyto(loan.data, frame)
            pub.publish(loan)
        else:
            pub.publish(msg)
        a1 = allocs.now() if allocs else 0
        t1 = time.perf_counter_ns()
        if not arrived.wait(5.0):
            raise RuntimeError(f"no callback for size {size}")
        arrived.clear()
        if i >= warmup:
            publish.append((t1 - t0) / 1e3)
            e2e.append((when[0] - t0) / 1e3)
            if allocs:
                publish_allocs.append(a1 - a0 - allocs.overhead)
    cpu, cs, secs = time.process_time() - cpu0, ctx_switches() - cs0, time.perf_counter() - wall
    executor.shutdown()
    spinner.join(5.0)
    context.shutdown()
    return {"publish_us": publish, "e2e_us": e2e, "cpu_pub_s": cpu, "cpu_sub_s": 0.0,
            "ctx_switches": cs, "duration_s": secs,
            "allocs_publish": mean(publish_allocs), "allocs_delivery": mean(delivery.counts[warmup - 1:])}


def child(size: int, count: int, qos: str, topic: str) -> None:
    """The subscriber process of the ``shm`` set-up."""
    pin(1)
    import hibari
    from hibari.msg.sensor_msgs import Image

    node = hibari.Node("e4_sub", context=hibari.Context([]))
    e2e: List[float] = []
    done = threading.Event()
    delivery = Delivery(Allocs.here())

    def callback(msg: Any) -> None:
        now = time.time_ns()
        msg.data[0]
        e2e.append((now - (msg.header.stamp.sec * 1_000_000_000 + msg.header.stamp.nanosec)) / 1e3)
        os.write(1, b".")
        if len(e2e) >= count:
            done.set()

    node.create_subscription(Image, topic, delivery.wrap(callback), qos_of(qos))
    executor = hibari.SingleThreadedExecutor()
    executor.add_node(node)
    spinner = threading.Thread(target=executor.spin, daemon=True)
    spinner.start()
    os.write(1, b"ready\n")
    cpu0, cs0 = time.process_time(), ctx_switches()
    done.wait(60.0)
    os.write(1, (json.dumps({"e2e_us": e2e, "cpu_s": time.process_time() - cpu0,
                             "ctx_switches": ctx_switches() - cs0, "allocs": delivery.counts}) + "\n").encode())
    executor.shutdown()
    os._exit(0)


def run_python_shm(size: int, qos: str, variant: str, n: int, domain: int,
                   allocs: Optional[Allocs] = None) -> Dict[str, Any]:
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
        publish, publish_allocs = [], []
        cpu0, cs0, wall = time.process_time(), ctx_switches(), time.perf_counter()
        for i in range(count):
            t0 = time.perf_counter_ns()
            a0 = allocs.now() if allocs else 0
            if variant == "loan":
                ns = time.time_ns()
                loan = pub.loan_image(1, size, "mono8")
                np.copyto(loan.data, frame)
                stamp(loan.message, ns)
                pub.publish(loan)
            else:
                stamp(msg, time.time_ns())
                pub.publish(msg)
            a1 = allocs.now() if allocs else 0
            t1 = time.perf_counter_ns()
            if _ack(fd) != b".":
                raise RuntimeError("the subscriber process stopped")
            if i >= warmup:
                publish.append((t1 - t0) / 1e3)
                if allocs:
                    publish_allocs.append(a1 - a0 - allocs.overhead)
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
            "cpu_sub_s": sub["cpu_s"], "ctx_switches": cs + sub["ctx_switches"], "duration_s": secs,
            "allocs_publish": mean(publish_allocs), "allocs_delivery": mean(sub["allocs"][warmup - 1:])}


def run_python(setup: str, size: int, qos: str, variant: str, n: int, domain: int,
               allocs: Optional[Allocs] = None) -> Dict[str, Any]:
    """One Python series: ``inproc`` (one process) or ``shm`` (two)."""
    if setup == "inproc":
        return run_python_inproc(size, qos, variant, n, allocs)
    return run_python_shm(size, qos, variant, n, domain, allocs)


def _ack(fd: int, timeout_s: float = 10.0) -> bytes:
    """The subscriber's one-byte acknowledgement, or an error when none comes
    (a sample lost under best effort must not hang the run)."""
    readable, _, _ = select.select([fd], [], [], timeout_s)
    if not readable:
        raise RuntimeError(f"no acknowledgement from the subscriber process within {timeout_s} s")
    return os.read(fd, 1)


def run_twin(binary: Path, sizes: List[int], mode: str, qos: str, domain: int,
             n: Optional[int], variant: str) -> List[Dict[str, Any]]:
    """The series of a compiled twin (e4_rust, e4_cpp): one JSON line each."""
    env = dict(os.environ, ROS_DOMAIN_ID=str(domain))
    cmd = [str(binary), "--sizes", ",".join(map(str, sizes)), "--mode", mode, "--qos", qos, "--variant", variant]
    cmd += ["--iterations", str(n)] if n else []
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=1800, check=True, env=env)
    return [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]


def twin_rounds(twins: Dict[str, Path], sizes: List[int], mode: str, qos: str, domain: int,
                n: Optional[int], rounds: int) -> Dict[Any, Dict[str, Any]]:
    """The compiled twins' series, interleaved: each round runs every size and
    variant once per twin, back to back, the twins' order swapped every
    round, so a slow drift of the machine lands on both sides of a C++/Rust
    ratio. Keyed by (language, variant, size): the samples of all rounds
    pooled, the CPU and context switches summed, and ``rounds_p50`` — each
    round's publish-call and end-to-end p50."""
    pooled: Dict[Any, Dict[str, Any]] = {}
    order = list(twins)
    for r in range(rounds):
        for size in sizes:
            for variant in ("publish", "loan"):
                for language in (order if r % 2 == 0 else order[::-1]):
                    (s,) = run_twin(twins[language], [size], mode, qos, domain, n, variant)
                    p = pooled.setdefault((language, variant, size), {
                        "size": size, "publish_us": [], "e2e_us": [], "cpu_pub_s": 0.0, "cpu_sub_s": 0.0,
                        "ctx_switches": 0, "duration_s": 0.0, "rounds_p50": []})
                    p["publish_us"] += s["publish_us"]
                    p["e2e_us"] += s["e2e_us"]
                    for k in ("cpu_pub_s", "cpu_sub_s", "ctx_switches", "duration_s"):
                        p[k] += s.get(k, 0)
                    p["rounds_p50"].append({"publish": float(np.median(s["publish_us"])),
                                            "e2e": float(np.median(s["e2e_us"]))})
    return pooled

# The compiled twins: language, the subscription of the two-process set-up.
TWINS = {"rust": "view subscription (reads the frame in place)",
         "cpp": "serialized subscription (reads the frame in place)"}


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
    ap.add_argument("--cpp", type=Path, default=None,
                    help="E4's C++ twin (default: target/cpp/bench/e4_cpp, built by cpp/bench/build.sh)")
    ap.add_argument("--no-rospy", action="store_true")
    ap.add_argument("--rospy-python", default="/usr/bin/python3")
    ap.add_argument("--records", action="store_true", help="print one RECORD {json} line per series")
    ap.add_argument("--json", type=Path, default=None)
    ap.add_argument("--placement", choices=sorted(PLACEMENTS), default="same",
                    help="publisher and subscriber on one CPU (same), on two (cross), or as the kernel likes (free)")
    ap.add_argument("--no-allocs", action="store_true", help="no allocation pass (allocs.py)")
    ap.add_argument("--languages", default="python,rust,cpp",
                    help="the series to run: python (hibari's Python), rust and cpp (the compiled twins)")
    ap.add_argument("--rounds", type=int, default=1,
                    help="run the compiled twins in this many interleaved rounds, pooling their samples "
                         "(the C++ / Rust report then gives each round's ratio too)")
    ap.add_argument("--domain", type=int, default=None,
                    help="ROS_DOMAIN_ID of the two-process series (default: $ROS_DOMAIN_ID, else a random one in 120..219)")
    ap.add_argument("--child", nargs=4, metavar=("SIZE", "COUNT", "QOS", "TOPIC"), help=argparse.SUPPRESS)
    ap.add_argument("--count-allocs", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(int(args.child[0]), int(args.child[1]), args.child[2], args.child[3])
        return
    os.environ["HIBARI_E4_CPUS"] = PLACEMENTS[args.placement]
    pin(0)
    sizes = [int(s) for s in args.sizes.split(",")]
    languages = set(args.languages.split(","))
    if not languages <= {"python", "rust", "cpp"} or args.rounds < 1:
        raise SystemExit("--languages takes python, rust, cpp; --rounds at least 1")
    setups = args.setups.split(",")
    qoses = args.qos.split(",")
    rust = args.rust or Path(os.environ.get("CARGO_TARGET_DIR", HERE.parents[1] / "target")) \
        / "release" / "examples" / "e4_rust"
    cpp = args.cpp or HERE.parents[1] / "target" / "cpp" / "bench" / "e4_cpp"
    twins = {"rust": rust, "cpp": cpp}
    domain = args.domain if args.domain is not None else \
        int(os.environ.get("ROS_DOMAIN_ID") or random.randrange(120, 220))
    n_of = (lambda s: args.iterations) if args.iterations else iterations
    python_series = [(qos, setup, size, variant) for qos in qoses for setup in setups
                     for size in sizes for variant in ("publish", "loan")]

    if args.count_allocs:
        allocs = Allocs.here()
        if allocs is None:
            raise SystemExit("--count-allocs runs under allocs.count_pass (HIBARI_E4_ALLOCCOUNT unset)")
        for qos, setup, size, variant in python_series:
            s = run_python(setup, size, qos, variant, n_of(size), domain, allocs)
            print("ALLOCS " + json.dumps({"setup": setup, "qos": qos, "size": size, "variant": variant,
                                          "publish": s["allocs_publish"], "delivery": s["allocs_delivery"]}),
                  flush=True)
        return
    counts: Counts = {}
    if not args.no_allocs and "python" in languages:
        n = min(args.iterations or ALLOC_ITERATIONS, ALLOC_ITERATIONS)
        counts, why = count_pass(["--sizes", args.sizes, "--setups", args.setups, "--qos", args.qos,
                                  "--iterations", str(n), "--domain", str(domain), "--placement", args.placement])
        if why:
            print(f"(allocations not counted: {why})", flush=True)

    records: List[Dict[str, Any]] = []

    def add(series: Dict[str, Any], **kw: Any) -> None:
        for what in ("publish", "e2e"):
            rec = record(series, what=what, **kw)
            records.append(rec)
            if args.records:
                print("RECORD " + json.dumps(rec), flush=True)

    for qos in qoses:
        for setup in setups:
            for size in sizes if "python" in languages else []:
                for variant in ("publish", "loan"):
                    s = run_python(setup, size, qos, variant, n_of(size), domain)
                    kw = dict(transport="inproc", setup="one process") if setup == "inproc" \
                        else dict(transport="shm", setup="two processes")
                    if variant == "loan":
                        kw["transport"] += " loan"
                    add(s, language="python", size=size, qos=qos, allocs=counts.get((setup, qos, size, variant)),
                        **kw)  # type: ignore[arg-type]
            present = {lang: binary for lang, binary in twins.items() if lang in languages and binary.exists()}
            mode = "thread" if setup == "inproc" else "procs"
            base = "inproc" if setup == "inproc" else "shm"
            pooled = twin_rounds(present, sizes, mode, qos, domain, args.iterations, args.rounds)
            for (language, variant, size), s in sorted(  # each twin's series together, as a table reads them
                    pooled.items(), key=lambda kv: (list(present).index(kv[0][0]), kv[0][1] == "loan", kv[0][2])):
                add(s, language=language, size=size, qos=qos,
                    transport=base + (" loan" if variant == "loan" else ""),
                    setup="one process" if setup == "inproc" else "two processes",
                    note="" if setup == "inproc" else TWINS[language])
    if "rust" in languages and not rust.exists():
        print(f"(no Rust run: {rust} not built; scripts/python.sh builds it)", file=sys.stderr)
    if "cpp" in languages and not cpp.exists():
        print(f"(no C++ run: {cpp} not built; scripts/cpp.sh install, then cpp/bench/build.sh builds it)",
              file=sys.stderr)
    if not args.no_rospy:
        for rec in rospy_records(sizes, args):
            records.append(rec)
            if args.records:
                print("RECORD " + json.dumps(rec), flush=True)
    table(records)
    summary(records)
    cpp_vs_rust(records)
    if args.json:
        machine = {"uname": " ".join(os.uname()), "cpus": os.cpu_count(), "python": sys.version.split()[0]}
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"machine": machine, "records": records}, indent=1))


if __name__ == "__main__":
    main()

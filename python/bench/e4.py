"""E4 (shared/EXPERIMENTS.md) in one process: Python vs Rust, publish-call
time and end-to-end latency of a ``sensor_msgs/Image`` from 1 KB to a 1080p
frame.

    python bench/e4.py                      # all sizes, both modes, with the Rust run
    python bench/e4.py --sizes 1024,6220800 --mode thread --json e4.json
    python bench/e4.py --rust /path/to/e4_rust   # default: $CARGO_TARGET_DIR/release/examples/e4_rust

What is timed (the Rust twin, python/rust/examples/e4_rust.rs, does the
same): the message holds the application's pixels (a numpy array here, a
``Vec`` built by ``clone()`` there: one copy each); "publish" is the publish
call; "e2e" runs from just before the publish to the first clock reading in
the subscription callback, whose message's ``data`` is a read-only numpy
view of the received bytes. Closed loop: the next message goes after the
callback ran. ``thread``: an executor spins on its own thread; ``same``: the
publishing thread calls ``spin_once``. Times in µs.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, Dict, List

import numpy as np

import hibari
from hibari.msg.sensor_msgs import Image

SIZES = [1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 6220800]


def iterations(size: int) -> int:
    return max(200, min(5000, 2_000_000_000 // size))


def stats(values: List[float]) -> Dict[str, float]:
    v = np.sort(np.asarray(values))
    pick = lambda p: float(v[int(round((len(v) - 1) * p))])  # noqa: E731
    return {"mean": float(v.mean()), "p50": pick(0.5), "p90": pick(0.9), "p99": pick(0.99)}


def run_python(size: int, mode: str, n: int) -> Dict[str, Any]:
    context = hibari.Context([], isolated=True)
    node = hibari.Node("e4", context=context)
    arrived = threading.Event()
    stamp = [0]

    def callback(msg: Any) -> None:
        stamp[0] = time.perf_counter_ns()
        msg.data[0]  # the view is there
        arrived.set()

    node.create_subscription(Image, "/e4", callback, 10)
    pub = node.create_publisher(Image, "/e4", 10)
    executor = hibari.SingleThreadedExecutor()
    executor.add_node(node)
    spinner = None
    if mode == "thread":
        spinner = threading.Thread(target=executor.spin, daemon=True)
        spinner.start()
    msg = Image(height=1, width=size, encoding="mono8", step=size, data=np.full(size, 7, dtype=np.uint8))
    publish, e2e = [], []
    warmup = n // 10 + 5
    for i in range(warmup + n):
        t0 = time.perf_counter_ns()
        pub.publish(msg)
        t1 = time.perf_counter_ns()
        if spinner is None:
            executor.spin_once(timeout_sec=5.0)
        if not arrived.wait(5.0):
            raise RuntimeError(f"no callback for size {size}")
        arrived.clear()
        if i >= warmup:
            publish.append((t1 - t0) / 1e3)
            e2e.append((stamp[0] - t0) / 1e3)
    executor.shutdown()
    if spinner is not None:
        spinner.join(5.0)
    context.shutdown()
    return {"impl": "python", "mode": mode, "size": size, "n": n,
            "publish_us": stats(publish), "e2e_us": stats(e2e)}


def run_rust(binary: Path, sizes: List[int], modes: List[str]) -> List[Dict[str, Any]]:
    rows = []
    for mode in modes:
        out = subprocess.run([str(binary), "--sizes", ",".join(map(str, sizes)), "--mode", mode],
                             capture_output=True, text=True, timeout=900, check=True)
        rows += [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default=",".join(map(str, SIZES)))
    ap.add_argument("--mode", choices=["thread", "same"], action="append")
    ap.add_argument("--rust", type=Path, default=None)
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    modes = args.mode or ["thread", "same"]
    rust = args.rust or Path(os.environ.get("CARGO_TARGET_DIR", Path(__file__).resolve().parents[2] / "target")) \
        / "release" / "examples" / "e4_rust"

    rows = [run_python(size, mode, iterations(size)) for mode in modes for size in sizes]
    if rust.exists():
        rows += run_rust(rust, sizes, modes)
    else:
        print(f"(no Rust run: {rust} not built; scripts/python.sh builds it)", file=sys.stderr)

    by = {(r["impl"], r["mode"], r["size"]): r for r in rows}
    cols = [("publish_us", "mean", "publish mean"), ("e2e_us", "p50", "e2e p50"),
            ("e2e_us", "mean", "e2e mean"), ("e2e_us", "p99", "e2e p99")]
    print(f"{'mode':6} {'bytes':>9} | " + " | ".join(f"{t + ' py/rust µs':>26}" for _, _, t in cols))
    for mode in modes:
        for size in sizes:
            py, rs = by[("python", mode, size)], by.get(("rust", mode, size))
            cells = []
            for key, stat, _ in cols:
                p = py[key][stat]
                r = rs[key][stat] if rs else float("nan")
                cells.append(f"{p:9.1f} {r:8.1f} ({p / r:4.2f}x)")
            print(f"{mode:6} {size:9d} | " + " | ".join(f"{c:>26}" for c in cells))
    if args.json:
        machine = {"uname": " ".join(os.uname()), "cpus": os.cpu_count(), "python": sys.version.split()[0]}
        args.json.write_text(json.dumps({"machine": machine, "rows": rows}, indent=1))


if __name__ == "__main__":
    main()

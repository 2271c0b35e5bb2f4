"""e4.py (python/bench) runs E4's C++ twin beside its Python series: a few
small messages in both set-ups, in two interleaved rounds, and the records
it prints say what they should (every message, each round's p50, the
process's CPU time and context switches). Run by the examples' ctest (in a domain of its own, ROS_DOMAIN_ID):

    e4_py_check.py PYTHON E4_CPP

PYTHON imports hibari; E4_CPP is the built twin. Exits 1 with the reason
when a record is missing or wrong."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "python" / "bench"


def main() -> int:
    python, e4_cpp = sys.argv[1], sys.argv[2]
    n = 20
    cmd = [python, str(BENCH / "e4.py"), "--sizes", "1024", "--setups", "inproc,shm",
           "--qos", "reliable", "--iterations", str(n), "--rounds", "2", "--no-rospy", "--no-allocs", "--records",
           "--domain", os.environ["ROS_DOMAIN_ID"], "--rust", "/nonexistent/e4_rust", "--cpp", e4_cpp]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    print(out.stdout, out.stderr, sep="\n")
    failures = []
    if out.returncode != 0:
        failures.append(f"e4.py exited with status {out.returncode}")
    records = [json.loads(line[len("RECORD "):]) for line in out.stdout.splitlines()
               if line.startswith("RECORD ")]
    cpp = [r for r in records if r["language"] == "cpp"]
    # 2 set-ups × (publish, loan) × (publish call, end to end)
    if len(cpp) != 8:
        failures.append(f"{len(cpp)} C++ records, not 8")
    if {r["transport"] for r in cpp} != {"inproc", "inproc loan", "shm", "shm loan"}:
        failures.append(f"transports {sorted({r['transport'] for r in cpp})}")
    for r in cpp:
        if not (r["system"] == "hibari" and r["size_bytes"] == 1024):
            failures.append(f"record of another system or size: {r}")
        # two interleaved rounds of n messages each, pooled
        if (r["sent"], r["received"], r["lost"]) != (2 * n, 2 * n, 0):
            failures.append(f"not every message delivered: {r}")
        if not 0 < r["p50_us"] <= r["p99_us"] <= r["max_us"] < 1e6:
            failures.append(f"percentiles out of order: {r}")
        if len(r.get("rounds_p50_us", [])) != 2 or not all(v > 0 for v in r["rounds_p50_us"]):
            failures.append(f"no p50 of each of the two rounds: {r}")
        # a closed loop blocks on every message: the twin reads its rusage
        if not (r["cpu_pub_s"] > 0 and r["ctx_switches"] >= n):
            failures.append(f"CPU time or context switches not read: {r}")
        if r["setup"].startswith("two processes") and not r["cpu_sub_s"] > 0:
            failures.append(f"the subscriber process's CPU time not read: {r}")
        if r["setup"].startswith("two processes") and "serialized subscription" not in r["note"]:
            failures.append(f"the two-process series does not say how it reads: {r}")
    if "(no C++ run" in out.stderr:
        failures.append("e4.py did not run the C++ twin")
    if "c++/rust (best of each)" not in out.stdout:
        failures.append("the report has no C++ / Rust summary")
    for failure in failures:
        print(f"FAILED: {failure}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

"""The allocation count of E4's Python series (python/bench/allocs.py and
alloccount.c): the counter sees what it claims to, refuses to run where it
would not, and e4.py's records carry the counts."""

from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT

BENCH = ROOT / "python" / "bench"

needs_cc = pytest.mark.skipif(shutil.which("cc") is None, reason="alloccount.c needs a C compiler (cc)")


def build_counter(tmp_path: Path) -> Path:
    lib = tmp_path / "libhibari_alloccount.so"
    subprocess.run(["cc", "-shared", "-fPIC", "-O2", "-o", str(lib), str(BENCH / "alloccount.c")], check=True)
    return lib


def run_counted(lib: Path, code: str, *, python_malloc: bool) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, LD_PRELOAD=str(lib), HIBARI_E4_ALLOCCOUNT=str(lib), PYTHONPATH=str(BENCH))
    if python_malloc:
        env["PYTHONMALLOC"] = "malloc"
    else:
        env.pop("PYTHONMALLOC", None)
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)


@needs_cc
def test_the_counter_counts_each_allocation_of_the_calling_thread(tmp_path: Path) -> None:
    lib = build_counter(tmp_path)
    code = """
import threading
from allocs import Allocs
a = Allocs.here()
before = a.now()
held = [bytearray(100_000) for _ in range(50)]   # 50 objects + 50 buffers, and the list
mine = a.now() - before - a.overhead
other = []
t = threading.Thread(target=lambda: other.append([bytearray(100_000) for _ in range(500)]))
t.start(); t.join()
after = a.now()
print(mine, after - before - mine)
"""
    out = run_counted(lib, code, python_malloc=True)
    assert out.returncode == 0, out.stderr
    mine, rest = map(int, out.stdout.split())
    assert 100 <= mine <= 130, out.stdout
    # Another thread's 1,000 allocations are not this thread's (the thread
    # object and its start cost a few of this thread's own).
    assert rest < 500, out.stdout


@needs_cc
def test_the_counter_refuses_to_run_where_pythons_small_objects_bypass_it(tmp_path: Path) -> None:
    lib = build_counter(tmp_path)
    out = run_counted(lib, "from allocs import Allocs; Allocs.here()", python_malloc=False)
    assert out.returncode != 0
    assert "PYTHONMALLOC=malloc" in out.stderr, out.stderr


@needs_cc
def test_e4_records_carry_the_python_series_allocations_per_message(domain: int) -> None:
    cmd = [sys.executable, str(BENCH / "e4.py"), "--sizes", "1024", "--setups", "inproc,shm",
           "--qos", "reliable", "--iterations", "40", "--no-rospy", "--records", "--domain", str(domain),
           "--rust", "/nonexistent/e4_rust", "--cpp", "/nonexistent/e4_cpp"]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "allocations not counted" not in out.stdout, out.stdout
    records = [json.loads(line[len("RECORD "):]) for line in out.stdout.splitlines() if line.startswith("RECORD ")]
    python = [r for r in records if r["language"] == "python"]
    # 2 set-ups × (publish, loan) × (publish call, end to end)
    assert len(python) == 8, out.stdout
    for r in python:
        allocs = r["allocs_per_msg"]
        assert math.isfinite(allocs) and allocs >= 0, r
        assert "heap allocations per message: publish" in r["note"], r
        if "publish call" not in r["setup"]:
            # End to end includes the delivery, which makes the callback's
            # message: a new Python object each time.
            assert allocs >= 1, r
        if "loan" in r["transport"] and "publish call" in r["setup"]:
            # A loan is a Python object made for each message.
            assert allocs >= 1, r
    assert "allocs/msg" in out.stdout

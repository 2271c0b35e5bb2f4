"""Heap allocations per message in E4's Python series (issue 16: "the Python
path reports its count in the bench").

``alloccount.c`` counts every call that hands out heap memory, per thread and
per process; ``e4.py`` compiles it and runs its Python series again in a
process of their own under it (LD_PRELOAD) with ``PYTHONMALLOC=malloc``, so
that Python's objects, numpy's buffers and the Rust extension's heap all go
through the counted C allocator. What Python's free lists (floats, tuples,
frames) serve without the allocator is not counted: it is not an allocation.

Per message: on the publishing thread, the publish as it is timed (loan,
copy, stamp, publish); on the subscription's thread, from the end of one
callback to the start of the next (take, decode, dispatch, the previous
message's release), the callbacks' bodies excluded. One reading of the
counter makes an int; that is measured once (``overhead``) and subtracted.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Tuple

HERE = Path(__file__).resolve().parent


class Allocs:
    """The heap-allocation counter of ``alloccount.c`` in this process (it
    runs under LD_PRELOAD, named by ``HIBARI_E4_ALLOCCOUNT``)."""

    def __init__(self, library: str) -> None:
        import ctypes

        self._thread = ctypes.CDLL(library).hibari_allocs_thread
        self._thread.restype, self._thread.argtypes = ctypes.c_uint64, []
        # It must see what it claims to: small objects (pymalloc's, unless
        # PYTHONMALLOC=malloc) and big buffers.
        before = self.now()
        held = [object() for _ in range(1000)] + [bytearray(1 << 16) for _ in range(16)]
        seen = self.now() - before
        del held
        if seen < 1016:
            raise RuntimeError(f"the allocation counter saw {seen} of >= 1016 allocations: "
                               "run under LD_PRELOAD=libhibari_alloccount.so with PYTHONMALLOC=malloc")
        # What one reading adds to the interval after it (its result is a new int).
        self.overhead = min(self._pair() for _ in range(100))

    def _pair(self) -> int:
        a = self.now()
        b = self.now()
        return b - a

    def now(self) -> int:
        return int(self._thread())

    @staticmethod
    def here() -> Optional["Allocs"]:
        library = os.environ.get("HIBARI_E4_ALLOCCOUNT")
        return Allocs(library) if library else None


def mean(values: List[int]) -> float:
    return sum(values) / len(values) if values else float("nan")


class Delivery:
    """Allocations on a subscription's thread per message: from the end of one
    callback to the start of the next (take, decode, dispatch, the previous
    message's release), the callbacks' own bodies excluded."""

    def __init__(self, allocs: Optional[Allocs]) -> None:
        self.allocs = allocs
        self.counts: List[int] = []

    def wrap(self, callback: Callable[[Any], None]) -> Callable[[Any], None]:
        """``callback``, counted when there is a counter."""
        allocs = self.allocs
        if allocs is None:
            return callback
        left = [-1]

        def counted(msg: Any) -> None:
            entered = allocs.now()
            if left[0] >= 0:
                self.counts.append(entered - left[0] - allocs.overhead)
            callback(msg)
            left[0] = allocs.now()

        return counted


# (setup, qos, size, variant) -> (publish, delivery), allocations per message.
Counts = Dict[Tuple[str, str, int, str], Tuple[float, float]]


def count_pass(argv: List[str], timeout_s: float = 1800.0) -> Tuple[Counts, str]:
    """Runs ``e4.py --count-allocs`` + ``argv`` under the counter: the counts
    of its ``ALLOCS {json}`` lines, and why there are none when there are none."""
    cc = shutil.which("cc")
    if cc is None:
        return {}, "no C compiler (cc) to build alloccount.c"
    with tempfile.TemporaryDirectory(prefix="hibari-e4-allocs-") as tmp:
        lib = Path(tmp) / "libhibari_alloccount.so"
        built = subprocess.run([cc, "-shared", "-fPIC", "-O2", "-o", str(lib), str(HERE / "alloccount.c")],
                               capture_output=True, text=True)
        if built.returncode != 0:
            return {}, f"alloccount.c did not build: {built.stderr.strip()[-300:]}"
        preload = " ".join(p for p in (str(lib), os.environ.get("LD_PRELOAD", "")) if p)
        env = dict(os.environ, LD_PRELOAD=preload, PYTHONMALLOC="malloc", HIBARI_E4_ALLOCCOUNT=str(lib))
        cmd = [sys.executable, str(HERE / "e4.py"), "--count-allocs", *argv]
        try:
            out = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout_s)
        except subprocess.TimeoutExpired:
            return {}, f"the allocation pass took longer than {timeout_s:.0f} s"
    counts: Counts = {}
    for line in out.stdout.splitlines():
        if line.startswith("ALLOCS "):
            c = json.loads(line[len("ALLOCS "):])
            counts[(c["setup"], c["qos"], c["size"], c["variant"])] = (c["publish"], c["delivery"])
    if out.returncode != 0 or not counts:
        return counts, f"the allocation pass failed (exit {out.returncode}): {out.stderr.strip()[-400:]}"
    return counts, ""


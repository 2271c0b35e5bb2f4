"""E4's records and its terminal report (``e4.py``): one series in
hibari-bench's record format, the table of each series beside its Rust (and
C++) twin, the end-to-end summary per size, and C++ against Rust series by
series."""

from __future__ import annotations

import math
import os
from typing import Any, Dict, List, Optional, Tuple

import numpy as np


def stats(values: List[float]) -> Dict[str, float]:
    """Nearest-rank percentiles, as hibari-bench's records have them."""
    v = np.sort(np.asarray(values, dtype=float))
    if len(v) == 0:
        return {k: 0.0 for k in ("p50_us", "p90_us", "p99_us", "p999_us", "max_us", "mean_us", "stddev_us")} | {"count": 0}
    rank = lambda p: float(v[max(1, int(np.ceil(p / 100 * len(v)))) - 1])  # noqa: E731
    return {"count": int(len(v)), "p50_us": rank(50), "p90_us": rank(90), "p99_us": rank(99),
            "p999_us": rank(99.9), "max_us": float(v[-1]), "mean_us": float(v.mean()),
            "stddev_us": float(v.std())}


def record(series: Dict[str, Any], *, language: str, transport: str, setup: str, size: int,
           qos: str, what: str, note: str = "", system: str = "hibari",
           allocs: Optional[Tuple[float, float]] = None) -> Dict[str, Any]:
    """One series in hibari-bench's record format; ``allocs``: its
    allocations per message (publish, delivery) when counted."""
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
    if len(series.get("rounds_p50", [])) > 1:  # a compiled twin's series run in interleaved rounds (e4.py --rounds)
        rec["rounds_p50_us"] = [round(r[what], 3) for r in series["rounds_p50"]]
    if allocs is not None and all(math.isfinite(a) for a in allocs):
        publish, delivery = allocs
        rec["allocs_per_msg"] = round(publish if what == "publish" else publish + delivery, 1)
        rec["note"] += (f"; heap allocations per message: publish {publish:.1f}, delivery {delivery:.1f} "
                        "(counted in a run of their own, allocs.py)")
    return rec


def table(records: List[Dict[str, Any]]) -> None:
    """The terminal table: each series with its Rust and C++ twins' figures
    and the ratio to Rust's."""
    def key(r: Dict[str, Any]) -> Any:
        return (r["transport"], r["setup"], r["size_bytes"])

    rust = {key(r): r for r in records if r["language"] == "rust" and r["system"] == "hibari"}
    cpp = {key(r): r for r in records if r["language"] == "cpp" and r["system"] == "hibari"}
    print(f"| {'system':6} | {'lang':6} | {'transport':11} | {'setup':44} | {'bytes':>8} | {'p50 µs':>9} | "
          f"{'mean µs':>9} | {'p99 µs':>9} | {'rust mean':>9} | {'x rust':>6} | {'c++ mean':>9} | {'allocs/msg':>10} |")
    print("|" + "|".join("-" * w for w in (8, 8, 13, 46, 10, 11, 11, 11, 11, 8, 11, 12)) + "|")
    for r in records:
        twin: Optional[Dict[str, Any]] = rust.get(key(r))
        rm = twin["mean_us"] if twin else float("nan")
        ratio = r["mean_us"] / rm if twin and rm > 0 else float("nan")
        cpp_twin: Optional[Dict[str, Any]] = cpp.get(key(r))
        cm = cpp_twin["mean_us"] if cpp_twin else float("nan")
        print(f"| {r['system']:6} | {r['language']:6} | {r['transport']:11} | {r['setup']:44} | {r['size_bytes']:8d} | "
              f"{r['p50_us']:9.1f} | {r['mean_us']:9.1f} | {r['p99_us']:9.1f} | {rm:9.1f} | {ratio:6.2f} | "
              f"{cm:9.1f} | {r.get('allocs_per_msg', '-'):>10} |")


def summary(records: List[Dict[str, Any]]) -> None:
    """End-to-end p50 per size: Python's best against Rust's best (publish or
    loan), C++'s best against Rust's, and rospy against Python, per set-up
    and QoS."""
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
        print(f"\nend-to-end p50 µs, {setup}: | bytes | python | python loan | rust | rust loan | c++ | c++ loan | "
              "rospy | python/rust (best of each) | c++/rust (best of each) | rospy/python |")
        for size in sizes:
            py = [p50("hibari", "python", t, setup, size) for t in (base, base + " loan")]
            rs = [p50("hibari", "rust", t, setup, size) for t in (base, base + " loan")]
            cc = [p50("hibari", "cpp", t, setup, size) for t in (base, base + " loan")]
            ros = p50("ros1", "python", "tcpros", setup, size)
            best_py = min((v for v in py if v), default=None)
            best_rs = min((v for v in rs if v), default=None)
            best_cc = min((v for v in cc if v), default=None)
            cell = lambda v: "-" if v is None else f"{v:.1f}"  # noqa: E731
            ratio = f"{best_py / best_rs:.2f}" if best_py and best_rs else "-"
            cc_ratio = f"{best_cc / best_rs:.2f}" if best_cc and best_rs else "-"
            vs_ros = f"{ros / best_py:.0f}x" if ros and best_py else "-"
            print(f"| {size} | {cell(py[0])} | {cell(py[1])} | {cell(rs[0])} | {cell(rs[1])} | {cell(cc[0])} | "
                  f"{cell(cc[1])} | {cell(ros)} | {ratio} | {cc_ratio} | {vs_ros} |")


# The target: the C++ layer within this factor of Rust, series by series.
CPP_TARGET = 1.1


def cpp_vs_rust(records: List[Dict[str, Any]]) -> None:
    """C++ / Rust, series by series (same transport, set-up, QoS and size):
    publish-call and end-to-end p50 and p99, their ratios, whether the p50s
    are within CPP_TARGET of Rust's, and the publishing process's CPU time
    per message."""
    def key(r: Dict[str, Any]) -> Any:
        return (r["transport"], r["setup"], r["size_bytes"])

    rust = {key(r): r for r in records if r["language"] == "rust" and r["system"] == "hibari"}
    pairs = [(r, rust[key(r)]) for r in records
             if r["language"] == "cpp" and r["system"] == "hibari" and key(r) in rust]
    if not pairs:
        return
    print(f"\nC++ / Rust (µs; ratio = C++ / Rust; target: p50 within {CPP_TARGET}x): | transport | setup | bytes | "
          "c++ p50 | rust p50 | p50 ratio | c++ p99 | rust p99 | p99 ratio | within | rounds: p50 ratio min, "
          "median, max | rounds within | c++ cpu/msg | rust cpu/msg | cpu ratio |")
    for c, r in pairs:
        ratio50 = c["p50_us"] / r["p50_us"] if r["p50_us"] > 0 else float("nan")
        ratio99 = c["p99_us"] / r["p99_us"] if r["p99_us"] > 0 else float("nan")
        within = "yes" if ratio50 <= CPP_TARGET else "no"
        rounds = round_ratios(c, r)
        spread = f"{min(rounds):.2f}, {float(np.median(rounds)):.2f}, {max(rounds):.2f}" if rounds else "-"
        inside = f"{sum(x <= CPP_TARGET for x in rounds)}/{len(rounds)}" if rounds else "-"
        cpu_c, cpu_r = cpu_per_message(c), cpu_per_message(r)
        cpu = (f"{cpu_c:.2f} | {cpu_r:.2f} | {cpu_c / cpu_r:.2f}" if cpu_c is not None and cpu_r is not None
               else "- | - | -")
        print(f"| {c['transport']} | {c['setup']} | {c['size_bytes']} | {us(c['p50_us'])} | {us(r['p50_us'])} | "
              f"{ratio50:.2f} | {us(c['p99_us'])} | {us(r['p99_us'])} | {ratio99:.2f} | {within} | {spread} | "
              f"{inside} | {cpu} |")


def us(v: float) -> str:
    """Microseconds with the digits a ratio needs: 1.04 and 0.96 µs differ by 8 %."""
    return f"{v:.2f}" if v < 10 else f"{v:.1f}"


def cpu_per_message(rec: Dict[str, Any]) -> Optional[float]:
    """The publishing process's CPU time per message sent (µs; in one process
    that includes the executor's thread), or None when not measured. Unlike
    a p50 of a bimodal publish call (on one CPU the woken subscriber often
    runs inside the call), it moves only with the work done."""
    cpu, sent = rec.get("cpu_pub_s", 0.0), rec.get("sent", 0)
    return cpu / sent * 1e6 if cpu > 0 and sent > 0 else None


def round_ratios(cpp: Dict[str, Any], rust: Dict[str, Any]) -> List[float]:
    """Each interleaved round's C++ p50 over the Rust p50 of the same round
    (empty unless both series ran in the same number of rounds, more than one)."""
    c, r = cpp.get("rounds_p50_us", []), rust.get("rounds_p50_us", [])
    if len(c) != len(r) or len(c) < 2:
        return []
    return [a / b for a, b in zip(c, r) if b > 0]

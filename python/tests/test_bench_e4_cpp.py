"""E4's C++ twin in e4.py's report (python/bench): C++ against Rust series
by series. The run of e4.py with the built twin is a ctest of cpp/examples
(cpp/bench/e4_py_check.py), where the twin is built."""

from __future__ import annotations

import io
import sys
from contextlib import redirect_stdout
from typing import Any, Dict, List, Optional

from conftest import ROOT

BENCH = ROOT / "python" / "bench"


def test_the_cpp_report_tells_each_series_within_the_target_of_rust_or_not() -> None:
    sys.path.insert(0, str(BENCH))
    try:
        from e4_report import cpp_vs_rust, record
    finally:
        sys.path.remove(str(BENCH))

    def rec(language: str, size: int, p50: float, rounds: Optional[List[float]] = None,
            cpu_s: float = 0.0) -> Dict[str, Any]:
        series: Dict[str, Any] = {"publish_us": [p50] * 10, "e2e_us": [p50] * 10, "cpu_pub_s": cpu_s}
        if rounds:  # each interleaved round's p50 (e4.py --rounds)
            series["rounds_p50"] = [{"publish": v, "e2e": v} for v in rounds]
        return record(series, what="e2e", language=language, transport="shm", setup="two processes",
                      size=size, qos="reliable")

    records = [rec("rust", 1024, 10.0), rec("cpp", 1024, 10.5), rec("rust", 65536, 10.0),
               rec("cpp", 65536, 12.0), rec("cpp", 4096, 1.0),  # the last has no Rust twin
               rec("rust", 1048576, 100.0, [100.0, 100.0, 100.0], cpu_s=0.001),
               rec("cpp", 1048576, 105.0, [90.0, 105.0, 120.0], cpu_s=0.0009),
               rec("rust", 64, 1.04), rec("cpp", 64, 0.96)]
    report = io.StringIO()
    with redirect_stdout(report):
        cpp_vs_rust(records)
    rows = [line for line in report.getvalue().splitlines() if line.startswith("| shm")]
    assert len(rows) == 4, report.getvalue()
    # single runs: no rounds to compare, no CPU measured
    assert rows[0].endswith("| 1.05 | 10.5 | 10.0 | 1.05 | yes | - | - | - | - | - |"), rows[0]
    assert rows[1].endswith("| 1.20 | 12.0 | 10.0 | 1.20 | no | - | - | - | - | - |"), rows[1]
    # three rounds: ratios 0.90, 1.05, 1.20, two of them within 1.1; the
    # CPU per message (10 sent): 90 µs against 100
    assert rows[2].endswith("| 1.05 | yes | 0.90, 1.05, 1.20 | 2/3 | 90.00 | 100.00 | 0.90 |"), rows[2]
    # below 10 µs, two decimals: 0.96 against 1.04 is 8 % apart
    assert rows[3].endswith("| 64 | 0.96 | 1.04 | 0.92 | 0.96 | 1.04 | 0.92 | yes | - | - | - | - | - |"), rows[3]

#!/usr/bin/python3
"""Markdown table of run.py records, one row per cell, repetitions side by side ("A / B / C").

  peers/ros1/summarize.py results.jsonl [more.jsonl …] [--cpu]

Columns: received of sent (all repetitions), mean, p50, p99, max, std dev (µs), bunched gaps %,
messages later than 5 ms, publisher wake-up lateness p50 (µs), and the machine's busy cores during the cell (a
contamination flag on a shared host). --cpu adds CPU seconds and context switches per process.
"""
import json
import sys


def cell_key(r):
    return (r["experiment"], r["msg_type"], -r["rate_hz"], r.get("ranges") or r.get("width") or 0,
            r["size_bytes"] or 0, r["pub_lang"], r["sub_lang"], r["tcp_nodelay"])


def join(vals, nd=0):
    return " / ".join("-" if v is None else f"{v:,.{nd}f}" for v in vals)


def main(argv):
    cpu = "--cpu" in argv
    recs = []
    for path in (a for a in argv if not a.startswith("--")):
        with open(path) as f:
            recs += [json.loads(l) for l in f if l.startswith("{") and '"label"' in l]
    groups = {}
    for r in recs:
        groups.setdefault(cell_key(r), []).append(r)
    head = ["cell", "bytes", "recv", "mean µs", "p50 µs", "p99 µs", "max µs", "sd µs", "bunched %",
            ">5 ms", "pub late p50 µs", "busy cores"]
    if cpu:
        head += ["pub CPU s", "sub CPU s", "pub vol/invol csw", "sub vol/invol csw"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for key in sorted(groups):
        rs = sorted(groups[key], key=lambda r: r["rep"])
        row = [rs[0]["label"], f"{rs[0]['size_bytes']:,}",
               f"{sum(r['received'] or 0 for r in rs)}/{sum(r['sent'] or 0 for r in rs)}",
               join(r["mean_us"] for r in rs), join(r["p50_us"] for r in rs), join(r["p99_us"] for r in rs),
               join(r["max_us"] for r in rs), join(r["stddev_us"] for r in rs),
               join((r["bunched_pct"] for r in rs), 1), join(r["over_5ms"] for r in rs),
               join(r["pub_late_p50_us"] for r in rs),
               join((r["machine_busy_cores"] for r in rs), 2)]
        if cpu:
            row += [join((r["cpu_pub_s"] for r in rs), 2), join((r["cpu_sub_s"] for r in rs), 2),
                    " ; ".join(f"{r['ctx_pub_voluntary']}/{r['ctx_pub_involuntary']}" for r in rs),
                    " ; ".join(f"{r['ctx_sub_voluntary']}/{r['ctx_sub_involuntary']}" for r in rs)]
        print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    main(sys.argv[1:])

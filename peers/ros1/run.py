#!/usr/bin/python3
"""Runs ROS 1 peer cells for `hibari bench`: one publisher and one subscriber process, real ROS 1
nodes talking TCPROS through a roscore, and prints one JSON record per cell on stdout.

A cell is one workload (message type and size, rate, count, transport hint, languages). A preset
is a list of cells (the published experiments). The roscore at $ROS_MASTER_URI is used when it
answers; otherwise a private one is started on a free port and stopped at the end.
Progress and the optional table go to stderr. See README.md for the options and the schema.
Exit status: 0 all cells ran, 1 a cell failed, 2 bad arguments, 3 the ROS 1 peer is not
installed (then one JSON line with "available": false says how to get it).
"""
import argparse
import json
import os
import platform
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import xmlrpc.client

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
PY = "/usr/bin/python3"  # Debian's rospy exists only for the system interpreter
VGA_PERIOD_HZ = 1.0 / 0.030


def log(msg):
    print(f"[ros1] {msg}", file=sys.stderr, flush=True)


def parse(argv):
    p = argparse.ArgumentParser(description="Run ROS 1 peer cells; JSON lines on stdout.")
    p.add_argument("--preset", choices=["e1", "e3", "e4", "quick"], help="run a list of cells")
    p.add_argument("--type", default="laser", choices=["laser", "image", "jpeg", "bytes"])
    p.add_argument("--ranges", type=int, default=1000, help="LaserScan ranges (floats)")
    p.add_argument("--width", type=int, default=640)
    p.add_argument("--height", type=int, default=480)
    p.add_argument("--quality", type=int, default=30, help="JPEG quality (--type jpeg)")
    p.add_argument("--size", type=int, default=1024, help="bytes payload length (>= 16)")
    p.add_argument("--rate", type=float, default=100.0, help="publish rate, Hz")
    p.add_argument("--count", type=int, default=200, help="measured messages")
    p.add_argument("--warmup", type=int, default=20, help="messages sent first and not measured")
    p.add_argument("--tcp-nodelay", action="store_true", help="subscriber asks for TCP_NODELAY")
    p.add_argument("--both-nodelay", action="store_true", help="run each cell without and with it")
    p.add_argument("--queue", type=int, default=1000, help="publisher and subscriber queue size")
    p.add_argument("--pub", default="cpp", choices=["cpp", "py"])
    p.add_argument("--sub", default="cpp", choices=["cpp", "py"])
    p.add_argument("--sync", action="store_true", help="rospy publisher with queue_size=None")
    p.add_argument("--reps", type=int, default=1)
    p.add_argument("--pin-pub", type=int, help="CPU for the publisher (sched_setaffinity)")
    p.add_argument("--pin-sub", type=int, help="CPU for the subscriber")
    p.add_argument("--wait-quiet", type=float, default=0.0, metavar="S",
                   help="before each cell wait up to S s for the host to be quiet (see --quiet-cores)")
    p.add_argument("--quiet-cores", type=float, default=0.3,
                   help="quiet = fewer busy cores than this over 1 s (default 0.3)")
    p.add_argument("--csv-dir", help="keep each cell's per-message CSV here")
    p.add_argument("--experiment", help="label for the records (default: preset or 'cell')")
    p.add_argument("--bin-dir", default=os.environ.get("ROS1_PEER_BIN", os.path.join(ROOT, "target", "ros1-peer")))
    p.add_argument("--table", action="store_true", help="print a human table on stderr at the end")
    a = p.parse_args(argv)
    if a.rate <= 0 or a.count <= 0 or a.warmup < 0 or a.reps <= 0:
        p.error("--rate, --count and --reps must be > 0, --warmup >= 0")
    if (a.type == "jpeg" or a.preset == "e1") and "py" in (a.pub, a.sub):
        p.error("jpeg cells are roscpp only (--pub cpp --sub cpp)")
    return a


def cells(a):
    """The cells to run, as dicts of cell options."""
    base = dict(type=a.type, ranges=a.ranges, width=a.width, height=a.height, quality=a.quality, size=a.size,
                rate=a.rate, count=a.count, warmup=a.warmup, queue=a.queue, pub=a.pub,
                sub=a.sub, sync=a.sync, nodelay=a.tcp_nodelay)
    if a.preset == "e3":
        out = [dict(base, type="laser", rate=r, ranges=n, nodelay=nd)
               for r in (100.0, 10.0) for n in (10, 100, 1000, 10000, 100000) for nd in (False, True)]
    elif a.preset == "e1":
        out = [dict(base, type=t, width=640, height=480, quality=30, rate=VGA_PERIOD_HZ, count=500, nodelay=nd)
               for t in ("image", "jpeg") for nd in (False, True)]
    elif a.preset == "e4":
        out = [dict(base, type="bytes", size=s, rate=10.0, count=100, pub=pl, sub="cpp", nodelay=False)
               for s in (1024, 102400, 1048576, 4194304) for pl in ("cpp", "py")]
    elif a.preset == "quick":
        out = [dict(base, type="laser", rate=100.0, ranges=n, count=200, nodelay=nd)
               for n in (1000, 10000) for nd in (False, True)]
        out += [dict(base, type="image", width=640, height=480, rate=VGA_PERIOD_HZ, count=200, nodelay=False)]
    else:
        out = [dict(base, nodelay=False), dict(base, nodelay=True)] if a.both_nodelay else [base]
    return out


def unavailable(reason):
    print(json.dumps({"system": "ros1", "available": False, "reason": reason,
                      "how": "scripts/ros1-peer.sh  (installs Debian's ros-core, roscpp, rospy and builds the peers)"}),
          flush=True)
    log(f"ROS 1 peer not available: {reason}; get it with scripts/ros1-peer.sh")
    return 3


def master_up(uri):
    try:
        proxy = xmlrpc.client.ServerProxy(uri)
        socket.setdefaulttimeout(1.0)
        code, _, _ = proxy.getSystemState("/hibari_bench_probe")
        return code == 1
    except (OSError, xmlrpc.client.Error):
        return False
    finally:
        socket.setdefaulttimeout(None)


class Master:
    """The roscore to use: $ROS_MASTER_URI when it answers, else a private one on a free port."""

    def __init__(self):
        self.proc = None
        self.home = tempfile.mkdtemp(prefix="hibari-ros1-")
        uri = os.environ.get("ROS_MASTER_URI")
        if uri and master_up(uri):
            self.uri = uri
            log(f"using the running roscore at {uri}")
            return
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        self.uri = f"http://127.0.0.1:{port}"
        env = dict(os.environ, ROS_MASTER_URI=self.uri, ROS_IP="127.0.0.1", ROS_HOME=self.home)
        t = time.monotonic()
        self.proc = subprocess.Popen(["roscore", "-p", str(port)], env=env, start_new_session=True,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        while not master_up(self.uri):
            if self.proc.poll() is not None or time.monotonic() - t > 30:
                self.stop()
                raise RuntimeError("roscore did not come up within 30 s")
            time.sleep(0.1)
        log(f"started roscore at {self.uri} (pid {self.proc.pid}) in {time.monotonic() - t:.2f} s")

    def env(self):
        return dict(os.environ, ROS_MASTER_URI=self.uri, ROS_IP=os.environ.get("ROS_IP", "127.0.0.1"),
                    ROS_HOME=self.home, PYTHONUNBUFFERED="1")

    def stop(self):
        if self.proc is not None and self.proc.poll() is None:
            stop_group(self.proc, signal.SIGINT, 10)
        if os.environ.get("HIBARI_ROS1_KEEP_HOME") is None:
            shutil.rmtree(self.home, ignore_errors=True)


def stop_group(proc, sig, grace):
    """Signals the process group this driver started for `proc`, then kills it after `grace` s."""
    try:
        os.killpg(proc.pid, sig)
        proc.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    except ProcessLookupError:
        pass


def machine_busy():
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    return sum(v) - v[3] - v[4], sum(v)  # busy, total (jiffies; idle and iowait excluded)


def wait_quiet(limit_s, cores):
    """Waits (up to limit_s) until the host had fewer than `cores` busy cores over one second;
    returns the seconds waited, or None when it never got that quiet."""
    if limit_s <= 0:
        return 0.0
    t = time.monotonic()
    while True:
        b0, t0 = machine_busy()
        time.sleep(1.0)
        b1, t1 = machine_busy()
        if (b1 - b0) / max(1, t1 - t0) * os.cpu_count() < cores:
            return round(time.monotonic() - t, 1)
        if time.monotonic() - t > limit_s:
            return None


def last_json(text):
    for line in reversed(text.splitlines()):
        if line.startswith("{"):
            try:
                return json.loads(line)
            except ValueError:
                continue
    return None


LIVE = []  # peer processes of the running cell, stopped if the driver is interrupted


def spawn(cmd, env, cpu):
    pre = (lambda: os.sched_setaffinity(0, {cpu})) if cpu is not None else None
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True, preexec_fn=pre)
    LIVE.append(proc)
    return proc


def on_term(*_):
    raise KeyboardInterrupt


def run_cell(c, a, master, idx, rep):
    topic = f"/hibari_bench_{os.getpid()}_{idx}_{rep}"
    common = ["--type", c["type"], "--topic", topic, "--count", str(c["count"]),
              "--warmup", str(c["warmup"]), "--queue", str(c["queue"]), "--rate", repr(c["rate"])]
    sub_cmd = ([os.path.join(a.bin_dir, "ros1_sub")] if c["sub"] == "cpp"
               else [PY, os.path.join(HERE, "py", "sub.py")]) + common
    seq_base = 1 if (c["pub"] == "py" and c["type"] != "bytes") else 0
    sub_cmd += ["--seq-base", str(seq_base)] + (["--tcp-nodelay"] if c["nodelay"] else [])
    csv = None
    if a.csv_dir:
        os.makedirs(a.csv_dir, exist_ok=True)
        csv = os.path.join(a.csv_dir, f"{label(c)}_rep{rep}.csv".replace("->", "-to-").replace(" ", "_").replace("/", "-"))
        sub_cmd += ["--csv", csv]
    pub_cmd = ([os.path.join(a.bin_dir, "ros1_pub")] if c["pub"] == "cpp"
               else [PY, os.path.join(HERE, "py", "pub.py")]) + common
    pub_cmd += {"laser": ["--ranges", str(c["ranges"])], "bytes": ["--size", str(c["size"])],
                "image": ["--width", str(c["width"]), "--height", str(c["height"])],
                "jpeg": ["--width", str(c["width"]), "--height", str(c["height"]), "--quality", str(c["quality"])]}[c["type"]]
    if c["sync"] and c["pub"] == "py":
        pub_cmd += ["--sync"]

    quiet_wait = wait_quiet(a.wait_quiet, a.quiet_cores)
    load1 = os.getloadavg()[0]
    b0, t0 = machine_busy()
    sub = spawn(sub_cmd, master.env(), a.pin_sub)
    pub = spawn(pub_cmd, master.env(), a.pin_pub)
    budget = 30 + 0.5 + (c["warmup"] + c["count"]) / c["rate"] + 10 + 30
    try:
        pub_out, pub_err = pub.communicate(timeout=budget)
    except subprocess.TimeoutExpired:
        stop_group(pub, signal.SIGINT, 5)
        pub_out, pub_err = pub.communicate()
    try:
        sub_out, sub_err = sub.communicate(timeout=15)
    except subprocess.TimeoutExpired:
        stop_group(sub, signal.SIGINT, 5)
        sub_out, sub_err = sub.communicate()
    LIVE.clear()
    b1, t1 = machine_busy()
    p, s = last_json(pub_out) or {}, last_json(sub_out) or {}
    error = p.get("error") or s.get("error")
    if not p or not s:
        error = error or f"no summary (pub rc {pub.returncode}: {pub_err.strip()[-300:]!r}; " \
                         f"sub rc {sub.returncode}: {sub_err.strip()[-300:]!r})"
    r = record(c, a, p, s, rep, error, load1, (b1 - b0) / max(1, t1 - t0) * os.cpu_count(), csv)
    r["quiet_wait_s"] = quiet_wait
    return r


def label(c):
    size = {"laser": f"ranges={c['ranges']}", "image": f"{c['width']}x{c['height']}",
            "jpeg": f"{c['width']}x{c['height']} q{c['quality']}", "bytes": f"size={c['size']}"}[c["type"]]
    nd = " nodelay" if c["nodelay"] else ""
    return f"{c['type']} {size} {c['rate']:.4g}Hz {c['pub']}->{c['sub']}{nd}"


def record(c, a, p, s, rep, error, load1, busy_cores, csv):
    langs = {"cpp": "cpp", "py": "python"}
    r = {"experiment": a.experiment or a.preset or "cell", "system": "ros1",
         "transport": "tcpros+tcpNoDelay" if c["nodelay"] else "tcpros",
         "language": langs[c["pub"]] if c["pub"] == c["sub"] else f"{langs[c['pub']]}->{langs[c['sub']]}",
         "pub_lang": langs[c["pub"]], "sub_lang": langs[c["sub"]], "msg_type":
         {"laser": "sensor_msgs/LaserScan", "image": "sensor_msgs/Image", "jpeg": "sensor_msgs/CompressedImage",
          "bytes": "std_msgs/UInt8MultiArray"}[c["type"]],
         "label": label(c), "size_bytes": s.get("size_bytes", p.get("size_bytes")), "rate_hz": c["rate"],
         "tcp_nodelay": c["nodelay"], "queue": c["queue"], "rep": rep, "published": False, "ok": error is None,
         "sent": p.get("sent"), "received": s.get("received"), "lost": s.get("lost")}
    if c["type"] == "laser":
        r["ranges"] = c["ranges"]
    if c["type"] == "image":
        r.update(width=c["width"], height=c["height"], encoding="rgb8")
    if c["type"] == "jpeg":
        r.update(width=c["width"], height=c["height"], encoding="jpeg", quality=c["quality"],
                 jpeg_bytes_mean=p.get("jpeg_bytes_mean"), encode_mean_us=p.get("encode_mean_us"))
    for k in ("p50", "p90", "p99", "p999", "max", "min", "mean", "stddev"):
        r[f"{k}_us"] = s.get(f"{k}_us")
    r["cpu_pub_s"], r["cpu_sub_s"] = p.get("cpu_s"), s.get("cpu_s")
    ctx = [p.get("ctx_voluntary"), p.get("ctx_involuntary"), s.get("ctx_voluntary"), s.get("ctx_involuntary")]
    r["ctx_switches"] = sum(x for x in ctx if x is not None) if None not in ctx else None
    r.update(ctx_pub_voluntary=ctx[0], ctx_pub_involuntary=ctx[1], ctx_sub_voluntary=ctx[2], ctx_sub_involuntary=ctx[3])
    for k in ("p50", "p99", "max", "mean"):
        r[f"publish_{k}_us"] = p.get(f"publish_{k}_us")
        r[f"pub_late_{k}_us"] = p.get(f"late_{k}_us")
    r.update(bunched_pct=s.get("bunched_pct"), over_5ms=s.get("over_5ms"), sub_ended=s.get("ended"),
             loadavg1=load1, machine_busy_cores=round(busy_cores, 3), csv=csv, pub=p, sub=s)
    if error:
        r["error"] = error
    return r


def fmt(v, nd=0):
    return "-" if v is None else f"{v:,.{nd}f}"


def table(recs):
    hdr = f"{'cell':44} {'bytes':>9} {'recv':>9} {'mean':>7} {'p50':>7} {'p99':>7} {'max':>7} {'std':>7} " \
          f"{'bunch%':>6} {'late50':>6} {'pubcpu':>6} {'subcpu':>6} {'busy':>5}"
    lines = ["latency µs = receive − intended send time; late50 = publisher wake-up lateness p50 (µs); "
             "cpu = s over the measured window; busy = machine cores busy during the cell", hdr]
    for r in recs:
        lines.append(f"{r['label'][:44]:44} {fmt(r['size_bytes']):>9} {fmt(r['received'])+'/'+fmt(r['sent']):>9} "
                     f"{fmt(r['mean_us']):>7} {fmt(r['p50_us']):>7} {fmt(r['p99_us']):>7} {fmt(r['max_us']):>7} "
                     f"{fmt(r['stddev_us']):>7} {fmt(r['bunched_pct'], 1):>6} {fmt(r['pub_late_p50_us']):>6} "
                     f"{fmt(r['cpu_pub_s'], 2):>6} {fmt(r['cpu_sub_s'], 2):>6} {fmt(r['machine_busy_cores'], 2):>5}"
                     + ("" if r["ok"] else f"  ERROR {r.get('error')}"))
    print("\n".join(lines), file=sys.stderr, flush=True)


def main(argv):
    a = parse(argv)
    todo = cells(a)
    for prog in ("ros1_pub", "ros1_sub"):
        if any(c["pub" if prog == "ros1_pub" else "sub"] == "cpp" for c in todo) and \
                not os.access(os.path.join(a.bin_dir, prog), os.X_OK):
            return unavailable(f"{os.path.join(a.bin_dir, prog)} not built")
    if shutil.which("roscore") is None:
        return unavailable("roscore not on PATH (Debian package ros-core)")
    if any("py" in (c["pub"], c["sub"]) for c in todo) and subprocess.run(
            [PY, "-c", "import rospy"], capture_output=True).returncode != 0:
        return unavailable(f"{PY} cannot import rospy (Debian package python3-rospy)")
    signal.signal(signal.SIGTERM, on_term)
    log(f"{platform.node()} {platform.release()} {os.cpu_count()} CPUs, {len(todo)} cell(s) x {a.reps} rep(s)")
    try:
        master = Master()
    except RuntimeError as e:
        log(str(e))
        return 1
    recs, failed = [], 0
    try:
        n = 0
        for rep in range(a.reps):
            for i, c in enumerate(todo):
                n += 1
                log(f"[{n}/{len(todo) * a.reps}] {label(c)} rep {rep}")
                r = run_cell(c, a, master, i, rep)
                failed += not r["ok"]
                recs.append(r)
                print(json.dumps(r), flush=True)
    except KeyboardInterrupt:
        log("interrupted")
        failed += 1
    finally:
        for proc in LIVE:
            if proc.poll() is None:
                stop_group(proc, signal.SIGINT, 5)
        master.stop()
    if a.table:
        table(recs)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

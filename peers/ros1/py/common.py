"""Shared pieces of the rospy peer programs (pub.py, sub.py): order statistics, resource-use
windows and message construction. The same definitions as src/common.hpp, so C++ and Python
records compare field by field.

Stamps and receive times are CLOCK_REALTIME ns (time.time_ns(), what rospy.Time.now() reads);
durations inside one process use time.perf_counter_ns().
"""
import math
import resource
import time


def stats(prefix, values):
    """Nearest-rank p50/p90/p99/p99.9, min, max, mean and population std dev of µs samples."""
    out = {}
    names = (("p50", 50.0), ("p90", 90.0), ("p99", 99.0), ("p999", 99.9))
    if not values:
        for n, _ in names:
            out[f"{prefix}{n}_us"] = None
        for n in ("max", "min", "mean", "stddev"):
            out[f"{prefix}{n}_us"] = None
        return out
    v = sorted(values)
    n = len(v)
    for name, p in names:
        rank = max(1, math.ceil(p / 100.0 * n))
        out[f"{prefix}{name}_us"] = v[rank - 1]
    mean = sum(v) / n
    out[f"{prefix}max_us"] = v[-1]
    out[f"{prefix}min_us"] = v[0]
    out[f"{prefix}mean_us"] = mean
    out[f"{prefix}stddev_us"] = math.sqrt(sum((x - mean) ** 2 for x in v) / n)
    return out


class Usage:
    """getrusage plus the process CPU clock, taken at one instant."""

    def __init__(self):
        self.ru = resource.getrusage(resource.RUSAGE_SELF)
        self.cpu_ns = time.process_time_ns()
        self.mono = time.monotonic_ns()

    @staticmethod
    def window(a, b):
        return {
            "cpu_s": (b.cpu_ns - a.cpu_ns) / 1e9,
            "cpu_user_s": b.ru.ru_utime - a.ru.ru_utime,
            "cpu_sys_s": b.ru.ru_stime - a.ru.ru_stime,
            "ctx_voluntary": b.ru.ru_nvcsw - a.ru.ru_nvcsw,
            "ctx_involuntary": b.ru.ru_nivcsw - a.ru.ru_nivcsw,
            "window_s": (b.mono - a.mono) / 1e9,
        }


def msg_class(kind):
    """The ROS message class for --type laser|image|bytes."""
    if kind == "laser":
        from sensor_msgs.msg import LaserScan
        return LaserScan
    if kind == "image":
        from sensor_msgs.msg import Image
        return Image
    if kind == "bytes":
        from std_msgs.msg import UInt8MultiArray
        return UInt8MultiArray
    raise SystemExit(f"--type must be laser, image or bytes, got {kind!r}")


def serialized_len(msg):
    """Length of the message's ROS 1 serialization (without the 4-byte TCPROS length prefix)."""
    import io
    b = io.BytesIO()
    msg.serialize(b)
    return len(b.getvalue())

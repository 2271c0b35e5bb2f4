"""CPU placement of E4's processes and threads (``HIBARI_E4_CPUS=pub,sub``).

On a 2-core VM an event-driven wake-up costs ~3 µs when the woken thread runs
on the waker's CPU and 25–40 µs across CPUs, so latencies are compared only
under one placement: e4.py pins the publishing side to the first CPU and the
subscribing side (the subscriber process, or the executor thread in one
process) to the second, and passes the pair on in the environment so that
e4_rust and e4_rospy pin themselves the same way. Unset: the kernel places.
"""

import os

PLACEMENTS = {"same": "0,0", "cross": "0,1", "free": ""}


def pin(role):
    """Pins the calling thread (and the threads and processes it starts later)
    to the CPU of ``role`` (0: publisher, 1: subscriber); returns the CPU."""
    cpus = [int(c) for c in os.environ.get("HIBARI_E4_CPUS", "").split(",") if c.strip()]
    if len(cpus) != 2:
        return None
    os.sched_setaffinity(0, {cpus[role]})
    return cpus[role]

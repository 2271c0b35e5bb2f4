"""hibari's Python package as the other side of the C++ tests.

    py_peer.py talk TOPIC COUNT     waits for a subscription, publishes
                                    std_msgs/String "Hello World: 1".."COUNT"
    py_peer.py listen TOPIC COUNT   prints each string; exits 0 once COUNT
                                    arrived in order as "Hello World: N"
Every wait is bounded (60 s): a missing peer fails the run, never hangs it.
"""

from __future__ import annotations

import sys
import time

import hibari
from hibari.msg.std_msgs import String

LIMIT = 60.0


def talk(node: hibari.Node, topic: str, count: int) -> int:
    pub = node.create_publisher(String, topic, 10)
    end = time.monotonic() + LIMIT
    while pub.get_subscription_count() == 0:
        if time.monotonic() > end:
            print("no subscription matched", file=sys.stderr)
            return 1
        time.sleep(0.05)
    for i in range(1, count + 1):
        pub.publish(String(data=f"Hello World: {i}"))
        print(f"Publishing: 'Hello World: {i}'", flush=True)
        time.sleep(0.1)
    time.sleep(0.5)
    return 0


def listen(node: hibari.Node, topic: str, count: int) -> int:
    heard: list[str] = []
    node.create_subscription(String, topic, lambda m: heard.append(m.data), 10)
    end = time.monotonic() + LIMIT
    while len(heard) < count:
        if time.monotonic() > end:
            print(f"heard {len(heard)} of {count}", file=sys.stderr)
            return 1
        hibari.spin_once(node, timeout_sec=0.1)
    for i, data in enumerate(heard[:count], start=1):
        print(f"I heard: [{data}]", flush=True)
        if data != f"Hello World: {i}":
            print(f"expected 'Hello World: {i}'", file=sys.stderr)
            return 1
    print(f"heard all {count} messages", flush=True)
    return 0


def main() -> int:
    role, topic, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
    hibari.init()
    node = hibari.Node(f"py_{role}")
    try:
        return {"talk": talk, "listen": listen}[role](node, topic, count)
    finally:
        hibari.shutdown()


if __name__ == "__main__":
    sys.exit(main())

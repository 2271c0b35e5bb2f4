"""The asyncio face: ``async for msg in node.subscribe_async(...)`` while an
executor spins the node on another thread."""

from __future__ import annotations

import asyncio

import numpy as np

import hibari
from conftest import LONG


def test_async_for_receives_messages_with_zero_copy_arrays(node, topic) -> None:
    from hibari.msg.sensor_msgs import LaserScan

    async def main():
        sub = node.subscribe_async(LaserScan, topic, 10, with_info=True)
        pub = node.create_publisher(LaserScan, topic, 10)
        got = []
        async with hibari.aio.spin_in_background(node):
            async def produce():
                for i in range(5):
                    pub.publish(LaserScan(ranges=np.full(100, i, dtype=np.float32)))
                    await asyncio.sleep(0.001)

            producer = asyncio.ensure_future(produce())
            async for msg, info in sub:
                got.append((float(msg.ranges[0]), info.sequence, msg.ranges.flags.writeable))
                if len(got) == 5:
                    break
            await producer
        return got

    got = asyncio.run(asyncio.wait_for(main(), LONG))
    assert got == [(float(i), i + 1, False) for i in range(5)]


def test_a_full_async_queue_drops_the_oldest_and_counts_it(node, topic) -> None:
    from hibari.msg.std_msgs import Int32

    sub = node.subscribe_async(Int32, topic, 3)
    pub = node.create_publisher(Int32, topic, 10)
    executor = hibari.SingleThreadedExecutor()
    executor.add_node(node)
    for i in range(10):
        pub.publish(Int32(data=i))
        assert executor.spin_once(timeout_sec=LONG) is None  # moves it to the queue

    async def collect():
        return [(await sub.recv()).data for _ in range(3)]

    assert asyncio.run(asyncio.wait_for(collect(), LONG)) == [7, 8, 9]
    assert sub.dropped == 7 and sub.try_recv() is None

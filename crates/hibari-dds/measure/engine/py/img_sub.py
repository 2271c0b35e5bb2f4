# rclpy Image subscriber: img_sub.py <topic> <count> <warmup>; prints RESULT like the Rust program
import sys, time
import rclpy
from rclpy.qos import QoSProfile, ReliabilityPolicy, HistoryPolicy, DurabilityPolicy
from sensor_msgs.msg import Image

def main():
    topic, count, warmup = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    rclpy.init()
    node = rclpy.create_node('engine_img_sub')
    qos = QoSProfile(depth=10, reliability=ReliabilityPolicy.RELIABLE,
                     history=HistoryPolicy.KEEP_LAST, durability=DurabilityPolicy.VOLATILE)
    lat = {}
    state = {'last': None, 'done': False, 'bad': 0}
    def cb(m):
        t = time.time_ns()
        try:
            i = int(m.header.frame_id)
        except ValueError:
            state['bad'] += 1; return
        n = len(m.data)
        # spot-check the pattern at a few positions
        for p in (0, n // 3, n - 1):
            if n and m.data[p] != (((p + i % 4) * 2654435761) & 0xffffffff) >> 24:
                state['bad'] += 1; break
        if i >= warmup and i not in lat:
            lat[i] = (t - (m.header.stamp.sec * 1_000_000_000 + m.header.stamp.nanosec)) / 1e6
        state['last'] = time.time()
        if i + 1 >= count:
            state['done'] = True
    node.create_subscription(Image, topic, cb, qos)
    print('READY', flush=True)
    start = time.time()
    while not state['done']:
        rclpy.spin_once(node, timeout_sec=0.1)
        if state['last'] and time.time() - state['last'] > 5: break
        if time.time() - start > 120: break
    v = sorted(lat.values())
    q = lambda f: v[round((len(v) - 1) * f)] if v else float('nan')
    print('RESULT received %d/%d p50 %.1f p99 %.1f max %.1f ms bad %d' % (len(v), count - warmup, q(.5), q(.99), q(1.0), state['bad']), flush=True)
    node.destroy_node(); rclpy.shutdown()

main()

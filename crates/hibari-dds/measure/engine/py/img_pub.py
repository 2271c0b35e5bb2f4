# rclpy Image publisher: img_pub.py <topic> <data_len> <count> <hz>; frame_id = index, stamp = send time
import sys, time
import rclpy
from rclpy.qos import QoSProfile, ReliabilityPolicy, HistoryPolicy, DurabilityPolicy
from sensor_msgs.msg import Image

def main():
    topic, n, count, hz = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
    rclpy.init()
    node = rclpy.create_node('engine_img_pub')
    qos = QoSProfile(depth=10, reliability=ReliabilityPolicy.RELIABLE,
                     history=HistoryPolicy.KEEP_LAST, durability=DurabilityPolicy.VOLATILE)
    pub = node.create_publisher(Image, topic, qos)
    base = bytes(((i * 2654435761) & 0xffffffff) >> 24 for i in range(n + 3))
    datas = [base[k:k + n] for k in range(4)]
    msgs = []
    for k in range(4):
        m = Image(); m.height = 1; m.width = n; m.encoding = 'mono8'; m.step = n; m.data = datas[k]
        msgs.append(m)
    t0 = time.time()
    while pub.get_subscription_count() < 1:
        rclpy.spin_once(node, timeout_sec=0.02)
        if time.time() - t0 > 30:
            print('no subscriber', flush=True); return
    end = time.time() + 1.0
    while time.time() < end:
        rclpy.spin_once(node, timeout_sec=0.05)
    period = 1.0 / hz
    nxt = time.monotonic()
    for i in range(count):
        m = msgs[i % 4]
        m.header.frame_id = '%06d' % i
        t = time.time_ns()
        m.header.stamp.sec = t // 1_000_000_000
        m.header.stamp.nanosec = t % 1_000_000_000
        pub.publish(m)
        nxt += period
        d = nxt - time.monotonic()
        if d > 0:
            time.sleep(d)
    end = time.time() + 3.0
    while time.time() < end:
        rclpy.spin_once(node, timeout_sec=0.05)
    node.destroy_node(); rclpy.shutdown()

main()

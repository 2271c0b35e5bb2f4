"""A parameter node in the style of the ROS 2 tutorial "Using parameters in a
class (Python)", written fresh for hibari's port test (test_ports.py): it runs
unchanged under rclpy, and under hibari with only its imports renamed.

It declares a described string parameter and an integer, checks sets in an
on-set callback, and on each timer tick greets with the parameter, resets it
to "world" (the tutorial's move) and tries an empty value, which the callback
refuses. `--ros-args -p my_parameter:=... -p times:=N` override both. The
greeting is logged (ROS 2's console line on stderr, and /rosout); the rest is
printed.
"""

import sys

import rclpy
import rclpy.node
from rcl_interfaces.msg import ParameterDescriptor, SetParametersResult


class MinimalParam(rclpy.node.Node):
    def __init__(self):
        super().__init__('minimal_param_node')
        descriptor = ParameterDescriptor(description='Who to greet')
        self.declare_parameter('my_parameter', 'world', descriptor)
        self.declare_parameter('times', 2)
        self.add_on_set_parameters_callback(self.check)
        self.ticks = 0
        self.timer = self.create_timer(0.05, self.timer_callback)

    def check(self, params):
        for p in params:
            if p.name == 'my_parameter' and not p.value:
                return SetParametersResult(successful=False, reason='nobody to greet')
        return SetParametersResult(successful=True)

    def timer_callback(self):
        my_param = self.get_parameter('my_parameter').get_parameter_value().string_value
        self.get_logger().info('Hello %s!' % my_param)
        results = self.set_parameters([
            rclpy.parameter.Parameter('my_parameter', rclpy.Parameter.Type.STRING, 'world'),
            rclpy.parameter.Parameter('my_parameter', rclpy.Parameter.Type.STRING, ''),
        ])
        print('set', [(r.successful, r.reason) for r in results], flush=True)
        described = self.describe_parameter('my_parameter')
        print('described', described.description, described.type, flush=True)
        self.ticks += 1


def main(args=None):
    rclpy.init(args=args)
    node = MinimalParam()
    while rclpy.ok() and node.ticks < node.get_parameter('times').value:
        rclpy.spin_once(node, timeout_sec=1.0)
    node.destroy_node()
    rclpy.shutdown()


if __name__ == '__main__':
    main(sys.argv)

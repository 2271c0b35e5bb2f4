"""A logging node in the style of the ROS 2 demo "Logging and logger configuration"
(demo_nodes_py's logging examples), written fresh for hibari's port test (test_ports.py): it
runs unchanged under rclpy, and under hibari with only its imports renamed.

It logs at every severity, lets `--ros-args --log-level` and `set_level` decide what shows,
uses `once` and `skip_first` over a timer's ticks, and logs through a child logger. Only the
console lines (stderr) are compared; their timestamps are blanked by the test.
"""

import rclpy
from rclpy.logging import LoggingSeverity
from rclpy.node import Node


class LoggingDemo(Node):
    def __init__(self):
        super().__init__('logging_demo')
        self.ticks = 0
        self.timer = self.create_timer(0.02, self.on_tick)

    def on_tick(self):
        logger = self.get_logger()
        self.ticks += 1
        logger.info('tick once', once=True)
        logger.info(f'tick {self.ticks} (the first is skipped)', skip_first=True)
        if self.ticks == 3:
            logger.debug('debug hidden at the default level')
            logger.set_level(LoggingSeverity.DEBUG)
            logger.debug('debug shown after set_level(DEBUG)')
            logger.warning('a warning')
            logger.error('an error')
            logger.fatal('a fatal message')
            child = logger.get_child('child')
            child.info('from the child logger')
            print('child logger name', child.name, flush=True)
            print('effective level', logger.get_effective_level(), flush=True)


def main(args=None):
    rclpy.init(args=args)
    node = LoggingDemo()
    while rclpy.ok() and node.ticks < 4:
        rclpy.spin_once(node, timeout_sec=1.0)
    node.destroy_node()
    rclpy.shutdown()


if __name__ == '__main__':
    main()

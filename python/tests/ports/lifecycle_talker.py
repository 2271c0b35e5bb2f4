"""A lifecycle talker in the style of the ROS 2 lifecycle demo (lc_talker), written fresh for
hibari's port test (test_ports.py): it runs unchanged under rclpy, and under hibari with only
its imports renamed.

Its publisher is a lifecycle publisher: it publishes only while the node is active. The
script drives the node through configure, activate, deactivate, cleanup and shutdown itself,
publishing a few messages in each state, and a listener in the same process counts what got
through. The node's logs (ROS 2's console lines on stderr) use `once` and `skip_first`.
"""

import rclpy
from rclpy.lifecycle import Node, State, TransitionCallbackReturn
from std_msgs.msg import String


class LifecycleTalker(Node):
    def __init__(self):
        super().__init__('lc_talker')
        self.count = 0
        self.pub = None

    def on_configure(self, state: State) -> TransitionCallbackReturn:
        self.pub = self.create_lifecycle_publisher(String, 'lifecycle_chatter', 10)
        self.get_logger().info(f'on_configure() is called from state {state.label}.')
        return TransitionCallbackReturn.SUCCESS

    def on_activate(self, state: State) -> TransitionCallbackReturn:
        self.get_logger().info(f'on_activate() is called from state {state.label}.')
        return super().on_activate(state)

    def on_deactivate(self, state: State) -> TransitionCallbackReturn:
        self.get_logger().info(f'on_deactivate() is called from state {state.label}.')
        return super().on_deactivate(state)

    def on_cleanup(self, state: State) -> TransitionCallbackReturn:
        self.get_logger().info(f'on_cleanup() is called from state {state.label}.')
        return TransitionCallbackReturn.SUCCESS

    def on_shutdown(self, state: State) -> TransitionCallbackReturn:
        self.get_logger().info(f'on_shutdown() is called from state {state.label}.')
        return TransitionCallbackReturn.SUCCESS

    def publish(self):
        self.count += 1
        msg = String(data=f'Lifecycle HelloWorld #{self.count}')
        if self.pub.is_activated:
            self.get_logger().info(f'Lifecycle publisher is active. Publishing: [{msg.data}]',
                                   skip_first=True)
        else:
            self.get_logger().info('Lifecycle publisher is currently inactive. '
                                   'Messages are not published.', once=True)
        self.pub.publish(msg)


def main():
    rclpy.init()
    talker = LifecycleTalker()
    listener = rclpy.create_node('lc_listener')
    heard = []
    listener.create_subscription(String, 'lifecycle_chatter', lambda m: heard.append(m.data), 10)

    def publish_three():
        for _ in range(3):
            talker.publish()
        for _ in range(20):
            rclpy.spin_once(listener, timeout_sec=0.05)

    print('configure', talker.trigger_configure().name)
    publish_three()
    print('activate', talker.trigger_activate().name)
    publish_three()
    print('deactivate', talker.trigger_deactivate().name)
    publish_three()
    print('cleanup', talker.trigger_cleanup().name)
    print('shutdown', talker.trigger_shutdown().name)
    print('heard', heard)
    talker.destroy_node()
    listener.destroy_node()
    rclpy.shutdown()


if __name__ == '__main__':
    main()

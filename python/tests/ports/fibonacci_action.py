"""The ROS 2 action tutorial ("Writing an action server and client (Python)"), server and
client in one process, written for hibari's port test (test_ports.py): it runs unchanged under
rclpy, and under hibari with only its imports renamed.

Differences from the tutorial: the action type is test_msgs' Fibonacci (the tutorial's
action_tutorials_interfaces has no wheel; its feedback field is `sequence` rather than
`partial_sequence`), a step takes 0.05 s instead of 1 s, both nodes share one executor, and
sequences are printed with `tolist()`: rclpy's int32[] is an array.array, hibari's a numpy array,
and both print differently (both have `tolist()`).
"""

import time

import rclpy
from rclpy.action import ActionClient, ActionServer
from rclpy.executors import MultiThreadedExecutor
from rclpy.node import Node
from test_msgs.action import Fibonacci


class FibonacciActionServer(Node):

    def __init__(self):
        super().__init__('fibonacci_action_server')
        self._action_server = ActionServer(
            self,
            Fibonacci,
            'fibonacci',
            self.execute_callback)

    def execute_callback(self, goal_handle):
        self.get_logger().info('Executing goal...')

        feedback_msg = Fibonacci.Feedback()
        feedback_msg.sequence = [0, 1]

        for i in range(1, goal_handle.request.order):
            feedback_msg.sequence.append(
                feedback_msg.sequence[i] + feedback_msg.sequence[i-1])
            goal_handle.publish_feedback(feedback_msg)
            time.sleep(0.05)

        goal_handle.succeed()

        result = Fibonacci.Result()
        result.sequence = feedback_msg.sequence
        return result


class FibonacciActionClient(Node):

    def __init__(self):
        super().__init__('fibonacci_action_client')
        self._action_client = ActionClient(self, Fibonacci, 'fibonacci')

    def send_goal(self, order):
        goal_msg = Fibonacci.Goal()
        goal_msg.order = order

        self._action_client.wait_for_server()

        self._send_goal_future = self._action_client.send_goal_async(
            goal_msg, feedback_callback=self.feedback_callback)

        self._send_goal_future.add_done_callback(self.goal_response_callback)

    def goal_response_callback(self, future):
        goal_handle = future.result()
        if not goal_handle.accepted:
            self.get_logger().info('Goal rejected :(')
            return

        self.get_logger().info('Goal accepted :)')

        self._get_result_future = goal_handle.get_result_async()
        self._get_result_future.add_done_callback(self.get_result_callback)

    def get_result_callback(self, future):
        result = future.result().result
        self.get_logger().info('Result: {0}'.format(result.sequence.tolist()))
        rclpy.shutdown()

    def feedback_callback(self, feedback_msg):
        feedback = feedback_msg.feedback
        self.get_logger().info('Received feedback: {0}'.format(feedback.sequence.tolist()))


def main(args=None):
    rclpy.init(args=args)
    server = FibonacciActionServer()
    client = FibonacciActionClient()
    executor = MultiThreadedExecutor()
    executor.add_node(server)
    executor.add_node(client)
    client.send_goal(10)
    try:
        executor.spin()
    except Exception:  # rclpy raises ExternalShutdownException from spin after shutdown()
        pass
    print('done')


if __name__ == '__main__':
    main()

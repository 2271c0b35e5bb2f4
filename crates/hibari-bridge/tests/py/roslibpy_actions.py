"""roslibpy 2.1's ActionClient against hibari-bridge and a native hibari
action server (`/count`, type hibari_test/action/Count: int32 data goal,
string data result, int32 data feedback).

    python roslibpy_actions.py <port>

Sends a goal and checks its feedback and result (status SUCCEEDED), cancels
a long goal (status CANCELED), and sees a rejected goal reach the errback.
"""

import sys
import threading

import roslibpy
from roslibpy.comm.comm import GoalStatus

PORT = int(sys.argv[1])
TIMEOUT = 15

ros = roslibpy.Ros(host="127.0.0.1", port=PORT)
ros.run(timeout=TIMEOUT)
assert ros.is_connected
client = roslibpy.ActionClient(ros, "/count", "hibari_test/action/Count")


def run(data, cancel_after_first=False):
    feedback, results, errors = [], [], []
    first = threading.Event()

    def on_feedback(f):
        feedback.append(f["data"])
        first.set()

    goal_id = client.send_goal(
        roslibpy.Goal({"data": data}), results.append, on_feedback, errors.append
    )
    if cancel_after_first:
        assert first.wait(TIMEOUT), "no feedback"
        client.cancel_goal(goal_id)
    client.wait_goal(goal_id, TIMEOUT)
    return feedback, results, errors


feedback, results, errors = run(3)
assert not errors, errors
assert results[0]["status"] == GoalStatus.SUCCEEDED, results
assert results[0]["values"] == {"data": "counted to 3"}, results
print("feedback", feedback)

feedback, results, errors = run(100000, cancel_after_first=True)
assert results[0]["status"] == GoalStatus.CANCELED, results
assert results[0]["values"]["data"].startswith("canceled at"), results

feedback, results, errors = run(-1)
assert not results and errors, (results, errors)
assert errors[0]["status"] == GoalStatus.UNKNOWN, errors

ros.terminate()
print("ok")

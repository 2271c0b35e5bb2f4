"""The rclpy side of hibari's ROS 2 interop tests (crates/hibari/tests/ros2_interop.rs).

A real rclpy node over rmw_fastrtps_cpp (the PyPI wheels, scripts/ros2-peer.sh), one role per
run: `rclpy_peer.py <role> <args...>`. It talks to the test over lines: it prints what it saw on
stdout (`matched`, `got <data>`, `done ...`, JSON for the graph) and, where the test must say
when, waits for a line on stdin (`go`). Every wait is bounded (LIMIT seconds) and ends the
program with a message on stderr and exit code 2, so a test never hangs on its peer.
"""

import json
import sys
import threading
import time

import rclpy
from rclpy.node import Node
from rclpy.qos import (DurabilityPolicy, HistoryPolicy, QoSProfile, ReliabilityPolicy)

LIMIT = 60.0


def say(*words):
    print(*words, flush=True)


def fail(why):
    print(f"rclpy_peer: {why}", file=sys.stderr, flush=True)
    sys.exit(2)


def qos(reliability="reliable", durability="volatile", depth=10):
    return QoSProfile(
        history=HistoryPolicy.KEEP_LAST,
        depth=depth,
        reliability=(ReliabilityPolicy.RELIABLE if reliability == "reliable"
                     else ReliabilityPolicy.BEST_EFFORT),
        durability=(DurabilityPolicy.TRANSIENT_LOCAL if durability == "transient_local"
                    else DurabilityPolicy.VOLATILE),
    )


def spin_until(node, done, what, limit=LIMIT):
    end = time.monotonic() + limit
    while not done():
        if time.monotonic() > end:
            fail(f"timed out after {limit} s: {what}")
        rclpy.spin_once(node, timeout_sec=0.05)


def wait_for_go():
    line = sys.stdin.readline()
    if line.strip() != "go":
        fail(f"expected `go` on stdin, got {line!r}")


def stdin_closed_event():
    """Set when the test closes our stdin (or ends): the signal to leave."""
    closed = threading.Event()

    def watch():
        sys.stdin.read()
        closed.set()

    threading.Thread(target=watch, daemon=True).start()
    return closed


# ---- topics ----

def talk(node, topic, count, reliability):
    """Waits for a subscriber, says `matched`, waits for `go`, publishes `count` strings
    `msg <i>` (reliable: once; best effort: again and again until stdin closes)."""
    from std_msgs.msg import String
    pub = node.create_publisher(String, topic, qos(reliability))
    spin_until(node, lambda: pub.get_subscription_count() > 0, "a subscriber")
    say("matched")
    wait_for_go()
    closed = stdin_closed_event() if reliability != "reliable" else None
    i = 0
    while True:
        pub.publish(String(data=f"msg {i}"))
        i += 1
        if closed is None and i == count:
            break
        if closed is not None and closed.is_set():
            break
        if closed is not None and i > count * 200:
            fail("the test never closed stdin")
        rclpy.spin_once(node, timeout_sec=0.02)
    say(f"sent {i}")
    # Reliable: stay until the test has what it needs (it closes stdin).
    if closed is None:
        stdin_closed_event().wait(LIMIT)


def listen(node, topic, count, reliability, durability="volatile"):
    """Prints `got <data>` per string until `count` arrived, then `done <n>`."""
    from std_msgs.msg import String
    got = []
    sub = node.create_subscription(String, topic,
                                   lambda m: (got.append(m.data), say("got", m.data)),
                                   qos(reliability, durability))
    spin_until(node, lambda: sub.get_publisher_count() > 0, "a publisher")
    say("matched")
    spin_until(node, lambda: len(got) >= count, f"{count} strings on {topic} (got {len(got)})")
    say(f"done {len(got)}")


def latch(node, topic, count):
    """A transient-local publisher that publishes `count` strings before anyone listens."""
    from std_msgs.msg import String
    pub = node.create_publisher(String, topic, qos("reliable", "transient_local"))
    for i in range(count):
        pub.publish(String(data=f"early {i}"))
    say("published")
    stdin_closed_event().wait(LIMIT)


# ---- 1080p images ----

WIDTH, HEIGHT = 1920, 1080
SIZE = WIDTH * HEIGHT * 3


def pixels(seq):
    import numpy as np
    return ((np.arange(SIZE, dtype=np.uint32) + seq * 7) % 251).astype(np.uint8)


def image_talk(node, topic, count):
    """Waits for a subscriber and `go`, then publishes `count` 1080p rgb8 frames at 30 Hz
    (frame_id = sequence, pixels = pixels(seq))."""
    from sensor_msgs.msg import Image
    pub = node.create_publisher(Image, topic, qos(depth=count))  # every frame kept (topics.rs)
    spin_until(node, lambda: pub.get_subscription_count() > 0, "a subscriber")
    say("matched")
    wait_for_go()
    frames = [pixels(s) for s in range(4)]
    start = time.monotonic()
    for seq in range(count):
        m = Image(height=HEIGHT, width=WIDTH, encoding="rgb8", step=WIDTH * 3)
        m.header.frame_id = str(seq)
        m.data = frames[seq % 4].tobytes()
        pub.publish(m)
        delay = start + (seq + 1) / 30.0 - time.monotonic()
        if delay > 0:
            rclpy.spin_once(node, timeout_sec=delay)
    say(f"sent {count}")
    stdin_closed_event().wait(LIMIT)


def image_listen(node, topic, count):
    """Counts 1080p frames whose bytes are exactly pixels(seq); `done <received> <exact>`."""
    from sensor_msgs.msg import Image
    expected = [pixels(s).tobytes() for s in range(4)]
    got = {"n": 0, "exact": 0}

    def on_image(m):
        got["n"] += 1
        seq = int(m.header.frame_id)
        if (m.width, m.height, m.step, m.encoding) == (WIDTH, HEIGHT, WIDTH * 3, "rgb8") \
                and bytes(m.data) == expected[seq % 4]:
            got["exact"] += 1
        else:
            print(f"rclpy_peer: frame {seq} differs", file=sys.stderr, flush=True)

    sub = node.create_subscription(Image, topic, on_image, qos(depth=count))
    spin_until(node, lambda: sub.get_publisher_count() > 0, "a publisher")
    say("matched")
    end = time.monotonic() + LIMIT
    while got["n"] < count and time.monotonic() < end:
        rclpy.spin_once(node, timeout_sec=0.05)
    say(f"done {got['n']} {got['exact']}")


# ---- the graph ----

def graph(node, hibari_node, topic, own_topic):
    """Publishes on `own_topic` (for hibari's graph), waits until `hibari_node` and its
    publisher on `topic` are in rclpy's graph, then prints what rclpy's graph queries say
    as JSON, and stays until stdin closes."""
    from std_msgs.msg import String
    node.create_publisher(String, own_topic, qos())

    def seen():
        names = {n for n, _ in node.get_node_names_and_namespaces()}
        return hibari_node in names and any(
            i.node_name == hibari_node for i in node.get_publishers_info_by_topic(topic))

    spin_until(node, seen, f"node {hibari_node} publishing {topic} in rclpy's graph")
    pubs = node.get_publishers_info_by_topic(topic)
    say(json.dumps({
        "nodes": [[n, ns] for n, ns in node.get_node_names_and_namespaces()],
        "topics": {t: list(ty) for t, ty in node.get_topic_names_and_types()},
        "publishers": [{
            "node_name": i.node_name,
            "node_namespace": i.node_namespace,
            "topic_type": i.topic_type,
            "topic_type_hash": str(i.topic_type_hash),
            "reliability": i.qos_profile.reliability.name,
        } for i in pubs],
    }))
    stdin_closed_event().wait(LIMIT)


def linger(node, topic):
    """A node with a publisher that stays until it is killed (or stdin closes)."""
    from std_msgs.msg import String
    node.create_publisher(String, topic, qos())
    say("ready")
    closed = stdin_closed_event()
    while not closed.is_set():
        rclpy.spin_once(node, timeout_sec=0.1)


# ---- QoS incompatibility ----

def incompatible(node, side, topic):
    """`reader`: a reliable subscription; `writer`: a best-effort publisher. Prints
    `incompatible <POLICY>` when rclpy reports incompatible QoS with a peer."""
    from rclpy.event_handler import PublisherEventCallbacks, SubscriptionEventCallbacks
    from std_msgs.msg import String
    seen = []

    def on_event(info):
        seen.append(info.last_policy_kind)

    if side == "reader":
        node.create_subscription(
            String, topic, lambda m: None, qos("reliable"),
            event_callbacks=SubscriptionEventCallbacks(incompatible_qos=on_event))
    else:
        node.create_publisher(
            String, topic, qos("best_effort"),
            event_callbacks=PublisherEventCallbacks(incompatible_qos=on_event))
    say("ready")
    spin_until(node, lambda: seen, "an incompatible QoS event")
    name = getattr(seen[0], "name", str(seen[0]))
    say(f"incompatible {name}")
    stdin_closed_event().wait(LIMIT)


# ---- services (std_srvs/SetBool) ----

def serve(node, service):
    """A SetBool server: success = request.data, message = `rclpy:<data>`."""
    from std_srvs.srv import SetBool

    def on_request(request, response):
        response.success = request.data
        response.message = f"rclpy:{request.data}"
        return response

    node.create_service(SetBool, service, on_request)
    say("ready")
    closed = stdin_closed_event()
    while not closed.is_set():
        rclpy.spin_once(node, timeout_sec=0.05)


def call(node, service, value, count):
    """Calls `count` times with data=`value` (`true`/`false`) once told `go`, a few calls
    in flight at once; prints `done <replies> <wrong>`: a wrong reply has another value."""
    from std_srvs.srv import SetBool
    client = node.create_client(SetBool, service)
    spin_until(node, client.service_is_ready, f"the service {service}")
    say("matched")
    wait_for_go()
    data = value == "true"
    futures = []
    wrong = 0
    replies = 0

    def reply(f):
        nonlocal wrong, replies
        spin_until(node, f.done, f"reply {replies + 1} of {count}")
        wrong += f.result().success != data
        replies += 1
        say(f"reply {replies}")

    for _ in range(count):
        futures.append(client.call_async(SetBool.Request(data=data)))
        if len(futures) >= 4:
            reply(futures.pop(0))
    for f in futures:
        reply(f)
    say(f"done {count} {wrong}")


# ---- actions (test_msgs/action/Fibonacci) ----

def fib_server(node, action):
    """A Fibonacci server: one feedback per number every 0.1 s, cancels accepted and
    honoured between numbers. Runs until stdin closes."""
    from rclpy.action import ActionServer, CancelResponse, GoalResponse
    from rclpy.callback_groups import ReentrantCallbackGroup
    from rclpy.executors import MultiThreadedExecutor
    from test_msgs.action import Fibonacci

    def execute(goal_handle):
        sequence = [0, 1]
        for i in range(1, goal_handle.request.order):
            if goal_handle.is_cancel_requested:
                goal_handle.canceled()
                return Fibonacci.Result(sequence=sequence)
            sequence.append(sequence[i] + sequence[i - 1])
            goal_handle.publish_feedback(Fibonacci.Feedback(sequence=sequence))
            time.sleep(0.1)
        goal_handle.succeed()
        return Fibonacci.Result(sequence=sequence)

    ActionServer(node, Fibonacci, action, execute_callback=execute,
                 goal_callback=lambda goal: GoalResponse.ACCEPT,
                 cancel_callback=lambda goal: CancelResponse.ACCEPT,
                 callback_group=ReentrantCallbackGroup())
    executor = MultiThreadedExecutor(num_threads=3)
    executor.add_node(node)
    say("ready")
    closed = stdin_closed_event()
    while not closed.is_set():
        executor.spin_once(timeout_sec=0.05)


def fib_client(node, action):
    """Sends order 5 (prints each `feedback <list>` and `result <status> <list>`), then
    order 50, cancels it after its first feedback and prints `cancel <return code>` and
    its `result <status> <list>` (status names from action_msgs/GoalStatus)."""
    from action_msgs.msg import GoalStatus
    from rclpy.action import ActionClient
    from test_msgs.action import Fibonacci
    names = {v: k[len("STATUS_"):] for k, v in vars(GoalStatus).items() if k.startswith("STATUS_")}
    client = ActionClient(node, Fibonacci, action)
    spin_until(node, client.server_is_ready, f"the action server {action}")
    say("matched")
    feedback = []

    def on_feedback(f):
        feedback.append(list(f.feedback.sequence))
        say("feedback", json.dumps(list(f.feedback.sequence)))

    for order, cancel in ((5, False), (50, True)):
        feedback.clear()
        sent = client.send_goal_async(Fibonacci.Goal(order=order), feedback_callback=on_feedback)
        spin_until(node, sent.done, "the goal response")
        handle = sent.result()
        if not handle.accepted:
            fail(f"goal {order} was rejected")
        if cancel:
            spin_until(node, lambda: feedback, "the first feedback")
            canceling = handle.cancel_goal_async()
            spin_until(node, canceling.done, "the cancel response")
            say(f"cancel {canceling.result().return_code}")
        result = handle.get_result_async()
        spin_until(node, result.done, "the result")
        r = result.result()
        say(f"result {names.get(r.status, r.status)} {json.dumps(list(r.result.sequence))}")


def value_json(v):
    """A ParameterValue message as [type, value] (rcl_interfaces' field of its type)."""
    from rclpy.parameter import parameter_value_to_python
    value = parameter_value_to_python(v)
    return [v.type, list(value) if isinstance(value, (list, tuple)) or hasattr(value, "tolist")
            else value]


def param_client(node, target):
    """Reads and sets the parameters of `target` (a hibari node) with rclpy's own client."""
    from rcl_interfaces.msg import ParameterEvent
    from rclpy.parameter import Parameter
    from rclpy.parameter_client import AsyncParameterClient

    events = []
    node.create_subscription(ParameterEvent, "/parameter_events",
                             lambda e: events.append(e) if e.node == target else None,
                             qos(depth=1000))
    client = AsyncParameterClient(node, target)
    if not client.wait_for_services(timeout_sec=LIMIT):
        fail(f"the parameter services of {target} did not appear")

    def done(future, what):
        spin_until(node, future.done, what)
        return future.result()

    out = {}
    listed = done(client.list_parameters(), "list_parameters")
    out["names"] = sorted(listed.result.names)
    got = done(client.get_parameters(["rate", "gain"]), "get_parameters")
    out["values"] = [value_json(v) for v in got.values]
    out["missing"] = len(done(client.get_parameters(["rate", "nope"]), "get nope").values)
    described = done(client.describe_parameters(["gain"]), "describe_parameters").descriptors[0]
    out["gain"] = {"description": described.description, "type": described.type,
                   "range": [[r.from_value, r.to_value, r.step]
                             for r in described.floating_point_range]}
    types = done(client.get_parameter_types(["rate", "port"]), "get_parameter_types").types
    out["types"] = list(types)
    results = done(client.set_parameters([
        Parameter("rate", value=60),
        Parameter("rate", value="fast"),
        Parameter("gain", value=2.0),
        Parameter("port", value="/dev/other"),
        Parameter("nope", value=1),
    ]), "set_parameters").results
    out["set"] = [[r.successful, r.reason] for r in results]
    spin_until(node, lambda: any(p.name == "rate" for e in events for p in e.changed_parameters),
               "a /parameter_events message with rate changed")
    changed = [p for e in events for p in e.changed_parameters if p.name == "rate"][0]
    out["event"] = value_json(changed.value)
    say("result", json.dumps(out))


def param_server(node, _args):
    """Declares parameters as a tutorial node does; refuses a gain above 0.9; says each set."""
    from rcl_interfaces.msg import FloatingPointRange, ParameterDescriptor, SetParametersResult

    node.declare_parameter("rate", 30)
    node.declare_parameter("gain", 0.5, ParameterDescriptor(
        description="the gain",
        floating_point_range=[FloatingPointRange(from_value=0.0, to_value=1.0, step=0.0)]))
    node.declare_parameter("names", ["a", "b"])

    def check(params):
        for p in params:
            if p.name == "gain" and p.value > 0.9:
                return SetParametersResult(successful=False, reason="gain above 0.9")
        return SetParametersResult(successful=True)

    node.add_on_set_parameters_callback(check)
    node.add_post_set_parameters_callback(
        lambda params: [say("set", p.name, json.dumps(p.value)) for p in params])
    say("ready")
    closed = stdin_closed_event()
    while not closed.is_set():
        rclpy.spin_once(node, timeout_sec=0.05)


def rosout(node, watched, count):
    """Prints the /rosout records of the logger `watched` and its children, as rqt_console
    reads them."""
    from rcl_interfaces.msg import Log

    got = []
    # rcl's rosout QoS (Jazzy's rclpy does not name it): reliable, transient local, 1000.
    node.create_subscription(Log, "/rosout",
                             lambda m: got.append(m) if m.name.startswith(watched) else None,
                             qos(durability="transient_local", depth=1000))
    say("ready")
    spin_until(node, lambda: len(got) >= count,
               f"{count} /rosout records of {watched} (got {[m.msg for m in got]})", limit=LIMIT / 2)
    for m in got:
        say("log", m.level, m.name, json.dumps(m.msg), m.file, m.line > 0)


# ---- time ----

def clock_talk(node, _args):
    """Publishes `/clock` (as a simulator does) with each time the test sends: `clock <ns>`."""
    from rosgraph_msgs.msg import Clock

    publisher = node.create_publisher(Clock, "/clock", 10)
    say("ready")
    for line in sys.stdin:
        ns = int(line.split()[1])
        msg = Clock()
        msg.clock.sec, msg.clock.nanosec = divmod(ns, 1_000_000_000)
        publisher.publish(msg)


def sim_time(node, _args):
    """With use_sim_time set, prints `now <ns>` whenever the node's clock reads a new time, and
    `tick <ns>` for every call of a 1 s timer on it; leaves when stdin closes."""
    from rclpy.parameter import Parameter

    node.set_parameters([Parameter("use_sim_time", Parameter.Type.BOOL, True)])
    node.create_timer(1.0, lambda: say("tick", node.get_clock().now().nanoseconds))
    say("ready")
    closed = stdin_closed_event()
    last = None
    while not closed.is_set():
        rclpy.spin_once(node, timeout_sec=0.02)
        now = node.get_clock().now().nanoseconds
        if now != last:
            say("now", now)
            last = now


# ---- lifecycle ----

def lifecycle_client(node, target):
    """Drives the lifecycle node `target` (configure by id, activate by label, a transition
    it does not have), then prints its state, transitions and the events it published as
    `result <json>`."""
    from lifecycle_msgs.msg import Transition, TransitionEvent
    from lifecycle_msgs.srv import ChangeState, GetAvailableTransitions, GetState

    events = []
    node.create_subscription(TransitionEvent, f"{target}/transition_event",
                             lambda e: events.append([e.transition.id, e.start_state.id,
                                                      e.goal_state.id]), qos(depth=100))
    change = node.create_client(ChangeState, f"{target}/change_state")
    get = node.create_client(GetState, f"{target}/get_state")
    available = node.create_client(GetAvailableTransitions,
                                   f"{target}/get_available_transitions")
    for c in (change, get, available):
        spin_until(node, c.service_is_ready, f"the service {c.srv_name}")
    # The event subscription must match before the first transition.
    spin_until(node, lambda: node.count_publishers(f"{target}/transition_event") > 0,
               "the transition_event publisher")
    time.sleep(0.5)

    def call(client, request):
        future = client.call_async(request)
        spin_until(node, future.done, f"a reply of {client.srv_name}")
        return future.result()

    result = {}
    result["configure"] = call(change, ChangeState.Request(
        transition=Transition(id=Transition.TRANSITION_CONFIGURE))).success
    result["activate"] = call(change, ChangeState.Request(
        transition=Transition(label="activate"))).success
    result["cleanup_from_active"] = call(change, ChangeState.Request(
        transition=Transition(id=Transition.TRANSITION_CLEANUP))).success
    s = call(get, GetState.Request()).current_state
    result["state"] = [s.id, s.label]
    result["transitions"] = [[t.transition.id, t.transition.label, t.goal_state.label]
                             for t in call(available, GetAvailableTransitions.Request())
                             .available_transitions]
    spin_until(node, lambda: len(events) >= 4, f"4 transition events (got {events})")
    result["events"] = events
    say("result", json.dumps(result))


def lifecycle_node(node, _args):
    """Runs an rclpy lifecycle node named after our node with `_managed`, printing
    `cb <name> <previous state>` for each callback; its on_activate fails the first time."""
    from rclpy.lifecycle import Node as LifecycleNode
    from rclpy.lifecycle import TransitionCallbackReturn

    failed = []

    class Managed(LifecycleNode):
        def on_configure(self, state):
            say("cb configure", state.label)
            return TransitionCallbackReturn.SUCCESS

        def on_activate(self, state):
            say("cb activate", state.label)
            if not failed:
                failed.append(1)
                return TransitionCallbackReturn.FAILURE
            return super().on_activate(state)

        def on_deactivate(self, state):
            say("cb deactivate", state.label)
            return super().on_deactivate(state)

    managed = Managed(node.get_name() + "_managed")
    say("ready")
    closed = stdin_closed_event()
    while not closed.is_set():
        rclpy.spin_once(managed, timeout_sec=0.05)
    managed.destroy_node()


ROLES = {
    "talk": lambda n, a: talk(n, a[0], int(a[1]), a[2]),
    "listen": lambda n, a: listen(n, a[0], int(a[1]), a[2], *(a[3:4])),
    "latch": lambda n, a: latch(n, a[0], int(a[1])),
    "image_talk": lambda n, a: image_talk(n, a[0], int(a[1])),
    "image_listen": lambda n, a: image_listen(n, a[0], int(a[1])),
    "graph": lambda n, a: graph(n, a[0], a[1], a[2]),
    "linger": lambda n, a: linger(n, a[0]),
    "incompatible": lambda n, a: incompatible(n, a[0], a[1]),
    "serve": lambda n, a: serve(n, a[0]),
    "call": lambda n, a: call(n, a[0], a[1], int(a[2])),
    "fib_server": lambda n, a: fib_server(n, a[0]),
    "fib_client": lambda n, a: fib_client(n, a[0]),
    "param_client": lambda n, a: param_client(n, a[0]),
    "param_server": lambda n, a: param_server(n, a),
    "rosout": lambda n, a: rosout(n, a[0], int(a[1])),
    "clock_talk": clock_talk,
    "lifecycle_client": lambda n, a: lifecycle_client(n, a[0]),
    "lifecycle_node": lifecycle_node,
    "sim_time": sim_time,
}


def main():
    if len(sys.argv) < 3 or sys.argv[1] not in ROLES:
        fail(f"usage: rclpy_peer.py <{'|'.join(ROLES)}> <node name> <args...>")
    role, name, args = sys.argv[1], sys.argv[2], sys.argv[3:]
    rclpy.init()
    node = Node(name)
    try:
        ROLES[role](node, args)
    finally:
        node.destroy_node()
        rclpy.try_shutdown()


if __name__ == "__main__":
    main()

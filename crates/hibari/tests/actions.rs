//! ROS 2 actions through the public API: real threads (the server executes
//! goals on a thread of its own, an executor spins the nodes on another),
//! typed and generic ends talking to each other, and one goal across two
//! processes (the child is this test binary run again with
//! `HIBARI_TEST_ACTION_CHILD` set and `--ignored --exact child`: `child` is an
//! ignored helper, not a test, so it is never counted as a passing one).

use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::sync::Arc;
use std::time::Duration;

use hibari::action::{ActionSendGoalError, ActionServerOptions, GetResultError, GoalId};
use hibari::dynamic::Value;
use hibari::interfaces::{Distro, InterfaceKind, Registry, TypeName};
use hibari::msg::action_msgs::msg::GoalStatusArray;
use hibari::msg::std_msgs::msg::{Int32, String as RosString};
use hibari::{
    ActionServer, CallError, CancelResponse, Context, GoalResponse, GoalStatus, Node, QosProfile,
    ServerGoalHandle, SingleThreadedExecutor,
};

#[path = "support/spinner.rs"]
mod spinner;
use spinner::Spinner;
#[path = "support/count.rs"]
mod count;
use count::{holding_server, Count};

const CHILD: &str = "HIBARI_TEST_ACTION_CHILD";
const WAIT: Duration = Duration::from_secs(10);

/// The same action, as a definition for generic ends.
fn registry() -> Arc<Registry> {
    let mut registry = Registry::bundled(Distro::Jazzy);
    registry
        .add_action_text(
            TypeName::new("hibari_test", InterfaceKind::Action, "Count"),
            "int32 data\n---\nstring data\n---\nint32 data\n",
            "Count.action",
        )
        .unwrap();
    Arc::new(registry)
}

/// Executes one goal: feedback 1..=n every `step`, ending canceled as soon
/// as a cancel is accepted.
fn execute(handle: ServerGoalHandle<Count>, step: Duration) {
    let n = handle.goal().data;
    for i in 1..=n {
        if handle.is_cancel_requested() {
            let done = RosString {
                data: format!("canceled at {i}"),
            };
            handle.canceled(done).unwrap();
            return;
        }
        handle.publish_feedback(&Int32 { data: i }).unwrap();
        std::thread::sleep(step);
    }
    handle
        .succeed(RosString {
            data: format!("counted to {n}"),
        })
        .unwrap();
}

/// A server of `Count` on `node` rejecting negative goals, executing each
/// accepted goal on a thread of its own.
fn count_server(node: &Node, step: Duration) -> ActionServer<Count> {
    node.create_action_server::<Count>(
        "count",
        ActionServerOptions::default(),
        |_id: &GoalId, goal: &Int32| {
            if goal.data < 0 {
                GoalResponse::Reject
            } else {
                GoalResponse::AcceptAndExecute
            }
        },
        |_id: &GoalId| CancelResponse::Accept,
        move |handle| {
            std::thread::spawn(move || execute(handle, step));
        },
    )
    .unwrap()
}

#[test]
fn a_goal_sends_its_feedback_in_order_then_succeeds_with_its_result() {
    let context = Context::builder().isolated().create().unwrap();
    let server_node = context.create_node("counter").unwrap();
    let client_node = context.create_node("asker").unwrap();
    let _server = count_server(&server_node, Duration::from_millis(2));
    let client = client_node.create_action_client::<Count>("count").unwrap();
    let _spin = Spinner::new(&[&server_node, &client_node]);
    assert!(client.wait_for_server(WAIT));

    let (tx, rx) = mpsc::channel();
    let feedback = Box::new(move |f: Int32| {
        let _ = tx.send(f.data);
    });
    let goal = client
        .send_goal(Int32 { data: 5 }, Some(feedback), WAIT)
        .unwrap();
    let result = goal.get_result(WAIT).unwrap();
    assert_eq!(result.status, GoalStatus::Succeeded);
    assert_eq!(result.result.data, "counted to 5");
    assert_eq!(&result.goal_id, goal.goal_id());
    // Feedback is a topic, the result a reply: they may arrive in either order.
    let heard: Vec<i32> = (0..5).map(|_| rx.recv_timeout(WAIT).unwrap()).collect();
    assert_eq!(heard, vec![1, 2, 3, 4, 5], "all feedback, in order");
    // The result stays available to a second asker.
    assert_eq!(goal.get_result(WAIT).unwrap().result.data, "counted to 5");
}

#[test]
fn a_canceled_goal_ends_canceled_and_says_where_it_stopped() {
    let context = Context::builder().isolated().create().unwrap();
    let node = context.create_node("both").unwrap();
    let _server = count_server(&node, Duration::from_millis(20));
    let client = node.create_action_client::<Count>("count").unwrap();
    let _spin = Spinner::new(&[&node]);
    assert!(client.wait_for_server(WAIT));

    let (tx, rx) = mpsc::channel();
    let feedback = Box::new(move |f: Int32| {
        let _ = tx.send(f.data);
    });
    let goal = client
        .send_goal(Int32 { data: 1000 }, Some(feedback), WAIT)
        .unwrap();
    assert_eq!(rx.recv_timeout(WAIT), Ok(1), "it started");
    // Asked before the cancel, answered when the goal ends (not when it starts canceling).
    let early = goal.get_result_async();
    let answer = goal.cancel(WAIT).unwrap();
    assert_eq!(answer.return_code, 0);
    assert_eq!(answer.goals_canceling.len(), 1);
    assert_eq!(&answer.goals_canceling[0].goal_id.uuid, goal.goal_id());
    let result = SingleThreadedExecutor::new()
        .spin_until_future_complete(early, WAIT)
        .unwrap()
        .unwrap();
    assert_eq!(result.status, GoalStatus::Canceled);
    assert_eq!(goal.get_result(WAIT).unwrap().status, GoalStatus::Canceled);
    assert!(
        result.result.data.starts_with("canceled at "),
        "{}",
        result.result.data
    );
    // An ended goal cannot be canceled again.
    assert_eq!(goal.cancel(WAIT).unwrap().return_code, 3);
}

#[test]
fn a_rejected_goal_fails_to_send_and_leaves_nothing_behind() {
    let context = Context::builder().isolated().create().unwrap();
    let node = context.create_node("both").unwrap();
    let server = count_server(&node, Duration::from_millis(1));
    let client = node.create_action_client::<Count>("count").unwrap();
    let _spin = Spinner::new(&[&node]);
    assert!(client.wait_for_server(WAIT));
    match client.send_goal(Int32 { data: -1 }, None, WAIT) {
        Err(ActionSendGoalError::Rejected) => {}
        other => panic!("expected a rejection, got {other:?}"),
    }
    // Unknown goals answer with status UNKNOWN, at once.
    assert_eq!(server.goal_status(&[9; 16]), GoalStatus::Unknown);
}

#[test]
fn without_a_server_waiting_times_out_and_sending_fails_at_once() {
    let context = Context::builder().isolated().create().unwrap();
    let node = context.create_node("alone").unwrap();
    let client = node.create_action_client::<Count>("nobody").unwrap();
    assert!(!client.wait_for_server(Duration::from_millis(100)));
    assert!(!client.action_server_is_ready());
    match client.send_goal(Int32 { data: 1 }, None, WAIT) {
        Err(ActionSendGoalError::Call(CallError::ServiceUnavailable { service })) => {
            assert_eq!(service, "/nobody/_action/send_goal");
        }
        other => panic!("expected no server, got {other:?}"),
    }
}

#[test]
fn a_generic_client_drives_a_typed_server_with_dynamic_values() {
    let context = Context::builder().isolated().create().unwrap();
    let node = context.create_node("both").unwrap();
    let _server = count_server(&node, Duration::from_millis(1));
    let client = node
        .create_generic_action_client("count", "hibari_test/action/Count", registry())
        .unwrap();
    let _spin = Spinner::new(&[&node]);
    assert!(client.wait_for_server(WAIT));
    let (tx, rx) = mpsc::channel();
    let feedback = Box::new(move |f: Value| {
        let _ = tx.send(f.get_path("data").and_then(Value::as_i64));
    });
    let goal = hibari::dynamic::Struct::new().with("data", Value::Int(3));
    let goal = client
        .send_goal(Value::Message(goal), Some(feedback), WAIT)
        .unwrap();
    let result = goal.get_result(WAIT).unwrap();
    assert_eq!(result.status, GoalStatus::Succeeded);
    assert_eq!(
        result.result.get_path("data").and_then(Value::as_str),
        Some("counted to 3")
    );
    let heard: Vec<_> = (0..3).map(|_| rx.recv_timeout(WAIT).unwrap()).collect();
    assert_eq!(heard, vec![Some(1), Some(2), Some(3)]);
}

#[test]
fn a_typed_client_drives_a_generic_server_that_answers_from_another_thread() {
    let context = Context::builder().isolated().create().unwrap();
    let node = context.create_node("both").unwrap();
    let _server = node
        .create_generic_action_server(
            "echo",
            "hibari_test/action/Count",
            registry(),
            ActionServerOptions::default(),
            |_id: &GoalId, _goal: &Value| GoalResponse::AcceptAndExecute,
            |_id: &GoalId| CancelResponse::Reject,
            |handle| {
                std::thread::spawn(move || {
                    let n = handle.goal().get_path("data").and_then(Value::as_i64);
                    let feedback = hibari::dynamic::Struct::new().with("data", Value::Int(7));
                    handle.publish_feedback(&Value::Message(feedback)).unwrap();
                    let text = format!("echo {n:?}");
                    let result = hibari::dynamic::Struct::new().with("data", Value::String(text));
                    handle.abort(Value::Message(result)).unwrap();
                });
            },
        )
        .unwrap();
    let client = node.create_action_client::<Count>("echo").unwrap();
    let _spin = Spinner::new(&[&node]);
    assert!(client.wait_for_server(WAIT));
    let goal = client.send_goal(Int32 { data: 4 }, None, WAIT).unwrap();
    let result = goal.get_result(WAIT).unwrap();
    assert_eq!(result.status, GoalStatus::Aborted);
    assert_eq!(result.result.data, "echo Some(4)");
}

#[test]
fn a_blocking_get_result_ends_with_a_shutdown_error_when_the_context_shuts_down() {
    let context = Context::builder().isolated().create().unwrap();
    let node = context.create_node("both").unwrap();
    let (_server, handles) = holding_server(&node, ActionServerOptions::default());
    let client = node.create_action_client::<Count>("count").unwrap();
    let _spin = Spinner::new(&[&node]);
    assert!(client.wait_for_server(WAIT));
    let goal = client.send_goal(Int32 { data: 1 }, None, WAIT).unwrap();
    let _handle = handles.recv_timeout(WAIT).unwrap();

    let (tx, rx) = mpsc::channel();
    let waiter = std::thread::spawn(move || {
        // Far longer than the test waits below.
        let _ = tx.send(goal.get_result(Duration::from_secs(600)));
    });
    // Let the request go out (shutting down before it does also ends in
    // `Shutdown`, at once).
    std::thread::sleep(Duration::from_millis(100));
    context.shutdown();
    match rx.recv_timeout(WAIT).expect("get_result returned") {
        Err(GetResultError::Call(CallError::Shutdown)) => {}
        Err(e) => panic!("expected a shutdown error, got {e}"),
        Ok(r) => panic!("the goal never ends, got {:?}", r.status),
    }
    waiter.join().unwrap();
}

#[test]
fn canceling_all_goals_publishes_their_new_status_once() {
    let context = Context::builder().isolated().create().unwrap();
    // Two executors: a status publish (on the server's executor) waits for
    // a full reliable subscriber, which only its own executor empties.
    let server_node = context.create_node("server").unwrap();
    let node = context.create_node("client").unwrap();
    let (_server, handles) = holding_server(&server_node, ActionServerOptions::default());
    let client = node.create_action_client::<Count>("count").unwrap();
    let (tx, canceling) = mpsc::channel();
    let qos = QosProfile::default().reliable().keep_last(100);
    let _status = node
        .create_subscription(
            "count/_action/status",
            qos,
            move |array: GoalStatusArray| {
                let n = array
                    .status_list
                    .iter()
                    .filter(|s| s.status == GoalStatus::Canceling as i8)
                    .count();
                let _ = tx.send(n);
            },
        )
        .unwrap();
    let _serving = Spinner::new(&[&server_node]);
    let _spin = Spinner::new(&[&node]);
    assert!(client.wait_for_server(WAIT));
    let goals: Vec<_> = (0..4)
        .map(|_| client.send_goal(Int32 { data: 1 }, None, WAIT).unwrap())
        .collect();
    let held: Vec<_> = (0..4)
        .map(|_| handles.recv_timeout(WAIT).unwrap())
        .collect();

    let answer = client.cancel_all_goals(WAIT).unwrap();
    assert_eq!(answer.return_code, 0);
    assert_eq!(answer.goals_canceling.len(), 4);
    // The first status with a goal canceling has them all canceling.
    let first = std::iter::from_fn(|| canceling.recv_timeout(WAIT).ok()).find(|&n| n > 0);
    assert_eq!(first, Some(4));
    drop(held);
    for goal in goals {
        assert_eq!(goal.get_result(WAIT).unwrap().status, GoalStatus::Canceled);
    }
}

#[test]
fn an_unreadable_get_result_request_is_counted_and_not_answered() {
    let context = Context::builder().isolated().create().unwrap();
    let node = context.create_node("both").unwrap();
    let server = count_server(&node, Duration::from_millis(1));
    let raw = node
        .create_generic_client(
            "count/_action/get_result",
            "hibari_test/action/Count_GetResult",
            QosProfile::services_default(),
        )
        .unwrap();
    let _spin = Spinner::new(&[&node]);
    assert!(raw.wait_for_service(WAIT));
    assert_eq!(server.rejected_requests(), 0);
    // A CDR header and one byte: not a 16-byte goal id.
    let unreadable = raw.call_async(vec![0u8, 1, 0, 0, 7]);
    // Requests of one client are handled in order: once this one is
    // answered (an unknown goal), the one before was handled.
    let mut unknown = vec![0u8, 1, 0, 0];
    unknown.extend_from_slice(&[9; 16]);
    assert!(raw.call(unknown, WAIT).is_ok());
    assert_eq!(server.rejected_requests(), 1);
    let waited = SingleThreadedExecutor::new()
        .spin_until_future_complete(unreadable, Duration::from_millis(100));
    assert!(waited.is_err(), "no answer: {waited:?}");
}

/// Kills the child when dropped, so a failing test leaves no process behind.
struct Kill(Child);

impl Drop for Kill {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The other process: a `Count` server until the parent kills it. A helper
/// the cross-process test runs, not a test of its own.
#[test]
#[ignore = "the child process of a_goal_crosses_processes_with_feedback_result_and_cancel"]
fn child() {
    assert!(
        std::env::var(CHILD).is_ok(),
        "`child` is the other process of a test in this file; it runs it with {CHILD} set"
    );
    let context = Context::new().unwrap();
    let node = context.create_node("child_counter").unwrap();
    let _server = count_server(&node, Duration::from_millis(5));
    let executor = SingleThreadedExecutor::new();
    executor.add_node(&node).unwrap();
    let _ = executor.spin_until_future_complete(std::future::pending::<()>(), WAIT * 6);
}

#[test]
fn a_goal_crosses_processes_with_feedback_result_and_cancel() {
    let reserved = hibari_testkit::TestDomain::reserve();
    let domain = reserved.id();
    let _child = Kill(
        Command::new(std::env::current_exe().unwrap())
            .args(["--ignored", "--exact", "child", "--nocapture"])
            .env(CHILD, "1")
            .env("ROS_DOMAIN_ID", domain.to_string())
            .stdout(Stdio::null())
            .spawn()
            .expect("spawn the child"),
    );
    let context = Context::builder().domain(domain).create().unwrap();
    let node = context.create_node("parent_asker").unwrap();
    let client = node.create_action_client::<Count>("count").unwrap();
    let _spin = Spinner::new(&[&node]);
    assert!(
        client.wait_for_server(Duration::from_secs(20)),
        "the child's server"
    );

    let (tx, rx) = mpsc::channel();
    let feedback = Box::new(move |f: Int32| {
        let _ = tx.send(f.data);
    });
    let goal = client
        .send_goal(Int32 { data: 4 }, Some(feedback), WAIT)
        .unwrap();
    let result = goal.get_result(WAIT).unwrap();
    assert_eq!(result.status, GoalStatus::Succeeded);
    assert_eq!(result.result.data, "counted to 4");
    let heard: Vec<i32> = (0..4).map(|_| rx.recv_timeout(WAIT).unwrap()).collect();
    assert_eq!(heard, vec![1, 2, 3, 4]);

    let long = client
        .send_goal(Int32 { data: 10_000 }, None, WAIT)
        .unwrap();
    assert_eq!(long.cancel(WAIT).unwrap().return_code, 0);
    assert_eq!(long.get_result(WAIT).unwrap().status, GoalStatus::Canceled);
    assert!(matches!(
        client.send_goal(Int32 { data: -3 }, None, WAIT),
        Err(ActionSendGoalError::Rejected)
    ));
}

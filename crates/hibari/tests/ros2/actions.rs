//! test_msgs/action/Fibonacci both ways: goal, feedback, result, cancel.
//! hibari's ends are generic (the definition given as text, as rclpy's
//! test_msgs has it), so the type and its RIHS01 hash are test_msgs's own.

use std::sync::{mpsc, Arc};
use std::time::Duration;

use hibari::action::{ActionServerOptions, GoalId};
use hibari::dynamic::{Struct, Value};
use hibari::interfaces::{Distro, InterfaceKind, Registry, TypeName};
use hibari::{CancelResponse, GoalResponse, GoalStatus};
use hibari_testkit::unique_topic;

use super::peer::LIMIT;
use super::Rig;
use crate::spinner::Spinner;

const FIBONACCI: &str = "test_msgs/action/Fibonacci";

fn registry() -> Arc<Registry> {
    let mut registry = Registry::bundled(Distro::Jazzy);
    registry
        .add_action_text(
            TypeName::new("test_msgs", InterfaceKind::Action, "Fibonacci"),
            "int32 order\n---\nint32[] sequence\n---\nint32[] sequence\n",
            "Fibonacci.action",
        )
        .unwrap();
    Arc::new(registry)
}

fn sequence(value: &Value) -> Vec<i32> {
    match value.get_path("sequence") {
        Some(Value::I32s(s)) => s.clone(),
        other => panic!("not an int32[] sequence: {other:?}"),
    }
}

fn with_sequence(s: &[i32]) -> Value {
    Value::Message(Struct::new().with("sequence", Value::I32s(s.to_vec())))
}

fn order(n: i64) -> Value {
    Value::Message(Struct::new().with("order", Value::Int(n)))
}

type Feedback = Box<dyn FnMut(Value) + Send>;

/// A feedback callback for a hibari goal and the channel its sequences
/// arrive on.
fn feedback_channel() -> (Feedback, mpsc::Receiver<Vec<i32>>) {
    let (tx, rx) = mpsc::channel();
    let feedback = Box::new(move |f: Value| {
        let _ = tx.send(sequence(&f));
    });
    (feedback, rx)
}

/// rclpy's ActionClient against a hibari server.
pub fn an_rclpy_client_drives_a_hibari_server(distro: &str) {
    let rig = Rig::new("hibari_fib_server");
    let action = unique_topic("ros2_fibonacci");
    let _server = rig
        .node
        .create_generic_action_server(
            &action,
            FIBONACCI,
            registry(),
            ActionServerOptions::default(),
            |_: &GoalId, _: &Value| GoalResponse::AcceptAndExecute,
            |_: &GoalId| CancelResponse::Accept,
            |handle| {
                std::thread::spawn(move || {
                    let n = handle.goal().get_path("order").and_then(Value::as_i64);
                    let mut seq = vec![0, 1];
                    for i in 1..n.unwrap_or(0).max(1) as usize {
                        if handle.is_cancel_requested() {
                            handle.canceled(with_sequence(&seq)).unwrap();
                            return;
                        }
                        seq.push(seq[i] + seq[i - 1]);
                        handle.publish_feedback(&with_sequence(&seq)).unwrap();
                        std::thread::sleep(Duration::from_millis(100));
                    }
                    handle.succeed(with_sequence(&seq)).unwrap();
                });
            },
        )
        .unwrap();
    let _spin = Spinner::new(&[&rig.node]);
    let peer = rig.peer(distro, "fib_client", "rclpy_fib_client", &[&action]);
    peer.expect("matched");
    let mut lines = Vec::new();
    while lines
        .iter()
        .filter(|l: &&String| l.starts_with("result"))
        .count()
        < 2
    {
        match peer.next_line(LIMIT) {
            Some(line) => lines.push(line),
            None => peer.fail(&format!("the peer ended after {lines:?}")),
        }
    }
    let first: Vec<&str> = lines.iter().take(5).map(String::as_str).collect();
    assert_eq!(
        first,
        [
            "feedback [0, 1, 1]",
            "feedback [0, 1, 1, 2]",
            "feedback [0, 1, 1, 2, 3]",
            "feedback [0, 1, 1, 2, 3, 5]",
            "result SUCCEEDED [0, 1, 1, 2, 3, 5]",
        ],
        "goal 5: {lines:#?}"
    );
    let rest = &lines[5..];
    assert!(rest.contains(&"cancel 0".to_string()), "goal 50: {rest:#?}");
    let last = rest.last().unwrap();
    assert!(
        last.starts_with("result CANCELED [0, 1, 1"),
        "goal 50: {rest:#?}"
    );
}

/// A hibari client against rclpy's ActionServer.
pub fn a_hibari_client_drives_an_rclpy_server(distro: &str) {
    let rig = Rig::new("hibari_fib_client");
    let action = unique_topic("ros2_fibonacci");
    let peer = rig.peer(distro, "fib_server", "rclpy_fib_server", &[&action]);
    peer.expect("ready");
    let client = rig
        .node
        .create_generic_action_client(&action, FIBONACCI, registry())
        .unwrap();
    let _spin = Spinner::new(&[&rig.node]);
    if !client.wait_for_server(LIMIT) {
        peer.fail("hibari's action client never saw the rclpy server");
    }
    // Goal 5: every feedback, then the result.
    let (feedback, rx) = feedback_channel();
    let goal = client
        .send_goal(order(5), Some(feedback), LIMIT)
        .unwrap_or_else(|e| peer.fail(&format!("goal 5: {e}")));
    let result = goal
        .get_result(LIMIT)
        .unwrap_or_else(|e| peer.fail(&format!("result of goal 5: {e}")));
    assert_eq!(result.status, GoalStatus::Succeeded);
    assert_eq!(sequence(&result.result), [0, 1, 1, 2, 3, 5]);
    let heard: Vec<Vec<i32>> = (0..4).filter_map(|_| rx.recv_timeout(LIMIT).ok()).collect();
    assert_eq!(
        heard,
        [
            vec![0, 1, 1],
            vec![0, 1, 1, 2],
            vec![0, 1, 1, 2, 3],
            vec![0, 1, 1, 2, 3, 5]
        ]
    );
    // Goal 50, canceled after its first feedback.
    let (feedback, rx) = feedback_channel();
    let goal = client
        .send_goal(order(50), Some(feedback), LIMIT)
        .unwrap_or_else(|e| peer.fail(&format!("goal 50: {e}")));
    if rx.recv_timeout(LIMIT).is_err() {
        peer.fail("no feedback for goal 50");
    }
    let canceling = goal
        .cancel(LIMIT)
        .unwrap_or_else(|e| peer.fail(&format!("cancel: {e}")));
    assert_eq!(canceling.return_code, 0, "{canceling:?}");
    let result = goal
        .get_result(LIMIT)
        .unwrap_or_else(|e| peer.fail(&format!("result of goal 50: {e}")));
    assert_eq!(result.status, GoalStatus::Canceled);
    let seq = sequence(&result.result);
    assert!(seq.len() < 50 && seq.starts_with(&[0, 1, 1]), "{seq:?}");
}

//! rosbridge's action ops on the wire (bridge.md A1, A2), against native
//! hibari action servers and clients: a raw WebSocket client sends goals
//! and follows their feedback and results, cancels one, meets a rejection
//! and a missing server, and serves an action to native clients.

mod common;

use std::time::{Duration, Instant};

use common::{Fixture, Raw, LONG};
use hibari::action::{ActionSendGoalError, GoalId};
use hibari::msg::std_msgs::msg::{Int32, String as RosString};
use hibari::{
    Action, ActionServer, ActionServerOptions, CancelResponse, GoalResponse, GoalStatus, Node,
    ServerGoalHandle,
};
use serde_json::{json, Value as Json};
use tungstenite::Message;

/// Counts to `goal.data`, one feedback per number.
struct Count;

impl Action for Count {
    type Goal = Int32;
    type Result = RosString;
    type Feedback = Int32;
    const TYPE_NAME: &'static str = "hibari_test/action/Count";
}

/// A bridge that knows `Count` from the `hibari_test` package, in a
/// temporary folder of the test's own.
fn fixture() -> Fixture {
    Fixture::with_interfaces(
        &[(
            "hibari_test/action/Count.action",
            "int32 data\n---\nstring data\n---\nint32 data\n",
        )],
        |c| c,
    )
}

fn execute(handle: ServerGoalHandle<Count>, step: Duration) {
    let n = handle.goal().data;
    for i in 1..=n {
        if handle.is_cancel_requested() {
            let _ = handle.canceled(RosString {
                data: format!("canceled at {i}"),
            });
            return;
        }
        handle.publish_feedback(&Int32 { data: i }).unwrap();
        std::thread::sleep(step);
    }
    let _ = handle.succeed(RosString {
        data: format!("counted to {n}"),
    });
}

fn count_server(node: &Node, name: &str, step: Duration) -> ActionServer<Count> {
    node.create_action_server::<Count>(
        name,
        ActionServerOptions::default(),
        |_: &GoalId, goal: &Int32| {
            if goal.data < 0 {
                GoalResponse::Reject
            } else {
                GoalResponse::AcceptAndExecute
            }
        },
        |_: &GoalId| CancelResponse::Accept,
        move |handle| {
            std::thread::spawn(move || execute(handle, step));
        },
    )
    .unwrap()
}

/// The action messages for goal `id` until its result, and any feedback
/// that trails it for a moment (feedback and results travel apart).
fn follow(c: &mut Raw, id: &str) -> (Vec<Json>, Json) {
    let mut feedback = Vec::new();
    let deadline = Instant::now() + LONG;
    let mut result = None;
    let mut trailing = None;
    loop {
        let left = match (result.is_some(), trailing) {
            (false, _) => deadline.saturating_duration_since(Instant::now()),
            (true, Some(t)) => Instant::saturating_duration_since(&t, Instant::now()),
            (true, None) => {
                trailing = Some(Instant::now() + Duration::from_millis(200));
                continue;
            }
        };
        let Some(Message::Text(text)) = c.recv(left) else {
            break;
        };
        let m: Json = serde_json::from_str(&text).unwrap();
        if m["id"] != id {
            continue;
        }
        match m["op"].as_str() {
            Some("action_feedback") => feedback.push(m),
            Some("action_result") => result = Some(m),
            _ => {}
        }
    }
    (feedback, result.expect("an action_result"))
}

#[test]
fn a_goal_streams_its_feedback_and_ends_with_status_4_and_a_cancel_with_status_5() {
    let f = fixture();
    let _server = count_server(&f.node, "/count", Duration::from_millis(2));
    let mut c = Raw::connect(&f.url());
    c.send(
        json!({"op": "send_action_goal", "id": "g1", "action": "/count",
                  "action_type": "hibari_test/Count", "args": {"data": 4}, "feedback": true}),
    );
    let (feedback, result) = follow(&mut c, "g1");
    let numbers: Vec<_> = feedback
        .iter()
        .map(|m| m["values"]["data"].clone())
        .collect();
    assert_eq!(numbers, vec![json!(1), json!(2), json!(3), json!(4)]);
    assert_eq!(feedback[0]["action"], "/count");
    assert_eq!(
        result,
        json!({"op": "action_result", "id": "g1", "action": "/count",
               "values": {"data": "counted to 4"}, "status": 4, "result": true})
    );

    let _slow = count_server(&f.node, "/slow", Duration::from_millis(20));
    c.send(
        json!({"op": "send_action_goal", "id": "g2", "action": "/slow",
                  "action_type": "hibari_test/action/Count", "args": [100000],
                  "feedback": true}),
    );
    let first = c.recv_op("action_feedback", LONG).expect("the goal runs");
    assert_eq!(first["id"], "g2");
    c.send(json!({"op": "cancel_action_goal", "id": "g2", "action": "/slow"}));
    let (_, result) = follow(&mut c, "g2");
    assert_eq!(result["status"], 5, "{result}");
    assert_eq!(result["result"], true);
    assert!(result["values"]["data"]
        .as_str()
        .unwrap()
        .starts_with("canceled at"));
}

#[test]
fn a_rejected_goal_and_a_missing_server_give_result_false() {
    let f = fixture();
    let _server = count_server(&f.node, "/count", Duration::from_millis(1));
    let mut c = Raw::connect(&f.url());
    c.send(
        json!({"op": "send_action_goal", "id": 7, "action": "/count",
                  "action_type": "hibari_test/Count", "args": {"data": -1}}),
    );
    let rejected = c.recv_op("action_result", LONG).unwrap();
    assert_eq!(rejected["id"], 7);
    assert_eq!(rejected["result"], false);
    assert_eq!(rejected["status"], 0);
    assert!(rejected["values"].is_string());

    let asked = Instant::now();
    c.send(
        json!({"op": "send_action_goal", "id": "none", "action": "/nobody",
                  "action_type": "hibari_test/Count", "args": {"data": 1}}),
    );
    let missing = c.recv_op("action_result", LONG).unwrap();
    assert!(
        asked.elapsed() >= Duration::from_millis(900),
        "it waited for a server"
    );
    assert_eq!(missing["id"], "none");
    assert_eq!(missing["result"], false);
    assert!(missing["values"].as_str().unwrap().contains("/nobody"));
}

#[test]
fn an_advertised_action_serves_two_native_goals_relays_feedback_and_cancels() {
    let f = fixture();
    let mut c = Raw::connect(&f.url());
    c.send(json!({"op": "advertise_action", "action": "/served", "type": "hibari_test/Count"}));
    let client = f.node.create_action_client::<Count>("/served").unwrap();
    assert!(client.wait_for_server(LONG));

    let (tx, rx) = std::sync::mpsc::channel();
    let tx2 = tx.clone();
    let one = client.send_goal_async(
        Int32 { data: 1 },
        Some(Box::new(move |f: Int32| {
            let _ = tx.send((1, f.data));
        })),
    );
    let two = client.send_goal_async(
        Int32 { data: 2 },
        Some(Box::new(move |f: Int32| {
            let _ = tx2.send((2, f.data));
        })),
    );
    let block = |fut| {
        hibari::SingleThreadedExecutor::new()
            .spin_until_future_complete(fut, LONG)
            .unwrap()
    };
    let (one, two) = (block(one).unwrap(), block(two).unwrap());
    let g1 = c.recv_op("send_action_goal", LONG).unwrap();
    let g2 = c.recv_op("send_action_goal", LONG).unwrap();
    assert_eq!(
        g1,
        json!({"op": "send_action_goal", "id": "action_goal:/served:1", "action": "/served",
               "action_type": "hibari_test/action/Count", "args": {"data": 1}, "feedback": true})
    );
    assert_eq!(g2["id"], "action_goal:/served:2");
    assert_eq!(g2["args"], json!({"data": 2}));

    for (goal, value) in [(&g2, 20), (&g1, 10)] {
        c.send(
            json!({"op": "action_feedback", "action": "/served", "id": goal["id"],
                      "values": {"data": value}}),
        );
    }
    let mut heard = vec![
        rx.recv_timeout(LONG).unwrap(),
        rx.recv_timeout(LONG).unwrap(),
    ];
    heard.sort();
    assert_eq!(
        heard,
        vec![(1, 10), (2, 20)],
        "each goal hears its own feedback"
    );

    c.send(
        json!({"op": "action_result", "action": "/served", "id": g2["id"],
                  "values": {"data": "two"}, "status": 4, "result": true}),
    );
    c.send(
        json!({"op": "action_result", "action": "/served", "id": g1["id"],
                  "values": "broke", "status": 0, "result": false}),
    );
    let r2 = two.get_result(LONG).unwrap();
    assert_eq!(
        (r2.status, r2.result.data.as_str()),
        (GoalStatus::Succeeded, "two")
    );
    assert_eq!(one.get_result(LONG).unwrap().status, GoalStatus::Aborted);

    // A native cancel reaches the client, whose status 5 ends the goal canceled.
    let three = client.send_goal(Int32 { data: 3 }, None, LONG).unwrap();
    let g3 = c.recv_op("send_action_goal", LONG).unwrap();
    let answer = three.cancel(LONG).unwrap();
    assert_eq!(answer.return_code, 0);
    let cancel = c.recv_op("cancel_action_goal", LONG).unwrap();
    assert_eq!(
        cancel,
        json!({"op": "cancel_action_goal", "id": g3["id"], "action": "/served"})
    );
    c.send(
        json!({"op": "action_result", "action": "/served", "id": g3["id"],
                  "values": {"data": "stopped"}, "status": 5, "result": true}),
    );
    let r3 = three.get_result(LONG).unwrap();
    assert_eq!(
        (r3.status, r3.result.data.as_str()),
        (GoalStatus::Canceled, "stopped")
    );

    // Unadvertised: open goals are aborted and new ones find no server.
    let four = client.send_goal(Int32 { data: 4 }, None, LONG).unwrap();
    c.recv_op("send_action_goal", LONG).unwrap();
    let waiting = four.get_result_async();
    std::thread::sleep(Duration::from_millis(50)); // the request reaches the server
    c.send(json!({"op": "unadvertise_action", "action": "/served"}));
    let ended = hibari::SingleThreadedExecutor::new()
        .spin_until_future_complete(waiting, LONG)
        .unwrap();
    assert_eq!(ended.unwrap().status, GoalStatus::Aborted);
    assert!(common::wait_until(LONG, || !client.action_server_is_ready()));
    assert!(matches!(
        client.send_goal(Int32 { data: 5 }, None, LONG),
        Err(ActionSendGoalError::Call(_))
    ));
}

#[test]
fn roslibpy_sends_goals_follows_feedback_cancels_and_sees_rejections() {
    let f = fixture();
    let _server = count_server(&f.node, "/count", Duration::from_millis(20));
    let port = f.bridge.local_addr().port().to_string();
    let out = common::python_script("roslibpy_actions.py", &[&port]).finish();
    // The last feedback may trail the result (they travel apart).
    assert!(out.contains("feedback [1, 2"), "{out}");
    assert!(out.trim_end().ends_with("ok"), "{out}");
}

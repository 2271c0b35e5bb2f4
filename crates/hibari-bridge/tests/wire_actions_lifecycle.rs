//! How long action goals live on the bridge (bridge.md A1, A2, M2), with
//! a raw WebSocket client and native hibari action servers and clients:
//! served goals are aborted when their action is unadvertised under
//! another spelling or advertised again, sent goals share one hibari client
//! per action, are capped per session and end with their session, and
//! `services_glob` covers actions.

mod common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::{wait_until, Fixture, Raw, LONG};
use hibari::action::GoalId;
use hibari::msg::std_msgs::msg::{Int32, String as RosString};
use hibari::{
    Action, ActionServer, ActionServerOptions, CancelResponse, GoalResponse, GoalStatus,
    ServerGoalHandle,
};
use serde_json::json;

/// The bridge's definition of [`Count`].
const COUNT_ACTION: &str = "int32 data\n---\nstring data\n---\nint32 data\n";

/// Counts to `goal.data` (the type of the bridge's `wire_actions` tests).
struct Count;

impl Action for Count {
    type Goal = Int32;
    type Result = RosString;
    type Feedback = Int32;
    const TYPE_NAME: &'static str = "hibari_test/action/Count";
}

fn fixture_with(
    f: impl FnOnce(hibari_bridge::BridgeConfig) -> hibari_bridge::BridgeConfig,
) -> Fixture {
    Fixture::with_interfaces(&[("hibari_test/action/Count.action", COUNT_ACTION)], f)
}

/// Waits for `goal`'s result after giving its request time to reach the
/// server (so the server's end answers it).
fn result_after(
    goal: &hibari::action::ClientGoalHandle<Count>,
    end: impl FnOnce(),
) -> hibari::action::WrappedResult<hibari::action::Typed<Count>> {
    let waiting = goal.get_result_async();
    std::thread::sleep(Duration::from_millis(100));
    end();
    hibari::SingleThreadedExecutor::new()
        .spin_until_future_complete(waiting, LONG)
        .expect("the goal ends")
        .unwrap()
}

#[test]
fn served_goals_are_aborted_when_readvertised_or_unadvertised_under_another_spelling() {
    let f = fixture_with(|c| c);
    let mut c = Raw::connect(&f.url());
    c.send(json!({"op": "set_level", "level": "error"}));
    c.send(json!({"op": "advertise_action", "action": "/served", "type": "hibari_test/Count"}));
    let client = f.node.create_action_client::<Count>("/served").unwrap();
    assert!(client.wait_for_server(LONG));
    let one = client.send_goal(Int32 { data: 1 }, None, LONG).unwrap();
    let g1 = c.recv_op("send_action_goal", LONG).unwrap();
    assert_eq!(g1["id"], "action_goal:/served:1");

    // Advertised again (relative spelling, same action): the old goal is
    // aborted and forgotten, and the new goals' ids do not repeat.
    let r1 = result_after(&one, || {
        c.send(json!({"op": "advertise_action", "action": "served", "type": "hibari_test/Count"}));
    });
    assert_eq!(r1.status, GoalStatus::Aborted);
    c.send(
        json!({"op": "action_result", "action": "/served", "id": g1["id"],
                  "values": {"data": "late"}, "status": 4, "result": true}),
    );
    let s = c.recv_op("status", LONG).expect("a status");
    assert!(s["msg"].as_str().unwrap().contains("is open"), "{s}");

    let two = client.send_goal(Int32 { data: 2 }, None, LONG).unwrap();
    let g2 = c.recv_op("send_action_goal", LONG).unwrap();
    assert_eq!(g2["id"], "action_goal:served:2");
    assert_eq!(g2["args"], json!({"data": 2}));

    // Unadvertised as `/served`: the goal of `served` is aborted too.
    let r2 = result_after(&two, || {
        c.send(json!({"op": "unadvertise_action", "action": "/served"}));
    });
    assert_eq!(r2.status, GoalStatus::Aborted);
    assert!(wait_until(LONG, || !client.action_server_is_ready()));
}

/// Goals a holding server has accepted.
type Held = Arc<Mutex<Vec<ServerGoalHandle<Count>>>>;

/// A server that accepts every goal and holds it until the test ends it.
fn holding_server(f: &Fixture, name: &str) -> (ActionServer<Count>, Held) {
    let held: Held = Arc::default();
    let h = held.clone();
    let server = f
        .node
        .create_action_server::<Count>(
            name,
            ActionServerOptions::default(),
            |_: &GoalId, _: &Int32| GoalResponse::AcceptAndExecute,
            |_: &GoalId| CancelResponse::Accept,
            move |handle| h.lock().unwrap().push(handle),
        )
        .unwrap();
    (server, held)
}

#[test]
fn sent_goals_share_one_client_are_capped_per_session_and_end_with_it() {
    let f = fixture_with(|c| c);
    let (_server, held) = holding_server(&f, "/hold");
    let mut c = Raw::connect(&f.url());
    c.send(json!({"op": "set_level", "level": "error"}));
    for i in 0..64 {
        c.send(
            json!({"op": "send_action_goal", "id": format!("g{i}"), "action": "/hold",
                      "action_type": "hibari_test/Count", "args": {"data": i}}),
        );
    }
    assert!(wait_until(LONG, || held.lock().unwrap().len() == 64));
    assert_eq!(f.bridge.stats().action_goals, 64);

    // One more is refused while 64 are in flight.
    c.send(
        json!({"op": "send_action_goal", "id": "g64", "action": "/hold",
                  "action_type": "hibari_test/Count", "args": {"data": 64}}),
    );
    let s = c.recv_op("status", LONG).expect("a status");
    assert_eq!(s["id"], "g64", "{s}");
    assert!(
        s["msg"].as_str().unwrap().contains("64 goals in flight"),
        "{s}"
    );

    // One goal ends: its result comes, and a new goal is taken.
    let first = held.lock().unwrap().remove(0);
    let which = first.goal().data;
    first
        .succeed(RosString {
            data: "done".into(),
        })
        .unwrap();
    let r = c
        .recv_op("action_result", LONG)
        .expect("the ended goal's result");
    assert_eq!(r["id"], format!("g{which}"), "{r}");
    assert_eq!(
        (r["status"].clone(), r["result"].clone()),
        (json!(4), json!(true))
    );
    c.send(
        json!({"op": "send_action_goal", "id": "g65", "action": "/hold",
                  "action_type": "hibari_test/Count", "args": {"data": 65}}),
    );
    assert!(wait_until(LONG, || held.lock().unwrap().len() == 64));

    // Every goal went through one hibari client of `/hold`.
    let bridge_feedback_readers = f
        .node
        .get_subscriptions_info_by_topic("/hold/_action/feedback")
        .unwrap()
        .iter()
        .filter(|i| i.node_name == "hibari_bridge")
        .count();
    assert_eq!(bridge_feedback_readers, 1);

    // The client leaves: its goals are no longer followed, though the
    // server still holds them.
    drop(c);
    assert!(wait_until(LONG, || f.bridge.stats().action_goals == 0));
    assert_eq!(held.lock().unwrap().len(), 64);
}

#[test]
fn services_glob_keeps_actions_out() {
    let f = fixture_with(|c| c.services_glob(Some(vec!["/ok_?".into()])));
    let (_server, held) = holding_server(&f, "/hold");
    let mut c = Raw::connect(&f.url());
    c.send(json!({"op": "set_level", "level": "error"}));
    let mut denied = |op: serde_json::Value, what: &str| {
        c.send(op);
        let s = c.recv_op("status", LONG).expect("a status");
        assert!(
            s["msg"].as_str().unwrap().contains(what),
            "{s} should say {what}"
        );
    };
    denied(
        json!({"op": "send_action_goal", "id": "g", "action": "/hold",
               "action_type": "hibari_test/Count", "args": {"data": 1}}),
        "cancelling action goal for: /hold",
    );
    denied(
        json!({"op": "advertise_action", "action": "/secret", "type": "hibari_test/Count"}),
        "cancelling action advertisement for: /secret",
    );
    denied(
        json!({"op": "unadvertise_action", "action": "secret"}),
        "cancelling action unadvertisement for: secret",
    );

    // An allowed name is served; the refused ones had no effect.
    c.send(json!({"op": "advertise_action", "action": "/ok_1", "type": "hibari_test/Count"}));
    let client = f.node.create_action_client::<Count>("/ok_1").unwrap();
    assert!(client.wait_for_server(LONG));
    std::thread::sleep(Duration::from_millis(100));
    assert!(held.lock().unwrap().is_empty());
    assert_eq!(f.bridge.stats().action_goals, 0);
    let services = f.node.get_service_names_and_types();
    assert!(
        !services.keys().any(|s| s.starts_with("/secret")),
        "{services:?}"
    );
}

/// `rosapi/action_servers`, as roslibjs' `getActionServers` calls it.
fn action_servers(c: &mut Raw) -> serde_json::Value {
    c.send(json!({"op": "call_service", "service": "rosapi/action_servers", "args": {}}));
    let r = c.recv_op("service_response", LONG).expect("an answer");
    assert_eq!(r["result"], true, "{r}");
    r["values"]["action_servers"].clone()
}

#[test]
fn rosapi_lists_served_actions_not_bare_clients_and_only_what_services_glob_lets_through() {
    let f = fixture_with(|c| c.services_glob(Some(vec!["/ok_*".into(), "*rosapi/*".into()])));
    let (native, _held) = holding_server(&f, "/ok_native");
    let (_hidden, _) = holding_server(&f, "/hidden");
    // A client alone makes the action's topics, not a server.
    let bare = f
        .node
        .create_action_client::<Count>("/ok_client_only")
        .unwrap();
    let mut c = Raw::connect(&f.url());
    c.send(json!({"op": "advertise_action", "action": "/ok_web", "type": "hibari_test/Count"}));
    let web = f.node.create_action_client::<Count>("/ok_web").unwrap();
    assert!(web.wait_for_server(LONG));
    assert!(f
        .node
        .get_topic_names_and_types()
        .contains_key("/ok_client_only/_action/feedback"));
    assert_eq!(action_servers(&mut c), json!(["/ok_native", "/ok_web"]));

    // Servers that go are no longer listed.
    drop(native);
    c.send(json!({"op": "unadvertise_action", "action": "/ok_web"}));
    assert!(
        wait_until(LONG, || action_servers(&mut c) == json!([])),
        "{}",
        action_servers(&mut c)
    );
    drop(bare);
}

//! `hibari param` and `hibari action`, run as the real binary against a node
//! of this test process (its parameter services, a Fibonacci action server).

mod common;

use std::process::Command as StdCommand;
use std::sync::Arc;
use std::time::Instant;

use common::domain::{Fixture, Spin, LONG};
use hibari::action::ActionServerOptions;
use hibari::dynamic::{Struct, Value};
use hibari::interfaces::{Distro, Registry};
use hibari::{CancelResponse, GoalResponse, ParameterDescriptor, ParameterValue};
use hibari_testkit::lines::{LineChild, NoLine};

#[test]
fn param_list_get_set_describe_delete_dump_and_load() {
    let f = Fixture::new();
    f.node.declare_parameter("speed", 1.5).unwrap();
    f.node.declare_parameter("name", "robot: one").unwrap();
    f.node.declare_parameter("ids", vec![1i64, 2, 3]).unwrap();
    let dynamic = ParameterDescriptor {
        dynamic_typing: true,
        ..ParameterDescriptor::default()
    };
    f.node
        .declare_parameter_with("scratch", 1i64, dynamic, false)
        .unwrap();
    let _spin = Spin::node(&f.node);
    let list = f
        .run(&["param", "list", "/tools/talker"])
        .success()
        .stdout_text();
    assert!(
        list.starts_with("/tools/talker:\n")
            && list.contains("\n  ids\n  name\n  scratch\n  speed\n"),
        "{list}"
    );
    let typed = f
        .run(&["param", "list", "/tools/talker", "--param-type"])
        .success()
        .stdout_text();
    assert!(typed.contains("  speed (type: double)\n"), "{typed}");
    let get = f
        .run(&["param", "get", "/tools/talker", "speed"])
        .success()
        .stdout_text();
    assert_eq!(get, "Double value is: 1.5\n");
    let get = f
        .run(&["param", "get", "/tools/talker", "ids"])
        .success()
        .stdout_text();
    assert_eq!(get, "Integer values are: [1, 2, 3]\n");
    let set = f
        .run(&["param", "set", "/tools/talker", "speed", "2.25"])
        .success()
        .stdout_text();
    assert_eq!(set, "Set parameter successful\n");
    assert_eq!(
        f.node.get_parameter("speed").unwrap(),
        ParameterValue::Double(2.25)
    );
    // A value of another type is refused by the node, and said so.
    f.run(&["param", "set", "/tools/talker", "speed", "fast"])
        .failure()
        .stderr_has(&["Setting parameter failed"]);
    let described = f
        .run(&["param", "describe", "/tools/talker", "name"])
        .success()
        .stdout_text();
    assert!(
        described.starts_with("Parameter name: name\n  Type: string\n"),
        "{described}"
    );
    let dump = f
        .run(&["param", "dump", "/tools/talker"])
        .success()
        .stdout_text();
    assert!(
        dump.starts_with("/tools/talker:\n  ros__parameters:\n"),
        "{dump}"
    );
    assert!(
        dump.contains("    name: 'robot: one'\n") && dump.contains("    ids: [1, 2, 3]\n"),
        "{dump}"
    );
    // What dump writes, load reads back.
    let dir = hibari_testkit::tempdir().unwrap();
    let file = dir.path().join("params.yaml");
    std::fs::write(&file, dump.replace("2.25", "3.5")).unwrap();
    let loaded = f
        .run(&["param", "load", "/tools/talker", file.to_str().unwrap()])
        .success()
        .stdout_text();
    assert!(
        loaded.contains("Set parameter speed successful"),
        "{loaded}"
    );
    assert_eq!(
        f.node.get_parameter("speed").unwrap(),
        ParameterValue::Double(3.5)
    );
    // Undeclaring: refused for a statically typed parameter, as rclpy.
    f.run(&["param", "delete", "/tools/talker", "speed"])
        .failure()
        .stderr_has(&["Deleting parameter failed: Static parameter cannot be undeclared"]);
    let deleted = f
        .run(&["param", "delete", "/tools/talker", "scratch"])
        .success()
        .stdout_text();
    assert_eq!(deleted, "Deleted parameter successfully\n");
    assert!(!f.node.has_parameter("scratch"));
    f.run(&["param", "get", "/nobody", "x", "--timeout", "0.5"])
        .failure()
        .stderr_has(&["node /nobody has no parameter services"]);
}

fn int_array(v: &Value) -> Vec<i32> {
    match v {
        Value::I32s(x) => x.clone(),
        other => panic!("not an int32 array: {other:?}"),
    }
}

#[test]
fn action_list_info_and_send_goal_with_feedback() {
    let f = Fixture::new();
    let registry = Arc::new(Registry::bundled(Distro::Jazzy));
    // A Fibonacci server that computes in the accepted callback's thread and
    // ends the goal only once the test saw the first feedback printed: the
    // command follows the result and the feedback on separate channels (as
    // `ros2 action send_goal` does), and feedback still queued when the
    // result arrives is not awaited.
    let (release, released) = std::sync::mpsc::channel::<()>();
    let released = Arc::new(std::sync::Mutex::new(released));
    let _server = f
        .node
        .create_generic_action_server(
            "fibonacci",
            "example_interfaces/action/Fibonacci",
            registry,
            ActionServerOptions::default(),
            |_, _| GoalResponse::AcceptAndExecute,
            |_| CancelResponse::Accept,
            move |handle| {
                let released = released.clone();
                std::thread::spawn(move || {
                    let order = handle
                        .goal()
                        .get_path("order")
                        .and_then(Value::as_i64)
                        .unwrap();
                    let mut seq = vec![0i32, 1];
                    for i in 1..order as usize {
                        seq.push(seq[i] + seq[i - 1]);
                        let fb = Value::Message(
                            Struct::new().with("sequence", Value::I32s(seq.clone())),
                        );
                        handle.publish_feedback(&fb).unwrap();
                    }
                    let result = Value::Message(Struct::new().with("sequence", Value::I32s(seq)));
                    assert_eq!(
                        int_array(result.get_path("sequence").unwrap()).len(),
                        order as usize + 1
                    );
                    // Released, or the test failed: end the goal either way.
                    let _ = released.lock().unwrap().recv_timeout(LONG);
                    handle.succeed(result).unwrap();
                });
            },
        )
        .unwrap();
    let _spin = Spin::node(&f.node);
    let list = f.run(&["action", "list", "-t"]).success().stdout_text();
    assert_eq!(
        list,
        "/tools/fibonacci [example_interfaces/action/Fibonacci]\n"
    );
    let info = f
        .run(&["action", "info", "/tools/fibonacci"])
        .success()
        .stdout_text();
    assert_eq!(
        info,
        "Action: /tools/fibonacci\nAction clients: 0\nAction servers: 1\n    /tools/talker\n"
    );
    let node = f
        .run(&["node", "info", "/tools/talker"])
        .success()
        .stdout_text();
    assert!(
        node.contains(
            "  Action Servers:\n    /tools/fibonacci: example_interfaces/action/Fibonacci\n"
        ),
        "{node}"
    );
    let mut cmd = StdCommand::new(assert_cmd::cargo::cargo_bin("hibari"));
    cmd.args([
        "action",
        "send_goal",
        "/tools/fibonacci",
        "example_interfaces/action/Fibonacci",
        "{order: 5}",
        "--feedback",
    ])
    .env("ROS_DOMAIN_ID", f.domain.to_string());
    let mut child = LineChild::spawn(cmd).unwrap();
    let first_feedback = "Feedback:\n    sequence:\n    - 0\n    - 1\n    - 1\n";
    let deadline = Instant::now() + LONG;
    let mut out = String::new();
    let mut held = true;
    loop {
        match child.next_line_by(deadline) {
            Ok(line) => out.push_str(&(line + "\n")),
            Err(NoLine::Ended) => break,
            Err(NoLine::Timeout) => panic!("send_goal did not end within {LONG:?}:\n{out}"),
        }
        if held && out.contains(first_feedback) {
            release.send(()).unwrap();
            held = false;
        }
    }
    assert!(child.child().wait().unwrap().success(), "{out}");
    for part in [
        "Sending goal:\n    order: 5\n",
        "Goal accepted with ID: ",
        first_feedback,
        "Result:\n    sequence:\n    - 0\n    - 1\n    - 1\n    - 2\n    - 3\n    - 5\n",
        "Goal finished with status: SUCCEEDED\n",
    ] {
        assert!(out.contains(part), "lacks {part:?}:\n{out}");
    }
    f.run(&[
        "action",
        "send_goal",
        "/tools/fibonacci",
        "std_msgs/msg/String",
    ])
    .failure()
    .stderr_has(&["is not an action type"]);
}

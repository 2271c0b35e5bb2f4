//! Action internals a public test cannot see: what the server keeps for
//! the `get_result` requests it cannot answer yet.

use std::sync::mpsc;
use std::sync::Arc;
use std::time::Duration;

use super::codec::encode_result_request;
use super::{GetResultError, GoalResponse};
use crate::msg::std_msgs::msg::{Int32, String as RosString};
use crate::{Action, CallError, CancelResponse, Context, GoalStatus, SingleThreadedExecutor};

const WAIT: Duration = Duration::from_secs(10);

/// A goal counts to a number; the internals' tests (here and in `codec`) use it.
pub(super) struct Count;

impl Action for Count {
    type Goal = Int32;
    type Result = RosString;
    type Feedback = Int32;
    const TYPE_NAME: &'static str = "hibari_test/action/Count";
}

#[test]
fn a_client_retrying_get_result_keeps_one_waiting_request_at_the_server() {
    let context = Context::builder().isolated().create().unwrap();
    let node = context.create_node("retry").unwrap();
    let (tx, rx) = mpsc::channel();
    let server = node
        .create_action_server::<Count>(
            "count",
            super::ActionServerOptions::default(),
            |_, _| GoalResponse::AcceptAndExecute,
            |_| CancelResponse::Reject,
            move |handle| {
                let _ = tx.send(handle);
            },
        )
        .unwrap();
    let client = node.create_action_client::<Count>("count").unwrap();
    let other = node.create_action_client::<Count>("count").unwrap();
    let executor = Arc::new(SingleThreadedExecutor::new());
    executor.add_node(&node).unwrap();
    let spinning = executor.clone();
    let spinner = std::thread::spawn(move || spinning.spin());
    assert!(client.wait_for_server(WAIT) && other.wait_for_server(WAIT));

    let goal = client.send_goal(Int32 { data: 1 }, None, WAIT).unwrap();
    let handle = rx.recv_timeout(WAIT).unwrap();
    for _ in 0..3 {
        match goal.get_result(Duration::from_millis(20)) {
            Err(GetResultError::Call(CallError::Timeout { .. })) => {}
            Err(e) => panic!("expected a timeout, got {e}"),
            Ok(r) => panic!("the goal is still executing, got {:?}", r.status),
        }
    }
    // Another client's request waits on beside them.
    let from_other = other.core.result_request(goal.goal_id()).unwrap();
    // Requests of one client are handled in order: once a request for an
    // unknown goal is answered, the ones before it were handled.
    let unknown = encode_result_request(&[9; 16]).unwrap();
    for asker in [&client, &other] {
        asker.core.get_result.call(unknown.clone(), WAIT).unwrap();
    }
    assert_eq!(server.core.waiting_for(goal.goal_id()), 2);

    let last = goal.get_result_async();
    handle
        .succeed(RosString {
            data: "done".into(),
        })
        .unwrap();
    let waiter = SingleThreadedExecutor::new();
    let result = waiter.spin_until_future_complete(last, WAIT).unwrap();
    assert_eq!(result.unwrap().status, GoalStatus::Succeeded);
    let reply = waiter.spin_until_future_complete(from_other, WAIT).unwrap();
    assert!(reply.is_ok(), "the other client is answered too");
    assert_eq!(server.core.waiting_for(goal.goal_id()), 0);

    executor.cancel();
    spinner.join().unwrap();
}

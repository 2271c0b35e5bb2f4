//! The `Count` action of the action tests, and a server that holds its goals.

use std::sync::mpsc;

use hibari::action::{ActionServerOptions, GoalId};
use hibari::msg::std_msgs::msg::{Int32, String as RosString};
use hibari::{Action, ActionServer, CancelResponse, GoalResponse, Node, ServerGoalHandle};

/// Counts to `goal.data`, one feedback per number, and says so.
pub struct Count;

impl Action for Count {
    type Goal = Int32;
    type Result = RosString;
    type Feedback = Int32;
    const TYPE_NAME: &'static str = "hibari_test/action/Count";
}

/// A `Count` server on `node` accepting every goal and every cancel, and
/// handing each goal's handle to the returned channel (nothing executes).
pub fn holding_server(
    node: &Node,
    options: ActionServerOptions,
) -> (ActionServer<Count>, mpsc::Receiver<ServerGoalHandle<Count>>) {
    let (tx, rx) = mpsc::channel();
    let server = node
        .create_action_server::<Count>(
            "count",
            options,
            |_id: &GoalId, _goal: &Int32| GoalResponse::AcceptAndExecute,
            |_id: &GoalId| CancelResponse::Accept,
            move |handle| {
                let _ = tx.send(handle);
            },
        )
        .unwrap();
    (server, rx)
}

//! Action servers in a callback group of their own, and cancel requests that
//! do not block: through the public API, with real executor threads.

use std::sync::mpsc;
use std::sync::Arc;
use std::time::Duration;

use hibari::action::ActionServerOptions;
use hibari::msg::std_msgs::msg::{Int32, String as RosString};
use hibari::{
    CallbackGroupType, Context, GoalStatus, GuardConditionOptions, MultiThreadedExecutor,
    SingleThreadedExecutor,
};

const WAIT: Duration = Duration::from_secs(10);

#[path = "support/count.rs"]
mod count;
use count::{holding_server, Count};

#[test]
fn a_server_in_its_own_group_answers_goals_while_the_default_group_is_busy() {
    for own_group in [true, false] {
        let context = Context::builder().isolated().create().unwrap();
        let node = context.create_node("grouped").unwrap();
        let mut options = ActionServerOptions::new();
        if own_group {
            let group = node.create_callback_group(CallbackGroupType::MutuallyExclusive);
            options = options.callback_group(&group);
        }
        let (_server, held) = holding_server(&node, options);
        // A callback of the node's default group that holds it until released.
        let (release, released) = mpsc::channel::<()>();
        let (entered, inside) = mpsc::channel();
        let blocker = node.create_guard_condition(GuardConditionOptions::default(), move || {
            let _ = entered.send(());
            let _ = released.recv_timeout(WAIT);
        });
        let client = node.create_action_client::<Count>("count").unwrap();
        let executor = Arc::new(MultiThreadedExecutor::new(3));
        executor.add_node(&node).unwrap();
        let spinning = executor.clone();
        let spinner = std::thread::spawn(move || spinning.spin());
        assert!(client.wait_for_server(WAIT));
        blocker.trigger();
        inside.recv_timeout(WAIT).unwrap();

        let sent = client.send_goal(Int32 { data: 1 }, None, Duration::from_millis(500));
        if own_group {
            let goal = sent.expect("a server in its own group answers at once");
            let handle = held.recv_timeout(WAIT).unwrap();
            assert_eq!(handle.goal_id(), goal.goal_id());
        } else {
            // In the default group the goal waits for the blocker: the
            // option is what made the difference above.
            assert!(sent.is_err(), "the default group was busy");
        }
        release.send(()).unwrap();
        executor.cancel();
        spinner.join().unwrap();
    }
}

#[test]
fn cancel_async_resolves_to_the_servers_answer() {
    let context = Context::builder().isolated().create().unwrap();
    let node = context.create_node("canceler").unwrap();
    let (_server, held) = holding_server(&node, ActionServerOptions::default());
    let client = node.create_action_client::<Count>("count").unwrap();
    let executor = Arc::new(SingleThreadedExecutor::new());
    executor.add_node(&node).unwrap();
    let spinning = executor.clone();
    let spinner = std::thread::spawn(move || spinning.spin());
    assert!(client.wait_for_server(WAIT));

    let goal = client.send_goal(Int32 { data: 1 }, None, WAIT).unwrap();
    let handle = held.recv_timeout(WAIT).unwrap();
    let answer = SingleThreadedExecutor::new()
        .spin_until_future_complete(goal.cancel_async(), WAIT)
        .unwrap()
        .unwrap();
    assert_eq!(answer.return_code, 0);
    assert_eq!(&answer.goals_canceling[0].goal_id.uuid, goal.goal_id());
    assert!(handle.is_cancel_requested());
    handle
        .canceled(RosString {
            data: "stopped".into(),
        })
        .unwrap();
    let result = goal.get_result(WAIT).unwrap();
    assert_eq!(result.status, GoalStatus::Canceled);
    // Canceling an ended goal is refused (ERROR_GOAL_TERMINATED).
    let again = SingleThreadedExecutor::new()
        .spin_until_future_complete(goal.cancel_async(), WAIT)
        .unwrap()
        .unwrap();
    assert_eq!(again.return_code, 3);

    executor.cancel();
    spinner.join().unwrap();
}

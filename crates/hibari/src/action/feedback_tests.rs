//! A client decodes only the feedback of its own goals: seen through a codec
//! that counts what it decodes (codecs are sealed, so this test lives here).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Arc};
use std::time::Duration;

use super::codec::{sealed, ActionCodec, Typed};
use super::tests::Count;
use super::{ActionServerOptions, GoalId, GoalResponse};
use crate::msg::std_msgs::msg::{Int32, String as RosString};
use crate::{CancelResponse, Context, GoalStatus, SingleThreadedExecutor};

const WAIT: Duration = Duration::from_secs(10);

/// `Count`'s typed codec, counting the feedback messages it decodes.
struct Counting(Typed<Count>, Arc<AtomicUsize>);

impl sealed::Sealed for Counting {}

impl ActionCodec for Counting {
    type Goal = Int32;
    type Result = RosString;
    type Feedback = Int32;

    fn type_name(&self) -> &str {
        self.0.type_name()
    }
    fn encode_goal_request(&self, id: &GoalId, goal: &Int32) -> Result<Vec<u8>, String> {
        self.0.encode_goal_request(id, goal)
    }
    fn decode_goal_request(&self, cdr: &[u8]) -> Result<(GoalId, Int32), String> {
        self.0.decode_goal_request(cdr)
    }
    fn encode_result_response(
        &self,
        status: i8,
        result: Option<&RosString>,
    ) -> Result<Vec<u8>, String> {
        self.0.encode_result_response(status, result)
    }
    fn decode_result_response(&self, cdr: &[u8]) -> Result<(i8, RosString), String> {
        self.0.decode_result_response(cdr)
    }
    fn encode_feedback(&self, id: &GoalId, feedback: &Int32) -> Result<Vec<u8>, String> {
        self.0.encode_feedback(id, feedback)
    }
    fn decode_feedback(&self, cdr: &[u8]) -> Result<(GoalId, Int32), String> {
        self.1.fetch_add(1, Ordering::SeqCst);
        self.0.decode_feedback(cdr)
    }
}

#[test]
fn a_client_decodes_only_the_feedback_of_its_own_goals() {
    let context = Context::builder().isolated().create().unwrap();
    let node = context.create_node("both").unwrap();
    let _server = node
        .create_action_server::<Count>(
            "count",
            ActionServerOptions::default(),
            |_, _| GoalResponse::AcceptAndExecute,
            |_| CancelResponse::Reject,
            |handle| {
                std::thread::spawn(move || {
                    for i in 1..=handle.goal().data {
                        handle.publish_feedback(&Int32 { data: i }).unwrap();
                    }
                    handle.succeed(RosString::default()).unwrap();
                });
            },
        )
        .unwrap();
    let first = node.create_action_client::<Count>("count").unwrap();
    let decoded = Arc::new(AtomicUsize::new(0));
    let codec = Counting(Typed::default(), decoded.clone());
    let second = node.create_action_client_of("count", codec).unwrap();
    let executor = Arc::new(SingleThreadedExecutor::new());
    executor.add_node(&node).unwrap();
    let spinning = executor.clone();
    let spinner = std::thread::spawn(move || spinning.spin());
    assert!(first.wait_for_server(WAIT) && second.wait_for_server(WAIT));

    let (tx, rx) = mpsc::channel();
    let tx2 = tx.clone();
    let feedback = Box::new(move |f: Int32| {
        let _ = tx.send(f.data);
    });
    let goal = first
        .send_goal(Int32 { data: 5 }, Some(feedback), WAIT)
        .unwrap();
    assert_eq!(goal.get_result(WAIT).unwrap().status, GoalStatus::Succeeded);
    let heard: Vec<i32> = (0..5).map(|_| rx.recv_timeout(WAIT).unwrap()).collect();
    assert_eq!(heard, vec![1, 2, 3, 4, 5]);
    // The second client hears the first one's feedback (one publisher, in
    // order) before its own goal's.
    let feedback = Box::new(move |f: Int32| {
        let _ = tx2.send(-f.data);
    });
    let own = second
        .send_goal(Int32 { data: 2 }, Some(feedback), WAIT)
        .unwrap();
    assert_eq!(own.get_result(WAIT).unwrap().status, GoalStatus::Succeeded);
    let heard: Vec<i32> = (0..2).map(|_| rx.recv_timeout(WAIT).unwrap()).collect();
    assert_eq!(heard, vec![-1, -2]);
    assert_eq!(
        decoded.load(Ordering::SeqCst),
        2,
        "only its own goal's feedback is decoded"
    );
    executor.cancel();
    spinner.join().unwrap();
}

use std::sync::{Arc, Mutex};
use std::time::Duration;

use super::*;
use crate::msg::lifecycle_msgs::msg::{Transition as TransitionMsg, TransitionEvent};
use crate::msg::lifecycle_msgs::srv::{
    ChangeState, ChangeState_Request, GetAvailableStates, GetAvailableTransitions, GetState,
};
use crate::msg::std_msgs::msg::UInt64;
use crate::tests::isolated;
use crate::{NodeOptions, QosProfile, SingleThreadedExecutor};

const PATIENCE: Duration = Duration::from_secs(30);

/// Records every callback; returns what `script` says for each (default
/// success).
#[derive(Clone, Default)]
struct Recorder {
    calls: Arc<Mutex<Vec<(&'static str, State)>>>,
    script: Arc<Mutex<Vec<(&'static str, CallbackReturn)>>>,
    /// A node to trigger a transition on from inside a callback.
    reenter: Arc<Mutex<Option<LifecycleNode>>>,
    reentered: Arc<Mutex<Option<Result<TransitionOutcome, TransitionError>>>>,
}

impl Recorder {
    fn call(&self, name: &'static str, previous: State) -> CallbackReturn {
        self.calls.lock().unwrap().push((name, previous));
        if let Some(node) = self.reenter.lock().unwrap().take() {
            *self.reentered.lock().unwrap() = Some(node.deactivate());
        }
        let mut script = self.script.lock().unwrap();
        match script.iter().position(|(n, _)| *n == name) {
            Some(i) => script.remove(i).1,
            None => CallbackReturn::Success,
        }
    }
}

impl LifecycleCallbacks for Recorder {
    fn on_configure(&mut self, p: State) -> CallbackReturn {
        self.call("configure", p)
    }
    fn on_cleanup(&mut self, p: State) -> CallbackReturn {
        self.call("cleanup", p)
    }
    fn on_activate(&mut self, p: State) -> CallbackReturn {
        self.call("activate", p)
    }
    fn on_deactivate(&mut self, p: State) -> CallbackReturn {
        self.call("deactivate", p)
    }
    fn on_shutdown(&mut self, p: State) -> CallbackReturn {
        self.call("shutdown", p)
    }
    fn on_error(&mut self, p: State) -> CallbackReturn {
        self.call("error", p)
    }
}

fn lifecycle(name: &str) -> (LifecycleNode, Recorder) {
    let node = LifecycleNode::new(&isolated(), name, NodeOptions::new()).unwrap();
    let recorder = Recorder::default();
    node.set_callbacks(recorder.clone());
    (node, recorder)
}

fn ok(result: CallbackReturn, state: State) -> Result<TransitionOutcome, TransitionError> {
    Ok(TransitionOutcome { result, state })
}

#[test]
fn a_node_goes_through_every_primary_state_and_publishes_each_step() {
    let (node, rec) = lifecycle("lc");
    let events = node
        .create_polled_subscription::<TransitionEvent>(
            "~/transition_event",
            QosProfile::default().keep_all(),
        )
        .unwrap();
    assert_eq!(node.current_state(), State::Unconfigured);
    use CallbackReturn::Success;
    assert_eq!(node.configure(), ok(Success, State::Inactive));
    assert_eq!(node.activate(), ok(Success, State::Active));
    assert_eq!(node.deactivate(), ok(Success, State::Inactive));
    assert_eq!(node.cleanup(), ok(Success, State::Unconfigured));
    assert_eq!(node.shutdown(), ok(Success, State::Finalized));
    assert_eq!(
        *rec.calls.lock().unwrap(),
        [
            ("configure", State::Unconfigured),
            ("activate", State::Inactive),
            ("deactivate", State::Active),
            ("cleanup", State::Inactive),
            ("shutdown", State::Unconfigured),
        ]
    );
    let mut seen = Vec::new();
    while let Some((e, _)) = events.take() {
        seen.push((e.transition.id, e.start_state.id, e.goal_state.id));
    }
    assert_eq!(
        seen,
        [
            (1, 1, 10),
            (10, 10, 2),
            (3, 2, 13),
            (30, 13, 3),
            (4, 3, 14),
            (40, 14, 2),
            (2, 2, 11),
            (20, 11, 1),
            (5, 1, 12),
            (50, 12, 4),
        ]
    );
    assert_eq!(node.available_transitions(), vec![], "finalized is final");
    assert_eq!(
        node.configure(),
        Err(TransitionError::NotAvailable {
            transition: "configure".into(),
            state: State::Finalized
        })
    );
}

#[test]
fn failure_goes_back_and_error_goes_through_on_error() {
    let (node, rec) = lifecycle("lc");
    rec.script.lock().unwrap().extend([
        ("configure", CallbackReturn::Failure),
        ("configure", CallbackReturn::Error),
        ("error", CallbackReturn::Success),
        ("configure", CallbackReturn::Error),
        ("error", CallbackReturn::Failure),
    ]);
    assert_eq!(
        node.configure(),
        ok(CallbackReturn::Failure, State::Unconfigured)
    );
    // Error: errorprocessing, on_error succeeds → unconfigured.
    assert_eq!(
        node.configure(),
        ok(CallbackReturn::Error, State::Unconfigured)
    );
    // Error, and on_error fails → finalized.
    assert_eq!(
        node.configure(),
        ok(CallbackReturn::Error, State::Finalized)
    );
    let calls: Vec<_> = rec.calls.lock().unwrap().iter().map(|c| c.0).collect();
    assert_eq!(
        calls,
        ["configure", "configure", "error", "configure", "error"]
    );
    assert_eq!(
        LifecycleNode::new(&isolated(), "x", NodeOptions::new())
            .unwrap()
            .activate(),
        Err(TransitionError::NotAvailable {
            transition: "activate".into(),
            state: State::Unconfigured
        })
    );
}

#[test]
fn a_callback_that_triggers_a_transition_of_its_own_node_is_refused_not_deadlocked() {
    let (node, rec) = lifecycle("lc");
    node.configure().unwrap();
    *rec.reenter.lock().unwrap() = Some(node.clone());
    assert_eq!(node.activate(), ok(CallbackReturn::Success, State::Active));
    assert_eq!(
        rec.reentered.lock().unwrap().take(),
        Some(Err(TransitionError::Busy))
    );
}

#[test]
fn a_lifecycle_publisher_publishes_only_while_the_node_is_active() {
    let (node, _) = lifecycle("lc");
    let publisher = node
        .create_lifecycle_publisher::<UInt64>("data", QosProfile::default().keep_all())
        .unwrap();
    let sub = node
        .create_polled_subscription::<UInt64>("data", QosProfile::default().keep_all())
        .unwrap();
    let send = |data| publisher.publish(UInt64 { data }).unwrap();
    send(1);
    node.configure().unwrap();
    send(2);
    node.activate().unwrap();
    assert!(publisher.is_activated());
    send(3);
    node.deactivate().unwrap();
    send(4);
    node.activate().unwrap();
    send(5);
    node.shutdown().unwrap();
    send(6);
    let mut got = Vec::new();
    while let Some((m, _)) = sub.take() {
        got.push(m.data);
    }
    assert_eq!(got, [3, 5]);
}

#[test]
fn a_client_drives_the_node_through_its_services_by_id_and_by_label() {
    let context = isolated();
    let node = LifecycleNode::new(&context, "managed", NodeOptions::new()).unwrap();
    let supervisor = context.create_node("supervisor").unwrap();
    let executor = SingleThreadedExecutor::new();
    executor.add_node(&node).unwrap();
    let change = supervisor
        .create_client::<ChangeState>("/managed/change_state", QosProfile::services_default())
        .unwrap();
    let get = supervisor
        .create_client::<GetState>("/managed/get_state", QosProfile::services_default())
        .unwrap();
    let transitions = supervisor
        .create_client::<GetAvailableTransitions>(
            "/managed/get_available_transitions",
            QosProfile::services_default(),
        )
        .unwrap();
    let graph = supervisor
        .create_client::<GetAvailableTransitions>(
            "/managed/get_transition_graph",
            QosProfile::services_default(),
        )
        .unwrap();
    let states = supervisor
        .create_client::<GetAvailableStates>(
            "/managed/get_available_states",
            QosProfile::services_default(),
        )
        .unwrap();
    std::thread::scope(|s| {
        let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let spin_stop = stop.clone();
        s.spawn(|| {
            let stop = spin_stop;
            executor.spin_until(|| stop.load(std::sync::atomic::Ordering::Acquire), PATIENCE)
        });
        let request = |id: u8, label: &str| ChangeState_Request {
            transition: TransitionMsg {
                id,
                label: label.into(),
            },
        };
        assert!(change.call(request(1, ""), PATIENCE).unwrap().success);
        assert!(
            change
                .call(request(0, "activate"), PATIENCE)
                .unwrap()
                .success
        );
        let state = get
            .call(Default::default(), PATIENCE)
            .unwrap()
            .current_state;
        assert_eq!((state.id, state.label.as_str()), (3, "active"));
        assert!(
            !change.call(request(1, ""), PATIENCE).unwrap().success,
            "configure is not a transition out of active"
        );
        assert!(
            !change.call(request(10, ""), PATIENCE).unwrap().success,
            "an internal transition is not a client's to take"
        );
        let out: Vec<(u8, String, u8)> = transitions
            .call(Default::default(), PATIENCE)
            .unwrap()
            .available_transitions
            .into_iter()
            .map(|t| (t.transition.id, t.transition.label, t.goal_state.id))
            .collect();
        assert_eq!(
            out,
            [(4, "deactivate".into(), 14), (7, "shutdown".into(), 12)]
        );
        let graph = graph.call(Default::default(), PATIENCE).unwrap();
        assert_eq!(graph.available_transitions.len(), 25);
        let labels: Vec<String> = states
            .call(Default::default(), PATIENCE)
            .unwrap()
            .available_states
            .into_iter()
            .map(|s| s.label)
            .collect();
        assert_eq!(labels.len(), 11);
        assert_eq!(labels[4], "finalized");
        stop.store(true, std::sync::atomic::Ordering::Release);
        executor.cancel();
    });
    assert_eq!(node.current_state(), State::Active);
}

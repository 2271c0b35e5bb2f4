//! Creating action servers and clients on a node.

use std::sync::{Arc, Weak};
use std::time::Duration;

use hibari_idl::Registry;
use thiserror::Error;

use super::client::ActionClientOf;
use super::client_core::ClientCore;
use super::codec::{encode_goal_response, ActionCodec, Typed};
use super::dynamic::Dynamic;
use super::handle::ServerGoalHandleOf;
use super::server::{ActionServerCreateError, ActionServerOf, ActionServerOptions, ServerCore};
use super::{status_qos, ActionNames, CancelResponse, GoalId, GoalResponse, GoalStatus};
use crate::msg::action_msgs::msg::GoalStatusArray;
use crate::msg::action_msgs::srv::{CancelGoal, CancelGoal_Request};
use crate::msg::builtin_interfaces::msg::Time;
use crate::{
    Action, ClientCreateError, NameError, Node, QosProfile, ServiceResponder,
    SubscriptionCreateError,
};

/// How long a goal's execution waits for a feedback subscription when the
/// feedback publisher has none: the goal's client has one, which over DDS
/// may not be matched yet. Only a client without one (a raw service call)
/// pays the whole wait, once per goal.
const FEEDBACK_MATCH_WAIT: Duration = Duration::from_secs(1);

/// Why an action client could not be created.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum ActionClientCreateError {
    /// The action name is not valid (or its remapping is not).
    #[error("cannot create the action client: {0}")]
    InvalidName(NameError),
    /// The action type is not known or not an action type (generic clients).
    #[error("cannot create the action client: {0}")]
    UnknownType(String),
    /// One of its service clients could not be created.
    #[error("cannot create the action client's service client: {0}")]
    Client(ClientCreateError),
    /// Its feedback or status subscription could not be created.
    #[error("cannot create the action client's subscription: {0}")]
    Subscription(SubscriptionCreateError),
}

fn part(type_name: &str, suffix: &str) -> String {
    format!("{type_name}{suffix}")
}

impl Node {
    /// Creates a server of the action `A` named `name` (expanded and
    /// remapped like a topic name). On the executor spinning this node,
    /// `goal` decides about each new goal, `cancel` about each request to
    /// cancel an active goal, and `accepted` gets the handle of each accepted
    /// goal (hand it to a thread to execute the goal). `options` says how
    /// long results are kept ([`ActionServerOptions::default`] is ROS 2's).
    pub fn create_action_server<A: Action>(
        &self,
        name: &str,
        options: ActionServerOptions,
        goal: impl FnMut(&GoalId, &A::Goal) -> GoalResponse + Send + 'static,
        cancel: impl FnMut(&GoalId) -> CancelResponse + Send + 'static,
        accepted: impl FnMut(ServerGoalHandleOf<Typed<A>>) + Send + 'static,
    ) -> Result<ActionServerOf<Typed<A>>, ActionServerCreateError> {
        self.create_action_server_of(name, Typed::default(), goal, cancel, accepted, options)
    }

    /// Creates a server of the action `type_name` (`pkg/action/Name`,
    /// defined in `registry`) whose goals, results and feedback are
    /// [`dynamic`](crate::dynamic) values; otherwise as
    /// [`create_action_server`](Node::create_action_server).
    // rclcpp's shape: name, type, options, then the three callbacks.
    #[allow(clippy::too_many_arguments)]
    pub fn create_generic_action_server(
        &self,
        name: &str,
        type_name: &str,
        registry: Arc<Registry>,
        options: ActionServerOptions,
        goal: impl FnMut(&GoalId, &hibari_dynamic::Value) -> GoalResponse + Send + 'static,
        cancel: impl FnMut(&GoalId) -> CancelResponse + Send + 'static,
        accepted: impl FnMut(ServerGoalHandleOf<Dynamic>) + Send + 'static,
    ) -> Result<ActionServerOf<Dynamic>, ActionServerCreateError> {
        let codec =
            Dynamic::new(registry, type_name).map_err(ActionServerCreateError::UnknownType)?;
        self.create_action_server_of(name, codec, goal, cancel, accepted, options)
    }

    /// The action server behind both: any codec.
    pub(crate) fn create_action_server_of<C: ActionCodec>(
        &self,
        name: &str,
        codec: C,
        mut goal: impl FnMut(&GoalId, &C::Goal) -> GoalResponse + Send + 'static,
        mut cancel: impl FnMut(&GoalId) -> CancelResponse + Send + 'static,
        mut accepted: impl FnMut(ServerGoalHandleOf<C>) + Send + 'static,
        options: ActionServerOptions,
    ) -> Result<ActionServerOf<C>, ActionServerCreateError> {
        let name = self
            .resolve_topic_name(name)
            .map_err(ActionServerCreateError::InvalidName)?;
        let names = ActionNames::new(&name);
        let type_name = codec.type_name().to_owned();
        let feedback = self
            .create_generic_publisher(
                &names.feedback,
                &part(&type_name, "_FeedbackMessage"),
                QosProfile::default(),
            )
            .map_err(ActionServerCreateError::Publisher)?;
        let status = self
            .create_publisher::<GoalStatusArray>(&names.status, status_qos())
            .map_err(ActionServerCreateError::Publisher)?;
        let core = Arc::new(ServerCore::new(codec, name, feedback, status, &options));

        let weak: Weak<ServerCore<C>> = Arc::downgrade(&core);
        let on_goal = move |request: hibari_transport::CdrBytes, responder: ServiceResponder| {
            let Some(core) = weak.upgrade() else { return };
            let reject = |responder: ServiceResponder| {
                if let Ok(bytes) = encode_goal_response(false, &Time::default()) {
                    let _ = responder.respond(&bytes);
                }
            };
            let Ok((id, value)) = core.codec.decode_goal_request(&request.bytes().to_cow()) else {
                return reject(responder);
            };
            if core.knows(&id) {
                return reject(responder);
            }
            let status = match goal(&id, &value) {
                GoalResponse::Reject => return reject(responder),
                GoalResponse::AcceptAndExecute => GoalStatus::Executing,
                GoalResponse::AcceptAndDefer => GoalStatus::Accepted,
            };
            let stamp = core.insert(id, status);
            if let Ok(bytes) = encode_goal_response(true, &stamp) {
                let _ = responder.respond(&bytes);
            }
            core.publish_status();
            // The client that sent the goal reads feedback, but over DDS its
            // feedback reader may not be matched with this writer yet
            // (discovery is not symmetric), and feedback published before the
            // match would be lost. Wait for it, bounded, before executing, as
            // rmw_fastrtps waits for a client's reply reader before a reply.
            if core.feedback.matched_subscriptions() == 0 {
                core.feedback.wait_for_subscribers(1, FEEDBACK_MATCH_WAIT);
            }
            accepted(ServerGoalHandleOf::new(core, id, value));
        };
        let send_goal = self
            .create_generic_service(
                &names.send_goal,
                &part(&type_name, "_SendGoal"),
                options.service_options(),
                on_goal,
            )
            .map_err(ActionServerCreateError::Service)?;

        let weak: Weak<ServerCore<C>> = Arc::downgrade(&core);
        let get_result = self
            .create_generic_service(
                &names.get_result,
                &part(&type_name, "_GetResult"),
                options.service_options(),
                move |request, responder| {
                    if let Some(core) = weak.upgrade() {
                        core.on_get_result(&request.bytes().to_cow(), responder);
                    }
                },
            )
            .map_err(ActionServerCreateError::Service)?;

        let weak: Weak<ServerCore<C>> = Arc::downgrade(&core);
        let cancel_service = self
            .create_service::<CancelGoal, _>(
                &names.cancel_goal,
                options.service_options(),
                move |request: CancelGoal_Request| match weak.upgrade() {
                    Some(core) => core.on_cancel(request, &mut cancel),
                    None => Default::default(),
                },
            )
            .map_err(ActionServerCreateError::Service)?;
        Ok(ActionServerOf {
            core,
            send_goal,
            get_result,
            cancel: cancel_service,
        })
    }

    /// Creates a client of the action `A` named `name`.
    pub fn create_action_client<A: Action>(
        &self,
        name: &str,
    ) -> Result<ActionClientOf<Typed<A>>, ActionClientCreateError> {
        self.create_action_client_of(name, Typed::default())
    }

    /// Creates a client of the action `type_name` (`pkg/action/Name`,
    /// defined in `registry`), with [`dynamic`](crate::dynamic) values.
    pub fn create_generic_action_client(
        &self,
        name: &str,
        type_name: &str,
        registry: Arc<Registry>,
    ) -> Result<ActionClientOf<Dynamic>, ActionClientCreateError> {
        let codec =
            Dynamic::new(registry, type_name).map_err(ActionClientCreateError::UnknownType)?;
        self.create_action_client_of(name, codec)
    }

    /// The action client behind both: any codec.
    pub(crate) fn create_action_client_of<C: ActionCodec>(
        &self,
        name: &str,
        codec: C,
    ) -> Result<ActionClientOf<C>, ActionClientCreateError> {
        let name = self
            .resolve_topic_name(name)
            .map_err(ActionClientCreateError::InvalidName)?;
        let names = ActionNames::new(&name);
        let type_name = codec.type_name().to_owned();
        let qos = QosProfile::services_default();
        let send_goal = self
            .create_generic_client(&names.send_goal, &part(&type_name, "_SendGoal"), qos)
            .map_err(ActionClientCreateError::Client)?;
        let get_result = self
            .create_generic_client(&names.get_result, &part(&type_name, "_GetResult"), qos)
            .map_err(ActionClientCreateError::Client)?;
        let cancel = self
            .create_client::<CancelGoal>(&names.cancel_goal, QosProfile::services_default())
            .map_err(ActionClientCreateError::Client)?;
        let core = Arc::new(ClientCore::new(
            codec,
            name,
            send_goal,
            get_result,
            cancel,
            self.context(),
        ));

        let weak = Arc::downgrade(&core);
        let feedback = self
            .create_generic_subscription(
                &names.feedback,
                &part(&type_name, "_FeedbackMessage"),
                QosProfile::default(),
                move |bytes, _info| {
                    if let Some(core) = weak.upgrade() {
                        core.on_feedback(&bytes.bytes().to_cow());
                    }
                },
            )
            .map_err(ActionClientCreateError::Subscription)?;
        let weak = Arc::downgrade(&core);
        let status = self
            .create_subscription(
                &names.status,
                // Best effort: each array holds every goal's state, so the
                // newest replaces an unread one; a reliable depth-1 reader
                // would make the server's publish wait for this client.
                status_qos().best_effort(),
                move |array: GoalStatusArray| {
                    if let Some(core) = weak.upgrade() {
                        core.on_status(array);
                    }
                },
            )
            .map_err(ActionClientCreateError::Subscription)?;
        Ok(ActionClientOf {
            core,
            feedback,
            status,
        })
    }
}

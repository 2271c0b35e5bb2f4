//! The public API through `hibari` alone: this file imports nothing but
//! `hibari` (and std), names every type it uses through it, and creates
//! every kind of entity the one way there is — a name, options (or the one
//! setting that converts into them: a QoS, a period), a callback. If a
//! signature named a type `hibari` does not export, this would not compile.

use std::os::unix::net::UnixStream;
use std::sync::{mpsc, Arc};
use std::time::Duration;

use hibari::dynamic::Value;
use hibari::interfaces::{Distro, Registry};
use hibari::msg::std_msgs::msg::String as RosString;
use hibari::msg::std_srvs::srv::{SetBool, SetBool_Request, SetBool_Response};
use hibari::msg::tf2_msgs::action::LookupTransform;
use hibari::prelude::*;
use hibari::{
    ActionClient, ActionServer, ActionServerOptions, CallbackGroup, CancelResponse, CdrBytes,
    Client, ClientOptions, DomainId, EndpointId, FdWatch, FdWatchOptions, GenericActionClient,
    GenericActionServer, GenericClient, GenericServiceServer, GoalResponse, GuardCondition,
    GuardConditionOptions, LoanSendError, Publisher, PublisherEventCallbacks, Serialized,
    ServiceOptions, ServiceResponder, ServiceServer, Stream, Subscription,
    SubscriptionEventCallbacks, SubscriptionStream, Timer, TimerOptions, TypeAdapter, WriteError,
};

/// Text as the application keeps it, on a `std_msgs/String` topic.
struct Text;

impl TypeAdapter for Text {
    type Custom = String;
    type Ros = RosString;
    fn to_ros(custom: &String) -> RosString {
        RosString {
            data: custom.clone(),
        }
    }
    fn from_ros(ros: &RosString) -> String {
        ros.data.clone()
    }
}

/// Types that signatures name, nameable through `hibari`.
fn _nameable(_: DomainId, _: EndpointId, _: &WriteError, _: Option<LoanSendError<'_>>) {}

fn is_stream<S: Stream>(_: &S) {}

#[test]
fn every_entity_is_created_with_a_name_its_options_and_a_callback() {
    let context = Context::builder().isolated().create().unwrap();
    let node = context.create_node("api").unwrap();
    let group: CallbackGroup = node.create_callback_group(CallbackGroupType::Reentrant);
    let qos = QosProfile::default();

    let _: Publisher<RosString> = node.create_publisher("t", qos).unwrap();
    let options = PublisherOptions::new(qos)
        .callback_group(&group)
        .event_callbacks(PublisherEventCallbacks::new());
    let _: Publisher<RosString> = node.create_publisher("t", options).unwrap();
    let _: Subscription<RosString> = node
        .create_subscription("t", qos, |_: RosString| {})
        .unwrap();
    let options = SubscriptionOptions::new(qos)
        .callback_group(&group)
        .busy_poll(false)
        .event_callbacks(SubscriptionEventCallbacks::new());
    let _: Subscription<RosString> = node
        .create_subscription("t", options, |_: &RosString, _: &SampleInfo| {})
        .unwrap();
    let _: Subscription<RosString> = node.create_polled_subscription("t", qos).unwrap();
    let stream: SubscriptionStream<RosString> = node.create_subscription_stream("t", qos).unwrap();
    is_stream(&stream);
    let _: Subscription<RosString> = node
        .create_view_subscription::<RosString, _>("t", qos, |_view, _info| {})
        .unwrap();

    let _: Publisher<Serialized> = node
        .create_generic_publisher("g", "std_msgs/msg/String", qos)
        .unwrap();
    let _: Subscription<Serialized> = node
        .create_generic_subscription("g", "std_msgs/msg/String", qos, |_: CdrBytes, _| {})
        .unwrap();
    let _: Subscription<Serialized> = node
        .create_generic_polled_subscription("g", "std_msgs/msg/String", qos)
        .unwrap();

    let services = QosProfile::services_default();
    let options = ServiceOptions::new(services).callback_group(&group);
    let _: ServiceServer<SetBool> = node
        .create_service::<SetBool, _>("s", options, |r: SetBool_Request| SetBool_Response {
            success: r.data,
            message: String::new(),
        })
        .unwrap();
    let _: Client<SetBool> = node
        .create_client("s", ClientOptions::new(services))
        .unwrap();
    let _: GenericServiceServer = node
        .create_generic_service(
            "gs",
            "std_srvs/srv/SetBool",
            services,
            |_, _: ServiceResponder| {},
        )
        .unwrap();
    let _: GenericClient = node
        .create_generic_client("gs", "std_srvs/srv/SetBool", services)
        .unwrap();

    let minute = Duration::from_secs(60);
    let _: Timer = node.create_timer(minute, || {}).unwrap();
    let options = TimerOptions::new(minute).callback_group(&group);
    let _: Timer = node.create_wall_timer(options, || {}).unwrap();
    let options = GuardConditionOptions::new().callback_group(&group);
    let _: GuardCondition = node.create_guard_condition(options, || {});
    let (ours, _theirs) = UnixStream::pair().unwrap();
    let options = FdWatchOptions::new().callback_group(&group);
    let _: FdWatch = node.create_fd_watch(ours, options, |_fd| {});

    let _: ActionServer<LookupTransform> = node
        .create_action_server::<LookupTransform>(
            "a",
            ActionServerOptions::default(),
            |_, _| GoalResponse::Reject,
            |_| CancelResponse::Reject,
            |_| {},
        )
        .unwrap();
    let _: ActionClient<LookupTransform> = node.create_action_client("a").unwrap();
    let registry = Arc::new(Registry::bundled(Distro::Jazzy));
    let action = "tf2_msgs/action/LookupTransform";
    let _: GenericActionServer = node
        .create_generic_action_server(
            "ga",
            action,
            registry.clone(),
            ActionServerOptions::default(),
            |_, _: &Value| GoalResponse::Reject,
            |_| CancelResponse::Reject,
            |_| {},
        )
        .unwrap();
    let _: GenericActionClient = node
        .create_generic_action_client("ga", action, registry)
        .unwrap();
}

#[test]
fn a_subscription_takes_its_adapter_from_its_options() {
    let context = Context::builder().isolated().create().unwrap();
    let node = context.create_node("adapted").unwrap();
    let (tx, rx) = mpsc::channel();
    let options = SubscriptionOptions::new(QosProfile::default()).adapter::<Text>();
    let _sub: Subscription<Text> = node
        .create_subscription("text", options, move |text: String| {
            tx.send(text).unwrap();
        })
        .unwrap();
    let publisher: Publisher<Text> = node
        .create_publisher("text", QosProfile::default())
        .unwrap();
    publisher.publish("hello".to_owned()).unwrap();
    let executor = SingleThreadedExecutor::new();
    executor.add_node(&node).unwrap();
    assert!(executor.spin_once(Duration::from_secs(10)));
    assert_eq!(rx.try_recv().unwrap(), "hello");
}

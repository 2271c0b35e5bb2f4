//! Graph introspection through the public API.

use std::time::Duration;

use hibari::msg::std_msgs::msg::String as Chatter;
use hibari::{Context, EndpointKind, NodeOptions, QosProfile};

#[test]
fn nodes_topics_and_endpoints_with_their_qos_are_listed_and_retracted() {
    let ctx = Context::builder().isolated().create().unwrap();
    let observer = ctx.create_node("observer").unwrap();
    let talker = ctx.create_node_with_namespace("talker", "/robot").unwrap();
    let listener = ctx.create_node("listener").unwrap();
    let publisher = talker
        .create_publisher::<Chatter>("chatter", QosProfile::sensor_data())
        .unwrap();
    let _subscription = listener
        .create_subscription::<Chatter, _, _>(
            "/robot/chatter",
            QosProfile::default(),
            |_m: Chatter| {},
        )
        .unwrap();

    assert_eq!(
        observer.get_node_names(),
        vec!["/listener", "/observer", "/robot/talker"]
    );
    assert!(observer
        .get_node_names_and_namespaces()
        .contains(&("talker".to_owned(), "/robot".to_owned())));
    let topics = observer.get_topic_names_and_types();
    assert_eq!(topics["/robot/chatter"], vec!["std_msgs/msg/String"]);
    let pubs = observer
        .get_publishers_info_by_topic("/robot/chatter")
        .unwrap();
    assert_eq!(pubs.len(), 1);
    assert_eq!(pubs[0].node_name, "talker");
    assert_eq!(pubs[0].node_namespace, "/robot");
    assert_eq!(pubs[0].endpoint_type, EndpointKind::Writer);
    assert_eq!(pubs[0].qos, QosProfile::sensor_data());
    assert_eq!(pubs[0].gid, publisher.id());
    let subs = observer
        .get_subscriptions_info_by_topic("/robot/chatter")
        .unwrap();
    assert_eq!(subs.len(), 1);
    assert_eq!(subs[0].node_name, "listener");
    assert_eq!(subs[0].qos, QosProfile::default());
    assert_eq!(observer.count_publishers("/robot/chatter").unwrap(), 1);
    // Names resolve like a publisher's: relative to the asking node.
    assert_eq!(talker.count_subscribers("chatter").unwrap(), 1);
    assert!(observer.count_publishers("bad name").is_err());

    drop(publisher);
    assert_eq!(observer.count_publishers("/robot/chatter").unwrap(), 0);
    drop(talker);
    assert_eq!(observer.get_node_names(), vec!["/listener", "/observer"]);
}

#[test]
fn waiting_for_a_node_wakes_when_it_appears_and_times_out_otherwise() {
    let ctx = Context::builder().isolated().create().unwrap();
    let observer = ctx.create_node("observer").unwrap();
    assert!(!observer.wait_for_node("/late", Duration::from_millis(50)));
    let c = ctx.clone();
    let t = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(50));
        let n = c.create_node("late").unwrap();
        std::thread::sleep(Duration::from_millis(200));
        drop(n);
    });
    assert!(observer.wait_for_node("/late", Duration::from_secs(10)));
    t.join().unwrap();
    assert!(observer.wait_for_graph(|g| g.nodes.len() == 1, Duration::from_secs(10)));
}

#[test]
fn services_are_listed_by_name_and_type_not_as_topics() {
    use hibari::msg::std_srvs::srv::{SetBool, SetBool_Request, SetBool_Response};
    let ctx = Context::builder().isolated().create().unwrap();
    // Without the parameter services, events and /rosout every node has by
    // default.
    let bare = || {
        NodeOptions::new()
            .start_parameter_services(false)
            .start_parameter_event_publisher(false)
            .enable_rosout(false)
    };
    let node = ctx
        .create_node_with_options("light", bare().namespace("/house"))
        .unwrap();
    let _server = node
        .create_service::<SetBool, _>(
            "switch",
            QosProfile::services_default(),
            |r: SetBool_Request| SetBool_Response {
                success: r.data,
                message: String::new(),
            },
        )
        .unwrap();
    let other = ctx.create_node_with_options("panel", bare()).unwrap();
    let _client = other
        .create_client::<SetBool>("/house/switch", QosProfile::services_default())
        .unwrap();
    let services = other.get_service_names_and_types();
    assert_eq!(services.len(), 1, "{services:?}");
    assert_eq!(services["/house/switch"], vec!["std_srvs/srv/SetBool"]);
    assert!(other.get_topic_names_and_types().is_empty());
}

#[test]
fn a_node_serves_its_parameter_services_and_publishes_events_and_rosout_by_default() {
    let ctx = Context::builder().isolated().create().unwrap();
    let node = ctx.create_node_with_namespace("cam", "/r1").unwrap();
    let services = node.get_service_names_and_types();
    let parameters = [
        ("describe_parameters", "DescribeParameters"),
        ("get_parameter_types", "GetParameterTypes"),
        ("get_parameters", "GetParameters"),
        ("list_parameters", "ListParameters"),
        ("set_parameters", "SetParameters"),
        ("set_parameters_atomically", "SetParametersAtomically"),
    ];
    assert_eq!(services.len(), parameters.len(), "{services:?}");
    for (name, ty) in parameters {
        assert_eq!(
            services[&format!("/r1/cam/{name}")],
            vec![format!("rcl_interfaces/srv/{ty}")]
        );
    }
    let topics = node.get_topic_names_and_types();
    assert_eq!(
        topics["/parameter_events"],
        vec!["rcl_interfaces/msg/ParameterEvent"]
    );
    assert_eq!(topics["/rosout"], vec!["rcl_interfaces/msg/Log"]);
}

//! ROS 2 names on the DDS wire, as rmw_fastrtps spells them
//! (`rmw_fastrtps_shared_cpp/src/namespace_prefix.cpp`, `type_support_common.hpp`).
//!
//! - A topic `/robot1/chatter` is the DDS topic `rt/robot1/chatter`.
//! - hibari's service topics already are `rq/<service>Request` and
//!   `rr/<service>Reply` (no leading slash) and go out exactly so.
//! - A type `std_msgs/msg/String` is the DDS type `std_msgs::msg::dds_::String_`.
//!
//! Incoming names are translated back; names without a ROS prefix (bare DDS
//! applications, `ros_discovery_info`) are not ROS topics and are not shown.

/// The DDS topic name of a hibari topic (already fully qualified).
pub fn topic_to_dds(topic: &str) -> String {
    if topic.starts_with("rq/") || topic.starts_with("rr/") {
        topic.to_owned()
    } else if let Some(rest) = topic.strip_prefix('/') {
        format!("rt/{rest}")
    } else {
        format!("rt/{topic}")
    }
}

/// The hibari topic name of a DDS topic, or `None` when it is not a ROS topic.
pub fn topic_from_dds(dds: &str) -> Option<String> {
    if let Some(rest) = dds.strip_prefix("rt/") {
        Some(format!("/{rest}"))
    } else if dds.starts_with("rq/") || dds.starts_with("rr/") {
        Some(dds.to_owned())
    } else {
        None
    }
}

/// `pkg/msg/Name` → `pkg::msg::dds_::Name_`. A name that is not of the
/// `pkg/kind/Name` shape goes out as it is.
pub fn type_to_dds(ros: &str) -> String {
    let parts: Vec<&str> = ros.split('/').collect();
    match parts.as_slice() {
        [pkg, kind, name] => format!("{pkg}::{kind}::dds_::{name}_"),
        _ => ros.to_owned(),
    }
}

/// `pkg::msg::dds_::Name_` → `pkg/msg/Name`; other names as they are.
pub fn type_from_dds(dds: &str) -> String {
    let parts: Vec<&str> = dds.split("::").collect();
    match parts.as_slice() {
        [pkg, kind, "dds_", name] if name.ends_with('_') && name.len() > 1 => {
            format!("{pkg}/{kind}/{}", &name[..name.len() - 1])
        }
        _ => dds.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn topics_get_the_rt_prefix_and_services_go_out_as_they_are() {
        assert_eq!(topic_to_dds("/chatter"), "rt/chatter");
        assert_eq!(topic_to_dds("/robot1/cmd_vel"), "rt/robot1/cmd_vel");
        assert_eq!(
            topic_to_dds("rq/add_two_intsRequest"),
            "rq/add_two_intsRequest"
        );
        assert_eq!(topic_to_dds("rr/ns/svcReply"), "rr/ns/svcReply");
        assert_eq!(
            topic_from_dds("rt/robot1/cmd_vel").as_deref(),
            Some("/robot1/cmd_vel")
        );
        assert_eq!(
            topic_from_dds("rq/svcRequest").as_deref(),
            Some("rq/svcRequest")
        );
        assert_eq!(topic_from_dds("ros_discovery_info"), None);
        assert_eq!(topic_from_dds("Square"), None);
    }

    #[test]
    fn type_names_are_mangled_as_rmw_fastrtps_does_and_back() {
        assert_eq!(
            type_to_dds("std_msgs/msg/String"),
            "std_msgs::msg::dds_::String_"
        );
        assert_eq!(
            type_to_dds("std_srvs/srv/SetBool_Request"),
            "std_srvs::srv::dds_::SetBool_Request_"
        );
        assert_eq!(
            type_from_dds("std_msgs::msg::dds_::String_"),
            "std_msgs/msg/String"
        );
        assert_eq!(
            type_from_dds("test_msgs::action::dds_::Fibonacci_SendGoal_Request_"),
            "test_msgs/action/Fibonacci_SendGoal_Request"
        );
        assert_eq!(type_from_dds("ShapeType"), "ShapeType");
        assert_eq!(type_to_dds("odd"), "odd");
    }
}

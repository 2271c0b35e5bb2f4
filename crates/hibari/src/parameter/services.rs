//! The six parameter services a node serves under its name and its
//! `/parameter_events` publisher, answering as rclpy's `ParameterService`
//! does (an undeclared name in a get, describe or types request gives an
//! empty answer; a set answers each parameter with its own result).

use std::any::Any;
use std::sync::{Arc, Weak};
use std::time::{SystemTime, UNIX_EPOCH};

use super::node_api::list;
use super::store::{Changes, ParameterStore};
use super::{Parameter, ParameterAccessError, SetParametersResult};
use crate::msg::builtin_interfaces::msg::Time;
use crate::msg::rcl_interfaces::msg::{
    ListParametersResult as ListMsg, ParameterEvent, SetParametersResult as ResultMsg,
};
use crate::msg::rcl_interfaces::srv::*;
use crate::node::Node;
use crate::{PublisherCreateError, QosProfile, ServiceCreateError};

/// Why a node could not start its parameter services or event publisher.
#[derive(Debug, thiserror::Error, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ParameterServicesError {
    /// A service could not be created.
    #[error("the parameter service `{name}` could not be created: {source}")]
    Service {
        /// The service's name.
        name: String,
        /// What the transport said.
        source: ServiceCreateError,
    },
    /// The `/parameter_events` publisher could not be created.
    #[error("the /parameter_events publisher could not be created: {0}")]
    Events(PublisherCreateError),
}

fn result_msg(r: SetParametersResult) -> ResultMsg {
    ResultMsg {
        successful: r.successful,
        reason: r.reason,
    }
}

fn now() -> Time {
    let since = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    Time {
        sec: i32::try_from(since.as_secs()).unwrap_or(i32::MAX),
        nanosec: since.subsec_nanos(),
    }
}

/// Publishes every change of `store` on `/parameter_events`.
pub(crate) fn start_events(
    node: &Node,
    store: &ParameterStore,
) -> Result<(), ParameterServicesError> {
    let publisher = node
        .create_publisher::<ParameterEvent>("/parameter_events", QosProfile::parameter_events())
        .map_err(ParameterServicesError::Events)?;
    let fqn = node.fully_qualified_name();
    store.set_publisher(Box::new(move |c: &Changes| {
        let msgs = |ps: &[Parameter]| ps.iter().map(Parameter::to_msg).collect();
        let event = ParameterEvent {
            stamp: now(),
            node: fqn.clone(),
            new_parameters: msgs(&c.new),
            changed_parameters: msgs(&c.changed),
            deleted_parameters: msgs(&c.deleted),
        };
        // A publish fails only if no transport takes it; the set stands.
        let _ = publisher.publish(event);
    }));
    Ok(())
}

/// Answers with `f` while the store lives (an empty answer after).
fn with<R: Default>(store: &Weak<ParameterStore>, f: impl FnOnce(&ParameterStore) -> R) -> R {
    store.upgrade().map(|s| f(&s)).unwrap_or_default()
}

/// Creates the six services; the returned handles keep them served.
pub(crate) fn start_services(
    node: &Node,
    store: &Arc<ParameterStore>,
) -> Result<Vec<Box<dyn Any + Send + Sync>>, ParameterServicesError> {
    let qos = QosProfile::parameters;
    let name = |s: &str| format!("~/{s}");
    let failed = |s: &str| {
        let n = name(s);
        move |source| ParameterServicesError::Service { name: n, source }
    };
    let mut keep: Vec<Box<dyn Any + Send + Sync>> = Vec::new();

    let s = Arc::downgrade(store);
    keep.push(Box::new(
        node.create_service::<GetParameters, _>(
            &name("get_parameters"),
            qos(),
            move |req: GetParameters_Request| GetParameters_Response {
                values: with(&s, |s| {
                    req.names
                        .iter()
                        .map(|n| s.get(n).map(|v| v.to_msg()))
                        .collect::<Result<Vec<_>, _>>()
                        .unwrap_or_default()
                }),
            },
        )
        .map_err(failed("get_parameters"))?,
    ));

    let s = Arc::downgrade(store);
    keep.push(Box::new(
        node.create_service::<GetParameterTypes, _>(
            &name("get_parameter_types"),
            qos(),
            move |req: GetParameterTypes_Request| GetParameterTypes_Response {
                types: with(&s, |s| {
                    req.names
                        .iter()
                        .map(|n| match s.get(n) {
                            Ok(v) => Ok(v.parameter_type() as u8),
                            Err(ParameterAccessError::Uninitialized { .. }) => Ok(0),
                            Err(e) => Err(e),
                        })
                        .collect::<Result<Vec<_>, _>>()
                        .unwrap_or_default()
                }),
            },
        )
        .map_err(failed("get_parameter_types"))?,
    ));

    let s = Arc::downgrade(store);
    keep.push(Box::new(
        node.create_service::<DescribeParameters, _>(
            &name("describe_parameters"),
            qos(),
            move |req: DescribeParameters_Request| DescribeParameters_Response {
                descriptors: with(&s, |s| {
                    req.names
                        .iter()
                        .map(|n| s.describe(n).map(|d| d.to_msg()))
                        .collect::<Result<Vec<_>, _>>()
                        .unwrap_or_default()
                }),
            },
        )
        .map_err(failed("describe_parameters"))?,
    ));

    let s = Arc::downgrade(store);
    keep.push(Box::new(
        node.create_service::<ListParameters, _>(
            &name("list_parameters"),
            qos(),
            move |req: ListParameters_Request| ListParameters_Response {
                result: with(&s, |s| {
                    let names = s.snapshot().into_iter().map(|(n, _)| n);
                    let r = list(names, &req.prefixes, req.depth);
                    ListMsg {
                        names: r.names,
                        prefixes: r.prefixes,
                    }
                }),
            },
        )
        .map_err(failed("list_parameters"))?,
    ));

    let s = Arc::downgrade(store);
    keep.push(Box::new(
        node.create_service::<SetParameters, _>(
            &name("set_parameters"),
            qos(),
            move |req: SetParameters_Request| SetParameters_Response {
                results: with(&s, |s| {
                    req.parameters
                        .into_iter()
                        .map(|p| result_msg(s.set_atomically(vec![Parameter::from_msg(p)])))
                        .collect()
                }),
            },
        )
        .map_err(failed("set_parameters"))?,
    ));

    let s = Arc::downgrade(store);
    keep.push(Box::new(
        node.create_service::<SetParametersAtomically, _>(
            &name("set_parameters_atomically"),
            qos(),
            move |req: SetParametersAtomically_Request| SetParametersAtomically_Response {
                result: with(&s, |s| {
                    let list = req.parameters.into_iter().map(Parameter::from_msg);
                    result_msg(s.set_atomically(list.collect()))
                }),
            },
        )
        .map_err(failed("set_parameters_atomically"))?,
    ));
    Ok(keep)
}

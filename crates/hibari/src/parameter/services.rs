//! The six parameter services a node serves under its name and its
//! `/parameter_events` publisher, answering as rclpy's `ParameterService`
//! does (an undeclared name in a get, describe or types request gives an
//! empty answer; a set answers each parameter with its own result).

use std::any::Any;
use std::sync::Arc;

use super::node_api::list;
use super::store::{Changes, ParameterStore};
use super::{Parameter, ParameterAccessError, SetParametersResult};
use crate::msg::rcl_interfaces::msg::{
    ListParametersResult as ListMsg, ParameterEvent, SetParametersResult as ResultMsg,
};
use crate::msg::rcl_interfaces::srv::*;
use crate::node::Node;
use crate::{PublisherCreateError, QosProfile, Service, ServiceCreateError};

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
            stamp: crate::action::now_stamp(),
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

/// Serves `~/<suffix>` with `answer` while the store lives (an empty
/// answer after); the handle goes into `keep`.
fn serve<S: Service>(
    node: &Node,
    store: &Arc<ParameterStore>,
    keep: &mut Vec<Box<dyn Any + Send + Sync>>,
    suffix: &str,
    answer: impl Fn(&ParameterStore, S::Request) -> S::Response + Send + 'static,
) -> Result<(), ParameterServicesError> {
    let qos = QosProfile::parameters();
    crate::service::serve_state::<S, _>(node, store, keep, suffix, qos, answer)
        .map_err(|(name, source)| ParameterServicesError::Service { name, source })
}

/// All the values of `names`, or none when one is missing (rclpy's answer).
fn all_or_none<T>(
    names: &[String],
    each: impl Fn(&str) -> Result<T, ParameterAccessError>,
) -> Vec<T> {
    names
        .iter()
        .map(|n| each(n))
        .collect::<Result<Vec<_>, _>>()
        .unwrap_or_default()
}

/// Creates the six services; the returned handles keep them served.
pub(crate) fn start_services(
    node: &Node,
    store: &Arc<ParameterStore>,
) -> Result<Vec<Box<dyn Any + Send + Sync>>, ParameterServicesError> {
    let mut keep: Vec<Box<dyn Any + Send + Sync>> = Vec::new();
    serve::<GetParameters>(node, store, &mut keep, "get_parameters", |s, req| {
        GetParameters_Response {
            values: all_or_none(&req.names, |n| s.get(n).map(|v| v.to_msg())),
        }
    })?;
    serve::<GetParameterTypes>(node, store, &mut keep, "get_parameter_types", |s, req| {
        GetParameterTypes_Response {
            types: all_or_none(&req.names, |n| s.type_of(n).map(|t| t as u8)),
        }
    })?;
    serve::<DescribeParameters>(node, store, &mut keep, "describe_parameters", |s, req| {
        DescribeParameters_Response {
            descriptors: all_or_none(&req.names, |n| s.describe(n).map(|d| d.to_msg())),
        }
    })?;
    serve::<ListParameters>(node, store, &mut keep, "list_parameters", |s, req| {
        let names = s.snapshot().into_iter().map(|(n, _)| n);
        let r = list(names, &req.prefixes, req.depth);
        ListParameters_Response {
            result: ListMsg {
                names: r.names,
                prefixes: r.prefixes,
            },
        }
    })?;
    serve::<SetParameters>(node, store, &mut keep, "set_parameters", |s, req| {
        SetParameters_Response {
            results: req
                .parameters
                .into_iter()
                .map(|p| result_msg(s.set_atomically(vec![Parameter::from_msg(p)])))
                .collect(),
        }
    })?;
    serve::<SetParametersAtomically>(
        node,
        store,
        &mut keep,
        "set_parameters_atomically",
        |s, req| {
            let list = req
                .parameters
                .into_iter()
                .map(Parameter::from_msg)
                .collect();
            SetParametersAtomically_Response {
                result: result_msg(s.set_atomically(list)),
            }
        },
    )?;
    Ok(keep)
}

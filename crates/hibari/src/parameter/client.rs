//! Reading and setting another node's parameters through its parameter
//! services, as rclcpp's `SyncParametersClient` does (blocking calls with a
//! timeout; every node that serves the services answers, hibari's or ROS
//! 2's).

use std::time::{Duration, Instant};

use thiserror::Error;

use super::{
    ListParametersResult, Parameter, ParameterDescriptor, ParameterType, ParameterValue,
    SetParametersResult,
};
use crate::msg::rcl_interfaces::srv::*;
use crate::node::Node;
use crate::{CallError, Client, ClientCreateError, QosProfile, Service};

/// Why a parameter client call failed.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum ParameterClientError {
    /// A service client could not be created.
    #[error("cannot create the parameter client of `{node}`: {source}")]
    Create {
        /// The remote node.
        node: String,
        /// What the transport said.
        source: ClientCreateError,
    },
    /// The call failed (no server, timeout, server gone).
    #[error(transparent)]
    Call(#[from] CallError),
    /// The node answered with no value for a name: it has no such
    /// parameter, or one was not set (the services answer all or nothing).
    #[error("`{node}` has no value for some of {names:?}: they are not declared (or not set)")]
    NotDeclared {
        /// The remote node.
        node: String,
        /// The names asked for.
        names: Vec<String>,
    },
}

/// A client of one node's parameter services.
pub struct ParameterClient {
    node: String,
    get: Client<GetParameters>,
    types: Client<GetParameterTypes>,
    describe: Client<DescribeParameters>,
    list: Client<ListParameters>,
    set: Client<SetParameters>,
    set_atomically: Client<SetParametersAtomically>,
}

impl std::fmt::Debug for ParameterClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ParameterClient")
            .field("node", &self.node)
            .finish()
    }
}

impl ParameterClient {
    /// A client of the node named `remote` (`/ns/name`; a relative name is
    /// resolved from `node`'s namespace).
    pub fn new(node: &Node, remote: &str) -> Result<Self, ParameterClientError> {
        Ok(ParameterClient {
            node: remote.into(),
            get: open(node, remote, "get_parameters")?,
            types: open(node, remote, "get_parameter_types")?,
            describe: open(node, remote, "describe_parameters")?,
            list: open(node, remote, "list_parameters")?,
            set: open(node, remote, "set_parameters")?,
            set_atomically: open(node, remote, "set_parameters_atomically")?,
        })
    }

    /// Waits until all six services are available; whether they are.
    pub fn wait_for_services(&self, timeout: Duration) -> bool {
        let end = Instant::now() + timeout;
        let left = || end.saturating_duration_since(Instant::now());
        self.get.wait_for_service(left())
            && self.types.wait_for_service(left())
            && self.describe.wait_for_service(left())
            && self.list.wait_for_service(left())
            && self.set.wait_for_service(left())
            && self.set_atomically.wait_for_service(left())
    }

    fn not_declared(&self, names: &[&str]) -> ParameterClientError {
        ParameterClientError::NotDeclared {
            node: self.node.clone(),
            names: names.iter().map(|s| s.to_string()).collect(),
        }
    }

    fn names(names: &[&str]) -> Vec<String> {
        names.iter().map(|s| s.to_string()).collect()
    }

    /// The values of `names`, in order.
    pub fn get_parameters(
        &self,
        names: &[&str],
        timeout: Duration,
    ) -> Result<Vec<ParameterValue>, ParameterClientError> {
        let request = GetParameters_Request {
            names: Self::names(names),
        };
        let values = self.get.call(request, timeout)?.values;
        if values.len() != names.len() {
            return Err(self.not_declared(names));
        }
        Ok(values.into_iter().map(ParameterValue::from_msg).collect())
    }

    /// The types of `names`, in order.
    pub fn get_parameter_types(
        &self,
        names: &[&str],
        timeout: Duration,
    ) -> Result<Vec<ParameterType>, ParameterClientError> {
        let request = GetParameterTypes_Request {
            names: Self::names(names),
        };
        let types = self.types.call(request, timeout)?.types;
        if types.len() != names.len() {
            return Err(self.not_declared(names));
        }
        let parse = |t| ParameterType::from_u8(t).unwrap_or_default();
        Ok(types.into_iter().map(parse).collect())
    }

    /// The descriptors of `names`, in order.
    pub fn describe_parameters(
        &self,
        names: &[&str],
        timeout: Duration,
    ) -> Result<Vec<ParameterDescriptor>, ParameterClientError> {
        let request = DescribeParameters_Request {
            names: Self::names(names),
        };
        let descriptors = self.describe.call(request, timeout)?.descriptors;
        if descriptors.len() != names.len() {
            return Err(self.not_declared(names));
        }
        Ok(descriptors
            .into_iter()
            .map(ParameterDescriptor::from_msg)
            .collect())
    }

    /// The names under `prefixes` down to `depth` levels (0: all).
    pub fn list_parameters(
        &self,
        prefixes: &[&str],
        depth: u64,
        timeout: Duration,
    ) -> Result<ListParametersResult, ParameterClientError> {
        let request = ListParameters_Request {
            prefixes: Self::names(prefixes),
            depth,
        };
        let r = self.list.call(request, timeout)?.result;
        Ok(ListParametersResult {
            names: r.names,
            prefixes: r.prefixes,
        })
    }

    /// Sets each parameter on its own: one result each.
    pub fn set_parameters(
        &self,
        parameters: &[Parameter],
        timeout: Duration,
    ) -> Result<Vec<SetParametersResult>, ParameterClientError> {
        let request = SetParameters_Request {
            parameters: parameters.iter().map(Parameter::to_msg).collect(),
        };
        let results = self.set.call(request, timeout)?.results;
        Ok(results
            .into_iter()
            .map(|r| SetParametersResult {
                successful: r.successful,
                reason: r.reason,
            })
            .collect())
    }

    /// Sets all the parameters or none.
    pub fn set_parameters_atomically(
        &self,
        parameters: &[Parameter],
        timeout: Duration,
    ) -> Result<SetParametersResult, ParameterClientError> {
        let request = SetParametersAtomically_Request {
            parameters: parameters.iter().map(Parameter::to_msg).collect(),
        };
        let r = self.set_atomically.call(request, timeout)?.result;
        Ok(SetParametersResult {
            successful: r.successful,
            reason: r.reason,
        })
    }
}

/// A client of `remote`'s service `<remote>/<suffix>`.
fn open<S: Service>(
    node: &Node,
    remote: &str,
    suffix: &str,
) -> Result<Client<S>, ParameterClientError> {
    let name = format!("{}/{suffix}", remote.trim_end_matches('/'));
    node.create_client(&name, QosProfile::parameters())
        .map_err(|source| ParameterClientError::Create {
            node: remote.into(),
            source,
        })
}

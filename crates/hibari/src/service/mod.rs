//! Services: servers and clients (typed and generic), the calls in flight,
//! how replies find their client, and the futures a call returns.

pub(crate) mod calls;
pub(crate) mod client;
pub(crate) mod future;
pub(crate) mod generic_client;
pub(crate) mod generic_service;
pub(crate) mod reply;
pub(crate) mod server;

use std::any::Any;
use std::sync::{Arc, Weak};

use crate::{Node, QosProfile, Service, ServiceCreateError};

/// Serves `~/{suffix}` on `node` with `answer(&state, request)` while
/// `state` lives (a default response after), for the services a node part
/// keeps (parameters, lifecycle). The server is pushed onto `keep`; the
/// error names the service.
pub(crate) fn serve_state<S: Service, T: Send + Sync + 'static>(
    node: &Node,
    state: &Arc<T>,
    keep: &mut Vec<Box<dyn Any + Send + Sync>>,
    suffix: &str,
    qos: QosProfile,
    answer: impl Fn(&T, S::Request) -> S::Response + Send + 'static,
) -> Result<(), (String, ServiceCreateError)> {
    let weak: Weak<T> = Arc::downgrade(state);
    let callback = move |request: S::Request| match weak.upgrade() {
        Some(s) => answer(&s, request),
        None => S::Response::default(),
    };
    let name = format!("~/{suffix}");
    match node.create_service::<S, _>(&name, qos, callback) {
        Ok(server) => {
            keep.push(Box::new(server));
            Ok(())
        }
        Err(source) => Err((name, source)),
    }
}

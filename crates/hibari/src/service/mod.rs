//! Services: servers and clients (typed and generic), the calls in flight,
//! how replies find their client, and the futures a call returns.

pub(crate) mod calls;
pub(crate) mod client;
pub(crate) mod future;
pub(crate) mod generic_client;
pub(crate) mod generic_service;
pub(crate) mod reply;
pub(crate) mod server;

//! Topics: publishers, subscriptions and what rides on them — loans of
//! shared memory, views read in place, streams for async code, the shapes a
//! callback may take, and generic (run-time typed, CDR) endpoints.

pub mod callback;
pub(crate) mod create;
pub(crate) mod foreign;
pub(crate) mod generic;
pub mod loan;
pub(crate) mod pubsub;
pub(crate) mod stream;
pub(crate) mod subscription;
pub mod view;

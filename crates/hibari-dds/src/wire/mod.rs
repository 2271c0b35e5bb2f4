//! How hibari's samples, names, QoS and times look on the DDS wire.

pub mod names;
pub mod qos;
pub mod raw;
pub mod time;

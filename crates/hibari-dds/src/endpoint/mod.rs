//! Writers and readers: what they share ([`state`]), and each kind.

pub mod reader;
pub mod state;
pub mod writer;

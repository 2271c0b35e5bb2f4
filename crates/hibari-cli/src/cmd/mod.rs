pub mod demo;
pub mod interface;

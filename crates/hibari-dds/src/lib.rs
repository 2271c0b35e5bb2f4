//! hibari's DDS-RTPS transport (work in progress in this change).
#![forbid(unsafe_code)]

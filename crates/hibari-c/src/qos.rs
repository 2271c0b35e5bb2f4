//! QoS profiles as C passes them: a plain struct, durations in ns.
//!
//! The policies are `int32_t`s with named values rather than C enums: a C
//! enum variable may hold any int, and an out-of-range value in a Rust enum
//! is undefined behaviour. Every value is checked
//! (`HIBARI_ERROR_INVALID_ARGUMENT` when it is not one of the names).

use std::time::Duration;

use hibari_rs::{Durability, History, Liveliness, QosProfile, Reliability};

use crate::error::{Error, Result};

/// Reliability: `HIBARI_RELIABILITY_*`.
#[allow(non_camel_case_types)]
pub type hibari_reliability_t = i32;
/// Every sample is delivered, resent if lost (the default).
pub const HIBARI_RELIABILITY_RELIABLE: hibari_reliability_t = 0;
/// Samples may be lost, never resent (sensor data).
pub const HIBARI_RELIABILITY_BEST_EFFORT: hibari_reliability_t = 1;

/// History: `HIBARI_HISTORY_*`.
#[allow(non_camel_case_types)]
pub type hibari_history_t = i32;
/// Keep the last `depth` samples (the default).
pub const HIBARI_HISTORY_KEEP_LAST: hibari_history_t = 0;
/// Keep every sample until taken.
pub const HIBARI_HISTORY_KEEP_ALL: hibari_history_t = 1;

/// Durability: `HIBARI_DURABILITY_*`.
#[allow(non_camel_case_types)]
pub type hibari_durability_t = i32;
/// Late subscribers get nothing sent before they came (the default).
pub const HIBARI_DURABILITY_VOLATILE: hibari_durability_t = 0;
/// Late subscribers get the last `depth` samples ("latched").
pub const HIBARI_DURABILITY_TRANSIENT_LOCAL: hibari_durability_t = 1;

/// Liveliness: `HIBARI_LIVELINESS_*`.
#[allow(non_camel_case_types)]
pub type hibari_liveliness_t = i32;
/// The publisher is alive while its process is (the default).
pub const HIBARI_LIVELINESS_AUTOMATIC: hibari_liveliness_t = 0;
/// The publisher asserts it by publishing.
pub const HIBARI_LIVELINESS_MANUAL_BY_TOPIC: hibari_liveliness_t = 1;

/// A QoS profile. Durations are in ns, 0 meaning not set (no deadline,
/// infinite lifespan and lease). Start from `hibari_qos_default()` (or
/// another profile) and change fields. Wherever a `const hibari_qos_t *`
/// is taken, NULL means the default profile of that entity.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(non_camel_case_types)]
pub struct hibari_qos_t {
    pub reliability: hibari_reliability_t,
    pub history: hibari_history_t,
    /// How many samples KEEP_LAST keeps (at least 1); ignored by KEEP_ALL.
    pub depth: u32,
    pub durability: hibari_durability_t,
    pub deadline_ns: i64,
    pub lifespan_ns: i64,
    pub liveliness: hibari_liveliness_t,
    pub liveliness_lease_ns: i64,
}

fn ns(d: Option<Duration>) -> i64 {
    d.map_or(0, |d| i64::try_from(d.as_nanos()).unwrap_or(i64::MAX))
}

/// The C struct of a profile.
pub(crate) fn to_c(q: &QosProfile) -> hibari_qos_t {
    let (history, depth) = match q.history {
        History::KeepLast(n) => (
            HIBARI_HISTORY_KEEP_LAST,
            u32::try_from(n).unwrap_or(u32::MAX),
        ),
        History::KeepAll => (HIBARI_HISTORY_KEEP_ALL, 0),
    };
    hibari_qos_t {
        reliability: match q.reliability {
            Reliability::BestEffort => HIBARI_RELIABILITY_BEST_EFFORT,
            _ => HIBARI_RELIABILITY_RELIABLE,
        },
        history,
        depth,
        durability: match q.durability {
            Durability::TransientLocal => HIBARI_DURABILITY_TRANSIENT_LOCAL,
            _ => HIBARI_DURABILITY_VOLATILE,
        },
        deadline_ns: ns(q.deadline),
        lifespan_ns: ns(q.lifespan),
        liveliness: match q.liveliness {
            Liveliness::ManualByTopic => HIBARI_LIVELINESS_MANUAL_BY_TOPIC,
            _ => HIBARI_LIVELINESS_AUTOMATIC,
        },
        liveliness_lease_ns: ns(q.liveliness_lease),
    }
}

fn duration(ns: i64, what: &str) -> Result<Option<Duration>> {
    match ns {
        0 => Ok(None),
        n if n > 0 => Ok(Some(Duration::from_nanos(n.unsigned_abs()))),
        n => Err(Error::invalid(format!(
            "qos.{what} is {n}: give a duration in ns, or 0 for none"
        ))),
    }
}

fn bad(field: &str, value: i32, names: &str) -> Error {
    Error::invalid(format!("qos.{field} is {value}: use {names}"))
}

/// The profile of a C struct (`default` for NULL), checked.
///
/// # Safety
///
/// `qos` is NULL or points to a readable `hibari_qos_t`.
pub(crate) unsafe fn from_c(qos: *const hibari_qos_t, default: QosProfile) -> Result<QosProfile> {
    if qos.is_null() {
        return Ok(default);
    }
    if !qos.is_aligned() {
        return Err(Error::invalid("`qos` is misaligned"));
    }
    // SAFETY: not NULL, aligned and readable (the caller's contract); every
    // field is an integer, valid whatever its bits.
    let c = unsafe { qos.read() };
    let mut q = QosProfile::default();
    q = match c.reliability {
        HIBARI_RELIABILITY_RELIABLE => q.reliable(),
        HIBARI_RELIABILITY_BEST_EFFORT => q.best_effort(),
        v => {
            return Err(bad(
                "reliability",
                v,
                "HIBARI_RELIABILITY_RELIABLE or _BEST_EFFORT",
            ))
        }
    };
    q = match c.history {
        HIBARI_HISTORY_KEEP_LAST if c.depth == 0 => {
            return Err(Error::invalid(
                "qos.depth is 0 with HIBARI_HISTORY_KEEP_LAST: keep at least 1 sample",
            ))
        }
        HIBARI_HISTORY_KEEP_LAST => q.keep_last(c.depth as usize),
        HIBARI_HISTORY_KEEP_ALL => q.keep_all(),
        v => return Err(bad("history", v, "HIBARI_HISTORY_KEEP_LAST or _KEEP_ALL")),
    };
    q = match c.durability {
        HIBARI_DURABILITY_VOLATILE => q.volatile(),
        HIBARI_DURABILITY_TRANSIENT_LOCAL => q.transient_local(),
        v => {
            return Err(bad(
                "durability",
                v,
                "HIBARI_DURABILITY_VOLATILE or _TRANSIENT_LOCAL",
            ))
        }
    };
    q = match c.liveliness {
        HIBARI_LIVELINESS_AUTOMATIC => q.liveliness(Liveliness::Automatic),
        HIBARI_LIVELINESS_MANUAL_BY_TOPIC => q.liveliness(Liveliness::ManualByTopic),
        v => {
            return Err(bad(
                "liveliness",
                v,
                "HIBARI_LIVELINESS_AUTOMATIC or _MANUAL_BY_TOPIC",
            ))
        }
    };
    if let Some(d) = duration(c.deadline_ns, "deadline_ns")? {
        q = q.deadline(d);
    }
    if let Some(d) = duration(c.lifespan_ns, "lifespan_ns")? {
        q = q.lifespan(d);
    }
    if let Some(d) = duration(c.liveliness_lease_ns, "liveliness_lease_ns")? {
        q = q.liveliness_lease(d);
    }
    q.validate().map_err(Error::invalid)?;
    Ok(q)
}

/// ROS 2's default profile: reliable, keep last 10, volatile.
#[no_mangle]
pub extern "C" fn hibari_qos_default() -> hibari_qos_t {
    to_c(&QosProfile::default())
}

/// ROS 2's sensor data profile: best effort, keep last 5, volatile.
#[no_mangle]
pub extern "C" fn hibari_qos_sensor_data() -> hibari_qos_t {
    to_c(&QosProfile::sensor_data())
}

/// ROS 2's services profile: reliable, keep last 10, volatile.
#[no_mangle]
pub extern "C" fn hibari_qos_services_default() -> hibari_qos_t {
    to_c(&QosProfile::services_default())
}

//! Graph queries: the nodes, topics and services seen, from every process
//! the node's context reaches.

use std::collections::BTreeMap;
use std::ffi::c_char;

use crate::args::{check_out, put, str_arg};
use crate::error::{ffi, hibari_ret_t, Error};
use crate::handles::hibari_node_t;
use crate::node::node;
use crate::owned::hibari_string_array_t;

/// Writes `map` as two parallel arrays: one entry per (name, type), so a
/// name with two types appears twice, names sorted.
///
/// # Safety
///
/// `names_out` and `types_out` are writable.
unsafe fn pairs(
    map: BTreeMap<String, Vec<String>>,
    names_out: *mut hibari_string_array_t,
    types_out: *mut hibari_string_array_t,
) -> crate::error::Result {
    check_out(names_out, "names_out")?;
    check_out(types_out, "types_out")?;
    let (names, types): (Vec<&str>, Vec<&str>) = map
        .iter()
        .flat_map(|(name, types)| types.iter().map(move |t| (name.as_str(), t.as_str())))
        .unzip();
    // SAFETY: the caller's contract (both checked for NULL above).
    unsafe {
        put(names_out, "names_out", hibari_string_array_t::new(names))?;
        put(types_out, "types_out", hibari_string_array_t::new(types))
    }
}

/// The fully qualified names (`/namespace/name`) of every node seen, this
/// one included, into `names_out`
/// (free with `hibari_string_array_fini`).
///
/// # Safety
///
/// `names_out` is writable.
#[no_mangle]
pub unsafe extern "C" fn hibari_node_get_node_names(
    node: hibari_node_t,
    names_out: *mut hibari_string_array_t,
) -> hibari_ret_t {
    ffi(|| {
        check_out(names_out, "names_out")?;
        let names = self::node(node)?.inner.get_node_names();
        // SAFETY: the caller's contract.
        unsafe { put(names_out, "names_out", hibari_string_array_t::new(names)) }
    })
}

/// Every topic seen with its types, as two parallel arrays: `names_out[i]`
/// has the type `types_out[i]`; a topic with two types appears twice.
/// Free both with `hibari_string_array_fini`.
///
/// # Safety
///
/// `names_out` and `types_out` are writable.
#[no_mangle]
pub unsafe extern "C" fn hibari_node_get_topic_names_and_types(
    node: hibari_node_t,
    names_out: *mut hibari_string_array_t,
    types_out: *mut hibari_string_array_t,
) -> hibari_ret_t {
    ffi(|| {
        let map = self::node(node)?.inner.get_topic_names_and_types();
        // SAFETY: the caller's contract.
        unsafe { pairs(map, names_out, types_out) }
    })
}

/// Every service seen with its types, as `hibari_node_get_topic_names_and_types`.
///
/// # Safety
///
/// `names_out` and `types_out` are writable.
#[no_mangle]
pub unsafe extern "C" fn hibari_node_get_service_names_and_types(
    node: hibari_node_t,
    names_out: *mut hibari_string_array_t,
    types_out: *mut hibari_string_array_t,
) -> hibari_ret_t {
    ffi(|| {
        let map = self::node(node)?.inner.get_service_names_and_types();
        // SAFETY: the caller's contract.
        unsafe { pairs(map, names_out, types_out) }
    })
}

/// How many publishers `topic` (expanded, remapped by the node) has, from
/// every node seen.
///
/// # Safety
///
/// `topic` is a NUL-terminated string; `count_out` is writable.
#[no_mangle]
pub unsafe extern "C" fn hibari_node_count_publishers(
    node: hibari_node_t,
    topic: *const c_char,
    count_out: *mut usize,
) -> hibari_ret_t {
    ffi(|| {
        // SAFETY: the caller's contract.
        let topic = unsafe { str_arg(topic, "topic") }?;
        let n = self::node(node)?;
        let count = n
            .inner
            .count_publishers(topic)
            .map_err(Error::invalid_from)?;
        // SAFETY: the caller's contract.
        unsafe { put(count_out, "count_out", count) }
    })
}

/// How many subscriptions `topic` has, as `hibari_node_count_publishers`.
///
/// # Safety
///
/// `topic` is a NUL-terminated string; `count_out` is writable.
#[no_mangle]
pub unsafe extern "C" fn hibari_node_count_subscribers(
    node: hibari_node_t,
    topic: *const c_char,
    count_out: *mut usize,
) -> hibari_ret_t {
    ffi(|| {
        // SAFETY: the caller's contract.
        let topic = unsafe { str_arg(topic, "topic") }?;
        let n = self::node(node)?;
        let count = n
            .inner
            .count_subscribers(topic)
            .map_err(Error::invalid_from)?;
        // SAFETY: the caller's contract.
        unsafe { put(count_out, "count_out", count) }
    })
}

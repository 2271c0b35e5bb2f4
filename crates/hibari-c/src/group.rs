//! Callback groups (rclcpp's `CallbackGroup`): which callbacks of a node an
//! executor may run at the same time.
//!
//! Every entity runs its callback in one group: the one given to its
//! `hibari_*_create_in_group`, or its node's default group (mutually
//! exclusive, as in rclcpp). A group belongs to the node that created it
//! and serves only that node's entities.

use std::sync::Arc;

use hibari_rs::{CallbackGroup, CallbackGroupType};

use crate::args::put;
use crate::error::{ffi, hibari_ret_t, Error, Result};
use crate::handles::{self, hibari_callback_group_t, hibari_node_t, Kind};
use crate::node::node;

/// How the callbacks of a group may overlap: `HIBARI_CALLBACK_GROUP_*`. An
/// `int32_t` with named values, as the QoS policies (see there).
#[allow(non_camel_case_types)]
pub type hibari_callback_group_type_t = i32;
/// At most one callback of the group runs at a time, whatever the
/// executor's threads (a node's default group is of this kind).
pub const HIBARI_CALLBACK_GROUP_MUTUALLY_EXCLUSIVE: hibari_callback_group_type_t = 0;
/// On a multi-threaded executor, callbacks of different entities of the
/// group may run at the same time; one entity's callback still never
/// overlaps itself (a subscription's samples reach it one at a time and in
/// order, a timer never overlaps its own previous tick). On a
/// single-threaded executor it changes nothing.
pub const HIBARI_CALLBACK_GROUP_REENTRANT: hibari_callback_group_type_t = 1;

pub(crate) struct Group {
    inner: CallbackGroup,
    /// The node that created it: the only one whose entities may join it.
    node: u64,
}

fn kind(t: hibari_callback_group_type_t) -> Result<CallbackGroupType> {
    match t {
        HIBARI_CALLBACK_GROUP_MUTUALLY_EXCLUSIVE => Ok(CallbackGroupType::MutuallyExclusive),
        HIBARI_CALLBACK_GROUP_REENTRANT => Ok(CallbackGroupType::Reentrant),
        _ => Err(Error::invalid(format!(
            "group_type is {t}: use HIBARI_CALLBACK_GROUP_MUTUALLY_EXCLUSIVE or \
             HIBARI_CALLBACK_GROUP_REENTRANT"
        ))),
    }
}

/// The group an entity of `node` is created in: `None` (the node's default
/// group) without one; else `group`, which must be one of `node`'s.
/// Called after the node's handle was checked.
pub(crate) fn for_entity(
    node: hibari_node_t,
    group: Option<hibari_callback_group_t>,
) -> Result<Option<CallbackGroup>> {
    let Some(group) = group else {
        return Ok(None);
    };
    let g = handles::get::<Group>(Kind::CallbackGroup, group.id)?;
    if g.node != node.id {
        let name = |id| {
            self::node(hibari_node_t { id })
                .map(|n| format!("{} (handle {id})", n.inner.fully_qualified_name()))
                .unwrap_or_else(|_| format!("handle {id}"))
        };
        return Err(Error::invalid(format!(
            "the callback group {} belongs to node {}, not to node {} that creates this entity: \
             a group serves the entities of the node that created it",
            group.id,
            name(g.node),
            name(node.id)
        )));
    }
    Ok(Some(g.inner.clone()))
}

/// Creates a callback group of `node`, of the type `group_type`
/// (`HIBARI_CALLBACK_GROUP_*`). Entities of `node` join it when created
/// with the `_in_group` variant of their creation function
/// (`hibari_subscription_create_in_group`, `hibari_service_create_in_group`,
/// `hibari_client_create_in_group`, `hibari_timer_create_in_group`,
/// `hibari_guard_condition_create_in_group`); the executor spinning the
/// node honours it. The rclcpp pattern it allows: with a multi-threaded
/// executor, a service callback in a reentrant group may wait for the
/// response of a service of the same node that runs in another group.
///
/// Destroy it with `hibari_callback_group_destroy` (or with its node).
/// That invalidates the handle only: entities created in it stay in it
/// (they keep it), under the same rule, until destroyed themselves.
///
/// # Safety
///
/// `out` is writable.
#[no_mangle]
pub unsafe extern "C" fn hibari_callback_group_create(
    node: hibari_node_t,
    group_type: hibari_callback_group_type_t,
    out: *mut hibari_callback_group_t,
) -> hibari_ret_t {
    ffi(|| {
        crate::args::check_out(out, "out")?;
        let kind = self::kind(group_type)?;
        let n = self::node(node)?;
        let group = Group {
            inner: n.inner.create_callback_group(kind),
            node: node.id,
        };
        let id = handles::insert(Kind::CallbackGroup, node.id, Arc::new(group), None);
        // SAFETY: the caller's contract.
        unsafe { put(out, "out", hibari_callback_group_t { id }) }
    })
}

/// Destroys the callback group's handle (see `hibari_callback_group_create`:
/// the entities created in it are not affected).
#[no_mangle]
pub extern "C" fn hibari_callback_group_destroy(group: hibari_callback_group_t) -> hibari_ret_t {
    ffi(|| handles::remove::<Group>(Kind::CallbackGroup, group.id).map(drop))
}

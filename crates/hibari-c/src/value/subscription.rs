//! Subscriptions with values: the objects of their type published in this
//! process reach a value callback as they are, everything else as CDR.

use std::ffi::{c_char, c_void};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use hibari_rs::{ForeignSample, SampleInfo};

use super::CValue;
use crate::args::UserData;
use crate::error::{ffi, hibari_ret_t, Error};
use crate::handles::{hibari_callback_group_t, hibari_node_t, hibari_subscription_t, Gate};
use crate::qos::hibari_qos_t;
use crate::subscription::{
    byte_deliverer, hibari_sample_info_t, hibari_subscription_callback_t, info,
};

/// Called with a value of the subscription's type, published in this
/// process: `value` is the publisher's object, borrowed for the call (other
/// subscriptions may read it at the same time; it must not be changed).
/// Runs where `hibari_subscription_callback_t` does.
#[allow(non_camel_case_types)]
pub type hibari_value_callback_t = Option<
    unsafe extern "C" fn(
        value: *const c_void,
        info: *const hibari_sample_info_t,
        user_data: *mut c_void,
    ),
>;

/// The value half of a subscription with values.
#[derive(Clone, Copy)]
pub(crate) struct Values {
    tag: *const c_void,
    callback: unsafe extern "C" fn(*const c_void, *const hibari_sample_info_t, *mut c_void),
}

impl Values {
    /// The subscription's callback: values of its tag to the value
    /// callback, everything else as bytes to `bytes`.
    pub fn deliver(
        self,
        bytes: unsafe extern "C" fn(*const u8, usize, *const hibari_sample_info_t, *mut c_void),
        gate: Arc<Gate>,
        ran: Arc<AtomicU64>,
        user_data: *mut c_void,
    ) -> impl FnMut(ForeignSample, SampleInfo) + Send + 'static {
        let deliver_bytes = byte_deliverer(bytes, gate.clone(), ran.clone(), user_data);
        let user = UserData::new(user_data);
        let tag = self.tag as usize;
        let callback = self.callback;
        move |sample: ForeignSample, sample_info: SampleInfo| {
            if let Some(v) = sample.foreign::<CValue>().filter(|v| v.tag as usize == tag) {
                let i = info(&sample_info);
                gate.run(|| {
                    ran.fetch_add(1, Ordering::Relaxed);
                    // SAFETY: the caller's function; the object lives (the
                    // sample holds it) and `i` too, through the call.
                    unsafe { callback(v.ptr(), &i, user.get()) }
                });
                return;
            }
            // A value that cannot be encoded reaches no byte callback (its
            // publisher's encoder failed: nothing to deliver).
            if let Ok(cdr) = sample.into_cdr_bytes() {
                deliver_bytes(&cdr, &sample_info);
            }
        }
    }
}

// SAFETY: the tag is only compared, never dereferenced; the function is
// the caller's, promised callable on the executor's threads.
unsafe impl Send for Values {}

/// `hibari_subscription_create` (or `_in_group`, with a `group` of the node;
/// a zero group handle is the node's default group) whose samples that are
/// values published in this process by `hibari_publisher_publish_value`
/// with `type_tag` reach `value_callback` as the objects themselves
/// (nothing encoded or decoded); every other sample reaches `callback` as
/// CDR bytes. Both callbacks are required. Destroyed as any subscription.
///
/// # Safety
///
/// As `hibari_subscription_create`; `value_callback` is a function as
/// `hibari_value_callback_t` says.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn hibari_subscription_create_with_values(
    node: hibari_node_t,
    group: hibari_callback_group_t,
    topic: *const c_char,
    type_name: *const c_char,
    qos: *const hibari_qos_t,
    callback: hibari_subscription_callback_t,
    type_tag: *const c_void,
    value_callback: hibari_value_callback_t,
    user_data: *mut c_void,
    out: *mut hibari_subscription_t,
) -> hibari_ret_t {
    let (Some(_), Some(value_callback)) = (callback, value_callback) else {
        return ffi(|| {
            Err(Error::invalid(
                "`callback` and `value_callback` are both needed",
            ))
        });
    };
    let values = Values {
        tag: type_tag,
        callback: value_callback,
    };
    let group = (group.id != 0).then_some(group);
    // SAFETY: the caller's contract is create's.
    unsafe {
        crate::subscription::create(
            node,
            group,
            topic,
            type_name,
            qos,
            callback,
            Some(values),
            user_data,
            out,
        )
    }
}

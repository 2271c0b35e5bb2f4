//! How an action's messages become CDR and back: the [`ActionCodec`] trait,
//! its typed implementation [`Typed`], and the fixed-layout parts every
//! action shares (the send-goal response, the get-result request).
//!
//! On the wire (as rosidl builds them): `A_SendGoal_Request` is the goal id
//! (`uint8[16]`) then the goal's fields; `A_SendGoal_Response` is `bool
//! accepted` then a `builtin_interfaces/Time`; `A_GetResult_Request` is the
//! goal id; `A_GetResult_Response` is `int8 status` then the result's fields;
//! `A_FeedbackMessage` is the goal id then the feedback's fields.

use std::marker::PhantomData;

use hibari_cdr::{CdrReader, CdrWriter};

use super::GoalId;
use crate::msg::builtin_interfaces::msg::Time;
use crate::{Action, Message};

/// Turns an action's goals, results and feedback into the CDR of its wire
/// messages and back. [`Typed`] carries generated messages; [`Dynamic`](super::Dynamic)
/// carries [`dynamic`](crate::dynamic) values. Errors are text for the
/// caller's error enum. Sealed: `Typed` and `Dynamic` are the codecs.
pub trait ActionCodec: sealed::Sealed + Send + Sync + 'static {
    /// The goal.
    type Goal: Send + Sync + 'static;
    /// The result.
    type Result: Send + 'static;
    /// The feedback.
    type Feedback: Send + 'static;

    /// The action type (`pkg/action/Name`).
    fn type_name(&self) -> &str;
    /// `A_SendGoal_Request`.
    fn encode_goal_request(&self, id: &GoalId, goal: &Self::Goal) -> Result<Vec<u8>, String>;
    /// `A_SendGoal_Request`.
    fn decode_goal_request(&self, cdr: &[u8]) -> Result<(GoalId, Self::Goal), String>;
    /// `A_GetResult_Response`; `None` is the default result.
    fn encode_result_response(
        &self,
        status: i8,
        result: Option<&Self::Result>,
    ) -> Result<Vec<u8>, String>;
    /// `A_GetResult_Response`.
    fn decode_result_response(&self, cdr: &[u8]) -> Result<(i8, Self::Result), String>;
    /// `A_FeedbackMessage`.
    fn encode_feedback(&self, id: &GoalId, feedback: &Self::Feedback) -> Result<Vec<u8>, String>;
    /// `A_FeedbackMessage`.
    fn decode_feedback(&self, cdr: &[u8]) -> Result<(GoalId, Self::Feedback), String>;
}

pub(crate) mod sealed {
    /// Only the crate's codecs are [`ActionCodec`](super::ActionCodec)s.
    pub trait Sealed {}
}

impl<A: Action> sealed::Sealed for Typed<A> {}

/// The codec of the generated action type `A`: goals, results and feedback
/// are `A::Goal`, `A::Result` and `A::Feedback`.
pub struct Typed<A>(PhantomData<fn() -> A>);

impl<A> Default for Typed<A> {
    fn default() -> Self {
        Typed(PhantomData)
    }
}

fn text(e: impl std::fmt::Display) -> String {
    e.to_string()
}

/// The goal id then `body`'s fields.
fn encode_with_id<M: Message>(id: &GoalId, body: &M) -> Result<Vec<u8>, String> {
    let mut w = CdrWriter::new(Vec::new()).map_err(text)?;
    w.write_prim_slice(id).map_err(text)?;
    w.nested(|w| body.encode_fields(w)).map_err(text)?;
    Ok(w.into_sink())
}

fn decode_with_id<M: Message>(cdr: &[u8]) -> Result<(GoalId, M), String> {
    let mut r = CdrReader::new(cdr).map_err(text)?;
    let id = r.read_prim_array::<u8, 16>().map_err(text)?;
    let body = M::decode_fields(&mut r).map_err(text)?;
    r.finish().map_err(text)?;
    Ok((id, body))
}

impl<A: Action> ActionCodec for Typed<A> {
    type Goal = A::Goal;
    type Result = A::Result;
    type Feedback = A::Feedback;

    fn type_name(&self) -> &str {
        A::TYPE_NAME
    }
    fn encode_goal_request(&self, id: &GoalId, goal: &A::Goal) -> Result<Vec<u8>, String> {
        encode_with_id(id, goal)
    }
    fn decode_goal_request(&self, cdr: &[u8]) -> Result<(GoalId, A::Goal), String> {
        decode_with_id(cdr)
    }
    fn encode_result_response(
        &self,
        status: i8,
        result: Option<&A::Result>,
    ) -> Result<Vec<u8>, String> {
        let default = A::Result::default();
        let result = result.unwrap_or(&default);
        let mut w = CdrWriter::new(Vec::new()).map_err(text)?;
        w.write(status).map_err(text)?;
        w.nested(|w| result.encode_fields(w)).map_err(text)?;
        Ok(w.into_sink())
    }
    fn decode_result_response(&self, cdr: &[u8]) -> Result<(i8, A::Result), String> {
        let mut r = CdrReader::new(cdr).map_err(text)?;
        let status = r.read::<i8>().map_err(text)?;
        let result = A::Result::decode_fields(&mut r).map_err(text)?;
        r.finish().map_err(text)?;
        Ok((status, result))
    }
    fn encode_feedback(&self, id: &GoalId, feedback: &A::Feedback) -> Result<Vec<u8>, String> {
        encode_with_id(id, feedback)
    }
    fn decode_feedback(&self, cdr: &[u8]) -> Result<(GoalId, A::Feedback), String> {
        decode_with_id(cdr)
    }
}

/// `A_SendGoal_Response`: whether the goal was accepted, and when.
pub(crate) fn encode_goal_response(accepted: bool, stamp: &Time) -> Result<Vec<u8>, String> {
    let mut w = CdrWriter::new(Vec::new()).map_err(text)?;
    w.write(accepted).map_err(text)?;
    w.nested(|w| stamp.encode_fields(w)).map_err(text)?;
    Ok(w.into_sink())
}

/// `A_SendGoal_Response`.
pub(crate) fn decode_goal_response(cdr: &[u8]) -> Result<(bool, Time), String> {
    let mut r = CdrReader::new(cdr).map_err(text)?;
    let accepted = r.read::<bool>().map_err(text)?;
    let stamp = Time::decode_fields(&mut r).map_err(text)?;
    r.finish().map_err(text)?;
    Ok((accepted, stamp))
}

/// `A_GetResult_Request`: the goal id.
pub(crate) fn encode_result_request(id: &GoalId) -> Result<Vec<u8>, String> {
    let mut w = CdrWriter::new(Vec::new()).map_err(text)?;
    w.write_prim_slice(id).map_err(text)?;
    Ok(w.into_sink())
}

/// `A_GetResult_Request`.
pub(crate) fn decode_result_request(cdr: &[u8]) -> Result<GoalId, String> {
    let mut r = CdrReader::new(cdr).map_err(text)?;
    let id = r.read_prim_array::<u8, 16>().map_err(text)?;
    r.finish().map_err(text)?;
    Ok(id)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::action::tests::Count;
    use crate::msg::std_msgs::msg::{Int32, String as RosString};

    #[test]
    fn a_goal_request_is_the_id_then_the_goal_laid_out_as_alone() {
        let codec = Typed::<Count>::default();
        let id: GoalId = core::array::from_fn(|i| i as u8);
        let goal = Int32 { data: -5 };
        let bytes = codec.encode_goal_request(&id, &goal).unwrap();
        let alone = goal.to_cdr().unwrap();
        assert_eq!(&bytes[4..20], &id);
        assert_eq!(&bytes[20..], &alone[4..]);
        assert_eq!(codec.decode_goal_request(&bytes).unwrap(), (id, goal));
    }

    #[test]
    fn a_result_response_and_the_fixed_parts_round_trip() {
        let codec = Typed::<Count>::default();
        let result = RosString {
            data: "done".into(),
        };
        let bytes = codec.encode_result_response(4, Some(&result)).unwrap();
        assert_eq!(codec.decode_result_response(&bytes).unwrap(), (4, result));
        let unknown = codec.encode_result_response(0, None).unwrap();
        assert_eq!(codec.decode_result_response(&unknown).unwrap().1.data, "");
        let stamp = Time { sec: 3, nanosec: 9 };
        let response = encode_goal_response(true, &stamp).unwrap();
        assert_eq!(decode_goal_response(&response).unwrap(), (true, stamp));
        let id = [7u8; 16];
        assert_eq!(
            decode_result_request(&encode_result_request(&id).unwrap()),
            Ok(id)
        );
        assert!(decode_result_request(&[0, 1, 0, 0, 1]).is_err());
    }
}

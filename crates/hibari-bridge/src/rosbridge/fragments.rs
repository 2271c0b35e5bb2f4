//! rosbridge fragments, both ways (bridge.md §1.2 `fragment`, E10).
//!
//! Incoming: the pieces of one message share an `id`; they are kept per
//! client (rosbridge keeps them process-wide, so ids of two clients
//! collide), put together by `num` (rosbridge joins them in arrival order),
//! and the whole is handled as if it had come in one piece. A series is
//! bounded: at most `max_message_size` bytes and 64 series in flight per
//! client, each forgotten after `fragment_timeout`.
//!
//! Outgoing: a client that set a `fragment_size` gets each longer text
//! message as `{"op":"fragment","id","data","num","total"}` pieces of at most
//! that many bytes of the message's text (cut between UTF-8 characters),
//! with an integer `total` (rosbridge's may be a float).

use std::collections::{BTreeMap, HashMap};
use std::time::{Duration, Instant};

use serde_json::{json, Value as Json};

use super::args::{id_key, Op, OpError};
use super::{Flow, Session};

const MAX_SERIES: usize = 64;

/// Bytes a piece is charged beyond its data, so that many empty pieces
/// cannot hold unbounded memory.
const PIECE_OVERHEAD: usize = 64;

struct Series {
    total: usize,
    parts: BTreeMap<usize, String>,
    bytes: usize,
    started: Instant,
}

/// A client's incoming fragment series.
pub(crate) struct Reassembly {
    series: HashMap<String, Series>,
    max_bytes: usize,
    timeout: Duration,
}

impl Reassembly {
    pub fn new(max_bytes: usize, timeout: Duration) -> Self {
        Reassembly {
            series: HashMap::new(),
            max_bytes,
            timeout,
        }
    }

    /// Adds piece `num` of `total` of series `id`; the whole message once
    /// every piece is in.
    fn add(
        &mut self,
        id: String,
        num: usize,
        total: usize,
        data: &str,
    ) -> Result<Option<String>, OpError> {
        let now = Instant::now();
        let timeout = self.timeout;
        self.series
            .retain(|_, s| now.duration_since(s.started) < timeout);
        if total == 0 || num >= total {
            return Err(OpError::Failed(format!(
                "fragment {num} of {total} of `{id}` is out of range"
            )));
        }
        if !self.series.contains_key(&id) && self.series.len() >= MAX_SERIES {
            return Err(OpError::Failed(format!(
                "more than {MAX_SERIES} fragmented messages are in flight"
            )));
        }
        let series = self.series.entry(id.clone()).or_insert_with(|| Series {
            total,
            parts: BTreeMap::new(),
            bytes: 0,
            started: now,
        });
        if series.total != total {
            self.series.remove(&id);
            return Err(OpError::Failed(format!(
                "the fragments of `{id}` disagree on their total"
            )));
        }
        if series.bytes + data.len() + PIECE_OVERHEAD > self.max_bytes {
            self.series.remove(&id);
            return Err(OpError::Failed(format!(
                "the fragments of `{id}` exceed {} bytes",
                self.max_bytes
            )));
        }
        if !series.parts.contains_key(&num) {
            series.bytes += data.len() + PIECE_OVERHEAD;
            series.parts.insert(num, data.to_owned());
        }
        if series.parts.len() < total {
            return Ok(None);
        }
        let parts = self.series.remove(&id).map(|s| s.parts).unwrap_or_default();
        Ok(Some(parts.into_values().collect()))
    }
}

impl Session {
    pub(super) fn fragment(&mut self, op: &Op<'_>, depth: u8) -> Flow {
        let parsed = (|| {
            let id = op.id()?.map(id_key).ok_or(OpError::MissingArgument {
                op: "fragment".into(),
                field: "id",
            })?;
            let data = op.str("data")?;
            let num = op.opt_uint("num")?.ok_or(OpError::MissingArgument {
                op: "fragment".into(),
                field: "num",
            })?;
            let total = op.opt_uint("total")?.ok_or(OpError::MissingArgument {
                op: "fragment".into(),
                field: "total",
            })?;
            let num = usize::try_from(num).unwrap_or(usize::MAX);
            let total = usize::try_from(total).unwrap_or(usize::MAX);
            self.reassembly.add(id, num, total, data)
        })();
        match parsed {
            Ok(None) => Flow::Continue,
            Ok(Some(whole)) => match serde_json::from_str::<Json>(&whole) {
                Ok(json) if depth < 2 => self.on_json(&json, depth + 1),
                Ok(_) => {
                    self.report(OpError::Failed("fragments nest too deep".into()), None);
                    Flow::Continue
                }
                Err(e) => {
                    self.report(
                        OpError::NotAMessage(format!("reassembled fragments: {e}")),
                        None,
                    );
                    Flow::Continue
                }
            },
            Err(e) => {
                self.report(e, op.get("id"));
                Flow::Continue
            }
        }
    }
}

/// `text` as fragment messages of at most `size` bytes of text each.
pub(crate) fn fragments(text: &str, size: usize, id: &str) -> Vec<String> {
    let size = size.max(4);
    let mut pieces: Vec<&str> = Vec::with_capacity(text.len() / size + 1);
    let mut rest = text;
    while !rest.is_empty() {
        let mut cut = size.min(rest.len());
        while !rest.is_char_boundary(cut) {
            cut -= 1;
        }
        let (piece, tail) = rest.split_at(cut);
        pieces.push(piece);
        rest = tail;
    }
    let total = pieces.len();
    pieces
        .into_iter()
        .enumerate()
        .map(|(num, data)| {
            json!({"op": "fragment", "id": id, "data": data, "num": num, "total": total})
                .to_string()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_are_put_together_by_num_not_by_arrival() {
        let mut r = Reassembly::new(1 << 20, Duration::from_secs(60));
        assert_eq!(r.add("a".into(), 2, 3, "c").unwrap(), None);
        assert_eq!(r.add("a".into(), 0, 3, "a").unwrap(), None);
        assert_eq!(r.add("b".into(), 0, 1, "x").unwrap().as_deref(), Some("x"));
        assert_eq!(
            r.add("a".into(), 1, 3, "b").unwrap().as_deref(),
            Some("abc")
        );
        assert!(r.add("c".into(), 5, 3, "x").is_err());
        assert!(r.add("c".into(), 0, 0, "x").is_err());
    }

    #[test]
    fn a_series_bigger_than_the_limit_is_refused() {
        let mut r = Reassembly::new(2 * PIECE_OVERHEAD + 4, Duration::from_secs(60));
        assert!(r.add("a".into(), 0, 2, "abc").unwrap().is_none());
        assert!(r.add("a".into(), 1, 2, "de").is_err());
        assert!(r.add("b".into(), 0, usize::MAX, "").unwrap().is_none());
    }

    #[test]
    fn outgoing_pieces_cut_between_characters_and_rejoin() {
        let text = r#"{"op":"publish","msg":{"data":"héllo wörld ✓"}}"#;
        let pieces = fragments(text, 5, "m1");
        let mut joined = String::new();
        for (i, p) in pieces.iter().enumerate() {
            let j: Json = serde_json::from_str(p).unwrap();
            assert_eq!(j["num"], i);
            assert_eq!(j["total"], pieces.len());
            assert!(j["data"].as_str().unwrap().len() <= 5);
            joined.push_str(j["data"].as_str().unwrap());
        }
        assert_eq!(joined, text);
    }
}

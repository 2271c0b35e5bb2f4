//! `rmw_dds_common/msg/ParticipantEntitiesInfo`: which nodes a participant
//! runs and which endpoints (by GID) belong to each, as ROS 2 publishes it
//! on `ros_discovery_info` (Jazzy and later: 16-byte GIDs).

use hibari_cdr::{CdrDecodeError, CdrEncodeError, CdrReader, CdrSink, CdrWriter, Message};

/// A GID: an endpoint's or participant's 16-byte GUID.
pub type Gid = [u8; 16];

/// One node and its endpoints.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NodeEntities {
    pub namespace: String,
    pub name: String,
    pub readers: Vec<Gid>,
    pub writers: Vec<Gid>,
}

/// A participant and its nodes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ParticipantEntitiesInfo {
    pub gid: Gid,
    pub nodes: Vec<NodeEntities>,
}

/// Node names are bounded strings in the message (`string<=256`).
const NAME_BOUND: usize = 256;

fn write_gids<S: CdrSink>(w: &mut CdrWriter<S>, gids: &[Gid]) -> Result<(), CdrEncodeError> {
    w.write_seq_len("gid_seq", gids.len(), None)?;
    for g in gids {
        w.write_prim_slice(g)?;
    }
    Ok(())
}

fn read_gids(r: &mut CdrReader<'_>) -> Result<Vec<Gid>, CdrDecodeError> {
    let n = r.read_count(16)?;
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        out.push(r.read_prim_array::<u8, 16>()?);
    }
    Ok(out)
}

impl Message for ParticipantEntitiesInfo {
    const TYPE_NAME: &'static str = "rmw_dds_common/msg/ParticipantEntitiesInfo";
    const TYPE_HASH: &'static str = "";
    const DEFINITION: &'static str = "Gid gid\nNodeEntitiesInfo[] node_entities_info_seq\n";

    fn encode_fields<S: CdrSink>(&self, w: &mut CdrWriter<S>) -> Result<(), CdrEncodeError> {
        w.write_prim_slice(&self.gid)?;
        w.write_seq_len("node_entities_info_seq", self.nodes.len(), None)?;
        for n in &self.nodes {
            w.write_str("node_namespace", &n.namespace, Some(NAME_BOUND))?;
            w.write_str("node_name", &n.name, Some(NAME_BOUND))?;
            write_gids(w, &n.readers)?;
            write_gids(w, &n.writers)?;
        }
        Ok(())
    }

    fn decode_fields_into(&mut self, r: &mut CdrReader<'_>) -> Result<(), CdrDecodeError> {
        self.gid = r.read_prim_array::<u8, 16>()?;
        // A node is at least two empty strings and two empty sequences.
        let n = r.read_count(16)?;
        self.nodes.clear();
        for _ in 0..n {
            let mut node = NodeEntities::default();
            r.read_string_into(&mut node.namespace)?;
            r.read_string_into(&mut node.name)?;
            node.readers = read_gids(r)?;
            node.writers = read_gids(r)?;
            self.nodes.push(node);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entities_info_round_trips_and_rejects_a_lying_count() {
        let info = ParticipantEntitiesInfo {
            gid: [1; 16],
            nodes: vec![NodeEntities {
                namespace: "/".into(),
                name: "talker".into(),
                readers: vec![[2; 16]],
                writers: vec![[3; 16], [4; 16]],
            }],
        };
        let cdr = info.to_cdr().unwrap();
        assert_eq!(ParticipantEntitiesInfo::from_cdr(&cdr[..]).unwrap(), info);
        let mut bad = cdr.clone();
        bad[20..24].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(ParticipantEntitiesInfo::from_cdr(&bad[..]).is_err());
    }
}

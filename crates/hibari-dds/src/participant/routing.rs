//! Discovery and matching events from RustDDS, turned into hibari's endpoint
//! events and graph changes.
//!
//! RustDDS matches a writer and a reader by topic name and DDS QoS. hibari
//! also requires the same type (name, and RIHS01 hash when both announce
//! one) and checks QoS with its own rules ([`check_compatibility`]), so a
//! pair RustDDS matched may still be incompatible here: it is then not
//! counted, both sides get an `Incompatible` event (each participant decides
//! for its own endpoints), and the reader drops that writer's samples.

use hibari_transport::{
    check_compatibility, EndpointId, EndpointKind, Incompatibility, QosProfile,
};
use rustdds::{DomainParticipantStatusEvent as Ev, EndpointDescription, QosPolicies, GUID};

use super::{host::user_data_value, lock, Remote, Shared};
use crate::wire::{names, qos};

/// Handles one participant status event.
pub(super) fn on_status(shared: &Shared, event: Ev) {
    match event {
        Ev::ReaderDetected { reader } => detected(shared, EndpointKind::Reader, &reader),
        Ev::WriterDetected { writer } => detected(shared, EndpointKind::Writer, &writer),
        Ev::ReaderLost { guid, .. } | Ev::WriterLost { guid, .. } => lost(shared, &[guid]),
        Ev::ParticipantLost { id, .. } => {
            let gone: Vec<GUID> = lock(&shared.remotes)
                .keys()
                .filter(|g| g.prefix == id)
                .copied()
                .collect();
            lost(shared, &gone);
            let whole = GUID {
                prefix: id,
                entity_id: shared.guid().entity_id,
            };
            shared.graph.participant_lost(prefix_of(whole));
        }
        Ev::RemoteReaderMatched {
            local_writer,
            remote_reader,
        } => matched(shared, local_writer, remote_reader),
        Ev::RemoteWriterMatched {
            local_reader,
            remote_writer,
        } => matched(shared, local_reader, remote_writer),
        Ev::RemoteReaderQosIncompatible {
            local_writer,
            remote_reader,
            requested_qos,
            offered_qos,
        } => refused(
            shared,
            local_writer,
            remote_reader,
            &offered_qos,
            &requested_qos,
        ),
        Ev::RemoteWriterQosIncompatible {
            local_reader,
            remote_writer,
            requested_qos,
            offered_qos,
        } => refused(
            shared,
            local_reader,
            remote_writer,
            &offered_qos,
            &requested_qos,
        ),
        _ => {}
    }
}

/// The 12-byte GUID prefix of `guid` (its participant).
pub(crate) fn prefix_of(guid: GUID) -> [u8; 12] {
    let mut p = [0; 12];
    p.copy_from_slice(&guid.to_bytes()[..12]);
    p
}

/// The hibari id an endpoint announces in its USER_DATA (`hibariid=<hex>;`),
/// else its GUID.
pub(crate) fn announced_id(user_data: &[u8], guid: GUID) -> EndpointId {
    user_data_value(user_data, "hibariid")
        .and_then(parse_id)
        .unwrap_or(EndpointId(guid.to_bytes()))
}

fn parse_id(hex: &str) -> Option<EndpointId> {
    if hex.len() != 32 {
        return None;
    }
    let mut id = [0u8; 16];
    for (i, b) in id.iter_mut().enumerate() {
        *b = u8::from_str_radix(hex.get(2 * i..2 * i + 2)?, 16).ok()?;
    }
    Some(EndpointId(id))
}

fn detected(shared: &Shared, kind: EndpointKind, d: &EndpointDescription) {
    if d.guid.prefix == shared.guid().prefix {
        return; // our own: listed from the local table
    }
    let remote = describe(kind, d);
    lock(&shared.remotes).insert(d.guid, remote.clone());
    // Whether a pair is compatible is known from discovery alone; the
    // engine's match filter ([`may_match`]) refuses the same pairs.
    let cores: Vec<_> = lock(&shared.locals)
        .values()
        .filter(|l| l.kind != kind && l.dds_topic == remote.dds_topic)
        .map(|l| (l.core.clone(), l.kind))
        .collect();
    for (core, local_kind) in cores {
        if let Err(why) = judge(&core.spec, local_kind == EndpointKind::Writer, &remote) {
            core.incompatible(d.guid, remote.id, why);
        }
    }
    shared.graph.wake();
}

/// An endpoint as discovery describes it, in hibari's terms.
fn describe(kind: EndpointKind, d: &EndpointDescription) -> Remote {
    Remote {
        kind,
        id: announced_id(&d.user_data, d.guid),
        dds_topic: d.topic_name.clone(),
        dds_type: d.type_name.clone(),
        type_hash: user_data_value(&d.user_data, "typehash")
            .unwrap_or_default()
            .to_owned(),
        qos: with_history(
            qos::from_dds(&d.qos, kind == EndpointKind::Writer),
            &d.user_data,
        ),
    }
}

fn kind_of(guid: GUID) -> EndpointKind {
    if guid.entity_id.kind().is_writer() {
        EndpointKind::Writer
    } else {
        EndpointKind::Reader
    }
}

/// The engine's endpoint match filter: a local and a remote endpoint match
/// only when hibari's rules allow it (same type name, same RIHS01 hash when
/// both announce one, QoS compatible as [`check_compatibility`] says).
/// A pure function of the two descriptions: it runs on the engine's thread
/// and takes no lock of ours.
pub(crate) fn may_match(local: &EndpointDescription, remote: &EndpointDescription) -> bool {
    let mine = describe(kind_of(local.guid), local);
    let spec = hibari_transport::EndpointSpec {
        topic: mine.dds_topic.clone(),
        type_name: names::type_from_dds(&mine.dds_type),
        type_hash: mine.type_hash.clone(),
        qos: mine.qos,
    };
    judge(
        &spec,
        mine.kind == EndpointKind::Writer,
        &describe(kind_of(remote.guid), remote),
    )
    .is_ok()
}

/// A hibari peer's history from its USER_DATA (`history=<depth>;`, 0 =
/// keep all); SEDP does not carry it.
fn with_history(mut q: QosProfile, user_data: &[u8]) -> QosProfile {
    if let Some(depth) = user_data_value(user_data, "history").and_then(|d| d.parse::<usize>().ok())
    {
        q.history = if depth == 0 {
            hibari_transport::History::KeepAll
        } else {
            hibari_transport::History::KeepLast(depth)
        };
    }
    q
}

fn lost(shared: &Shared, guids: &[GUID]) {
    let cores: Vec<_> = lock(&shared.locals)
        .values()
        .map(|l| l.core.clone())
        .collect();
    for guid in guids {
        lock(&shared.remotes).remove(guid);
        for core in &cores {
            core.unmatched(*guid);
            core.forget(*guid);
        }
    }
    if !guids.is_empty() {
        shared.graph.wake();
    }
}

/// `Some(why)` when `remote` is of another type than the local spec.
pub(crate) fn type_mismatch(
    spec: &hibari_transport::EndpointSpec,
    remote: &Remote,
) -> Option<Incompatibility> {
    let type_name = names::type_from_dds(&remote.dds_type);
    let same = type_name == spec.type_name
        && (spec.type_hash.is_empty()
            || remote.type_hash.is_empty()
            || spec.type_hash == remote.type_hash);
    (!same).then(|| Incompatibility::Type {
        type_name,
        type_hash: remote.type_hash.clone(),
    })
}

/// Whether a local endpoint and a remote peer are compatible by hibari's
/// rules; `Err(why)` if not.
pub(crate) fn judge(
    spec: &hibari_transport::EndpointSpec,
    local_is_writer: bool,
    remote: &Remote,
) -> Result<(), Incompatibility> {
    if let Some(why) = type_mismatch(spec, remote) {
        return Err(why);
    }
    let (offered, requested): (&QosProfile, &QosProfile) = if local_is_writer {
        (&spec.qos, &remote.qos)
    } else {
        (&remote.qos, &spec.qos)
    };
    check_compatibility(offered, requested).map_err(Incompatibility::Qos)
}

fn matched(shared: &Shared, local: GUID, remote: GUID) {
    let Some((core, kind)) = lock(&shared.locals)
        .get(&local)
        .map(|l| (l.core.clone(), l.kind))
    else {
        return;
    };
    let peer = lock(&shared.remotes).get(&remote).cloned().or_else(|| {
        // A peer in this participant (loopback).
        lock(&shared.locals).get(&remote).map(|l| Remote {
            kind: l.kind,
            id: l.core.id,
            dds_topic: l.dds_topic.clone(),
            dds_type: names::type_to_dds(&l.core.spec.type_name),
            type_hash: l.core.spec.type_hash.clone(),
            qos: l.core.spec.qos,
        })
    });
    let Some(peer) = peer else {
        core.matched(remote, EndpointId(remote.to_bytes()));
        return;
    };
    match judge(&core.spec, kind == EndpointKind::Writer, &peer) {
        Ok(()) => {
            core.matched(remote, peer.id);
        }
        Err(why) => core.incompatible(remote, peer.id, why),
    }
}

fn refused(
    shared: &Shared,
    local: GUID,
    remote: GUID,
    offered: &QosPolicies,
    requested: &QosPolicies,
) {
    let Some(core) = lock(&shared.locals).get(&local).map(|l| l.core.clone()) else {
        return;
    };
    let peer_id = shared.remote_id(remote);
    let offered = qos::from_dds(offered, true);
    let requested = qos::from_dds(requested, false);
    if let Err(why) = check_compatibility(&offered, &requested) {
        core.incompatible(remote, peer_id, Incompatibility::Qos(why));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hibari_transport::{EndpointSpec, QosPolicyKind};

    fn remote(dds_type: &str, hash: &str, qos: QosProfile) -> Remote {
        Remote {
            kind: EndpointKind::Reader,
            id: EndpointId([1; 16]),
            dds_topic: "rt/t".into(),
            dds_type: dds_type.into(),
            type_hash: hash.into(),
            qos,
        }
    }

    #[test]
    fn peers_of_another_type_or_definition_or_weaker_qos_are_judged_incompatible() {
        let spec = EndpointSpec {
            topic: "/t".into(),
            type_name: "std_msgs/msg/String".into(),
            type_hash: "RIHS01_aa".into(),
            qos: QosProfile::default(),
        };
        let d = QosProfile::default();
        let ok = remote("std_msgs::msg::dds_::String_", "", d);
        assert_eq!(judge(&spec, true, &ok), Ok(()));
        let same_hash = remote("std_msgs::msg::dds_::String_", "RIHS01_aa", d);
        assert_eq!(judge(&spec, true, &same_hash), Ok(()));
        let other = remote("std_msgs::msg::dds_::Int32_", "", d);
        assert!(matches!(
            judge(&spec, true, &other),
            Err(Incompatibility::Type { type_name, .. }) if type_name == "std_msgs/msg/Int32"
        ));
        let newer = remote("std_msgs::msg::dds_::String_", "RIHS01_bb", d);
        assert!(matches!(
            judge(&spec, true, &newer),
            Err(Incompatibility::Type { .. })
        ));
        // Our writer is reliable; a best-effort writer cannot serve our reliable reader.
        let weak_writer = remote("std_msgs::msg::dds_::String_", "", d.best_effort());
        assert_eq!(judge(&spec, true, &weak_writer), Ok(()));
        match judge(&spec, false, &weak_writer) {
            Err(Incompatibility::Qos(q)) => assert!(q.involves(QosPolicyKind::Reliability)),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn hibari_ids_and_history_are_read_from_user_data() {
        let guid = GUID::from_bytes([2; 16]);
        assert_eq!(
            announced_id(b"typehash=RIHS01_x;", guid),
            EndpointId([2; 16])
        );
        let ud = format!("typehash=x;hibariid={};", EndpointId([7; 16]));
        assert_eq!(announced_id(ud.as_bytes(), guid), EndpointId([7; 16]));
        assert_eq!(announced_id(b"hibariid=zz;", guid), EndpointId([2; 16]));
        let q = with_history(QosProfile::default().keep_last(1), b"history=5;");
        assert_eq!(q.depth(), 5);
        let q = with_history(QosProfile::default(), b"history=0;");
        assert_eq!(q.history, hibari_transport::History::KeepAll);
    }
}

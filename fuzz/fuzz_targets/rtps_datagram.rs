//! DDS-RTPS datagrams from a hostile network, through the vendored RustDDS
//! (`rustdds::fuzzing`, engine patch E3-3): the RTPS header and every
//! submessage parsed as the message receiver does, every DATA payload
//! decoded as each discovery type (SPDP participant, SEDP reader, writer,
//! topic: PL_CDR parameter lists whose lengths come from the wire), every
//! DATA_FRAG fed to a fragment assembler.
//!
//! Input: one UDP datagram. Properties:
//! - nothing panics;
//! - no single allocation exceeds a multiple of the input plus the
//!   reassembly bound given to the assembler (1 MiB here; the participant's
//!   `max_reassembly_bytes`): a DATA_FRAG's `data_size` claims up to 4 GiB.
#![forbid(unsafe_code)]
#![no_main]

use hibari_fuzz::{alloc_limit, guarded};
use libfuzzer_sys::fuzz_target;

/// The reassembly bound of this target.
const REASSEMBLY: usize = 1 << 20;

fuzz_target!(|data: &[u8]| {
    // `guarded` allows a multiple of the input; the assembler may also hold
    // one buffer of up to REASSEMBLY bytes, so widen the input it is told of.
    let allowed = data.len() + REASSEMBLY / 64 + 1;
    assert!(alloc_limit(allowed) >= REASSEMBLY);
    let parsed = guarded("rtps datagram", allowed, || {
        rustdds::fuzzing::rtps_datagram(data, REASSEMBLY)
    });
    assert!(parsed.message || parsed.submessages == 0);
    assert!(parsed.reassembled <= parsed.submessages);
});

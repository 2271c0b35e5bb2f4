//! Loans: memory a writer lends, filled in place and sent without a copy.

use hibari_cdr::Message;

use super::{probe, take_n, wait_matched, write, Probe, Rig, TransportFactory};
use crate::QosProfile;

/// Loans dropped unsent in a row: 10 GiB of 1 MiB loans, past what any
/// writer's memory holds (shared memory's default limit is 4 GiB), so a
/// writer that did not take a dropped loan back would run out.
const DROPPED: usize = 10_000;

/// A writer that lends memory delivers the prefix of a loan it was asked to
/// send, byte for byte, takes back every loan dropped unsent, and lends again;
/// a writer that lends nothing says so every time (`None`) and still writes.
pub fn a_sent_loan_arrives_and_a_dropped_one_goes_back(f: &dyn TransportFactory) {
    let rig = Rig::new(f, "loans");
    let r = rig.reader(QosProfile::default().keep_all());
    let w = rig.writer(QosProfile::default().keep_all());
    wait_matched(&*w, 1);
    wait_matched(&*r, 1);
    let first = Probe::new(0, 0).to_cdr().expect("encode a probe");
    let Some(lent) = w.loan(first.len() + 64) else {
        assert!(w.loan(first.len()).is_none(), "lends sometimes");
        write(&*w, 0, 0);
        assert_eq!(probe(&take_n(&*r, 1)[0]).index, 0);
        return;
    };
    let mut loan = lent.expect("lend memory for one probe");
    assert_eq!(loan.len(), first.len() + 64, "the length asked for");
    loan[..first.len()].copy_from_slice(&first);
    loan.send(first.len()).expect("send the loan");
    for i in 0..DROPPED {
        let loan = w.loan(1 << 20).expect("still lends").unwrap_or_else(|e| {
            panic!("loan {i} of {DROPPED} dropped unsent in a row refused: {e}")
        });
        drop(loan);
    }
    for index in 1..=3 {
        let bytes = Probe::new(0, index).to_cdr().expect("encode a probe");
        let mut loan = w.loan(bytes.len()).expect("still lends").expect("lend");
        loan.copy_from_slice(&bytes);
        loan.send(bytes.len()).expect("send the loan");
    }
    let got = take_n(&*r, 4);
    let indices: Vec<u64> = got.iter().map(|s| probe(s).index).collect();
    assert_eq!(indices, [0, 1, 2, 3]);
    let sent = got[0].payload.cdr().expect("the sample's bytes");
    assert_eq!(
        sent.to_vec(),
        first,
        "only the prefix asked for, as written"
    );
}

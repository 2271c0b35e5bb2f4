//! A reader in another process cannot write the writer's memory, by any
//! route the kernel offers, and the writer keeps writing.

mod common;

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use common::{domain, eventually, fill, spec, Peer};
use hibari_shm::ShmTransport;
use hibari_transport::{Endpoint, WriterOptions};

const PATIENCE: Duration = Duration::from_secs(20);

fn spawn_hostile_reader(domain: u32, topic: &str) -> Peer {
    let mut child = Command::new(env!("CARGO_BIN_EXE_shm-hostile-reader"))
        .args([&domain.to_string(), topic])
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("spawn shm-hostile-reader");
    let out = child.stdout.take().expect("stdout");
    let (tx, lines) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(out).lines().map_while(Result::ok) {
            eprintln!("hostile reader: {line}");
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    Peer { child, lines }
}

/// The reader reopens what it was given read-write (through
/// `/proc/self/fd` and `/proc/self/map_files`), maps it writable,
/// `mprotect`s its mapping, writes, punches holes and truncates: all of it
/// fails for chunk segments and for the ring, the sample it holds is
/// unchanged, and the writer's next sample arrives intact.
#[test]
fn a_reader_process_cannot_write_the_writers_memory_and_the_writer_still_can() {
    let d = domain();
    let t = ShmTransport::open(d).unwrap();
    let w = t
        .writer(&spec("/read_only", true), &WriterOptions::default())
        .unwrap();
    let mut reader = spawn_hostile_reader(d, "/read_only");
    reader.expect("ready", PATIENCE);
    assert!(eventually(PATIENCE, || w.matched_count() == 1));
    let mut loan = w.loan(100_000).unwrap();
    fill(&mut loan, 1);
    loan.send().map_err(|e| e.reason).unwrap();
    let attacked = reader.expect("attacked", PATIENCE);
    let field = |key: &str| -> u64 {
        let at = attacked.find(&format!("{key}=")).expect(key) + key.len() + 1;
        attacked[at..].split(' ').next().unwrap().parse().unwrap()
    };
    assert!(
        field("chunks") >= 1,
        "no chunk segment attacked: {attacked}"
    );
    assert!(field("rings") >= 1, "no ring region attacked: {attacked}");
    assert_eq!(field("violations"), 0, "{attacked}");
    assert_eq!(
        reader.expect("after seq=1", PATIENCE),
        "after seq=1 intact=true"
    );
    let mut loan = w.loan(100_000).unwrap();
    fill(&mut loan, 2);
    loan.send().map_err(|e| e.reason).unwrap();
    assert_eq!(
        reader.expect("after seq=2", PATIENCE),
        "after seq=2 intact=true"
    );
    assert!(
        reader.wait(PATIENCE),
        "the hostile reader reported a failure"
    );
}

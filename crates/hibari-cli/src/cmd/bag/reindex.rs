//! `hibari bag reindex`: make a bag whose recorder died readable again.
//!
//! A recorder that is killed (SIGKILL, power loss) leaves its last MCAP file
//! without a summary or footer, maybe with a half-written record at its end,
//! and no `metadata.yaml`. Each such file is read up to its last whole
//! record and rewritten with its schemas, channels (same ids) and messages,
//! this time with a summary and indexes; finished files are left as they
//! are. Then `metadata.yaml` is written from what the files hold, as
//! `ros2 bag reindex` does (it looks at the `.mcap` files, not at an older
//! `metadata.yaml`).
//!
//! A directory of sqlite3 files (`.db3`) gets its `metadata.yaml` written
//! from what their tables hold; the databases themselves are left as they
//! are (SQLite keeps them consistent, or they are damaged beyond this).

use std::fs::File;
use std::io::{BufWriter, Write as _};
use std::path::{Path, PathBuf};

use anyhow::{Context as _, Result};

use super::metadata::BagMetadata;
use super::open::{files_ending, mcap_files, metadata_of, summarize};
use super::scan::{self, Item, ScanEnd};
use super::sqlite;
use super::writer::write_metadata;
use super::ReindexArgs;

pub fn run(args: ReindexArgs) -> Result<()> {
    if args.bag.is_dir() && files_ending(&args.bag, "mcap")?.is_empty() {
        let dbs = files_ending(&args.bag, "db3")?;
        if !dbs.is_empty() {
            return reindex_sqlite(&args.bag, &dbs);
        }
    }
    if args.bag.is_file() && sqlite::is_sqlite(&args.bag) {
        anyhow::bail!(
            "{} is an sqlite3 file, which needs no reindexing; give its directory to write its metadata.yaml",
            args.bag.display()
        );
    }
    let (dir, files): (Option<PathBuf>, Vec<PathBuf>) = if args.bag.is_dir() {
        (Some(args.bag.clone()), mcap_files(&args.bag)?)
    } else if args.bag.is_file() {
        (None, vec![args.bag.clone()])
    } else {
        anyhow::bail!(
            "no bag at {}: give a bag directory or an .mcap file",
            args.bag.display()
        );
    };
    let mut summaries = Vec::new();
    for file in &files {
        let before = summarize(file)?;
        match &before.end {
            None => println!("{}: complete, left as it is", file.display()),
            Some(end) => {
                let kept = rewrite(file)?;
                match end {
                    ScanEnd::Broken { at, reason } => println!(
                        "{}: rebuilt with {kept} messages; dropped what follows offset {at} ({reason})",
                        file.display()
                    ),
                    _ => println!(
                        "{}: rebuilt with {kept} messages (it had no summary)",
                        file.display()
                    ),
                }
            }
        }
        summaries.push(summarize(file)?);
    }
    if let Some(dir) = dir {
        write_and_report(&dir, &metadata_of(&summaries))?;
    }
    Ok(())
}

/// Writes the `metadata.yaml` of the sqlite3 bag `dir` made of `files`.
fn reindex_sqlite(dir: &Path, files: &[PathBuf]) -> Result<()> {
    let summaries = files
        .iter()
        .map(|f| sqlite::summarize(f))
        .collect::<Result<Vec<_>>>()?;
    write_and_report(dir, &sqlite::metadata_of(&summaries))
}

/// Writes `metadata` as `dir`'s `metadata.yaml` and says so.
fn write_and_report(dir: &Path, metadata: &BagMetadata) -> Result<()> {
    write_metadata(dir, metadata)?;
    println!(
        "Wrote {}: {} messages on {} topics",
        dir.join("metadata.yaml").display(),
        metadata.message_count,
        metadata.topics.len()
    );
    Ok(())
}

/// Rewrites `path` from its readable records; returns how many messages it kept.
fn rewrite(path: &Path) -> Result<u64> {
    // First what the writer must know before writing: profile and compression.
    let mut profile = String::from("ros2");
    let mut compression = None;
    scan::scan(path, |item| {
        match item {
            Item::Header(h) => profile = h.profile,
            Item::Chunk { header, .. } if compression.is_none() => {
                compression = Some(header.compression.clone());
            }
            _ => {}
        }
        Ok(())
    })?;
    let compression = match compression.as_deref() {
        Some("zstd") => Some(mcap::Compression::Zstd),
        Some("lz4") => Some(mcap::Compression::Lz4),
        _ => None,
    };
    let tmp = path.with_extension("mcap.reindex");
    let file = File::create(&tmp).with_context(|| format!("cannot create {}", tmp.display()))?;
    let mut writer = mcap::WriteOptions::new()
        .profile(profile)
        .library(concat!("hibari ", env!("CARGO_PKG_VERSION"), " (reindex)"))
        .compression(compression)
        .compression_threads(0)
        .disable_seeking(true)
        .create(BufWriter::new(file))?;
    let mut kept = 0u64;
    let what = || format!("rewriting {}", path.display());
    scan::scan(path, |item| {
        match item {
            Item::Schema(s) => {
                writer.add_schema_with_id(s.id, &s.name, &s.encoding, &s.data)?;
            }
            Item::Channel(c) => {
                writer.add_channel_with_id(
                    c.id,
                    c.schema_id,
                    &c.topic,
                    &c.message_encoding,
                    &c.metadata,
                )?;
            }
            Item::Message { header, data } => {
                writer.write_to_known_channel(&header, data)?;
                kept += 1;
            }
            Item::Metadata(m) => writer.write_metadata(&m)?,
            _ => {}
        }
        Ok(())
    })
    .with_context(what)?;
    writer.finish().with_context(what)?;
    writer.into_inner().flush().with_context(what)?;
    std::fs::rename(&tmp, path).with_context(what)?;
    Ok(kept)
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use mcap::records::MessageHeader;

    use super::*;

    /// A finished file of `n` String messages in chunks of a few messages each.
    fn write_file(path: &Path, n: u32) {
        let mut w = mcap::WriteOptions::new()
            .profile("ros2")
            .compression(None)
            .chunk_size(Some(100))
            .disable_seeking(true)
            .create(File::create(path).unwrap())
            .unwrap();
        let schema = w
            .add_schema("std_msgs/msg/String", "ros2msg", b"string data\n")
            .unwrap();
        let channel = w
            .add_channel(schema, "/chatter", "cdr", &BTreeMap::new())
            .unwrap();
        for i in 0..n {
            let header = MessageHeader {
                channel_id: channel,
                sequence: i,
                log_time: u64::from(i) * 1000,
                publish_time: u64::from(i) * 1000,
            };
            w.write_to_known_channel(&header, b"\x00\x01\x00\x00\x02\x00\x00\x00x\x00")
                .unwrap();
        }
        w.finish().unwrap();
    }

    #[test]
    fn a_file_cut_inside_a_chunk_keeps_the_whole_chunks_before_the_cut() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("cut.mcap");
        write_file(&path, 40);
        let bytes = std::fs::read(&path).unwrap();
        std::fs::write(&path, &bytes[..bytes.len() / 2]).unwrap();
        let end = scan::scan(&path, |_| Ok(())).unwrap();
        assert!(
            matches!(&end, ScanEnd::Broken { reason, .. } if reason.contains("truncated")),
            "{end:?}"
        );

        let kept = rewrite(&path).unwrap();
        assert!(kept > 0 && kept < 40, "kept {kept}");
        let after = summarize(&path).unwrap();
        assert!(after.end.is_none(), "the rewritten file has a summary");
        assert_eq!(after.message_count(), kept);
        let sequences = std::cell::RefCell::new(Vec::new());
        scan::scan(&path, |item| {
            if let Item::Message { header, .. } = item {
                sequences.borrow_mut().push(header.sequence);
            }
            Ok(())
        })
        .unwrap();
        assert_eq!(sequences.into_inner(), (0..kept as u32).collect::<Vec<_>>());
    }

    /// The recorder writes a chunk to the file as it fills and its header
    /// when it closes: killed with a chunk open, the file holds that chunk's
    /// messages behind a header that still says "unfinished". The chunks
    /// closed before it are kept; the open one is dropped.
    #[test]
    fn a_recorder_killed_with_a_chunk_open_keeps_the_chunks_closed_before() {
        use super::super::writer::{BagWriter, TopicMeta, WriterOptions};
        use super::super::CompressionMode;
        use hibari::Bytes;

        let dir = tempfile::tempdir().unwrap();
        let options = WriterOptions {
            compression: CompressionMode::None,
            preset: None,
            max_size: 0,
            max_duration_ns: 0,
        };
        let mut bag = BagWriter::create(&dir.path().join("bag"), options).unwrap();
        let topic = bag
            .add_topic(TopicMeta {
                name: "/chatter".into(),
                type_name: "std_msgs/msg/String".into(),
                offered_qos: Vec::new(),
                type_hash: String::new(),
                schema_text: "string data\n".into(),
            })
            .unwrap();
        let cdr = b"\x00\x01\x00\x00\x02\x00\x00\x00x\x00";
        let path = dir.path().join("bag").join("bag_0.mcap");
        let mut flushed_len = 0;
        for i in 0..12u64 {
            if i == 10 {
                bag.flush().unwrap(); // the recorder does this every second
                flushed_len = std::fs::metadata(&path).unwrap().len();
            }
            bag.write(topic, i, i as i64 * 1000, 0, Bytes::from(cdr))
                .unwrap();
        }
        // What SIGKILL leaves: no summary, no footer, nothing closed.
        std::mem::forget(bag);
        let len = std::fs::metadata(&path).unwrap().len();
        assert!(len > flushed_len, "the open chunk is in the file: {len}");
        match scan::scan(&path, |_| Ok(())).unwrap() {
            ScanEnd::Broken { .. } => {}
            end => panic!("{end:?}"),
        }
        assert_eq!(rewrite(&path).unwrap(), 10);
        assert!(summarize(&path).unwrap().end.is_none());
        assert_eq!(summarize(&path).unwrap().message_count(), 10);
    }

    #[test]
    fn a_finished_file_reads_to_its_end() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("whole.mcap");
        write_file(&path, 5);
        assert_eq!(scan::scan(&path, |_| Ok(())).unwrap(), ScanEnd::Complete);
        assert_eq!(summarize(&path).unwrap().message_count(), 5);
    }
}

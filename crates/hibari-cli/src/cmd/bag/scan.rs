//! Reading an MCAP file: its summary from the end, or its records from the
//! start, one at a time (never the whole file in memory).
//!
//! Every problem names the byte offset of the record it is in. A scan stops
//! at the first record it cannot read and says where ([`ScanEnd::Broken`]),
//! keeping what came before: a recorder that died leaves its last record
//! half written, and everything before it is good.

use std::fs::File;
use std::io::{BufReader, Read, Seek, SeekFrom};
use std::path::Path;

use anyhow::{bail, Context as _, Result};
use mcap::records::{self, op, ChunkHeader, MessageHeader, Record};

/// A schema as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Schema {
    pub id: u16,
    pub name: String,
    pub encoding: String,
    pub data: Vec<u8>,
}

/// What a scan meets, in file order; the records of a chunk come after it.
pub enum Item<'a> {
    Header(records::Header),
    Schema(Schema),
    Channel(records::Channel),
    /// A chunk, before its records.
    Chunk {
        header: &'a ChunkHeader,
    },
    Message {
        header: MessageHeader,
        data: &'a [u8],
    },
    Metadata(records::Metadata),
}

/// How a scan ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ScanEnd {
    /// At the data section's end (a finished file).
    Complete,
    /// At the end of the file, after a whole record: the writer stopped
    /// before finishing the file (or is still writing it).
    Unfinished { at: u64 },
    /// At the record starting at `at`, which cannot be read.
    Broken { at: u64, reason: String },
}

impl ScanEnd {
    /// An error unless the file was finished or stopped after a whole record.
    pub fn readable(&self, path: &Path) -> Result<()> {
        match self {
            ScanEnd::Broken { at, reason } => bail!(
                "{} is damaged at offset {at}: {reason}; `hibari bag reindex` keeps what comes before it",
                path.display()
            ),
            _ => Ok(()),
        }
    }
}

fn op_name(opcode: u8) -> String {
    let name = match opcode {
        op::HEADER => "Header",
        op::FOOTER => "Footer",
        op::SCHEMA => "Schema",
        op::CHANNEL => "Channel",
        op::MESSAGE => "Message",
        op::CHUNK => "Chunk",
        op::MESSAGE_INDEX => "MessageIndex",
        op::CHUNK_INDEX => "ChunkIndex",
        op::ATTACHMENT => "Attachment",
        op::STATISTICS => "Statistics",
        op::METADATA => "Metadata",
        op::DATA_END => "DataEnd",
        _ => return format!("opcode {opcode:#04x}"),
    };
    format!("{name} record")
}

fn open(path: &Path) -> Result<(BufReader<File>, u64)> {
    let file = File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
    let len = file.metadata()?.len();
    let mut r = BufReader::with_capacity(1 << 16, file);
    let mut magic = [0u8; 8];
    if len < 8 || r.read_exact(&mut magic).is_err() || magic != mcap::MAGIC {
        bail!(
            "{} is not an MCAP file: it does not start with MCAP's magic bytes (offset 0)",
            path.display()
        );
    }
    Ok((r, len))
}

/// Reads `path`'s data section from the start, calling `visit` for each
/// schema, channel, chunk, message and metadata record.
pub fn scan(path: &Path, mut visit: impl FnMut(Item<'_>) -> Result<()>) -> Result<ScanEnd> {
    let (mut r, len) = open(path)?;
    let mut pos = 8u64;
    let mut body = Vec::new();
    loop {
        if pos == len {
            return Ok(ScanEnd::Unfinished { at: pos });
        }
        let broken = |reason: String| Ok(ScanEnd::Broken { at: pos, reason });
        if len - pos < 9 {
            return broken(format!(
                "the file ends {} bytes into a record's 9-byte header (truncated)",
                len - pos
            ));
        }
        let mut head = [0u8; 9];
        r.read_exact(&mut head)?;
        let opcode = head[0];
        let length = u64::from_le_bytes(head[1..].try_into().expect("8 bytes"));
        if opcode == 0 {
            return broken("opcode 0x00 is not a record (corrupt data)".into());
        }
        let available = len - pos - 9;
        if length > available {
            return broken(format!(
                "the {} claims {length} bytes but the file ends {available} bytes after its header (truncated)",
                op_name(opcode)
            ));
        }
        body.resize(usize::try_from(length)?, 0);
        r.read_exact(&mut body)?;
        let at = pos;
        pos += 9 + length;
        match opcode {
            op::DATA_END | op::FOOTER => return Ok(ScanEnd::Complete),
            op::HEADER | op::SCHEMA | op::CHANNEL | op::MESSAGE | op::METADATA | op::CHUNK => {}
            _ => continue,
        }
        let record = match mcap::parse_record(opcode, &body) {
            Ok(record) => record,
            Err(e) => {
                return Ok(ScanEnd::Broken {
                    at,
                    reason: format!("bad {}: {e}", op_name(opcode)),
                })
            }
        };
        if let Record::Chunk { header, .. } = record {
            visit(Item::Chunk { header: &header })?;
            if let Err(e) = chunk_records(&head, &body, &mut visit)? {
                return Ok(ScanEnd::Broken {
                    at,
                    reason: format!(
                        "bad Chunk record ({} compression): {e}",
                        compression(&header)
                    ),
                });
            }
        } else {
            deliver(record, &mut visit)?;
        }
    }
}

/// The records inside the chunk record `head` + `body`, decompressed and
/// CRC-checked; the outer error is the visitor's, the inner the chunk's.
/// Only the kinds a chunk may hold are parsed, never what a damaged chunk
/// might pass off as another kind.
fn chunk_records(
    head: &[u8],
    body: &[u8],
    visit: &mut impl FnMut(Item<'_>) -> Result<()>,
) -> Result<std::result::Result<(), String>> {
    use mcap::sans_io::{LinearReadEvent, LinearReader, LinearReaderOptions};
    let mut reader = LinearReader::new_with_options(
        LinearReaderOptions::default()
            .with_skip_start_magic(true)
            .with_skip_end_magic(true)
            .with_validate_chunk_crcs(true),
    );
    let (mut head, mut body) = (head, body);
    while let Some(event) = reader.next_event() {
        match event {
            Ok(LinearReadEvent::ReadRequest(need)) => {
                let from = if head.is_empty() {
                    &mut body
                } else {
                    &mut head
                };
                let n = need.min(from.len());
                reader.insert(n).copy_from_slice(&from[..n]);
                reader.notify_read(n);
                *from = &from[n..];
            }
            Ok(LinearReadEvent::Record { opcode, data }) => {
                if matches!(opcode, op::SCHEMA | op::CHANNEL | op::MESSAGE) {
                    match mcap::parse_record(opcode, data) {
                        Ok(record) => deliver(record, visit)?,
                        Err(e) => return Ok(Err(format!("bad {}: {e}", op_name(opcode)))),
                    }
                }
            }
            Err(e) => return Ok(Err(e.to_string())),
        }
    }
    Ok(Ok(()))
}

fn compression(header: &ChunkHeader) -> &str {
    if header.compression.is_empty() {
        "no"
    } else {
        &header.compression
    }
}

fn deliver(record: Record<'_>, visit: &mut impl FnMut(Item<'_>) -> Result<()>) -> Result<()> {
    match record {
        Record::Header(h) => visit(Item::Header(h)),
        Record::Schema { header, data } => visit(Item::Schema(Schema {
            id: header.id,
            name: header.name,
            encoding: header.encoding,
            data: data.into_owned(),
        })),
        Record::Channel(c) => visit(Item::Channel(c)),
        Record::Message { header, data } => visit(Item::Message {
            header,
            data: &data,
        }),
        Record::Metadata(m) => visit(Item::Metadata(m)),
        _ => Ok(()),
    }
}

/// A finished file's summary section.
#[derive(Debug, Default)]
pub struct Summary {
    pub schemas: Vec<Schema>,
    pub channels: Vec<records::Channel>,
    pub statistics: Option<records::Statistics>,
    /// The `rosbag2` metadata record's `serialized_metadata`, if any.
    pub rosbag2_metadata: Option<String>,
}

/// The summary of a finished file; `None` when the file has none (its
/// writer did not finish it, or chose not to write one).
pub fn read_summary(path: &Path) -> Result<Option<Summary>> {
    let (mut r, len) = open(path)?;
    const FOOTER: u64 = 9 + 20;
    if len < 8 + FOOTER + 8 {
        return Ok(None);
    }
    let footer_at = len - 8 - FOOTER;
    let mut tail = [0u8; (FOOTER + 8) as usize];
    r.seek(SeekFrom::Start(footer_at))?;
    r.read_exact(&mut tail)?;
    if tail[FOOTER as usize..] != *mcap::MAGIC || tail[0] != op::FOOTER {
        return Ok(None);
    }
    let footer = match mcap::parse_record(op::FOOTER, &tail[9..FOOTER as usize]) {
        Ok(Record::Footer(f)) => f,
        _ => bail!(
            "{}: bad Footer record at offset {footer_at}",
            path.display()
        ),
    };
    if footer.summary_start == 0 {
        return Ok(None);
    }
    if footer.summary_start < 8 || footer.summary_start > footer_at {
        bail!(
            "{}: the Footer at offset {footer_at} puts the summary at offset {}, outside the file",
            path.display(),
            footer.summary_start
        );
    }
    let mut summary = Summary::default();
    let mut rosbag2_index = None;
    let mut pos = footer.summary_start;
    r.seek(SeekFrom::Start(pos))?;
    let mut body = Vec::new();
    while pos < footer_at {
        let remaining = footer_at - pos;
        let mut head = [0u8; 9];
        let length = if remaining >= 9 {
            r.read_exact(&mut head)?;
            u64::from_le_bytes(head[1..].try_into().expect("8 bytes"))
        } else {
            u64::MAX
        };
        if remaining < 9 || length > remaining - 9 {
            bail!(
                "{}: the summary record at offset {pos} runs past the Footer (corrupt summary)",
                path.display()
            );
        }
        body.resize(usize::try_from(length)?, 0);
        r.read_exact(&mut body)?;
        pos += 9 + length;
        if !matches!(
            head[0],
            op::SCHEMA | op::CHANNEL | op::STATISTICS | op::METADATA_INDEX
        ) {
            continue;
        }
        let at = pos - 9 - length;
        let record = mcap::parse_record(head[0], &body).with_context(|| {
            format!(
                "{}: bad {} at offset {at}",
                path.display(),
                op_name(head[0])
            )
        })?;
        match record {
            Record::Schema { header, data } => summary.schemas.push(Schema {
                id: header.id,
                name: header.name,
                encoding: header.encoding,
                data: data.into_owned(),
            }),
            Record::Channel(c) => summary.channels.push(c),
            Record::Statistics(s) => summary.statistics = Some(s),
            Record::MetadataIndex(i) if i.name == "rosbag2" => rosbag2_index = Some(i),
            _ => {}
        }
    }
    if let Some(index) = rosbag2_index.filter(|i| i.offset.saturating_add(i.length) <= len) {
        r.seek(SeekFrom::Start(index.offset))?;
        body.resize(usize::try_from(index.length)?, 0);
        r.read_exact(&mut body)?;
        if let Some(Ok(Record::Metadata(m))) = (body.len() >= 9 && body[0] == op::METADATA)
            .then(|| mcap::parse_record(op::METADATA, &body[9..]))
        {
            summary.rosbag2_metadata = m.metadata.get("serialized_metadata").cloned();
        }
    }
    Ok(Some(summary))
}

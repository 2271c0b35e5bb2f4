//! rosbag2's sqlite3 storage (`.db3` files), the default before Iron: read
//! for `hibari bag info` and `hibari bag play`.
//!
//! A file holds `topics(id, name, type, serialization_format,
//! offered_qos_profiles, type_description_hash)` (the last two are missing
//! from the oldest files) and `messages(id, topic_id, timestamp, data)`,
//! each message's CDR as a blob stamped with its reception time; files of
//! Iron and later add `schema` (with the distro), `metadata` and
//! `message_definitions`, which playing does not need. Files are opened
//! read-only; one that is not SQLite, is damaged or lacks those tables is
//! an error naming the file.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail, Context as _, Result};
use rusqlite::types::ValueRef;
use rusqlite::{Connection, OpenFlags};

use super::metadata::{BagMetadata, TopicInfo};
use super::open::{list_file, widen};
use super::qos;

/// The first bytes of every SQLite 3 database.
pub const MAGIC: &[u8; 16] = b"SQLite format 3\0";

/// A topic as the file's `topics` table has it.
#[derive(Clone, Debug, PartialEq)]
pub struct DbTopic {
    pub id: i64,
    pub info: TopicInfo,
}

/// What one `.db3` file holds.
pub struct DbSummary {
    pub path: PathBuf,
    pub topics: Vec<DbTopic>,
    /// Log times of the first and last message.
    pub span: Option<(i64, i64)>,
    pub message_count: u64,
    pub ros_distro: Option<String>,
}

/// Whether `path` starts like an SQLite database.
pub fn is_sqlite(path: &Path) -> bool {
    let mut head = [0u8; 16];
    std::fs::File::open(path)
        .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut head))
        .is_ok_and(|()| head == *MAGIC)
}

/// Opens `path` read-only and checks that it is a rosbag2 sqlite3 file.
fn open(path: &Path) -> Result<Connection> {
    let damaged = |e: rusqlite::Error| {
        anyhow!(
            "{} is not a readable rosbag2 sqlite3 file: {e}",
            path.display()
        )
    };
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let db = Connection::open_with_flags(path, flags).map_err(damaged)?;
    let tables = strings(
        &db,
        "SELECT name FROM sqlite_master WHERE type = 'table'",
        0,
    )
    .map_err(damaged)?;
    for table in ["topics", "messages"] {
        if !tables.iter().any(|t| t == table) {
            bail!(
                "{} is an SQLite database without a `{table}` table: not a rosbag2 bag file",
                path.display()
            );
        }
    }
    Ok(db)
}

/// Column `column` of every row `sql` selects.
fn strings(db: &Connection, sql: &str, column: usize) -> rusqlite::Result<Vec<String>> {
    let mut stmt = db.prepare(sql)?;
    let rows = stmt.query_map([], |r| r.get(column))?;
    rows.collect()
}

/// Reads what `path` holds (its topics, counts, span), reading every
/// message's row once, so that a damaged file is found out here.
pub fn summarize(path: &Path) -> Result<DbSummary> {
    let db = open(path)?;
    let context = || format!("reading {}", path.display());
    let columns = strings(&db, "PRAGMA table_info(topics)", 1).with_context(context)?;
    let column = |name: &'static str| {
        if columns.iter().any(|c| c == name) {
            name
        } else {
            "''"
        }
    };
    let sql = format!(
        "SELECT id, name, type, serialization_format, {}, {} FROM topics ORDER BY id",
        column("offered_qos_profiles"),
        column("type_description_hash")
    );
    let mut counts: BTreeMap<i64, u64> = BTreeMap::new();
    let mut span: Option<(i64, i64)> = None;
    let mut stmt = db
        .prepare("SELECT topic_id, COUNT(*), MIN(timestamp), MAX(timestamp) FROM messages GROUP BY topic_id")
        .with_context(context)?;
    let mut rows = stmt.query([]).with_context(context)?;
    while let Some(row) = rows.next().with_context(context)? {
        let count: i64 = row.get(1).with_context(context)?;
        let (a, b): (i64, i64) = (row.get(2)?, row.get(3)?);
        counts.insert(row.get(0)?, count.max(0) as u64);
        span = Some(span.map_or((a, b), |(x, y)| (x.min(a), y.max(b))));
    }
    let mut topics = Vec::new();
    let mut stmt = db.prepare(&sql).with_context(context)?;
    let mut rows = stmt.query([]).with_context(context)?;
    while let Some(row) = rows.next().with_context(context)? {
        let id: i64 = row.get(0)?;
        let name: String = row.get(1)?;
        let offered: String = row.get(4)?;
        topics.push(DbTopic {
            id,
            info: TopicInfo {
                offered_qos: qos::parse_string(&offered)
                    .with_context(|| format!("{}: topic {name}", path.display()))?,
                name,
                type_name: row.get(2)?,
                serialization_format: row.get(3)?,
                type_description_hash: row.get(5)?,
                message_count: counts.get(&id).copied().unwrap_or(0),
            },
        });
    }
    let ros_distro = db
        .query_row("SELECT ros_distro FROM schema", [], |r| {
            r.get::<_, String>(0)
        })
        .ok()
        .filter(|d| !d.is_empty());
    Ok(DbSummary {
        path: path.to_path_buf(),
        topics,
        span,
        message_count: counts.values().sum(),
        ros_distro,
    })
}

/// Calls `visit(topic id, log time, CDR)` for each message of the topics
/// `topic_ids` logged at `from` or later, in log-time order (then the
/// order they were written in). `visit`'s errors come back as they were.
pub fn read_messages(
    path: &Path,
    topic_ids: &[i64],
    from: i64,
    mut visit: impl FnMut(i64, i64, &[u8]) -> Result<()>,
) -> Result<()> {
    let db = open(path)?;
    let context = || format!("reading the messages of {}", path.display());
    let ids: Vec<String> = topic_ids.iter().map(i64::to_string).collect();
    let sql = format!(
        "SELECT topic_id, timestamp, data FROM messages \
         WHERE timestamp >= ?1 AND topic_id IN ({}) ORDER BY timestamp, id",
        ids.join(", ")
    );
    let mut stmt = db.prepare(&sql).with_context(context)?;
    let mut rows = stmt.query([from]).with_context(context)?;
    while let Some(row) = rows.next().with_context(context)? {
        let (topic, stamp): (i64, i64) = (row.get(0)?, row.get(1)?);
        let data = match row.get_ref(2)? {
            ValueRef::Blob(b) | ValueRef::Text(b) => b,
            ValueRef::Null => &[][..],
            other => bail!(
                "{}: a message of topic {topic} holds {:?}, not bytes",
                path.display(),
                other.data_type()
            ),
        };
        visit(topic, stamp, data)?;
    }
    Ok(())
}

/// The metadata of a bag made of `files`, as rosbag2 derives it from its
/// storage (`ros2 bag info` of a lone `.db3`).
pub fn metadata_of(files: &[DbSummary]) -> BagMetadata {
    let mut m = BagMetadata::new();
    m.storage_identifier = "sqlite3".into();
    m.ros_distro = files
        .iter()
        .find_map(|f| f.ros_distro.clone())
        .unwrap_or_default();
    let mut span: Option<(i64, i64)> = None;
    for f in files {
        list_file(
            &mut m,
            &f.path,
            f.span.map_or(i64::MAX, |(a, _)| a),
            f.span.map_or(0, |(a, b)| b.saturating_sub(a).max(0) as u64),
            f.message_count,
        );
        span = widen(span, f.span);
        m.message_count += f.message_count;
        for t in &f.topics {
            match m.topics.iter_mut().find(|k| k.name == t.info.name) {
                Some(known) => known.message_count += t.info.message_count,
                None => m.topics.push(t.info.clone()),
            }
        }
    }
    if let Some((a, b)) = span {
        m.starting_time_ns = a;
        m.duration_ns = b.saturating_sub(a).max(0) as u64;
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A file laid out as rosbag2 of Foxy wrote them: no hash, no schema.
    fn foxy_file(dir: &Path) -> PathBuf {
        let path = dir.join("old_0.db3");
        let db = Connection::open(&path).unwrap();
        db.execute_batch(
            "CREATE TABLE topics(id INTEGER PRIMARY KEY, name TEXT NOT NULL, type TEXT NOT NULL,
               serialization_format TEXT NOT NULL, offered_qos_profiles TEXT NOT NULL);
             CREATE TABLE messages(id INTEGER PRIMARY KEY, topic_id INTEGER NOT NULL,
               timestamp INTEGER NOT NULL, data BLOB NOT NULL);
             INSERT INTO topics VALUES (1, '/a', 'std_msgs/msg/Empty', 'cdr',
               '- history: 3\n  depth: 0\n  reliability: 2\n  durability: 2');
             INSERT INTO topics VALUES (2, '/b', 'std_msgs/msg/Empty', 'cdr', '');
             INSERT INTO messages VALUES (1, 1, 30, x'00010000');
             INSERT INTO messages VALUES (2, 2, 10, x'00010000aa');
             INSERT INTO messages VALUES (3, 1, 20, x'00010000bb');",
        )
        .unwrap();
        path
    }

    #[test]
    fn a_foxy_file_is_summarized_and_read_in_log_time_order() {
        let dir = hibari_testkit::tempdir().unwrap();
        let path = foxy_file(dir.path());
        assert!(is_sqlite(&path));
        let s = summarize(&path).unwrap();
        assert_eq!((s.message_count, s.span), (3, Some((10, 30))));
        assert_eq!(s.topics[0].info.message_count, 2);
        assert_eq!(s.topics[0].info.offered_qos[0].reliability, 2);
        assert_eq!(s.topics[1].info.type_description_hash, "");
        let m = metadata_of(&[s]);
        assert_eq!(
            (m.storage_identifier.as_str(), m.duration_ns),
            ("sqlite3", 20)
        );
        let mut got = Vec::new();
        read_messages(&path, &[1, 2], 15, |t, stamp, data| {
            got.push((t, stamp, data.len()));
            Ok(())
        })
        .unwrap();
        assert_eq!(got, [(1, 20, 5), (1, 30, 4)]);
    }

    #[test]
    fn files_that_are_not_rosbag2_databases_are_errors_naming_them() {
        let dir = hibari_testkit::tempdir().unwrap();
        let junk = dir.path().join("junk.db3");
        std::fs::write(&junk, vec![7u8; 4096]).unwrap();
        assert!(!is_sqlite(&junk));
        let e = format!("{:#}", summarize(&junk).err().unwrap());
        assert!(
            e.contains("junk.db3 is not a readable rosbag2 sqlite3 file"),
            "{e}"
        );
        let other = dir.path().join("other.db3");
        Connection::open(&other)
            .unwrap()
            .execute_batch("CREATE TABLE t(x)")
            .unwrap();
        let e = format!("{:#}", summarize(&other).err().unwrap());
        assert!(e.contains("without a `topics` table"), "{e}");
    }
}

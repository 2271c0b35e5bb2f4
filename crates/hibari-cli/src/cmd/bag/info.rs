//! `hibari bag info`: what `ros2 bag info` prints, or the same as JSON.
//!
//! A bag with `metadata.yaml` is described by it (as ros2 does); a bag
//! without, or a lone `.mcap` or `.db3` file, by what its files hold: an
//! MCAP file's summary (or the file read whole when its writer never
//! finished it), a `.db3` file's tables.

use std::io::Write as _;

use anyhow::Result;
use serde_json::json;

use super::metadata::{BagMetadata, TopicInfo};
use super::open::{metadata_of, summarize, Bag, FileSummary, Storage};
use super::scan::ScanEnd;
use super::sqlite::{self, DbSummary};
use super::{local_time, seconds, InfoArgs};

/// Bytes as ros2 prints them: `512 B`, `1.5 KiB`, `12.0 MiB`.
fn file_size(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut size = bytes as f64;
    let mut unit = 0;
    while size >= 1024.0 && unit < UNITS.len() - 1 {
        size /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{bytes} B")
    } else {
        format!("{size:.1} {}", UNITS[unit])
    }
}

/// A service's event topic (`/srv/_service_event`, `pkg/srv/S_Event`),
/// which ros2 lists under services.
fn is_service_event(t: &TopicInfo) -> bool {
    t.name.ends_with("/_service_event")
        && t.type_name.contains("/srv/")
        && t.type_name.ends_with("_Event")
}

/// What each of the bag's files holds, from its summary or by reading it
/// whole; an error if one is damaged, a warning if one was never finished.
pub fn summaries(bag: &Bag) -> Result<Vec<FileSummary>> {
    let mut summaries = Vec::new();
    for file in &bag.files {
        let summary = summarize(file)?;
        if let Some(end) = &summary.end {
            end.readable(file)?;
            if matches!(end, ScanEnd::Unfinished { .. }) {
                eprintln!(
                    "warning: {} was never finished (no summary): read it whole; \
                     `hibari bag reindex` adds its summary",
                    file.display()
                );
            }
        }
        summaries.push(summary);
    }
    Ok(summaries)
}

/// What each of the bag's `.db3` files holds; an error if one is damaged.
pub fn db_summaries(bag: &Bag) -> Result<Vec<DbSummary>> {
    bag.files.iter().map(|f| sqlite::summarize(f)).collect()
}

/// The bag's metadata: its metadata.yaml, else what its files hold.
pub fn bag_metadata(bag: &Bag) -> Result<BagMetadata> {
    match (&bag.metadata, bag.storage) {
        (Some(m), _) => Ok(m.clone()),
        (None, Storage::Mcap) => Ok(metadata_of(&summaries(bag)?)),
        (None, Storage::Sqlite3) => Ok(sqlite::metadata_of(&db_summaries(bag)?)),
    }
}

pub fn run(args: InfoArgs) -> Result<()> {
    let bag = Bag::open(&args.bag)?;
    let m = bag_metadata(&bag)?;
    let files: Vec<String> = match &bag.dir {
        Some(_) => m.relative_file_paths.clone(),
        None => vec![args.bag.display().to_string()],
    };
    let text = if args.json {
        serde_json::to_string_pretty(&to_json(&m, &files, bag.size()))? + "\n"
    } else {
        to_text(&m, &files, bag.size())
    };
    std::io::stdout().lock().write_all(text.as_bytes())?;
    Ok(())
}

fn to_text(m: &BagMetadata, files: &[String], size: u64) -> String {
    const INDENT: &str = "                   ";
    let (start, end) = match m.end_ns() {
        Some(end) => (m.starting_time_ns, end),
        None => (0, 0),
    };
    let stamp = |ns: i64| format!("{} ({})", local_time(ns), seconds(ns));
    let (services, topics): (Vec<&TopicInfo>, Vec<&TopicInfo>) =
        m.topics.iter().partition(|t| is_service_event(t));
    let service_messages: u64 = services.iter().map(|t| t.message_count).sum();
    let mut out = String::from("\n");
    out += &format!(
        "Files:             {}\n",
        files.join(&format!("\n{INDENT}"))
    );
    out += &format!("Bag size:          {}\n", file_size(size));
    out += &format!("Storage id:        {}\n", m.storage_identifier);
    let distro = if m.ros_distro.is_empty() {
        "unknown"
    } else {
        &m.ros_distro
    };
    out += &format!("ROS Distro:        {distro}\n");
    out += &format!("Duration:          {}s\n", seconds(end - start));
    out += &format!("Start:             {}\n", stamp(start));
    out += &format!("End:               {}\n", stamp(end));
    out += &format!(
        "Messages:          {}\n",
        m.message_count.saturating_sub(service_messages)
    );
    let topic_lines: Vec<String> = topics
        .iter()
        .map(|t| {
            format!(
                "Topic: {} | Type: {} | Count: {} | Serialization Format: {}",
                t.name, t.type_name, t.message_count, t.serialization_format
            )
        })
        .collect();
    out += &format!(
        "Topic information: {}\n",
        topic_lines.join(&format!("\n{INDENT}"))
    );
    out += &format!("Service:           {}\n", services.len());
    let service_lines: Vec<String> = services
        .iter()
        .map(|t| {
            format!(
                "Service: {} | Type: {} | Event Count: {} | Serialization Format: {}",
                t.name.trim_end_matches("/_service_event"),
                t.type_name.trim_end_matches("_Event"),
                t.message_count,
                t.serialization_format
            )
        })
        .collect();
    out += &format!(
        "Service information: {}\n",
        service_lines.join(&format!("\n{INDENT}  "))
    );
    out
}

fn to_json(m: &BagMetadata, files: &[String], size: u64) -> serde_json::Value {
    let (start, end) = match m.end_ns() {
        Some(end) => (json!(m.starting_time_ns), json!(end)),
        None => (json!(null), json!(null)),
    };
    let topic = |t: &TopicInfo| {
        json!({
            "name": t.name,
            "type": t.type_name,
            "count": t.message_count,
            "serialization_format": t.serialization_format,
            "type_description_hash": t.type_description_hash,
            "offered_qos_profiles": t.offered_qos.iter().map(|q| q.to_json()).collect::<Vec<_>>(),
        })
    };
    json!({
        "files": files,
        "bag_size": size,
        "storage_identifier": m.storage_identifier,
        "ros_distro": m.ros_distro,
        "duration_ns": m.duration_ns,
        "start_ns": start,
        "end_ns": end,
        "message_count": m.message_count,
        "topics": m.topics.iter().filter(|t| !is_service_event(t)).map(topic).collect::<Vec<_>>(),
        "services": m.topics.iter().filter(|t| is_service_event(t)).map(topic).collect::<Vec<_>>(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_print_as_ros2_prints_them() {
        assert_eq!(file_size(512), "512 B");
        assert_eq!(file_size(1536), "1.5 KiB");
        assert_eq!(file_size(12 * 1024 * 1024), "12.0 MiB");
    }

    #[test]
    fn an_empty_bag_prints_without_times() {
        let text = to_text(&BagMetadata::new(), &["b_0.mcap".into()], 10);
        assert!(
            text.starts_with("\nFiles:             b_0.mcap\n"),
            "{text}"
        );
        assert!(text.contains("Duration:          0.000000000s\n"), "{text}");
        assert!(text.contains("Messages:          0\n"), "{text}");
        assert!(text.ends_with("Service information: \n"), "{text}");
    }
}

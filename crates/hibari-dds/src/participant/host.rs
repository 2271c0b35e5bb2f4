//! The host tag: which hibari participants share this host's shared memory.
//!
//! hibari processes on one host talk over shared memory, whose discovery uses
//! abstract Unix sockets, which are per network namespace. So "the same
//! host" is the same kernel boot and the same network namespace, and a DDS
//! participant announces `hibari=<boot id>/<netns inode>;` in its
//! participant USER_DATA. A participant ignores every other participant with
//! its own tag (no matching, no traffic) unless
//! [`DdsOptions::same_host_peers`](crate::DdsOptions::same_host_peers).
//! Foreign participants (ROS 2 nodes) carry no tag and are always used.

/// This host's tag value (`<boot id>/<netns inode>`).
pub fn host_tag() -> String {
    let boot = std::fs::read_to_string("/proc/sys/kernel/random/boot_id")
        .map(|s| s.trim().to_owned())
        .unwrap_or_else(|_| "unknown-boot".into());
    let netns = std::fs::read_link("/proc/self/ns/net")
        .map(|p| p.to_string_lossy().into_owned())
        .unwrap_or_else(|_| "unknown-netns".into());
    // `net:[4026531840]` → `4026531840`
    let netns = netns
        .trim_start_matches("net:[")
        .trim_end_matches(']')
        .to_owned();
    format!("{boot}/{netns}")
}

/// The participant USER_DATA: ROS 2's `enclave=/;` and hibari's host tag.
pub fn participant_user_data(tag: &str) -> String {
    format!("enclave=/;hibari={tag};")
}

/// The `key=value;` pairs of a USER_DATA string.
pub fn user_data_value<'a>(user_data: &'a [u8], key: &str) -> Option<&'a str> {
    let text = std::str::from_utf8(user_data).ok()?;
    text.split(';').find_map(|kv| {
        let (k, v) = kv.split_once('=')?;
        (k.trim() == key).then_some(v)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tag_names_boot_and_namespace_and_is_read_back() {
        let tag = host_tag();
        assert!(tag.contains('/'), "{tag}");
        assert_eq!(tag, host_tag());
        let ud = participant_user_data(&tag);
        assert_eq!(user_data_value(ud.as_bytes(), "hibari"), Some(tag.as_str()));
        assert_eq!(user_data_value(ud.as_bytes(), "enclave"), Some("/"));
        assert_eq!(
            user_data_value(b"typehash=RIHS01_ab;", "typehash"),
            Some("RIHS01_ab")
        );
        assert_eq!(user_data_value(b"\xff\xfe", "hibari"), None);
    }
}

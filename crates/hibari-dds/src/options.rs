//! How a DDS participant is opened: discovery scope, same-host peers, and the
//! errors of opening one.

use std::net::IpAddr;

use hibari_transport::DomainId;
use thiserror::Error;

/// The highest `ROS_DOMAIN_ID` whose ports fit in 16 bits (ROS 2's limit:
/// 7400 + 250·232 + 2·participant + 11 < 65536).
pub const MAX_DOMAIN: DomainId = 232;

/// How far automatic discovery reaches (ROS 2's `ROS_AUTOMATIC_DISCOVERY_RANGE`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum DiscoveryRange {
    /// Every host the network reaches (multicast): ROS 2's default, `SUBNET`.
    #[default]
    Subnet,
    /// This host only (`LOCALHOST`): unicast discovery to this host's
    /// well-known ports, no multicast; data over loopback.
    Localhost,
    /// No automatic discovery (`OFF`): only [`DdsOptions::static_peers`].
    Off,
}

/// Settings of a [`DdsTransport`](crate::DdsTransport).
///
/// `DdsOptions::default()` is ROS 2's zero configuration: multicast discovery
/// on the subnet, no static peers, and other hibari processes of this host
/// ignored (they are reached over shared memory). [`from_env`](Self::from_env)
/// reads ROS 2's environment variables.
#[non_exhaustive]
#[derive(Clone, Debug)]
pub struct DdsOptions {
    /// Discovery scope.
    pub range: DiscoveryRange,
    /// Hosts to discover beyond the range (ROS 2's `ROS_STATIC_PEERS`): IP
    /// addresses or host names, announced to by unicast on the well-known
    /// discovery ports of participant ids 0..32.
    pub static_peers: Vec<String>,
    /// Talk to hibari participants of this host and network namespace too
    /// (normally they are ignored: shared memory carries that traffic).
    pub same_host_peers: bool,
    /// Match this participant's own writers with its own readers (normally
    /// never: within a process the in-process transport delivers).
    pub loopback: bool,
    /// Use only these local interfaces (all when empty).
    pub interfaces: Vec<IpAddr>,
    /// The most bytes per second this participant sends (0: unlimited).
    /// Pacing keeps a receiver with a stock socket buffer (Fast DDS uses the
    /// kernel's default, 208 KiB) from dropping the fragments of a large
    /// sample; default [`DEFAULT_SEND_RATE`].
    pub send_rate: u64,
}

/// The default send rate: 500 MB/s, in bursts of up to 128 KiB. Measured
/// against rclpy with stock socket buffers (`measure/bench-dds.md`, "Send
/// rate"): 6.2 MB images at 30 Hz reach an rclpy subscriber with p50 28-30 ms
/// on one host and 46-83 ms across a veth, against 36-41 and 84-94 ms at
/// 300 MB/s; unlimited, a receiver's 208 KiB buffer overflows (p50 92-119 ms).
pub const DEFAULT_SEND_RATE: u64 = 500_000_000;

/// The burst a paced participant may send at once.
pub(crate) const SEND_BURST: usize = 128 * 1024;

impl Default for DdsOptions {
    fn default() -> Self {
        DdsOptions {
            range: DiscoveryRange::default(),
            static_peers: Vec::new(),
            same_host_peers: false,
            loopback: false,
            interfaces: Vec::new(),
            send_rate: DEFAULT_SEND_RATE,
        }
    }
}

impl DdsOptions {
    /// The options ROS 2's environment asks for: `ROS_AUTOMATIC_DISCOVERY_RANGE`
    /// (`SUBNET`, `LOCALHOST`, `OFF`, `SYSTEM_DEFAULT`; unset or unknown
    /// values mean `SUBNET`) and `ROS_STATIC_PEERS` (`;`-separated hosts);
    /// and hibari's `HIBARI_DDS_SEND_RATE` ([`send_rate`](Self::send_rate),
    /// bytes per second, `0` unlimited): a value that is not a whole number
    /// is an [`DdsOpenError::Environment`] error.
    pub fn from_env() -> Result<Self, DdsOpenError> {
        let var = |name| std::env::var(name).unwrap_or_default();
        let mut options = Self::from_values(
            &var("ROS_AUTOMATIC_DISCOVERY_RANGE"),
            &var("ROS_STATIC_PEERS"),
        );
        if let Some(rate) = send_rate_from(std::env::var("HIBARI_DDS_SEND_RATE").ok())? {
            options.send_rate = rate;
        }
        Ok(options)
    }

    fn from_values(range: &str, peers: &str) -> Self {
        let range = match range.trim().to_ascii_uppercase().as_str() {
            "LOCALHOST" => DiscoveryRange::Localhost,
            "OFF" => DiscoveryRange::Off,
            _ => DiscoveryRange::Subnet,
        };
        DdsOptions {
            range,
            static_peers: peers
                .split(';')
                .map(str::trim)
                .filter(|p| !p.is_empty())
                .map(str::to_owned)
                .collect(),
            ..DdsOptions::default()
        }
    }

    /// Sets [`range`](Self::range).
    pub fn range(mut self, range: DiscoveryRange) -> Self {
        self.range = range;
        self
    }

    /// Sets [`static_peers`](Self::static_peers).
    pub fn static_peers(mut self, peers: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.static_peers = peers.into_iter().map(Into::into).collect();
        self
    }

    /// Sets [`same_host_peers`](Self::same_host_peers).
    pub fn same_host_peers(mut self, on: bool) -> Self {
        self.same_host_peers = on;
        self
    }

    /// Sets [`loopback`](Self::loopback).
    pub fn loopback(mut self, on: bool) -> Self {
        self.loopback = on;
        self
    }

    /// Sets [`send_rate`](Self::send_rate) (bytes per second, 0: unlimited).
    pub fn send_rate(mut self, bytes_per_sec: u64) -> Self {
        self.send_rate = bytes_per_sec;
        self
    }

    /// Sets [`interfaces`](Self::interfaces).
    pub fn interfaces(mut self, interfaces: impl IntoIterator<Item = IpAddr>) -> Self {
        self.interfaces = interfaces.into_iter().collect();
        self
    }
}

/// Why a DDS participant could not be opened.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum DdsOpenError {
    /// The domain is outside ROS 2's range.
    #[error("ROS domain {domain} is outside 0..={MAX_DOMAIN}: set ROS_DOMAIN_ID to a value in that range")]
    Domain {
        /// The domain asked for.
        domain: DomainId,
    },
    /// The engine could not create the participant (sockets, ports).
    #[error("the DDS participant could not be created: {0}")]
    Participant(String),
    /// An environment variable holds a value it cannot have.
    #[error("{variable}={value:?} is not valid: {expected}")]
    Environment {
        /// The variable.
        variable: &'static str,
        /// Its value.
        value: String,
        /// What it may hold.
        expected: &'static str,
    },
    /// The event thread could not be started.
    #[error("the DDS event thread could not be started: {0}")]
    Thread(#[from] std::io::Error),
}

/// `HIBARI_DDS_SEND_RATE`: unset or blank is None; otherwise a whole number
/// of bytes per second.
fn send_rate_from(value: Option<String>) -> Result<Option<u64>, DdsOpenError> {
    let Some(value) = value.filter(|v| !v.trim().is_empty()) else {
        return Ok(None);
    };
    value
        .trim()
        .parse()
        .map(Some)
        .map_err(|_| DdsOpenError::Environment {
            variable: "HIBARI_DDS_SEND_RATE",
            value,
            expected: "bytes per second as a whole number, 0 for unlimited",
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ros_environment_values_are_read_as_ros_2_defines_them() {
        assert_eq!(
            DdsOptions::from_values("", "").range,
            DiscoveryRange::Subnet
        );
        assert_eq!(
            DdsOptions::from_values("localhost", "").range,
            DiscoveryRange::Localhost
        );
        assert_eq!(
            DdsOptions::from_values("OFF", "").range,
            DiscoveryRange::Off
        );
        assert_eq!(
            DdsOptions::from_values("SYSTEM_DEFAULT", "").range,
            DiscoveryRange::Subnet
        );
        let o = DdsOptions::from_values("SUBNET", " 10.0.0.2; host-b ;;");
        assert_eq!(o.static_peers, ["10.0.0.2", "host-b"]);
        assert!(!o.same_host_peers && !o.loopback);
    }

    #[test]
    fn the_send_rate_is_a_whole_number_of_bytes_per_second_or_an_error() {
        assert_eq!(send_rate_from(None).unwrap(), None);
        assert_eq!(send_rate_from(Some(" ".into())).unwrap(), None);
        assert_eq!(send_rate_from(Some("0".into())).unwrap(), Some(0));
        assert_eq!(
            send_rate_from(Some(" 600000000 ".into())).unwrap(),
            Some(600_000_000)
        );
        for bad in ["300MB", "-1", "1.5e8", "fast"] {
            let e = send_rate_from(Some(bad.into())).unwrap_err();
            assert!(
                matches!(&e, DdsOpenError::Environment { value, .. } if value == bad),
                "{bad}: {e}"
            );
            assert!(e.to_string().contains("HIBARI_DDS_SEND_RATE"), "{e}");
        }
    }
}

//! ROS 2 distributions and the definitions bundled for each.

use std::fmt;
use std::str::FromStr;
use std::sync::OnceLock;

use super::Registry;
use crate::model::{InterfaceKind, TypeName};

/// A ROS 2 distribution whose interface definitions are bundled.
///
/// Definitions differ between distributions (Jazzy's `sensor_msgs/Range`
/// has `variance`, Humble's has not), and so do their RIHS01 hashes; Humble
/// has no type hashes at all. The default is the newest bundled one.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Distro {
    Humble,
    #[default]
    Jazzy,
}

impl Distro {
    /// Every bundled distribution, oldest first.
    pub const ALL: [Distro; 2] = [Distro::Humble, Distro::Jazzy];

    /// The lowercase name: `humble`, `jazzy`.
    pub fn as_str(self) -> &'static str {
        match self {
            Distro::Humble => "humble",
            Distro::Jazzy => "jazzy",
        }
    }

    /// Parses a lowercase distribution name such as `"humble"`.
    pub fn parse(name: &str) -> Option<Distro> {
        Distro::ALL.into_iter().find(|d| d.as_str() == name)
    }

    fn files(self) -> &'static [BundledFile] {
        match self {
            Distro::Humble => HUMBLE,
            Distro::Jazzy => JAZZY,
        }
    }
}

impl fmt::Display for Distro {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A name that is not a bundled distribution.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown ROS 2 distribution `{0}`: use one of humble, jazzy")]
#[non_exhaustive]
pub struct DistroParseError(pub String);

impl FromStr for Distro {
    type Err = DistroParseError;

    fn from_str(s: &str) -> Result<Distro, DistroParseError> {
        Distro::parse(s).ok_or_else(|| DistroParseError(s.to_string()))
    }
}

/// One embedded interface file.
pub(crate) struct BundledFile {
    package: &'static str,
    kind: &'static str,
    name: &'static str,
    text: &'static str,
}

include!(concat!(env!("OUT_DIR"), "/bundled.rs"));

impl Registry {
    /// All bundled packages of `distro`, parsed once per process and cloned.
    pub fn bundled(distro: Distro) -> Registry {
        Registry::bundled_ref(distro).clone()
    }

    /// All bundled packages of `distro`, parsed on first use and shared.
    ///
    /// # Panics
    ///
    /// If a bundled file does not parse; the crate's tests parse all of them.
    pub fn bundled_ref(distro: Distro) -> &'static Registry {
        static CACHE: [OnceLock<Registry>; 2] = [OnceLock::new(), OnceLock::new()];
        CACHE[distro as usize].get_or_init(|| load_bundled(distro))
    }
}

fn load_bundled(distro: Distro) -> Registry {
    let mut registry = Registry::empty();
    for file in distro.files() {
        let path = format!(
            "interfaces/{}/{}/{}/{}.{}",
            distro.as_str(),
            file.package,
            file.kind,
            file.name,
            file.kind
        );
        let result = match file.kind {
            "msg" => registry.add_msg_text(
                TypeName::new(file.package, InterfaceKind::Msg, file.name),
                file.text,
                &path,
            ),
            "srv" => registry.add_srv_text(
                TypeName::new(file.package, InterfaceKind::Srv, file.name),
                file.text,
                &path,
            ),
            _ => registry.add_action_text(
                TypeName::new(file.package, InterfaceKind::Action, file.name),
                file.text,
                &path,
            ),
        };
        if let Err(e) = result {
            panic!("bundled interface does not parse: {e}");
        }
    }
    registry
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distro_names_round_trip_and_jazzy_is_the_default() {
        for d in Distro::ALL {
            assert_eq!(Distro::parse(d.as_str()), Some(d));
            assert_eq!(d.to_string().parse::<Distro>(), Ok(d));
        }
        assert_eq!(Distro::default(), Distro::Jazzy);
        assert_eq!(Distro::parse("Humble"), None);
        assert!("rolling"
            .parse::<Distro>()
            .unwrap_err()
            .to_string()
            .contains("rolling"));
    }

    #[test]
    fn bundled_ref_is_parsed_once_and_shared() {
        let a = Registry::bundled_ref(Distro::Jazzy) as *const Registry;
        let b = Registry::bundled_ref(Distro::Jazzy) as *const Registry;
        assert_eq!(a, b);
        assert_eq!(
            &Registry::bundled(Distro::Jazzy),
            Registry::bundled_ref(Distro::Jazzy)
        );
    }
}

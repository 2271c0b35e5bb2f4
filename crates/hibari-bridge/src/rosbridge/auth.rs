//! rosbridge's `auth` op, checked as rosauth's `ros_mac_authentication`
//! checks it, when the bridge has a secret
//! ([`BridgeConfig::auth_secret`](crate::BridgeConfig::auth_secret)).
//!
//! The MAC is the hex SHA-512 of `secret + client + dest + rand + t.sec +
//! level + end.sec`; `t` must be within 5 s of the bridge's clock and `end`
//! in the future. Until a client passes, any other op closes its
//! connection; a failed `auth` closes it too. Without a secret, `auth` is
//! accepted and ignored (roslibjs' `authenticate` keeps working).

use serde_json::Value as Json;
use sha2::{Digest, Sha512};

use super::args::Op;
use super::{Flow, Session};

/// The seconds of a Time given as `{sec|secs, nanosec|nsecs}` or a number.
fn seconds(t: Option<&Json>) -> Option<i64> {
    match t? {
        Json::Number(n) => n.as_i64().or_else(|| n.as_f64().map(|f| f as i64)),
        Json::Object(m) => m.get("sec").or_else(|| m.get("secs"))?.as_i64(),
        _ => None,
    }
}

/// The rosauth MAC of the fields, as lowercase hex.
pub(crate) fn mac(
    secret: &str,
    client: &str,
    dest: &str,
    rand: &str,
    t: i64,
    level: &str,
    end: i64,
) -> String {
    let text = format!("{secret}{client}{dest}{rand}{t}{level}{end}");
    Sha512::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

impl Session {
    pub(super) fn auth(&mut self, op: &Op<'_>) -> Flow {
        let Some(secret) = self.core.config.auth_secret.clone() else {
            return Flow::Continue;
        };
        let text = |f: &'static str| op.opt_str(f).ok().flatten().unwrap_or_default();
        let (Some(t), Some(end)) = (seconds(op.get("t")), seconds(op.get("end"))) else {
            return Flow::Close;
        };
        let now = self.core.now().0 as i64;
        let expected = mac(
            &secret,
            text("client"),
            text("dest"),
            text("rand"),
            t,
            text("level"),
            end,
        );
        if (t - now).abs() < 5 && end > now && expected == text("mac") {
            self.authenticated = true;
            Flow::Continue
        } else {
            Flow::Close
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_mac_is_sha512_hex_of_the_fields_in_rosauths_order() {
        let m = mac("s", "c", "d", "r", 1, "admin", 2);
        assert_eq!(m.len(), 128);
        let direct: String = Sha512::digest(b"scdr1admin2")
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        assert_eq!(m, direct);
        assert_eq!(
            seconds(Some(&serde_json::json!({"secs": 5, "nsecs": 1}))),
            Some(5)
        );
        assert_eq!(seconds(Some(&serde_json::json!({"sec": 6}))), Some(6));
    }
}

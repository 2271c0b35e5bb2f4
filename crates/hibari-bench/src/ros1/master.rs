//! The roscore of a bench run: started on a free port at the first ROS 1
//! cell ([`master_uri`]), shared by every cell after it, stopped at the end
//! ([`stop_master`]).

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use rustix::process::{kill_process, Pid, Signal};

/// The roscore this run started, if any.
struct RosMaster {
    child: Child,
    uri: String,
    home: PathBuf,
}

static MASTER: Mutex<Option<RosMaster>> = Mutex::new(None);

fn free_port() -> Option<u16> {
    let l = std::net::TcpListener::bind("127.0.0.1:0").ok()?;
    Some(l.local_addr().ok()?.port())
}

/// The URI of this run's roscore, started on first use; `None` when it
/// cannot start (the peer then starts its own, or says why not).
pub(super) fn master_uri() -> Option<String> {
    let mut m = MASTER.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(m) = m.as_ref() {
        return Some(m.uri.clone());
    }
    let port = free_port()?;
    let home = std::env::temp_dir().join(format!("hibari-bench-roshome-{}", std::process::id()));
    std::fs::create_dir_all(&home).ok()?;
    let uri = format!("http://127.0.0.1:{port}");
    let mut child = Command::new("roscore")
        .args(["-p", &port.to_string()])
        .env("ROS_MASTER_URI", &uri)
        .env("ROS_IP", "127.0.0.1")
        .env("ROS_HOME", &home)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let deadline = Instant::now() + Duration::from_secs(20);
    let addr = std::net::SocketAddr::from(([127, 0, 0, 1], port));
    while std::net::TcpStream::connect_timeout(&addr, Duration::from_millis(200)).is_err() {
        if Instant::now() > deadline || !matches!(child.try_wait(), Ok(None)) {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_millis(300)); // rosout registers
    *m = Some(RosMaster {
        child,
        uri: uri.clone(),
        home,
    });
    Some(uri)
}

/// Stops the roscore this run started (SIGINT, as `roscore` expects, then kill).
pub fn stop_master() {
    let _ = std::fs::remove_dir(super::csv_dir()); // emptied cell by cell
    let mut m = MASTER.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(mut r) = m.take() {
        let _ = kill_process(Pid::from_child(&r.child), Signal::INT);
        let deadline = Instant::now() + Duration::from_secs(5);
        while matches!(r.child.try_wait(), Ok(None)) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = r.child.kill();
        let _ = r.child.wait();
        let _ = std::fs::remove_dir_all(&r.home);
    }
}

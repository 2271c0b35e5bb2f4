//! Removes the Fast DDS shared-memory files in `/dev/shm` that ROS 2 peer
//! processes left since a time (`hibari_bench::dds::fastdds_shm::sweep`):
//! the test command runs it at its end, as `hibari bench` does after each
//! step, so that peers the tests killed leave no RAM-backed files behind.
//!
//!   sweep_fastdds_shm SINCE   (SINCE: seconds since the Unix epoch)

use std::path::Path;
use std::time::{Duration, SystemTime};

use hibari_bench::dds::fastdds_shm::{sweep, Files, SETTLE};

fn main() {
    let Some(since) = std::env::args().nth(1).and_then(|s| s.parse::<u64>().ok()) else {
        eprintln!("usage: sweep_fastdds_shm SINCE (seconds since the Unix epoch)");
        std::process::exit(2);
    };
    let since = SystemTime::UNIX_EPOCH + Duration::from_secs(since);
    let dir = Path::new("/dev/shm");
    let mut swept = sweep(dir, since, Files::All);
    if swept.pending > 0 {
        std::thread::sleep(SETTLE);
        swept.removed += sweep(dir, since, Files::All).removed;
    }
    println!(
        "removed {} files of Fast DDS shared memory left in /dev/shm by ROS 2 peers",
        swept.removed
    );
}

//! The C program (tests/c) and the C++ programs (tests/cpp), compiled
//! against include/ and libhibari.so with the system's cc and c++
//! (`-Wall -Wextra -Werror`), run as real processes: each test in a ROS
//! domain of its own, with topics of its own, every child bounded by a
//! timeout and killed if the test ends first. Processes of one host reach
//! each other through shared memory (hibari's default transports).
//!
//! `cargo test` builds libhibari_c.so (installed as libhibari.so) with the crate's rlib, before this test,
//! into <target>/<profile>/deps/ (see Cargo.toml): the programs link it there.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

use hibari_testkit::lines::LineChild;
use hibari_testkit::{tempdir, unique_topic, TempDir, TestDomain};

struct Programs {
    /// Holds `libhibari.so`, the library the programs must load.
    dir: TempDir,
    c: PathBuf,
    cpp: PathBuf,
    groups: PathBuf,
}

fn crate_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Runs `command` to completion; fails the test with its output if it fails.
fn run(mut command: Command, what: &str) {
    let out = command
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("{what}: cannot start: {e}"));
    assert!(
        out.status.success(),
        "{what} failed ({}):\n{}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Compiles the programs against libhibari.so, once per test binary.
fn programs() -> &'static Programs {
    static BUILT: OnceLock<Programs> = OnceLock::new();
    BUILT.get_or_init(|| {
        // The test binary is <target>/<profile>/deps/<name>, beside the
        // library cargo built for it.
        let exe = std::env::current_exe().expect("the test's own path");
        let lib_dir = exe.parent().expect("<target>/<profile>/deps").to_path_buf();
        let lib = lib_dir.join("libhibari_c.so");
        assert!(
            lib.exists(),
            "{} is missing: cargo builds it with the crate's rlib (crate-type in Cargo.toml)",
            lib.display()
        );
        let dir = tempdir().expect("a temporary directory");
        // Installed, the library is libhibari.so, its SONAME (build.rs),
        // which is what the programs will look for.
        std::os::unix::fs::symlink(&lib, dir.path().join("libhibari.so"))
            .expect("a link libhibari.so -> libhibari_c.so");
        let lib_dir = dir.path().to_path_buf();
        let include = crate_dir().join("include");
        let link = |cmd: &mut Command| {
            cmd.arg(format!("-L{}", lib_dir.display()))
                .arg("-lhibari")
                .arg(format!("-Wl,-rpath,{}", lib_dir.display()))
                .arg("-pthread");
        };
        let c = dir.path().join("bad_input");
        let mut cc = Command::new(std::env::var("CC").unwrap_or_else(|_| "cc".into()));
        cc.args(["-std=c11", "-Wall", "-Wextra", "-Werror", "-pedantic", "-g"])
            .arg(format!("-I{}", include.display()))
            .arg(crate_dir().join("tests/c/bad_input.c"))
            .arg("-o")
            .arg(&c);
        link(&mut cc);
        run(cc, "cc tests/c/bad_input.c");
        let cxx = |name: &str| {
            let out = dir.path().join(name);
            let mut cxx = Command::new(std::env::var("CXX").unwrap_or_else(|_| "c++".into()));
            // The stand-in message headers first, then the real include/.
            cxx.args(["-std=c++17", "-Wall", "-Wextra", "-Werror", "-g"])
                .arg(format!(
                    "-I{}",
                    crate_dir().join("tests/cpp/fake_msgs").display()
                ))
                .arg(format!("-I{}", include.display()))
                .arg(crate_dir().join(format!("tests/cpp/{name}.cpp")))
                .arg("-o")
                .arg(&out);
            link(&mut cxx);
            run(cxx, &format!("c++ tests/cpp/{name}.cpp"));
            out
        };
        let (cpp, groups) = (cxx("smoke"), cxx("groups"));
        Programs {
            dir,
            c,
            cpp,
            groups,
        }
    })
}

/// A program of this test in `domain`, its stdout read line by line.
fn start(program: &Path, args: &[&str], domain: &TestDomain) -> LineChild {
    // cargo runs tests with its output folders on LD_LIBRARY_PATH, which
    // the loader reads before the programs' RUNPATH: a libhibari.so left
    // there by an older build (when the crate's library had that name)
    // would be loaded instead of this build's. Ours goes first.
    let ours = programs().dir.path().to_path_buf();
    let path = std::env::var_os("LD_LIBRARY_PATH").unwrap_or_default();
    let path = std::env::join_paths(
        std::iter::once(ours)
            .chain(std::env::split_paths(&path).filter(|p| !p.as_os_str().is_empty())),
    )
    .expect("library folders without ':'");
    let mut command = Command::new(program);
    command
        .env("LD_LIBRARY_PATH", path)
        .args(args)
        .env("ROS_DOMAIN_ID", domain.id().to_string())
        .env_remove("HIBARI_INTERFACE_PATH")
        .stdin(Stdio::null())
        .stderr(Stdio::inherit());
    LineChild::spawn(command).expect("start the program")
}

#[test]
fn the_c_program_gets_the_expected_code_for_every_bad_input_and_exits_0() {
    let p = programs();
    let domain = TestDomain::reserve();
    let mut c = start(&p.c, &[], &domain);
    let mut seen = Vec::new();
    c.expect_line("c ok", &mut seen);
    c.expect_success(&mut seen);
    let has = |prefix: &str| seen.iter().any(|l| l.starts_with(prefix));
    assert!(has("null name: 2 (`name` is NULL"), "{seen:#?}");
    assert!(
        has("unknown type: 4 (unknown msg type `no_such_pkg/msg/Nope`"),
        "{seen:#?}"
    );
    assert!(
        has("destroyed handle: 3 (the publisher handle"),
        "{seen:#?}"
    );
    assert!(has("destroyed twice: 3"), "{seen:#?}");
    assert!(has("zero handle: 3"), "{seen:#?}");
    assert!(has("bad group type: 2 (group_type is 7"), "{seen:#?}");
    assert!(
        has("group of another node: 2 (the callback group"),
        "{seen:#?}"
    );
    assert!(has("group of a destroyed node: 3"), "{seen:#?}");
    assert!(!seen.iter().any(|l| l.starts_with("FAILED")), "{seen:#?}");
}

#[test]
fn a_cpp_talker_reaches_a_cpp_listener_in_another_process() {
    let p = programs();
    let domain = TestDomain::reserve();
    let topic = unique_topic("cpp_chatter");
    let mut listener = start(&p.cpp, &["listen", &topic, "5"], &domain);
    let mut heard = Vec::new();
    listener.expect_line("listening", &mut heard);
    let mut talker = start(&p.cpp, &["talk", &topic, "5"], &domain);
    listener.expect_line("heard all 5", &mut heard);
    listener.expect_success(&mut heard);
    let mut said = Vec::new();
    talker.expect_success(&mut said);
    let messages: Vec<&String> = heard
        .iter()
        .filter(|l| l.starts_with("heard hello"))
        .collect();
    assert_eq!(
        messages,
        [
            "heard hello 1",
            "heard hello 2",
            "heard hello 3",
            "heard hello 4",
            "heard hello 5"
        ]
    );
}

#[test]
fn images_written_in_place_in_a_loan_reach_a_subscriber_in_another_process() {
    let p = programs();
    let domain = TestDomain::reserve();
    let topic = unique_topic("cpp_images");
    let mut viewer = start(&p.cpp, &["image-listen", &topic, "3"], &domain);
    let mut seen = Vec::new();
    viewer.expect_line("listening", &mut seen);
    let mut camera = start(&p.cpp, &["image-talk", &topic, "3"], &domain);
    viewer.expect_line("image 3 ok", &mut seen);
    viewer.expect_success(&mut seen);
    let mut sent = Vec::new();
    camera.expect_success(&mut sent);
    assert_eq!(seen[1..], ["image 1 ok", "image 2 ok", "image 3 ok"]);
}

#[test]
fn a_cpp_client_gets_every_sum_from_a_cpp_service_in_another_process() {
    let p = programs();
    let domain = TestDomain::reserve();
    let name = unique_topic("cpp_add");
    let mut server = start(&p.cpp, &["serve", &name, "3"], &domain);
    let mut served = Vec::new();
    server.expect_line("serving", &mut served);
    let mut client = start(&p.cpp, &["call", &name], &domain);
    let mut calls = Vec::new();
    client.expect_success(&mut calls);
    assert!(
        calls.contains(&"sum 123456789012 + 987654321098 = 1111111110110 (request 3)".to_string()),
        "{calls:#?}"
    );
    server.expect_line("answered 3", &mut served);
    server.expect_success(&mut served);
}

#[test]
fn the_cpp_layer_passes_its_selftest_in_one_process() {
    let p = programs();
    let domain = TestDomain::reserve();
    let mut selftest = start(&p.cpp, &["selftest"], &domain);
    let mut seen = Vec::new();
    selftest.expect_line("selftest ok", &mut seen);
    selftest.expect_success(&mut seen);
}

#[test]
fn the_once_and_throttle_macros_log_once_and_wall_rate_paces() {
    let p = programs();
    let domain = TestDomain::reserve();
    let mut throttle = start(&p.cpp, &["throttle"], &domain);
    let mut seen = Vec::new();
    throttle.expect_line("once 1 throttled 1 every 20 debug 0", &mut seen);
    throttle.expect_success(&mut seen);
}

#[test]
fn a_first_sigint_shuts_down_and_a_second_ends_the_process_with_130() {
    let p = programs();
    let domain = TestDomain::reserve();
    let mut stubborn = start(&p.cpp, &["stubborn"], &domain);
    let mut seen = Vec::new();
    stubborn.expect_line("ready", &mut seen);
    let sigint = |child: &mut LineChild| {
        let pid = child.child().id().to_string();
        let sent = Command::new("kill").args(["-INT", &pid]).status();
        assert!(sent.is_ok_and(|s| s.success()), "kill -INT {pid}");
    };
    sigint(&mut stubborn);
    stubborn.expect_line("shut down", &mut seen);
    sigint(&mut stubborn);
    let status = stubborn.expect_exit(&mut seen);
    assert_eq!(status.code(), Some(130), "{status}: {}", seen.join("\n"));
}

#[test]
fn callback_groups_let_a_service_wait_for_a_nested_call_and_timers_overlap_in_cpp() {
    let p = programs();
    let domain = TestDomain::reserve();
    let mut groups = start(&p.groups, &[], &domain);
    let mut seen = Vec::new();
    groups.expect_line("groups ok", &mut seen);
    groups.expect_success(&mut seen);
    for line in [
        "nested call with Reentrant groups: 30",
        "nested call in the default group: -1",
        "timers of a Reentrant group at once: 2",
        "timers of a MutuallyExclusive group at once: 1",
    ] {
        assert!(seen.iter().any(|l| l == line), "no `{line}`: {seen:#?}");
    }
}

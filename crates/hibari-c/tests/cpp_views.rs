//! Zero-copy C++ views (include/hibari/view.hpp, the generated `<Name>View`
//! types, `Node::create_view_subscription`) in real processes:
//! tests/cpp/views.cpp, compiled with the system's c++ (`-Wall -Wextra
//! -Werror`) against include/, libhibari.so and the headers hibari-cpp-gen
//! writes for the bundled Jazzy packages — generated here through
//! hibari-codegen's library (a dev-dependency), as the binary does.
//!
//! `cargo test` builds libhibari_c.so (installed as libhibari.so) into
//! <target>/<profile>/deps/ before this test (see Cargo.toml).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

use hibari_codegen::generate_cpp;
use hibari_idl::{Distro, Registry};
use hibari_testkit::lines::LineChild;
use hibari_testkit::{tempdir, unique_topic, TempDir, TestDomain};

struct Program {
    dir: TempDir,
    path: PathBuf,
}

fn crate_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Writes the headers of every bundled Jazzy package under `dir`.
fn generate_headers(dir: &Path) {
    let registry = Registry::bundled_ref(Distro::Jazzy);
    let mut packages: Vec<String> = registry
        .messages()
        .map(|m| m.name.package.clone())
        .collect();
    packages.sort();
    packages.dedup();
    generate_cpp(registry, &packages)
        .write_to(dir)
        .expect("write the generated headers");
}

/// Compiles tests/cpp/views.cpp, once per test binary.
fn program() -> &'static Program {
    static BUILT: OnceLock<Program> = OnceLock::new();
    BUILT.get_or_init(|| {
        // The test binary is <target>/<profile>/deps/<name>, beside the
        // library cargo built for it.
        let exe = std::env::current_exe().expect("the test's own path");
        let lib = exe
            .parent()
            .expect("<target>/<profile>/deps")
            .join("libhibari_c.so");
        assert!(lib.exists(), "{} is missing", lib.display());
        let dir = tempdir().expect("a temporary directory");
        // Installed, the library is libhibari.so, its SONAME (build.rs).
        std::os::unix::fs::symlink(&lib, dir.path().join("libhibari.so"))
            .expect("a link libhibari.so -> libhibari_c.so");
        let generated = dir.path().join("include");
        generate_headers(&generated);
        let path = dir.path().join("views");
        let out = Command::new(std::env::var("CXX").unwrap_or_else(|_| "c++".into()))
            .args(["-std=c++17", "-Wall", "-Wextra", "-Werror", "-g"])
            .arg(format!("-I{}", generated.display()))
            .arg(format!("-I{}", crate_dir().join("include").display()))
            .arg(crate_dir().join("tests/cpp/views.cpp"))
            .arg("-o")
            .arg(&path)
            .arg(format!("-L{}", dir.path().display()))
            .arg("-lhibari")
            .arg(format!("-Wl,-rpath,{}", dir.path().display()))
            .arg("-pthread")
            .stdin(Stdio::null())
            .output()
            .expect("run c++");
        assert!(
            out.status.success(),
            "c++ tests/cpp/views.cpp failed ({}):\n{}{}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        Program { dir, path }
    })
}

/// The program in `domain`, its stdout read line by line. Its library
/// path is only the link to this test's library: cargo's (its target
/// folders, first in the search) may hold other builds named libhibari.so.
fn start(args: &[&str], domain: &TestDomain) -> LineChild {
    let program = program();
    let mut command = Command::new(&program.path);
    command
        .args(args)
        .env("LD_LIBRARY_PATH", program.dir.path())
        .env("ROS_DOMAIN_ID", domain.id().to_string())
        .env_remove("HIBARI_INTERFACE_PATH")
        .stdin(Stdio::null())
        .stderr(Stdio::inherit());
    LineChild::spawn(command).expect("start the program")
}

#[test]
fn a_view_subscription_reads_1080p_images_in_the_publishers_shared_memory() {
    let domain = TestDomain::reserve();
    let topic = unique_topic("cpp_hd_images");
    let mut viewer = start(&["image-view", &topic, "3"], &domain);
    let mut seen = Vec::new();
    viewer.expect_line("listening", &mut seen);
    let mut camera = start(&["image-talk", &topic, "3"], &domain);
    viewer.expect_line("viewed 3 and 3", &mut seen);
    viewer.expect_success(&mut seen);
    let mut sent = Vec::new();
    camera.expect_success(&mut sent);
    let images: Vec<&String> = seen.iter().filter(|l| l.starts_with("image ")).collect();
    assert_eq!(
        images,
        [
            "image 1 in place ok",
            "image 2 in place ok",
            "image 3 in place ok"
        ],
        "{seen:#?}"
    );
    assert!(!seen.iter().any(|l| l.starts_with("FAILED")), "{seen:#?}");
}

#[test]
fn views_read_point_cloud_fields_and_misaligned_doubles_and_parse_images_without_their_pixels() {
    let domain = TestDomain::reserve();
    let mut run = start(&["header-only"], &domain);
    let mut seen = Vec::new();
    run.expect_line("header-only ok", &mut seen);
    run.expect_success(&mut seen);
    for want in [
        "point cloud fields ok",
        "alignment ok",
        "image parsed without reading its pixels",
        "bad input refused",
    ] {
        assert!(seen.iter().any(|l| l == want), "no `{want}` in {seen:#?}");
    }
}

//! `hibari-cpp-gen` as users run it: on their package folders, on top of the
//! bundled interfaces, rewriting only what changed, refusing bad definitions.

use std::fs;
use std::path::Path;
use std::process::{Command, Output};

fn cpp_gen(args: &[&Path]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hibari-cpp-gen"))
        .args(args)
        .output()
        .expect("run hibari-cpp-gen")
}

fn package(root: &Path, files: &[(&str, &str)]) {
    for (path, text) in files {
        let path = root.join(path);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }
}

#[test]
fn a_user_package_gets_headers_that_include_the_bundled_ones_and_a_rerun_rewrites_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let pkgs = tmp.path().join("src");
    package(
        &pkgs,
        &[
            (
                "my_msgs/msg/RobotPose.msg",
                "std_msgs/Header header\ngeometry_msgs/Pose pose\nuint8 MODE_AUTO=1\n",
            ),
            (
                "my_msgs/srv/GetPose.srv",
                "string name\n---\nRobotPose pose\n",
            ),
        ],
    );
    let out = tmp.path().join("include");
    let manifest = tmp.path().join("types.tsv");
    let args = [
        Path::new("--out"),
        &out,
        Path::new("--manifest"),
        &manifest,
        &pkgs,
    ];
    let first = cpp_gen(&args);
    assert!(first.status.success(), "{first:?}");
    let pose = fs::read_to_string(out.join("my_msgs/msg/robot_pose.hpp")).unwrap();
    assert!(pose.contains("#include <std_msgs/msg/header.hpp>"));
    assert!(pose.contains("#include <geometry_msgs/msg/pose.hpp>"));
    assert!(pose.contains("static constexpr uint8_t MODE_AUTO = 1;"));
    let srv = fs::read_to_string(out.join("my_msgs/srv/get_pose.hpp")).unwrap();
    assert!(srv.contains("#include <my_msgs/msg/robot_pose.hpp>"));
    assert!(srv.contains("  ::my_msgs::msg::RobotPose pose{};"));
    // Only the user package: the bundled headers come from `--bundled`.
    assert!(!out.join("std_msgs").exists());
    let types = fs::read_to_string(&manifest).unwrap();
    assert!(types.contains(
        "my_msgs/srv/GetPose_Request\t::my_msgs::srv::GetPose_Request\tmy_msgs/srv/get_pose.hpp\n"
    ));

    let second = cpp_gen(&args);
    let stdout = String::from_utf8_lossy(&second.stdout);
    assert!(stdout.contains("(0 written, 2 unchanged)"), "{stdout}");
}

#[test]
fn a_bad_definition_fails_with_the_file_and_line() {
    let tmp = tempfile::tempdir().unwrap();
    package(
        tmp.path(),
        &[("bad_msgs/msg/Bad.msg", "int32 ok\nfloat99 nope\n")],
    );
    let out = tmp.path().join("include");
    let run = cpp_gen(&[Path::new("--out"), &out, &tmp.path().join("bad_msgs")]);
    assert!(!run.status.success());
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(
        stderr.contains("Bad.msg:2:1: unknown type `float99`"),
        "{stderr}"
    );
    assert!(!out.exists(), "nothing is written for a bad definition");
}

#[test]
fn an_unknown_nested_type_fails_and_names_it() {
    let tmp = tempfile::tempdir().unwrap();
    package(
        tmp.path(),
        &[("my_msgs/msg/A.msg", "other_msgs/Missing m\n")],
    );
    let run = cpp_gen(&[Path::new("--out"), &tmp.path().join("include"), tmp.path()]);
    assert!(!run.status.success());
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(stderr.contains("other_msgs/msg/Missing"), "{stderr}");
}

#[test]
fn no_packages_and_no_bundled_is_a_usage_error() {
    let tmp = tempfile::tempdir().unwrap();
    let run = cpp_gen(&[Path::new("--out"), tmp.path()]);
    assert!(!run.status.success());
    assert!(String::from_utf8_lossy(&run.stderr).contains("nothing to generate"));
}

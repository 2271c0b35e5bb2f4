//! Loading, overriding, looking up and validating definitions.

use std::fs;
use std::path::{Path, PathBuf};

use hibari_idl::{Distro, IdlLoadError, IdlResolveError, InterfaceKind, Registry, TypeName};

fn name(text: &str) -> TypeName {
    TypeName::parse(text).unwrap()
}

/// A scratch folder unique to one test (`<temporary dir>/<test>`), removed
/// when dropped.
struct Scratch(PathBuf, #[allow(dead_code)] hibari_testkit::TempDir);

impl Scratch {
    fn new(test: &str) -> Scratch {
        let tmp = hibari_testkit::tempdir().expect("a temporary directory");
        let dir = tmp.path().join(test);
        fs::create_dir_all(&dir).unwrap();
        Scratch(dir, tmp)
    }

    fn write(&self, relative: &str, text: &str) -> PathBuf {
        let path = self.0.join(relative);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(&path, text).unwrap();
        path
    }

    fn path(&self, relative: &str) -> PathBuf {
        self.0.join(relative)
    }
}

#[test]
fn a_package_folder_adds_its_messages_services_and_actions() {
    let s = Scratch::new("package");
    s.write("my_pkg/msg/Thing.msg", "int32 x\n");
    s.write("my_pkg/msg/notes.txt", "ignored");
    s.write("my_pkg/srv/Ask.srv", "Thing q\n---\nbool ok\n");
    s.write("my_pkg/action/Go.action", "int32 a\n---\n---\n");
    let mut registry = Registry::bundled(Distro::Jazzy);
    assert_eq!(registry.add_package_dir(&s.path("my_pkg")).unwrap(), 3);
    registry.validate().unwrap();
    assert!(registry.message_str("my_pkg/Thing").is_some());
    assert!(registry.message_str("my_pkg/srv/Ask_Request").is_some());
    assert!(registry.service(&name("my_pkg/srv/Ask")).is_some());
    assert!(registry.action(&name("my_pkg/action/Go")).is_some());
    assert!(registry
        .service(&name("my_pkg/action/Go_SendGoal"))
        .is_some());
    assert!(registry
        .message(&name("my_pkg/action/Go_FeedbackMessage"))
        .is_some());
}

#[test]
fn later_definitions_override_bundled_ones() {
    let s = Scratch::new("override");
    s.write("std_msgs/msg/String.msg", "string data\nint32 extra\n");
    let mut registry = Registry::bundled(Distro::Jazzy);
    let before = registry.type_hash(&name("std_msgs/msg/String")).unwrap();
    registry.add_search_path(&s.0).unwrap();
    assert_eq!(
        registry
            .message_str("std_msgs/String")
            .unwrap()
            .fields
            .len(),
        2
    );
    assert_ne!(
        registry.type_hash(&name("std_msgs/msg/String")).unwrap(),
        before
    );
}

#[test]
fn a_search_path_finds_packages_in_subfolders_and_skips_hidden_ones() {
    let s = Scratch::new("search");
    s.write("src/repo/pkg_a/msg/A.msg", "pkg_b/B b\n");
    s.write("src/pkg_b/msg/B.msg", "int8 x\n");
    s.write("src/.git/pkg_c/msg/C.msg", "bogus line\n");
    s.write("README", "not a folder");
    let mut registry = Registry::empty();
    assert_eq!(registry.add_search_path(&s.0).unwrap(), 2);
    registry.validate().unwrap();
    // a root that is itself a package folder works too
    let mut single = Registry::empty();
    assert_eq!(single.add_search_path(&s.path("src/pkg_b")).unwrap(), 1);
}

#[test]
fn a_path_list_and_the_environment_variable_add_roots_in_order() {
    let first = Scratch::new("list-a");
    let second = Scratch::new("list-b");
    first.write("p/msg/T.msg", "int8 a\n");
    second.write("p/msg/T.msg", "int8 a\nint8 b\n");
    let list =
        std::env::join_paths([first.0.as_path(), Path::new(""), second.0.as_path()]).unwrap();
    let mut registry = Registry::empty();
    assert_eq!(registry.add_path_list(&list).unwrap(), 2);
    assert_eq!(registry.message_str("p/T").unwrap().fields.len(), 2);

    // The one test of this binary that sets these variables.
    std::env::set_var("HIBARI_INTERFACE_PATH", &list);
    let mut from_env = Registry::empty();
    assert_eq!(from_env.add_from_env().unwrap(), 2);
    // Registry::from_env: the bundled distro of HIBARI_DISTRO, then the path.
    let jazzy = Registry::from_env().unwrap();
    assert_eq!(jazzy.message_str("p/T").unwrap().fields.len(), 2);
    assert!(jazzy.message_str("service_msgs/ServiceEventInfo").is_some());
    std::env::set_var("HIBARI_DISTRO", "humble");
    let humble = Registry::from_env().unwrap();
    assert!(humble
        .message_str("service_msgs/ServiceEventInfo")
        .is_none());
    assert!(humble.message_str("p/T").is_some());
    std::env::set_var("HIBARI_DISTRO", "rolling-ish");
    let err = Registry::from_env().unwrap_err();
    assert!(
        matches!(&err, hibari_idl::RegistryFromEnvError::UnknownDistro(d) if d == "rolling-ish"),
        "{err}"
    );
    std::env::remove_var("HIBARI_DISTRO");
    std::env::remove_var("HIBARI_INTERFACE_PATH");
    assert_eq!(from_env, registry);
    assert_eq!(Registry::empty().add_from_env().unwrap(), 0);
}

#[test]
fn load_errors_name_the_file_and_leave_the_registry_unchanged() {
    let s = Scratch::new("errors");
    s.write("good/msg/A.msg", "int8 a\n");
    s.write("good/msg/B.msg", "int8 a\nnot_a_type b\n");
    let mut registry = Registry::empty();
    let err = registry.add_package_dir(&s.path("good")).unwrap_err();
    let IdlLoadError::Parse(parse) = &err else {
        panic!("{err:?}")
    };
    assert_eq!((parse.line, parse.column), (2, 1));
    assert!(
        err.to_string()
            .contains("B.msg:2:1: unknown type `not_a_type`"),
        "{err}"
    );
    assert!(registry.is_empty());

    s.write("Bad-Name/msg/A.msg", "int8 a\n");
    let err = registry.add_package_dir(&s.path("Bad-Name")).unwrap_err();
    assert!(
        matches!(err, IdlLoadError::InvalidPackageName { .. }),
        "{err:?}"
    );

    let missing = s.path("does-not-exist");
    let err = registry.add_search_path(&missing).unwrap_err();
    let IdlLoadError::Io { path, .. } = &err else {
        panic!("{err:?}")
    };
    assert_eq!(path, &missing);
    assert!(err.to_string().contains("does-not-exist"), "{err}");
}

#[test]
fn lookups_accept_long_and_short_names_and_resolve_finds_the_kind() {
    let registry = Registry::bundled_ref(Distro::Jazzy);
    assert!(registry.message_str("std_msgs/msg/String").is_some());
    assert!(registry.message_str("std_msgs/String").is_some());
    assert!(registry
        .message_str("std_srvs/srv/SetBool_Request")
        .is_some());
    assert!(registry.message_str("std_msgs").is_none());
    assert_eq!(
        registry.resolve("std_msgs/String"),
        Some(name("std_msgs/msg/String"))
    );
    assert_eq!(
        registry.resolve("std_srvs/SetBool"),
        Some(name("std_srvs/srv/SetBool"))
    );
    assert_eq!(
        registry.resolve("tf2_msgs/LookupTransform"),
        Some(name("tf2_msgs/action/LookupTransform"))
    );
    assert_eq!(
        registry.resolve("std_srvs/srv/SetBool"),
        Some(name("std_srvs/srv/SetBool"))
    );
    assert_eq!(registry.resolve("std_srvs/msg/SetBool"), None);
    assert_eq!(registry.resolve("nope/Nothing"), None);
    assert!(registry
        .resolve_message(&name("std_srvs/srv/SetBool_Event"))
        .is_some());
    assert!(registry
        .message(&name("std_srvs/srv/SetBool_Event"))
        .is_none());
}

#[test]
fn iteration_is_sorted_by_name() {
    let registry = Registry::bundled_ref(Distro::Jazzy);
    let names: Vec<&TypeName> = registry.messages().map(|m| &m.name).collect();
    assert!(names.windows(2).all(|w| w[0] < w[1]));
    assert!(registry
        .services()
        .any(|s| s.name.kind == InterfaceKind::Action));
}

fn registry_of(defs: &[(&str, &str)]) -> Registry {
    let mut registry = Registry::empty();
    for (type_name, text) in defs {
        registry
            .add_msg_text(name(type_name), text, type_name)
            .unwrap();
    }
    registry
}

#[test]
fn validate_reports_a_field_whose_type_is_missing() {
    let registry = registry_of(&[("a/msg/A", "int8 x\nb/Missing m\n")]);
    let err = registry.validate().unwrap_err();
    assert_eq!(
        err,
        IdlResolveError::UnresolvedField {
            owner: name("a/msg/A"),
            field: "m".into(),
            missing: name("b/msg/Missing"),
        }
    );
}

#[test]
fn validate_rejects_a_type_that_contains_itself() {
    let direct = registry_of(&[("a/msg/A", "A[] children\n")]);
    let err = direct.validate().unwrap_err();
    assert_eq!(
        err,
        IdlResolveError::Cycle {
            path: vec![name("a/msg/A"), name("a/msg/A")]
        }
    );
    assert!(err.to_string().contains("not even in a sequence"), "{err}");

    let indirect = registry_of(&[
        ("a/msg/A", "B b\n"),
        ("a/msg/B", "int8 x\nC[<=2] c\n"),
        ("a/msg/C", "A a\n"),
        ("a/msg/D", "A a\n"),
    ]);
    let err = indirect.validate().unwrap_err();
    assert_eq!(
        err.to_string(),
        "`a/msg/A` contains itself through a/msg/A -> a/msg/B -> a/msg/C -> a/msg/A; \
         a message cannot contain itself, not even in a sequence"
    );
    assert!(
        indirect.msgdef_text(&name("a/msg/A")).is_ok(),
        "msgdef_text terminates on cycles"
    );
    assert!(matches!(
        indirect.show(&name("a/msg/A")),
        Err(IdlResolveError::Cycle { .. })
    ));
}

#[test]
fn show_expands_nested_types_with_tabs_and_without_their_comments() {
    let registry = registry_of(&[
        ("a/msg/Inner", "# inner file comment\nint32 x  # the x\n\n# about y\nint32 y\nuint8 K=1 # a constant\n"),
        ("a/msg/Outer", "# outer\nInner one # first\n\na/Inner[2] two\ntime stamp\nstring s\n"),
        ("builtin_interfaces/msg/Time", "int32 sec\nuint32 nanosec\n"),
    ]);
    assert_eq!(
        registry.show(&name("a/msg/Outer")).unwrap(),
        "# outer\nInner one # first\n\tint32 x\n\tint32 y\n\tuint8 K=1\n\n\
         a/Inner[2] two\n\tint32 x\n\tint32 y\n\tuint8 K=1\ntime stamp\nstring s\n"
    );
}

#[test]
fn show_prints_service_and_action_parts_between_separators() {
    let registry = Registry::bundled_ref(Distro::Jazzy);
    let shown = registry.show(&name("std_srvs/srv/SetBool")).unwrap();
    assert!(
        shown.ends_with("bool data\n---\nbool success\nstring message\n"),
        "{shown}"
    );
    let action = registry
        .show(&name("tf2_msgs/action/LookupTransform"))
        .unwrap();
    assert_eq!(action.lines().filter(|l| *l == "---").count(), 2);
    assert!(
        action.contains("builtin_interfaces/Time source_time\n\tint32 sec\n\tuint32 nanosec\n"),
        "{action}"
    );
    let send_goal = registry
        .show(&name("tf2_msgs/action/LookupTransform_SendGoal"))
        .unwrap();
    assert!(
        send_goal.contains("tf2_msgs/action/LookupTransform_Goal goal\n\tstring target_frame\n"),
        "{send_goal}"
    );
    let err = registry.show(&name("nope/msg/Nothing")).unwrap_err();
    assert!(matches!(err, IdlResolveError::UnknownType { .. }));
}

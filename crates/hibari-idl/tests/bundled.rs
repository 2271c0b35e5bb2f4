//! The bundled packages of every distribution, and the shared test definitions.

use std::path::{Path, PathBuf};

use hibari_idl::{Distro, InterfaceKind, Literal, Registry, TypeName};

fn name(text: &str) -> TypeName {
    TypeName::parse(text).unwrap()
}

fn interfaces_dir(distro: Distro) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("interfaces")
        .join(distro.as_str())
}

/// Counts `<pkg>/<kind>/*.<kind>` files of one distribution on disk.
fn files_on_disk(distro: Distro, kind: InterfaceKind) -> usize {
    let Ok(packages) = std::fs::read_dir(interfaces_dir(distro)) else {
        return 0;
    };
    packages
        .filter_map(|p| std::fs::read_dir(p.ok()?.path().join(kind.as_str())).ok())
        .flatten()
        .filter(|f| {
            f.as_ref()
                .is_ok_and(|f| f.path().extension().is_some_and(|e| e == kind.as_str()))
        })
        .count()
}

#[test]
fn every_bundled_file_of_every_distro_parses_and_validates() {
    for distro in Distro::ALL {
        let registry = Registry::bundled_ref(distro);
        registry
            .validate()
            .unwrap_or_else(|e| panic!("{distro}: {e}"));
        let msgs = registry
            .messages()
            .filter(|m| m.name.kind == InterfaceKind::Msg)
            .count();
        let srvs = registry
            .services()
            .filter(|s| s.name.kind == InterfaceKind::Srv)
            .count();
        assert_eq!(
            msgs,
            files_on_disk(distro, InterfaceKind::Msg),
            "{distro} msg"
        );
        assert_eq!(
            srvs,
            files_on_disk(distro, InterfaceKind::Srv),
            "{distro} srv"
        );
        assert_eq!(
            registry.actions().count(),
            files_on_disk(distro, InterfaceKind::Action),
            "{distro} action"
        );
        assert!(msgs > 100, "{distro}: only {msgs} messages bundled");
    }
}

#[test]
fn bundled_packages_match_the_same_folders_loaded_from_disk() {
    for distro in Distro::ALL {
        let mut from_disk = Registry::empty();
        from_disk.add_search_path(&interfaces_dir(distro)).unwrap();
        let bundled = Registry::bundled_ref(distro);
        assert_eq!(from_disk.len(), bundled.len(), "{distro}");
        for def in bundled.messages() {
            assert_eq!(from_disk.message(&def.name), Some(def), "{}", def.name);
        }
    }
}

#[test]
fn definitions_differ_between_distros_where_upstream_changed_them() {
    let range = name("sensor_msgs/msg/Range");
    let has_variance = |d| {
        Registry::bundled_ref(d)
            .message(&range)
            .unwrap()
            .fields
            .iter()
            .any(|f| f.name == "variance")
    };
    assert!(!has_variance(Distro::Humble));
    assert!(has_variance(Distro::Jazzy));
    assert!(Registry::bundled_ref(Distro::Jazzy)
        .message_str("service_msgs/ServiceEventInfo")
        .is_some());
    assert!(Registry::bundled_ref(Distro::Humble)
        .message_str("service_msgs/ServiceEventInfo")
        .is_none());
}

fn test_msgs_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/interfaces/test_msgs")
}

#[test]
fn the_shared_test_definitions_load_on_top_of_the_bundle_and_validate() {
    let dir = test_msgs_dir();
    if !dir.is_dir() {
        eprintln!("skipped: {} does not exist", dir.display());
        return;
    }
    for distro in Distro::ALL {
        let mut registry = Registry::bundled(distro);
        let added = registry.add_package_dir(&dir).unwrap();
        assert!(added >= 1, "{distro}");
        registry
            .validate()
            .unwrap_or_else(|e| panic!("{distro}: {e}"));
        if distro == Distro::Jazzy {
            for def in registry
                .messages()
                .filter(|m| m.name.package == "test_msgs")
            {
                registry.type_hash(&def.name).unwrap();
            }
            for srv in registry
                .services()
                .filter(|s| s.name.package == "test_msgs")
            {
                registry.type_hash(&srv.name).unwrap();
            }
        }
    }
}

#[test]
fn the_test_defaults_message_holds_every_kind_of_literal() {
    let dir = test_msgs_dir();
    if !dir.join("msg/Defaults.msg").is_file() {
        eprintln!("skipped: no Defaults.msg in {}", dir.display());
        return;
    }
    let mut registry = Registry::empty();
    registry.add_package_dir(&dir).unwrap();
    let def = registry.message_str("test_msgs/msg/Defaults").unwrap();
    let constant = |n: &str| &def.constants.iter().find(|c| c.name == n).unwrap().value;
    assert_eq!(constant("C_UINT64"), &Literal::Int(u64::MAX as i128));
    assert_eq!(constant("C_INT64"), &Literal::Int(i64::MIN as i128));
    assert_eq!(constant("C_STRING"), &Literal::String("hello world".into()));
    let default = |n: &str| {
        def.fields
            .iter()
            .find(|f| f.name == n)
            .unwrap()
            .default
            .clone()
    };
    assert_eq!(default("s"), Some(Literal::String("say \"hi\"".into())));
    assert_eq!(default("bounded_plain"), None);
    assert_eq!(
        default("bounded_names"),
        Some(Literal::Array(vec![
            Literal::String("a".into()),
            Literal::String("bc".into())
        ]))
    );
}

//! RIHS01 hashes against the vectors of interop.md §5 and the rosbags oracle.

use std::collections::BTreeSet;

use hibari_idl::{BaseType, Distro, IdlResolveError, InterfaceKind, Primitive, Registry, TypeName};

fn name(text: &str) -> TypeName {
    TypeName::parse(text).unwrap()
}

fn jazzy_hash(text: &str) -> String {
    Registry::bundled_ref(Distro::Jazzy)
        .type_hash(&name(text))
        .unwrap_or_else(|e| panic!("{text}: {e}"))
}

#[test]
fn the_hashed_json_of_std_msgs_string_matches_the_spec_byte_for_byte() {
    let json = Registry::bundled_ref(Distro::Jazzy)
        .type_description_json(&name("std_msgs/msg/String"))
        .unwrap();
    assert_eq!(
        json,
        r#"{"type_description": {"type_name": "std_msgs/msg/String", "fields": [{"name": "data", "type": {"type_id": 17, "capacity": 0, "string_capacity": 0, "nested_type_name": ""}}]}, "referenced_type_descriptions": []}"#
    );
}

#[test]
fn jazzy_hashes_match_the_vectors_of_the_interop_spec() {
    let vectors = [
        (
            "std_msgs/msg/String",
            "df668c740482bbd48fb39d76a70dfd4bd59db1288021743503259e948f6b1a18",
        ),
        (
            "geometry_msgs/msg/Twist",
            "9c45bf16fe0983d80e3cfe750d6835843d265a9a6c46bd2e609fcddde6fb8d2a",
        ),
        (
            "sensor_msgs/msg/Image",
            "d31d41a9a4c4bc8eae9be757b0beed306564f7526c88ea6a4588fb9582527d47",
        ),
        (
            "sensor_msgs/msg/LaserScan",
            "64c191398013af96509d518dac71d5164f9382553fce5c1f8cca5be7924bd828",
        ),
        (
            "sensor_msgs/msg/PointCloud2",
            "9198cabf7da3796ae6fe19c4cb3bdd3525492988c70522628af5daa124bae2b5",
        ),
        (
            "std_msgs/msg/Header",
            "f49fb3ae2cf070f793645ff749683ac6b06203e41c891e17701b1cb597ce6a01",
        ),
        (
            "rcl_interfaces/msg/Log",
            "e28ce254ca8abc06abf92773b74602cdbf116ed34fbaf294fb9f81da9f318eac",
        ),
        (
            "rcl_interfaces/msg/ParameterEvent",
            "043e627780fcad87a22d225bc2a037361dba713fca6a6b9f4b869a5aa0393204",
        ),
        (
            "builtin_interfaces/msg/Time",
            "b106235e25a4c5ed35098aa0a61a3ee9c9b18d197f398b0e4206cea9acf9c197",
        ),
        (
            "std_msgs/msg/Empty",
            "20b625256f32d5dbc0d04fee44f43c41e51c70d3502f84b4a08e7a9c26a96312",
        ),
    ];
    for (type_name, hex) in vectors {
        assert_eq!(
            jazzy_hash(type_name),
            format!("RIHS01_{hex}"),
            "{type_name}"
        );
    }
}

#[test]
fn a_char_field_hashes_as_uint8_unlike_rosbags() {
    assert_eq!(
        jazzy_hash("std_msgs/msg/Char"),
        "RIHS01_3ad2d04dd29ba19d04b16659afa3ccaedd691914b02a64e82e252f2fa6a586a9"
    );
    let json = Registry::bundled_ref(Distro::Jazzy)
        .type_description_json(&name("std_msgs/msg/Char"))
        .unwrap();
    assert!(json.contains(r#""type_id": 3,"#), "{json}");
}

#[test]
fn a_service_hash_matches_add_two_ints_from_the_rmw_zenoh_design_doc() {
    let mut registry = Registry::bundled(Distro::Jazzy);
    let srv = name("example_interfaces/srv/AddTwoInts");
    registry
        .add_srv_text(
            srv.clone(),
            "int64 a\nint64 b\n---\nint64 sum\n",
            "AddTwoInts.srv",
        )
        .unwrap();
    assert_eq!(
        registry.type_hash(&srv).unwrap(),
        "RIHS01_e118de6bf5eeb66a2491b5bda11202e7b68f198d6f67922cf30364858239c81a"
    );
    let event = registry
        .type_description_json(&name("example_interfaces/srv/AddTwoInts_Event"))
        .unwrap();
    assert!(
        event.contains(r#"{"name": "request", "type": {"type_id": 97, "capacity": 1, "string_capacity": 0, "nested_type_name": "example_interfaces/srv/AddTwoInts_Request"}}"#),
        "{event}"
    );
}

#[test]
fn every_jazzy_message_service_and_action_has_a_hash() {
    let registry = Registry::bundled_ref(Distro::Jazzy);
    let names: Vec<TypeName> = registry
        .messages()
        .map(|m| m.name.clone())
        .chain(registry.services().map(|s| s.name.clone()))
        .chain(registry.actions().map(|a| a.name.clone()))
        .collect();
    for type_name in &names {
        let hash = registry
            .type_hash(type_name)
            .unwrap_or_else(|e| panic!("{type_name}: {e}"));
        assert_eq!(hash.len(), 71, "{type_name}");
    }
    assert!(registry
        .action(&name("tf2_msgs/action/LookupTransform"))
        .is_some());
}

#[test]
fn an_action_hash_describes_the_six_parts_rosidl_derives() {
    let registry = Registry::bundled_ref(Distro::Jazzy);
    let json = registry
        .type_description_json(&name("tf2_msgs/action/LookupTransform"))
        .unwrap();
    let top = json
        .split(", \"referenced_type_descriptions\"")
        .next()
        .unwrap();
    let fields: Vec<&str> = top
        .split("{\"name\": \"")
        .skip(1)
        .map(|s| s.split('"').next().unwrap())
        .collect();
    assert_eq!(
        fields,
        [
            "goal",
            "result",
            "feedback",
            "send_goal_service",
            "get_result_service",
            "feedback_message"
        ]
    );
    for part in [
        "tf2_msgs/action/LookupTransform_SendGoal\"",
        "tf2_msgs/action/LookupTransform_SendGoal_Event\"",
        "tf2_msgs/action/LookupTransform_GetResult_Request\"",
        "tf2_msgs/action/LookupTransform_FeedbackMessage\"",
        "unique_identifier_msgs/msg/UUID\"",
        "service_msgs/msg/ServiceEventInfo\"",
    ] {
        assert!(
            json.contains(&format!("{{\"type_name\": \"{part}")),
            "{part} missing"
        );
    }
}

#[test]
fn a_service_hash_without_service_event_info_is_an_error_naming_it() {
    let registry = Registry::bundled_ref(Distro::Humble);
    let err = registry
        .type_hash(&name("std_srvs/srv/SetBool"))
        .unwrap_err();
    match &err {
        IdlResolveError::UnresolvedField { missing, field, .. } => {
            assert_eq!(missing.to_string(), "service_msgs/msg/ServiceEventInfo");
            assert_eq!(field, "info");
        }
        other => panic!("unexpected {other:?}"),
    }
    assert!(registry.type_hash(&name("std_msgs/msg/String")).is_ok());
}

#[test]
fn unknown_types_and_unresolved_fields_are_errors() {
    let mut registry = Registry::empty();
    let missing = registry.type_hash(&name("nope/msg/Nothing")).unwrap_err();
    assert!(
        matches!(missing, IdlResolveError::UnknownType { .. }),
        "{missing:?}"
    );
    registry
        .add_msg_text(name("a/msg/A"), "b/B inner\n", "A.msg")
        .unwrap();
    let err = registry.type_hash(&name("a/msg/A")).unwrap_err();
    assert_eq!(
        err.to_string(),
        "field `inner` of `a/msg/A` has unknown type `b/msg/B`: load the package that defines it"
    );
}

#[test]
fn wstrings_and_bounded_strings_in_arrays_add_the_array_offset() {
    let mut registry = Registry::empty();
    let t = name("p/msg/T");
    registry
        .add_msg_text(
            t.clone(),
            "wstring a\nwstring<=4 b\nstring<=3[2] c\nstring<=3[<=5] d\nbyte[] e\n",
            "T.msg",
        )
        .unwrap();
    let json = registry.type_description_json(&t).unwrap();
    for expected in [
        r#""a", "type": {"type_id": 18, "capacity": 0, "string_capacity": 0"#,
        r#""b", "type": {"type_id": 22, "capacity": 0, "string_capacity": 4"#,
        r#""c", "type": {"type_id": 69, "capacity": 2, "string_capacity": 3"#,
        r#""d", "type": {"type_id": 117, "capacity": 5, "string_capacity": 3"#,
        r#""e", "type": {"type_id": 160, "capacity": 0, "string_capacity": 0"#,
    ] {
        assert!(json.contains(expected), "{expected} not in {json}");
    }
    assert!(matches!(
        registry.message(&t).unwrap().fields[0].ty.base,
        BaseType::WString { bound: None }
    ));
}

/// True if `name` contains a `char` field, directly or through nested types.
fn has_char(registry: &Registry, name: &TypeName, seen: &mut BTreeSet<TypeName>) -> bool {
    if !seen.insert(name.clone()) {
        return false;
    }
    let def = registry.message(name).unwrap();
    def.fields.iter().any(|f| match &f.ty.base {
        BaseType::Primitive(Primitive::Char) => true,
        BaseType::Named(n) => has_char(registry, n, seen),
        _ => false,
    })
}

/// The packages copied from upstream by scripts/vendor_interfaces.sh.
const VENDORED: [&str; 2] = ["test_msgs", "example_interfaces"];

#[test]
fn jazzy_hashes_match_rosbags_for_every_message_without_char() {
    let expected = include_str!("data/rihs01_jazzy.txt");
    let registry = Registry::bundled_ref(Distro::Jazzy);
    let mut checked = 0;
    let mut missing = Vec::new();
    for line in expected
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
    {
        let (type_name, hash) = line.split_once(' ').unwrap();
        let type_name = name(type_name);
        if registry.message(&type_name).is_none() {
            missing.push(type_name.to_string());
            continue;
        }
        assert_eq!(registry.type_hash(&type_name).unwrap(), hash, "{type_name}");
        checked += 1;
    }
    // every bundled message without `char` is in the rosbags table
    let table: BTreeSet<&str> = expected
        .lines()
        .filter_map(|l| l.split(' ').next())
        .collect();
    // (The vendored packages are not in rosbags' store: see below.)
    for def in registry.messages().filter(|m| {
        m.name.kind == InterfaceKind::Msg && !VENDORED.contains(&m.name.package.as_str())
    }) {
        if !has_char(registry, &def.name, &mut BTreeSet::new()) {
            assert!(
                table.contains(def.name.to_string().as_str()),
                "{} not in the rosbags table",
                def.name
            );
        }
    }
    assert!(
        checked >= 140,
        "only {checked} hashes checked; not bundled: {missing:?}"
    );
}

/// The vendored packages (scripts/vendor_interfaces.sh): test_msgs against the
/// hashes rosidl wrote into the ros-jazzy-test-msgs wheel, example_interfaces'
/// messages against rosbags (tests/gen_rihs01_vendored.py).
#[test]
fn vendored_packages_hash_as_rosidl_and_rosbags_do() {
    let expected = include_str!("data/rihs01_vendored_jazzy.txt");
    let registry = Registry::bundled_ref(Distro::Jazzy);
    let mut wrong = Vec::new();
    let mut checked = 0;
    for line in expected.lines().filter(|l| !l.starts_with('#')) {
        let mut words = line.split(' ');
        let (Some(type_name), Some(hash)) = (words.next(), words.next()) else {
            panic!("bad line {line:?}");
        };
        match registry.type_hash(&name(type_name)) {
            Ok(ours) if ours == hash => checked += 1,
            other => wrong.push(format!("{type_name}: {other:?}, expected {hash}")),
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    // Every test_msgs type of the wheel, and example_interfaces' messages
    // but Char and WString.
    assert_eq!(checked, 78);
}

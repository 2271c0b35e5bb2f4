//! The concatenated `ros2msg` form: generating it, reading it back, and
//! agreeing with rosbags' `generate_msgdef` (tests/data/msgdef_jazzy.txt).
//!
//! rosbags writes definitions regenerated from its parse tree (no comments,
//! `MSG: pkg/Type`), while we write the original text and `MSG: pkg/msg/Type`,
//! so the comparison is structural: the same types in the same order, each
//! with the same fields and constants.

use hibari_idl::{Distro, MessageDef, Registry, TypeName};

const SEPARATOR: &str =
    "================================================================================";

fn name(text: &str) -> TypeName {
    TypeName::parse(text).unwrap()
}

/// The type names of the `MSG:` blocks of a concatenated definition.
fn block_names(text: &str) -> Vec<TypeName> {
    text.lines()
        .filter_map(|l| l.strip_prefix("MSG: "))
        .map(name)
        .collect()
}

/// Fields and constants without comments, for comparing definitions.
fn layout(def: &MessageDef) -> (Vec<(String, String)>, Vec<String>) {
    let fields = def
        .fields
        .iter()
        .map(|f| (f.name.clone(), format!("{:?}", f.ty)))
        .collect();
    let constants = def
        .constants
        .iter()
        .map(|c| format!("{} {:?} {:?}", c.name, c.ty, c.value))
        .collect();
    (fields, constants)
}

fn rosbags_blocks() -> Vec<(TypeName, &'static str)> {
    include_str!("data/msgdef_jazzy.txt")
        .split("@@@ ")
        .filter(|b| !b.is_empty())
        .map(|block| {
            let (type_name, text) = block.split_once('\n').unwrap();
            (name(type_name), text)
        })
        .collect()
}

#[test]
fn msgdef_text_lists_the_same_dependencies_in_the_same_order_as_rosbags() {
    let registry = Registry::bundled_ref(Distro::Jazzy);
    let blocks = rosbags_blocks();
    assert!(blocks.len() >= 10);
    for (type_name, rosbags_text) in blocks {
        let ours = registry.msgdef_text(&type_name).unwrap();
        assert_eq!(block_names(&ours), block_names(rosbags_text), "{type_name}");
        assert!(ours.starts_with(&registry.message(&type_name).unwrap().source));
    }
}

#[test]
fn rosbags_definitions_read_back_to_the_bundled_layouts() {
    let bundled = Registry::bundled_ref(Distro::Jazzy);
    for (type_name, rosbags_text) in rosbags_blocks() {
        let mut parsed = Registry::empty();
        parsed
            .add_concatenated(type_name.clone(), rosbags_text)
            .unwrap();
        let mut names = vec![type_name.clone()];
        names.extend(block_names(rosbags_text));
        assert_eq!(parsed.messages().count(), names.len(), "{type_name}");
        for n in names {
            assert_eq!(
                layout(parsed.message(&n).unwrap()),
                layout(bundled.message(&n).unwrap()),
                "{n} inside {type_name}"
            );
        }
        parsed.validate().unwrap();
    }
}

#[test]
fn msgdef_text_reads_back_to_identical_definitions() {
    let bundled = Registry::bundled_ref(Distro::Jazzy);
    for top in [
        "sensor_msgs/msg/Image",
        "visualization_msgs/msg/MarkerArray",
        "std_msgs/msg/Empty",
    ] {
        let top = name(top);
        let text = bundled.msgdef_text(&top).unwrap();
        let mut parsed = Registry::empty();
        parsed.add_concatenated(top.clone(), &text).unwrap();
        for def in parsed.messages() {
            let original = bundled.message(&def.name).unwrap();
            assert_eq!(def.fields, original.fields, "{}", def.name);
            assert_eq!(def.constants, original.constants, "{}", def.name);
        }
        assert_eq!(
            parsed.type_hash(&top).unwrap(),
            bundled.type_hash(&top).unwrap()
        );
    }
}

#[test]
fn msgdef_text_separates_blocks_with_80_equals_and_the_full_name() {
    let registry = Registry::bundled_ref(Distro::Jazzy);
    let text = registry.msgdef_text(&name("std_msgs/msg/Header")).unwrap();
    let time = &registry
        .message(&name("builtin_interfaces/msg/Time"))
        .unwrap()
        .source;
    let header = &registry
        .message(&name("std_msgs/msg/Header"))
        .unwrap()
        .source;
    assert_eq!(
        text,
        format!("{header}{SEPARATOR}\nMSG: builtin_interfaces/msg/Time\n{time}")
    );
    assert_eq!(
        registry.msgdef_text(&name("std_msgs/msg/String")).unwrap(),
        registry
            .message(&name("std_msgs/msg/String"))
            .unwrap()
            .source
    );
}

#[test]
fn each_dependency_is_written_once_even_when_used_twice() {
    let registry = Registry::bundled_ref(Distro::Jazzy);
    let text = registry
        .msgdef_text(&name("geometry_msgs/msg/PoseWithCovarianceStamped"))
        .unwrap();
    assert_eq!(text.matches("MSG: geometry_msgs/msg/Point\n").count(), 1);
}

#[test]
fn service_event_messages_have_a_msgdef_text() {
    let registry = Registry::bundled_ref(Distro::Jazzy);
    let text = registry
        .msgdef_text(&name("std_srvs/srv/SetBool_Event"))
        .unwrap();
    assert_eq!(
        block_names(&text),
        [
            name("service_msgs/msg/ServiceEventInfo"),
            name("builtin_interfaces/msg/Time"),
            name("std_srvs/srv/SetBool_Request"),
            name("std_srvs/srv/SetBool_Response"),
        ]
    );
    let err = registry
        .msgdef_text(&name("std_srvs/srv/SetBool"))
        .unwrap_err();
    assert!(err.to_string().contains("not a message"), "{err}");
}

#[test]
fn concatenated_text_accepts_both_name_forms_and_duplicate_blocks() {
    let text = format!(
        "a/B b\na/C c\n{SEPARATOR}\nMSG: a/B\nint32 x\n{SEPARATOR}\nMSG: a/msg/C\nint8 y\n{SEPARATOR}\nMSG: a/B\nint32 x\n"
    );
    let mut registry = Registry::empty();
    registry.add_concatenated(name("a/msg/A"), &text).unwrap();
    assert_eq!(registry.messages().count(), 3);
    registry.validate().unwrap();
    assert_eq!(registry.message_str("a/B").unwrap().source, "int32 x\n");
}

#[test]
fn concatenated_text_errors_point_at_the_line_in_the_whole_text() {
    let mut registry = Registry::empty();
    let text = format!("a/B b\n{SEPARATOR}\nMSG: a/B\nint32 x\nfloat99 y\n");
    let err = registry
        .add_concatenated(name("a/msg/A"), &text)
        .unwrap_err();
    assert_eq!((err.line, err.column), (5, 1), "{err}");
    assert!(
        err.to_string()
            .starts_with("a/msg/A:5:1: unknown type `float99`"),
        "{err}"
    );
    assert!(registry.is_empty(), "nothing is added on error");

    let bad_header = format!("a/B b\n{SEPARATOR}\nIDL: a/msg/B\n");
    let err = registry
        .add_concatenated(name("a/msg/A"), &bad_header)
        .unwrap_err();
    assert_eq!(err.line, 3);
    assert!(err.message.contains("ros2idl"), "{err}");

    let bad_name = format!("a/B b\n{SEPARATOR}\nMSG: nonsense\n");
    let err = registry
        .add_concatenated(name("a/msg/A"), &bad_name)
        .unwrap_err();
    assert_eq!((err.line, err.column), (3, 6));
}

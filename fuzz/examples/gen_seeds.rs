//! Writes the checked-in seed corpus, `fuzz/seeds/<target>/`:
//!   cd fuzz && cargo run --example gen_seeds
//!
//! A handful of realistic messages (the types robots send most: String,
//! Image, PointCloud2, LaserScan, Marker, TFMessage, DiagnosticArray,
//! JointState), each prefixed with the 2 bytes that select its type (see
//! `hibari_fuzz::split`). The three CDR targets get the same CDR seeds plus a
//! big-endian one; `json_decode` gets each message as rosbridge JSON.

use std::fs;
use std::path::Path;

use hibari_fuzz::prefix;
use hibari_idl::{model::TypeName, Distro, Registry};
use hibari_msgs::jazzy::{
    builtin_interfaces, diagnostic_msgs, geometry_msgs, sensor_msgs, std_msgs,
};
use hibari_msgs::jazzy::{tf2_msgs, visualization_msgs};
use hibari_msgs::Message;

fn header(frame: &str) -> std_msgs::msg::Header {
    std_msgs::msg::Header {
        stamp: builtin_interfaces::msg::Time {
            sec: 1_700_000_000,
            nanosec: 123_456_789,
        },
        frame_id: frame.into(),
    }
}

fn seed<M: Message>(m: &M) -> (&'static str, Vec<u8>) {
    (M::TYPE_NAME, m.to_cdr().expect("seed encodes"))
}

fn main() {
    use geometry_msgs::msg::{Point, Quaternion, Transform, TransformStamped, Vector3};
    let rot = Quaternion {
        x: 0.0,
        y: 0.0,
        z: std::f64::consts::FRAC_1_SQRT_2,
        w: std::f64::consts::FRAC_1_SQRT_2,
    };
    let seeds: Vec<(&str, (&'static str, Vec<u8>))> = vec![
        (
            "string",
            seed(&std_msgs::msg::String {
                data: "hello, hibari".into(),
            }),
        ),
        (
            "image_mono8",
            seed(&sensor_msgs::msg::Image {
                header: header("camera"),
                height: 2,
                width: 3,
                encoding: "mono8".into(),
                step: 3,
                data: vec![0, 1, 2, 253, 254, 255],
                ..Default::default()
            }),
        ),
        (
            "pointcloud2_xyz",
            seed(&sensor_msgs::msg::PointCloud2 {
                header: header("lidar"),
                height: 1,
                width: 1,
                fields: ["x", "y", "z"]
                    .iter()
                    .enumerate()
                    .map(|(i, n)| sensor_msgs::msg::PointField {
                        name: (*n).into(),
                        offset: 4 * i as u32,
                        datatype: 7,
                        count: 1,
                    })
                    .collect(),
                point_step: 12,
                row_step: 12,
                data: [1.0f32, -2.5, 3.25]
                    .iter()
                    .flat_map(|f| f.to_le_bytes())
                    .collect(),
                is_dense: true,
                ..Default::default()
            }),
        ),
        (
            "laserscan",
            seed(&sensor_msgs::msg::LaserScan {
                header: header("laser"),
                angle_min: -1.5,
                angle_max: 1.5,
                angle_increment: 1.0,
                range_max: 30.0,
                ranges: vec![1.0, f32::INFINITY, 2.5, 0.25],
                intensities: vec![100.0, 0.0, 50.0, 7.0],
                ..Default::default()
            }),
        ),
        (
            "marker",
            seed(&visualization_msgs::msg::Marker {
                header: header("map"),
                ns: "path".into(),
                id: 7,
                r#type: 4,
                points: vec![
                    Point {
                        x: 1.0,
                        y: 2.0,
                        z: 3.0,
                    },
                    Point::default(),
                ],
                text: "waypoints".into(),
                ..Default::default()
            }),
        ),
        (
            "tfmessage",
            seed(&tf2_msgs::msg::TFMessage {
                transforms: vec![
                    TransformStamped {
                        header: header("odom"),
                        child_frame_id: "base_link".into(),
                        transform: Transform {
                            translation: Vector3 {
                                x: 1.0,
                                y: 0.5,
                                z: 0.0,
                            },
                            rotation: rot.clone(),
                        },
                    },
                    TransformStamped {
                        header: header("map"),
                        child_frame_id: "odom".into(),
                        ..Default::default()
                    },
                ],
            }),
        ),
        (
            "diagnostics",
            seed(&diagnostic_msgs::msg::DiagnosticArray {
                header: header(""),
                status: vec![diagnostic_msgs::msg::DiagnosticStatus {
                    level: 1,
                    name: "motor".into(),
                    message: "hot".into(),
                    hardware_id: "m0".into(),
                    values: vec![diagnostic_msgs::msg::KeyValue {
                        key: "temp".into(),
                        value: "81".into(),
                    }],
                }],
            }),
        ),
        (
            "jointstate",
            seed(&sensor_msgs::msg::JointState {
                header: header("arm"),
                name: vec!["shoulder".into(), "elbow".into()],
                position: vec![0.5, -1.25],
                velocity: vec![0.0, 0.1],
                effort: vec![],
            }),
        ),
    ];

    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("seeds");
    let reg = Registry::bundled_ref(Distro::Jazzy);
    let write = |target: &str, file: &str, pre: [u8; 2], body: &[u8]| {
        let dir = root.join(target);
        fs::create_dir_all(&dir).unwrap();
        fs::write(dir.join(file), [&pre[..], body].concat()).unwrap();
    };
    for (file, (ty, cdr)) in &seeds {
        for target in ["typed_decode", "view_decode", "dynamic_decode"] {
            write(target, file, prefix(ty), cdr);
        }
        let tn = TypeName::parse(ty).unwrap();
        let value = hibari_dynamic::decode(reg, &tn, cdr).expect("seed decodes dynamically");
        let json = hibari_dynamic::to_json_string(reg, &tn, &value);
        write(
            "json_decode",
            &format!("{file}.json"),
            prefix(ty),
            json.as_bytes(),
        );
    }
    // One big-endian payload (`00 00` header): readers accept both orders.
    let be = [&[0u8, 0, 0, 0][..], &6u32.to_be_bytes(), b"hello\0"].concat();
    for target in ["typed_decode", "view_decode", "dynamic_decode"] {
        write(
            target,
            "string_big_endian",
            prefix("std_msgs/msg/String"),
            &be,
        );
    }
    println!("wrote seeds to {}", root.display());
}

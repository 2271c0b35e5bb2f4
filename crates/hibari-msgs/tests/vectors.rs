//! The byte vectors of shared/specs/interop.md §1.8 (produced by rosbags and
//! checked against a second serializer), encoded and decoded by the generated types.

use hibari_msgs::builtin_interfaces::msg::Time;
use hibari_msgs::geometry_msgs::msg::{Point32, Twist, Vector3};
use hibari_msgs::sensor_msgs::msg::{Image, Imu, LaserScan, PointCloud2, PointField};
use hibari_msgs::std_msgs::msg::{Empty, Header, String as RosString};
use hibari_msgs::Message;
use sha2::{Digest, Sha256};

fn hex(s: &str) -> Vec<u8> {
    let digits: String = s.split_whitespace().collect();
    (0..digits.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&digits[i..i + 2], 16).unwrap())
        .collect()
}

fn sha(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn stamp() -> Time {
    Time {
        sec: 1_700_000_000,
        nanosec: 123_456_789,
    }
}

fn header(frame: &str) -> Header {
    Header {
        stamp: stamp(),
        frame_id: frame.into(),
    }
}

#[test]
fn string_hello_matches_ros2_bytes_and_both_byte_orders_decode() {
    let msg = RosString {
        data: "hello".into(),
    };
    let le = hex("00 01 00 00 06 00 00 00 68 65 6c 6c 6f 00");
    assert_eq!(msg.to_cdr().unwrap(), le);
    assert_eq!(
        sha(&le),
        "f32ffad0b5a8dc1a47705571beb514477fe0c6b55a2062bcd0e7dd98bfd0b7ed"
    );
    assert_eq!(RosString::from_cdr(&le).unwrap(), msg);
    let be = hex("00 00 00 00 00 00 00 06 68 65 6c 6c 6f 00");
    assert_eq!(RosString::from_cdr(&be).unwrap(), msg);
    let empty = hex("00 01 00 00 01 00 00 00 00");
    assert_eq!(RosString::default().to_cdr().unwrap(), empty);
}

#[test]
fn a_zero_length_string_reads_as_empty_like_fast_cdr() {
    let bytes = hex("00 01 00 00 00 00 00 00");
    assert_eq!(RosString::from_cdr(&bytes).unwrap().data, "");
}

#[test]
fn empty_message_is_one_zero_byte() {
    assert_eq!(Empty::default().to_cdr().unwrap(), hex("00 01 00 00 00"));
    Empty::from_cdr(&hex("00 01 00 00 00")).unwrap();
}

#[test]
fn time_and_header_match_both_byte_orders() {
    assert_eq!(
        stamp().to_cdr().unwrap(),
        hex("00 01 00 00 00 f1 53 65 15 cd 5b 07")
    );
    assert_eq!(
        Time::from_cdr(&hex("00 00 00 00 65 53 f1 00 07 5b cd 15")).unwrap(),
        stamp()
    );
    assert_eq!(
        header("cam").to_cdr().unwrap(),
        hex("00 01 00 00 00 f1 53 65 15 cd 5b 07 04 00 00 00 63 61 6d 00")
    );
}

#[test]
fn twist_matches_the_vector() {
    let t = Twist {
        linear: Vector3 {
            x: 1.0,
            y: 2.0,
            z: 3.0,
        },
        angular: Vector3 {
            x: 0.0,
            y: 0.0,
            z: 0.5,
        },
    };
    let bytes = t.to_cdr().unwrap();
    assert_eq!(bytes.len(), 52);
    assert_eq!(
        sha(&bytes),
        "4553b7668017d892c6922f0dd3da2b2994700e68dfcbed6acdf50f1f89f1ded9"
    );
    assert_eq!(Twist::from_cdr(&bytes).unwrap(), t);
}

pub fn laser_scan() -> LaserScan {
    LaserScan {
        header: header("laser"),
        angle_min: -1.5,
        angle_max: 1.5,
        angle_increment: 0.25,
        time_increment: 0.0,
        scan_time: 0.1,
        range_min: 0.1,
        range_max: 30.0,
        ranges: (1..=10).map(|i| i as f32).collect(),
        intensities: vec![],
    }
}

#[test]
fn laser_scan_matches_the_vector() {
    let expected = hex("00 01 00 00 00 f1 53 65 15 cd 5b 07 06 00 00 00
         6c 61 73 65 72 00 00 00 00 00 c0 bf 00 00 c0 3f
         00 00 80 3e 00 00 00 00 cd cc cc 3d cd cc cc 3d
         00 00 f0 41 0a 00 00 00 00 00 80 3f 00 00 00 40
         00 00 40 40 00 00 80 40 00 00 a0 40 00 00 c0 40
         00 00 e0 40 00 00 00 41 00 00 10 41 00 00 20 41
         00 00 00 00");
    let bytes = laser_scan().to_cdr().unwrap();
    assert_eq!(bytes, expected);
    assert_eq!(
        sha(&bytes),
        "6cbecd6e04465315f68024ccaf6aa83dacfc5a89e4af65736c3af23882f74e1e"
    );
    assert_eq!(LaserScan::from_cdr(&bytes).unwrap(), laser_scan());
}

pub fn point_cloud() -> PointCloud2 {
    let field = |name: &str, offset| PointField {
        name: name.into(),
        offset,
        datatype: PointField::FLOAT32,
        count: 1,
    };
    PointCloud2 {
        header: header("map"),
        height: 1,
        width: 2,
        fields: vec![field("x", 0), field("y", 4), field("z", 8)],
        is_bigendian: false,
        point_step: 12,
        row_step: 24,
        data: [1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0]
            .iter()
            .flat_map(|f| f.to_le_bytes())
            .collect(),
        is_dense: true,
    }
}

#[test]
fn point_cloud2_matches_the_vector() {
    let bytes = point_cloud().to_cdr().unwrap();
    assert_eq!(bytes.len(), 133);
    assert_eq!(
        sha(&bytes),
        "569910e09a86be4c69510014c4edbcafc75f9fb9fcf9e1d997396825fb4f19db"
    );
    assert_eq!(PointCloud2::from_cdr(&bytes).unwrap(), point_cloud());
}

pub fn image_640x480() -> Image {
    Image {
        header: header("cam"),
        height: 480,
        width: 640,
        encoding: "rgb8".into(),
        is_bigendian: 0,
        step: 1920,
        data: (0..921_600usize).map(|i| i as u8).collect(),
    }
}

#[test]
fn image_640x480_matches_the_vector() {
    let bytes = image_640x480().to_cdr().unwrap();
    assert_eq!(bytes.len(), 921_648);
    assert_eq!(
        sha(&bytes),
        "54067ac326c619b51676e5fa0293e6213e7af9609870066d57af55c7a3d65beb"
    );
    assert_eq!(Image::from_cdr(&bytes).unwrap(), image_640x480());
}

#[test]
fn imu_of_nested_float64_structs_is_316_bytes() {
    let mut imu = Imu {
        header: header("imu"),
        ..Default::default()
    };
    imu.orientation.w = 1.0;
    imu.angular_velocity = Vector3 {
        x: 0.1,
        y: 0.2,
        z: 0.3,
    };
    imu.linear_acceleration.z = 9.81;
    let bytes = imu.to_cdr().unwrap();
    assert_eq!(bytes.len(), 316);
    assert_eq!(Imu::from_cdr(&bytes).unwrap(), imu);
}

#[test]
fn nonzero_padding_is_never_checked() {
    // "laser\0" ends at payload 18; payload 18..20 is padding (file 22..24).
    let mut bytes = laser_scan().to_cdr().unwrap();
    bytes[22] = 0x73;
    bytes[23] = 0xff;
    assert_eq!(LaserScan::from_cdr(&bytes).unwrap(), laser_scan());
}

#[test]
fn up_to_three_trailing_bytes_are_accepted_and_four_are_not() {
    let mut bytes = RosString {
        data: "hello".into(),
    }
    .to_cdr()
    .unwrap();
    for _ in 0..3 {
        bytes.push(0);
        RosString::from_cdr(&bytes).unwrap();
    }
    bytes.push(0);
    assert!(RosString::from_cdr(&bytes).is_err());
}

#[test]
fn point32_sequences_align_each_element() {
    let p = Point32 {
        x: 1.0,
        y: 2.0,
        z: 3.0,
    };
    assert_eq!(
        p.to_cdr().unwrap(),
        hex("00 01 00 00 00 00 80 3f 00 00 00 40 00 00 40 40")
    );
}

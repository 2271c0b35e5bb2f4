//! A user's own package, generated at build time, behaves like the bundled
//! ones: the Layout vector of interop.md §1.8, defaults, constants, bounds,
//! services and actions.

use hibari::Message;
use hibari::{HasView, MessageView};
use hibari_test_msgs::test_msgs::action::{Fibonacci, Fibonacci_Goal, Fibonacci_SendGoal_Request};
use hibari_test_msgs::test_msgs::msg::{Defaults, Empty, Layout, Nested};
use hibari_test_msgs::test_msgs::srv::{AddTwoInts, AddTwoInts_Request};

fn hex(s: &str) -> Vec<u8> {
    let d: String = s.split_whitespace().collect();
    (0..d.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&d[i..i + 2], 16).unwrap())
        .collect()
}

fn layout() -> Layout {
    Layout {
        flag: true,
        big: -2,
        small: 0xBEEF,
        name: "abc".into(),
        fixed: [1, 2, 3],
        bounded: vec![7, 8],
        names: vec!["a".into(), "bc".into()],
        pts: vec![hibari::msg::geometry_msgs::msg::Point32 {
            x: 1.0,
            y: 2.0,
            z: 3.0,
        }],
        last: 1.5,
    }
}

#[test]
fn layout_exerciser_matches_the_100_byte_vector() {
    let expected = hex("00 01 00 00 01 00 00 00 00 00 00 00 fe ff ff ff
         ff ff ff ff ef be 00 00 04 00 00 00 61 62 63 00
         01 00 00 00 02 00 00 00 03 00 00 00 02 00 00 00
         07 00 00 00 08 00 00 00 02 00 00 00 02 00 00 00
         61 00 00 00 03 00 00 00 62 63 00 00 01 00 00 00
         00 00 80 3f 00 00 00 40 00 00 40 40 00 00 00 00
         00 00 f8 3f");
    let bytes = layout().to_cdr().unwrap();
    assert_eq!(bytes, expected);
    assert_eq!(Layout::from_cdr(&bytes).unwrap(), layout());
    let view = Layout::view(&bytes).unwrap();
    assert_eq!(view.names, vec!["a", "bc"]);
    assert_eq!(view.to_owned_message(), layout());
}

#[test]
fn bounded_string_over_its_bound_is_refused_on_encode() {
    let mut m = layout();
    m.name = "eleven char".into();
    let err = m.to_cdr().unwrap_err();
    assert!(
        matches!(
            err,
            hibari::CdrEncodeError::BoundExceeded {
                field: "name",
                len: 11,
                bound: 10
            }
        ),
        "{err}"
    );
}

#[test]
fn bounded_sequence_over_its_bound_is_refused_on_encode() {
    let mut m = layout();
    m.bounded = vec![0; 6];
    let err = m.to_cdr().unwrap_err();
    assert!(
        matches!(
            err,
            hibari::CdrEncodeError::BoundExceeded {
                field: "bounded",
                len: 6,
                bound: 5
            }
        ),
        "{err}"
    );
}

#[test]
fn out_of_bound_values_are_accepted_on_read() {
    // interop.md §1.5: reject on write, accept on read. Lay out a Layout whose
    // `string<=10 name` holds 15 bytes and whose `int32[<=5]` holds 6 values.
    use hibari::cdr::CdrWriter;
    let mut w = CdrWriter::new(Vec::new()).unwrap();
    w.write(true).unwrap();
    w.write(-2i64).unwrap();
    w.write(0xBEEFu16).unwrap();
    w.write_str("name", "fifteen chars!!", None).unwrap();
    w.write_prim_slice(&[1i32, 2, 3]).unwrap();
    w.write_prim_seq("bounded", &[1i32, 2, 3, 4, 5, 6], None)
        .unwrap();
    w.write_seq_len("names", 0, None).unwrap();
    w.write_seq_len("pts", 0, None).unwrap();
    w.write(1.5f64).unwrap();
    let bytes = w.into_sink();
    let m = Layout::from_cdr(&bytes).unwrap();
    assert_eq!(m.name, "fifteen chars!!");
    assert_eq!(m.bounded.len(), 6);
    // ...but such a value cannot be sent on.
    assert!(m.to_cdr().is_err());
    for cut in 0..bytes.len() - 3 {
        assert!(
            Layout::from_cdr(&bytes[..cut]).is_err(),
            "prefix of {cut} bytes decoded"
        );
    }
}

#[test]
fn strings_with_nul_cannot_be_encoded() {
    let m = Layout {
        name: "a\0b".into(),
        ..layout()
    };
    assert!(matches!(
        m.to_cdr(),
        Err(hibari::CdrEncodeError::NulInString { field: "name" })
    ));
}

#[test]
fn defaults_and_constants_come_from_the_definition() {
    let d = Defaults::default();
    assert!(d.v_bool);
    assert_eq!(d.v_byte, 255);
    assert_eq!(d.v_char, 65);
    assert_eq!(d.v_float32, 1.5);
    assert_eq!(d.v_int64, -64);
    assert_eq!(d.v_uint64, 64);
    assert_eq!(d.v_string, "hello");
    assert_eq!(d.single, "single quoted");
    assert_eq!(d.s, "say \"hi\"");
    assert_eq!(d.bounded_str, "abc");
    assert_eq!(d.bounded_names, vec!["a".to_string(), "bc".to_string()]);
    assert_eq!(d.arr, [1, 2, 3]);
    assert_eq!(d.b, vec![1.5, -2.0]);
    assert_eq!(d.flags, [true, false]);
    const { assert!(Defaults::C_BOOL) };
    assert_eq!(Defaults::C_INT64, i64::MIN);
    assert_eq!(Defaults::C_UINT64, u64::MAX);
    assert_eq!(Defaults::C_HEX, 0x1f);
    assert_eq!(Defaults::C_FLOAT64, -2.5e-3);
    assert_eq!(Defaults::C_STRING, "hello world");
}

#[test]
fn wstring_fields_give_a_clear_error_instead_of_guessing_bytes() {
    let err = Defaults::default().to_cdr().unwrap_err();
    assert!(
        matches!(
            err,
            hibari::CdrEncodeError::WStringUnsupported { field: "w" }
        ),
        "{err}"
    );
}

#[test]
fn empty_user_message_is_one_byte_and_nested_types_resolve() {
    assert_eq!(Empty::default().to_cdr().unwrap(), hex("00 01 00 00 00"));
    let n = Nested {
        many: vec![layout(), layout()],
        c: b'x',
        b: 0xff,
        ..Default::default()
    };
    let bytes = n.to_cdr().unwrap();
    assert_eq!(Nested::from_cdr(&bytes).unwrap(), n);
    assert_eq!(Nested::view(&bytes).unwrap().to_owned_message(), n);
}

#[test]
fn services_and_actions_have_their_parts() {
    fn service<S: hibari::Service>() -> &'static str {
        S::TYPE_NAME
    }
    assert_eq!(service::<AddTwoInts>(), "test_msgs/srv/AddTwoInts");
    let req = AddTwoInts_Request { a: 2, b: 3 };
    assert_eq!(
        AddTwoInts_Request::from_cdr(&req.to_cdr().unwrap()).unwrap(),
        req
    );
    assert_eq!(<AddTwoInts as hibari::Service>::TYPE_HASH.len(), 71);
    fn action<A: hibari::Action>() -> &'static str {
        A::TYPE_NAME
    }
    assert_eq!(action::<Fibonacci>(), "test_msgs/action/Fibonacci");
    let goal = Fibonacci_SendGoal_Request {
        goal: Fibonacci_Goal { order: 10 },
        ..Default::default()
    };
    assert_eq!(
        Fibonacci_SendGoal_Request::from_cdr(&goal.to_cdr().unwrap()).unwrap(),
        goal
    );
}

//! The `.msg` language: every construct, and every error with its position.

use hibari_idl::{
    parse_msg, ArrayKind, BaseType, FieldType, IdlParseError, InterfaceKind, Literal, MessageDef,
    Primitive, TypeName,
};

fn owner() -> TypeName {
    TypeName::new("pkg", InterfaceKind::Msg, "Owner")
}

fn parse(text: &str) -> MessageDef {
    parse_msg(text, owner(), "Owner.msg").unwrap_or_else(|e| panic!("{e}"))
}

fn error(text: &str) -> IdlParseError {
    parse_msg(text, owner(), "Owner.msg").expect_err("should not parse")
}

/// Asserts an error's position and that its message mentions `needle`.
fn assert_error(text: &str, line: usize, column: usize, needle: &str) {
    let e = error(text);
    assert_eq!((e.line, e.column), (line, column), "{text:?}: {e}");
    assert!(
        e.message.contains(needle),
        "{text:?}: `{}` lacks `{needle}`",
        e.message
    );
}

fn default_of(text: &str) -> Literal {
    parse(text).fields[0].default.clone().expect("a default")
}

#[test]
fn all_primitives_strings_and_arrays_parse() {
    let def = parse(
        "bool a\nbyte b\nchar c\nint8 d\nuint8 e\nint16 f\nuint16 g\nint32 h\nuint32 i\n\
         int64 j\nuint64 k\nfloat32 l\nfloat64 m\nstring n\nwstring o\nstring<=5 p\n\
         wstring<=6 q\nint32[3] r\nint32[] s\nint32[<=4] t\nstring<=10[<=5] u\n",
    );
    assert_eq!(def.fields.len(), 21);
    let prims: Vec<BaseType> = def.fields[..13].iter().map(|f| f.ty.base.clone()).collect();
    let expected: Vec<BaseType> = [
        Primitive::Bool,
        Primitive::Byte,
        Primitive::Char,
        Primitive::Int8,
        Primitive::UInt8,
        Primitive::Int16,
        Primitive::UInt16,
        Primitive::Int32,
        Primitive::UInt32,
        Primitive::Int64,
        Primitive::UInt64,
        Primitive::Float32,
        Primitive::Float64,
    ]
    .into_iter()
    .map(BaseType::Primitive)
    .collect();
    assert_eq!(prims, expected);
    assert_eq!(def.fields[15].ty.base, BaseType::String { bound: Some(5) });
    assert_eq!(def.fields[16].ty.base, BaseType::WString { bound: Some(6) });
    assert_eq!(def.fields[17].ty.array, ArrayKind::Fixed(3));
    assert_eq!(def.fields[18].ty.array, ArrayKind::Unbounded);
    assert_eq!(def.fields[19].ty.array, ArrayKind::Bounded(4));
    assert_eq!(
        def.fields[20].ty,
        FieldType {
            base: BaseType::String { bound: Some(10) },
            array: ArrayKind::Bounded(5)
        }
    );
}

#[test]
fn nested_types_are_absolute_relative_or_time_aliases() {
    let def = parse("geometry_msgs/Point p\nOther o\ntime t\nduration d\n");
    let names: Vec<String> = def
        .fields
        .iter()
        .map(|f| match &f.ty.base {
            BaseType::Named(n) => n.to_string(),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(
        names,
        [
            "geometry_msgs/msg/Point",
            "pkg/msg/Other",
            "builtin_interfaces/msg/Time",
            "builtin_interfaces/msg/Duration"
        ]
    );
}

#[test]
fn the_source_text_is_kept_exactly() {
    let text = "# header\r\nint32 x  # trailing\r\n\n\tfloat64 y\n";
    assert_eq!(parse(text).source, text);
}

#[test]
fn constants_take_primitive_and_string_values() {
    let def = parse(
        "int8 A=-1\nuint8 B = 0xff\nbool C=True\nfloat64 D=1.5e3\nstring E=hello world\n\
         string F=\"quoted # not a comment\"\nchar G=65\nbyte H=0b11\nint64 I=-0o17 # comment\n",
    );
    let values: Vec<(&str, &Literal)> = def
        .constants
        .iter()
        .map(|c| (c.name.as_str(), &c.value))
        .collect();
    assert_eq!(
        values,
        [
            ("A", &Literal::Int(-1)),
            ("B", &Literal::Int(255)),
            ("C", &Literal::Bool(true)),
            ("D", &Literal::Float(1500.0)),
            ("E", &Literal::String("hello world".into())),
            ("F", &Literal::String("quoted # not a comment".into())),
            ("G", &Literal::Int(65)),
            ("H", &Literal::Int(3)),
            ("I", &Literal::Int(-15)),
        ]
    );
    assert_eq!(def.constants[8].comment, "comment");
    assert!(def.fields.is_empty());
}

#[test]
fn integer_defaults_accept_every_base_and_check_the_range() {
    assert_eq!(default_of("int32 x 42"), Literal::Int(42));
    assert_eq!(default_of("int32 x -0x10"), Literal::Int(-16));
    assert_eq!(
        default_of("uint64 x 18446744073709551615"),
        Literal::Int(u64::MAX as i128)
    );
    assert_eq!(default_of("int16 x 1_000"), Literal::Int(1000));
    assert_eq!(default_of("uint8 x 010"), Literal::Int(10));
    assert_error("int8 x 128", 1, 8, "from -128 to 127");
    assert_error("uint8 x -1", 1, 9, "from 0 to 255");
    assert_error("byte x 256", 1, 8, "from 0 to 255");
    assert_error("int32 x 1.5", 1, 9, "not a int32");
    assert_error("int64 x 9223372036854775808", 1, 9, "int64");
}

#[test]
fn bool_and_float_defaults_follow_rosidl() {
    for (text, value) in [("true", true), ("FALSE", false), ("1", true), ("0", false)] {
        assert_eq!(default_of(&format!("bool b {text}")), Literal::Bool(value));
    }
    assert_error("bool b yes", 1, 8, "`yes` is not a bool");
    assert_eq!(default_of("float32 f -2"), Literal::Float(-2.0));
    assert_eq!(default_of("float64 f .5"), Literal::Float(0.5));
    assert_eq!(default_of("float64 f 1e-3"), Literal::Float(0.001));
    assert!(matches!(default_of("float64 f inf"), Literal::Float(v) if v.is_infinite()));
    assert_error("float64 f 1,5", 1, 11, "decimal separator");
}

#[test]
fn string_defaults_may_be_quoted_either_way_or_not_at_all() {
    assert_eq!(
        default_of("string s \"a b\""),
        Literal::String("a b".into())
    );
    assert_eq!(
        default_of("string s 'it\\'s'"),
        Literal::String("it's".into())
    );
    assert_eq!(
        default_of("string s \"say \\\"hi\\\"\""),
        Literal::String("say \"hi\"".into())
    );
    assert_eq!(
        default_of("string s plain text"),
        Literal::String("plain text".into())
    );
    assert_eq!(
        default_of("string s \"tab\\there\""),
        Literal::String("tab\there".into())
    );
    assert_eq!(
        default_of("string s \"# kept\"  # dropped"),
        Literal::String("# kept".into())
    );
    assert_eq!(default_of("wstring w 'ü'"), Literal::String("ü".into()));
    assert_eq!(default_of("string<=3 s abc"), Literal::String("abc".into()));
    assert_error("string<=3 s abcd", 1, 13, "longer than its bound of 3");
    assert_error("string s \"a\"b\"", 1, 10, "must be escaped");
}

#[test]
fn array_defaults_are_size_checked() {
    let ints = |v: &[i128]| Literal::Array(v.iter().map(|i| Literal::Int(*i)).collect());
    assert_eq!(default_of("int32[] a [1, 2, 3]"), ints(&[1, 2, 3]));
    assert_eq!(default_of("int32[3] a [1,2,3]"), ints(&[1, 2, 3]));
    assert_eq!(default_of("int32[<=3] a []"), ints(&[]));
    assert_eq!(
        default_of("bool[2] a [true, 0]"),
        Literal::Array(vec![Literal::Bool(true), Literal::Bool(false)])
    );
    assert_error("int32[3] a [1, 2]", 1, 12, "exactly 3 elements, not 2");
    assert_error("int32[<=2] a [1, 2, 3]", 1, 14, "at most 2 elements, not 3");
    assert_error("int32[] a 1, 2", 1, 11, "`[a, b, c]`");
    assert_error("int8[] a [1, 300]", 1, 10, "element 1");
}

#[test]
fn string_array_defaults_split_on_commas_outside_quotes() {
    let strings =
        |v: &[&str]| Literal::Array(v.iter().map(|s| Literal::String(s.to_string())).collect());
    assert_eq!(
        default_of("string[] s [\"a, b\", 'c', d]"),
        strings(&["a, b", "c", "d"])
    );
    assert_eq!(default_of("string[] s [\"x\\\"y\"]"), strings(&["x\"y"]));
    assert_eq!(default_of("string[<=2] s []"), strings(&[]));
    assert_error(
        "string<=2[] s [\"abc\"]",
        1,
        15,
        "longer than its bound of 2",
    );
    assert_error("string[2] s [\"a\"]", 1, 13, "exactly 2 elements");
    assert_error("string[] s [\"a\" \"b\"]", 1, 12, "expected `,`");
    assert_error("string[] s [, \"a\"]", 1, 12, "missing before `,`");
    assert_error("string[] s [\"open]", 1, 12, "no closing");
}

#[test]
fn comments_attach_to_the_element_they_describe() {
    let def = parse(
        "# file comment\n# more file comment\n\n# leading one\n#  leading two\nint32 a  # trailing\n  # continued\n\nint32 b\n# for C\nuint8 C=1\n",
    );
    assert_eq!(
        def.fields[0].comment,
        "leading one\n leading two\ntrailing\ncontinued"
    );
    assert_eq!(def.fields[1].comment, "");
    assert_eq!(def.constants[0].comment, "for C");
}

#[test]
fn tabs_blank_lines_and_indentation_are_tolerated() {
    let def = parse("\n\tint32\tx\t\n   \n  float64 y 2.0\n");
    assert_eq!(def.fields.len(), 2);
    assert_eq!(def.fields[1].default, Some(Literal::Float(2.0)));
}

#[test]
fn an_empty_or_comment_only_message_has_no_fields() {
    assert!(parse("").fields.is_empty());
    assert!(parse("# nothing here\n").fields.is_empty());
}

#[test]
fn bad_types_are_reported_at_the_type() {
    assert_error("int32 a\nfloat99 b", 2, 1, "unknown type `float99`");
    assert_error("  int32[0] a", 1, 9, "array size `0`");
    assert_error("int32[<=x] a", 1, 9, "sequence bound `x`");
    assert_error("string<=0 a", 1, 9, "string bound `0`");
    assert_error("int32[3][2] a", 1, 1, "unknown type");
    assert_error("bad__pkg/Type a", 1, 1, "not a valid package name");
    assert_error("pkg/lower a", 1, 5, "unknown type `pkg/lower`");
    assert_error("a/b/C x", 1, 1, "two parts");
}

#[test]
fn bad_names_are_reported_at_the_name() {
    assert_error("int32 Bad", 1, 7, "not a valid field name");
    assert_error("int32 a__b", 1, 7, "not a valid field name");
    assert_error("int32 trailing_", 1, 7, "not a valid field name");
    assert_error("int32 lower=1", 1, 7, "not a valid constant name");
    assert_error("int32 A__B=1", 1, 7, "not a valid constant name");
    assert_error("int32", 1, 6, "needs a name");
    assert_error(
        "int32 a\nint32 b\nint32 a",
        3,
        7,
        "duplicate field name `a` (first defined on line 1)",
    );
    assert_error("int32 A=1\nint32 A=2", 2, 7, "duplicate constant name `A`");
}

#[test]
fn constants_must_be_single_primitives_or_strings() {
    assert_error("int32[2] A=1", 1, 1, "primitive or string type");
    assert_error("time A=1", 1, 1, "primitive or string type");
    assert_error("pkg/Other A=1", 1, 1, "primitive or string type");
    assert_error("uint8 A=300", 1, 9, "invalid constant value");
    assert_error("int8 A=", 1, 8, "invalid constant value");
}

#[test]
fn nested_types_cannot_have_defaults() {
    assert_error(
        "geometry_msgs/Point p 1",
        1,
        23,
        "only allowed for primitive and string fields",
    );
    assert_error("time t 0", 1, 8, "builtin_interfaces/msg/Time");
}

#[test]
fn columns_count_characters_not_bytes() {
    assert_error("string s 'é' # ü\nint32 Ü", 2, 7, "not a valid field name");
    assert_error("string<=1 s \"éé\"", 1, 13, "longer than its bound");
}

#[test]
fn errors_display_as_file_line_column_message() {
    let e = error("int32 a\nbogus b\n");
    assert_eq!(e.to_string(), format!("Owner.msg:2:1: {}", e.message));
    assert_eq!(e.file, "Owner.msg");
}

#[test]
fn invalid_owner_names_are_rejected_without_a_position() {
    let e = parse_msg(
        "int32 a",
        TypeName::new("Bad", InterfaceKind::Msg, "T"),
        "f",
    )
    .unwrap_err();
    assert_eq!((e.line, e.column), (0, 0));
    assert!(
        e.to_string()
            .starts_with("f: `Bad` is not a valid package name"),
        "{e}"
    );
    let e = parse_msg("", TypeName::new("ok", InterfaceKind::Msg, "lower"), "f").unwrap_err();
    assert!(e.message.contains("`lower` is not a valid msg name"), "{e}");
}

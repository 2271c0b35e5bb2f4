//! Parameters: declared with overrides, read, set, refused.

use super::*;

fn int(v: i64) -> hibari_parameter_value_t {
    hibari_parameter_value_t {
        r#type: HIBARI_PARAMETER_INTEGER,
        bool_value: false,
        integer_value: v,
        double_value: 0.0,
        string_value: null_mut(),
        array: null_mut(),
        array_len: 0,
    }
}

#[test]
fn a_declared_parameter_takes_the_value_of_its_ros_args_override() {
    let ctx = isolated(&["prog", "--ros-args", "-p", "x:=3"]);
    let n = node(ctx, "params");
    let mut value = int(0);
    // SAFETY: valid strings and values; the out-values are finished.
    unsafe {
        ok(hibari_node_declare_parameter(
            n,
            c("x").as_ptr(),
            &int(1),
            &mut value,
        ));
        assert_eq!(
            (value.r#type, value.integer_value),
            (HIBARI_PARAMETER_INTEGER, 3)
        );
        ok(hibari_node_declare_parameter(
            n,
            c("y").as_ptr(),
            &int(1),
            null_mut(),
        ));
        ok(hibari_node_get_parameter(n, c("y").as_ptr(), &mut value));
        assert_eq!(value.integer_value, 1);
        ok(hibari_node_set_parameter(n, c("y").as_ptr(), &int(5)));
        ok(hibari_node_get_parameter(n, c("y").as_ptr(), &mut value));
        assert_eq!(value.integer_value, 5);
        ok(hibari_parameter_value_fini(&mut value));
    }
    ok(hibari_context_destroy(ctx));
}

#[test]
fn undeclared_parameters_are_not_found_and_a_value_of_another_type_is_refused_with_the_reason() {
    let ctx = isolated(&[]);
    let n = node(ctx, "strict");
    let mut value = int(0);
    // SAFETY: valid strings and values.
    unsafe {
        assert_eq!(
            hibari_node_get_parameter(n, c("nope").as_ptr(), &mut value),
            hibari_ret_t::HIBARI_ERROR_NOT_FOUND
        );
        assert_eq!(
            hibari_node_set_parameter(n, c("nope").as_ptr(), &int(1)),
            hibari_ret_t::HIBARI_ERROR_NOT_FOUND
        );
        ok(hibari_node_declare_parameter(
            n,
            c("rate").as_ptr(),
            &int(30),
            null_mut(),
        ));
        let mut text = int(0);
        let s = c("fast");
        text.r#type = HIBARI_PARAMETER_STRING;
        text.string_value = s.as_ptr().cast_mut();
        assert_eq!(
            hibari_node_set_parameter(n, c("rate").as_ptr(), &text),
            hibari_ret_t::HIBARI_ERROR_INVALID_ARGUMENT
        );
        assert!(last_error().contains("rate"), "{}", last_error());
        let mut bad = int(0);
        bad.r#type = 77;
        assert_eq!(
            hibari_node_set_parameter(n, c("rate").as_ptr(), &bad),
            hibari_ret_t::HIBARI_ERROR_INVALID_ARGUMENT
        );
    }
    ok(hibari_context_destroy(ctx));
}

#[test]
fn arrays_and_strings_go_in_and_come_back_owned_by_the_caller() {
    let ctx = isolated(&[]);
    let n = node(ctx, "arrays");
    let (a, b) = (c("left"), c("right"));
    let strings = [a.as_ptr().cast_mut(), b.as_ptr().cast_mut()];
    let mut names = int(0);
    names.r#type = HIBARI_PARAMETER_STRING_ARRAY;
    names.array = strings.as_ptr().cast_mut().cast();
    names.array_len = 2;
    let doubles = [0.5f64, 1.5];
    let mut gains = int(0);
    gains.r#type = HIBARI_PARAMETER_DOUBLE_ARRAY;
    gains.array = doubles.as_ptr().cast_mut().cast();
    gains.array_len = 2;
    let mut out = int(0);
    // SAFETY: valid strings, arrays and values; each out-value finished once.
    unsafe {
        ok(hibari_node_declare_parameter(
            n,
            c("names").as_ptr(),
            &names,
            &mut out,
        ));
        assert_eq!(
            (out.r#type, out.array_len),
            (HIBARI_PARAMETER_STRING_ARRAY, 2)
        );
        let second = *out.array.cast::<*mut c_char>().add(1);
        assert_eq!(CStr::from_ptr(second).to_str().unwrap(), "right");
        ok(hibari_parameter_value_fini(&mut out));
        assert!(out.array.is_null());
        ok(hibari_node_declare_parameter(
            n,
            c("gains").as_ptr(),
            &gains,
            &mut out,
        ));
        assert_eq!(
            std::slice::from_raw_parts(out.array.cast::<f64>(), out.array_len),
            [0.5, 1.5]
        );
        ok(hibari_parameter_value_fini(&mut out));
    }
    ok(hibari_context_destroy(ctx));
}

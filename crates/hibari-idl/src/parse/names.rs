//! Name rules of the `.msg` language (rosidl_adapter's regular expressions,
//! written out by hand so the crate needs no regex engine).

/// Suffixes rosidl appends to derived type names (`Fibonacci_SendGoal_Request`).
const DERIVED_SUFFIXES: [&str; 9] = [
    "_Request",
    "_Response",
    "_Event",
    "_Goal",
    "_Result",
    "_Feedback",
    "_SendGoal",
    "_GetResult",
    "_FeedbackMessage",
];

/// `^(?!.*__)(?!.*_$)[a-z][a-z0-9_]*$`: package names and field names.
pub fn is_valid_package_name(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some('a'..='z'))
        && chars.all(|c| matches!(c, 'a'..='z' | '0'..='9' | '_'))
        && !name.contains("__")
        && !name.ends_with('_')
}

/// Field names follow the package-name rule (the relaxed ROS 1 pattern is
/// not used by rosidl).
pub fn is_valid_field_name(name: &str) -> bool {
    is_valid_package_name(name)
}

/// `^[A-Z][A-Za-z0-9]*$`, after stripping the suffixes of derived types.
pub fn is_valid_type_name(name: &str) -> bool {
    let mut base = name;
    while let Some(stripped) = DERIVED_SUFFIXES
        .iter()
        .find_map(|suffix| base.strip_suffix(suffix))
    {
        base = stripped;
    }
    let mut chars = base.chars();
    matches!(chars.next(), Some('A'..='Z')) && chars.all(|c| c.is_ascii_alphanumeric())
}

/// `^[A-Z]([A-Z0-9_]?[A-Z0-9]+)*$`: upper case, digits and single inner underscores.
pub fn is_valid_constant_name(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some('A'..='Z'))
        && chars.all(|c| matches!(c, 'A'..='Z' | '0'..='9' | '_'))
        && !name.contains("__")
        && !name.ends_with('_')
}

pub const PACKAGE_RULE: &str =
    "lowercase letters, digits and `_`, starting with a letter, without `__` or a trailing `_`";
pub const TYPE_RULE: &str = "a capital letter followed by letters and digits";
pub const CONSTANT_RULE: &str =
    "capital letters, digits and single `_`, starting with a letter and not ending with `_`";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn package_and_field_names_follow_the_rosidl_pattern() {
        for ok in ["a", "std_msgs", "x1_y2", "frame_id"] {
            assert!(is_valid_package_name(ok), "{ok}");
        }
        for bad in ["", "Std", "1a", "_a", "a_", "a__b", "a-b", "é"] {
            assert!(!is_valid_package_name(bad), "{bad}");
        }
    }

    #[test]
    fn type_names_may_carry_the_suffixes_of_derived_types() {
        for ok in [
            "Image",
            "A1",
            "AddTwoInts_Request",
            "Fibonacci_SendGoal_Request",
        ] {
            assert!(is_valid_type_name(ok), "{ok}");
        }
        for bad in ["", "image", "My_Type", "A-B", "_Request"] {
            assert!(!is_valid_type_name(bad), "{bad}");
        }
    }

    #[test]
    fn constant_names_allow_single_inner_underscores_only() {
        for ok in ["A", "STATUS_FIX", "A1_B2", "X_1"] {
            assert!(is_valid_constant_name(ok), "{ok}");
        }
        for bad in ["", "a", "A_", "A__B", "_A", "Ab", "1A"] {
            assert!(!is_valid_constant_name(bad), "{bad}");
        }
    }
}

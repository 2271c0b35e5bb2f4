fn main() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../interfaces");
    if let Err(e) = hibari_codegen::build(&[&root]) {
        panic!("generating test_msgs failed: {e}");
    }
}

//! The shared library's SONAME: it is installed as `libhibari.so`
//! (cpp/CMakeLists.txt), so programs linked against it record that name.
fn main() {
    println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libhibari.so");
}

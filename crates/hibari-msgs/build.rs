//! Generates `humble` and `jazzy` modules from the interfaces bundled in `hibari-idl`.

use hibari_idl::{Distro, Registry};

fn main() {
    let out = std::path::PathBuf::from(std::env::var_os("OUT_DIR").expect("OUT_DIR"));
    for distro in Distro::ALL {
        let registry: &Registry = Registry::bundled_ref(distro);
        if let Err(e) = registry.validate() {
            panic!(
                "bundled {} interfaces do not validate: {e}",
                distro.as_str()
            );
        }
        let mut packages: Vec<String> = registry
            .messages()
            .map(|m| m.name.package.clone())
            .collect();
        packages.dedup();
        let root = format!("crate::{}", distro.as_str());
        let code = hibari_codegen::Context::new(registry, packages, &root, &root).generate();
        std::fs::write(out.join(format!("{}.rs", distro.as_str())), code)
            .expect("write generated code");
    }
    println!("cargo:rerun-if-changed=build.rs");
}

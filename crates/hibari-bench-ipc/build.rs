//! Compiles `src/sys/jpeg.c` against the system's libjpeg (libjpeg-turbo on
//! Debian, package `libjpeg-dev`) when its header is there, and says so with
//! the cfg `libjpeg`; without it the bench encodes JPEG with the
//! `jpeg-encoder` crate and says which encoder each record used.

fn main() {
    println!("cargo::rustc-check-cfg=cfg(libjpeg)");
    println!("cargo::rerun-if-changed=src/sys/jpeg.c");
    let header = ["/usr/include/jpeglib.h", "/usr/local/include/jpeglib.h"]
        .iter()
        .any(|h| std::path::Path::new(h).exists());
    if !header {
        println!(
            "cargo::warning=jpeglib.h not found: JPEG series use the jpeg-encoder crate, not libjpeg-turbo (apt-get install libjpeg-dev)"
        );
        return;
    }
    cc::Build::new()
        .file("src/sys/jpeg.c")
        .opt_level(2)
        .compile("hibari_jpeg");
    println!("cargo::rustc-link-lib=jpeg");
    println!("cargo::rustc-cfg=libjpeg");
}

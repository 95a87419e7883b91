// The shared library carries an ABI-versioned SONAME, like any C library.
fn main() {
    let target_os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    if target_os == "linux" {
        println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libresample.so.1");
    }
    println!("cargo:rerun-if-changed=build.rs");
}

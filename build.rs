// The shared library carries an ABI-versioned SONAME, like any C library.
fn main() {
    // crates/dnnl1 compiles this same source with cfg(resample_dnnl1) (the DNNL 1.x ABI).
    println!("cargo::rustc-check-cfg=cfg(resample_dnnl1)");
    let target_os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    if target_os == "linux" {
        println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libresample.so.1");
    }
    println!("cargo:rerun-if-changed=build.rs");
}

// The shared library carries an ABI-versioned SONAME, like any C library.
fn main() {
    // crates/dnnl1 and crates/dnnl3 compile this same source with cfg(resample_dnnl1) (the
    // DNNL 1.x ABI) and cfg(resample_dnnl3) (oneDNN 3.x).
    println!("cargo::rustc-check-cfg=cfg(resample_dnnl1)");
    println!("cargo::rustc-check-cfg=cfg(resample_dnnl3)");
    let target_os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    if target_os == "linux" {
        println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libresample.so.1");
    }
    // The tests need to know whether they run cross-compiled (e.g. aarch64 under qemu-user):
    // the real libdnnl they compare against exists for the host only.
    for v in ["TARGET", "HOST"] {
        println!(
            "cargo:rustc-env=RESAMPLE_BUILD_{v}={}",
            std::env::var(v).unwrap_or_default()
        );
    }
    println!("cargo:rerun-if-changed=build.rs");
}

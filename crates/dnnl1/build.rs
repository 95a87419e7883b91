// Builds libdnnl.so.1: the main crate's source with cfg(resample_dnnl1), under the SONAME
// of DNNL 1.x so that binaries linked against a real libdnnl.so.1 load it unchanged.
fn main() {
    println!("cargo::rustc-check-cfg=cfg(resample_dnnl1)");
    println!("cargo::rustc-check-cfg=cfg(resample_dnnl3)");
    println!("cargo:rustc-cfg=resample_dnnl1");
    let target_os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    if target_os == "linux" {
        println!("cargo:rustc-link-arg-cdylib=-Wl,-soname,libdnnl.so.1");
    }
    println!("cargo:rerun-if-changed=build.rs");
}

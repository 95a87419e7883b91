// Builds libdnnl.so.3: the main crate's source with cfg(resample_dnnl3), under the SONAME
// of oneDNN 3.x so that binaries linked against a real libdnnl.so.3 load it unchanged.
fn main() {
    println!("cargo::rustc-check-cfg=cfg(resample_dnnl1)");
    println!("cargo::rustc-check-cfg=cfg(resample_dnnl3)");
    println!("cargo:rustc-cfg=resample_dnnl3");
    let target_os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    if target_os == "linux" {
        println!("cargo:rustc-link-arg-cdylib=-Wl,-soname,libdnnl.so.3");
    }
    // The tests skip the real libdnnl.so.3 on a cross-compiled run (it is the host's).
    for v in ["TARGET", "HOST"] {
        println!(
            "cargo:rustc-env=RESAMPLE_BUILD_{v}={}",
            std::env::var(v).unwrap_or_default()
        );
    }
    println!("cargo:rerun-if-changed=build.rs");
}

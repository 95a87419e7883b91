//! The committed C header must equal what cbindgen generates from the Rust sources.
//! Regenerate with `UPDATE_HEADER=1 cargo test --test header`.

use std::path::Path;

#[test]
fn header_is_fresh() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let config = cbindgen::Config::from_file(dir.join("cbindgen.toml")).expect("cbindgen.toml");
    let bindings = cbindgen::Builder::new()
        .with_crate(dir)
        .with_config(config)
        .generate()
        .expect("cbindgen failed to parse the crate");
    let mut generated = Vec::new();
    bindings.write(&mut generated);
    let path = dir.join("include/resample.h");
    if std::env::var_os("UPDATE_HEADER").is_some() {
        std::fs::write(&path, &generated).expect("write include/resample.h");
        return;
    }
    let committed = std::fs::read(&path).unwrap_or_default();
    assert!(
        committed == generated,
        "include/resample.h is stale: run `UPDATE_HEADER=1 cargo test --test header` and commit it"
    );
}

//! Whether the real oneDNN 2.6 (Debian's libdnnl-dev) is there to test against, and what a
//! test that needs it does when it is not.
//!
//! The rule:
//! - without libdnnl-dev, a test that needs it prints one SKIPPED line naming the package to
//!   install and passes (a fresh clone's `cargo test` stays green);
//! - `RESAMPLE_REQUIRE_ONEDNN=1` (set by `.ci/run`) turns that skip into a failure, so CI
//!   cannot lose its ground truth silently;
//! - a cross-compiled run (target != host, e.g. aarch64 under qemu-user) always skips what
//!   executes the real libdnnl, even with `RESAMPLE_REQUIRE_ONEDNN=1`: the installed libdnnl
//!   is the host's. Header-only uses (`dnnl.hpp`) still run there.
//!
//! `RESAMPLE_ASSUME_NO_ONEDNN=1` makes the tests behave as if libdnnl-dev were missing, to
//! test this path without uninstalling the package.

#![allow(dead_code)]

use std::io::Write as _;
use std::path::Path;

pub const PACKAGE: &str = "libdnnl-dev";
pub const INSTALL: &str = "apt-get install libdnnl-dev";

/// The test binary runs for another architecture than the one it was built on.
pub fn cross() -> bool {
    let (target, host) = (env!("RESAMPLE_BUILD_TARGET"), env!("RESAMPLE_BUILD_HOST"));
    target != host
}

/// `RESAMPLE_REQUIRE_ONEDNN=1`: a missing libdnnl-dev fails the test instead of skipping it.
pub fn required() -> bool {
    std::env::var("RESAMPLE_REQUIRE_ONEDNN").is_ok_and(|v| v == "1")
}

/// Why `path` (a file of libdnnl-dev) cannot be used, or None.
pub fn missing(path: &str) -> Option<String> {
    if std::env::var("RESAMPLE_ASSUME_NO_ONEDNN").is_ok_and(|v| v == "1") {
        return Some(format!(
            "{path} treated as missing (RESAMPLE_ASSUME_NO_ONEDNN=1)"
        ));
    }
    if !Path::new(path).exists() {
        return Some(format!("{path} is missing"));
    }
    None
}

/// Prints a SKIPPED line where `cargo test` shows it (libtest captures print!/eprint! of
/// passing tests, not direct writes to stderr).
pub fn skipped(line: &str) {
    let _ = writeln!(std::io::stderr(), "SKIPPED {line}");
}

/// Whether the real libdnnl (header `header` and `-ldnnl`) can be executed by this test run.
/// Ok(()) when it can; Err(reason) when the test must skip; panics when a skip is not
/// allowed (RESAMPLE_REQUIRE_ONEDNN=1 on a native run).
pub fn libdnnl_runnable(header: &str) -> Result<(), String> {
    if cross() {
        return Err(format!(
            "built for {}, and the installed libdnnl is the host's ({}): the differential \
             tests always skip on a cross-compiled run, RESAMPLE_REQUIRE_ONEDNN or not",
            env!("RESAMPLE_BUILD_TARGET"),
            env!("RESAMPLE_BUILD_HOST")
        ));
    }
    if let Some(why) = missing(header) {
        assert!(
            !required(),
            "RESAMPLE_REQUIRE_ONEDNN=1 but the real oneDNN 2.6 is not usable ({why}): `{INSTALL}`"
        );
        return Err(format!(
            "the real oneDNN 2.6 is not installed ({why}); to run them: `{INSTALL}`"
        ));
    }
    Ok(())
}

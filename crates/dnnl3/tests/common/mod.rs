//! What the libdnnl.so.3 tests share: where the real oneDNN 3.2 is (the pip wheels
//! `onednn-cpu-gomp` / `onednn-devel-cpu-gomp` 2023.2.0 under python3's `sys.prefix`, or
//! `$RESAMPLE_ONEDNN3_PREFIX`), the skip rule, the staged library directory and the C/C++
//! compiler.
//!
//! The rule (as tests/onednn_ground_truth for 2.6): without the wheels a test prints one
//! SKIPPED line naming them and passes; `RESAMPLE_REQUIRE_ONEDNN=1` or `CI=true` turns that
//! into a failure; a cross-compiled run always skips (the wheel is the host's).

#![allow(dead_code)]

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub const INSTALL: &str = "pip install onednn-cpu-gomp==2023.2.0 onednn-devel-cpu-gomp==2023.2.0";

/// The real oneDNN 3.2: `<prefix>/lib/libdnnl.so.3` and `<prefix>/include/oneapi/dnnl`.
pub struct Real {
    pub lib: PathBuf,
    pub include: PathBuf,
}

fn required() -> bool {
    std::env::var("RESAMPLE_REQUIRE_ONEDNN").is_ok_and(|v| v == "1")
        || std::env::var("CI").is_ok_and(|v| v == "true")
}

fn prefixes() -> Vec<PathBuf> {
    if let Some(p) = std::env::var_os("RESAMPLE_ONEDNN3_PREFIX") {
        return vec![PathBuf::from(p)];
    }
    let mut v = Vec::new();
    for py in ["python3", "python"] {
        if let Ok(o) = Command::new(py)
            .args(["-c", "import sys; print(sys.prefix)"])
            .output()
        {
            if o.status.success() {
                v.push(PathBuf::from(String::from_utf8_lossy(&o.stdout).trim()));
            }
        }
    }
    v
}

/// The real library, or `None` after printing the SKIPPED line `what` gets (panics where a
/// skip is not allowed).
pub fn real(what: &str) -> Option<Real> {
    let (target, host) = (env!("RESAMPLE_BUILD_TARGET"), env!("RESAMPLE_BUILD_HOST"));
    let cross = target != host;
    if cross {
        skipped(&format!(
            "{what}: cross-compiled run ({}); the oneDNN 3.2 wheel is the host's",
            env!("RESAMPLE_BUILD_TARGET")
        ));
        return None;
    }
    let assume_missing = std::env::var("RESAMPLE_ASSUME_NO_ONEDNN").is_ok_and(|v| v == "1");
    for p in prefixes() {
        let r = Real {
            lib: p.join("lib"),
            include: p.join("include"),
        };
        if !assume_missing
            && r.lib.join("libdnnl.so.3").exists()
            && r.include.join("oneapi/dnnl/dnnl.hpp").exists()
        {
            return Some(r);
        }
    }
    assert!(
        !required(),
        "{what}: RESAMPLE_REQUIRE_ONEDNN=1 / CI=true but the real oneDNN 3.2 was not found \
         under python3's sys.prefix: `{INSTALL}`"
    );
    skipped(&format!(
        "{what}: the real oneDNN 3.2 is not installed; to run it: `{INSTALL}`"
    ));
    None
}

/// A line `cargo test` shows (libtest does not capture direct writes to stderr).
pub fn skipped(line: &str) {
    let _ = writeln!(std::io::stderr(), "SKIPPED {line}");
}

/// A scratch directory for one test.
pub fn work_dir(name: &str) -> PathBuf {
    let exe = std::env::current_exe().expect("current_exe");
    let d = exe
        .parent()
        .and_then(Path::parent)
        .expect("target/<profile>")
        .join("dnnl3-tests")
        .join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("create work dir");
    d
}

/// The libdnnl3.so cargo built, staged as an install would name it: `libdnnl.so.3` (the
/// SONAME, run time) and `libdnnl.so` (link time).
pub fn staged_lib(work: &Path) -> PathBuf {
    let exe = std::env::current_exe().expect("current_exe");
    let deps = exe.parent().expect("deps dir");
    let built = [deps, deps.parent().unwrap_or(deps)]
        .iter()
        .map(|d| d.join("libdnnl3.so"))
        .find(|p| p.exists())
        .unwrap_or_else(|| panic!("libdnnl3.so not found next to {}", exe.display()));
    let dir = work.join("lib");
    std::fs::create_dir_all(&dir).expect("lib dir");
    for n in ["libdnnl.so.3", "libdnnl.so"] {
        let _ = std::fs::remove_file(dir.join(n));
        std::os::unix::fs::symlink(&built, dir.join(n)).expect("symlink");
    }
    dir
}

pub fn c_tests() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("c_tests")
}

fn compiler(cpp: bool) -> Command {
    let triple = format!(
        "{}-unknown-{}-gnu",
        std::env::consts::ARCH,
        std::env::consts::OS
    );
    cc::Build::new()
        .cargo_metadata(false)
        .cpp(cpp)
        .opt_level(1)
        .debug(true)
        .target(&triple)
        .host(&triple)
        .get_compiler()
        .to_command()
}

/// Compiles `src` against the headers in `include`, linked `-ldnnl` from `lib` (no rpath:
/// `LD_LIBRARY_PATH` picks the library at run time).
pub fn build(src: &Path, out: &Path, include: &Path, lib: &Path) {
    let cpp = src.extension().is_some_and(|x| x == "cpp");
    let mut cmd = compiler(cpp);
    if cpp {
        cmd.arg("-std=c++17");
    } else {
        cmd.args(["-std=gnu11", "-Werror=implicit-function-declaration"]);
    }
    cmd.args(["-Wall", "-Wno-unused-function"])
        .arg("-I")
        .arg(include)
        .arg(src)
        .arg("-o")
        .arg(out)
        .arg(format!("-L{}", lib.display()))
        .args(["-ldnnl", "-lm"]);
    let o = cmd.output().expect("run the C compiler");
    assert!(
        o.status.success(),
        "compiling {} failed:\n{}",
        src.display(),
        String::from_utf8_lossy(&o.stderr)
    );
}

/// Runs `exe` with only `lib` on `LD_LIBRARY_PATH`.
pub fn run(exe: &Path, args: &[&str], lib: &Path, envs: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(exe);
    cmd.args(args)
        .env("LD_LIBRARY_PATH", lib)
        .env_remove("ONEDNN_VERBOSE")
        .env_remove("DNNL_VERBOSE");
    for (k, v) in envs {
        cmd.env(k, v);
    }
    cmd.output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", exe.display()))
}

/// stdout of a run that must succeed.
pub fn stdout_ok(o: &Output, what: &str) -> String {
    assert!(
        o.status.success(),
        "{what}: exit {:?}\n--- stdout (tail) ---\n{}\n--- stderr ---\n{}",
        o.status.code(),
        tail(&String::from_utf8_lossy(&o.stdout)),
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn tail(s: &str) -> String {
    let lines: Vec<&str> = s.lines().collect();
    lines[lines.len().saturating_sub(30)..].join("\n")
}

//! Compiles every `c_tests/*.c` (C, `-std=gnu11`) and `c_tests/*.cpp` (C++, the `cc`
//! crate's C++ compiler) program against `include/` and the freshly built
//! `libresample.so`, runs it, and reports each program's result. A program passes when it
//! exits with status 0.
//!
//! Per-file flags: the leading lines of a source may be
//! - `// link: <flags>`: extra linker flags, placed after `-lresample` (e.g. `-ldl`);
//! - `// cflags: <flags>`: extra compiler flags that REPLACE `-I include/` (e.g.
//!   `-I/usr/include -std=c++11`: the program compiles against the real oneDNN headers
//!   instead of the compatibility headers, and still links with `-lresample`; GCC ignores
//!   `-I` for a system directory, so include/ must not be on the path at all);
//! - `// needs: <file> <package>`: the program needs that file (e.g. the real `dnnl.hpp` from
//!   libdnnl-dev); without it the program is reported SKIPPED with the package to install,
//!   a failure with `RESAMPLE_REQUIRE_ONEDNN=1` (tests/onednn_ground_truth/mod.rs).
//!
//! `-I/usr/include` is given as a directory holding only `/usr/include/oneapi`, so that a
//! cross compiler (aarch64 under qemu-user) gets oneDNN's headers and not the host's libc
//! ones. Cross-compiled, the programs run through the cargo runner of the target
//! (`CARGO_TARGET_<TRIPLE>_RUNNER`, e.g. `qemu-aarch64 -L /usr/aarch64-linux-gnu`).
//!
//! CMakeLists.txt reads the same header lines.

mod onednn_ground_truth;

use std::path::{Path, PathBuf};
use std::process::Command;

/// Directory holding the `libresample.so` cargo built for this test run: the test binary's
/// own directory (`target/<profile>/deps`), where cargo refreshes the cdylib on every build.
pub fn lib_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("current_exe");
    let dir = exe.parent().expect("target/<profile>/deps").to_path_buf();
    assert!(
        dir.join("libresample.so").exists(),
        "libresample.so not found in {} (cargo builds the cdylib for tests)",
        dir.display()
    );
    dir
}

/// Stages the freshly built library as an installed one would look: `libresample.so` (for
/// linking) and `libresample.so.1` (the SONAME, for loading), both pointing at the build.
pub fn stage_library(dir: &Path) -> PathBuf {
    let built = lib_dir().join("libresample.so");
    std::fs::create_dir_all(dir).expect("create staging dir");
    for name in ["libresample.so", "libresample.so.1"] {
        let link = dir.join(name);
        let _ = std::fs::remove_file(&link);
        std::os::unix::fs::symlink(&built, &link).expect("symlink libresample");
    }
    dir.to_path_buf()
}

/// The C / C++ compiler for the target these tests were built for (a cross compiler such as
/// aarch64-linux-gnu-gcc when the target is not the build host).
fn compiler(cpp: bool) -> cc::Tool {
    cc::Build::new()
        .cargo_metadata(false)
        .cargo_warnings(false)
        .cpp(cpp)
        .opt_level(1)
        .debug(true)
        .target(env!("RESAMPLE_BUILD_TARGET"))
        .host(env!("RESAMPLE_BUILD_HOST"))
        .get_compiler()
}

/// The compiler can be started.
fn compiler_runs(t: &cc::Tool) -> bool {
    Command::new(t.path())
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// The flags of the leading `// <key>: <flags>` lines of a source.
pub fn header_flags(text: &str, key: &str) -> Vec<String> {
    let prefix = format!("// {key}:");
    text.lines()
        .take_while(|l| {
            l.starts_with("// link:") || l.starts_with("// cflags:") || l.starts_with("// needs:")
        })
        .filter_map(|l| l.strip_prefix(prefix.as_str()))
        .flat_map(|f| f.split_whitespace().map(String::from))
        .collect()
}

/// Compiles `src` (C or, for `.cpp`, C++) into `out`, linking against libresample.
pub fn build_c(src: &Path, out: &Path, include: &Path, lib: &Path) -> Result<(), String> {
    let text = std::fs::read_to_string(src).map_err(|e| e.to_string())?;
    let cpp = src.extension().is_some_and(|x| x == "cpp");
    let link = header_flags(&text, "link");
    let cflags = header_flags(&text, "cflags");
    let mut cmd = compiler(cpp).to_command();
    if cpp {
        cmd.args(["-Wall", "-Wextra"]);
    } else {
        cmd.arg("-std=gnu11").args([
            "-Wall",
            "-Wextra",
            "-Werror=implicit-function-declaration",
            "-Werror=incompatible-pointer-types",
        ]);
    }
    for f in &cflags {
        if f == "-I/usr/include" {
            cmd.arg(format!("-I{}", onednn_only_include(out)?.display()));
        } else {
            cmd.arg(f);
        }
    }
    if cflags.is_empty() {
        cmd.arg("-I").arg(include);
    }
    cmd.arg(src)
        .arg("-o")
        .arg(out)
        .arg(format!("-L{}", lib.display()))
        .arg("-lresample")
        .arg(format!("-Wl,-rpath,{}", lib.display()))
        .arg("-Wl,--disable-new-dtags")
        .args(&link)
        .arg("-lm");
    let o = cmd
        .output()
        .map_err(|e| format!("cannot run the C compiler: {e}"))?;
    if !o.status.success() {
        return Err(format!(
            "compile failed:\n{}",
            String::from_utf8_lossy(&o.stderr)
        ));
    }
    Ok(())
}

/// A directory whose only entry is `oneapi` -> /usr/include/oneapi (next to `out`).
fn onednn_only_include(out: &Path) -> Result<PathBuf, String> {
    let dir = out.with_file_name("onednn_include");
    let link = dir.join("oneapi");
    if !link.exists() {
        std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
        let _ = std::fs::remove_file(&link);
        std::os::unix::fs::symlink("/usr/include/oneapi", &link).map_err(|e| e.to_string())?;
    }
    Ok(dir)
}

/// The runner of the target when the tests are cross-compiled (`CARGO_TARGET_<TRIPLE>_RUNNER`),
/// as program and arguments; empty when native.
fn runner() -> Vec<String> {
    if !onednn_ground_truth::cross() {
        return Vec::new();
    }
    let var = format!(
        "CARGO_TARGET_{}_RUNNER",
        env!("RESAMPLE_BUILD_TARGET")
            .to_uppercase()
            .replace(['-', '.'], "_")
    );
    std::env::var(var)
        .unwrap_or_default()
        .split_whitespace()
        .map(String::from)
        .collect()
}

/// Why the program cannot be built here (a `// needs:` file missing), if it cannot.
fn unmet_need(text: &str) -> Option<String> {
    let needs = header_flags(text, "needs");
    let file = needs.first()?;
    let why = onednn_ground_truth::missing(file)?;
    let package = needs.get(1).map_or("", String::as_str);
    Some(format!("{why}: `apt-get install {package}`"))
}

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let filter: Option<String> = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    let out_dir = lib_dir().join("c_tests");
    let lib = stage_library(&out_dir.join("lib"));
    let mut sources: Vec<PathBuf> = std::fs::read_dir(root.join("c_tests"))
        .expect("c_tests/")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "c" || x == "cpp"))
        .filter(|p| {
            filter
                .as_ref()
                .is_none_or(|f| p.to_string_lossy().contains(f.as_str()))
        })
        .collect();
    sources.sort();
    let (mut passed, mut failed, mut skipped) = (0, 0, 0);
    let runner = runner();
    for src in &sources {
        let name = src.file_stem().unwrap().to_string_lossy().to_string();
        let exe = out_dir.join(&name);
        let text = std::fs::read_to_string(src).unwrap_or_default();
        if let Some(why) = unmet_need(&text) {
            if onednn_ground_truth::required() {
                failed += 1;
                println!("c_test {name} ... FAILED (RESAMPLE_REQUIRE_ONEDNN=1: {why})");
            } else {
                skipped += 1;
                println!("c_test {name} ... SKIPPED ({why})");
            }
            continue;
        }
        if src.extension().is_some_and(|x| x == "cpp") && !compiler_runs(&compiler(true)) {
            // (a cross run without the target's C++ compiler; natively, g++ is a
            // prerequisite and its absence fails below)
            if onednn_ground_truth::cross() {
                skipped += 1;
                println!(
                    "c_test {name} ... SKIPPED (no C++ compiler {} for {})",
                    compiler(true).path().display(),
                    env!("RESAMPLE_BUILD_TARGET")
                );
                continue;
            }
        }
        let result = build_c(src, &exe, &root.join("include"), &lib).and_then(|()| {
            // cargo puts target/<profile> on LD_LIBRARY_PATH, where a stale
            // libresample.so.1 may lie; pin the library this run built.
            let mut cmd = match runner.split_first() {
                Some((r, args)) => {
                    let mut c = Command::new(r);
                    c.args(args).arg(&exe);
                    c
                }
                None => Command::new(&exe),
            };
            let o = cmd
                .env("LD_LIBRARY_PATH", &lib)
                .output()
                .map_err(|e| format!("cannot run: {e}"))?;
            let tail: String = String::from_utf8_lossy(&o.stdout)
                .lines()
                .last()
                .unwrap_or("")
                .to_string();
            if o.status.success() {
                Ok(tail)
            } else {
                Err(format!(
                    "exit {:?}\n--- stdout ---\n{}\n--- stderr ---\n{}",
                    o.status.code(),
                    String::from_utf8_lossy(&o.stdout),
                    String::from_utf8_lossy(&o.stderr)
                ))
            }
        });
        match result {
            Ok(tail) => {
                passed += 1;
                println!("c_test {name} ... ok ({tail})");
            }
            Err(e) => {
                failed += 1;
                println!("c_test {name} ... FAILED\n{e}");
            }
        }
    }
    println!("\nc_tests: {passed} passed, {failed} failed, {skipped} skipped");
    if failed > 0 || sources.is_empty() {
        if sources.is_empty() {
            println!("no C test found in c_tests/");
        }
        std::process::exit(1);
    }
}

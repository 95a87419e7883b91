//! libdnnl.so.1 as a DNNL 1.x program sees it: every `c_tests/*.c` / `*.cpp` program is
//! compiled against the REAL DNNL 1.3 headers (the mxnet 1.7.0.post2 wheel's
//! `mxnet/include/mkldnn/`), linked with `-ldnnl` against the freshly built library and
//! run twice: with DNNL 1.2's index math (the default) and with `RESAMPLE_DNNL1_RULES=v2`.
//! Then:
//! - every format tag of the header is round-tripped (`init_by_tag`, the md's queried
//!   layout, `dnnl_fmt_tag2str`) by a generated program, and the result compared line by
//!   line with the same program built against the oneDNN 2.6 headers and the real
//!   libdnnl.so.2 (tags are matched by name, so this checks the renumbering);
//! - the drop-in path: a program linked once, then run with only `LD_LIBRARY_PATH`
//!   pointing at an install-like directory (`libdnnl.so.1` -> `libdnnl.so.1.2.0`);
//! - `DNNL_VERBOSE=1` prints `dnnl_verbose` lines.
//!
//! Headers: `$RESAMPLE_DNNL13_INCLUDE` (the directory holding `dnnl.h`), else
//! `target/dnnl13/mxnet/include/mkldnn` (where `.ci/run` unpacks the wheel; see
//! crates/dnnl1/README.md). Without them the test prints one SKIPPED line and passes,
//! unless `CI=true`, where it fails.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn headers() -> Option<PathBuf> {
    let dir = match std::env::var_os("RESAMPLE_DNNL13_INCLUDE") {
        Some(d) => PathBuf::from(d),
        None => workspace_root().join("target/dnnl13/mxnet/include/mkldnn"),
    };
    dir.join("dnnl.hpp").exists().then_some(dir)
}

/// The libdnnl.so cargo built for this run (`target/<profile>/deps` or its parent).
fn built_library() -> PathBuf {
    let exe = std::env::current_exe().expect("current_exe");
    let deps = exe.parent().expect("deps dir");
    for d in [deps, deps.parent().unwrap_or(deps)] {
        let p = d.join("libdnnl.so");
        if p.exists() {
            return p;
        }
    }
    panic!("libdnnl.so not found next to {}", exe.display());
}

fn symlink(target: &Path, link: &Path) {
    let _ = std::fs::remove_file(link);
    std::os::unix::fs::symlink(target, link).expect("symlink");
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

/// Compiles `src` with `-I include`, linking `-ldnnl` from `lib` (`rpath`: also record it).
fn build(src: &Path, out: &Path, include: &Path, lib: &Path, rpath: bool) -> Result<(), String> {
    let cpp = src.extension().is_some_and(|x| x == "cpp");
    let mut cmd = compiler(cpp);
    if !cpp {
        cmd.args(["-std=gnu11", "-Werror=implicit-function-declaration"]);
    }
    cmd.args(["-Wall", "-Wextra"])
        .arg("-I")
        .arg(include)
        .arg("-I")
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("c_tests"))
        .arg(src)
        .arg("-o")
        .arg(out)
        .arg(format!("-L{}", lib.display()))
        .arg("-ldnnl");
    if rpath {
        cmd.arg(format!("-Wl,-rpath,{}", lib.display()));
    }
    cmd.arg("-lm");
    let o = cmd
        .output()
        .map_err(|e| format!("cannot run the compiler: {e}"))?;
    if o.status.success() {
        Ok(())
    } else {
        Err(format!(
            "compile failed:\n{}",
            String::from_utf8_lossy(&o.stderr)
        ))
    }
}

fn run(exe: &Path, lib: &Path, envs: &[(&str, &str)]) -> Result<Output, String> {
    let mut cmd = Command::new(exe);
    // cargo puts target/<profile> on LD_LIBRARY_PATH; pin the directory under test.
    cmd.env("LD_LIBRARY_PATH", lib)
        .env_remove("RESAMPLE_DNNL1_RULES")
        .env_remove("DNNL_VERBOSE");
    for (k, v) in envs {
        cmd.env(k, v);
    }
    cmd.output()
        .map_err(|e| format!("cannot run {}: {e}", exe.display()))
}

fn ok_tail(o: &Output) -> Result<String, String> {
    let out = String::from_utf8_lossy(&o.stdout);
    if o.status.success() {
        Ok(out.lines().last().unwrap_or("").to_string())
    } else {
        Err(format!(
            "exit {:?}\n--- stdout ---\n{out}\n--- stderr ---\n{}",
            o.status.code(),
            String::from_utf8_lossy(&o.stderr)
        ))
    }
}

/// A C program printing, for every tag name of the data file, what `init_by_tag` makes of
/// it (dims of the tag's rank, deliberately not multiples of the blocks) and its name.
fn tag_program(dnnl26: bool) -> String {
    let data = include_str!("../../../src/capi/onednn/format_tags_v1.3.txt");
    let mut names: Vec<&str> = data
        .lines()
        .filter_map(|l| l.split_whitespace().nth(1))
        .filter(|n| {
            !matches!(
                *n,
                "dnnl_format_tag_undef" | "dnnl_format_tag_any" | "dnnl_format_tag_last"
            )
        })
        .collect();
    names.dedup();
    let (h, dbg) = if dnnl26 {
        ("oneapi/dnnl/dnnl.h", "oneapi/dnnl/dnnl_debug.h")
    } else {
        ("dnnl.h", "dnnl_debug.h")
    };
    let mut s = format!(
        "#include <stdio.h>\n#include <string.h>\n#include \"{h}\"\n#include \"{dbg}\"\n\
         static const struct {{ const char *name; dnnl_format_tag_t tag; }} T[] = {{\n"
    );
    for n in &names {
        s += &format!("    {{\"{n}\", {n}}},\n");
    }
    s += r#"};
int main(void) {
    const dnnl_dims_t dims = {5, 19, 7, 3, 2, 4};
    int n3to5 = 0;
    for (unsigned i = 0; i < sizeof T / sizeof T[0]; ++i) {
        const char *str = dnnl_fmt_tag2str(T[i].tag);
        int seen[12] = {0}, nd = 0;
        for (const char *c = str; *c; ++c) {
            int l = (*c >= 'a' && *c <= 'l') ? *c - 'a' : (*c >= 'A' && *c <= 'L') ? *c - 'A' : -1;
            if (l >= 0 && !seen[l]) { seen[l] = 1; nd++; }
        }
        dnnl_memory_desc_t md;
        memset(&md, 0, sizeof md);
        dnnl_status_t st = dnnl_memory_desc_init_by_tag(&md, nd, dims, dnnl_f32, T[i].tag);
        printf("%s %s nd=%d st=%d", T[i].name, str, nd, (int)st);
        if (st == dnnl_success) {
            const dnnl_blocking_desc_t *b = &md.format_desc.blocking;
            printf(" kind=%d size=%zu pad", (int)md.format_kind, dnnl_memory_desc_get_size(&md));
            for (int d = 0; d < md.ndims; ++d) printf(" %lld", (long long)md.padded_dims[d]);
            printf(" strides");
            for (int d = 0; d < md.ndims; ++d) printf(" %lld", (long long)b->strides[d]);
            printf(" inner");
            for (int k = 0; k < b->inner_nblks; ++k)
                printf(" %lld@%lld", (long long)b->inner_blks[k], (long long)b->inner_idxs[k]);
        }
        printf("\n");
        if (nd >= 3 && nd <= 5) n3to5++;
    }
    fprintf(stderr, "%u tags, %d of 3-5 dims\n", (unsigned)(sizeof T / sizeof T[0]), n3to5);
    return 0;
}
"#;
    s
}

/// The real oneDNN 2.6 (headers and libdnnl.so.2), when installed.
fn real_dnnl26() -> Option<PathBuf> {
    let lib = [
        "/usr/lib/x86_64-linux-gnu",
        "/usr/lib/aarch64-linux-gnu",
        "/usr/lib",
        "/usr/local/lib",
    ]
    .iter()
    .map(PathBuf::from)
    .find(|d| d.join("libdnnl.so.2").exists())?;
    Path::new("/usr/include/oneapi/dnnl/dnnl.h")
        .exists()
        .then_some(lib)
}

fn main() {
    let Some(include) = headers() else {
        if std::env::var("CI").is_ok_and(|v| v == "true") {
            eprintln!(
                "dnnl1_c: the DNNL 1.3 headers are required under CI=true \
                 (.ci/run unpacks them into target/dnnl13)"
            );
            std::process::exit(1);
        }
        println!(
            "SKIPPED dnnl1_c: DNNL 1.3 headers not found (set RESAMPLE_DNNL13_INCLUDE or run \
             crates/dnnl1/fetch-headers.sh)"
        );
        return;
    };
    let filter: Option<String> = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    let wanted = |name: &str| filter.as_ref().is_none_or(|f| name.contains(f.as_str()));
    let built = built_library();
    let out = built.parent().unwrap().join("dnnl1_c");
    let lib = out.join("lib");
    std::fs::create_dir_all(&lib).expect("mkdir");
    symlink(&built, &lib.join("libdnnl.so"));
    symlink(&built, &lib.join("libdnnl.so.1"));

    let (mut passed, mut failed) = (0, 0);
    let mut report = |name: &str, r: Result<String, String>| match r {
        Ok(t) => {
            passed += 1;
            println!("dnnl1_c {name} ... ok ({t})");
        }
        Err(e) => {
            failed += 1;
            println!("dnnl1_c {name} ... FAILED\n{e}");
        }
    };

    // 1. The programs, under both index rules.
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("c_tests");
    let mut sources: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("c_tests/")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "c" || x == "cpp"))
        .collect();
    sources.sort();
    for src in &sources {
        let name = src.file_stem().unwrap().to_string_lossy().to_string();
        if !wanted(&name) {
            continue;
        }
        let exe = out.join(&name);
        if let Err(e) = build(src, &exe, &include, &lib, true) {
            report(&name, Err(e));
            continue;
        }
        for (label, env) in [
            ("1.2", vec![]),
            ("2.x", vec![("RESAMPLE_DNNL1_RULES", "v2")]),
        ] {
            let r = run(&exe, &lib, &env).and_then(|o| ok_tail(&o));
            report(&format!("{name} [rules {label}]"), r);
        }
    }

    // 2. Every tag by name, against the real oneDNN 2.6.
    if wanted("tags") {
        let src = out.join("tags_v1.c");
        std::fs::write(&src, tag_program(false)).expect("write tags_v1.c");
        let exe = out.join("tags_v1");
        let mine = build(&src, &exe, &include, &lib, true)
            .and_then(|()| run(&exe, &lib, &[]))
            .and_then(|o| {
                ok_tail(&o)?;
                Ok((
                    String::from_utf8_lossy(&o.stdout).to_string(),
                    String::from_utf8_lossy(&o.stderr).trim().to_string(),
                ))
            });
        match (mine, real_dnnl26()) {
            (Err(e), _) => report("tags", Err(e)),
            (Ok((mine, count)), real) => {
                let refused: Vec<&str> = mine.lines().filter(|l| !l.contains(" st=0 ")).collect();
                if !refused.is_empty() {
                    report("tags (init_by_tag)", Err(refused.join("\n")));
                } else {
                    report("tags (init_by_tag)", Ok(count.clone()));
                }
                match real {
                    None => println!(
                        "SKIPPED dnnl1_c tags vs libdnnl 2.6: no /usr/include/oneapi/dnnl + libdnnl.so.2"
                    ),
                    Some(real_lib) => {
                        let src26 = out.join("tags_v26.c");
                        std::fs::write(&src26, tag_program(true)).expect("write");
                        let exe26 = out.join("tags_v26");
                        let theirs = build(&src26, &exe26, Path::new("/usr/include"), &real_lib, false)
                            .and_then(|()| run(&exe26, &real_lib, &[]))
                            .map(|o| String::from_utf8_lossy(&o.stdout).to_string());
                        let r = theirs.and_then(|theirs| {
                            let diff: Vec<String> = mine
                                .lines()
                                .zip(theirs.lines())
                                .filter(|(a, b)| a != b)
                                .take(10)
                                .map(|(a, b)| format!("libdnnl.so.1: {a}\nlibdnnl 2.6:  {b}"))
                                .collect();
                            if diff.is_empty() && mine.lines().count() == theirs.lines().count() {
                                Ok(format!("{count}; identical to libdnnl 2.6.3 by name"))
                            } else {
                                Err(diff.join("\n"))
                            }
                        });
                        report("tags vs libdnnl 2.6", r);
                    }
                }
            }
        }
    }

    // 3. Drop-in: link once against a build directory, run from an install-like one.
    if wanted("dropin") {
        let r = (|| {
            let link_dir = out.join("dropin-link");
            let inst = out.join("dropin-install/lib");
            std::fs::create_dir_all(&link_dir).map_err(|e| e.to_string())?;
            std::fs::create_dir_all(&inst).map_err(|e| e.to_string())?;
            symlink(&built, &link_dir.join("libdnnl.so"));
            let exe = out.join("dropin_streams");
            build(&dir.join("streams.c"), &exe, &include, &link_dir, false)?;
            let real = inst.join("libdnnl.so.1.2.0");
            std::fs::copy(&built, &real).map_err(|e| e.to_string())?;
            symlink(Path::new("libdnnl.so.1.2.0"), &inst.join("libdnnl.so.1"));
            let o = run(&exe, &inst, &[])?;
            let tail = ok_tail(&o)?;
            let stdout = String::from_utf8_lossy(&o.stdout);
            if !stdout.contains("version 1.2.0") {
                return Err(format!("unexpected output:\n{stdout}"));
            }
            // Without the directory the loader must not find a libdnnl.so.1 elsewhere
            // (unless the system has one, which would make this check meaningless).
            let o = run(&exe, Path::new("/nonexistent"), &[])?;
            if o.status.success() {
                println!("note: a system libdnnl.so.1 exists; the negative drop-in check is moot");
            }
            // Verbose mode of the 1.x library.
            let o = run(&exe, &inst, &[("DNNL_VERBOSE", "1")])?;
            let v = String::from_utf8_lossy(&o.stdout);
            if !(v.contains("dnnl_verbose,info,DNNL v1.2.0")
                && v.contains("dnnl_verbose,exec,cpu,resampling"))
            {
                return Err(format!("DNNL_VERBOSE=1 output:\n{v}"));
            }
            Ok(tail)
        })();
        report("dropin (LD_LIBRARY_PATH only)", r);
    }

    println!("\ndnnl1_c: {passed} passed, {failed} failed");
    if failed > 0 {
        std::process::exit(1);
    }
}

//! libdnnl.so.3 as oneDNN 3.2 programs see it. Each program in `c_tests/` is compiled once
//! against the REAL 3.2 headers (the `onednn-devel-cpu-gomp` wheel) and linked against the
//! REAL libdnnl.so.3, then run twice: with `LD_LIBRARY_PATH` at the real library and at
//! this project's (`libdnnl.so.3` -> libdnnl3.so) — the drop-in path. The outputs must be
//! equal line by line, except lines starting with `~` (implementation names, `next_impl`:
//! libdnnl has several implementations per problem, this library one):
//! - `api3.c`: version, engines, every `dnnl_debug.h` string, memory descriptors (every
//!   3.2 format tag, strides, submemory, reshape, permute, refusals), post-ops (3.x sum /
//!   eltwise / binary / prelu, clone, get_params), pd creation and queries (alg_kind,
//!   factors, exec_arg_md, ...), execution with 3.x post-op arguments, attribute
//!   refusals, reorder;
//! - `example3.cpp`: the v3 resampling example flow through `dnnl.hpp`, post-ops, `any`,
//!   backward with a hint, `dnnl::error`, `allow_empty`;
//! - `verbose3.c` under `ONEDNN_VERBOSE=1`: the verbose lines (impl and time masked).
//!
//! Then `api3.c` is linked against this project's library itself (`-ldnnl` from the staged
//! directory), which checks that every symbol it uses is exported.

mod common;

use std::path::Path;

fn main() {
    let Some(real) = common::real("dnnl3_c (oneDNN 3.2 programs on libdnnl.so.3)") else {
        return;
    };
    let work = common::work_dir("c");
    let ours = common::staged_lib(&work);
    let tags = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../src/capi/onednn/format_tags_v3.2.txt")
        .to_string_lossy()
        .into_owned();
    let mut failures = Vec::new();
    for (src, args, envs) in [
        ("api3.c", vec![tags.as_str()], vec![]),
        ("example3.cpp", vec![], vec![]),
        ("verbose3.c", vec![], vec![("ONEDNN_VERBOSE", "1")]),
    ] {
        let exe = work.join(src.replace('.', "_"));
        common::build(&common::c_tests().join(src), &exe, &real.include, &real.lib);
        let exp = common::stdout_ok(&common::run(&exe, &args, &real.lib, &envs), src);
        let got = common::stdout_ok(&common::run(&exe, &args, &ours, &envs), src);
        let (e, g) = (normalize(&exp), normalize(&got));
        assert!(e.len() >= 5, "{src}: the real run printed almost nothing");
        if e != g {
            let diff: Vec<String> = e
                .iter()
                .zip(g.iter())
                .filter(|(a, b)| a != b)
                .take(10)
                .map(|(a, b)| format!("  real `{a}`\n  ours `{b}`"))
                .collect();
            failures.push(format!(
                "{src}: outputs differ ({} vs {} lines):\n{}",
                e.len(),
                g.len(),
                diff.join("\n")
            ));
        } else {
            println!("{src}: {} lines equal to the real libdnnl.so.3's", e.len());
        }
    }
    // Linked against this library itself: every symbol the program uses is exported.
    let exe = work.join("api3_linked_ours");
    common::build(
        &common::c_tests().join("api3.c"),
        &exe,
        &real.include,
        &ours,
    );
    let out = common::stdout_ok(
        &common::run(&exe, &[], &ours, &[]),
        "api3 linked against ours",
    );
    assert!(
        out.contains("version 3.2.0"),
        "api3 linked against ours:\n{out}"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    println!("dnnl3_c: ok");
}

/// The compared lines: `~` lines dropped; in verbose lines the implementation name and
/// time masked, the info header (versions, ISA, runtime) dropped.
fn normalize(out: &str) -> Vec<String> {
    out.lines()
        .filter(|l| !l.starts_with('~') && !l.starts_with("onednn_verbose,info,"))
        .map(|l| {
            if !l.starts_with("onednn_verbose,") {
                return l.to_string();
            }
            let mut f: Vec<&str> = l.split(',').collect();
            if f.len() > 5 {
                f[4] = "<impl>";
                let n = f.len();
                f[n - 1] = "<ms>";
            }
            f.join(",")
        })
        .collect()
}

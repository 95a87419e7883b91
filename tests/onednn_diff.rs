//! Differential test of the oneDNN 2.6 face against the real oneDNN 2.6.3 library.
//!
//! `c_tests/diff/onednn_diff.c` is written against the real `oneapi/dnnl/dnnl.h`. It is
//! compiled twice with the `cc` crate's compiler:
//! - "real": `-I/usr/include ... -ldnnl` (Debian libdnnl-dev 2.6.3),
//! - "ours": `-I <repo>/include ... -L <target dir> -lresample -Wl,-rpath,<target dir>`.
//!
//! Both binaries run the same deterministic random problems (seed, count) and write a text
//! dump (see the C file's header comment). The dumps must agree: every API status code, every
//! memory descriptor queried from the pd and every op-desc field exactly; nearest outputs
//! bit-exactly; linear outputs within the benchdnn rule of docs/spec/onednn.md §12.4.
//!
//! Environment knobs: `ONEDNN_DIFF_SEED`, `ONEDNN_DIFF_COUNT` (defaults 20240611, 300).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

const DEFAULT_SEED: u64 = 20240611;
const DEFAULT_COUNT: usize = 300;
const REAL_HEADER: &str = "/usr/include/oneapi/dnnl/dnnl.h";

// ------------------------------------------------------------------------------------------
// Building and running the C driver

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The libresample.so cargo built for this test run lives next to the test executable
/// (target/<profile>/deps). It is staged in the work dir as an installed library would look:
/// libresample.so (link time) and libresample.so.1 (the SONAME, run time).
fn staged_lib_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("current_exe");
    let deps = exe.parent().expect("target/<profile>/deps").to_path_buf();
    let built = deps.join("libresample.so");
    assert!(
        built.exists(),
        "{} not found (cargo builds the cdylib for integration tests)",
        built.display()
    );
    let dir = work_dir().join("lib");
    std::fs::create_dir_all(&dir).expect("create lib dir");
    for name in ["libresample.so", "libresample.so.1"] {
        let link = dir.join(name);
        let _ = std::fs::remove_file(&link);
        std::os::unix::fs::symlink(&built, &link).expect("symlink libresample");
    }
    dir
}

fn work_dir() -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("onednn_diff");
    std::fs::create_dir_all(&d).expect("create work dir");
    d
}

fn triple() -> String {
    if cfg!(all(target_os = "linux", target_env = "gnu")) {
        format!("{}-unknown-linux-gnu", std::env::consts::ARCH)
    } else {
        "x86_64-unknown-linux-gnu".to_string()
    }
}

fn compiler() -> Command {
    let t = triple();
    cc::Build::new()
        .cargo_metadata(false)
        .opt_level(1)
        .debug(false)
        .target(&t)
        .host(&t)
        .get_compiler()
        .to_command()
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Lib {
    Real,
    Ours,
}

impl Lib {
    fn name(self) -> &'static str {
        match self {
            Lib::Real => "real",
            Lib::Ours => "ours",
        }
    }
}

fn require_real_onednn() {
    if !Path::new(REAL_HEADER).exists() {
        panic!(
            "the real oneDNN 2.6 is not installed ({REAL_HEADER} missing); the differential \
             test needs it: `apt-get install libdnnl-dev`"
        );
    }
}

/// Compiles c_tests/diff/onednn_diff.c against one library (once per test process; tests
/// run in parallel threads); returns the executable. `issue3` adds -DONEDNN_DIFF_ISSUE3 (the
/// post-op / output-scale API).
fn build(lib: Lib, issue3: bool) -> PathBuf {
    static CACHE: Mutex<Vec<(Lib, bool, PathBuf)>> = Mutex::new(Vec::new());
    let mut g = CACHE.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, _, p)) = g.iter().find(|(l, i, _)| *l == lib && *i == issue3) {
        return p.clone();
    }
    let p = build_uncached(lib, issue3);
    g.push((lib, issue3, p.clone()));
    p
}

fn build_uncached(lib: Lib, issue3: bool) -> PathBuf {
    let src = repo().join("c_tests/diff/onednn_diff.c");
    let exe = work_dir().join(format!(
        "onednn_diff_{}{}",
        lib.name(),
        if issue3 { "_issue3" } else { "" }
    ));
    let mut cmd = compiler();
    if issue3 {
        cmd.arg("-DONEDNN_DIFF_ISSUE3");
    }
    match lib {
        Lib::Real => {
            require_real_onednn();
            cmd.arg("-I/usr/include")
                .arg(&src)
                .arg("-o")
                .arg(&exe)
                .arg("-ldnnl");
        }
        Lib::Ours => {
            let inc = repo().join("include");
            assert!(
                inc.join("oneapi/dnnl/dnnl.h").exists(),
                "{} is missing: the oneDNN face's compatibility header has not been added \
                 (branch `onednn`), so there is nothing to compare yet",
                inc.join("oneapi/dnnl/dnnl.h").display()
            );
            let td = staged_lib_dir();
            cmd.arg(format!("-I{}", inc.display()))
                .arg(&src)
                .arg("-o")
                .arg(&exe)
                .arg(format!("-L{}", td.display()))
                .arg("-lresample")
                .arg(format!("-Wl,-rpath,{}", td.display()))
                // DT_RPATH outranks LD_LIBRARY_PATH, which cargo points at target/<profile>
                // (where a stale libresample.so.1 may lie).
                .arg("-Wl,--disable-new-dtags");
        }
    }
    cmd.arg("-lm");
    let out = cmd.output().expect("run the C compiler");
    if !out.status.success() {
        let msg = String::from_utf8_lossy(&out.stderr);
        let cmd = format!(
            "{} {}",
            cmd.get_program().to_string_lossy(),
            cmd.get_args()
                .map(|a| a.to_string_lossy().into_owned())
                .collect::<Vec<_>>()
                .join(" ")
        );
        if lib == Lib::Real {
            panic!(
                "compiling/linking onednn_diff.c against the real oneDNN failed; is \
                 libdnnl-dev 2.6 installed (`apt-get install libdnnl-dev`)?\n{cmd}\n{msg}"
            );
        }
        panic!("compiling onednn_diff.c against libresample failed:\n{cmd}\n{msg}");
    }
    exe
}

/// Runs the driver; returns the dump text. `tag` names the dump file kept in the work dir.
fn run(exe: &Path, args: &[&str], tag: &str) -> String {
    static SEQ: AtomicUsize = AtomicUsize::new(0);
    let n = SEQ.fetch_add(1, Ordering::Relaxed);
    let dump = work_dir().join(format!("{tag}_{}_{n}.txt", std::process::id()));
    let out = Command::new(exe)
        .args(args)
        .arg("-o")
        .arg(&dump)
        .env_remove("ONEDNN_VERBOSE")
        .env_remove("DNNL_VERBOSE")
        .output()
        .expect("run onednn_diff");
    assert!(
        out.status.success(),
        "{} {:?} failed with {}: {}",
        exe.display(),
        args,
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::read_to_string(&dump).expect("read dump")
}

fn seed_count() -> (String, String) {
    let seed = std::env::var("ONEDNN_DIFF_SEED").unwrap_or_else(|_| DEFAULT_SEED.to_string());
    let count = std::env::var("ONEDNN_DIFF_COUNT").unwrap_or_else(|_| DEFAULT_COUNT.to_string());
    (seed, count)
}

// ------------------------------------------------------------------------------------------
// Dump parsing

/// A value block: data type and raw tokens.
type Values = Option<(String, Vec<String>)>;

#[derive(Debug, Default, Clone)]
struct Block {
    /// the P (or H) line
    header: String,
    /// T line tokens: alg dir dt_in dt_out eltwise terms
    meta: Vec<String>,
    /// K / M / Q lines, in order (compared exactly)
    items: Vec<String>,
    /// I lines (information only; the f16 emulation's "I emu" items and the "I defect"
    /// markers are read by the comparator)
    info: Vec<String>,
    /// V: the output
    values: Values,
    /// A: linear or backward without post-ops, the output for |input| (sum of |w_i x_i|)
    mag: Values,
    /// F: integer results, the f32 value before the final conversion (the same problem with
    /// an f32 result tensor)
    pre: Values,
    /// G: the A block of the F run (the magnitude of the f32 value)
    pre_mag: Values,
    /// B: the output of a defective libdnnl implementation (evidence; never compared)
    buggy: Values,
}

impl Block {
    fn has_info(&self, line: &str) -> bool {
        self.info.iter().any(|l| l == line)
    }

    /// libdnnl refused this f16 problem; the expectation is its f32 emulation.
    fn f16_emulated(&self) -> bool {
        self.has_info("I f16_emulated")
    }

    /// The libdnnl defects the driver worked around for this problem.
    fn defects(&self) -> Vec<&str> {
        self.info
            .iter()
            .filter_map(|l| {
                l.strip_prefix("I emu ")
                    .unwrap_or(l)
                    .strip_prefix("I defect ")
                    .and_then(|d| d.split(' ').next())
            })
            .collect()
    }

    /// The K / M / Q items of the f16 emulation run (printed as "I emu ...").
    fn emu_items(&self) -> Vec<String> {
        self.info
            .iter()
            .filter_map(|l| l.strip_prefix("I emu "))
            .filter(|l| l.starts_with(['K', 'M', 'Q']))
            .map(String::from)
            .collect()
    }

    fn impls(&self) -> String {
        self.info
            .iter()
            .filter_map(|s| {
                s.strip_prefix("I impl ")
                    .or_else(|| s.strip_prefix("I emu I impl "))
            })
            .collect::<Vec<_>>()
            .join(",")
    }
}

fn parse(dump: &str) -> Result<Vec<Block>, String> {
    let mut blocks = Vec::new();
    let mut cur = Block::default();
    let mut lines = dump.lines().enumerate();
    let mut finished = false;
    while let Some((ln, line)) = lines.next() {
        let tag = line.split(' ').next().unwrap_or("");
        match tag {
            "H" | "P" => cur.header = line.to_string(),
            "T" => cur.meta = line.split_whitespace().skip(1).map(String::from).collect(),
            "K" | "M" | "Q" => cur.items.push(line.to_string()),
            "I" => cur.info.push(line.to_string()),
            "V" | "A" | "F" | "G" | "B" => {
                let mut t = line.split_whitespace().skip(1);
                let dt = t
                    .next()
                    .ok_or(format!("line {}: bad {tag}", ln + 1))?
                    .to_string();
                let n: usize = t
                    .next()
                    .and_then(|s| s.parse().ok())
                    .ok_or(format!("line {}: bad {tag} count", ln + 1))?;
                let mut vals = Vec::with_capacity(n);
                for (ln2, l2) in lines.by_ref() {
                    if l2 == "E" {
                        break;
                    }
                    if l2.starts_with(|c: char| c.is_ascii_uppercase()) {
                        return Err(format!("line {}: unterminated value block", ln2 + 1));
                    }
                    vals.extend(l2.split_whitespace().map(String::from));
                }
                if vals.len() != n {
                    return Err(format!(
                        "line {}: {tag} announces {n} values, {} found",
                        ln + 1,
                        vals.len()
                    ));
                }
                let slot = match tag {
                    "V" => &mut cur.values,
                    "A" => &mut cur.mag,
                    "F" => &mut cur.pre,
                    "G" => &mut cur.pre_mag,
                    _ => &mut cur.buggy,
                };
                if slot.is_some() {
                    return Err(format!("line {}: second {tag} block in a problem", ln + 1));
                }
                *slot = Some((dt, vals));
            }
            "X" => blocks.push(std::mem::take(&mut cur)),
            "Z" => finished = true,
            "" => {}
            _ => return Err(format!("line {}: unknown record `{line}`", ln + 1)),
        }
    }
    if !finished {
        return Err("dump is truncated (no final `Z end`): the driver crashed?".into());
    }
    // the stream/engine destroy statuses after the last problem
    if !cur.items.is_empty() {
        cur.header = "teardown".into();
        blocks.push(cur);
    }
    Ok(blocks)
}

// ------------------------------------------------------------------------------------------
// Value comparison (benchdnn rules, docs/spec/onednn.md §12.4)

fn eps(dt: &str) -> f64 {
    match dt {
        "f32" => 2f64.powi(-23),
        "bf16" => 2f64.powi(-7),
        "f16" => 2f64.powi(-10),
        _ => 0.0,
    }
}

fn is_float(dt: &str) -> bool {
    matches!(dt, "f32" | "bf16" | "f16")
}

/// benchdnn: with an eltwise post-op in the chain, any element within this absolute
/// difference passes (libdnnl's jit eltwise injectors use their own approximations).
const ELTWISE_ABS: f64 = 2e-5;
/// With an eltwise post-op, also this relative difference passes: libdnnl's jit eltwise
/// injectors (exp, tanh, ...) differ from libm by an ulp or two, which the 2e-5 absolute rule
/// does not cover at large values (exp() of 10 is 2.2e4). 4e-6 is the f32 threshold of
/// benchdnn's eltwise driver.
const ELTWISE_REL: f64 = 4e-6;
/// benchdnn's x.5 check for integer results: an f32 value within this of a tie may round to
/// either neighbour.
const X5_ABS: f64 = 9e-6;

/// The rule for one problem, from its T line.
#[derive(Debug, Clone, Copy)]
struct Rule {
    /// forward nearest: a copy, bit-exact required
    bit_exact: bool,
    trh: f64,
    /// relative allowance of the f32 computation itself (integer results beyond 2^24, the
    /// x.5 window)
    f32_trh: f64,
    eltwise: bool,
    /// benchdnn's x.5 check applies (integer result of a computation, not of a copy)
    x5: bool,
}

fn rule(meta: &[String]) -> Rule {
    let get = |i: usize| meta.get(i).map(String::as_str).unwrap_or("");
    let (alg, dir, dt_in, dt_out) = (get(0), get(1), get(2), get(3));
    let eltwise = get(4) == "1";
    // Forward nearest copies values: bit-exact. benchdnn also uses 0 for BACKWARD nearest,
    // but only because its data are multiples of 0.25 whose sums are exact in any order.
    // Backward nearest sums several diff_dst values, and oneDNN 2.6.3's own jit:avx512_core
    // backward sums them in another order than ref:any (1-ulp differences on random data,
    // see `tolerance_admits_onednn_jit_vs_ref`), so it gets the linear backward threshold.
    // With an eltwise post-op, benchdnn's 2e-5 rule applies on top of the threshold 0.
    // A sum post-op computes: libdnnl's jit adds it with an FMA (1-ulp differences from
    // ref:any's multiply-then-add on random data), so forward nearest with a sum gets the
    // linear threshold (and the x.5 check).
    let sum = get(6) == "1";
    let nearest_fwd = alg == "nearest" && dir == "fwd" && !sum;
    let bit_exact = nearest_fwd && !eltwise;
    // benchdnn: FWD sdt = src (dt_in), ddt = dst (dt_out); BWD sdt = diff_src (dt_in),
    // ddt = diff_dst (dt_out)
    let (es, ed) = (eps(dt_in), eps(dt_out));
    let trh = if nearest_fwd {
        0.0
    } else if dir == "bwd" {
        if ed > es {
            ed
        } else {
            7.0 * es
        }
    } else if es > ed {
        es
    } else {
        7.0 * ed
    };
    // Backward sums up to `terms` f32 products per element, in an order that differs between
    // implementations (ref:any: od->oh->ow per tap; jit:avx512_core: its own). Two orders of
    // recursive summation differ by at most (n-1)*2^-23 * sum|x_i|, so that allowance is
    // added (it is relative to the magnitude sum|x_i|, see `element_ok`).
    let terms: f64 = meta.get(5).and_then(|t| t.parse().ok()).unwrap_or(1.0);
    let trh = if dir == "bwd" {
        trh + (terms - 1.0).max(0.0) * eps("f32")
    } else {
        trh
    };
    let f32_trh = 7.0 * eps("f32") + (terms - 1.0).max(0.0) * eps("f32");
    Rule {
        bit_exact,
        trh,
        f32_trh,
        eltwise,
        // benchdnn applies it to linear; backward sums and eltwise results are computed
        // values too (a copy, forward nearest without eltwise, is not)
        x5: !bit_exact,
    }
}

/// The rule of the F block (the same problem with an f32 result tensor).
fn f32_rule(meta: &[String]) -> Rule {
    let mut m = meta.to_vec();
    if m.len() > 3 {
        let k = if m[1] == "bwd" { 2 } else { 3 };
        m[k] = "f32".into();
    }
    rule(&m)
}

/// A value token as f64 (floats are f32 bit patterns in hex).
fn value(dt: &str, tok: &str) -> Option<f64> {
    if is_float(dt) {
        u32::from_str_radix(tok, 16)
            .ok()
            .map(|b| f32::from_bits(b) as f64)
    } else {
        tok.parse::<i64>().ok().map(|v| v as f64)
    }
}

/// libdnnl's saturation of an f32 value into an integer type (docs/spec/onednn.md §4.2).
fn saturate(dt: &str, v: f64) -> f64 {
    let (lo, hi) = match dt {
        "s8" => (-128.0, 127.0),
        "u8" => (0.0, 255.0),
        "s32" => (-2147483648.0, 2147483520.0),
        _ => return v,
    };
    v.clamp(lo, hi)
}

/// How an element passed (or not).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Verdict {
    Equal,
    /// within the benchdnn threshold
    Tol,
    /// integer result, the f32 value is a tie (x.5): either neighbour passes
    X5,
    /// integer result of a NaN: implementation-defined (docs/spec/onednn.md §4.2)
    NanToInt,
    /// benchdnn's eltwise rule (diff <= 2e-5)
    Eltwise,
    Fail,
}

/// Does `got` pass against the expected `exp` (both tokens of data type `dt`)?
///
/// benchdnn's rule, with one change for signed data: the relative error is taken against
/// `max(|exp|, mag)`, where `mag` = sum(w_i*|x_i|) is the expected library's output for the
/// input |x| (linear problems without post-ops). With benchdnn's non-negative data mag ==
/// |exp| and this is exactly benchdnn's rule; with signed data an output can cancel to ~0
/// while its terms are ~10, and oneDNN's own jit and ref:any then differ by far more than
/// 7 ulp of the result (see `tolerance_admits_onednn_jit_vs_ref`).
///
/// `pre`: for integer results, the expected library's f32 value before the final conversion
/// (F block). benchdnn's x.5 check: if it is a tie within the f32 computation's own error
/// (max(9e-6, f32_trh * magnitude), plus 2e-5 with an eltwise post-op), the other neighbour
/// passes too; a NaN converts to an implementation-defined integer.
fn element_ok(
    r: Rule,
    dt: &str,
    exp_tok: &str,
    got_tok: &str,
    mag: Option<f64>,
    pre: Option<f64>,
    exact: bool,
) -> Verdict {
    if exp_tok == got_tok {
        return Verdict::Equal;
    }
    if exact {
        return Verdict::Fail;
    }
    let (Some(exp), Some(got)) = (value(dt, exp_tok), value(dt, got_tok)) else {
        return Verdict::Fail;
    };
    if exp.is_nan() && got.is_nan() {
        return Verdict::Equal;
    }
    if !is_float(dt) {
        if let Some(f) = pre {
            if f.is_nan() {
                return Verdict::NanToInt;
            }
        }
    }
    if r.bit_exact {
        return Verdict::Fail;
    }
    let diff = (exp - got).abs();
    let scale = exp.abs().max(mag.unwrap_or(0.0).abs());
    if !is_float(dt) {
        if let Some(f) = pre.filter(|_| r.x5) {
            let lo = f.floor();
            let fscale = f.abs().max(mag.unwrap_or(0.0).abs());
            let mut window = X5_ABS.max(r.f32_trh * fscale);
            if r.eltwise {
                window = window.max(ELTWISE_ABS).max(ELTWISE_REL * fscale);
            }
            let neighbours = [saturate(dt, lo), saturate(dt, lo + 1.0)];
            if (f - (lo + 0.5)).abs() <= window && neighbours.contains(&got) {
                return Verdict::X5;
            }
        }
        // s32 values beyond 2^24 carry the f32 rounding of the computation
        if diff <= r.f32_trh * scale {
            return Verdict::Tol;
        }
        // eltwise: its relative rule (below), for large integer results
        if r.eltwise
            && exp.abs() > 0.0
            && diff / exp.abs() <= ELTWISE_REL.max(r.f32_trh * mag.unwrap_or(0.0).abs())
        {
            return Verdict::Eltwise;
        }
        return Verdict::Fail;
    }
    let rel = if scale > f32::MIN_POSITIVE as f64 {
        diff / scale
    } else {
        diff
    };
    let check = if scale > 1e-5 { rel } else { diff };
    if check <= r.trh {
        return Verdict::Tol;
    }
    // eltwise: also relative to |exp|, by at least 4e-6 and by the error of the eltwise's
    // input propagated through it: an error d of x becomes a relative error d of exp(x)
    // (the steepest function of the list), and d <= 7 * 2^-23 * magnitude
    if r.eltwise {
        let rel_e = if exp.abs() > f32::MIN_POSITIVE as f64 {
            diff / exp.abs()
        } else {
            diff
        };
        // (a bf16 / f16 result: plus one ulp of it, the f32 value may sit at a rounding tie)
        let trh_e = ELTWISE_REL
            .max(r.f32_trh * mag.unwrap_or(0.0).abs())
            .max(if dt == "f32" { 0.0 } else { eps(dt) });
        if diff <= ELTWISE_ABS || rel <= ELTWISE_REL || rel_e <= trh_e {
            return Verdict::Eltwise;
        }
    }
    Verdict::Fail
}

// ------------------------------------------------------------------------------------------
// Dump comparison

const MAX_REPORTED_PROBLEMS: usize = 25;
const MAX_REPORTED_VALUES: usize = 6;

/// Logical coordinates of element `i` given "dims=a,b,c" from the result md line.
fn coords(dims: &[i64], mut i: usize) -> String {
    if dims.is_empty() || dims.iter().any(|&d| d <= 0) {
        return format!("#{i}");
    }
    let mut c = vec![0i64; dims.len()];
    for k in (0..dims.len()).rev() {
        c[k] = (i as i64) % dims[k];
        i = (i as i64 / dims[k]) as usize;
    }
    format!(
        "({})",
        c.iter()
            .map(|v| v.to_string())
            .collect::<Vec<_>>()
            .join(",")
    )
}

fn result_dims(b: &Block) -> Vec<i64> {
    let bwd = b.meta.get(1).map(String::as_str) == Some("bwd");
    let key = if bwd { "M diff_src_md " } else { "M dst_md " };
    b.items
        .iter()
        .chain(b.emu_items().iter())
        .find(|l| l.starts_with(key))
        .and_then(|l| l.split(' ').find_map(|t| t.strip_prefix("dims=")))
        .map(|d| d.split(',').filter_map(|x| x.parse().ok()).collect())
        .unwrap_or_default()
}

fn show(dt: &str, tok: &str) -> String {
    match value(dt, tok) {
        Some(v) if is_float(dt) => format!("{v:.9e} [{tok}]"),
        Some(v) => format!("{v}"),
        None => tok.to_string(),
    }
}

/// An item of an f16 problem without its data type and byte size (the emulation ran in f32).
fn without_dt(item: &str) -> String {
    if !item.starts_with("M ") {
        return item.to_string();
    }
    item.split(' ')
        .filter(|t| !t.starts_with("dt=") && !t.starts_with("size="))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Counts of a comparison, by how elements passed and which libdnnl defects were met.
#[derive(Debug, Default)]
struct Stats {
    blocks: usize,
    problems_with_values: usize,
    values_checked: usize,
    x5: usize,
    nan_to_int: usize,
    eltwise: usize,
    int_mag_off_by_one: usize,
    f16_emulated: usize,
    /// per libdnnl defect worked around: problems, values of the defective implementation
    /// (B blocks) outside the tolerance of the workaround's, values of B blocks
    defects: std::collections::BTreeMap<String, (usize, usize, usize)>,
    skipped_jit_bwd_ranges: usize,
}

impl Stats {
    fn summary(&self) -> String {
        let defects = if self.defects.is_empty() {
            "none".to_string()
        } else {
            self.defects
                .iter()
                .map(|(k, (n, wrong, total))| {
                    if *total > 0 {
                        format!("{k} {n} problems ({wrong} of {total} of its values wrong)")
                    } else {
                        format!("{k} {n} problems")
                    }
                })
                .collect::<Vec<_>>()
                .join(", ")
        };
        format!(
            "{} blocks, {} with output values, {} values compared; passed by benchdnn's x.5 \
             check {}, by the eltwise rule {}, NaN->int {}, integer |input| runs off by one {}; \
             f16 problems refused by libdnnl and compared with its f32 emulation {}; libdnnl \
             defects worked around: {defects}{}",
            self.blocks,
            self.problems_with_values,
            self.values_checked,
            self.x5,
            self.eltwise,
            self.nan_to_int,
            self.int_mag_off_by_one,
            self.f16_emulated,
            if self.skipped_jit_bwd_ranges > 0 {
                format!(
                    "; jit backward nearest values not compared {}",
                    self.skipped_jit_bwd_ranges
                )
            } else {
                String::new()
            }
        )
    }
}

/// Options of a comparison.
#[derive(Debug, Clone, Copy, Default)]
struct Opts {
    /// bit-exact values for every problem
    exact: bool,
    /// skip the K / M / Q items (two implementations of the same library, whose format-any
    /// resolution may legitimately differ)
    values_only: bool,
    /// skip the values of backward nearest problems that one side ran on libdnnl's
    /// jit:avx512_core (its nearest ranges differ from ref:any's at ties, docs/spec/onednn.md §3.1)
    skip_jit_bwd_nearest: bool,
}

/// Compares two dumps. `exact` demands bit-exact values for every problem. Returns a
/// summary; Err holds the per-problem report of everything that differs.
fn compare(
    exp_name: &str,
    exp: &str,
    got_name: &str,
    got: &str,
    exact: bool,
) -> Result<String, String> {
    let o = Opts {
        exact,
        ..Opts::default()
    };
    compare_opts(exp_name, exp, got_name, got, o).map(|s| s.summary())
}

/// Compares the items of one problem; returns the first difference.
fn compare_items(e: &Block, g: &Block, exp_name: &str, got_name: &str) -> Option<String> {
    let first_diff = |x: &[String], y: &[String], norm: fn(&str) -> String| {
        (0..x.len().max(y.len())).find_map(|i| {
            let (a, b) = (x.get(i), y.get(i));
            if a.map(|s| norm(s)) != b.map(|s| norm(s)) {
                Some(format!(
                    "  item #{i}: {exp_name} `{}` vs {got_name} `{}`\n",
                    a.map(String::as_str).unwrap_or("<none>"),
                    b.map(String::as_str).unwrap_or("<none>")
                ))
            } else {
                None
            }
        })
    };
    if !e.f16_emulated() {
        return first_diff(&e.items, &g.items, |s| s.to_string());
    }
    // libdnnl 2.6.3 has no f16 on CPU: its first pd creation must fail with exactly
    // dnnl_unimplemented (3), followed only by destroys; everything before it must agree
    // with libresample, which must create that pd, and libresample's items must be those of
    // the f32 emulation (data types aside)
    let Some(n) = e
        .items
        .iter()
        .position(|l| l == "K fwd_pd_create 3" || l == "K hint_pd_create 3")
    else {
        return Some(format!(
            "  f16: {exp_name} should refuse the pd with dnnl_unimplemented (3): {:?}\n",
            e.items.iter().rev().take(3).collect::<Vec<_>>()
        ));
    };
    if let Some(extra) = e.items[n + 1..].iter().find(|l| !l.ends_with("_destroy 0")) {
        return Some(format!(
            "  f16: {exp_name} goes on after refusing the pd: `{extra}`\n"
        ));
    }
    if let Some(d) = first_diff(&e.items[..n], &g.items[..n.min(g.items.len())], |s| {
        s.to_string()
    }) {
        return Some(d);
    }
    let ok_item = e.items[n].replace(" 3", " 0");
    if g.items.get(n) != Some(&ok_item) {
        return Some(format!(
            "  f16: {got_name} should create the pd that {exp_name} refuses: `{}`\n",
            g.items.get(n).map(String::as_str).unwrap_or("<none>")
        ));
    }
    // the emulation skipped (no libdnnl expectation): its items up to the primitive
    let mut emu = e.emu_items();
    let mut gi = g.items.clone();
    if e.info.iter().any(|l| l.starts_with("I emu I skip ")) {
        for v in [&mut emu, &mut gi] {
            if let Some(k) = v.iter().position(|l| l.starts_with("K prim_create ")) {
                v.truncate(k + 1);
            }
        }
    }
    first_diff(&emu, &gi, without_dt)
        .map(|d| format!("  f16 (expected: {exp_name}'s f32 emulation)\n{d}"))
}

/// Compares two dumps with options; the stats on success, the report of every differing
/// problem otherwise.
fn compare_opts(
    exp_name: &str,
    exp: &str,
    got_name: &str,
    got: &str,
    o: Opts,
) -> Result<Stats, String> {
    let eb = parse(exp).map_err(|e| format!("{exp_name} dump: {e}"))?;
    let gb = parse(got).map_err(|e| format!("{got_name} dump: {e}"))?;
    let mut report = String::new();
    let mut bad = 0usize;
    let mut st = Stats {
        blocks: eb.len(),
        ..Stats::default()
    };
    if eb.len() != gb.len() {
        let _ = writeln!(
            report,
            "block count differs: {exp_name} {} vs {got_name} {}",
            eb.len(),
            gb.len()
        );
        bad += 1;
    }
    for (e, g) in eb.iter().zip(gb.iter()) {
        let mut msg = String::new();
        if (e.header.starts_with("P ") || g.header.starts_with("P "))
            && (e.header != g.header || e.meta != g.meta)
        {
            let _ = writeln!(
                msg,
                "  problem desync: {exp_name} `{}` vs {got_name} `{}`",
                e.header, g.header
            );
        }
        // a problem without a libdnnl expectation (I skip): its items up to the primitive
        let skipped = e.info.iter().any(|l| l.contains("I skip "));
        if !o.values_only {
            let cut = |b: &Block| {
                let mut b = b.clone();
                if let Some(k) = b.items.iter().position(|l| l.starts_with("K prim_create ")) {
                    b.items.truncate(k + 1);
                }
                b
            };
            let (ec, gc) = if skipped {
                (cut(e), cut(g))
            } else {
                (e.clone(), g.clone())
            };
            if let Some(d) = compare_items(&ec, &gc, exp_name, got_name) {
                msg.push_str(&d);
            }
        }
        if e.f16_emulated() {
            st.f16_emulated += 1;
        }
        for d in e.defects() {
            st.defects.entry(d.to_string()).or_default().0 += 1;
        }
        let skip_values = o.skip_jit_bwd_nearest
            && e.meta.first().map(String::as_str) == Some("nearest")
            && e.meta.get(1).map(String::as_str) == Some("bwd")
            && (e.impls() == "jit:avx512_core" || g.impls() == "jit:avx512_core");
        if skip_values && e.values.is_some() {
            st.skipped_jit_bwd_ranges += 1;
        }
        // ref:any, libdnnl's only implementation of the problem, has the sum defect: there
        // is no expectation (counted, values not compared)
        let skip = e.info.iter().find_map(|l| {
            l.strip_prefix("I emu ")
                .unwrap_or(l)
                .strip_prefix("I skip ")
        });
        let no_expectation = skip.is_some();
        if let Some(why) = skip {
            st.defects
                .entry(format!("{why} (not compared)"))
                .or_default()
                .0 += 1;
        }
        let dims = result_dims(e);
        let r = rule(&e.meta);
        let rf = f32_rule(&e.meta);
        let num = |b: &Values, i: usize| {
            b.as_ref()
                .and_then(|(dt, v)| v.get(i).and_then(|t| value(dt, t)))
        };
        // evidence of a defect: how many of the defective implementation's values are wrong
        if let (Some((edt, ev)), Some((_, bv)), Some(d)) = (&e.values, &e.buggy, e.defects().last())
        {
            let entry = st.defects.entry(d.to_string()).or_default();
            for (i, (x, y)) in ev.iter().zip(bv.iter()).enumerate() {
                entry.2 += 1;
                let v = element_ok(r, edt, x, y, None, num(&e.pre, i), false);
                if v == Verdict::Fail {
                    entry.1 += 1;
                }
            }
        }
        for (what, ev, gv) in [
            ("output", &e.values, &g.values),
            ("|input| output", &e.mag, &g.mag),
            ("f32 output (before the conversion)", &e.pre, &g.pre),
        ] {
            match (ev, gv) {
                (None, None) => {}
                _ if no_expectation => {}
                // the f32 value is auxiliary: libdnnl may have no defect-free implementation
                // of the f32-result problem (ref:any sum) while it has one for the real one
                (None, Some(_)) if what.starts_with("f32") => {}
                (Some(_), None) | (None, Some(_)) => {
                    let _ = writeln!(
                        msg,
                        "  {what} values present only in {}",
                        if ev.is_some() { exp_name } else { got_name }
                    );
                }
                (Some((edt, ev)), Some((gdt, gv))) => {
                    if what == "output" {
                        st.problems_with_values += 1;
                    }
                    if edt != gdt || ev.len() != gv.len() {
                        let _ = writeln!(
                            msg,
                            "  {what} shape differs: {exp_name} {edt} x{} vs {got_name} {gdt} x{}",
                            ev.len(),
                            gv.len()
                        );
                        continue;
                    }
                    if skip_values {
                        continue;
                    }
                    let is_pre = what.starts_with("f32");
                    let rr = if is_pre { rf } else { r };
                    let mut nbad = 0usize;
                    let mut max_diff = 0f64;
                    let mut lines = String::new();
                    for (i, (x, y)) in ev.iter().zip(gv.iter()).enumerate() {
                        st.values_checked += 1;
                        // the |input| run is its own magnitude; the f32 value's is the G block
                        // (the A block of an integer result may be saturated)
                        let mag = if what == "|input| output" {
                            value(edt, x)
                        } else {
                            num(&e.pre_mag, i).or_else(|| num(&e.mag, i))
                        };
                        let pre = if what == "output" {
                            num(&e.pre, i)
                        } else {
                            None
                        };
                        let verdict = element_ok(rr, edt, x, y, mag, pre, o.exact);
                        // an integer |input| run has no f32 value of its own for the x.5
                        // check: a tie may land on either neighbour
                        if verdict == Verdict::Fail
                            && what == "|input| output"
                            && !is_float(edt)
                            && !o.exact
                            && !rr.bit_exact
                            && matches!((value(edt, x), value(edt, y)), (Some(a), Some(b)) if (a - b).abs() == 1.0)
                        {
                            st.int_mag_off_by_one += 1;
                            continue;
                        }
                        match verdict {
                            Verdict::Equal | Verdict::Tol => continue,
                            Verdict::X5 => {
                                st.x5 += 1;
                                continue;
                            }
                            Verdict::NanToInt => {
                                st.nan_to_int += 1;
                                continue;
                            }
                            Verdict::Eltwise => {
                                st.eltwise += 1;
                                continue;
                            }
                            Verdict::Fail => {}
                        }
                        nbad += 1;
                        if let (Some(a), Some(b)) = (value(edt, x), value(edt, y)) {
                            max_diff = max_diff.max((a - b).abs());
                        }
                        if nbad <= MAX_REPORTED_VALUES {
                            let m = mag.map(|m| format!(" (mag {m:e})")).unwrap_or_default();
                            let f = pre.map(|f| format!(" (f32 {f:e})")).unwrap_or_default();
                            let _ = writeln!(
                                lines,
                                "    index {i} {}: expected {} got {}{m}{f}",
                                coords(&dims, i),
                                show(edt, x),
                                show(edt, y)
                            );
                        }
                    }
                    if nbad > 0 {
                        let _ = writeln!(
                            msg,
                            "  {what}: {nbad} of {} values out of tolerance ({}; trh {:e}; \
                             max abs diff {max_diff:e}); first ones:\n{lines}",
                            ev.len(),
                            if rr.bit_exact || o.exact {
                                "bit-exact required"
                            } else {
                                "benchdnn rule"
                            },
                            rr.trh
                        );
                    }
                }
            }
        }
        if !msg.is_empty() {
            bad += 1;
            if bad <= MAX_REPORTED_PROBLEMS {
                let defects = e.defects();
                let _ = writeln!(
                    report,
                    "{} [impl {exp_name}: {}; {got_name}: {}{}]\n{msg}",
                    e.header,
                    e.impls(),
                    g.impls(),
                    if defects.is_empty() {
                        String::new()
                    } else {
                        format!("; {exp_name} defects worked around: {}", defects.join(","))
                    }
                );
            }
        }
    }
    if bad == 0 {
        Ok(st)
    } else {
        if bad > MAX_REPORTED_PROBLEMS {
            let _ = writeln!(
                report,
                "... and {} more problems",
                bad - MAX_REPORTED_PROBLEMS
            );
        }
        Err(format!(
            "{bad} problem(s) differ between {exp_name} and {got_name} ({}):\n{report}",
            st.summary()
        ))
    }
}

// ------------------------------------------------------------------------------------------
// The differential tests

fn differential(extra: &[&str], tag: &str) -> (String, Stats) {
    let issue3 = extra.contains(&"--ext");
    let real = build(Lib::Real, issue3);
    let ours = build(Lib::Ours, issue3);
    let (seed, count) = seed_count();
    let mut args = vec![seed.as_str(), count.as_str()];
    args.extend_from_slice(extra);
    let e = run(&real, &args, &format!("{tag}_real"));
    let g = run(&ours, &args, &format!("{tag}_ours"));
    match compare_opts("oneDNN", &e, "libresample", &g, Opts::default()) {
        Ok(s) => {
            eprintln!(
                "onednn_diff {tag} (seed {seed}, count {count}): {}",
                s.summary()
            );
            (e, s)
        }
        Err(report) => panic!(
            "differential test vs oneDNN 2.6 failed (seed {seed}, count {count}, args {extra:?}; \
             dumps in {}):\n{report}",
            work_dir().display()
        ),
    }
}

/// Issue #2: plain and channels-last layouts, f32 and bf16, nearest and linear, forward and
/// backward, dst given / any / from factors, plus invalid and edge cases.
#[test]
fn onednn_differential() {
    differential(&[], "basic");
}

/// Issue #3: every layout family (plain, channels-last, nCx8c / nCx16c with C not a multiple
/// of the block, strided with gaps, src tag != dst tag, format any), every src x dst pair of
/// {f32, bf16, s32, s8, u8} plus f16 (refused by 2.6.3: compared with its f32 emulation),
/// post-op chains of sum / every eltwise algorithm / every binary operator (scalar, per-channel
/// and full broadcast), forward and backward. Known libdnnl 2.6.3 defects are worked around
/// per problem and counted (c_tests/diff/README.md). With the default count, the problems
/// must cover all of that (`coverage`).
#[test]
fn onednn_differential_extended() {
    let (dump, st) = differential(&["--ext"], "ext");
    let (_, count) = seed_count();
    let missing = coverage(&dump);
    let enough = count.parse::<usize>().unwrap_or(0) >= DEFAULT_COUNT;
    if enough {
        assert!(missing.is_empty(), "the problems do not cover: {missing:?}");
        assert!(st.f16_emulated > 0, "no f16 problem was compared");
    } else if !missing.is_empty() {
        eprintln!("onednn_diff ext: not covered with count {count}: {missing:?}");
    }
}

/// What the issue #3 space asks for and the problems of `dump` (the real library's) did not
/// exercise with compared output values.
fn coverage(dump: &str) -> Vec<String> {
    let blocks = parse(dump).expect("parse dump");
    let mut seen = std::collections::BTreeSet::new();
    for b in blocks.iter().filter(|b| b.values.is_some()) {
        let mut t = b.header.split(' ');
        let (_, _, dir, _, alg, dts) = (t.next(), t.next(), t.next(), t.next(), t.next(), t.next());
        let (dir, alg, dts) = (dir.unwrap_or(""), alg.unwrap_or(""), dts.unwrap_or(""));
        seen.insert(format!("{dir} {alg}"));
        seen.insert(format!(
            "{} {dts}",
            if dir == "forward" { "fwd" } else { "bwd" }
        ));
        for tok in b.header.split(' ') {
            if let Some(l) = tok.strip_prefix("in=") {
                seen.insert(format!(
                    "in={}",
                    l.trim_end_matches("(cl)").trim_end_matches("(cf)")
                ));
            }
            if let Some(l) = tok.strip_prefix("out=") {
                seen.insert(format!(
                    "out={}",
                    l.trim_end_matches("(cl)").trim_end_matches("(cf)")
                ));
            }
            if let Some(po) = tok.strip_prefix("post_ops=") {
                for op in po.split('+') {
                    let mut f = op.split(':');
                    let name = f.next().unwrap_or("");
                    seen.insert(name.to_string());
                    if name.starts_with("binary_") {
                        seen.insert(format!("src1 {}", f.next().unwrap_or("")));
                        seen.insert(format!("bcast {}", f.next().unwrap_or("")));
                    }
                }
            }
        }
        if b.header.contains(" in=") {
            let lay = |k: &str| {
                b.header
                    .split(' ')
                    .find_map(|t| t.strip_prefix(k))
                    .unwrap_or("")
                    .to_string()
            };
            let (i, o) = (lay("in="), lay("out="));
            if !["any", "null"].contains(&i.as_str())
                && !["any", "null"].contains(&o.as_str())
                && i != o
            {
                seen.insert("src tag != dst tag".into());
            }
        }
        if b.f16_emulated() {
            seen.insert("f16 emulated".into());
        }
    }
    let mut want: Vec<String> = Vec::new();
    for d in ["forward", "backward_data"] {
        for a in ["nearest", "linear"] {
            want.push(format!("{d} {a}"));
        }
    }
    let dts = ["f32", "bf16", "s32", "s8", "u8"];
    for dir in ["fwd", "bwd"] {
        for a in dts {
            for b in dts {
                want.push(format!("{dir} {a}>{b}"));
            }
        }
        want.push(format!("{dir} f16>f16"));
    }
    for l in ["plain", "clast", "b8", "b16", "strided"] {
        want.push(format!("in={l}"));
        want.push(format!("out={l}"));
    }
    want.push("out=any".into());
    want.push("out=null".into());
    want.push("src tag != dst tag".into());
    want.push("f16 emulated".into());
    want.push("sum".into());
    want.push("sum_v2".into());
    for e in [
        0x1f, 0x2f, 0x3f, 0x4f, 0x5f, 0x6f, 0x7f, 0x8f, 0x9f, 0xaf, 0xbf, 0xcf, 0xdf, 0xef, 0xff,
        0x10, 0x20, 0x30, 0x40, 0x50, 0x60, 0x70, 0x100, 0x101, 0x102, 0x103, 0x104, 0x105, 0x106,
    ] {
        want.push(format!("eltwise_{e:#x}"));
    }
    for b in 0x1fff0..=0x1fffb {
        want.push(format!("binary_{b:#x}"));
    }
    for d in ["f32", "bf16", "s32", "s8", "u8"] {
        want.push(format!("src1 {d}"));
    }
    for c in ["scalar", "per_oc", "full"] {
        want.push(format!("bcast {c}"));
    }
    want.into_iter().filter(|w| !seen.contains(w)).collect()
}

/// The numeric examples of docs/spec/onednn.md (§1, §2.1, §2.3, §3), each recorded there as verified
/// against libdnnl 2.6.3: checked on the given library.
fn check_examples(lib: Lib) -> String {
    let exe = build(lib, false);
    let dump = run(
        &exe,
        &["0", "0", "--examples"],
        &format!("examples_{}", lib.name()),
    );
    let blocks = parse(&dump).expect("parse examples dump");
    #[rustfmt::skip]
    let expected: &[&[f32]] = &[
        // §2.1 nearest forward (src = 0, 1, 2, ...)
        &[2.0],
        &[1.0, 3.0, 5.0, 7.0, 9.0, 11.0, 13.0],
        &[0.0, 0.0, 1.0, 2.0, 2.0],
        &[0.0, 2.0, 4.0],
        &[0.0, 0.0, 0.0, 1.0, 1.0, 1.0],
        &[0.0, 2.0, 4.0, 5.0, 7.0, 8.0, 10.0, 12.0, 13.0, 15.0, 16.0, 18.0, 20.0],
        // §2.3 linear forward
        &[0.0, 0.4, 1.0, 1.6, 2.0],
        &[0.0, 0.5, 1.1666666, 1.8333333, 2.5, 3.0],
        &[0.3333333, 2.0, 3.6666665],
        &[0.0, 0.0, 0.3333333, 0.6666666, 1.0, 1.0],
        &[0.25, 1.75],
        &[0.5, 2.5, 4.5, 6.5, 8.5, 10.5, 12.5],
        &[1.5],
        // §3.1 nearest backward
        &[3.0, 3.0, 9.0],
        &[1.0, 0.0, 2.0, 0.0, 3.0],
        &[1.0, 2.0, 1.0, 2.0],
        // §3.2 linear backward
        &[2.2, 5.4000006, 7.3999996],
        &[0.6666667, 0.3333333, 2.0, 1.0000005, 1.9999995],
        &[1.5, 1.5000001, 1.4999999, 1.5],
        // §1 dst dims from factors: 3 x 1.5 -> 4, 10 x 0.33 -> 3 (nearest, src = iota)
        &[0.0, 1.0, 1.0, 2.0],
        &[1.0, 5.0, 8.0],
    ];
    let problems: Vec<&Block> = blocks
        .iter()
        .filter(|b| b.header.starts_with("P "))
        .collect();
    assert_eq!(
        problems.len(),
        expected.len(),
        "{}: example count",
        lib.name()
    );
    let mut errors = String::new();
    for (b, want) in problems.iter().zip(expected) {
        let Some((dt, toks)) = &b.values else {
            let _ = writeln!(errors, "{}: no output (items {:?})", b.header, b.items);
            continue;
        };
        let got: Vec<f32> = toks
            .iter()
            .map(|t| value(dt, t).unwrap_or(f64::NAN) as f32)
            .collect();
        // the decimal values in docs/spec/onednn.md have 8 significant digits: within 1 ulp
        let ok = got.len() == want.len()
            && got.iter().zip(want.iter()).all(|(g, w)| {
                let d = (g.to_bits() as i64 - w.to_bits() as i64).abs();
                g == w || d <= 1
            });
        if !ok {
            let _ = writeln!(errors, "{}: got {got:?}, onednn.md says {want:?}", b.header);
        }
    }
    // §1: desc factors are recomputed from the dims; dst dims from factors truncate
    let fac = problems[19]
        .items
        .iter()
        .find(|l| l.starts_with("Q fwd_desc"))
        .cloned()
        .unwrap_or_default();
    if !fac.contains("dst_dims=1,1,4") || !fac.contains("factors=3faaaaab") {
        let _ = writeln!(
            errors,
            "factors 1.5 on 3: expected dst dims 1,1,4 and desc factor 4/3 (3faaaaab): `{fac}`"
        );
    }
    assert!(errors.is_empty(), "{} library:\n{errors}", lib.name());
    dump
}

#[test]
fn spec_examples_real_onednn() {
    check_examples(Lib::Real);
}

#[test]
fn spec_examples_libresample() {
    let ours = check_examples(Lib::Ours);
    let real = check_examples(Lib::Real);
    if let Err(r) = compare("oneDNN", &real, "libresample", &ours, false) {
        panic!("{r}");
    }
}

/// The tolerance is not too strict: oneDNN's own default implementations (jit/simple) pass it
/// against oneDNN's ref:any on the same problems. Needs only the real library.
#[test]
fn tolerance_admits_onednn_jit_vs_ref() {
    jit_vs_ref(&[]);
}

/// The same for the issue #3 problem space. Not compared: backward nearest on
/// jit:avx512_core, whose ranges hand tied outputs to another input than ref:any does (a
/// difference of libdnnl's implementations that libresample reproduces per layout, not a
/// tolerance question); counted in the summary.
#[test]
fn tolerance_admits_onednn_jit_vs_ref_extended() {
    jit_vs_ref(&["--ext"]);
}

fn jit_vs_ref(extra: &[&str]) {
    let real = build(Lib::Real, extra.contains(&"--ext"));
    let (seed, count) = seed_count();
    let mut args = vec![seed.as_str(), count.as_str()];
    args.extend_from_slice(extra);
    let d = run(&real, &args, "tol_default");
    args.push("--impl=ref");
    let r = run(&real, &args, "tol_ref");
    // values only: the format-any resolution of ref:any differs from jit/simple when src has
    // size-1 dims (ambiguous stride order), which is not a tolerance question
    let o = Opts {
        values_only: true,
        skip_jit_bwd_nearest: true,
        ..Opts::default()
    };
    match compare_opts("oneDNN-ref", &r, "oneDNN-default", &d, o) {
        Ok(s) => eprintln!("jit vs ref {extra:?}: {}", s.summary()),
        Err(rep) => panic!("{rep}"),
    }
}

/// docs/spec/onednn.md §0 decision 2: libresample evaluates oneDNN's formulas in the operation order of
/// oneDNN's `ref:any`, so its values must be bit-identical to `ref:any` (picked through the
/// pd iterator) — for linear and backward too, not just within tolerance. Layout choices
/// for format any are not compared here (ref:any resolves them differently from jit/simple;
/// `onednn_differential` checks them against the default implementation).
#[test]
fn bit_exact_with_onednn_ref_any() {
    let real = build(Lib::Real, false);
    let ours = build(Lib::Ours, false);
    let (seed, count) = seed_count();
    let r = run(&real, &[&seed, &count, "--impl=ref"], "bitexact_ref");
    let g = run(&ours, &[&seed, &count], "bitexact_ours");
    let o = Opts {
        exact: true,
        values_only: true,
        ..Opts::default()
    };
    if let Err(rep) = compare_opts("oneDNN-ref:any", &r, "libresample", &g, o) {
        panic!("{rep}");
    }
}

// ------------------------------------------------------------------------------------------
// The comparator itself must be able to fail

const SYNTH: &str = "H onednn_diff seed=1 count=2 flags=0x1
K engine_create 0
X
P 0 forward training linear f32>f32 in=plain out=plain mb1ic1_iw3ow5
T linear fwd f32 f32 0
K src_md_init 0
K fwd_pd_create 0
M dst_md nd=3 dims=1,1,5 dt=f32 fk=2 size=20
I impl jit:x
V f32 5
00000000 3ecccccc 3f800000 3fcccccc 40000000
E
X
P 1 forward training nearest f32>f32 in=plain out=plain mb1ic1_iw2ow3
T nearest fwd f32 f32 0
K fwd_pd_create 0
M dst_md nd=3 dims=1,1,3 dt=f32 fk=2 size=12
V f32 3
3f800000 3f800000 40000000
E
X
Z end
";

fn perturb(src: &str, from: &str, to: &str) -> String {
    assert!(src.contains(from), "perturbation target `{from}` missing");
    src.replacen(from, to, 1)
}

#[test]
fn comparator_accepts_identical_and_info_differences() {
    compare("a", SYNTH, "b", SYNTH, false).unwrap();
    compare("a", SYNTH, "b", SYNTH, true).unwrap();
    // impl names are information only
    let g = perturb(SYNTH, "I impl jit:x", "I impl ours");
    compare("a", SYNTH, "b", &g, false).unwrap();
}

#[test]
fn comparator_linear_tolerance() {
    // 1.6 = 3fcccccc: 1 ulp (relative 7.5e-8) and 6 ulp (4.5e-7) pass; 12 ulp (9e-7) fails
    compare(
        "a",
        SYNTH,
        "b",
        &perturb(SYNTH, "3fcccccc", "3fcccccd"),
        false,
    )
    .unwrap();
    compare(
        "a",
        SYNTH,
        "b",
        &perturb(SYNTH, "3fcccccc", "3fccccd2"),
        false,
    )
    .unwrap();
    let err = compare(
        "a",
        SYNTH,
        "b",
        &perturb(SYNTH, "3fcccccc", "3fccccd8"),
        false,
    )
    .unwrap_err();
    assert!(err.contains("P 0 forward"), "{err}");
    assert!(err.contains("index 3 (0,0,3)"), "{err}");
    assert!(
        err.contains("[3fcccccc]") && err.contains("[3fccccd8]"),
        "{err}"
    );
    // exact mode rejects even 1 ulp
    assert!(compare(
        "a",
        SYNTH,
        "b",
        &perturb(SYNTH, "3fcccccc", "3fcccccd"),
        true
    )
    .is_err());
    // near zero (|exp| <= 1e-5) the absolute difference counts: 0 vs 1e-7 passes, 0 vs 1e-5 not
    compare(
        "a",
        SYNTH,
        "b",
        &perturb(SYNTH, "00000000 3ecc", "33d6bf95 3ecc"),
        false,
    )
    .unwrap();
    assert!(compare(
        "a",
        SYNTH,
        "b",
        &perturb(SYNTH, "00000000 3ecc", "3727c5ac 3ecc"),
        false
    )
    .is_err());
}

#[test]
fn comparator_nearest_is_bit_exact() {
    // 1 ulp on a nearest output fails
    let err = compare(
        "a",
        SYNTH,
        "b",
        &perturb(SYNTH, "3f800000 40000000", "3f800001 40000000"),
        false,
    )
    .unwrap_err();
    assert!(err.contains("P 1 forward training nearest"), "{err}");
    assert!(err.contains("index 1 (0,0,1)"), "{err}");
    assert!(err.contains("bit-exact required"), "{err}");
    // +0 vs -0 on nearest fails too (bit-exact)
    assert!(compare(
        "a",
        &perturb(
            SYNTH,
            "3f800000 3f800000 40000000",
            "00000000 3f800000 40000000"
        ),
        "b",
        &perturb(
            SYNTH,
            "3f800000 3f800000 40000000",
            "80000000 3f800000 40000000"
        ),
        false
    )
    .is_err());
}

#[test]
fn comparator_rejects_status_dims_and_structure_differences() {
    let err = compare(
        "a",
        SYNTH,
        "b",
        &perturb(SYNTH, "K fwd_pd_create 0", "K fwd_pd_create 3"),
        false,
    )
    .unwrap_err();
    assert!(err.contains("K fwd_pd_create 3"), "{err}");
    let err = compare(
        "a",
        SYNTH,
        "b",
        &perturb(SYNTH, "dims=1,1,5", "dims=1,1,6"),
        false,
    )
    .unwrap_err();
    assert!(err.contains("dims=1,1,6"), "{err}");
    // a missing status line
    assert!(compare(
        "a",
        SYNTH,
        "b",
        &perturb(SYNTH, "K src_md_init 0\n", ""),
        false
    )
    .is_err());
    // output missing on one side
    let no_vals = perturb(SYNTH, "V f32 3\n3f800000 3f800000 40000000\nE\n", "");
    assert!(compare("a", SYNTH, "b", &no_vals, false).is_err());
    // truncated dump (driver crash)
    let trunc = perturb(SYNTH, "Z end\n", "");
    assert!(compare("a", SYNTH, "b", &trunc, false)
        .unwrap_err()
        .contains("truncated"));
    // value count mismatch inside a block
    let short = perturb(SYNTH, "V f32 3\n", "V f32 4\n");
    assert!(compare("a", SYNTH, "b", &short, false).is_err());
}

#[test]
fn comparator_bf16_and_backward_thresholds() {
    let m = |meta: &str| rule(&meta.split(' ').map(String::from).collect::<Vec<_>>());
    assert_eq!(m("nearest fwd f32 f32 0").trh, 0.0);
    assert!(m("nearest fwd f32 f32 0").bit_exact);
    assert!(!m("nearest bwd f32 f32 0").bit_exact);
    assert_eq!(m("nearest bwd f32 f32 0").trh, 7.0 * 2f64.powi(-23));
    assert_eq!(m("nearest bwd f32 f32 0 11").trh, 17.0 * 2f64.powi(-23));
    assert_eq!(m("linear fwd f32 f32 0 11").trh, 7.0 * 2f64.powi(-23));
    assert_eq!(m("linear fwd f32 f32 0").trh, 7.0 * 2f64.powi(-23));
    assert_eq!(m("linear bwd f32 f32 0").trh, 7.0 * 2f64.powi(-23));
    assert_eq!(m("linear fwd bf16 bf16 0").trh, 7.0 * 2f64.powi(-7));
    assert_eq!(m("linear fwd bf16 f32 0").trh, 2f64.powi(-7));
    assert_eq!(m("linear fwd f32 bf16 0").trh, 7.0 * 2f64.powi(-7));
    // BWD: sdt = diff_src (dt_in), ddt = diff_dst (dt_out)
    assert_eq!(m("linear bwd f32 bf16 0").trh, 2f64.powi(-7));
    assert_eq!(m("linear bwd bf16 f32 0").trh, 7.0 * 2f64.powi(-7));
    // bf16 linear: 2 bf16 ulps at 1.0 (2^-6 relative) pass, 8 ulps fail
    let ok = |r: Rule, dt: &str, e: &str, g: &str, pre: Option<f64>| {
        element_ok(r, dt, e, g, None, pre, false) != Verdict::Fail
    };
    let r = m("linear fwd bf16 bf16 0");
    assert!(ok(r, "bf16", "3f800000", "3f820000", None));
    assert!(!ok(r, "bf16", "3f800000", "3f880000", None));
    // f16 (the f32 emulation's result rounded to f16): linear 7 f16 ulps relative
    let r = m("linear fwd f16 f16 0");
    assert_eq!(r.trh, 7.0 * 2f64.powi(-10));
    assert!(ok(r, "f16", "3f800000", "3f802000", None)); // 1.0 vs 1.0009766 (1 f16 ulp)
    assert!(!ok(r, "f16", "3f800000", "3f810000", None)); // 8 f16 ulps
    assert!(!ok(
        m("nearest fwd f16 f16 0"),
        "f16",
        "3f800000",
        "3f802000",
        None
    ));
}

#[test]
fn comparator_integer_x5_rule() {
    let m = |meta: &str| rule(&meta.split(' ').map(String::from).collect::<Vec<_>>());
    let v = |r: Rule, dt: &str, e: &str, g: &str, pre: Option<f64>| {
        element_ok(r, dt, e, g, None, pre, false)
    };
    // integer dst, linear: the other neighbour passes only when the f32 value is a tie
    let r = m("linear fwd f32 s8 0");
    assert_eq!(v(r, "s8", "4", "5", Some(4.5)), Verdict::X5);
    assert_eq!(v(r, "s8", "4", "5", Some(4.499_999_5)), Verdict::X5);
    assert_eq!(v(r, "s8", "4", "5", Some(4.4)), Verdict::Fail);
    assert_eq!(v(r, "s8", "4", "6", Some(4.5)), Verdict::Fail);
    assert_eq!(v(r, "s8", "5", "3", Some(4.5)), Verdict::Fail);
    // without the f32 value (F block missing) only equality passes
    assert_eq!(v(r, "s8", "4", "5", None), Verdict::Fail);
    // saturation: 127.5 rounds to 128 -> 127, both neighbours saturate to 127
    assert_eq!(v(r, "s8", "127", "126", Some(127.5)), Verdict::Fail);
    assert_eq!(v(r, "u8", "0", "1", Some(0.5)), Verdict::X5);
    // the window grows with the f32 computation's error at large magnitudes (s32)
    // (window 7 * 2^-23 * 1e5 = 0.083)
    assert_eq!(
        v(r, "s32", "100000", "100001", Some(100000.56)),
        Verdict::X5
    );
    assert_eq!(
        v(r, "s32", "100000", "100001", Some(100000.75)),
        Verdict::Fail
    );
    // s32 beyond 2^24: the f32 computation's own rounding (7 ulp relative)
    assert_eq!(
        v(r, "s32", "100000000", "100000008", Some(1e8)),
        Verdict::Tol
    );
    assert_eq!(
        v(r, "s32", "100000000", "100000200", Some(1e8)),
        Verdict::Fail
    );
    // NaN converts to an implementation-defined integer
    assert_eq!(
        v(r, "s32", "-2147483648", "2147483520", Some(f64::NAN)),
        Verdict::NanToInt
    );
    assert_eq!(
        v(r, "s32", "-2147483648", "2147483520", Some(7.0)),
        Verdict::Fail
    );
    // nearest forward (a copy): exact, even at a tie
    let r = m("nearest fwd f32 s8 0");
    assert_eq!(v(r, "s8", "4", "5", Some(4.5)), Verdict::Fail);
    // ... but not with a sum post-op (computed, FMA in libdnnl's jit)
    let r = m("nearest fwd f32 s8 0 1 1");
    assert_eq!(v(r, "s8", "4", "5", Some(4.5)), Verdict::X5);
    assert_eq!(v(r, "s8", "4", "5", Some(4.4)), Verdict::Fail);
    let r = m("nearest fwd f32 f32 0 1 1");
    assert!(!r.bit_exact);
    assert_eq!(r.trh, 7.0 * 2f64.powi(-23));
    // backward sums are computed values: the x.5 rule applies
    let r = m("nearest bwd u8 f32 0 3");
    assert_eq!(v(r, "u8", "4", "5", Some(4.5)), Verdict::X5);
    // eltwise: a tie within 2e-5
    let r = m("nearest fwd f32 s8 1");
    assert_eq!(v(r, "s8", "4", "5", Some(4.500_015)), Verdict::X5);
    assert_eq!(v(r, "s8", "4", "5", Some(4.5001)), Verdict::Fail);
}

#[test]
fn comparator_eltwise_rule() {
    let m = |meta: &str| rule(&meta.split(' ').map(String::from).collect::<Vec<_>>());
    let v = |r: Rule, e: f32, g: f32| {
        element_ok(
            r,
            "f32",
            &format!("{:08x}", e.to_bits()),
            &format!("{:08x}", g.to_bits()),
            None,
            None,
            false,
        )
    };
    // nearest with an eltwise post-op: no longer bit-exact, |diff| <= 2e-5 passes
    let r = m("nearest fwd f32 f32 1");
    assert!(!r.bit_exact);
    assert_eq!(v(r, 0.5, 0.500_01), Verdict::Eltwise);
    assert_eq!(v(r, 0.5, 0.5001), Verdict::Fail);
    // without eltwise the same is a failure (bit-exact)
    assert_eq!(v(m("nearest fwd f32 f32 0"), 0.5, 0.500_01), Verdict::Fail);
    // linear with eltwise: the relative threshold first, then 2e-5 absolute
    let r = m("linear fwd f32 f32 1");
    assert_eq!(v(r, 1000.0, 1000.0001), Verdict::Tol);
    assert_eq!(v(r, 1000.0, 1000.01), Verdict::Fail);
    assert_eq!(v(r, 0.01, 0.010_015), Verdict::Eltwise);
    // large values: 4e-6 relative (1-2 ulp of a jit exp at 5e4) passes, 1e-5 not
    let r = m("nearest fwd f32 f32 1");
    assert_eq!(v(r, 50897.977, 50897.98), Verdict::Eltwise);
    assert_eq!(v(r, 50897.977, 50898.5), Verdict::Fail);
    // bf16 result with eltwise: one bf16 ulp (6.59375 vs 6.625) passes, two not
    let rb = |e: &str, g: &str| element_ok(r, "bf16", e, g, None, None, false);
    assert_eq!(rb("40d30000", "40d40000"), Verdict::Eltwise);
    assert_eq!(rb("40d30000", "40d50000"), Verdict::Fail);
}

#[test]
fn comparator_magnitude_scaling() {
    // exp 0.01 (3c23d70a) with terms of magnitude 10 (A block): 3e-7 off passes only because
    // of the magnitude; 1e-4 off fails either way
    let with_mag = |got: &str| {
        format!(
            "P 0 forward training linear f32>f32 x\nT linear fwd f32 f32 0\n\
             V f32 1\n{got}\nE\nA f32 1\n41200000\nE\nX\nZ end\n"
        )
    };
    let no_mag = |got: &str| {
        format!("P 0 forward training linear f32>f32 x\nT linear fwd f32 f32 0\nV f32 1\n{got}\nE\nX\nZ end\n")
    };
    let near = format!("{:08x}", (0.01f32 + 3e-7).to_bits());
    let far = format!("{:08x}", (0.01f32 + 1e-4).to_bits());
    compare("a", &with_mag("3c23d70a"), "b", &with_mag(&near), false).unwrap();
    assert!(compare("a", &no_mag("3c23d70a"), "b", &no_mag(&near), false).is_err());
    let err = compare("a", &with_mag("3c23d70a"), "b", &with_mag(&far), false).unwrap_err();
    assert!(err.contains("(mag 1e1)"), "{err}");
    // the |input| block is compared too
    let mut bad_a = with_mag("3c23d70a");
    bad_a = bad_a.replace("41200000", "41200100");
    let err = compare("a", &with_mag("3c23d70a"), "b", &bad_a, false).unwrap_err();
    assert!(err.contains("|input| output"), "{err}");
}

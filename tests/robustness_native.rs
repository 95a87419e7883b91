//! Robustness of the native `resample_*` API against hostile C input: problem descriptions
//! with random ranks, algorithms, directions, types, rules and nearest modes; zero, huge,
//! negative and overflowing sizes and strides; NaN/inf/denormal/huge scales and offsets;
//! executions with NULL, too small, overlapping and in-place buffers. Every call must return
//! a known status (a caught panic, RESAMPLE_RUNTIME_ERROR, counts as a failure), refused
//! calls leave a message, and successful executions stay inside their buffers. See
//! `robustness_common` for the guard and reproduction.

mod robustness_common;

use std::ffi::CStr;
use std::ptr::{null, null_mut};

use resample::capi::native::*;
use robustness_common::*;

const OK_STATUS: [resample_status_t; 4] = [
    RESAMPLE_SUCCESS,
    RESAMPLE_INVALID_ARGUMENT,
    RESAMPLE_UNSUPPORTED,
    RESAMPLE_OUT_OF_MEMORY,
];

fn small_or_extreme(rng: &mut Rng) -> i64 {
    if rng.chance(0.95) {
        rng.range(0, 9)
    } else {
        // Sizes between 2^16 and 2^40 can form valid problems whose tables take long to
        // build (legitimately); keep the extremes that must be refused, and 2^16.
        match rng.i64_extreme() {
            v if v > 1 << 16 && v < 1 << 40 => 1 << 16,
            v => v,
        }
    }
}

/// Usually in `lo..=hi` (valid), sometimes in the wider `wlo..=whi`.
fn mostly(rng: &mut Rng, lo: i64, hi: i64, wlo: i64, whi: i64) -> i32 {
    if rng.chance(0.93) {
        rng.range(lo, hi) as i32
    } else {
        rng.range(wlo, whi) as i32
    }
}

fn random_problem(rng: &mut Rng) -> resample_problem_t {
    let mut p = resample_problem_t {
        rank: if rng.chance(0.9) {
            rng.range(1, 5) as i32
        } else {
            rng.pick(&[0, -1, 6, i32::MAX, i32::MIN])
        },
        algorithm: mostly(rng, 0, 2, -1, 3),
        direction: mostly(rng, 0, 1, -1, 2),
        src_type: mostly(rng, 1, 6, 0, 8),
        dst_type: mostly(rng, 1, 6, 0, 8),
        ..Default::default()
    };
    let strided = rng.chance(0.4);
    for d in 0..5 {
        p.src_dims[d] = small_or_extreme(rng);
        p.dst_dims[d] = if rng.chance(0.4) {
            p.src_dims[d]
        } else {
            small_or_extreme(rng)
        };
        if strided {
            p.src_strides[d] = small_or_extreme(rng);
            p.dst_strides[d] = small_or_extreme(rng);
        }
        let a = &mut p.axes[d];
        a.rule = if rng.chance(0.3) {
            0
        } else {
            mostly(rng, 1, 12, -1, 14)
        };
        a.nearest_mode = mostly(rng, 0, 4, -1, 6);
        a.scale = if rng.chance(0.5) {
            0.0
        } else if rng.chance(0.5) {
            rng.pick(&[0.25, 0.5, 1.0, 1.5, 2.0, 3.7])
        } else {
            rng.f64_extreme()
        };
        a.input_offset = if rng.chance(0.7) {
            0.5
        } else {
            rng.f64_extreme()
        };
        a.output_offset = if rng.chance(0.7) {
            -0.5
        } else {
            rng.f64_extreme()
        };
    }
    p
}

fn message() -> String {
    unsafe { CStr::from_ptr(resample_last_error()) }
        .to_string_lossy()
        .into_owned()
}

unsafe fn check_problem(rng: &mut Rng, fails: &mut Failures, label: &str) {
    let p = random_problem(rng);
    let mut plan: *mut resample_plan_t = null_mut();
    let st = resample_plan_create(&mut plan, &p);
    fails.check(OK_STATUS.contains(&st), || {
        format!("{label}: create -> {st} ({})", message())
    });
    if st != RESAMPLE_SUCCESS {
        fails.check(plan.is_null() && !message().is_empty(), || {
            format!("{label}: refused create left a plan or no message")
        });
        fails.reach("refused");
        return;
    }
    fails.reach("created");
    let (sn, dn) = (resample_plan_src_bytes(plan), resample_plan_dst_bytes(plan));
    if sn > EXEC_LIMIT || dn > EXEC_LIMIT {
        resample_plan_destroy(plan);
        return;
    }
    let mut src = GuardedBuf::new(sn, 0xa5);
    src.fill_random(rng);
    let mut dst = GuardedBuf::new(dn, 0x3c);
    let before = dst.data().to_vec();
    let (s, d) = (src.ptr(), dst.ptr());
    let mut bad: Vec<(&str, resample_status_t)> = vec![(
        "NULL plan",
        resample_execute(null(), s.cast(), sn, d.cast(), dn),
    )];
    if dn > 0 {
        bad.push((
            "NULL dst",
            resample_execute(plan, s.cast(), sn, null_mut(), dn),
        ));
        bad.push((
            "small dst",
            resample_execute(plan, s.cast(), sn, d.cast(), dn - 1),
        ));
    }
    if dn >= 2 {
        // dst + dn wraps the address space. (A merely wild pointer is the caller's word.)
        let wrap = (usize::MAX - (dn - 2)) as *mut std::ffi::c_void;
        bad.push((
            "wrapping dst",
            resample_execute(plan, s.cast(), sn, wrap, dn),
        ));
    }
    if sn > 0 && dn > 0 {
        bad.push(("NULL src", resample_execute(plan, null(), sn, d.cast(), dn)));
        bad.push((
            "small src",
            resample_execute(plan, s.cast(), sn - 1, d.cast(), dn),
        ));
    }
    for (what, st) in bad {
        fails.check(st != RESAMPLE_SUCCESS && OK_STATUS.contains(&st), || {
            format!("{label}: execute with {what} -> {st}")
        });
    }
    fails.check(dst.data() == &before[..], || {
        format!("{label}: refused execute wrote")
    });
    let st = resample_execute(plan, s.cast(), sn, d.cast(), dn);
    fails.check(st == RESAMPLE_SUCCESS, || {
        format!("{label}: execute -> {st} ({})", message())
    });
    fails.reach("executed");
    if sn <= dn && rng.chance(0.3) {
        let st = resample_execute(plan, d.cast(), sn, d.cast(), dn);
        fails.check(st == RESAMPLE_SUCCESS, || {
            format!("{label}: in place -> {st}")
        });
        fails.reach("in place");
    }
    fails.check(src.intact() && dst.intact(), || {
        format!("{label}: execute wrote outside its buffers")
    });
    resample_plan_destroy(plan);
}

#[test]
fn plans_survive_garbage() {
    install_guard();
    let seed = seed();
    let mut fails = Failures::default();
    for i in cases(6000) {
        run_case(&mut fails, "native", seed, i, |rng, f, label| unsafe {
            check_problem(rng, f, label)
        });
    }
    for what in ["created", "executed", "refused"] {
        let n = fails.reached.get(what).copied().unwrap_or(0);
        assert!(n > 20, "only {n} cases {what}");
    }
    fails.finish("native", seed);
}

#[test]
fn null_arguments_and_huge_tables() {
    install_guard();
    let mut fails = Failures::default();
    unsafe {
        begin_case("native NULL");
        let st = resample_plan_create(null_mut(), null());
        fails.check(st == RESAMPLE_INVALID_ARGUMENT, || {
            format!("create(NULL) -> {st}")
        });
        resample_plan_destroy(null_mut());
        fails.check(resample_plan_src_bytes(null()) == 0, || {
            "src_bytes(NULL)".into()
        });
        fails.check(
            CStr::from_ptr(resample_plan_kernel(null())).is_empty(),
            || "kernel(NULL)".into(),
        );
        let s = CStr::from_ptr(resample_status_string(-7)).to_str().unwrap();
        fails.check(s == "unknown", || format!("status_string(-7) = {s}"));
        end_case();
        // Tables for 2^40 outputs cannot be allocated under the address-space cap: the
        // answer is out-of-memory (or a clean refusal), not an abort.
        begin_case("native huge tables");
        let mut p = resample_problem_t {
            rank: 1,
            algorithm: RESAMPLE_LINEAR,
            src_type: RESAMPLE_U8,
            dst_type: RESAMPLE_U8,
            ..Default::default()
        };
        p.src_dims[0] = 4;
        p.dst_dims[0] = 1 << 31;
        p.dst_strides[0] = 0;
        p.axes[0].rule = RESAMPLE_RULE_ONNX_HALF_PIXEL;
        let mut plan = null_mut();
        let st = resample_plan_create(&mut plan, &p);
        fails.check(OK_STATUS.contains(&st), || format!("huge -> {st}"));
        resample_plan_destroy(plan);
        // A tent as wide as the input: I * O table entries, refused before allocation.
        p.algorithm = RESAMPLE_ANTIALIAS;
        p.direction = RESAMPLE_BACKWARD;
        p.src_dims[0] = 9;
        p.dst_dims[0] = 1 << 20;
        p.axes[0].scale = 1e-30;
        let st = resample_plan_create(&mut plan, &p);
        fails.check(st == RESAMPLE_OUT_OF_MEMORY, || {
            format!("wide tent -> {st}")
        });
        end_case();
    }
    fails.finish("native_null", DEFAULT_SEED);
}

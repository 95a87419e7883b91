//! Times the core's backward kernels on the peer benchmark's backward problems.
//! `cargo run --release --example bwd_bench [filter] [runs]`; OMP_NUM_THREADS sets threads.

use resample::core::*;
use std::time::Instant;

#[allow(clippy::too_many_arguments)]
fn bench(
    name: &str,
    alg: Algorithm,
    dt: DataType,
    last: bool,
    n: usize,
    c: usize,
    inn: &[usize],
    out: &[usize],
) {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).is_some_and(|f| !name.contains(f.as_str())) {
        return;
    }
    let runs: usize = args.get(2).and_then(|n| n.parse().ok()).unwrap_or(31);
    let mk = |sp: &[usize]| {
        let mut d = vec![n, c];
        d.extend_from_slice(sp);
        if last {
            let r = d.len();
            let mut perm: Vec<usize> = vec![0];
            perm.extend(2..r);
            perm.push(1);
            Layout::dense_permuted(dt, &d, &perm)
        } else {
            Layout::dense(dt, &d)
        }
    };
    let mut axes = vec![AxisRule::Identity; 2];
    axes.extend(inn.iter().map(|_| AxisRule::OnednnHalfPixel));
    let p = Problem {
        alg,
        direction: Direction::Backward,
        axes,
        src: mk(out),
        dst: mk(inn),
        post_ops: vec![],
        numerics: Numerics::Onednn,
    };
    let plan = Plan::new(p.clone()).expect("plan");
    let s: Vec<u8> = match dt {
        DataType::F32 => (0..p.src.span_bytes().unwrap() / 4)
            .flat_map(|i| ((i % 97) as f32 * 0.1).to_ne_bytes())
            .collect(),
        _ => (0..p.src.span_bytes().unwrap() / 2)
            .flat_map(|i| (((((i % 97) as f32 * 0.1).to_bits()) >> 16) as u16).to_ne_bytes())
            .collect(),
    };
    let mut d = vec![0u8; p.dst.span_bytes().unwrap()];
    plan.execute(&s, &mut d, &[]).unwrap();
    let mut times = Vec::new();
    let t0 = Instant::now();
    while times.len() < runs || t0.elapsed().as_secs_f64() < 0.2 {
        let t = Instant::now();
        plan.execute(&s, &mut d, &[]).unwrap();
        times.push(t.elapsed().as_secs_f64() * 1e3);
    }
    times.sort_by(|a, b| a.partial_cmp(b).unwrap());
    println!(
        "{name:<52} {:>9.4} ms  ({})",
        times[times.len() / 2],
        plan.kernel_name()
    );
}

fn main() {
    if std::env::var("TAPS").is_ok() {
        print_taps();
    }
    use Algorithm::*;
    let (f, h) = (DataType::F32, DataType::Bf16);
    bench(
        "nearest_nchw_8x64_56to112",
        Nearest,
        f,
        false,
        8,
        64,
        &[56, 56],
        &[112, 112],
    );
    bench(
        "linear_nchw_8x64_56to112",
        Linear,
        f,
        false,
        8,
        64,
        &[56, 56],
        &[112, 112],
    );
    bench(
        "linear_nhwc_8x64_56to112",
        Linear,
        f,
        true,
        8,
        64,
        &[56, 56],
        &[112, 112],
    );
    bench(
        "linear_nchw_8x256_32to64",
        Linear,
        f,
        false,
        8,
        256,
        &[32, 32],
        &[64, 64],
    );
    bench(
        "linear_nhwc_4x40_40x64to80x128",
        Linear,
        f,
        true,
        4,
        40,
        &[40, 64],
        &[80, 128],
    );
    bench(
        "nearest_nchw_8x256_32to64",
        Nearest,
        f,
        false,
        8,
        256,
        &[32, 32],
        &[64, 64],
    );
    bench(
        "nearest_nhwc_2x256_50to100",
        Nearest,
        f,
        true,
        2,
        256,
        &[50, 50],
        &[100, 100],
    );
    bench(
        "linear_nhwc_bf16_4x48_20x32to40x64",
        Linear,
        h,
        true,
        4,
        48,
        &[20, 32],
        &[40, 64],
    );
    bench(
        "linear_ncdhw_2x16_8to16",
        Linear,
        f,
        false,
        2,
        16,
        &[8, 8, 8],
        &[16, 16, 16],
    );
    bench(
        "nearest_nchw_8x64_112to56",
        Nearest,
        f,
        false,
        8,
        64,
        &[112, 112],
        &[56, 56],
    );
    bench(
        "linear_nchw_8x64_112to56",
        Linear,
        f,
        false,
        8,
        64,
        &[112, 112],
        &[56, 56],
    );
    bench(
        "nearest_ncdhw_2x16_8to16",
        Nearest,
        f,
        false,
        2,
        16,
        &[8, 8, 8],
        &[16, 16, 16],
    );
    bench(
        "linear_ndhwc_2x16_8to16",
        Linear,
        f,
        true,
        2,
        16,
        &[8, 8, 8],
        &[16, 16, 16],
    );
    for w in [8usize, 12, 16, 24] {
        let nm = format!("w{w}_linear_nchw_4x64");
        bench(&nm, Linear, f, false, 4, 64, &[w, w], &[2 * w, 2 * w]);
        let nm = format!("w{w}_nearest_nchw_4x64");
        bench(&nm, Nearest, f, false, 4, 64, &[w, w], &[2 * w, 2 * w]);
        let nm = format!("w{w}_linear_down_nchw_4x64");
        bench(&nm, Linear, f, false, 4, 64, &[2 * w, 2 * w], &[w, w]);
    }
}

#[allow(dead_code)]
fn print_taps() {
    let t =
        resample::core::axis::backward_taps(&AxisRule::OnednnHalfPixel, Algorithm::Linear, 8, 16);
    for i in 0..8 {
        for g in 0..t.groups {
            println!("{i} {g} {:?}", t.group(i, g));
        }
    }
}

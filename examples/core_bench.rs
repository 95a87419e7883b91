//! Times the core on a few representative problems (no C face involved).
//! `cargo run --release --example core_bench`; OMP_NUM_THREADS sets the thread count.

use resample::core::*;
use std::time::Instant;

fn bench(name: &str, alg: Algorithm, dir: Direction, src: Layout, dst: Layout) {
    // Optional arguments: a name filter and the number of timed runs.
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).is_some_and(|f| !name.contains(f.as_str())) {
        return;
    }
    let runs: usize = args.get(2).and_then(|n| n.parse().ok()).unwrap_or(15);
    let rank = src.rank();
    let mut axes = vec![AxisRule::Identity; 2];
    axes.extend(std::iter::repeat_n(AxisRule::OnednnHalfPixel, rank - 2));
    let p = Problem {
        alg,
        direction: dir,
        axes,
        src,
        dst,
        post_ops: vec![],
        numerics: Numerics::Onednn,
    };
    let plan = Plan::new(p.clone()).expect("plan");
    // Normal f32 values (random bytes would make denormals, which are slow on x86).
    let s: Vec<u8> = (0..p.src.span_bytes().unwrap() / 4)
        .flat_map(|i| ((i % 97) as f32 * 0.1).to_ne_bytes())
        .collect();
    let mut d = vec![0u8; p.dst.span_bytes().unwrap()];
    plan.execute(&s, &mut d, &[]).unwrap();
    let mut times = Vec::new();
    for _ in 0..runs {
        let t = Instant::now();
        plan.execute(&s, &mut d, &[]).unwrap();
        times.push(t.elapsed().as_secs_f64() * 1e3);
    }
    times.sort_by(|a, b| a.partial_cmp(b).unwrap());
    println!(
        "{name:<48} {:>9.3} ms  ({})",
        times[times.len() / 2],
        plan.kernel_name()
    );
}

fn main() {
    let f = DataType::F32;
    let nchw = |d: &[usize]| Layout::dense(f, d);
    let nhwc = |d: &[usize]| Layout::dense_permuted(f, d, &[0, 2, 3, 1]);
    use Algorithm::*;
    use Direction::*;
    bench(
        "linear fwd nchw 3x3x227x227->350",
        Linear,
        Forward,
        nchw(&[3, 3, 227, 227]),
        nchw(&[3, 3, 350, 350]),
    );
    bench(
        "nearest fwd nchw 8x256x32x32->64",
        Nearest,
        Forward,
        nchw(&[8, 256, 32, 32]),
        nchw(&[8, 256, 64, 64]),
    );
    bench(
        "nearest fwd nhwc 2x1280x12x12->24",
        Nearest,
        Forward,
        nhwc(&[2, 1280, 12, 12]),
        nhwc(&[2, 1280, 24, 24]),
    );
    bench(
        "linear fwd nhwc 2x256x64x64->128",
        Linear,
        Forward,
        nhwc(&[2, 256, 64, 64]),
        nhwc(&[2, 256, 128, 128]),
    );
    bench(
        "linear bwd nchw 3x3x227x227<-350",
        Linear,
        Backward,
        nchw(&[3, 3, 350, 350]),
        nchw(&[3, 3, 227, 227]),
    );
    bench(
        "linear bwd nhwc 2x256x64x64<-128",
        Linear,
        Backward,
        nhwc(&[2, 256, 128, 128]),
        nhwc(&[2, 256, 64, 64]),
    );
    bench(
        "nearest bwd nchw 8x256x32x32<-64",
        Nearest,
        Backward,
        nchw(&[8, 256, 64, 64]),
        nchw(&[8, 256, 32, 32]),
    );
}

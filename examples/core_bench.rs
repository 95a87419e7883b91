//! Times the core on a few representative problems (no C face involved).
//! `cargo run --release --example core_bench`; OMP_NUM_THREADS sets the thread count.

use resample::core::*;
use std::time::Instant;

/// CPU time of the whole process (all threads): robust to other processes sharing the cores.
fn cpu_ms() -> f64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: a valid timespec out-pointer.
    unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut ts) };
    ts.tv_sec as f64 * 1e3 + ts.tv_nsec as f64 * 1e-6
}

fn bench(name: &str, alg: Algorithm, dir: Direction, src: Layout, dst: Layout) {
    bench_rule(name, alg, dir, src, dst, None)
}

/// As [`bench`] with one rule for every spatial axis (`None`: oneDNN half-pixel); a
/// `Floor` rule gets the ratio of each axis.
fn bench_rule(
    name: &str,
    alg: Algorithm,
    dir: Direction,
    src: Layout,
    dst: Layout,
    rule: Option<AxisRule>,
) {
    // Optional arguments: a name filter and the number of timed runs.
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).is_some_and(|f| !name.contains(f.as_str())) {
        return;
    }
    let runs: usize = args.get(2).and_then(|n| n.parse().ok()).unwrap_or(15);
    let rank = src.rank();
    let mut axes = vec![AxisRule::Identity; 2];
    for d in 2..rank {
        let (i, o) = match dir {
            Direction::Forward => (src.dims[d], dst.dims[d]),
            Direction::Backward => (dst.dims[d], src.dims[d]),
        };
        axes.push(match rule {
            None => AxisRule::OnednnHalfPixel,
            Some(AxisRule::Floor { exact, .. }) => AxisRule::Floor {
                ratio: i as f32 / o as f32,
                exact,
            },
            Some(r) => r,
        });
    }
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
    // Normal values of the source type (random bytes would make denormals and NaNs, which
    // are slow on x86).
    let n = p.src.span_bytes().unwrap() / p.src.dtype.size();
    let v = |i: usize| (i % 97) as f32 * 0.1 - 4.0;
    let bytes: Vec<u8> = match p.src.dtype {
        DataType::Bf16 => (0..n)
            .flat_map(|i| ((v(i).to_bits() >> 16) as u16).to_ne_bytes())
            .collect(),
        DataType::U8 | DataType::S8 => (0..n).map(|i| (i % 97) as u8).collect(),
        _ => (0..n).flat_map(|i| v(i).to_ne_bytes()).collect(),
    };
    // src 64-byte aligned too (as oneDNN memory objects and the peer benchmark's buffers).
    let mut sraw = vec![0u8; bytes.len() + 64];
    let sshift = (64 - sraw.as_ptr() as usize % 64) % 64;
    let s = &mut sraw[sshift..sshift + bytes.len()];
    s.copy_from_slice(&bytes);
    drop(bytes);
    let s = &*s;
    // dst 64-byte aligned (as oneDNN allocates memory objects), or that many bytes past it
    // with RESAMPLE_BENCH_MISALIGN=n (16: what malloc returns for large blocks).
    let dn = p.dst.span_bytes().unwrap();
    let mut raw = vec![0u8; dn + 4096];
    let shift = (64 - raw.as_ptr() as usize % 64) % 64
        + std::env::var("RESAMPLE_BENCH_MISALIGN")
            .map_or(0, |v| v.parse::<usize>().unwrap_or(16) % 4096);
    let d = &mut raw[shift..shift + dn];
    plan.execute(s, d, &[]).unwrap();
    let (mut times, mut cpu) = (Vec::new(), Vec::new());
    for _ in 0..runs {
        let (t, c) = (Instant::now(), cpu_ms());
        plan.execute(s, d, &[]).unwrap();
        times.push(t.elapsed().as_secs_f64() * 1e3);
        cpu.push(cpu_ms() - c);
    }
    times.sort_by(|a, b| a.partial_cmp(b).unwrap());
    cpu.sort_by(|a, b| a.partial_cmp(b).unwrap());
    println!(
        "{name:<48} {:>9.3} ms  cpu {:>9.3} ms  ({})",
        times[times.len() / 2],
        cpu[cpu.len() / 2],
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
        "nearest fwd nchw 8x64x112x112->56",
        Nearest,
        Forward,
        nchw(&[8, 64, 112, 112]),
        nchw(&[8, 64, 56, 56]),
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
    // Channels-last forward rows of the peer benchmark (issue 8).
    for (c, i, o) in [
        (256, (32, 32), (64, 64)),
        (64, (112, 112), (75, 75)),
        (64, (56, 56), (112, 112)),
    ] {
        bench(
            &format!("linear fwd nhwc 8x{c} {}x{}->{}x{}", i.0, i.1, o.0, o.1),
            Linear,
            Forward,
            nhwc(&[8, c, i.0, i.1]),
            nhwc(&[8, c, o.0, o.1]),
        );
    }
    let ndhwc = |d: &[usize]| Layout::dense_permuted(f, d, &[0, 2, 3, 4, 1]);
    bench(
        "nearest fwd ndhwc 4x16 6x6x6->12x6x3 (small)",
        Nearest,
        Forward,
        ndhwc(&[4, 16, 6, 6, 6]),
        ndhwc(&[4, 16, 12, 6, 3]),
    );
    bench(
        "nearest fwd nwc 16x64 32->64 (small)",
        Nearest,
        Forward,
        Layout::dense_permuted(f, &[16, 64, 32], &[0, 2, 1]),
        Layout::dense_permuted(f, &[16, 64, 64], &[0, 2, 1]),
    );
    bench(
        "nearest fwd nhwc 8x64 56x56->112x112",
        Nearest,
        Forward,
        nhwc(&[8, 64, 56, 56]),
        nhwc(&[8, 64, 112, 112]),
    );
    let u8hwc = |d: &[usize]| Layout::dense_permuted(DataType::U8, d, &[0, 2, 3, 1]);
    bench(
        "linear fwd u8 image hwc 1080x1920x3->2160x3840",
        Linear,
        Forward,
        u8hwc(&[1, 3, 1080, 1920]),
        u8hwc(&[1, 3, 2160, 3840]),
    );
    bench(
        "linear fwd f32 nchw 1x3x1080x1920->2160x3840",
        Linear,
        Forward,
        nchw(&[1, 3, 1080, 1920]),
        nchw(&[1, 3, 2160, 3840]),
    );
    bench(
        "nearest fwd f32 nchw 8x64x56x56->112x112",
        Nearest,
        Forward,
        nchw(&[8, 64, 56, 56]),
        nchw(&[8, 64, 112, 112]),
    );
    bench(
        "linear fwd f32 nchw 8x64x112x112->75x75",
        Linear,
        Forward,
        nchw(&[8, 64, 112, 112]),
        nchw(&[8, 64, 75, 75]),
    );
    let dml = Some(AxisRule::Affine {
        scale: 2.0,
        input_offset: 0.5,
        output_offset: -0.5,
        rounding: NearestRounding::HalfUp,
        antialias: false,
    });
    bench_rule(
        "linear fwd dml 4-D 1x3x1080x1920->2160x3840",
        Linear,
        Forward,
        nchw(&[1, 3, 1080, 1920]),
        nchw(&[1, 3, 2160, 3840]),
        dml,
    );
    bench(
        "linear fwd f32 image hwc 1080x1920x3->2160x3840",
        Linear,
        Forward,
        nhwc(&[1, 3, 1080, 1920]),
        nhwc(&[1, 3, 2160, 3840]),
    );
    let bf = |d: &[usize]| Layout::dense_permuted(DataType::Bf16, d, &[0, 2, 3, 1]);
    bench(
        "linear fwd nhwc bf16 4x48 20x32->40x64",
        Linear,
        Forward,
        bf(&[4, 48, 20, 32]),
        bf(&[4, 48, 40, 64]),
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
    // The backward workloads of the performance tracker (issue 8), 8x64 f32.
    let floor = Some(AxisRule::Floor {
        ratio: 1.0,
        exact: false,
    });
    for (alg, an) in [(Nearest, "nearest"), (Linear, "linear")] {
        for (isz, osz) in [(56, 112), (112, 56), (56, 75)] {
            bench(
                &format!("{an} bwd nchw 8x64 {isz}->{osz}"),
                alg,
                Backward,
                nchw(&[8, 64, osz, osz]),
                nchw(&[8, 64, isz, isz]),
            );
            bench(
                &format!("{an} bwd nhwc 8x64 {isz}->{osz}"),
                alg,
                Backward,
                nhwc(&[8, 64, osz, osz]),
                nhwc(&[8, 64, isz, isz]),
            );
        }
    }
    for (isz, osz) in [(56, 56), (112, 56), (56, 112)] {
        bench_rule(
            &format!("ascend nearest bwd nchw 8x64 {isz}->{osz}"),
            Nearest,
            Backward,
            nchw(&[8, 64, osz, osz]),
            nchw(&[8, 64, isz, isz]),
            floor,
        );
    }
    // DRAM-bound backward (hundreds of MB) next to a memcpy of the same traffic.
    if std::env::args().nth(1).is_some_and(|f| f == "roofline") {
        let (src, dst) = (nchw(&[2, 64, 512, 512]), nchw(&[2, 64, 256, 256]));
        let bytes = src.span_bytes().unwrap() + dst.span_bytes().unwrap();
        let a = vec![1u8; bytes / 2];
        let mut b = vec![0u8; bytes / 2];
        let mut t = Vec::new();
        for _ in 0..9 {
            let c = Instant::now();
            b.copy_from_slice(std::hint::black_box(&a));
            t.push(c.elapsed().as_secs_f64() * 1e3);
        }
        t.sort_by(|x, y| x.partial_cmp(y).unwrap());
        println!(
            "memcpy of the same bytes ({} MB r+w)            {:>9.3} ms",
            bytes >> 20,
            t[4]
        );
        for (alg, an) in [(Nearest, "nearest"), (Linear, "linear")] {
            bench(
                &format!("roofline {an} bwd nchw 2x64x256x256<-512"),
                alg,
                Backward,
                src.clone(),
                dst.clone(),
            );
        }
        bench(
            "roofline linear bwd nhwc 2x64x256x256<-512",
            Linear,
            Backward,
            nhwc(&[2, 64, 512, 512]),
            nhwc(&[2, 64, 256, 256]),
        );
    }
}

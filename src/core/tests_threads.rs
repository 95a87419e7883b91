//! Determinism across thread counts: every kernel, forward and backward, must give the same
//! bytes at 1, 2, 3 and 8 threads. The work split may never change an operation order (each
//! output is reduced by one thread, in the reference order), so a thread count that divides
//! the work differently cannot change a bit.

use super::tests::Rng;
use super::*;

fn fill(rng: &mut Rng, l: &Layout) -> Vec<u8> {
    let n = l.span_bytes().unwrap();
    let sz = l.dtype.size();
    let mut b = vec![0u8; n];
    for i in 0..n / sz {
        let v = match l.dtype {
            DataType::S8 | DataType::U8 | DataType::S32 => rng.f32(-20.0, 300.0),
            _ => rng.f32(-10.0, 10.0),
        };
        // SAFETY: element `i < n / sz` of the `n`-byte buffer has room for one `sz`-byte value.
        unsafe { dtype::store_f32(b.as_mut_ptr().add(i * sz), l.dtype, v, Numerics::Ieee) };
    }
    b
}

/// Problems large enough to be split across threads: per algorithm and direction, plain and
/// channels-last orders, 2-D and 3-D, several data types and axis rules.
fn problems() -> Vec<Problem> {
    let mut out = Vec::new();
    let shapes: [(&[usize], &[usize]); 4] = [
        (&[2, 16, 40, 37], &[2, 16, 73, 29]),
        (&[1, 5, 61, 90], &[1, 5, 30, 181]),
        (&[2, 3, 9, 17, 23], &[2, 3, 14, 8, 47]),
        (&[3, 40, 300], &[3, 40, 131]),
    ];
    for (si, &(fin, fout)) in shapes.iter().enumerate() {
        let rank = fin.len();
        let orders: Vec<Vec<usize>> = vec![
            (0..rank).collect(),
            // channels-last
            std::iter::once(0).chain(2..rank).chain([1]).collect(),
        ];
        for order in &orders {
            for alg in [Algorithm::Nearest, Algorithm::Linear] {
                for direction in [Direction::Forward, Direction::Backward] {
                    for rule in 0..3 {
                        let axes: Vec<AxisRule> = (0..rank)
                            .map(|d| {
                                if d < 2 {
                                    return AxisRule::Identity;
                                }
                                match rule {
                                    0 => AxisRule::OnednnHalfPixel,
                                    1 => AxisRule::Affine {
                                        scale: fout[d] as f32 / fin[d] as f32,
                                        input_offset: 0.5,
                                        output_offset: -0.5,
                                        rounding: NearestRounding::HalfUp,
                                        antialias: true,
                                    },
                                    _ => AxisRule::Floor {
                                        ratio: fin[d] as f32 / fout[d] as f32,
                                        exact: true,
                                    },
                                }
                            })
                            .collect();
                        let dt = [DataType::F32, DataType::Bf16, DataType::U8][(si + rule) % 3];
                        let (sdims, ddims) = match direction {
                            Direction::Forward => (fin, fout),
                            Direction::Backward => (fout, fin),
                        };
                        let numerics = if rule == 0 {
                            Numerics::Onednn
                        } else {
                            Numerics::Ieee
                        };
                        let post_ops = if direction == Direction::Forward && rule == 0 {
                            vec![PostOp::Sum {
                                scale: 0.5,
                                zero_point: 0,
                            }]
                        } else {
                            vec![]
                        };
                        out.push(Problem {
                            alg,
                            direction,
                            axes,
                            src: Layout::dense_permuted(dt, sdims, order),
                            dst: Layout::dense_permuted(DataType::F32, ddims, order),
                            post_ops,
                            numerics,
                        });
                    }
                }
            }
        }
    }
    out
}

#[test]
fn bit_identical_at_1_2_3_8_threads() {
    let before = threads::max_threads();
    let mut rng = Rng::new(99);
    let mut kinds = std::collections::BTreeSet::new();
    let mut failures = Vec::new();
    for (i, p) in problems().into_iter().enumerate() {
        let plan = match Plan::new(p.clone()) {
            Ok(plan) => plan,
            Err(e) => panic!("problem {i}: plan refused: {e}\n{p:?}"),
        };
        kinds.insert(plan.kernel_name());
        let src = fill(&mut rng, &p.src);
        let init = fill(&mut rng, &p.dst);
        let mut first: Option<Vec<u8>> = None;
        for n in [1, 2, 3, 8] {
            threads::set_max_threads(n);
            let mut out = init.clone();
            plan.execute(&src, &mut out, &[]).unwrap();
            match &first {
                None => first = Some(out),
                Some(f) if *f != out => failures.push(format!(
                    "problem {i} ({}) at {n} threads",
                    plan.kernel_name()
                )),
                _ => {}
            }
        }
    }
    threads::set_max_threads(before);
    assert!(failures.is_empty(), "{failures:#?}");
    // every kernel family of the forward and backward paths took part
    assert!(kinds.len() >= 4, "kernels exercised: {kinds:?}");
    eprintln!("kernels exercised at 1/2/3/8 threads: {kinds:?}");
}

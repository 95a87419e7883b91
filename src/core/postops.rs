//! Post-operations applied to the f32 result of a forward resampling before the store.
//! Formulas follow oneDNN 2.6 `math_utils.hpp` (f32, libm calls as in C), plus the three
//! whose 3.x definitions differ (`SoftReluAlpha`, `Hardsigmoid`, `HardswishAlphaBeta`).

use super::layout::Layout;
use std::cmp::Ordering;

/// Eltwise algorithms (oneDNN 2.6 forward set and 3.x's parameterised ones).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EltwiseAlg {
    Relu,
    Tanh,
    Elu,
    Square,
    Abs,
    Sqrt,
    Linear,
    BoundedRelu,
    SoftRelu,
    Logistic,
    Exp,
    GeluTanh,
    Swish,
    Log,
    Clip,
    ClipV2,
    Pow,
    GeluErf,
    Round,
    Logsigmoid,
    Mish,
    Hardswish,
    /// 3.x soft_relu: `soft_relu(alpha * s) / alpha`.
    SoftReluAlpha,
    /// 3.x: `alpha * s + beta` clamped to [0, 1].
    Hardsigmoid,
    /// 3.x hardswish: `s * hardsigmoid(s, alpha, beta)`.
    HardswishAlphaBeta,
}

/// Binary post-op operators; comparisons give 1.0 or 0.0.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinaryOp {
    Add,
    Mul,
    Max,
    Min,
    Div,
    Sub,
    Ge,
    Gt,
    Le,
    Lt,
    Eq,
    Ne,
}

#[derive(Clone, Debug, PartialEq)]
pub enum PostOp {
    /// `res += scale * (dst_old - zero_point)`.
    Sum { scale: f32, zero_point: i32 },
    /// `res = scale * f(res, alpha, beta)`.
    Eltwise {
        alg: EltwiseAlg,
        alpha: f32,
        beta: f32,
        scale: f32,
    },
    /// `res = op(res, src1[idx])`; `src1` dims are 1 (broadcast) or equal to dst's.
    Binary { op: BinaryOp, src1: Layout },
}

const SOFT_RELU_MAX: f32 = 88.722_83;

fn soft_relu(s: f32) -> f32 {
    if s < SOFT_RELU_MAX {
        (s.exp()).ln_1p()
    } else {
        s
    }
}

fn logistic(s: f32) -> f32 {
    if -s < SOFT_RELU_MAX {
        1.0 / (1.0 + (-s).exp())
    } else {
        0.0
    }
}

fn bounded_relu(s: f32, alpha: f32) -> f32 {
    let s = if s > 0.0 { s } else { 0.0 };
    if s > alpha {
        alpha
    } else {
        s
    }
}

// Not f32::clamp: oneDNN's comparisons map -0.0 to +0.0.
#[allow(clippy::manual_clamp)]
fn hardsigmoid(s: f32, alpha: f32, beta: f32) -> f32 {
    let v = alpha * s + beta;
    if v <= 0.0 {
        0.0
    } else if v >= 1.0 {
        1.0
    } else {
        v
    }
}

/// `f(s, alpha, beta)` of one eltwise algorithm (without the post-op scale).
pub fn eltwise(alg: EltwiseAlg, s: f32, alpha: f32, beta: f32) -> f32 {
    match alg {
        EltwiseAlg::Relu => {
            if s > 0.0 {
                s
            } else {
                s * alpha
            }
        }
        EltwiseAlg::Tanh => s.tanh(),
        EltwiseAlg::Elu => {
            if s > 0.0 {
                s
            } else {
                alpha * s.exp_m1()
            }
        }
        EltwiseAlg::Square => s * s,
        EltwiseAlg::Abs => {
            if s > 0.0 {
                s
            } else {
                -s
            }
        }
        EltwiseAlg::Sqrt => s.sqrt(),
        EltwiseAlg::Linear => alpha * s + beta,
        EltwiseAlg::BoundedRelu => bounded_relu(s, alpha),
        EltwiseAlg::SoftRelu => soft_relu(s),
        EltwiseAlg::Logistic => logistic(s),
        EltwiseAlg::Exp => s.exp(),
        EltwiseAlg::GeluTanh => {
            // The constant as oneDNN writes it (exactly representable).
            #[allow(clippy::excessive_precision)]
            let v = (0.797_884_583_473_205_566_406_25_f32 * s * (1.0 + 0.044715 * s * s)).tanh();
            (0.5 * s as f64 * (1.0 + v as f64)) as f32
        }
        EltwiseAlg::Swish => s * logistic(alpha * s),
        EltwiseAlg::Log => s.ln(),
        EltwiseAlg::Clip => {
            let s = if s > alpha { s } else { alpha };
            if s > beta {
                beta
            } else {
                s
            }
        }
        EltwiseAlg::ClipV2 => {
            let s = if s > alpha { s } else { alpha };
            if s < beta {
                s
            } else {
                beta
            }
        }
        EltwiseAlg::Pow => alpha * s.powf(beta),
        EltwiseAlg::GeluErf => 0.5 * s * (1.0 + libm_erff(s * std::f32::consts::FRAC_1_SQRT_2)),
        EltwiseAlg::Round => s.round_ties_even(),
        EltwiseAlg::Logsigmoid => -soft_relu(-s),
        EltwiseAlg::Mish => s * soft_relu(s).tanh(),
        EltwiseAlg::Hardswish => (s / 6.0) * bounded_relu(s + 3.0, 6.0),
        EltwiseAlg::SoftReluAlpha => soft_relu(s * alpha) / alpha,
        EltwiseAlg::Hardsigmoid => hardsigmoid(s, alpha, beta),
        EltwiseAlg::HardswishAlphaBeta => s * hardsigmoid(s, alpha, beta),
    }
}

fn libm_erff(x: f32) -> f32 {
    // SAFETY: erff is a pure libm function.
    unsafe { libc_erff(x) }
}

extern "C" {
    #[link_name = "erff"]
    fn libc_erff(x: f32) -> f32;
}

/// Applies a binary operator.
pub fn binary(op: BinaryOp, a: f32, b: f32) -> f32 {
    let cmp = |c: bool| if c { 1.0 } else { 0.0 };
    match op {
        BinaryOp::Add => a + b,
        BinaryOp::Mul => a * b,
        // oneDNN's nstl::max / nstl::min (`a > b ? a : b`): a NaN in src1 propagates.
        BinaryOp::Max => {
            if a > b {
                a
            } else {
                b
            }
        }
        BinaryOp::Min => {
            if a < b {
                a
            } else {
                b
            }
        }
        BinaryOp::Div => a / b,
        BinaryOp::Sub => a - b,
        // oneDNN's jit (its default) compares with the unordered predicates NLT/NLE:
        // ge and gt are true when either side is NaN; le, lt, eq are ordered, ne unordered.
        BinaryOp::Ge => cmp(!matches!(a.partial_cmp(&b), Some(Ordering::Less))),
        BinaryOp::Gt => cmp(!matches!(
            a.partial_cmp(&b),
            Some(Ordering::Less | Ordering::Equal)
        )),
        BinaryOp::Le => cmp(a <= b),
        BinaryOp::Lt => cmp(a < b),
        BinaryOp::Eq => cmp(a == b),
        BinaryOp::Ne => cmp(a != b),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn max_min_follow_onednn_nan_rules() {
        assert_eq!(binary(BinaryOp::Max, 1.0, 2.0), 2.0);
        assert_eq!(binary(BinaryOp::Min, 1.0, 2.0), 1.0);
        assert!(binary(BinaryOp::Max, 1.0, f32::NAN).is_nan());
        assert!(binary(BinaryOp::Min, 1.0, f32::NAN).is_nan());
        assert!(binary(BinaryOp::Max, f32::NAN, 1.0) == 1.0);
        assert!(binary(BinaryOp::Min, f32::NAN, 1.0) == 1.0);
    }

    #[test]
    fn eltwise_spot_values() {
        // Values of the docs/spec/onednn.md section 6.1 formulas.
        assert_eq!(eltwise(EltwiseAlg::Relu, -2.0, 0.5, 0.0), -1.0);
        assert_eq!(eltwise(EltwiseAlg::BoundedRelu, 7.0, 6.0, 0.0), 6.0);
        assert_eq!(eltwise(EltwiseAlg::Clip, 5.0, -1.0, 3.0), 3.0);
        assert_eq!(eltwise(EltwiseAlg::ClipV2, -5.0, -1.0, 3.0), -1.0);
        assert_eq!(eltwise(EltwiseAlg::Round, 2.5, 0.0, 0.0), 2.0);
        assert_eq!(
            eltwise(EltwiseAlg::Hardswish, 1.0, 0.0, 0.0),
            1.0 / 6.0 * 4.0
        );
        assert_eq!(eltwise(EltwiseAlg::Logistic, -100.0, 0.0, 0.0), 0.0);
        assert_eq!(eltwise(EltwiseAlg::SoftRelu, 100.0, 0.0, 0.0), 100.0);
        assert_eq!(eltwise(EltwiseAlg::Pow, 3.0, 2.0, 2.0), 18.0);
        assert_eq!(eltwise(EltwiseAlg::Linear, 3.0, 2.0, 1.0), 7.0);
    }
}

#[cfg(test)]
mod comparison_tests {
    use super::*;

    #[test]
    fn comparisons_follow_onednn_jit_predicates_on_nan() {
        let n = f32::NAN;
        let on = |op| {
            [
                binary(op, n, 1.0),
                binary(op, 1.0, n),
                binary(op, 2.0, 1.0),
                binary(op, 1.0, 1.0),
            ]
        };
        assert_eq!(on(BinaryOp::Ge), [1.0, 1.0, 1.0, 1.0]);
        assert_eq!(on(BinaryOp::Gt), [1.0, 1.0, 1.0, 0.0]);
        assert_eq!(on(BinaryOp::Le), [0.0, 0.0, 0.0, 1.0]);
        assert_eq!(on(BinaryOp::Lt), [0.0, 0.0, 0.0, 0.0]);
        assert_eq!(on(BinaryOp::Eq), [0.0, 0.0, 0.0, 1.0]);
        assert_eq!(on(BinaryOp::Ne), [1.0, 1.0, 1.0, 0.0]);
    }
}

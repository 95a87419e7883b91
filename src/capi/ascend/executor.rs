//! The operator executor: phase 1 turns a checked call into one core [`Plan`] bound to
//! the tensors' storage; phase 2 runs it and frees the executor (CANN's
//! `CommonOpExecutorRun`). Live executors are registered, so running a consumed executor
//! again is an error code rather than a use after free.

#![allow(non_snake_case)]

use super::checks::{core_dtype, ensure, invalid, report, Fail, Res};
use super::meta::aclTensor;
use super::types::*;
use crate::capi::exec::Raw;
use crate::core::{Algorithm, AxisRule, CoreError, Direction, Layout, Numerics, Plan, Problem};
use std::collections::HashSet;
use std::ffi::c_void;
use std::sync::Mutex;

/// What phase 2 executes: a plan and the storage it reads and writes.
pub(crate) struct Job {
    plan: Plan,
    src: *const u8,
    src_len: usize,
    dst: *mut u8,
    dst_len: usize,
}

/// An operator prepared by a `…GetWorkspaceSize` call, consumed by the matching run call.
pub struct aclOpExecutor {
    api: &'static str,
    /// `None`: an empty problem, nothing to do.
    job: Option<Job>,
    repeatable: bool,
}

static LIVE: Mutex<Option<HashSet<usize>>> = Mutex::new(None);

fn with_live<R>(f: impl FnOnce(&mut HashSet<usize>) -> R) -> R {
    let mut g = LIVE.lock().unwrap_or_else(|e| e.into_inner());
    f(g.get_or_insert_with(HashSet::new))
}

/// Permutation from a tensor's physical view dims to the logical N, C, spatial order.
pub(crate) fn perm(rank: usize, channels_last: bool) -> Vec<usize> {
    if channels_last && rank >= 3 {
        let mut p = vec![0, rank - 1];
        p.extend(1..rank - 1);
        p
    } else {
        (0..rank).collect()
    }
}

/// A checked call, in logical order: tensors with their physical→logical permutation,
/// sizes, and one ratio per spatial axis.
pub(crate) struct Op<'a> {
    pub direction: Direction,
    pub exact: bool,
    /// Forward: self. Backward: gradOut.
    pub src: &'a aclTensor,
    pub src_cl: bool,
    /// Forward: out. Backward: gradInput.
    pub dst: &'a aclTensor,
    pub dst_cl: bool,
    pub n: i64,
    pub c: i64,
    /// Forward-input spatial sizes.
    pub input: Vec<i64>,
    /// Forward-output spatial sizes.
    pub output: Vec<i64>,
    pub ratios: Vec<f32>,
}

fn to_usize(v: i64, what: &str) -> Res<usize> {
    usize::try_from(v).map_err(|_| invalid(format!("{what} is negative ({v})")))
}

/// Logical dims of `t` under `cl`, checked against `expect` (physical order in messages).
fn check_shape(t: &aclTensor, cl: bool, expect: &[i64], what: &str) -> Res<()> {
    let p = perm(expect.len(), cl);
    let mut phys = vec![0i64; expect.len()];
    for (l, &d) in p.iter().enumerate() {
        phys[d] = expect[l];
    }
    ensure(t.view == phys, || {
        format!(
            "{what} shape {:?} differs from the expected {phys:?}",
            t.view
        )
    })
}

/// Builds the core layout of `t` (logical order) and checks that the view lies inside the
/// storage given by its storage dims, and that the data pointer is usable.
fn layout(t: &aclTensor, cl: bool, what: &str) -> Res<(Layout, usize)> {
    let dt = core_dtype(t.dtype)?;
    let r = t.rank();
    ensure(t.strides.len() == r, || {
        format!("{what} has {} strides for rank {r}", t.strides.len())
    })?;
    let p = perm(r, cl);
    let mut dims = Vec::with_capacity(r);
    let mut strides = Vec::with_capacity(r);
    for &d in &p {
        dims.push(to_usize(t.view[d], &format!("{what} dim {d}"))?);
        strides.push(to_usize(t.strides[d], &format!("{what} stride {d}"))?);
    }
    let offset = to_usize(t.offset, &format!("{what} view offset"))?;
    let l = Layout::strided(dt, &dims, &strides, offset);
    let span = l
        .span_bytes()
        .ok_or_else(|| invalid(format!("{what} view overflows the address space")))?;
    let mut storage_elems = 1usize;
    for &s in &t.storage {
        storage_elems = storage_elems
            .checked_mul(to_usize(s, &format!("{what} storage dim"))?)
            .ok_or_else(|| invalid(format!("{what} storage size overflows")))?;
    }
    let storage = storage_elems
        .checked_mul(dt.size())
        .filter(|&b| b <= isize::MAX as usize)
        .ok_or_else(|| invalid(format!("{what} storage size overflows")))?;
    ensure(span <= storage, || {
        format!(
            "{what} view (offset {}, dims {:?}, strides {:?}) reaches beyond its storage {:?}",
            t.offset, t.view, t.strides, t.storage
        )
    })?;
    if span > 0 && t.data.is_null() {
        return Err(super::checks::nullptr(format!(
            "{what} has no data address"
        )));
    }
    Ok((l, span))
}

fn core_status(e: CoreError) -> Fail {
    match e {
        CoreError::Invalid(m) | CoreError::Unsupported(m) => invalid(m),
        CoreError::OutOfMemory => Fail {
            code: ACLNN_ERR_INNER_CREATE_EXECUTOR,
            msg: "out of memory".into(),
        },
    }
}

/// Turns a checked call into a job: final shape guards, layouts, the core problem and plan.
pub(crate) fn prepare(op: Op<'_>) -> Res<Job> {
    let spatial = op.input.len();
    let mut fin = vec![op.n, op.c];
    fin.extend(&op.input);
    let mut fout = vec![op.n, op.c];
    fout.extend(&op.output);
    let (src_dims, dst_dims, sname, dname) = match op.direction {
        Direction::Forward => (&fin, &fout, "self", "out"),
        Direction::Backward => (&fout, &fin, "gradOut", "gradInput"),
    };
    check_shape(op.src, op.src_cl, src_dims, sname)?;
    check_shape(op.dst, op.dst_cl, dst_dims, dname)?;
    let (src, src_len) = layout(op.src, op.src_cl, sname)?;
    let (dst, dst_len) = layout(op.dst, op.dst_cl, dname)?;
    ensure(!dst.elements_may_overlap(), || {
        format!("{dname} strides {:?} make elements overlap", op.dst.strides)
    })?;
    let mut axes = vec![AxisRule::Identity, AxisRule::Identity];
    for &ratio in op.ratios.iter().take(spatial) {
        ensure(ratio.is_finite() && ratio >= 0.0, || {
            format!("the scale gives a non-finite ratio {ratio}")
        })?;
        axes.push(AxisRule::Floor {
            ratio,
            exact: op.exact,
        });
    }
    let problem = Problem {
        alg: Algorithm::Nearest,
        direction: op.direction,
        axes,
        src,
        dst,
        post_ops: Vec::new(),
        numerics: Numerics::Ieee,
    };
    let plan = Plan::new(problem).map_err(core_status)?;
    Ok(Job {
        plan,
        src: op.src.data as *const u8,
        src_len,
        dst: op.dst.data as *mut u8,
        dst_len,
    })
}

/// Ends phase 1: reports a failure, or checks the output pointers (for APIs without
/// `OP_CHECK_COMM_INPUT` this is where the original first writes them) and hands out a new
/// executor with workspace size 0.
pub(crate) unsafe fn deliver(
    api: &'static str,
    r: Res<Option<Job>>,
    ws: *mut u64,
    exec: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    // SAFETY: pointer arguments are NULL or valid as the aclnn API documents (the C caller's
    // contract, passed on by the exported function).
    unsafe {
        let r = r.and_then(|job| {
            super::checks::comm_input(ws, exec)?;
            Ok(job)
        });
        match r {
            Ok(job) => {
                let e = Box::into_raw(Box::new(aclOpExecutor {
                    api,
                    job,
                    repeatable: false,
                }));
                with_live(|s| s.insert(e as usize));
                *ws = 0;
                *exec = e;
                ACLNN_SUCCESS
            }
            Err(f) => {
                report(api, &f);
                f.code
            }
        }
    }
}

fn free_executor(e: *mut aclOpExecutor) {
    if with_live(|s| s.remove(&(e as usize))) {
        // SAFETY: registered pointers come from Box::into_raw and are removed once.
        drop(unsafe { Box::from_raw(e) });
    }
}

impl Job {
    unsafe fn execute(&self) -> Result<(), CoreError> {
        // SAFETY: pointer arguments are NULL or valid as the aclnn API documents (the C caller's
        // contract, passed on by the exported function).
        unsafe {
            let src = Raw {
                ptr: self.src,
                len: self.src_len,
            };
            crate::capi::exec::execute(&self.plan, src, self.dst, self.dst_len, &[])
        }
    }
}

/// Phase 2 of every operator: runs the executor and frees it (unless made repeatable).
pub(crate) unsafe fn run(
    api: &'static str,
    workspace: *mut c_void,
    ws_size: u64,
    executor: *mut aclOpExecutor,
) -> aclnnStatus {
    // SAFETY: pointer arguments are NULL or valid as the aclnn API documents (the C caller's
    // contract, passed on by the exported function).
    unsafe {
        let fail = |code: aclnnStatus, msg: String| {
            report(api, &Fail { code, msg });
            code
        };
        if executor.is_null() {
            return fail(ACLNN_ERR_PARAM_NULLPTR, "executor is NULL".into());
        }
        if !with_live(|s| s.contains(&(executor as usize))) {
            return fail(
                ACLNN_ERR_PARAM_INVALID,
                "executor is not live (already run or destroyed)".into(),
            );
        }
        let e = &*executor;
        if ws_size > 0 && workspace.is_null() {
            if !e.repeatable {
                free_executor(executor);
            }
            return fail(
                ACLNN_ERR_PARAM_NULLPTR,
                format!("workspace is NULL but workspaceSize is {ws_size}"),
            );
        }
        let r = match &e.job {
            Some(j) => j.execute(),
            None => Ok(()),
        };
        let made_by = e.api;
        if !e.repeatable {
            free_executor(executor);
        }
        match r {
            Ok(()) => ACLNN_SUCCESS,
            Err(err) => fail(
                ACLNN_ERR_RUNTIME_ERROR,
                format!("executor from {made_by}: {err}"),
            ),
        }
    }
}

/// Keeps the executor alive after runs; free it with `aclDestroyAclOpExecutor`.
#[no_mangle]
pub unsafe extern "C" fn aclSetAclOpExecutorRepeatable(
    executor: *mut aclOpExecutor,
) -> aclnnStatus {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as the aclnn API
    // documents for this function.
    unsafe {
        aclnn_guard!({
            if executor.is_null() || !with_live(|s| s.contains(&(executor as usize))) {
                return ACLNN_ERR_PARAM_NULLPTR;
            }
            (*executor).repeatable = true;
            ACLNN_SUCCESS
        })
    }
}

/// Frees an executor (NULL and already consumed executors are accepted).
#[no_mangle]
pub unsafe extern "C" fn aclDestroyAclOpExecutor(executor: *mut aclOpExecutor) -> aclnnStatus {
    aclnn_guard!({
        if !executor.is_null() {
            free_executor(executor);
        }
        ACLNN_SUCCESS
    })
}

/// Rebinds input `index` (0: self / gradOut) of an executor to `addr` (same storage shape).
unsafe fn set_addr(
    executor: *mut aclOpExecutor,
    output: bool,
    index: usize,
    tensor: *mut aclTensor,
    addr: *mut c_void,
) -> aclnnStatus {
    // SAFETY: pointer arguments are NULL or valid as the aclnn API documents (the C caller's
    // contract, passed on by the exported function).
    unsafe {
        if executor.is_null() || !with_live(|s| s.contains(&(executor as usize))) {
            return ACLNN_ERR_PARAM_NULLPTR;
        }
        if index != 0 {
            return ACLNN_ERR_PARAM_INVALID;
        }
        if let Some(j) = &mut (*executor).job {
            if addr.is_null() && (if output { j.dst_len } else { j.src_len }) > 0 {
                return ACLNN_ERR_PARAM_NULLPTR;
            }
            if output {
                j.dst = addr as *mut u8;
            } else {
                j.src = addr as *const u8;
            }
        }
        if !tensor.is_null() {
            (*tensor).data = addr;
        }
        ACLNN_SUCCESS
    }
}

/// Rebinds input `index` (only 0, self or gradOut) of a repeatable executor.
#[no_mangle]
pub unsafe extern "C" fn aclSetInputTensorAddr(
    executor: *mut aclOpExecutor,
    index: usize,
    tensor: *mut aclTensor,
    addr: *mut c_void,
) -> aclnnStatus {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as the aclnn API
    // documents for this function.
    unsafe { aclnn_guard!({ set_addr(executor, false, index, tensor, addr) }) }
}

/// Rebinds output `index` (only 0, out or gradInput) of a repeatable executor.
#[no_mangle]
pub unsafe extern "C" fn aclSetOutputTensorAddr(
    executor: *mut aclOpExecutor,
    index: usize,
    tensor: *mut aclTensor,
    addr: *mut c_void,
) -> aclnnStatus {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as the aclnn API
    // documents for this function.
    unsafe { aclnn_guard!({ set_addr(executor, true, index, tensor, addr) }) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn perms() {
        assert_eq!(perm(5, true), [0, 4, 1, 2, 3]);
        assert_eq!(perm(4, true), [0, 3, 1, 2]);
        assert_eq!(perm(4, false), [0, 1, 2, 3]);
    }
}

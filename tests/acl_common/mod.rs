//! Shared helpers of the Ascend-face tests: a small RNG, tensors in aclrtMalloc'ed memory
//! with arbitrary physical order / strides / offset, and value conversions. Nothing here
//! calls the core: results are read back through the C API only.
#![allow(dead_code)]

use resample::capi::ascend::meta::*;
use resample::capi::ascend::runtime::*;
use resample::capi::ascend::*;
use std::ffi::c_void;

pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9E3779B97F4A7C15) | 1)
    }
    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }
    /// Uniform in lo..=hi.
    pub fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + (self.next() % ((hi - lo + 1) as u64)) as i64
    }
    pub fn coin(&mut self) -> bool {
        self.next() & 1 == 1
    }
    pub fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
    pub fn pick<T: Copy>(&mut self, v: &[T]) -> T {
        v[(self.next() % v.len() as u64) as usize]
    }
}

pub fn esize(dt: aclDataType) -> usize {
    match dt {
        ACL_FLOAT => 4,
        ACL_FLOAT16 | ACL_BF16 => 2,
        ACL_DOUBLE => 8,
        ACL_UINT8 => 1,
        _ => 4,
    }
}

/// A tensor in aclrtMalloc'ed memory. `dims`/`strides` are physical (as passed to
/// aclCreateTensor); `perm[l]` is the physical dim of logical dim `l` (N, C, spatial…).
pub struct Tensor {
    pub dtype: aclDataType,
    pub format: aclFormat,
    pub dims: Vec<i64>,
    pub strides: Vec<i64>,
    pub offset: i64,
    pub perm: Vec<usize>,
    pub storage_elems: usize,
    pub mem: *mut c_void,
    pub t: *mut aclTensor,
}

impl Tensor {
    /// `logical` = [N, C, spatial…]; channels-last puts C last physically. With `rng`, strides
    /// get random gaps, the view a random offset, and the axis order stays as the format says.
    pub fn new(
        dtype: aclDataType,
        format: aclFormat,
        logical: &[i64],
        cl: bool,
        rng: Option<&mut Rng>,
    ) -> Tensor {
        let r = logical.len();
        let perm: Vec<usize> = if cl {
            let mut p = vec![0, r - 1];
            p.extend(1..r - 1);
            p
        } else {
            (0..r).collect()
        };
        let mut dims = vec![0i64; r];
        for l in 0..r {
            dims[perm[l]] = logical[l];
        }
        let mut strides = vec![0i64; r];
        let (mut gaps, mut offset) = (vec![0i64; r + 1], 0i64);
        if let Some(rng) = rng {
            for g in gaps.iter_mut() {
                *g = if rng.range(0, 3) == 0 {
                    rng.range(1, 3)
                } else {
                    0
                };
            }
            offset = rng.range(0, 7);
        }
        let mut s = 1 + gaps[r];
        for d in (0..r).rev() {
            strides[d] = s;
            s = s * dims[d].max(1) + gaps[d];
        }
        let storage_elems = if dims.contains(&0) {
            offset as usize
        } else {
            (offset + s) as usize
        };
        let bytes = (storage_elems * esize(dtype)).max(1);
        let mut mem = std::ptr::null_mut();
        assert_eq!(
            unsafe { aclrtMalloc(&mut mem, bytes, ACL_MEM_MALLOC_HUGE_FIRST) },
            ACL_SUCCESS
        );
        unsafe { std::ptr::write_bytes(mem as *mut u8, 0xA5, bytes) };
        let storage = [storage_elems as i64];
        let t = unsafe {
            aclCreateTensor(
                dims.as_ptr(),
                r as u64,
                dtype,
                strides.as_ptr(),
                offset,
                format,
                storage.as_ptr(),
                1,
                mem,
            )
        };
        assert!(!t.is_null());
        Tensor {
            dtype,
            format,
            dims,
            strides,
            offset,
            perm,
            storage_elems,
            mem,
            t,
        }
    }

    /// A contiguous tensor with the given physical dims (NULL strides, storage = view).
    pub fn plain(dtype: aclDataType, format: aclFormat, dims: &[i64]) -> Tensor {
        let n: i64 = dims.iter().product();
        let bytes = (n.max(0) as usize * esize(dtype)).max(1);
        let mut mem = std::ptr::null_mut();
        assert_eq!(
            unsafe { aclrtMalloc(&mut mem, bytes, ACL_MEM_MALLOC_HUGE_FIRST) },
            ACL_SUCCESS
        );
        unsafe { std::ptr::write_bytes(mem as *mut u8, 0, bytes) };
        let t = unsafe {
            aclCreateTensor(
                dims.as_ptr(),
                dims.len() as u64,
                dtype,
                std::ptr::null(),
                0,
                format,
                dims.as_ptr(),
                dims.len() as u64,
                mem,
            )
        };
        assert!(!t.is_null());
        let r = dims.len();
        let mut strides = vec![1i64; r];
        for d in (0..r.saturating_sub(1)).rev() {
            strides[d] = strides[d + 1] * dims[d + 1].max(1);
        }
        Tensor {
            dtype,
            format,
            dims: dims.to_vec(),
            strides,
            offset: 0,
            perm: (0..r).collect(),
            storage_elems: n.max(0) as usize,
            mem,
            t,
        }
    }

    pub fn logical_dims(&self) -> Vec<usize> {
        self.perm.iter().map(|&p| self.dims[p] as usize).collect()
    }

    pub fn count(&self) -> usize {
        self.logical_dims().iter().product()
    }

    /// Element offset of a logical index.
    pub fn off(&self, idx: &[usize]) -> usize {
        let mut o = self.offset as usize;
        for (l, &i) in idx.iter().enumerate() {
            o += i * self.strides[self.perm[l]] as usize;
        }
        o
    }

    pub fn get_bits(&self, idx: &[usize]) -> u64 {
        let sz = esize(self.dtype);
        let mut b = [0u8; 8];
        unsafe {
            std::ptr::copy_nonoverlapping(
                (self.mem as *const u8).add(self.off(idx) * sz),
                b.as_mut_ptr(),
                sz,
            )
        };
        u64::from_le_bytes(b)
    }

    pub fn set_bits(&self, idx: &[usize], v: u64) {
        let sz = esize(self.dtype);
        let b = v.to_le_bytes();
        unsafe {
            std::ptr::copy_nonoverlapping(
                b.as_ptr(),
                (self.mem as *mut u8).add(self.off(idx) * sz),
                sz,
            )
        };
    }

    pub fn set_f64(&self, idx: &[usize], v: f64) {
        self.set_bits(idx, from_f64(self.dtype, v));
    }

    pub fn get_f64(&self, idx: &[usize]) -> f64 {
        to_f64(self.dtype, self.get_bits(idx))
    }

    /// Raw storage bytes (for checking that nothing outside the view changed).
    pub fn storage(&self) -> Vec<u8> {
        let n = self.storage_elems * esize(self.dtype);
        unsafe { std::slice::from_raw_parts(self.mem as *const u8, n).to_vec() }
    }

    /// True if storage element `e` is part of the view.
    pub fn view_elements(&self) -> Vec<bool> {
        let mut v = vec![false; self.storage_elems];
        for_each_index(&self.logical_dims(), |idx| v[self.off(idx)] = true);
        v
    }
}

impl Drop for Tensor {
    fn drop(&mut self) {
        unsafe {
            aclDestroyTensor(self.t);
            aclrtFree(self.mem);
        }
    }
}

/// Calls `f` on every index of `dims` in row-major order.
pub fn for_each_index(dims: &[usize], mut f: impl FnMut(&[usize])) {
    if dims.contains(&0) {
        return;
    }
    let mut idx = vec![0usize; dims.len()];
    loop {
        f(&idx);
        let mut d = dims.len();
        loop {
            if d == 0 {
                return;
            }
            d -= 1;
            idx[d] += 1;
            if idx[d] < dims[d] {
                break;
            }
            idx[d] = 0;
        }
    }
}

pub fn bf16_rne(v: f32) -> u16 {
    if v.is_nan() {
        return 0x7FC0;
    }
    let b = v.to_bits();
    ((b + 0x7FFF + ((b >> 16) & 1)) >> 16) as u16
}

pub fn from_f64(dt: aclDataType, v: f64) -> u64 {
    match dt {
        ACL_FLOAT => (v as f32).to_bits() as u64,
        ACL_FLOAT16 => half::f16::from_f64(v).to_bits() as u64,
        ACL_BF16 => bf16_rne(v as f32) as u64,
        ACL_DOUBLE => v.to_bits(),
        ACL_UINT8 => v.clamp(0.0, 255.0) as u64,
        _ => unreachable!(),
    }
}

pub fn to_f64(dt: aclDataType, b: u64) -> f64 {
    match dt {
        ACL_FLOAT => f32::from_bits(b as u32) as f64,
        ACL_FLOAT16 => half::f16::from_bits(b as u16).to_f64(),
        ACL_BF16 => f32::from_bits((b as u32) << 16) as f64,
        ACL_DOUBLE => f64::from_bits(b),
        ACL_UINT8 => b as f64,
        _ => unreachable!(),
    }
}

pub fn int_array(v: &[i64]) -> *mut aclIntArray {
    unsafe { aclCreateIntArray(v.as_ptr(), v.len() as u64) }
}

pub struct Arr(pub *mut aclIntArray);

impl Arr {
    pub fn new(v: &[i64]) -> Arr {
        Arr(int_array(v))
    }
}

impl Drop for Arr {
    fn drop(&mut self) {
        unsafe { aclDestroyIntArray(self.0) };
    }
}

//! Per-axis tap tables, built once when a plan is made.
//!
//! Forward: for each output index, the input indices it reads and their weights (CSR).
//! Backward: for each input index, the outputs that read it, split into *groups* (one per
//! tap position) so the gather sums in the same order as the mimicked implementation.

/// Forward taps of one axis, CSR by output index.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FwdTaps {
    /// `bounds[o]..bounds[o + 1]` indexes `idx` / `wt` for output `o`.
    pub bounds: Vec<u32>,
    pub idx: Vec<u32>,
    pub wt: Vec<f32>,
}

impl FwdTaps {
    pub fn outputs(&self) -> usize {
        self.bounds.len().saturating_sub(1)
    }

    #[inline]
    pub fn taps(&self, o: usize) -> (&[u32], &[f32]) {
        let (b, e) = (self.bounds[o] as usize, self.bounds[o + 1] as usize);
        (&self.idx[b..e], &self.wt[b..e])
    }

    /// Widest tap count of any output.
    pub fn max_taps(&self) -> usize {
        self.bounds
            .windows(2)
            .map(|w| (w[1] - w[0]) as usize)
            .max()
            .unwrap_or(0)
    }

    /// Builds a table where every output has exactly `taps.len()` taps.
    pub fn from_fn(outputs: usize, mut f: impl FnMut(usize, &mut Vec<(u32, f32)>)) -> Self {
        let mut t = FwdTaps {
            bounds: Vec::with_capacity(outputs + 1),
            ..Default::default()
        };
        t.bounds.push(0);
        let mut scratch = Vec::new();
        for o in 0..outputs {
            scratch.clear();
            f(o, &mut scratch);
            for &(i, w) in &scratch {
                t.idx.push(i);
                t.wt.push(w);
            }
            t.bounds.push(t.idx.len() as u32);
        }
        t
    }

    /// The transpose: input `i` lists, per tap position `k`, the outputs whose `k`-th tap
    /// reads `i`, in increasing output order, with the forward weight.
    pub fn transpose(&self, inputs: usize) -> BwdTaps {
        let groups = self.max_taps().max(1);
        // Counting sort into CSR: count per (input, position), prefix-sum, then place in
        // increasing output order (no per-list allocations: tables may be large).
        let mut bounds = vec![0u32; inputs * groups + 1];
        for o in 0..self.outputs() {
            for (k, &i) in self.taps(o).0.iter().enumerate() {
                bounds[i as usize * groups + k + 1] += 1;
            }
        }
        for j in 1..bounds.len() {
            bounds[j] += bounds[j - 1];
        }
        let n = bounds[inputs * groups] as usize;
        let (mut out, mut wt) = (vec![0u32; n], vec![0f32; n]);
        let mut next = bounds[..inputs * groups].to_vec();
        for o in 0..self.outputs() {
            let (idx, w) = self.taps(o);
            for (k, (&i, &w)) in idx.iter().zip(w).enumerate() {
                let slot = &mut next[i as usize * groups + k];
                out[*slot as usize] = o as u32;
                wt[*slot as usize] = w;
                *slot += 1;
            }
        }
        BwdTaps {
            groups,
            bounds,
            out,
            wt,
        }
    }
}

/// Backward (transposed) taps of one axis: for input `i` and group `g`, the entries
/// `bounds[i*groups + g]..bounds[i*groups + g + 1]` of `out` / `wt`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BwdTaps {
    pub groups: usize,
    pub bounds: Vec<u32>,
    pub out: Vec<u32>,
    pub wt: Vec<f32>,
}

impl BwdTaps {
    pub fn inputs(&self) -> usize {
        (self.bounds.len().saturating_sub(1)) / self.groups.max(1)
    }

    /// Input `i` receives nothing (every group's list is empty).
    #[inline]
    pub fn receives_nothing(&self, i: usize) -> bool {
        self.bounds[i * self.groups] == self.bounds[(i + 1) * self.groups]
    }

    #[inline]
    pub fn group(&self, i: usize, g: usize) -> (&[u32], &[f32]) {
        let k = i * self.groups + g;
        let (b, e) = (self.bounds[k] as usize, self.bounds[k + 1] as usize);
        (&self.out[b..e], &self.wt[b..e])
    }

    /// Builds the table list by list, `inputs * groups` lists in (input, group) order:
    /// `f(list, push)` pushes that list's `(output, weight)` entries.
    pub fn build(
        groups: usize,
        lists: usize,
        mut f: impl FnMut(usize, &mut dyn FnMut(u32, f32)),
    ) -> Self {
        let mut t = BwdTaps {
            groups,
            bounds: Vec::with_capacity(lists + 1),
            ..Default::default()
        };
        t.bounds.push(0);
        for l in 0..lists {
            f(l, &mut |o, w| {
                t.out.push(o);
                t.wt.push(w);
            });
            t.bounds.push(t.out.len() as u32);
        }
        t
    }
}

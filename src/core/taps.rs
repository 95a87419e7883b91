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
        let mut lists: Vec<Vec<(u32, f32)>> = vec![Vec::new(); inputs * groups];
        for o in 0..self.outputs() {
            let (idx, wt) = self.taps(o);
            for (k, (&i, &w)) in idx.iter().zip(wt).enumerate() {
                lists[i as usize * groups + k].push((o as u32, w));
            }
        }
        BwdTaps::from_lists(groups, &lists)
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

    #[inline]
    pub fn group(&self, i: usize, g: usize) -> (&[u32], &[f32]) {
        let k = i * self.groups + g;
        let (b, e) = (self.bounds[k] as usize, self.bounds[k + 1] as usize);
        (&self.out[b..e], &self.wt[b..e])
    }

    pub fn from_lists(groups: usize, lists: &[Vec<(u32, f32)>]) -> Self {
        let mut t = BwdTaps {
            groups,
            bounds: Vec::with_capacity(lists.len() + 1),
            ..Default::default()
        };
        t.bounds.push(0);
        for l in lists {
            for &(o, w) in l {
                t.out.push(o);
                t.wt.push(w);
            }
            t.bounds.push(t.out.len() as u32);
        }
        t
    }
}

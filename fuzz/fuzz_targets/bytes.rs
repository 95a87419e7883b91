//! A little reader that turns fuzzer bytes into choices (zeros once the input runs out).

pub struct Bytes<'a>(pub &'a [u8]);

impl Bytes<'_> {
    pub fn u8(&mut self) -> u8 {
        match self.0.split_first() {
            Some((&b, rest)) => {
                self.0 = rest;
                b
            }
            None => 0,
        }
    }
    pub fn u32(&mut self) -> u32 {
        u32::from_le_bytes([self.u8(), self.u8(), self.u8(), self.u8()])
    }
    /// Mostly small values (`0..n`), sometimes a huge one (at least 2^28, which overflows
    /// sizes or exceeds the table limit). Sizes in between are legitimate problems whose
    /// gigabyte tables and buffers would only exhaust the fuzzer's memory limit.
    pub fn size(&mut self, n: u8) -> u32 {
        if self.u8() < 240 {
            (self.u8() % n) as u32
        } else {
            self.u32() | (1 << 28)
        }
    }
    pub fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
        xs[self.u8() as usize % xs.len()]
    }
    /// Mostly ordinary floats, sometimes any bit pattern (NaN, inf, subnormal).
    pub fn f32(&mut self) -> f32 {
        if self.u8() < 200 {
            self.pick(&[0.0, 0.25, 0.5, 1.0, 1.5, 2.0, 3.0, -0.5, -1.0, 0.1])
        } else {
            f32::from_bits(self.u32())
        }
    }
    /// Data bytes for a buffer (the rest of the input, repeated).
    pub fn fill(&self, buf: &mut [u8]) {
        if self.0.is_empty() {
            return;
        }
        for (i, b) in buf.iter_mut().enumerate() {
            *b = self.0[i % self.0.len()];
        }
    }
}

//! Size of the last-level cache, read once from sysfs.
//!
//! It decides where non-temporal stores start to pay: while source and destination
//! together fit the last-level cache, plain stores leave the output there for the next
//! reader (and for the next call), and streaming them to memory only loses bandwidth.

use std::sync::OnceLock;

/// Used when sysfs says nothing (containers without /sys, unusual kernels): the L3 of
/// one current x86 core complex.
const DEFAULT_LLC: usize = 32 << 20;

/// Bytes of the largest data or unified cache level of CPU 0.
pub(crate) fn llc_bytes() -> usize {
    static LLC: OnceLock<usize> = OnceLock::new();
    *LLC.get_or_init(|| read_sysfs().unwrap_or(DEFAULT_LLC))
}

fn read_sysfs() -> Option<usize> {
    let mut best: Option<(u32, usize)> = None;
    for i in 0..8 {
        let dir = format!("/sys/devices/system/cpu/cpu0/cache/index{i}");
        let read = |f: &str| std::fs::read_to_string(format!("{dir}/{f}")).ok();
        let Some(kind) = read("type") else { break };
        if kind.trim() == "Instruction" {
            continue;
        }
        let level: u32 = read("level")?.trim().parse().ok()?;
        let size = parse_size(read("size")?.trim())?;
        if best.is_none_or(|(l, _)| level > l) {
            best = Some((level, size));
        }
    }
    best.map(|(_, s)| s).filter(|&s| s > 0)
}

/// "32768K", "2M", "512" (bytes) as sysfs writes them.
fn parse_size(s: &str) -> Option<usize> {
    let (num, mul) = match s.as_bytes().last()? {
        b'K' => (&s[..s.len() - 1], 1usize << 10),
        b'M' => (&s[..s.len() - 1], 1 << 20),
        b'G' => (&s[..s.len() - 1], 1 << 30),
        _ => (s, 1),
    };
    num.parse::<usize>().ok()?.checked_mul(mul)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_as_sysfs_writes_them() {
        assert_eq!(parse_size("32768K"), Some(32 << 20));
        assert_eq!(parse_size("2M"), Some(2 << 20));
        assert_eq!(parse_size("4096"), Some(4096));
        assert_eq!(parse_size("K"), None);
        assert_eq!(parse_size(""), None);
        assert!(llc_bytes() >= 1 << 16);
    }
}

//! Share of the last-level cache per core, read once from sysfs.
//!
//! It decides where non-temporal stores start to pay: while source and destination
//! together fit the cache share of the threads working on them, plain stores leave the
//! output there for the next reader (and for the next call), and streaming them to memory
//! only loses bandwidth.

use std::sync::OnceLock;

/// Used when sysfs says nothing (containers without /sys, unusual kernels): the L3 of
/// one current x86 core complex over its eight cores.
const DEFAULT_LLC_PER_CORE: usize = 4 << 20;

/// Bytes of the largest data or unified cache level of CPU 0 over the CPUs sharing it.
pub(crate) fn llc_per_core() -> usize {
    static LLC: OnceLock<usize> = OnceLock::new();
    *LLC.get_or_init(|| read_sysfs().unwrap_or(DEFAULT_LLC_PER_CORE))
}

fn read_sysfs() -> Option<usize> {
    let mut best: Option<(u32, usize, usize)> = None;
    for i in 0..8 {
        let dir = format!("/sys/devices/system/cpu/cpu0/cache/index{i}");
        let read = |f: &str| std::fs::read_to_string(format!("{dir}/{f}")).ok();
        let Some(kind) = read("type") else { break };
        if kind.trim() == "Instruction" {
            continue;
        }
        let level: u32 = read("level")?.trim().parse().ok()?;
        let size = parse_size(read("size")?.trim())?;
        let sharing = read("shared_cpu_list").and_then(|l| count_cpus(l.trim()));
        if best.is_none_or(|(l, _, _)| level > l) {
            best = Some((level, size, sharing.unwrap_or(1)));
        }
    }
    best.map(|(_, s, n)| s / n.max(1)).filter(|&s| s > 0)
}

/// Number of CPUs in a list as sysfs writes it: "0-1", "0-7,64-71", "3".
fn count_cpus(list: &str) -> Option<usize> {
    let mut n = 0usize;
    for part in list.split(',').filter(|p| !p.is_empty()) {
        n += match part.split_once('-') {
            Some((a, b)) => {
                let (a, b): (usize, usize) = (a.parse().ok()?, b.parse().ok()?);
                b.checked_sub(a)? + 1
            }
            None => part.parse::<usize>().map(|_| 1).ok()?,
        };
    }
    (n > 0).then_some(n)
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
        assert_eq!(count_cpus("0-1"), Some(2));
        assert_eq!(count_cpus("0-7,64-71"), Some(16));
        assert_eq!(count_cpus("3"), Some(1));
        assert_eq!(count_cpus("4-2"), None);
        assert_eq!(count_cpus(""), None);
        assert!(llc_per_core() >= 1 << 14);
    }
}

//! Share of the last-level cache per core, read once from sysfs.
//!
//! It decides where non-temporal stores start to pay: while source and destination
//! together fit the cache share of the threads working on them, plain stores leave the
//! output there for the next reader (and for the next call), and streaming them to memory
//! only loses bandwidth.

use std::sync::OnceLock;

/// Used when sysfs says nothing (containers without /sys, unusual kernels): the L3 of
/// one current x86 core complex over its eight cores, and a current core's L2.
const DEFAULT_LLC_PER_CORE: usize = 4 << 20;
const DEFAULT_L2_PER_CORE: usize = 1 << 20;

/// Per-core shares of the data caches, read once.
#[derive(Clone, Copy, Debug)]
struct Shares {
    /// The largest level (usually a shared L3).
    llc: usize,
    /// Level 2 (private on current x86 and Arm cores).
    l2: usize,
}

fn shares() -> Shares {
    static SHARES: OnceLock<Shares> = OnceLock::new();
    *SHARES.get_or_init(|| {
        let levels = read_sysfs();
        let at = |want: Option<u32>| {
            let l = levels.iter().filter(|l| want.is_none_or(|w| l.0 == w));
            l.max_by_key(|l| l.0).map(|l| l.1).filter(|&s| s > 0)
        };
        Shares {
            llc: at(None).unwrap_or(DEFAULT_LLC_PER_CORE),
            l2: at(Some(2)).unwrap_or(DEFAULT_L2_PER_CORE),
        }
    })
}

/// Bytes of the largest data or unified cache level of CPU 0 over the CPUs sharing it.
/// What a core really gets of a shared L3 can be far less (a VM's two cores on a 260 MiB
/// L3 see 130 MiB here and get a few): `streaming` measures rather than trusts it.
pub(crate) fn llc_per_core() -> usize {
    shares().llc
}

/// Bytes of CPU 0's level 2 cache over the CPUs sharing it: what a core surely has.
pub(crate) fn l2_per_core() -> usize {
    shares().l2
}

/// `(level, bytes per sharing CPU)` of CPU 0's data and unified caches.
fn read_sysfs() -> Vec<(u32, usize)> {
    let mut levels = Vec::new();
    for i in 0..8 {
        let dir = format!("/sys/devices/system/cpu/cpu0/cache/index{i}");
        let read = |f: &str| std::fs::read_to_string(format!("{dir}/{f}")).ok();
        let Some(kind) = read("type") else { break };
        if kind.trim() == "Instruction" {
            continue;
        }
        let level = read("level").and_then(|l| l.trim().parse::<u32>().ok());
        let size = read("size").and_then(|s| parse_size(s.trim()));
        let sharing = read("shared_cpu_list").and_then(|l| count_cpus(l.trim()));
        if let (Some(level), Some(size)) = (level, size) {
            levels.push((level, size / sharing.unwrap_or(1).max(1)));
        }
    }
    levels
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
        assert!(l2_per_core() >= 1 << 14);
    }
}

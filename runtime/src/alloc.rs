//! Best-fit allocation of guest addresses inside the global-memory window.
//!
//! Pure bookkeeping, no Vulkan: the window is `[base, base + size)`; every allocation starts on an
//! [`ALLOCATION_ALIGNMENT`] boundary and occupies a multiple of it; freed neighbours coalesce. Free ranges
//! are indexed by offset (for coalescing) and by size (the smallest range that fits, lowest offset first),
//! so allocation and free cost O(log n) however fragmented the window is.

use std::collections::{BTreeMap, BTreeSet};

use sassport_translator::abi::ALLOCATION_ALIGNMENT;

use crate::error::{Result, RuntimeError};

/// Hands out guest addresses in `[base, base + size)`.
#[derive(Clone, Debug)]
pub struct WindowAllocator {
    base: u64,
    size: u64,
    /// Free ranges: offset -> length, coalesced (no two adjacent).
    free: BTreeMap<u64, u64>,
    /// The same ranges as (length, offset).
    by_size: BTreeSet<(u64, u64)>,
    /// Sum of free lengths.
    free_total: u64,
    /// Live allocations: offset -> (reserved length, requested length).
    live: BTreeMap<u64, (u64, u64)>,
}

impl WindowAllocator {
    /// A window of `size` bytes (rounded down to the alignment) at guest address `base` (must be aligned).
    pub fn new(base: u64, size: u64) -> Self {
        debug_assert_eq!(base % ALLOCATION_ALIGNMENT, 0);
        let size = size - size % ALLOCATION_ALIGNMENT;
        let mut a = WindowAllocator {
            base,
            size,
            free: BTreeMap::new(),
            by_size: BTreeSet::new(),
            free_total: 0,
            live: BTreeMap::new(),
        };
        if size > 0 {
            a.insert_free(0, size);
        }
        a
    }

    fn insert_free(&mut self, offset: u64, len: u64) {
        self.free.insert(offset, len);
        self.by_size.insert((len, offset));
        self.free_total += len;
    }

    fn remove_free(&mut self, offset: u64, len: u64) {
        self.free.remove(&offset);
        self.by_size.remove(&(len, offset));
        self.free_total -= len;
    }

    /// First guest address of the window.
    pub fn base(&self) -> u64 {
        self.base
    }

    /// Window size in bytes.
    pub fn size(&self) -> u64 {
        self.size
    }

    /// Largest free range in bytes.
    pub fn largest_free(&self) -> u64 {
        self.by_size.last().map_or(0, |&(len, _)| len)
    }

    /// Bytes not allocated.
    pub fn free_bytes(&self) -> u64 {
        self.free_total
    }

    /// Number of live allocations.
    pub fn live_count(&self) -> usize {
        self.live.len()
    }

    /// Allocates `len` bytes; returns the guest address of the first byte.
    pub fn alloc(&mut self, len: u64) -> Result<u64> {
        if len == 0 {
            return Err(RuntimeError::ZeroSizedAllocation);
        }
        let out_of_memory = || RuntimeError::OutOfMemory {
            requested: len,
            largest_free: self.largest_free(),
        };
        let reserved = len
            .checked_next_multiple_of(ALLOCATION_ALIGNMENT)
            .ok_or_else(out_of_memory)?;
        let &(free_len, offset) = self
            .by_size
            .range((reserved, 0)..)
            .next()
            .ok_or_else(out_of_memory)?;
        self.remove_free(offset, free_len);
        if free_len > reserved {
            self.insert_free(offset + reserved, free_len - reserved);
        }
        self.live.insert(offset, (reserved, len));
        Ok(self.base + offset)
    }

    /// Frees the allocation starting at `address`.
    pub fn free(&mut self, address: u64) -> Result<()> {
        let offset = address
            .checked_sub(self.base)
            .ok_or(RuntimeError::InvalidFree { address })?;
        let (reserved, _) = self
            .live
            .remove(&offset)
            .ok_or(RuntimeError::InvalidFree { address })?;
        let (mut start, mut len) = (offset, reserved);
        // Coalesce with the free range just before and just after.
        if let Some((&prev, &prev_len)) = self.free.range(..start).next_back() {
            if prev + prev_len == start {
                self.remove_free(prev, prev_len);
                start = prev;
                len += prev_len;
            }
        }
        if let Some(&next_len) = self.free.get(&(start + len)) {
            self.remove_free(start + len, next_len);
            len += next_len;
        }
        self.insert_free(start, len);
        Ok(())
    }

    /// Checks that `[address, address + len)` lies in the window and within one live allocation (its requested
    /// length); returns the byte offset of `address` in the window.
    pub fn check_range(&self, address: u64, len: u64) -> Result<u64> {
        let end = self.base + self.size;
        let outside = RuntimeError::OutOfWindow {
            address,
            len,
            base: self.base,
            end,
        };
        let offset = address
            .checked_sub(self.base)
            .ok_or_else(|| outside.clone_like())?;
        match offset.checked_add(len) {
            Some(e) if e <= self.size => {}
            _ => return Err(outside),
        }
        let not_allocated = RuntimeError::NotAllocated { address, len };
        let (&start, &(_, requested)) = self
            .live
            .range(..=offset)
            .next_back()
            .ok_or(not_allocated)?;
        if offset + len > start + requested {
            return Err(RuntimeError::NotAllocated { address, len });
        }
        Ok(offset)
    }

    /// Checks only that `[address, address + len)` lies in the window; returns the byte offset.
    pub fn check_in_window(&self, address: u64, len: u64) -> Result<u64> {
        let end = self.base + self.size;
        let outside = RuntimeError::OutOfWindow {
            address,
            len,
            base: self.base,
            end,
        };
        let offset = address
            .checked_sub(self.base)
            .ok_or_else(|| outside.clone_like())?;
        match offset.checked_add(len) {
            Some(e) if e <= self.size => Ok(offset),
            _ => Err(outside),
        }
    }

    /// Live allocations as (guest address, requested length), in address order.
    pub fn allocations(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.live.iter().map(|(&o, &(_, req))| (self.base + o, req))
    }
}

impl RuntimeError {
    fn clone_like(&self) -> RuntimeError {
        match *self {
            RuntimeError::OutOfWindow {
                address,
                len,
                base,
                end,
            } => RuntimeError::OutOfWindow {
                address,
                len,
                base,
                end,
            },
            _ => unreachable!("only used for OutOfWindow"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const BASE: u64 = 0x7f00_0000_0000;

    #[test]
    fn first_fit_aligns_and_reuses() {
        let mut a = WindowAllocator::new(BASE, 4096);
        let x = a.alloc(1).unwrap();
        let y = a.alloc(300).unwrap();
        assert_eq!(x, BASE);
        assert_eq!(y, BASE + 256);
        a.free(x).unwrap();
        assert_eq!(a.alloc(200).unwrap(), BASE);
        assert_eq!(a.alloc(4096 - 768).unwrap(), BASE + 768);
        assert!(matches!(
            a.alloc(1),
            Err(RuntimeError::OutOfMemory {
                requested: 1,
                largest_free: 0
            })
        ));
    }

    #[test]
    fn double_free_and_wild_free_are_errors() {
        let mut a = WindowAllocator::new(BASE, 4096);
        let x = a.alloc(64).unwrap();
        a.free(x).unwrap();
        assert!(matches!(a.free(x), Err(RuntimeError::InvalidFree { address }) if address == x));
        assert!(matches!(
            a.free(0x1000),
            Err(RuntimeError::InvalidFree { .. })
        ));
        let y = a.alloc(512).unwrap();
        assert!(matches!(
            a.free(y + 256),
            Err(RuntimeError::InvalidFree { .. })
        ));
        assert_eq!(a.free_bytes(), 4096 - 512);
    }

    #[test]
    fn ranges_are_checked_against_window_and_allocation() {
        let mut a = WindowAllocator::new(BASE, 4096);
        let x = a.alloc(100).unwrap();
        assert_eq!(a.check_range(x + 10, 90).unwrap(), 10);
        assert!(matches!(
            a.check_range(x + 10, 91),
            Err(RuntimeError::NotAllocated { .. })
        ));
        assert!(matches!(
            a.check_range(x + 256, 4),
            Err(RuntimeError::NotAllocated { .. })
        ));
        assert!(matches!(
            a.check_range(BASE - 4, 8),
            Err(RuntimeError::OutOfWindow { .. })
        ));
        assert!(matches!(
            a.check_range(BASE + 4090, 8),
            Err(RuntimeError::OutOfWindow { .. })
        ));
        assert!(matches!(
            a.check_range(u64::MAX - 2, 8),
            Err(RuntimeError::OutOfWindow { .. })
        ));
        assert!(matches!(a.alloc(0), Err(RuntimeError::ZeroSizedAllocation)));
        assert!(matches!(
            a.alloc(u64::MAX),
            Err(RuntimeError::OutOfMemory { .. })
        ));
    }

    proptest! {
        /// Any sequence of allocations and frees keeps allocations aligned, disjoint and inside the window,
        /// accounts for every byte, and coalesces back to one free range when everything is freed.
        #[test]
        fn alloc_free_invariants(ops in proptest::collection::vec((any::<bool>(), 1u64..3000, any::<prop::sample::Index>()), 1..200)) {
            let size = 64 * 1024;
            let mut a = WindowAllocator::new(BASE, size);
            let mut live: Vec<(u64, u64)> = Vec::new();
            for (is_alloc, len, pick) in ops {
                if is_alloc || live.is_empty() {
                    match a.alloc(len) {
                        Ok(addr) => {
                            prop_assert_eq!(addr % ALLOCATION_ALIGNMENT, 0);
                            prop_assert!(addr >= BASE && addr + len <= BASE + size);
                            for &(o, l) in &live {
                                let r = l.next_multiple_of(ALLOCATION_ALIGNMENT);
                                prop_assert!(addr + len <= o || o + r <= addr, "overlap");
                            }
                            live.push((addr, len));
                        }
                        Err(RuntimeError::OutOfMemory { largest_free, .. }) => {
                            prop_assert!(largest_free < len.next_multiple_of(ALLOCATION_ALIGNMENT));
                        }
                        Err(e) => prop_assert!(false, "unexpected {e}"),
                    }
                } else {
                    let (addr, _) = live.swap_remove(pick.index(live.len()));
                    a.free(addr).unwrap();
                    prop_assert!(a.free(addr).is_err());
                }
                let used: u64 = live.iter().map(|&(_, l)| l.next_multiple_of(ALLOCATION_ALIGNMENT)).sum();
                prop_assert_eq!(used + a.free_bytes(), size);
                for &(o, l) in &live {
                    prop_assert_eq!(a.check_range(o, l).unwrap(), o - BASE);
                }
            }
            for (addr, _) in live.drain(..) {
                a.free(addr).unwrap();
            }
            prop_assert_eq!(a.largest_free(), size);
        }
    }
}

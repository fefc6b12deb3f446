//! The device heap that kernels' `malloc`, `free`, `new` and `delete` use (`abi::heap_word`, `docs/abi.md`):
//! a header at the window's first bytes, reserved and zeroed when the runtime is created, and an arena of
//! [`RuntimeOptions::heap_bytes`](crate::RuntimeOptions::heap_bytes) (CUDA's `cudaLimitMallocHeapSize`,
//! 8 MiB by default) placed in the window when the first cubin calling `malloc` or `free` is loaded. The
//! translated kernels do the allocating (`translator/src/lower/heap.rs`); the host only places the arena and
//! fills the header. The heap lives as long as the runtime, as CUDA's lives as long as its context, so memory
//! one launch allocates stays valid for the next.

use crate::{abi, Result, Runtime, RuntimeError};
use sassport_translator::abi::heap_word;
use sassport_translator::cubin::{Cubin, SymbolKind};

/// Where the heap is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct DeviceHeap {
    /// Guest address of the header (the runtime's first allocation); 0 before it is reserved.
    header: u64,
    /// Guest address and bytes of the arena, once placed.
    arena: Option<(u64, u64)>,
}

impl Runtime {
    /// Reserves the heap header at the window's start and writes it with capacity 0 (no heap yet).
    pub(crate) fn reserve_heap_header(&mut self) -> Result<()> {
        let header = self.alloc(abi::HEAP_HEADER_BYTES)?;
        if header != self.window_base() + 4 * u64::from(abi::HEAP_HEADER_WORD) {
            return Err(RuntimeError::HeapSize { requested: 0, reason: "the heap header is not at the window's start" });
        }
        self.upload(header, &[0u8; abi::HEAP_HEADER_BYTES as usize])?;
        self.heap.header = header;
        Ok(())
    }

    /// Bytes of the device heap: placed, or to be placed when a cubin first needs it.
    pub fn malloc_heap_size(&self) -> u64 {
        match self.heap.arena {
            Some((_, bytes)) => bytes,
            None => heap_bytes(self.options().heap_bytes),
        }
    }

    /// Sets the device heap's size, as `cudaDeviceSetLimit(cudaLimitMallocHeapSize, bytes)` does (rounded up to
    /// 16; 0 makes every `malloc` return null). Refused once the heap is placed, or beyond
    /// [`abi::MAX_HEAP_BYTES`].
    pub fn set_malloc_heap_size(&mut self, bytes: u64) -> Result<()> {
        if self.heap.arena.is_some() {
            return Err(RuntimeError::HeapSize {
                requested: bytes,
                reason: "the heap is in use (a cubin that calls malloc or free was loaded)",
            });
        }
        if bytes > abi::MAX_HEAP_BYTES {
            return Err(RuntimeError::HeapSize { requested: bytes, reason: "larger than the 2 GiB the allocator addresses" });
        }
        self.set_heap_option(bytes);
        Ok(())
    }

    /// Places the heap's arena in the window if it is not placed yet, and returns its bytes.
    pub fn ensure_device_heap(&mut self) -> Result<u64> {
        if let Some((_, bytes)) = self.heap.arena {
            return Ok(bytes);
        }
        let bytes = heap_bytes(self.options().heap_bytes);
        if bytes > abi::MAX_HEAP_BYTES {
            return Err(RuntimeError::HeapSize { requested: bytes, reason: "larger than the 2 GiB the allocator addresses" });
        }
        let arena = if bytes == 0 { self.window_base() } else { self.alloc(bytes)? };
        // The arena's words, its end included, are 32-bit word indexes in the translated heap code.
        let word = (arena - self.window_base()) / 4;
        let end_word = (arena - self.window_base() + bytes) / 4;
        let (Ok(word), Ok(_)) = (u32::try_from(word), u32::try_from(end_word)) else {
            if bytes != 0 {
                self.free(arena)?;
            }
            return Err(RuntimeError::HeapSize { requested: bytes, reason: "the arena lies beyond 16 GiB of the window" });
        };
        let mut fields = [0u8; 16];
        fields[4 * heap_word::ARENA as usize..][..4].copy_from_slice(&word.to_le_bytes());
        fields[4 * heap_word::CAPACITY as usize..][..4].copy_from_slice(&(bytes as u32).to_le_bytes());
        self.upload(self.heap.header, &fields)?;
        self.heap.arena = Some((arena, bytes));
        Ok(bytes)
    }

    /// Places the heap when `cubin` calls `malloc` or `free` (declares them without defining them).
    pub(crate) fn heap_for(&mut self, cubin: &Cubin<'_>) -> Result<()> {
        let uses_heap = cubin
            .symbols
            .iter()
            .any(|s| s.section.is_none() && s.kind == SymbolKind::Function && matches!(s.name, "malloc" | "free"));
        if uses_heap {
            self.ensure_device_heap()?;
        }
        Ok(())
    }
}

/// Heap bytes for a requested size: rounded up to the 16-byte block granule.
fn heap_bytes(requested: u64) -> u64 {
    requested.saturating_add(abi::HEAP_ALIGNMENT - 1) / abi::HEAP_ALIGNMENT * abi::HEAP_ALIGNMENT
}

#[cfg(test)]
mod tests {
    use super::heap_bytes;
    use sassport_translator::abi::{heap_block_bytes, heap_class, HEAP_CLASSES, MAX_HEAP_BYTES};

    #[test]
    fn sizes_round_to_the_granule() {
        assert_eq!(heap_bytes(0), 0);
        assert_eq!(heap_bytes(1), 16);
        assert_eq!(heap_bytes(8 << 20), 8 << 20);
    }

    #[test]
    fn every_total_gets_the_smallest_class_that_holds_it() {
        // Exhaustive over small totals, then around every class boundary up to the largest heap.
        let mut totals: Vec<u64> = (32..=70_000).step_by(16).collect();
        for c in 0..HEAP_CLASSES {
            let b = heap_block_bytes(c);
            if b > MAX_HEAP_BYTES {
                break;
            }
            totals.extend([b - 16, b, b + 16].into_iter().filter(|&x| (32..=MAX_HEAP_BYTES).contains(&x)));
        }
        for total in totals {
            let c = heap_class(total);
            assert!(c < HEAP_CLASSES, "{total}");
            assert!(heap_block_bytes(c) >= total, "{total} -> class {c}");
            assert!(c == 0 || heap_block_bytes(c - 1) < total, "{total} -> class {c} is not the smallest");
            assert_eq!(heap_block_bytes(c) % 16, 0);
        }
        assert!(heap_block_bytes(heap_class(MAX_HEAP_BYTES)) <= MAX_HEAP_BYTES);
    }
}

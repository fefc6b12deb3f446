//! Constant bank 0 as the CUDA driver fills it for nvcc's sm_86 code.

use sassport_translator::abi::{self, bank0};

/// The bytes of constant bank 0 for one launch: the driver-reserved words nvcc code reads, then the kernel
/// parameters at [`abi::bank0::PARAMS`].
///
/// Filled: `blockDim` (0x0), `gridDim` (0xc). Left 0 until the translator's local-memory convention and
/// descriptor use are fixed: the initial stack pointer (0x28) and the global-memory descriptor (0x118).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bank0 {
    bytes: Vec<u8>,
}

impl Bank0 {
    /// The driver words for a launch of `grid` x `block`, with no parameters yet.
    pub fn new(grid: [u32; 3], block: [u32; 3]) -> Self {
        let mut b = Bank0 {
            bytes: vec![0; bank0::PARAMS as usize],
        };
        for i in 0..3 {
            b.set_u32(bank0::BLOCK_DIM + 4 * i as u32, block[i]);
            b.set_u32(bank0::GRID_DIM + 4 * i as u32, grid[i]);
        }
        b
    }

    /// Records the launch's dynamic shared memory size (0x2c), which nvcc code reads for `%dynamic_smem_size`.
    pub fn with_dynamic_shared(mut self, bytes: u32) -> Self {
        self.set_u32(bank0::DYNAMIC_SHARED_SIZE, bytes);
        self
    }

    /// Writes a parameter block (the kernel's parameters laid out as the cubin's `KPARAM_INFO` says) at 0x160.
    pub fn with_params(mut self, params: &[u8]) -> Self {
        self.set_bytes(bank0::PARAMS, params);
        self
    }

    /// Writes `data` at byte `offset`, growing the bank (at most [`abi::MAX_BANK_BYTES`]; longer data is cut
    /// there and [`crate::Runtime::launch`] would refuse it anyway).
    pub fn set_bytes(&mut self, offset: u32, data: &[u8]) {
        let start = (offset as usize).min(abi::MAX_BANK_BYTES as usize);
        let end = (start + data.len()).min(abi::MAX_BANK_BYTES as usize);
        if self.bytes.len() < end {
            self.bytes.resize(end, 0);
        }
        self.bytes[start..end].copy_from_slice(&data[..end - start]);
    }

    /// Writes a little-endian u32 at byte `offset`.
    pub fn set_u32(&mut self, offset: u32, v: u32) {
        self.set_bytes(offset, &v.to_le_bytes());
    }

    /// Writes a little-endian u64 (a pointer, say) at byte `offset`.
    pub fn set_u64(&mut self, offset: u32, v: u64) {
        self.set_bytes(offset, &v.to_le_bytes());
    }

    /// The bank's bytes, for [`crate::Launch::banks`].
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn driver_words_sit_where_nvcc_reads_them() {
        // Offsets from shared/notes/cubin.md (read off nvcc sm_86 SASS): c[0x0][0x0..0x8] blockDim,
        // c[0x0][0xc..0x14] gridDim, parameters from c[0x0][0x160].
        let b = Bank0::new([7, 8, 9], [32, 2, 1]).with_params(&[0xaa, 0xbb]);
        let w = |o: usize| u32::from_le_bytes(b.as_bytes()[o..o + 4].try_into().unwrap());
        assert_eq!([w(0x0), w(0x4), w(0x8)], [32, 2, 1]);
        assert_eq!([w(0xc), w(0x10), w(0x14)], [7, 8, 9]);
        assert_eq!(&b.as_bytes()[0x160..], &[0xaa, 0xbb]);
        assert_eq!(w(0x28), 0);
    }

    #[test]
    fn writes_past_the_bank_are_cut() {
        let mut b = Bank0::new([1; 3], [1; 3]);
        b.set_u64(0xfffc, u64::MAX);
        assert_eq!(b.as_bytes().len(), 0x10000);
        b.set_u32(0x2_0000, 1);
        assert_eq!(b.as_bytes().len(), 0x10000);
    }
}

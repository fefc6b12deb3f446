//! Errors of the GPU memory mapper; each names the GPU address that failed.

use super::Access;

/// A failed mapping operation or memory access.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MemoryError {
    /// The range runs past the 49-bit GPU address space (or overflows 64 bits).
    #[error("GPU VA range {va:#x}+{len:#x} runs past the 49-bit address space")]
    OutOfRange { va: u64, len: u64 },
    /// A byte of the access is not mapped.
    #[error("GPU VA {va:#x} is not mapped")]
    Unmapped { va: u64 },
    /// A byte of the access lies in a mapping without the needed right.
    #[error("GPU VA {va:#x} needs {needed} access but is mapped {granted}")]
    Permission {
        va: u64,
        needed: Access,
        granted: Access,
    },
    /// The access is not aligned as the operation requires.
    #[error("GPU VA {va:#x} is not {align}-byte aligned")]
    Misaligned { va: u64, align: u64 },
    /// A new mapping would overlap an existing one.
    #[error("mapping {va:#x}+{len:#x} overlaps the mapping at {existing:#x}")]
    Overlap { va: u64, len: u64, existing: u64 },
    /// A mapping of zero bytes was requested.
    #[error("mapping at {va:#x} has zero length")]
    EmptyMapping { va: u64 },
    /// A mapping would reach past the end of its storage.
    #[error(
        "storage {index} has {storage_len} bytes; cannot map {len:#x} bytes at offset {offset:#x}"
    )]
    StorageRange {
        index: usize,
        offset: usize,
        len: u64,
        storage_len: usize,
    },
    /// No storage has this handle.
    #[error("no storage {index}")]
    UnknownStorage { index: usize },
    /// A protection change would split the mapping starting at `existing`.
    #[error("GPU VA {va:#x} falls inside the mapping at {existing:#x}")]
    Straddles { va: u64, existing: u64 },
}

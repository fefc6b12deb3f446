//! Errors of the copy engines. Each converts into the channel's [`EngineError`]: memory and semaphore
//! failures keep their own variants, refused features become `Unsupported`, everything else `Class`.

use crate::channel::EngineError;
use crate::layout::LayoutError;
use crate::memory::MemoryError;
use crate::semaphore::SemaphoreError;

/// Why a copy-engine method could not be carried out. Nothing was written when one is returned.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CopyError {
    /// A memory access of the copy failed (named address).
    #[error(transparent)]
    Memory(#[from] MemoryError),
    /// The completion semaphore cannot be released.
    #[error(transparent)]
    Semaphore(#[from] SemaphoreError),
    /// The source or destination surface (which one is named) is not a valid block-linear surface or
    /// the copy does not fit inside it.
    #[error("{side} surface: {error}")]
    Layout { side: Side, error: LayoutError },
    /// A field value the class header does not define.
    #[error("{method} {field} = {value:#x} is not a defined value")]
    BadField {
        method: &'static str,
        field: &'static str,
        value: u32,
    },
    /// A defined feature this emulator does not model; refused by name rather than skipped.
    #[error("unsupported: {0}")]
    Unsupported(&'static str),
    /// The remap selects a source component beyond NUM_SRC_COMPONENTS.
    #[error(
        "remap DST_{dst} reads source component {src} but only {num_src} source components are set"
    )]
    RemapComponent { dst: char, src: char, num_src: u32 },
    /// An address computation left the 49-bit GPU address space (e.g. a negative pitch past 0).
    #[error("{side} line {line} starts outside the GPU address space")]
    AddressOverflow { side: Side, line: u64 },
    /// More bytes than this emulator stages for one launch.
    #[error("launch needs {bytes} bytes, over the {limit}-byte limit of one launch")]
    TooLarge { bytes: u64, limit: u64 },
    /// Inline data arrived when no transfer expects it.
    #[error("LOAD_INLINE_DATA with no inline transfer pending")]
    NoTransferPending,
    /// LAUNCH_DMA arrived while the previous inline transfer still expects data.
    #[error(
        "LAUNCH_DMA while the previous inline transfer still expects {remaining_words} data words"
    )]
    TransferInProgress { remaining_words: u64 },
}

/// Which surface of a copy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    Source,
    Destination,
}

impl std::fmt::Display for Side {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Side::Source => "source",
            Side::Destination => "destination",
        })
    }
}

impl From<CopyError> for EngineError {
    fn from(e: CopyError) -> Self {
        match e {
            CopyError::Memory(m) => EngineError::Memory(m),
            CopyError::Semaphore(s) => EngineError::Semaphore(s),
            CopyError::Unsupported(what) => EngineError::Unsupported(what.to_owned()),
            other => EngineError::Class(Box::new(other)),
        }
    }
}

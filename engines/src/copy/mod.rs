//! The copy engines: AMPERE_DMA_COPY_A (0xC6B5) and KEPLER_INLINE_TO_MEMORY_B (0xA140).
//!
//! Both validate every destination byte and the completion semaphore before the first write, so a
//! failing method writes nothing, releases nothing, and can be retried once the cause is fixed.

mod error;
mod surface;

pub use error::{CopyError, Side};
pub use surface::{Placement, RowSource, Shape};

mod completion;
mod dma;
mod inline;
mod remap;

pub use completion::{SemaphoreReduction, SemaphoreType};
pub use dma::{
    method as dma_method, DmaCopy, LaunchDma, AMPERE_DMA_COPY_A, LINE_COST, STAGING_LIMIT,
    WRITE_LIMIT,
};
pub use inline::{
    method as inline_method, InlineLaunch, InlineToMemory, KEPLER_INLINE_TO_MEMORY_B,
};
pub use remap::{ComponentSource, Remap};

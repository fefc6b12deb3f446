//! Textures of the emulated Ampere GPU as guest memory holds them: texture headers (TIC), samplers (TSC),
//! texel formats, the pools and handles that find them, and block-linear mip chains copied out into the
//! tightly packed form a host image upload reads.
//!
//! Depends on `sassport-engines` only (its block-linear layout and GPU memory); no Vulkan, no translator:
//! the runtime turns what this crate decodes into host images and samplers.
//!
//! - [`tic`]: [`TextureHeader`] from a 32-byte entry; [`tsc`]: [`Sampler`]; [`format`]: layouts, data types
//!   and swizzles; [`pool`]: handles and pools in [`GpuMemory`](sassport_engines::memory::GpuMemory);
//! - [`chain`]: where each level and layer lies; [`untile`]: the copy into packed form;
//! - [`encode`]: headers and samplers back into entries (what a driver writes into a pool).
//!
//! Every reserved or unsupported field value is refused with the field's name (`*Error` types).

pub mod bc;
pub mod bits;
pub mod chain;
pub mod encode;
pub mod format;
pub mod pool;
pub mod sample;
pub mod tic;
pub mod tsc;
pub mod untile;

pub use bits::Entry;
pub use chain::{Chain, ChainError, Level};
pub use format::{DataType, Format, Layout, Source};
pub use pool::{Handle, Pool, PoolError};
/// The GOB sector order a chain is laid out in (chosen by the caller; see [`Chain::new`]).
pub use sassport_engines::layout::SectorLayout;
pub use tic::{MemoryLayout, TextureHeader, TextureType, TicError};
pub use tsc::{AddressMode, CompareFunc, Filter, MipFilter, Reduction, Sampler, TscError};
pub use untile::{untile_chain, untile_chain_placed, Placement, UntileError};

//! Texture and sampler pools in guest memory, and the 32-bit handles shaders read from constant banks.
//!
//! A handle's low 20 bits pick the TIC entry and its top 12 bits the TSC entry, unless the sampler pool is
//! linked to the texture pool (the 3-D class's SAMPLER_INDEX = VIA_HEADER_INDEX), when the TIC index picks
//! both (facts as the seed notes and yuzu's `TextureHandle` give them).

use sassport_engines::memory::{GpuMemory, MemoryError};

use crate::bits::Entry;
use crate::tic::{TextureHeader, TicError};
use crate::tsc::{Sampler, TscError};

/// A texture handle split into its pool indices.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Handle {
    pub tic: u32,
    pub tsc: u32,
}

impl Handle {
    /// Splits `raw`; with `linked` the sampler index is the texture index.
    pub fn split(raw: u32, linked: bool) -> Handle {
        let tic = raw & 0xF_FFFF;
        Handle {
            tic,
            tsc: if linked { tic } else { raw >> 20 },
        }
    }
}

/// One pool: its GPU address and the number of entries (MAXIMUM_INDEX + 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pool {
    pub address: u64,
    pub entries: u32,
}

/// Why a pool entry could not be read or decoded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PoolError {
    #[error("{pool} index {index} is past the pool's {entries} entries")]
    IndexOutOfRange {
        pool: &'static str,
        index: u32,
        entries: u32,
    },
    #[error("{pool} entry {index} at GPU VA {va:#x}: {source}")]
    Memory {
        pool: &'static str,
        index: u32,
        va: u64,
        source: MemoryError,
    },
    #[error("TIC entry {index}: {source}")]
    Tic { index: u32, source: TicError },
    #[error("TSC entry {index}: {source}")]
    Tsc { index: u32, source: TscError },
}

impl Pool {
    /// The raw entry `index`.
    pub fn entry(&self, memory: &GpuMemory, pool: &'static str, index: u32) -> Result<Entry, PoolError> {
        if index >= self.entries {
            return Err(PoolError::IndexOutOfRange {
                pool,
                index,
                entries: self.entries,
            });
        }
        let va = self.address.wrapping_add(index as u64 * Entry::BYTES as u64);
        let mut bytes = [0u8; 32];
        memory.read(va, &mut bytes).map_err(|source| PoolError::Memory {
            pool,
            index,
            va,
            source,
        })?;
        Ok(Entry::from_bytes(&bytes))
    }

    /// Texture header `index` of this (texture) pool, decoded.
    pub fn texture(&self, memory: &GpuMemory, index: u32) -> Result<TextureHeader, PoolError> {
        let e = self.entry(memory, "TIC", index)?;
        TextureHeader::decode(&e).map_err(|source| PoolError::Tic { index, source })
    }

    /// Sampler `index` of this (sampler) pool, decoded.
    pub fn sampler(&self, memory: &GpuMemory, index: u32) -> Result<Sampler, PoolError> {
        let e = self.entry(memory, "TSC", index)?;
        Sampler::decode(&e).map_err(|source| PoolError::Tsc { index, source })
    }
}

//! Where every level and layer of a texture lies in guest memory, and how big its tightly packed copy is.
//!
//! Block-linear chains (facts as Ryujinx's size calculator and Mesa NIL give them): level l is
//! max(1, extent >> l) texels, stored as rows of format blocks; each level's block height and depth are the
//! header's, shrunk while half the block would still cover the level (the engines crate's
//! [`BlockLinearLayout::clamped_block_log2`]); levels follow each other without padding, and a layer is the
//! sum of its levels rounded up to a whole level-0 block (after the clamp). 3-D textures have one layer
//! whose levels shrink in depth too; arrays and cubes keep one slice per layer.

use sassport_engines::layout::{BlockLinearLayout, LayoutError, SectorLayout, GOB_SIZE_BYTES};

use crate::format::Block;
use crate::tic::{MemoryLayout, TextureHeader};

/// Why a chain could not be laid out.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ChainError {
    #[error("level {level}: {source}")]
    Layout { level: u32, source: LayoutError },
    #[error("texture too large: {0} does not fit in 64 bits")]
    TooLarge(String),
    #[error("not supported: {0}")]
    Unsupported(&'static str),
}

/// One mip level of one layer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Level {
    /// Extent in texels.
    pub width: u32,
    pub height: u32,
    pub depth: u32,
    /// Row of format blocks in bytes, rows of blocks, as the tightly packed copy holds them.
    pub row_bytes: u32,
    pub rows: u32,
    /// Byte offset of this level from the start of its layer in guest memory.
    pub guest_offset: u64,
    /// Bytes the level spans in guest memory (padding included).
    pub guest_bytes: u64,
    /// The block-linear geometry (block-linear chains only).
    pub block_linear: Option<BlockLinearLayout>,
}

impl Level {
    /// Bytes of the tightly packed level (one layer).
    pub fn packed_bytes(&self) -> u64 {
        self.row_bytes as u64 * self.rows as u64 * self.depth as u64
    }
}

/// The whole chain: every level of one layer, and the distance between layers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Chain {
    pub block: Block,
    pub levels: Vec<Level>,
    pub layers: u32,
    /// Bytes from one layer to the next in guest memory.
    pub layer_stride: u64,
}

impl Chain {
    /// The chain `header` describes, GOBs in `sectors` order (the header does not say which; Ampere desktop
    /// GPUs and Tegra Orin use [`SectorLayout::Turing2D`]).
    pub fn new(header: &TextureHeader, sectors: SectorLayout) -> Result<Chain, ChainError> {
        // `TextureHeader::decode` refuses layouts without whole-byte blocks.
        let block = header
            .format
            .layout
            .block()
            .ok_or(ChainError::Unsupported("R1 texels (one bit each)"))?;
        let layers = header.layers();
        match header.memory {
            MemoryLayout::BlockLinear {
                block_height_log2,
                block_depth_log2,
            } => block_linear(header, block, sectors, block_height_log2, block_depth_log2),
            MemoryLayout::Pitch { pitch } => {
                if layers > 1 || header.slices() > 1 {
                    return Err(ChainError::Unsupported("layered or 3-D pitch-linear textures"));
                }
                let level = flat_level(header, block, 0)?;
                let guest_bytes = pitch as u64 * (level.rows as u64 * level.depth as u64).saturating_sub(1)
                    + level.row_bytes as u64;
                Ok(Chain {
                    block,
                    levels: vec![Level { guest_bytes, ..level }],
                    layers,
                    layer_stride: 0,
                })
            }
            MemoryLayout::Buffer => {
                let level = flat_level(header, block, 0)?;
                let guest_bytes = level.row_bytes as u64;
                Ok(Chain {
                    block,
                    levels: vec![Level { guest_bytes, ..level }],
                    layers: 1,
                    layer_stride: 0,
                })
            }
        }
    }

    /// Bytes of guest memory the chain spans from its address.
    pub fn guest_bytes(&self) -> u64 {
        let one = self.levels.last().map_or(0, |l| l.guest_offset + l.guest_bytes);
        self.layer_stride * (self.layers as u64).saturating_sub(1) + one
    }

    /// Bytes of the tightly packed copy: level by level, each level's layers one after another (the order
    /// a buffer-to-image copy of every layer of a level reads).
    pub fn packed_bytes(&self) -> u64 {
        self.levels.iter().map(|l| l.packed_bytes()).sum::<u64>() * self.layers as u64
    }

    /// Offset of level `level` (all its layers) in the tightly packed copy.
    pub fn packed_offset(&self, level: usize) -> u64 {
        self.levels[..level].iter().map(|l| l.packed_bytes()).sum::<u64>() * self.layers as u64
    }
}

/// Level `l` of a texture in texels and format blocks, without its memory placement.
fn flat_level(header: &TextureHeader, block: Block, l: u32) -> Result<Level, ChainError> {
    let shrink = |v: u32| (v >> l).max(1);
    let width = shrink(header.width);
    let height = shrink(header.height);
    let depth = shrink(header.slices());
    let row_bytes = (width.div_ceil(block.width) as u64 * block.bytes as u64)
        .try_into()
        .map_err(|_| ChainError::TooLarge(format!("a row of {width} texels")))?;
    Ok(Level {
        width,
        height,
        depth,
        row_bytes,
        rows: height.div_ceil(block.height),
        guest_offset: 0,
        guest_bytes: 0,
        block_linear: None,
    })
}

fn block_linear(
    header: &TextureHeader,
    block: Block,
    sectors: SectorLayout,
    block_height_log2: u32,
    block_depth_log2: u32,
) -> Result<Chain, ChainError> {
    let mut levels = Vec::with_capacity(header.levels() as usize);
    let mut offset = 0u64;
    let mut base_block_bytes = GOB_SIZE_BYTES as u64;
    for l in 0..header.levels() {
        let level = flat_level(header, block, l)?;
        let (h, d) = BlockLinearLayout::clamped_block_log2(
            level.rows,
            level.depth,
            block_height_log2,
            block_depth_log2,
        );
        let layout = BlockLinearLayout::new(level.row_bytes, level.rows, level.depth, h, d, sectors)
            .map_err(|source| ChainError::Layout { level: l, source })?;
        if l == 0 {
            base_block_bytes = layout.block_bytes();
        }
        levels.push(Level {
            guest_offset: offset,
            guest_bytes: layout.size_bytes(),
            block_linear: Some(layout),
            ..level
        });
        offset = offset
            .checked_add(layout.size_bytes())
            .ok_or_else(|| ChainError::TooLarge(format!("{} levels", header.levels())))?;
    }
    let layer_stride = offset.div_ceil(base_block_bytes) * base_block_bytes;
    Ok(Chain {
        block,
        levels,
        layers: header.layers(),
        layer_stride,
    })
}

//! Block-linear surfaces: GOBs stacked into blocks, blocks laid out in rows, rows of blocks in slices.
//!
//! A block is 1 GOB wide, 2^h GOBs high and 2^d GOBs deep (h, d in 0..=5). Inside a block the GOBs run
//! down a column first, then through depth. Blocks run left to right in a row of blocks, rows of blocks
//! run top to bottom, and each group of 2^d z-slices ("slice of blocks") follows the previous one. The
//! surface width is in bytes: the copy engines have no notion of an element until remap is enabled.

use super::gob::{SectorLayout, GOB_HEIGHT_ROWS, GOB_SIZE_BYTES, GOB_WIDTH_BYTES};

/// Largest block height or depth, as log2 GOBs (32 GOBs).
pub const MAX_BLOCK_LOG2: u8 = 5;

/// Why a layout or region was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LayoutError {
    #[error("block height log2 {0} is out of range (0..=5)")]
    BlockHeight(u32),
    #[error("block depth log2 {0} is out of range (0..=5)")]
    BlockDepth(u32),
    #[error("block width log2 {0} is unsupported (only 1-GOB-wide blocks exist on these engines)")]
    BlockWidth(u32),
    #[error("GOB height code {0} is unsupported (only 8-row Fermi+ GOBs, code 1)")]
    GobHeight(u32),
    #[error("surface of {width} bytes × {height} rows × {depth} slices is larger than 2^64 bytes")]
    TooLarge { width: u32, height: u32, depth: u32 },
    #[error("region x {x}+{width} bytes, y {y}+{height} rows, z {z} lies outside the {surface_width} × {surface_height} × {surface_depth} surface")]
    OutOfBounds {
        x: u64,
        y: u64,
        z: u64,
        width: u64,
        height: u64,
        surface_width: u32,
        surface_height: u32,
        surface_depth: u32,
    },
    #[error("element origin or width overflows: {elements} elements of {element_bytes} bytes")]
    ElementOverflow { elements: u64, element_bytes: u32 },
    #[error("buffer starts at surface byte {origin} but the region starts at byte {needed}")]
    BufferStartsLate { origin: u64, needed: u64 },
    #[error("buffer of {len} bytes is too short: {needed} needed")]
    BufferTooShort { len: usize, needed: u64 },
}

/// The geometry of one block-linear surface (one mip level).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlockLinearLayout {
    width_bytes: u32,
    height: u32,
    depth: u32,
    block_height_log2: u8,
    block_depth_log2: u8,
    sectors: SectorLayout,
    gobs_per_row: u64,
    rows_of_blocks: u64,
    row_of_blocks_bytes: u64,
    slice_of_blocks_bytes: u64,
    size_bytes: u64,
}

impl BlockLinearLayout {
    /// A surface `width_bytes` wide, `height` rows high and `depth` slices deep (zero extents are
    /// allowed and hold no bytes).
    pub fn new(
        width_bytes: u32,
        height: u32,
        depth: u32,
        block_height_log2: u32,
        block_depth_log2: u32,
        sectors: SectorLayout,
    ) -> Result<Self, LayoutError> {
        if block_height_log2 > MAX_BLOCK_LOG2 as u32 {
            return Err(LayoutError::BlockHeight(block_height_log2));
        }
        if block_depth_log2 > MAX_BLOCK_LOG2 as u32 {
            return Err(LayoutError::BlockDepth(block_depth_log2));
        }
        let too_large = LayoutError::TooLarge {
            width: width_bytes,
            height,
            depth,
        };
        let block_rows = (GOB_HEIGHT_ROWS as u64) << block_height_log2;
        let block_slices = 1u64 << block_depth_log2;
        let gobs_per_row = (width_bytes as u64).div_ceil(GOB_WIDTH_BYTES as u64);
        let rows_of_blocks = (height as u64).div_ceil(block_rows);
        let slices_of_blocks = (depth as u64).div_ceil(block_slices);
        let block_bytes = (GOB_SIZE_BYTES as u64) << (block_height_log2 + block_depth_log2);
        // gobs_per_row < 2^27 and block_bytes <= 2^19, so this product cannot overflow.
        let row_of_blocks_bytes = gobs_per_row * block_bytes;
        let slice_of_blocks_bytes = row_of_blocks_bytes
            .checked_mul(rows_of_blocks)
            .ok_or(too_large.clone())?;
        let size_bytes = slice_of_blocks_bytes
            .checked_mul(slices_of_blocks)
            .ok_or(too_large)?;
        Ok(BlockLinearLayout {
            width_bytes,
            height,
            depth,
            block_height_log2: block_height_log2 as u8,
            block_depth_log2: block_depth_log2 as u8,
            sectors,
            gobs_per_row,
            rows_of_blocks,
            row_of_blocks_bytes,
            slice_of_blocks_bytes,
            size_bytes,
        })
    }

    pub fn width_bytes(&self) -> u32 {
        self.width_bytes
    }
    pub fn height(&self) -> u32 {
        self.height
    }
    pub fn depth(&self) -> u32 {
        self.depth
    }
    pub fn block_height_log2(&self) -> u32 {
        self.block_height_log2 as u32
    }
    pub fn block_depth_log2(&self) -> u32 {
        self.block_depth_log2 as u32
    }
    pub fn sectors(&self) -> SectorLayout {
        self.sectors
    }
    /// GOBs across one row of blocks (the width rounded up to 64 bytes, in GOBs).
    pub fn gobs_per_row(&self) -> u64 {
        self.gobs_per_row
    }
    /// Rows of blocks in one slice of blocks.
    pub fn rows_of_blocks(&self) -> u64 {
        self.rows_of_blocks
    }
    /// Bytes in one block (2^(h+d) GOBs).
    pub fn block_bytes(&self) -> u64 {
        (GOB_SIZE_BYTES as u64) << (self.block_height_log2 + self.block_depth_log2)
    }
    /// Bytes in one row of blocks.
    pub fn row_of_blocks_bytes(&self) -> u64 {
        self.row_of_blocks_bytes
    }
    /// Bytes in one slice of blocks (2^d z-slices).
    pub fn slice_of_blocks_bytes(&self) -> u64 {
        self.slice_of_blocks_bytes
    }
    /// Bytes the whole surface spans, padding included.
    pub fn size_bytes(&self) -> u64 {
        self.size_bytes
    }

    /// The byte offset of byte `x` of row `y` of slice `z`. Coordinates must lie inside the surface
    /// (checked by [`Self::check_region`]); outside it the result is meaningless but never panics.
    #[inline(always)]
    pub fn offset(&self, x: u32, y: u32, z: u32) -> u64 {
        self.row_base(y, z)
            .wrapping_add(self.gob_column_offset(x))
            .wrapping_add(self.sectors.offset(x, y) as u64)
    }

    /// The offset of the GOB row that holds row `y` of slice `z`, at x = 0 (the in-GOB row offset is
    /// not included; see [`SectorLayout::offset`]).
    #[inline(always)]
    pub fn row_base(&self, y: u32, z: u32) -> u64 {
        let h = self.block_height_log2 as u32;
        let d = self.block_depth_log2 as u32;
        let gob_y = (y / GOB_HEIGHT_ROWS) as u64;
        let z = z as u64;
        let slice_of_blocks = (z >> d).wrapping_mul(self.slice_of_blocks_bytes);
        let row_of_blocks = (gob_y >> h).wrapping_mul(self.row_of_blocks_bytes);
        // GOBs in a block: a column of 2^h, then 2^d of those through depth.
        let gob_in_block = ((z & ((1 << d) - 1)) << h) | (gob_y & ((1 << h) - 1));
        slice_of_blocks
            .wrapping_add(row_of_blocks)
            .wrapping_add(gob_in_block * GOB_SIZE_BYTES as u64)
    }

    /// The offset of the GOB column holding byte `x`, relative to [`Self::row_base`].
    #[inline(always)]
    pub fn gob_column_offset(&self, x: u32) -> u64 {
        ((x / GOB_WIDTH_BYTES) as u64)
            << (9 + self.block_height_log2 as u32 + self.block_depth_log2 as u32)
    }

    /// Checks that `region` lies inside the surface.
    pub fn check_region(&self, region: &Region) -> Result<(), LayoutError> {
        let inside = region.x as u64 + region.width as u64 <= self.width_bytes as u64
            && region.y as u64 + region.height as u64 <= self.height as u64
            && ((region.z as u64) < self.depth as u64
                || region.is_empty() && region.z <= self.depth);
        if inside {
            Ok(())
        } else {
            Err(LayoutError::OutOfBounds {
                x: region.x as u64,
                y: region.y as u64,
                z: region.z as u64,
                width: region.width as u64,
                height: region.height as u64,
                surface_width: self.width_bytes,
                surface_height: self.height,
                surface_depth: self.depth,
            })
        }
    }

    /// Hardware clamps a block to less than twice the surface extent at each mip level (Mesa NIL
    /// `Tiling::clamp`); texture code uses this, the copy engines take block sizes as programmed.
    pub fn clamped_block_log2(
        height: u32,
        depth: u32,
        block_height_log2: u32,
        block_depth_log2: u32,
    ) -> (u32, u32) {
        let mut h = block_height_log2.min(MAX_BLOCK_LOG2 as u32);
        while h > 0 && (GOB_HEIGHT_ROWS << (h - 1)) >= height {
            h -= 1;
        }
        let mut d = block_depth_log2.min(MAX_BLOCK_LOG2 as u32);
        while d > 0 && (1u32 << (d - 1)) >= depth {
            d -= 1;
        }
        (h, d)
    }
}

/// A rectangle of one slice, x and width in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Region {
    pub x: u32,
    pub y: u32,
    pub z: u32,
    pub width: u32,
    pub height: u32,
}

impl Region {
    /// A region whose x origin and width are in elements of `element_bytes` bytes (what the copy engines
    /// use when remap is enabled); converted to bytes with overflow checked.
    pub fn from_elements(
        x_elements: u32,
        y: u32,
        z: u32,
        width_elements: u32,
        height: u32,
        element_bytes: u32,
    ) -> Result<Region, LayoutError> {
        let to_bytes = |elements: u32| {
            let bytes = elements as u64 * element_bytes as u64;
            u32::try_from(bytes).map_err(|_| LayoutError::ElementOverflow {
                elements: elements as u64,
                element_bytes,
            })
        };
        Ok(Region {
            x: to_bytes(x_elements)?,
            y,
            z,
            width: to_bytes(width_elements)?,
            height,
        })
    }

    pub fn is_empty(&self) -> bool {
        self.width == 0 || self.height == 0
    }

    /// Bytes in the region.
    pub fn bytes(&self) -> u64 {
        self.width as u64 * self.height as u64
    }
}

//! Block-linear memory layout, shared by the copy engines and textures: GOBs (64 bytes × 8 rows), their
//! sector order, blocks of 2^h × 2^d GOBs, rows and slices of blocks, and the loops that move regions
//! between block-linear and pitch-linear memory.

mod block_linear;
mod gob;
mod transfer;

pub use block_linear::{BlockLinearLayout, LayoutError, Region, MAX_BLOCK_LOG2};
pub use gob::{
    SectorLayout, UnknownSectorLayout, GOB_HEIGHT_ROWS, GOB_SIZE_BYTES, GOB_WIDTH_BYTES,
    SECTOR_ROW_BYTES,
};
pub use transfer::{
    for_each_run, linear_extent, region_start, tile, tile_into, tiled_extent, untile, untile_from,
};

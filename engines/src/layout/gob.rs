//! One GOB ("group of bytes"): 64 bytes × 8 rows = 512 bytes, split into sixteen 32-byte sectors of
//! 16 bytes × 2 rows. Which sector holds which 16 × 2 piece depends on the GPU; the two orders an Ampere
//! emulator meets are an explicit choice ([`SectorLayout`]), never guessed.
//!
//! Sources for the orders (facts only):
//! - Tegra 16Bx2: Linux `include/uapi/drm/drm_fourcc.h`, `DRM_FORMAT_MOD_NVIDIA_BLOCK_LINEAR_2D` sector layout
//!   0 ("16B x 2 lines sectors laid in Z-shape", Tegra X1 TRM chapter 20 "Pixel Memory Formats"); the same
//!   offset bits are what yuzu and Ryujinx use for the Switch: offset bits b8..b0 = x5 y2 y1 x4 y0 x3 x2 x1 x0.
//! - Turing 2D: Mesa NIL `GOBType::TuringColor2D` (sector grid 0 2 8 10 / 1 3 9 11 / 4 6 12 14 / 5 7 13 15),
//!   DRM sector layout 1 (desktop Turing+ and Tegra Xavier–Orin): offset bits b8..b0 = x5 y2 x4 y1 y0 x3..x0.

/// Bytes in one row of a GOB.
pub const GOB_WIDTH_BYTES: u32 = 64;
/// Rows in a GOB.
pub const GOB_HEIGHT_ROWS: u32 = 8;
/// Bytes in a GOB.
pub const GOB_SIZE_BYTES: u32 = GOB_WIDTH_BYTES * GOB_HEIGHT_ROWS;
/// Bytes in the unit that is contiguous in both pitch and block-linear memory: one row of one sector.
pub const SECTOR_ROW_BYTES: u32 = 16;

pub use crate::sector_layout::{SectorLayout, UnknownSectorLayout};

impl SectorLayout {
    /// Both layouts, for tests and tables.
    pub const ALL: [SectorLayout; 2] = [SectorLayout::Tegra16Bx2, SectorLayout::Turing2D];

    /// The byte offset inside a GOB of byte `x` (0..64) in row `y` (0..8). Higher bits are ignored.
    #[inline(always)]
    pub const fn offset(self, x: u32, y: u32) -> u32 {
        let low = x & 0xF; // x3..x0 stay in place: 16-byte rows are contiguous
        let x4 = (x >> 4) & 1;
        let x5 = (x >> 5) & 1;
        let y0 = y & 1;
        let y1 = (y >> 1) & 1;
        let y2 = (y >> 2) & 1;
        match self {
            // b8..b0 = x5 y2 y1 x4 y0 x3 x2 x1 x0
            SectorLayout::Tegra16Bx2 => low | y0 << 4 | x4 << 5 | y1 << 6 | y2 << 7 | x5 << 8,
            // b8..b0 = x5 y2 x4 y1 y0 x3 x2 x1 x0
            SectorLayout::Turing2D => low | y0 << 4 | y1 << 5 | x4 << 6 | y2 << 7 | x5 << 8,
        }
    }

    /// Offsets of the four 16-byte pieces of GOB row `y`, left to right.
    #[inline(always)]
    pub const fn row_chunks(self, y: u32) -> [u32; 4] {
        [
            self.offset(0, y),
            self.offset(16, y),
            self.offset(32, y),
            self.offset(48, y),
        ]
    }

    /// For each of the 32 16-byte pieces of a GOB in memory order: (row, byte column) of its first byte.
    pub const fn memory_order(self) -> [(u8, u8); 32] {
        let mut out = [(0u8, 0u8); 32];
        let mut y = 0;
        while y < 8 {
            let mut c = 0;
            while c < 4 {
                let off = self.offset(c * 16, y);
                out[(off / 16) as usize] = (y as u8, (c * 16) as u8);
                c += 1;
            }
            y += 1;
        }
        out
    }
}

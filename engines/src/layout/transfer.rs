//! Moving a region between block-linear memory and a pitch-linear buffer.
//!
//! Inside one GOB row, each 16-byte-aligned piece of 16 bytes is contiguous in both layouts, so every
//! copy is a sequence of runs of at most 16 bytes; whole GOB rows move as four 16-byte pieces whose
//! offsets come from a per-row table. These are the hot loops of texture upload and download.

use super::block_linear::{BlockLinearLayout, LayoutError, Region};
use super::gob::{SectorLayout, GOB_WIDTH_BYTES, SECTOR_ROW_BYTES};

/// Bytes of a block-linear buffer (starting at the surface's first byte) that `region` touches.
pub fn tiled_extent(layout: &BlockLinearLayout, region: &Region) -> u64 {
    if region.is_empty() {
        return 0;
    }
    // GOB offsets grow with y for a fixed z, and with x inside a row: the last GOB of the last row is
    // the furthest one touched.
    let last_y = region.y + region.height - 1;
    let last_x = region.x + region.width - 1;
    layout.row_base(last_y, region.z)
        + layout.gob_column_offset(last_x)
        + super::gob::GOB_SIZE_BYTES as u64
}

/// The lowest offset `region` touches: the start of its first GOB (every other byte of the region lies
/// in the same or a later GOB of the same row of blocks, or in a later row or slice of blocks).
pub fn region_start(layout: &BlockLinearLayout, region: &Region) -> u64 {
    layout.row_base(region.y, region.z) + layout.gob_column_offset(region.x)
}

/// Bytes of a pitch buffer that `rows` rows of `width` bytes at `pitch` touch.
pub fn linear_extent(width: u32, rows: u32, pitch: usize) -> Option<u64> {
    if width == 0 || rows == 0 {
        return Some(0);
    }
    (rows as u64 - 1)
        .checked_mul(pitch as u64)?
        .checked_add(width as u64)
}

fn check(
    layout: &BlockLinearLayout,
    region: &Region,
    tiled_len: usize,
    tiled_origin: u64,
    linear_len: usize,
    pitch: usize,
) -> Result<(), LayoutError> {
    layout.check_region(region)?;
    if region.is_empty() {
        return Ok(());
    }
    if tiled_origin > region_start(layout, region) {
        return Err(LayoutError::BufferStartsLate {
            origin: tiled_origin,
            needed: region_start(layout, region),
        });
    }
    let tiled_needed = tiled_extent(layout, region) - tiled_origin;
    if (tiled_len as u64) < tiled_needed {
        return Err(LayoutError::BufferTooShort {
            len: tiled_len,
            needed: tiled_needed,
        });
    }
    let linear_needed =
        linear_extent(region.width, region.height, pitch).ok_or(LayoutError::BufferTooShort {
            len: linear_len,
            needed: u64::MAX,
        })?;
    if (linear_len as u64) < linear_needed {
        return Err(LayoutError::BufferTooShort {
            len: linear_len,
            needed: linear_needed,
        });
    }
    Ok(())
}

/// Which way bytes move.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Direction {
    Untile,
    Tile,
}

/// Copies `region` of the block-linear surface in `tiled` (offset 0 = first byte of the surface) into
/// `linear`, region row r starting at `r * linear_pitch`. A pitch smaller than the row makes rows
/// overlap in `linear`, and which row a shared byte comes from is unspecified.
pub fn untile(
    layout: &BlockLinearLayout,
    tiled: &[u8],
    region: &Region,
    linear: &mut [u8],
    linear_pitch: usize,
) -> Result<(), LayoutError> {
    untile_from(layout, tiled, 0, region, linear, linear_pitch)
}

/// [`untile`] from a buffer that holds the surface from byte `tiled_origin` on (at most
/// [`region_start`]), e.g. the host bytes behind just the region's GPU addresses.
pub fn untile_from(
    layout: &BlockLinearLayout,
    tiled: &[u8],
    tiled_origin: u64,
    region: &Region,
    linear: &mut [u8],
    linear_pitch: usize,
) -> Result<(), LayoutError> {
    check(
        layout,
        region,
        tiled.len(),
        tiled_origin,
        linear.len(),
        linear_pitch,
    )?;
    // SAFETY: `check` proved that every run below lies inside both buffers, and the two buffers are
    // distinct borrows; the tiled buffer is only read in this direction.
    unsafe {
        transfer(
            layout,
            tiled.as_ptr() as *mut u8,
            tiled_origin,
            region,
            linear.as_mut_ptr(),
            linear_pitch,
            Direction::Untile,
        )
    };
    Ok(())
}

/// Copies `linear` (region row r at `r * linear_pitch`) into `region` of the block-linear surface in
/// `tiled`. Bytes of `tiled` outside the region are left as they were. A pitch of 0 repeats one row.
pub fn tile(
    layout: &BlockLinearLayout,
    linear: &[u8],
    linear_pitch: usize,
    region: &Region,
    tiled: &mut [u8],
) -> Result<(), LayoutError> {
    tile_into(layout, linear, linear_pitch, region, tiled, 0)
}

/// [`tile`] into a buffer that holds the surface from byte `tiled_origin` on (at most
/// [`region_start`]).
pub fn tile_into(
    layout: &BlockLinearLayout,
    linear: &[u8],
    linear_pitch: usize,
    region: &Region,
    tiled: &mut [u8],
    tiled_origin: u64,
) -> Result<(), LayoutError> {
    check(
        layout,
        region,
        tiled.len(),
        tiled_origin,
        linear.len(),
        linear_pitch,
    )?;
    // SAFETY: as in `untile_from`; the linear buffer is only read in this direction.
    unsafe {
        transfer(
            layout,
            tiled.as_mut_ptr(),
            tiled_origin,
            region,
            linear.as_ptr() as *mut u8,
            linear_pitch,
            Direction::Tile,
        )
    };
    Ok(())
}

/// Calls `f(tiled_offset, linear_offset, len)` for every contiguous run of `region`, row by row, left to
/// right; `linear_offset` counts from the region's first byte with rows `linear_pitch` apart. Runs are at
/// most 16 bytes. For engines whose memory is not one slice.
pub fn for_each_run(
    layout: &BlockLinearLayout,
    region: &Region,
    linear_pitch: u64,
    mut f: impl FnMut(u64, u64, u32),
) {
    if region.is_empty() {
        return;
    }
    for r in 0..region.height {
        let y = region.y + r;
        let row_base = layout.row_base(y, region.z);
        let chunks = layout.sectors().row_chunks(y);
        let mut x = region.x;
        let end = region.x + region.width;
        let mut lin = r as u64 * linear_pitch;
        while x < end {
            let len = (SECTOR_ROW_BYTES - x % SECTOR_ROW_BYTES).min(end - x);
            let in_gob =
                chunks[((x % GOB_WIDTH_BYTES) / SECTOR_ROW_BYTES) as usize] + x % SECTOR_ROW_BYTES;
            f(
                row_base + layout.gob_column_offset(x) + in_gob as u64,
                lin,
                len,
            );
            x += len;
            lin += len as u64;
        }
    }
}

/// The shared loop of `tile` and `untile`.
///
/// Rows are taken in groups of one GOB row (8 rows). Where a group is whole, the GOBs it crosses
/// completely move one GOB at a time: the 512 bytes of a GOB are read (or written) in memory order as 32
/// pieces of 16 bytes whose linear offsets come from a table built once per call, so the block-linear
/// side streams and the linear side advances through eight rows together. Partial GOB columns at either
/// end, and partial GOB rows at the top and bottom, go row by row in runs of at most 16 bytes.
///
/// # Safety
/// Every byte of `region` must lie inside the buffers at `tiled` and `linear` (as `check` proves), and the
/// buffers must not overlap.
#[inline(always)]
unsafe fn transfer(
    layout: &BlockLinearLayout,
    tiled: *mut u8,
    origin: u64,
    region: &Region,
    linear: *mut u8,
    pitch: usize,
    direction: Direction,
) {
    if region.is_empty() {
        return;
    }
    let end = region.x + region.width;
    // Whole GOB columns span [body_start, body_end); the head and tail are partial GOB columns.
    let body_start = region.x.next_multiple_of(GOB_WIDTH_BYTES).min(end);
    let body_end = (end / GOB_WIDTH_BYTES * GOB_WIDTH_BYTES).max(body_start);
    let gobs = ((body_end - body_start) / GOB_WIDTH_BYTES) as usize;
    let column_stride = layout.gob_column_offset(GOB_WIDTH_BYTES) as usize;

    // One row's partial columns [from, to) in runs of at most 16 bytes.
    let row_runs = |r: usize, from: u32, to: u32| {
        let y = region.y + r as u32;
        // Relative to `origin`; wraps below it for rows whose first GOB column precedes the region.
        let row_base = layout.row_base(y, region.z).wrapping_sub(origin) as usize;
        let chunks = layout.sectors().row_chunks(y);
        let lin_row = linear.add(r * pitch);
        let mut x = from;
        while x < to {
            let len = (SECTOR_ROW_BYTES - x % SECTOR_ROW_BYTES).min(to - x);
            let in_gob =
                chunks[((x % GOB_WIDTH_BYTES) / SECTOR_ROW_BYTES) as usize] + x % SECTOR_ROW_BYTES;
            let t = tiled
                .add(row_base.wrapping_add(layout.gob_column_offset(x) as usize + in_gob as usize));
            let l = lin_row.add((x - region.x) as usize);
            if len == SECTOR_ROW_BYTES {
                match direction {
                    Direction::Untile => copy16(t, l),
                    Direction::Tile => copy16(l, t),
                }
            } else {
                match direction {
                    Direction::Untile => core::ptr::copy_nonoverlapping(t, l, len as usize),
                    Direction::Tile => core::ptr::copy_nonoverlapping(l, t, len as usize),
                }
            }
            x += len;
        }
    };

    let mut r = 0usize;
    let rows = region.height as usize;
    while r < rows {
        let y = region.y + r as u32;
        let whole_gob_row = y % 8 == 0 && rows - r >= 8;
        if !whole_gob_row {
            // A partial GOB row: everything row by row (the body as four 16-byte pieces per GOB).
            row_runs(r, region.x, end);
            r += 1;
            continue;
        }
        for k in 0..8 {
            row_runs(r + k, region.x, body_start);
            row_runs(r + k, body_end, end);
        }
        let gob_offset =
            layout.row_base(y, region.z) + layout.gob_column_offset(body_start) - origin;
        let gob = tiled.add(gob_offset as usize);
        let lin = linear.add(r * pitch + (body_start - region.x) as usize);
        // One instance per sector order and direction, so the 32 piece positions are constants.
        match (layout.sectors(), direction) {
            (SectorLayout::Turing2D, Direction::Untile) => {
                whole_gobs::<TURING, true>(gob, lin, pitch, column_stride, gobs)
            }
            (SectorLayout::Turing2D, Direction::Tile) => {
                whole_gobs::<TURING, false>(gob, lin, pitch, column_stride, gobs)
            }
            (SectorLayout::Tegra16Bx2, Direction::Untile) => {
                whole_gobs::<TEGRA, true>(gob, lin, pitch, column_stride, gobs)
            }
            (SectorLayout::Tegra16Bx2, Direction::Tile) => {
                whole_gobs::<TEGRA, false>(gob, lin, pitch, column_stride, gobs)
            }
        }
        r += 8;
    }
}

const TURING: u8 = 0;
const TEGRA: u8 = 1;

/// Moves `gobs` whole GOBs of one GOB row: GOB k at `gob + k × column_stride` ↔ the 64 × 8 bytes at
/// `lin + 64 k` (rows `pitch` apart). The GOB's 32 pieces go in memory order, so the block-linear side
/// streams; the linear side advances through eight rows together. The next GOB columns are
/// prefetched: they lie a block apart, too far for the hardware prefetcher to follow.
#[inline(always)]
unsafe fn whole_gobs<const SECTORS: u8, const UNTILE: bool>(
    mut gob: *mut u8,
    mut lin: *mut u8,
    pitch: usize,
    column_stride: usize,
    gobs: usize,
) {
    let order = const {
        if SECTORS == TURING {
            SectorLayout::Turing2D.memory_order()
        } else {
            SectorLayout::Tegra16Bx2.memory_order()
        }
    };
    for k in 0..gobs {
        if k + 2 < gobs {
            prefetch_gob(gob.add(2 * column_stride));
        }
        let mut i = 0;
        while i < 32 {
            let (row, col) = order[i];
            let l = lin.add(row as usize * pitch + col as usize);
            let t = gob.add(i * 16);
            if UNTILE {
                copy16(t, l);
            } else {
                copy16(l, t);
            }
            i += 1;
        }
        gob = gob.add(column_stride);
        lin = lin.add(GOB_WIDTH_BYTES as usize);
    }
}

/// Asks for the eight cache lines of a GOB.
#[inline(always)]
unsafe fn prefetch_gob(at: *const u8) {
    #[cfg(target_arch = "x86_64")]
    {
        use core::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        let mut line = 0;
        while line < 8 {
            _mm_prefetch(at.add(line * 64) as *const i8, _MM_HINT_T0);
            line += 1;
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = at;
}

/// One 16-byte move as a single unaligned vector load and store.
#[inline(always)]
unsafe fn copy16(src: *const u8, dst: *mut u8) {
    let v = core::ptr::read_unaligned(src as *const [u8; 16]);
    core::ptr::write_unaligned(dst as *mut [u8; 16], v);
}

//! Copying a whole chain from guest memory into its tightly packed form (what a Vulkan buffer-to-image copy
//! of every level and layer reads), through the engines crate's block-linear loops.

use sassport_engines::layout::{untile, LayoutError, Region};

use crate::chain::{Chain, Level};

/// Why a chain could not be copied.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UntileError {
    #[error("guest bytes: {len} given, {needed} needed for the chain")]
    GuestTooShort { len: usize, needed: u64 },
    #[error("packed buffer: {len} bytes given, {needed} needed")]
    PackedTooShort { len: usize, needed: u64 },
    #[error("level {level} layer {layer} slice {slice}: {source}")]
    Layout {
        level: usize,
        layer: u32,
        slice: u32,
        source: LayoutError,
    },
}

/// Copies the chain from `guest` (its first byte at the texture's address) into `packed`:
/// level by level, each level's layers in order, each layer's slices and rows tightly packed.
/// `pitch` is the row pitch of a pitch-linear texture (ignored otherwise).
pub fn untile_chain(chain: &Chain, guest: &[u8], packed: &mut [u8], pitch: u32) -> Result<(), UntileError> {
    if (guest.len() as u64) < chain.guest_bytes() {
        return Err(UntileError::GuestTooShort {
            len: guest.len(),
            needed: chain.guest_bytes(),
        });
    }
    if (packed.len() as u64) < chain.packed_bytes() {
        return Err(UntileError::PackedTooShort {
            len: packed.len(),
            needed: chain.packed_bytes(),
        });
    }
    let mut out = 0usize;
    for (l, level) in chain.levels.iter().enumerate() {
        for layer in 0..chain.layers {
            // In range: guest.len() >= guest_bytes(), which covers every layer's levels.
            let start = (layer as u64 * chain.layer_stride + level.guest_offset) as usize;
            let n = level.packed_bytes() as usize;
            let src = &guest[start..];
            let dst = &mut packed[out..out + n];
            match level.block_linear {
                Some(_) => untile_level(level, src, dst, l, layer)?,
                None => copy_rows(level, src, dst, pitch),
            }
            out += n;
        }
    }
    Ok(())
}

fn untile_level(level: &Level, src: &[u8], dst: &mut [u8], l: usize, layer: u32) -> Result<(), UntileError> {
    let Some(layout) = level.block_linear else {
        return Ok(());
    };
    let slice_bytes = level.row_bytes as usize * level.rows as usize;
    for z in 0..level.depth {
        let region = Region {
            x: 0,
            y: 0,
            z,
            width: level.row_bytes,
            height: level.rows,
        };
        let out = &mut dst[z as usize * slice_bytes..(z as usize + 1) * slice_bytes];
        untile(&layout, src, &region, out, level.row_bytes as usize).map_err(|source| {
            UntileError::Layout {
                level: l,
                layer,
                slice: z,
                source,
            }
        })?;
    }
    Ok(())
}

/// Pitch-linear and buffer textures: rows `pitch` bytes apart (a buffer is one row).
fn copy_rows(level: &Level, src: &[u8], dst: &mut [u8], pitch: u32) {
    let row = level.row_bytes as usize;
    let rows = level.rows as usize * level.depth as usize;
    if rows == 1 || pitch as usize == row {
        dst[..row * rows].copy_from_slice(&src[..row * rows]);
        return;
    }
    for r in 0..rows {
        let s = r * pitch as usize;
        dst[r * row..(r + 1) * row].copy_from_slice(&src[s..s + row]);
    }
}

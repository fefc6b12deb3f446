//! Copying a whole chain from guest memory into host memory: either its tightly packed form (what a Vulkan
//! buffer-to-image copy of every level and layer reads) or straight into a host image's own rows (a
//! linear image mapped by the host: each level and layer at its offset and row pitch), through the engines
//! crate's block-linear loops.

use sassport_engines::layout::{untile, LayoutError, Region};

use crate::chain::{Chain, Level};

/// Why a chain could not be copied.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UntileError {
    #[error("guest bytes: {len} given, {needed} needed for the chain")]
    GuestTooShort { len: usize, needed: u64 },
    #[error("packed buffer: {len} bytes given, {needed} needed")]
    PackedTooShort { len: usize, needed: u64 },
    #[error("{places} placements given, the chain has {needed} (levels × layers)")]
    Placements { places: usize, needed: usize },
    #[error("level {level} layer {layer}: placement {place:?} does not fit {len} bytes of destination")]
    PlacementOutside {
        level: usize,
        layer: u32,
        place: Placement,
        len: usize,
    },
    #[error("level {level} layer {layer} slice {slice}: {source}")]
    Layout {
        level: usize,
        layer: u32,
        slice: u32,
        source: LayoutError,
    },
}

/// Where one level of one layer goes in the destination: its first byte, the distance between rows of
/// format blocks, and between slices (3-D levels).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Placement {
    pub offset: u64,
    pub row_pitch: u64,
    pub depth_pitch: u64,
}

impl Chain {
    /// The placements of the tightly packed copy, level-major then layer (what [`untile_chain`] writes).
    pub fn packed_placements(&self) -> Vec<Placement> {
        let mut out = Vec::with_capacity(self.levels.len() * self.layers as usize);
        let mut offset = 0u64;
        for level in &self.levels {
            for _ in 0..self.layers {
                let row_pitch = level.row_bytes as u64;
                let depth_pitch = row_pitch * level.rows as u64;
                out.push(Placement {
                    offset,
                    row_pitch,
                    depth_pitch,
                });
                offset += level.packed_bytes();
            }
        }
        out
    }
}

/// Copies the chain from `guest` (its first byte at the texture's address) into `packed`:
/// level by level, each level's layers in order, each layer's slices and rows tightly packed.
/// `pitch` is the row pitch of a pitch-linear texture (ignored otherwise).
pub fn untile_chain(chain: &Chain, guest: &[u8], packed: &mut [u8], pitch: u32) -> Result<(), UntileError> {
    if (packed.len() as u64) < chain.packed_bytes() {
        return Err(UntileError::PackedTooShort {
            len: packed.len(),
            needed: chain.packed_bytes(),
        });
    }
    untile_chain_placed(chain, guest, pitch, packed, &chain.packed_placements())
}

/// Copies the chain from `guest` into `dst`, level `l` of layer `k` at `places[l * layers + k]` (e.g. the
/// subresource layouts of a mapped linear image). `pitch` as for [`untile_chain`].
pub fn untile_chain_placed(
    chain: &Chain,
    guest: &[u8],
    pitch: u32,
    dst: &mut [u8],
    places: &[Placement],
) -> Result<(), UntileError> {
    if (guest.len() as u64) < chain.guest_bytes() {
        return Err(UntileError::GuestTooShort {
            len: guest.len(),
            needed: chain.guest_bytes(),
        });
    }
    let needed = chain.levels.len() * chain.layers as usize;
    if places.len() != needed {
        return Err(UntileError::Placements {
            places: places.len(),
            needed,
        });
    }
    for (l, level) in chain.levels.iter().enumerate() {
        for layer in 0..chain.layers {
            let place = places[l * chain.layers as usize + layer as usize];
            let outside = || UntileError::PlacementOutside {
                level: l,
                layer,
                place,
                len: dst.len(),
            };
            let span = placed_span(level, &place).ok_or_else(outside)?;
            let end = place.offset.checked_add(span).ok_or_else(outside)?;
            if end > dst.len() as u64 {
                return Err(outside());
            }
            // In range: guest.len() >= guest_bytes(), which covers every layer's levels.
            let start = (layer as u64 * chain.layer_stride + level.guest_offset) as usize;
            let src = &guest[start..];
            let out = &mut dst[place.offset as usize..end as usize];
            match level.block_linear {
                Some(_) => untile_level(level, src, out, &place, l, layer)?,
                None => copy_rows(level, src, out, pitch, &place),
            }
        }
    }
    Ok(())
}

/// Bytes from a placement's first byte to one past its last (None: overflow, or pitches that make rows
/// or slices overlap).
fn placed_span(level: &Level, place: &Placement) -> Option<u64> {
    let row = level.row_bytes as u64;
    if place.row_pitch < row || (level.depth > 1 && place.depth_pitch < place.row_pitch * level.rows as u64) {
        return None;
    }
    let slice = (level.rows as u64 - 1).checked_mul(place.row_pitch)?.checked_add(row)?;
    (level.depth as u64 - 1).checked_mul(place.depth_pitch)?.checked_add(slice)
}

fn untile_level(
    level: &Level,
    src: &[u8],
    dst: &mut [u8],
    place: &Placement,
    l: usize,
    layer: u32,
) -> Result<(), UntileError> {
    let Some(layout) = level.block_linear else {
        return Ok(());
    };
    for z in 0..level.depth {
        let region = Region {
            x: 0,
            y: 0,
            z,
            width: level.row_bytes,
            height: level.rows,
        };
        // In range: placed_span covered every slice.
        let out = &mut dst[(z as u64 * place.depth_pitch) as usize..];
        untile(&layout, src, &region, out, place.row_pitch as usize).map_err(|source| {
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

/// Pitch-linear and buffer textures: rows `pitch` bytes apart in guest memory (a buffer is one row).
fn copy_rows(level: &Level, src: &[u8], dst: &mut [u8], pitch: u32, place: &Placement) {
    let row = level.row_bytes as usize;
    let rows = level.rows as usize * level.depth as usize;
    let (from, to) = (pitch as usize, place.row_pitch as usize);
    if rows == 1 || (from == row && to == row) {
        dst[..row * rows].copy_from_slice(&src[..row * rows]);
        return;
    }
    // Pitch textures are one slice (Chain::new refuses 3-D ones), so rows follow at the row pitch.
    for r in 0..rows {
        dst[r * to..r * to + row].copy_from_slice(&src[r * from..r * from + row]);
    }
}

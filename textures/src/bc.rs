//! BC1 and BC3 blocks decoded to RGBA8 on the host (reference texels for tests and the in-shader decoder).
//!
//! Block layout (public format facts: Microsoft's BC1/BC3 documentation, the Khronos Data Format
//! specification): BC1 is two RGB565 end points, then 16 two-bit indices, texel k in bits 2k+1..2k; BC3 is
//! a BC4-style alpha block (two 8-bit end points and 16 three-bit indices) followed by a BC1 colour block
//! that always uses four colours. The rounding of the interpolated colours is what differs between decoders;
//! [`Interpolation`] names the choices, and the H200 recordings pick one.

/// How the two interpolated BC1 colours (and the BC3 alphas) are rounded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Interpolation {
    /// `(2a + b) / 3` truncated (integer division), on 8-bit expanded end points.
    Truncate,
    /// `(2a + b + 1) / 3`: to nearest, halves up.
    Nearest,
}

/// RGB565 to 8-bit channels by bit replication.
fn expand565(c: u16) -> [u32; 3] {
    let r = (c >> 11) as u32 & 31;
    let g = (c >> 5) as u32 & 63;
    let b = c as u32 & 31;
    [r << 3 | r >> 2, g << 2 | g >> 4, b << 3 | b >> 2]
}

fn mix(a: u32, b: u32, wa: u32, wb: u32, rounding: Interpolation) -> u32 {
    let d = wa + wb;
    match rounding {
        Interpolation::Truncate => (wa * a + wb * b) / d,
        Interpolation::Nearest => (wa * a + wb * b + d / 2) / d,
    }
}

/// The 16 texels (row-major, 4 × 4) of a BC1 block as RGBA8; `four_colours` forces the four-colour mode
/// (BC3's colour block).
pub fn bc1(block: &[u8; 8], rounding: Interpolation, four_colours: bool) -> [[u8; 4]; 16] {
    let c0 = u16::from_le_bytes([block[0], block[1]]);
    let c1 = u16::from_le_bytes([block[2], block[3]]);
    let (a, b) = (expand565(c0), expand565(c1));
    let mut palette = [[0u32; 4]; 4];
    palette[0] = [a[0], a[1], a[2], 255];
    palette[1] = [b[0], b[1], b[2], 255];
    if c0 > c1 || four_colours {
        for k in 0..3 {
            palette[2][k] = mix(a[k], b[k], 2, 1, rounding);
            palette[3][k] = mix(a[k], b[k], 1, 2, rounding);
        }
        palette[2][3] = 255;
        palette[3][3] = 255;
    } else {
        for k in 0..3 {
            palette[2][k] = mix(a[k], b[k], 1, 1, rounding);
        }
        palette[2][3] = 255;
        palette[3] = [0, 0, 0, 0];
    }
    let indices = u32::from_le_bytes([block[4], block[5], block[6], block[7]]);
    let mut out = [[0u8; 4]; 16];
    for (t, texel) in out.iter_mut().enumerate() {
        let p = palette[(indices >> (2 * t) & 3) as usize];
        *texel = [p[0] as u8, p[1] as u8, p[2] as u8, p[3] as u8];
    }
    out
}

/// The 16 alphas of a BC4-style block (BC3's first 8 bytes).
pub fn alpha_block(block: &[u8; 8], rounding: Interpolation) -> [u8; 16] {
    let (a0, a1) = (block[0] as u32, block[1] as u32);
    let mut palette = [0u32; 8];
    palette[0] = a0;
    palette[1] = a1;
    if a0 > a1 {
        for i in 1..7u32 {
            palette[1 + i as usize] = mix(a0, a1, 7 - i, i, rounding);
        }
    } else {
        for i in 1..5u32 {
            palette[1 + i as usize] = mix(a0, a1, 5 - i, i, rounding);
        }
        palette[6] = 0;
        palette[7] = 255;
    }
    let mut bits = 0u64;
    for (k, byte) in block[2..8].iter().enumerate() {
        bits |= (*byte as u64) << (8 * k);
    }
    let mut out = [0u8; 16];
    for (t, a) in out.iter_mut().enumerate() {
        *a = palette[(bits >> (3 * t) & 7) as usize] as u8;
    }
    out
}

/// The 16 texels of a BC3 block as RGBA8.
pub fn bc3(block: &[u8; 16], rounding: Interpolation) -> [[u8; 4]; 16] {
    let mut alpha = [0u8; 8];
    alpha.copy_from_slice(&block[..8]);
    let mut colour = [0u8; 8];
    colour.copy_from_slice(&block[8..]);
    let a = alpha_block(&alpha, rounding);
    let mut out = bc1(&colour, rounding, true);
    for (t, texel) in out.iter_mut().enumerate() {
        texel[3] = a[t];
    }
    out
}

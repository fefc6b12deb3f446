//! A host model of how the texture unit picks and weights texels, written the way an in-shader emulation
//! would compute it (integer fixed point, one step per axis), so the two can be compared value for value.
//!
//! Texel space: unnormalized coordinates are used as they are, normalized ones are truncated to fixed
//! point and multiplied by the level's extent exactly ([`texel_space`]). Point sampling takes `floor(u)`.
//! Linear sampling takes `u − ½` in fixed point with [`FRACTION_BITS`] fractional bits — the texel below
//! is the integer part, the weight of the texel above the fraction (CUDA Programming Guide, "Texture
//! Fetching": 9-bit weights with 8 fractional bits); the H200 rounds to nearest ([`Rounding`]). Each tap's
//! index then goes through the address mode on its own (a border-mode tap outside the texture reads the
//! border colour). Bilinear weights and the blends are [`bilinear_weights`], [`blend_float`] and
//! [`blend_unorm8`]; `tests/silicon.rs` holds the recordings they were fitted to.

use crate::tsc::{AddressMode, Filter};

/// Fractional bits of a linear filter weight.
pub const FRACTION_BITS: u32 = 8;
const ONE: u32 = 1 << FRACTION_BITS;

/// How a texel-space position becomes fixed point.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rounding {
    /// Toward −∞ (the fraction is truncated).
    Floor,
    /// To the nearest multiple of 2^-8, halves up.
    Nearest,
}

/// One tap along one axis: the texel index after the address mode (`None`: the border colour) and its
/// weight in 1/256.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tap {
    pub index: Option<u32>,
    pub weight: u32,
}

/// The texel index `i` (any integer) resolves to through `mode` on an axis of `n` texels; `None` reads
/// the border colour. GL_CLAMP and the mirror-once modes are modelled as their edge/border relatives.
pub fn resolve(i: i64, n: u32, mode: AddressMode) -> Option<u32> {
    let n64 = n as i64;
    let inside = |i: i64| (0..n64).contains(&i).then_some(i as u32);
    match mode {
        AddressMode::ClampToEdge | AddressMode::ClampOgl => Some(i.clamp(0, n64 - 1) as u32),
        AddressMode::Border => inside(i),
        AddressMode::Wrap => Some(i.rem_euclid(n64) as u32),
        AddressMode::Mirror => {
            let m = i.rem_euclid(2 * n64);
            Some(if m < n64 { m } else { 2 * n64 - 1 - m } as u32)
        }
        AddressMode::MirrorOnceClampToEdge | AddressMode::MirrorOnceClampOgl => {
            let m = if i < 0 { -1 - i } else { i };
            Some(m.min(n64 - 1) as u32)
        }
        AddressMode::MirrorOnceBorder => inside(if i < 0 { -1 - i } else { i }),
    }
}

/// Fractional bits a normalized coordinate keeps before it is scaled to texels: the H200 truncates it
/// (any of 12..=22 bits fits the recordings, 24 does not; 22 is what addressing 1/256 of a texel of a
/// 16384-texel axis needs, so the model takes 22).
pub const NORMALIZED_FRACTION_BITS: u32 = 22;

/// Texel-space position of coordinate `x` on an axis of `n` texels: unnormalized as it is, normalized
/// truncated to [`NORMALIZED_FRACTION_BITS`] and multiplied by `n` exactly (an f32 product misses 820 of
/// 4096 linear samples on a 5-texel axis).
pub fn texel_space(x: f32, n: u32, normalized: bool) -> f64 {
    if normalized {
        let scale = (1u64 << NORMALIZED_FRACTION_BITS) as f64;
        (x as f64 * scale).floor() / scale * n as f64
    } else {
        x as f64
    }
}

/// `v · 2^8` as an integer, rounded as `rounding` says (saturating far outside any texture).
fn fixed(v: f64, rounding: Rounding) -> i64 {
    let scaled = v * ONE as f64;
    let r = match rounding {
        Rounding::Floor => scaled.floor(),
        Rounding::Nearest => (scaled + 0.5).floor(),
    };
    r.clamp(-(1i64 << 40) as f64, (1i64 << 40) as f64) as i64
}

/// The taps one axis contributes: one for point sampling, two (below, above) for linear. NaN coordinates
/// are taken as 0.
pub fn axis(
    x: f32,
    n: u32,
    normalized: bool,
    mode: AddressMode,
    filter: Filter,
    rounding: Rounding,
) -> Vec<Tap> {
    let x = if x.is_nan() { 0.0 } else { x };
    let u = texel_space(x, n, normalized);
    match filter {
        Filter::Point => {
            let i = u.floor().clamp(-(1i64 << 40) as f64, (1i64 << 40) as f64) as i64;
            vec![Tap {
                index: resolve(i, n, mode),
                weight: ONE,
            }]
        }
        Filter::Linear => {
            let f = fixed(u - 0.5, rounding);
            let i0 = f >> FRACTION_BITS;
            let w = (f & (ONE as i64 - 1)) as u32;
            vec![
                Tap {
                    index: resolve(i0, n, mode),
                    weight: ONE - w,
                },
                Tap {
                    index: resolve(i0 + 1, n, mode),
                    weight: w,
                },
            ]
        }
    }
}

/// The four bilinear weights (texel below-left, right, above, above-right) in 1/256 for axis weights `wx`,
/// `wy` (1/256 each): the corner weight is `wx·wy/256` rounded to nearest, halves up, and the others are what
/// keeps each axis's sum — measured on the H200 (`tests/silicon.rs`; an exact product fails 402 of 4096).
pub fn bilinear_weights(wx: u32, wy: u32) -> [u32; 4] {
    let w11 = (wx * wy + ONE / 2) >> FRACTION_BITS;
    [ONE + w11 - wx - wy, wx - w11, wy - w11, w11]
}

/// Combines two axes' taps into (x index, y index, weight in 1/256) pairs, x fastest; `None` indices read the
/// border colour.
pub fn taps_2d(x: &[Tap], y: &[Tap]) -> Vec<(Option<(u32, u32)>, u32)> {
    let wx = if x.len() == 2 { x[1].weight } else { 0 };
    let wy = if y.len() == 2 { y[1].weight } else { 0 };
    let w = bilinear_weights(wx, wy);
    let mut out = Vec::with_capacity(x.len() * y.len());
    for (j, ty) in y.iter().enumerate() {
        for (i, tx) in x.iter().enumerate() {
            out.push((tx.index.zip(ty.index), w[i + 2 * j]));
        }
    }
    out
}

/// Float texels: `Σ W·T / 256` rounded once to f32, ties away from zero (the sum is taken in f64, exact
/// unless the taps' exponents lie more than 2^20 apart).
pub fn blend_float(taps: &[(Option<[f32; 4]>, u32)], border: [f32; 4]) -> [f32; 4] {
    let mut acc = [0f64; 4];
    for (texel, w) in taps {
        let v = texel.unwrap_or(border);
        for k in 0..4 {
            acc[k] += *w as f64 * v[k] as f64;
        }
    }
    acc.map(|a| round_ties_away(a / ONE as f64))
}

/// `v` to f32, to nearest with ties away from zero: the H200 returns 8388609 for (1 + 2^24) / 2, where
/// round-to-even gives 8388608.
fn round_ties_away(v: f64) -> f32 {
    let r = v as f32;
    let gap = (r as f64 - v).abs();
    if gap == 0.0 {
        return r;
    }
    // The neighbour of `r` on the other side of `v`; at an exact tie take the larger magnitude.
    let other = if (r as f64) < v {
        f32::from_bits(r.to_bits().wrapping_add(if r >= 0.0 { 1 } else { u32::MAX }))
    } else {
        f32::from_bits(r.to_bits().wrapping_add(if r > 0.0 { u32::MAX } else { 1 }))
    };
    if (other as f64 - v).abs() == gap && other.abs() > r.abs() {
        other
    } else {
        r
    }
}

/// UNORM8 texels read as normalized floats: each texel widened to 16 bits (`v · 257`), `Σ W·v16` rounded to
/// 16 bits (halves up), returned as `r16 / 65535` — measured on the H200 (every RGBA8 filter case exact).
pub fn blend_unorm8(taps: &[(Option<[u8; 4]>, u32)], border: [u8; 4]) -> [f32; 4] {
    let mut acc = [0u32; 4];
    for (texel, w) in taps {
        let v = texel.unwrap_or(border);
        for k in 0..4 {
            acc[k] += w * v[k] as u32 * 257;
        }
    }
    acc.map(|a| ((a + ONE / 2) >> FRACTION_BITS) as f64 / 65535.0)
        .map(|v| v as f32)
}

/// A float border colour as a UNORM8 texture stores it: `x · 255` to nearest, halves down (0.5 → 127,
/// 0.25 → 64, 0.75 → 191 on the H200).
pub fn border_unorm8(x: f32) -> u8 {
    ((x as f64 * 255.0 - 0.5).ceil()).clamp(0.0, 255.0) as u8
}

/// UNORM of `bits` bits as the texture unit returns it: `v / (2^bits − 1)` rounded to f32.
pub fn unorm(v: u32, bits: u32) -> f32 {
    (v as f64 / ((1u64 << bits) - 1) as f64) as f32
}

/// SNORM of `bits` bits: `max(v / (2^(bits−1) − 1), −1)` rounded to f32.
pub fn snorm(v: i32, bits: u32) -> f32 {
    ((v as f64 / ((1i64 << (bits - 1)) - 1) as f64).max(-1.0)) as f32
}

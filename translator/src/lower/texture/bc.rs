//! BC1 (DXT1) and BC3 (DXT45) texels decoded in the shader the way NVIDIA hardware does: the 5:6:5
//! endpoints expanded by bit replication, the interpolated colours in the fixed-point forms NVIDIA Texture
//! Tools documents for NVIDIA's decoder (red and blue from the 5-bit values × 22/8 or × 33/8, green from the
//! 8-bit values with a 1/256 correction term). Block addressing is `desc::fetch_bc`. Checked bit for bit
//! against the H200 (`bc1_point` of `textures.tgz`: 1024 of 1024 words). BC3: the colour block always in
//! four-colour mode, alpha from [`bc3_alpha`].

use super::emit::E;
use crate::spirv::{Id, Op};

/// Palette entry `idx` (0..=3) of the block whose endpoint word is `colours` (c0 bits 15:0, c1 bits 31:16);
/// `always_four` (bool: BC3's colour half) ignores the endpoint order's three-colour mode.
pub(super) fn decode(e: &mut E, colours: Id, idx: Id, always_four: Id) -> [Id; 4] {
    let c0 = e.andk(colours, 0xffff);
    let c1 = e.shrk(colours, 16);
    let ends = [c0, c1].map(|c| [e.bits(c, 11, 5), e.bits(c, 5, 6), e.bits(c, 0, 5)]);
    let expand = |e: &mut E, v: Id, n: u32| {
        let hi = e.shlk(v, 8 - n);
        let lo = e.shrk(v, 2 * n - 8);
        e.or(hi, lo)
    };
    let full = ends.map(|[r, g, b]| [expand(e, r, 5), expand(e, g, 6), expand(e, b, 5)]);
    let four = e.cmp(Op::UGreaterThan, c0, c1);
    let four = e.lor(four, always_four);
    // Red and blue: ((2a + b) 22) >> 3 for thirds, ((a + b) 33) >> 3 for the half.
    let rb = |e: &mut E, a: Id, b: Id| {
        let a2 = e.shlk(a, 1);
        let third = e.add(a2, b);
        let k22 = e.c(22);
        let third = e.mul(third, k22);
        let third = e.shrk(third, 3);
        let sum = e.add(a, b);
        let k33 = e.c(33);
        let half = e.mul(sum, k33);
        let half = e.shrk(half, 3);
        e.sel(four, third, half)
    };
    // Green: (256 g + d/4 + 128 + d·80) >> 8 for thirds (d·128 for the half), d the signed 8-bit difference
    // towards the other end, d/4 truncated towards zero. The sum is never negative.
    let green = |e: &mut E, g: Id, other: Id| {
        let d = e.sub(other, g);
        let k4 = e.c(4);
        let q = e.op(Op::SDiv, d, k4);
        let base = e.shlk(g, 8);
        let base = e.add(base, q);
        let base = e.addk(base, 128);
        let k80 = e.c(80);
        let t = e.mul(d, k80);
        let third = e.add(base, t);
        let third = e.shrk(third, 8);
        let h = e.shlk(d, 7);
        let half = e.add(base, h);
        let half = e.shrk(half, 8);
        e.sel(four, third, half)
    };
    let [e0, e1] = ends;
    let [f0, f1] = full;
    let p2 = [
        rb(e, e0[0], e1[0]),
        green(e, f0[1], f1[1]),
        rb(e, e0[2], e1[2]),
    ];
    let p3 = [
        rb(e, e1[0], e0[0]),
        green(e, f1[1], f0[1]),
        rb(e, e1[2], e0[2]),
    ];
    let is = [0u32, 1, 2].map(|k| e.eqk(idx, k));
    let zero = e.c(0);
    let mut out = [zero; 4];
    for (k, slot) in out.iter_mut().take(3).enumerate() {
        let v3 = e.sel(four, p3[k], zero);
        let v = e.sel(is[2], p2[k], v3);
        let v = e.sel(is[1], f1[k], v);
        *slot = e.sel(is[0], f0[k], v);
    }
    let opaque = e.lor(four, is[0]);
    let opaque = e.lor(opaque, is[1]);
    let opaque = e.lor(opaque, is[2]);
    out[3] = e.selk(opaque, 255, zero);
    out
}

/// BC3 interpolated alpha weights of a0 in 1/2048 by index (a1 gets the rest), for a0 > a1 (eight values) and
/// a0 <= a1 (six; indices 6 and 7 are 0 and 255). Not k/7 and k/5: fitted to the H200's
/// `bc3_point_alpha_all` (textures2 recording), `(w a0 + (2048 - w) a1 + 1024) >> 11` reproduces all
/// 65536 endpoint pairs at every index (a one-step change of any weight breaks some pair).
const ALPHA8: [u32; 8] = [2048, 0, 1759, 1470, 1156, 892, 578, 289];
const ALPHA6: [u32; 6] = [2048, 0, 1663, 1278, 770, 385];

/// The alpha byte of texel `p` (0..=15) of a BC3 block whose first eight bytes are `words` (a0, a1, then
/// 3-bit indices from bit 16).
pub(super) fn bc3_alpha(e: &mut E, words: [Id; 2], p: Id) -> Id {
    let a0 = e.andk(words[0], 0xff);
    let a1 = e.bits(words[0], 8, 8);
    // Index bits 16 + 3p ..: below bit 32 they may straddle the two words.
    let k3 = e.c(3);
    let b = e.mul(p, k3);
    let b = e.addk(b, 16);
    let k32 = e.c(32);
    let low = e.cmp(Op::ULessThan, b, k32);
    let b31 = e.andk(b, 31);
    let lo = e.shr(words[0], b31);
    let up = e.sub(k32, b31);
    let up = e.andk(up, 31);
    let hi = e.shl(words[1], up);
    let straddle = e.or(lo, hi);
    let high = e.shr(words[1], b31);
    let idx = e.sel(low, straddle, high);
    let idx = e.andk(idx, 7);
    let eight = e.cmp(Op::UGreaterThan, a0, a1);
    let six_mode = e.lnot(eight);
    let mut w = e.c(0);
    for k in 0..8u32 {
        let six = ALPHA6.get(k as usize).copied().unwrap_or(0);
        let wk = e.c(ALPHA8[k as usize]);
        let wk = e.selk(six_mode, six, wk);
        let at = e.eqk(idx, k);
        w = e.sel(at, wk, w);
    }
    let t0 = e.mul(w, a0);
    let k2048 = e.c(2048);
    let rest = e.sub(k2048, w);
    let t1 = e.mul(rest, a1);
    let v = e.add(t0, t1);
    let v = e.addk(v, 1024);
    let v = e.shrk(v, 11);
    // a0 <= a1: index 6 is 0, index 7 is 255.
    let i6 = e.eqk(idx, 6);
    let i7 = e.eqk(idx, 7);
    let z6 = e.land(six_mode, i6);
    let f7 = e.land(six_mode, i7);
    let zero = e.c(0);
    let v = e.sel(z6, zero, v);
    e.selk(f7, 255, v)
}

//! Filtering of level 0 in the shader, the way `sassport_textures::sample` models the H200: normalized
//! coordinates truncated to 22 fractional bits and scaled exactly, point sampling at `floor(u)`, linear
//! weights from `u - 1/2` rounded to 1/256, bilinear corner weight `round(wx·wy/256)`, float texels blended
//! as `Σ W·T / 256` rounded once with ties away from zero, UNORM8 texels widened to 16 bits and rounded to
//! 16 bits, border taps reading the border colour (quantized to UNORM8 for UNORM8 textures), every tap
//! addressed on its own.

use super::desc::{self, Desc};
use super::emit::E;
use crate::spirv::{Id, Op};

/// One axis's two taps: texel indices (in range), whether each lies inside (border mode), the upper weight.
struct Axis {
    idx: [Id; 2],
    inside: [Id; 2],
    w: Id,
}

fn floor(e: &mut E, v: Id) -> Id {
    e.floor(v)
}

/// An f64 integer (|v| < 2^51) clamped to ±2^30 and converted to i32 bits.
fn to_int(e: &mut E, v: Id) -> Id {
    let v = e.fclamp(v, -((1u64 << 30) as f64), (1u64 << 30) as f64);
    e.f64_to_s(v)
}

/// Texel index `i` (i32) on an axis of `n` texels through address mode `mode`: (in-range index, inside).
fn resolve(e: &mut E, i: Id, n: Id, mode: Id) -> (Id, Id) {
    let zero = e.c(0);
    let one = e.c(1);
    let nm1 = e.sub(n, one);
    let lo = e.smax(i, zero);
    let clamped = e.smin(lo, nm1);
    let wrap = modulo(e, i, n);
    let n2 = e.add(n, n);
    let m = modulo(e, i, n2);
    let below = e.cmp(Op::SLessThan, m, n);
    let n2m1 = e.sub(n2, one);
    let refl = e.sub(n2m1, m);
    let mirror = e.sel(below, m, refl);
    let neg = e.cmp(Op::SLessThan, i, zero);
    let minus1 = e.c(u32::MAX);
    let flip = e.sub(minus1, i);
    let once = e.sel(neg, flip, i);
    let once_c = e.umin(once, nm1);
    let ge0 = e.cmp(Op::SGreaterThanEqual, i, zero);
    let ltn = e.cmp(Op::SLessThan, i, n);
    let inside_b = e.land(ge0, ltn);
    let inside_o = e.cmp(Op::ULessThan, once, n);
    let t = e.cx.m.c_bool(true);
    // Modes: 0 wrap, 1 mirror, 2 clamp to edge, 3 border, 4 GL clamp (as edge), 5/7 mirror once clamp,
    // 6 mirror once border.
    let mut idx = clamped;
    let mut inside = t;
    for (code, v, ins) in [
        (0, wrap, t),
        (1, mirror, t),
        (3, clamped, inside_b),
        (5, once_c, t),
        (6, once_c, inside_o),
        (7, once_c, t),
    ] {
        let is = e.eqk(mode, code);
        idx = e.sel(is, v, idx);
        inside = e.bsel(is, ins, inside);
    }
    (idx, inside)
}

/// `i mod n` in 0..n for i32 `i` and n > 0 (in f64: exact for |i| < 2^31).
fn modulo(e: &mut E, i: Id, n: Id) -> Id {
    let fi = e.s_to_f64(i);
    let fnn = e.u_to_f64(n);
    let q = e.fop(Op::FDiv, fi, fnn);
    let q = floor(e, q);
    let p = e.fop(Op::FMul, q, fnn);
    let r = e.fop(Op::FSub, fi, p);
    e.f64_to_s(r)
}

/// The taps of coordinate `x` (f32 bits) on an axis of `n` texels.
fn axis(e: &mut E, d: &Desc, x: Id, n: Id, mode: Id, linear: Id) -> Axis {
    let v = e.f32_to_f64(x);
    let nan = e.cmp(Op::FUnordNotEqual, v, v);
    let zero = e.fk(0.0);
    let v = e.fsel(nan, zero, v);
    let v = e.fclamp(v, -((1u64 << 40) as f64), (1u64 << 40) as f64);
    let scale = e.fk((1u64 << 22) as f64);
    let s = e.fop(Op::FMul, v, scale);
    let s = floor(e, s);
    let s = e.fop(Op::FDiv, s, scale);
    let nf = e.u_to_f64(n);
    let un = e.fop(Op::FMul, s, nf);
    let u = e.fsel(d.normalized, un, v);
    // Point: floor(u). Linear: u - 1/2 at 8 fractional bits, to nearest (halves up).
    let ip = floor(e, u);
    let ip = to_int(e, ip);
    let half = e.fk(0.5);
    let k256 = e.fk(256.0);
    let f = e.fop(Op::FSub, u, half);
    let f = e.fop(Op::FMul, f, k256);
    let f = e.fop(Op::FAdd, f, half);
    let f = floor(e, f);
    let i0 = e.fop(Op::FDiv, f, k256);
    let i0 = floor(e, i0);
    let w = e.fop(Op::FMul, i0, k256);
    let w = e.fop(Op::FSub, f, w);
    let w = to_int(e, w);
    let i0 = to_int(e, i0);
    let i0 = e.sel(linear, i0, ip);
    let i1 = e.addk(i0, 1);
    let wz = e.c(0);
    let w = e.sel(linear, w, wz);
    let (a, ia) = resolve(e, i0, n, mode);
    let (b, ib) = resolve(e, i1, n, mode);
    Axis {
        idx: [a, b],
        inside: [ia, ib],
        w,
    }
}

/// Round-to-nearest f64 → f32 with ties away from zero (normal f32 results): half an f32 unit is added to
/// the magnitude's bits and the 29 bits f32 lacks are dropped, so the conversion itself is exact.
fn ties_away(e: &mut E, v: Id) -> Id {
    let u64t = e.cx.t.u64;
    let b = e.cx.m.un(Op::Bitcast, u64t, v);
    let k = e.cx.m.c_u64(1 << 28);
    let b = e.cx.m.bin(Op::IAdd, u64t, b, k);
    let mask = e.cx.m.c_u64(!((1u64 << 29) - 1));
    let b = e.cx.m.bin(Op::BitwiseAnd, u64t, b, mask);
    let f64t = e.f64t();
    let r = e.cx.m.un(Op::Bitcast, f64t, b);
    e.f64_to_f32(r)
}

/// A border colour component (f32 bits) as a UNORM8 texture stores it: `x·255` to nearest, halves down.
fn border_unorm8(e: &mut E, x: Id) -> Id {
    let v = e.f32_to_f64(x);
    let k = e.fk(255.0);
    let v = e.fop(Op::FMul, v, k);
    let h = e.fk(0.5);
    let v = e.fop(Op::FSub, h, v);
    let v = floor(e, v);
    let zero = e.fk(0.0);
    let v = e.fop(Op::FSub, zero, v);
    e.fclamp(v, 0.0, 255.0)
}

/// Samples level 0 at `coords` (f32 bits; 1, 2 or 3 axes) of layer `layer`: the R, G, B, A register values.
pub(super) fn sample(e: &mut E, d: &Desc, coords: &[Id], layer: Option<Id>) -> [Id; 4] {
    let int = desc::is_integer(e, d);
    let not_int = e.lnot(int);
    let linear = e.land(d.linear, not_int);
    // Filtering of sRGB or BC texels was not recorded.
    let point = e.lnot(linear);
    let srgb_point = e.lnot(d.srgb);
    let srgb_point = e.lor(srgb_point, point);
    desc::check(d, srgb_point, desc::reason::SRGB);
    let bc_point = e.lnot(d.bc);
    let bc_point = e.lor(bc_point, point);
    desc::check(d, bc_point, desc::reason::BC_FORM);
    let extents = [d.width, d.height, d.depth];
    let axes: Vec<Axis> = coords
        .iter()
        .enumerate()
        .map(|(a, &x)| axis(e, d, x, extents[a], d.modes[a], linear))
        .collect();
    let layer = layer.map(|l| {
        let one = e.c(1);
        let last = e.sub(d.depth, one);
        e.umin(l, last)
    });
    let corners = 1usize << axes.len();
    let zero = e.c(0);
    let mut texels = Vec::with_capacity(corners);
    for c in 0..corners {
        let pick = |a: usize| (c >> a) & 1;
        let x = axes[0].idx[pick(0)];
        let y = if axes.len() > 1 {
            axes[1].idx[pick(1)]
        } else {
            zero
        };
        let z = if axes.len() > 2 {
            axes[2].idx[pick(2)]
        } else {
            layer.unwrap_or(zero)
        };
        let mut inside = axes[0].inside[pick(0)];
        for (a, ax) in axes.iter().enumerate().skip(1) {
            inside = e.land(inside, ax.inside[pick(a)]);
        }
        // Block-compressed texels are only ever point-sampled (filtering them faults): tap 0 alone decodes.
        let raw = desc::fetch_raw(e, d, x, y, z, layer.is_some(), c == 0);
        texels.push((raw, inside));
    }
    let weights = weights(e, &axes);
    // The corner weights sum to 256 (1/256 units), times 256 more with a z axis.
    let total = if axes.len() > 2 { 65536.0 } else { 256.0 };
    let unorm8 = {
        let u = e.eqk(d.dtype, 2);
        let b8 = e.eqk(d.bits, 8);
        e.land(u, b8)
    };
    let mut out = [zero; 4];
    for (k, slot) in out.iter_mut().enumerate() {
        let border_f = e.f32_to_f64(d.border[k]);
        let border_b = border_unorm8(e, d.border[k]);
        let mut acc = e.fk(0.0);
        let mut acc8 = e.fk(0.0);
        for (c, (raw, inside)) in texels.iter().enumerate() {
            let t = desc::to_f64(e, d, raw[k]);
            let t = e.fsel(*inside, t, border_f);
            let b = e.u_to_f64(raw[k]);
            let b = e.fsel(*inside, b, border_b);
            let w = e.u_to_f64(weights[c]);
            let p = e.fop(Op::FMul, w, t);
            acc = e.fop(Op::FAdd, acc, p);
            let k257 = e.fk(257.0);
            let b16 = e.fop(Op::FMul, b, k257);
            let p8 = e.fop(Op::FMul, w, b16);
            acc8 = e.fop(Op::FAdd, acc8, p8);
        }
        let tot = e.fk(total);
        let q = e.fop(Op::FDiv, acc, tot);
        let blended = ties_away(e, q);
        let halft = e.fk(total / 2.0);
        let r16 = e.fop(Op::FAdd, acc8, halft);
        let r16 = e.fop(Op::FDiv, r16, tot);
        let r16 = floor(e, r16);
        let m = e.fk(65535.0);
        let r16 = e.fop(Op::FDiv, r16, m);
        let r16 = e.f64_to_f32(r16);
        let filtered = e.sel(unorm8, r16, blended);
        // Point sampling: the one texel converted (float32 texels exactly as stored).
        let (raw0, in0) = texels[0];
        let p = desc::to_f64(e, d, raw0[k]);
        let p = e.f64_to_f32(p);
        let is_f = e.eqk(d.dtype, 7);
        let p = e.sel(is_f, raw0[k], p);
        let p = if k < 3 {
            let decoded = super::srgb::decode(e, raw0[k]);
            e.sel(d.srgb, decoded, p)
        } else {
            p
        };
        let bk = d.border[k];
        let bq = {
            let v = e.fk(255.0);
            let q = e.fop(Op::FDiv, border_b, v);
            e.f64_to_f32(q)
        };
        let bk = e.sel(unorm8, bq, bk);
        let p = e.sel(in0, p, bk);
        let iv = desc::int_bits(e, d, raw0[k]);
        let iv = e.sel(in0, iv, d.border[k]);
        let v = e.sel(linear, filtered, p);
        *slot = e.sel(int, iv, v);
    }
    out
}

/// The corner weights (x fastest) in 1/256 per two axes, times the z weight for three.
fn weights(e: &mut E, axes: &[Axis]) -> Vec<Id> {
    let c256 = e.c(256);
    let lin = |e: &mut E, w: Id| {
        let lo = e.sub(c256, w);
        [lo, w]
    };
    let xy = match axes.len() {
        1 => lin(e, axes[0].w).to_vec(),
        _ => {
            let (wx, wy) = (axes[0].w, axes[1].w);
            let p = e.mul(wx, wy);
            let p = e.addk(p, 128);
            let w11 = e.shrk(p, 8);
            let a = e.add(c256, w11);
            let a = e.sub(a, wx);
            let a = e.sub(a, wy);
            let b = e.sub(wx, w11);
            let c = e.sub(wy, w11);
            vec![a, b, c, w11]
        }
    };
    if axes.len() < 3 {
        return xy;
    }
    let z = lin(e, axes[2].w);
    let mut out = Vec::new();
    for wz in z {
        for w in &xy {
            out.push(e.mul(*w, wz));
        }
    }
    out
}

/// The four texels of the bilinear footprint of `coords` (f32 bits, 2 axes), in TLD4's order (x0, y1),
/// (x1, y1), (x1, y0), (x0, y0): component `comp` of each after the swizzle.
pub(super) fn gather(e: &mut E, d: &Desc, coords: &[Id], layer: Option<Id>, comp: usize) -> [Id; 4] {
    // Gathers of sRGB or BC texels were not recorded.
    let not_srgb = e.lnot(d.srgb);
    desc::check(d, not_srgb, desc::reason::SRGB);
    let not_bc = e.lnot(d.bc);
    desc::check(d, not_bc, desc::reason::BC_FORM);
    let t = e.cx.m.c_bool(true);
    let ax: Vec<Axis> = coords
        .iter()
        .enumerate()
        .map(|(a, &x)| {
            let n = if a == 0 { d.width } else { d.height };
            axis(e, d, x, n, d.modes[a], t)
        })
        .collect();
    let layer = layer.map(|l| {
        let one = e.c(1);
        let last = e.sub(d.depth, one);
        e.umin(l, last)
    });
    let zero = e.c(0);
    let int = desc::is_integer(e, d);
    [(0usize, 1usize), (1, 1), (1, 0), (0, 0)].map(|(i, j)| {
        let z = layer.unwrap_or(zero);
        // Gathers of block-compressed texels fault: no tap decodes blocks.
        let raw = desc::fetch_raw(e, d, ax[0].idx[i], ax[1].idx[j], z, layer.is_some(), false);
        let inside = e.land(ax[0].inside[i], ax[1].inside[j]);
        let vals = raw.map(|r| {
            let f = desc::to_f64(e, d, r);
            let f = e.f64_to_f32(f);
            let is_f = e.eqk(d.dtype, 7);
            let f = e.sel(is_f, r, f);
            let iv = desc::int_bits(e, d, r);
            e.sel(int, iv, f)
        });
        let vals: [Id; 4] = std::array::from_fn(|k| e.sel(inside, vals[k], d.border[k]));
        desc::swizzle(e, d, vals)[comp]
    })
}

//! A handle's texture header (TIC) and sampler (TSC) read from the pools at run time, and texel fetches at
//! integer coordinates of level 0 through the global window.
//!
//! Field positions are those of `sassport-textures` (`tic.rs`, `tsc.rs`: yuzu's `TICEntry`/`TSCEntry` and
//! Ryujinx's descriptors); the block-linear address is `engines::layout` (`BlockLinearLayout::offset` with
//! the Turing sector order Ampere uses, block heights clamped per `clamped_block_log2`), so the host model and
//! the untiler are this code's oracle.

use super::emit::E;
use crate::abi;
use crate::spirv::{Id, Op};

/// Reason codes written to a texture fault's `size` (the address is the handle).
pub mod reason {
    /// The header's component layout is none of the formats below.
    pub const FORMAT: u32 = 1;
    /// The header's data type is not SNORM/UNORM/SINT/UINT, or FLOAT on components other than 32 bits.
    pub const DATA_TYPE: u32 = 2;
    /// A mipmapped texture sampled between levels with a linear mip filter (a fractional LOD after the bias
    /// and clamps; TXD and TLD4 on a level other than the base): the H200's level blend is not modelled.
    pub const MIP_LEVELS: u32 = 3;
    /// The header's memory layout is a colour-key or reserved version.
    pub const LAYOUT: u32 = 4;
    /// A surface access outside the surface with `.TRAP`.
    pub const SURFACE_BOUNDS: u32 = 5;
    /// sRGB decoding the H200 was not recorded doing: filtered or gathered sRGB texels, or sRGB on a format
    /// other than 8-bit UNORM.
    pub const SRGB: u32 = 6;
    /// A block-compressed form not recorded on silicon: BC1/BC3 filtered, gathered or with a non-UNORM type.
    pub const BC_FORM: u32 = 7;
    /// A seamless cube (CUBEMAP_INTERFACE_FILTERING) filtered linearly: taps across faces are not modelled.
    pub const CUBE_SEAMLESS: u32 = 8;
}

/// The header and sampler fields the lowering uses (u32 ids unless noted).
#[derive(Clone)]
pub(super) struct Desc {
    pub handle: Id,
    /// Address of level 0, layer 0 (u64).
    pub addr: Id,
    /// HEADER_VERSION: 0 buffer, 2 pitch, 3 block-linear.
    pub version: Id,
    pub pitch: Id,
    pub block_h: Id,
    pub block_d: Id,
    pub width: Id,
    pub height: Id,
    /// DEPTH_MINUS_ONE + 1: 3-D slices or array layers.
    pub depth: Id,
    pub normalized: Id,
    /// MAX_MIP_LEVEL and the view's first and last level (RES_VIEW_MIN/MAX_MIP_LEVEL).
    pub max_mip: Id,
    pub view_min: Id,
    pub view_max: Id,
    /// Level-0 extents (`width`, `height`, `depth` become the selected level's by [`select_level`]).
    pub extent0: [Id; 3],
    /// Whether depth counts 3-D slices (TEXTURE_TYPE 2) rather than layers: the header decides how the
    /// chain lies, whatever dimension the instruction names.
    pub is_3d: Id,
    /// TEXTURE_TYPE (0 1D, 1 2D, 2 3D, 3 cube, 4 1D array, 5 2D array, 6 buffer, 7 2D no-mip, 8 cube array).
    pub texture_type: Id,
    /// Byte offset of the selected level in a layer, and the distance between layers.
    pub level_base: Id,
    pub layer_stride: Id,
    /// Sampler: mip filter (1 none, 2 point, 3 linear), LOD clamps in 1/256.
    pub mip_filter: Id,
    pub min_lod: Id,
    pub max_lod: Id,
    /// Sampler: MIP_LOD_BIAS (TSC bits 56:44, signed, 1/256) sign-extended (i32 bits).
    pub lod_bias: Id,
    /// Bytes per texel, components, bits per component.
    pub bpp: Id,
    pub bits: Id,
    /// Data type of the components (1 SNORM, 2 UNORM, 3 SINT, 4 UINT, 7 FLOAT).
    pub dtype: Id,
    /// Sources of x, y, z, w (0 zero, 2..5 R..A, 6 integer one, 7 float one).
    pub swizzle: [Id; 4],
    /// Whether the format is one the lowering fetches; else the fault reason (u32).
    pub supported: Id,
    pub why: Id,
    /// Sampler: address modes u, v, p; linear magnification filter (bool); border colour (f32 bits).
    pub modes: [Id; 3],
    pub linear: Id,
    /// TSC word 1 (filters, seamless cubes: bit 9 = CUBEMAP_INTERFACE_FILTERING, bit 41 of the entry).
    pub sampler_word1: Id,
    pub border: [Id; 4],
    /// S_R_G_B_CONVERSION, whether the layout is BC1 (DXT1) or BC3 (DXT45), and whether it is BC3 (bools).
    pub srgb: Id,
    pub bc: Id,
    pub bc3: Id,
    /// Conditions found while sampling (bool, reason when false), such as a filtered sRGB or BC1 texture;
    /// the guard folds them into the fault.
    pub checks: std::cell::RefCell<Vec<(Id, u32)>>,
}

/// Loads word `w` of entry `index` of the pool whose address is at launch word `pool`.
fn pool_word(e: &mut E, pool: u32, index: Id, w: u32) -> Id {
    let t = e.cx.t;
    let lo = e.cx.st.uniform_word(&mut e.cx.m, &t, 0, pool);
    let hi = e.cx.st.uniform_word(&mut e.cx.m, &t, 0, pool + 1);
    let base = e.cx.pack64(lo, hi);
    let k32 = e.c(32);
    let off = e.mul(index, k32);
    let off = e.addk(off, 4 * w);
    let off = e.wide(off);
    let addr = e.add64(base, off);
    load_word(e, addr)
}

/// A checked 32-bit load from the window (0 and a recorded load fault outside it).
pub(super) fn load_word(e: &mut E, addr: Id) -> Id {
    let (ok, idx) = super::super::memory::window_access(e.cx, addr, 4, abi::FAULT_KIND_LOAD);
    let p = super::super::memory::window_ptr(e.cx, idx, 0);
    let t = e.cx.t.u32;
    let v = e.cx.m.load(t, p);
    let z = e.c(0);
    e.sel(ok, v, z)
}

/// Reads and decodes the header and sampler of `handle` (TIC index bits 19:0, TSC index bits 31:20).
pub(super) fn load(e: &mut E, handle: Id, layered: bool) -> Desc {
    let tic_i = e.andk(handle, 0xf_ffff);
    let tsc_i = e.shrk(handle, 20);
    let tp = abi::launch_word::TEXTURE_POOLS;
    let h: Vec<Id> = (0..8).map(|w| pool_word(e, tp, tic_i, w)).collect();
    let s: Vec<Id> = [0u32, 1, 2, 4, 5, 6, 7]
        .iter()
        .map(|&w| pool_word(e, tp + 2, tsc_i, w))
        .collect();
    let addr_hi = e.andk(h[2], 0xffff);
    let addr = e.cx.pack64(h[1], addr_hi);
    let version = e.bits(h[2], 21, 3);
    let pitch = e.bits(h[3], 0, 16);
    let pitch = e.shlk(pitch, 5);
    let block_h = e.bits(h[3], 3, 3);
    let block_d = e.bits(h[3], 6, 3);
    let max_mip = e.bits(h[3], 28, 4);
    // A buffer's width minus one: bits 31:16 in word 3, 15:0 in word 4.
    let w_lo = e.bits(h[4], 0, 16);
    let w_hi = e.andk(h[3], 0xffff_0000);
    let is_buf = e.eqk(version, 0);
    let w_buf = e.or(w_hi, w_lo);
    let wm1 = e.sel(is_buf, w_buf, w_lo);
    let width = e.addk(wm1, 1);
    let height = e.bits(h[5], 0, 16);
    let height = e.addk(height, 1);
    let depth = e.bits(h[5], 16, 14);
    let depth = e.addk(depth, 1);
    let norm = e.bits(h[5], 31, 1);
    let normalized = e.eqk(norm, 1);
    let comps = e.bits(h[0], 0, 7);
    let dtype = e.bits(h[0], 7, 3);
    let swizzle = [19u32, 22, 25, 28].map(|lo| e.bits(h[0], lo, 3));
    let (bpp, bits, fmt_ok) = format(e, comps);
    let bc1 = e.eqk(comps, BC1);
    let bc3 = e.eqk(comps, BC3);
    let bc = e.lor(bc1, bc3);
    let view_min = e.bits(h[7], 0, 4);
    let view_max = e.bits(h[7], 4, 4);
    let mip_filter = e.bits(s[1], 6, 2);
    // MIN/MAX_LOD_CLAMP: TSC word 2 (bits 75:64, 87:76).
    let min_lod = e.bits(s[2], 0, 12);
    let max_lod = e.bits(s[2], 12, 12);
    let bias = e.bits(s[1], 12, 13);
    let k13 = e.c(13);
    let lod_bias = e.sext(bias, k13);
    let (supported, why) = checks(e, fmt_ok, dtype, bits, version);
    // S_R_G_B_CONVERSION (bit 150 = word 4 bit 22): decoded for 8-bit UNORM components (not BC) only.
    let srgb = e.bits(h[4], 22, 1);
    let srgb = e.eqk(srgb, 1);
    let unorm = e.eqk(dtype, 2);
    let b8 = e.eqk(bits, 8);
    let plain = e.lnot(bc);
    let unorm8 = e.land(unorm, b8);
    let decodable = e.land(unorm8, plain);
    let not_srgb = e.lnot(srgb);
    let srgb_ok = e.lor(not_srgb, decodable);
    let why = pick(e, srgb_ok, reason::SRGB, why);
    let supported = e.land(supported, srgb_ok);
    let bc_ok = e.lor(plain, unorm);
    let why = pick(e, bc_ok, reason::BC_FORM, why);
    let supported = e.land(supported, bc_ok);
    let modes = [0u32, 3, 6].map(|lo| e.bits(s[0], lo, 3));
    let mag = e.bits(s[1], 0, 2);
    let linear = e.eqk(mag, 2);
    let border = [s[3], s[4], s[5], s[6]];
    let ttype = e.bits(h[4], 23, 4);
    let is_3d = e.eqk(ttype, 2);
    let _ = layered;
    let zero = e.c(0);
    Desc {
        handle,
        addr,
        version,
        pitch,
        block_h,
        block_d,
        width,
        height,
        depth,
        normalized,
        max_mip,
        view_min,
        view_max,
        extent0: [width, height, depth],
        is_3d,
        texture_type: ttype,
        level_base: zero,
        layer_stride: zero,
        mip_filter,
        min_lod,
        max_lod,
        lod_bias,
        bpp,
        bits,
        dtype,
        swizzle,
        supported,
        why,
        modes,
        linear,
        sampler_word1: s[1],
        border,
        srgb,
        bc,
        bc3,
        checks: Default::default(),
    }
}

/// COMPONENTS codes of BC1 (DXT1) and BC3 (DXT45) blocks, decoded by [`super::bc`].
const BC1: u32 = 0x24;
const BC3: u32 = 0x26;

/// Records a texel-dependent condition (`ok` false: fault with `reason`).
pub(super) fn check(d: &Desc, ok: Id, reason: u32) {
    d.checks.borrow_mut().push((ok, reason));
}

/// (bytes per texel, bits per component, known) of a COMPONENTS code: the uniform formats with 8-, 16- and
/// 32-bit components (`textures::format::Layout::from_code`).
fn format(e: &mut E, comps: Id) -> (Id, Id, Id) {
    // BC1/BC3: 8/16 bytes a 4x4 block (fetched by `fetch_bc`), decoded to 8-bit components.
    const TABLE: [(u32, u32, u32); 11] = [
        (BC1, 8, 8),
        (BC3, 16, 8),
        (0x01, 16, 32), // R32G32B32A32
        (0x03, 8, 16),  // R16G16B16A16
        (0x04, 8, 32),  // R32G32
        (0x08, 4, 8),   // A8B8G8R8
        (0x0c, 4, 16),  // R16G16
        (0x0f, 4, 32),  // R32
        (0x18, 2, 8),   // G8R8
        (0x1b, 2, 16),  // R16
        (0x1d, 1, 8),   // R8
    ];
    let mut bpp = e.c(4);
    let mut bits = e.c(32);
    let mut known = e.cx.m.c_bool(false);
    for (code, b, cb) in TABLE {
        let is = e.eqk(comps, code);
        bpp = e.selk(is, b, bpp);
        bits = e.selk(is, cb, bits);
        known = e.lor(known, is);
    }
    (bpp, bits, known)
}

/// Whether the header is one the lowering handles, and the fault reason when not.
fn checks(e: &mut E, fmt_ok: Id, dtype: Id, bits: Id, version: Id) -> (Id, Id) {
    let snorm = e.eqk(dtype, 1);
    let unorm = e.eqk(dtype, 2);
    let sint = e.eqk(dtype, 3);
    let uint = e.eqk(dtype, 4);
    let float = e.eqk(dtype, 7);
    let b32 = e.eqk(bits, 32);
    let float32 = e.land(float, b32);
    let a = e.lor(snorm, unorm);
    let b = e.lor(sint, uint);
    let ab = e.lor(a, b);
    let type_ok = e.lor(ab, float32);
    let v0 = e.eqk(version, 0);
    let v2 = e.eqk(version, 2);
    let v3 = e.eqk(version, 3);
    let v02 = e.lor(v0, v2);
    let layout_ok = e.lor(v02, v3);
    let why = e.c(0);
    let why = pick(e, layout_ok, reason::LAYOUT, why);
    let why = pick(e, type_ok, reason::DATA_TYPE, why);
    let why = pick(e, fmt_ok, reason::FORMAT, why);
    let ok = e.eqk(why, 0);
    (ok, why)
}

/// `why` replaced by `code` when `good` is false (later checks take precedence).
fn pick(e: &mut E, good: Id, code: u32, why: Id) -> Id {
    let c = e.c(code);
    e.sel(good, why, c)
}

/// Byte offset of byte `xb` of row `y`, slice or layer `z` of level 0 from the texture's address.
pub(super) fn offset(e: &mut E, d: &Desc, xb: Id, y: Id, z: Id, layered: bool) -> Id {
    let pitch_off = {
        let rows = e.mul(z, d.height);
        let row = e.add(rows, y);
        let r = e.mul(row, d.pitch);
        e.add(r, xb)
    };
    let bl = block_linear(e, d, xb, y, z, layered);
    let bl = e.add(bl, d.level_base);
    let is_bl = e.eqk(d.version, 3);
    let is_buf = e.eqk(d.version, 0);
    let o = e.sel(is_bl, bl, pitch_off);
    e.sel(is_buf, xb, o)
}

/// `clamped_block_log2`: the block shrinks (one step at a time) while half of it still covers `n` units of
/// `unit << k`.
fn clamp_log2(e: &mut E, log2: Id, n: Id, unit: u32) -> Id {
    let five = e.c(5);
    let mut h = e.umin(log2, five);
    for k in (1..=5u32).rev() {
        let at = e.eqk(h, k);
        let half = e.c(unit << (k - 1));
        let covers = e.cmp(Op::UGreaterThanEqual, half, n);
        let c = e.land(at, covers);
        h = e.selk(c, k - 1, h);
    }
    h
}

fn block_linear(e: &mut E, d: &Desc, xb: Id, y: Id, z: Id, layered: bool) -> Id {
    let rows = d.height; // one row of texels per row of blocks of uncompressed formats
    let h = clamp_log2(e, d.block_h, rows, 8);
    let _ = layered;
    let zero = e.c(0);
    let zz = e.sel(d.is_3d, z, zero);
    let layer = e.sel(d.is_3d, zero, z);
    let one = e.c(1);
    let slices = e.sel(d.is_3d, d.depth, one);
    let dl = clamp_log2(e, d.block_d, slices, 1);
    let row_bytes = e.mul(d.width, d.bpp);
    let gobs_per_row = e.addk(row_bytes, 63);
    let gobs_per_row = e.shrk(gobs_per_row, 6);
    let gob_rows = e.addk(rows, 7);
    let gob_rows = e.shrk(gob_rows, 3);
    let hd = e.add(h, dl);
    let sh = e.addk(hd, 9);
    let row_of_blocks = e.shl(gobs_per_row, sh);
    let one = e.c(1);
    let bh = e.shl(one, h);
    let rob = e.add(gob_rows, bh);
    let rob = e.sub(rob, one);
    let rows_of_blocks = e.shr(rob, h);
    let slice_bytes = e.mul(row_of_blocks, rows_of_blocks);
    let gob_y = e.shrk(y, 3);
    let zs = e.shr(zz, dl);
    let a = e.mul(zs, slice_bytes);
    let gy = e.shr(gob_y, h);
    let b = e.mul(gy, row_of_blocks);
    let dmask = e.shl(one, dl);
    let dmask = e.sub(dmask, one);
    let zin = e.and(zz, dmask);
    let zin = e.shl(zin, h);
    let hmask = e.sub(bh, one);
    let yin = e.and(gob_y, hmask);
    let gib = e.or(zin, yin);
    let gib = e.shlk(gib, 9);
    let col = e.shrk(xb, 6);
    let col = e.shl(col, sh);
    let sector = turing_sector(e, xb, y);
    let o = e.add(a, b);
    let o = e.add(o, gib);
    let o = e.add(o, col);
    let o = e.add(o, sector);
    let lo = e.mul(layer, d.layer_stride);
    e.add(o, lo)
}

/// `SectorLayout::Turing2D`: b8..b0 = x5 y2 x4 y1 y0 x3 x2 x1 x0.
fn turing_sector(e: &mut E, x: Id, y: Id) -> Id {
    let low = e.andk(x, 0xf);
    let y0 = e.bits(y, 0, 1);
    let y1 = e.bits(y, 1, 1);
    let y2 = e.bits(y, 2, 1);
    let x4 = e.bits(x, 4, 1);
    let x5 = e.bits(x, 5, 1);
    let parts = [(y0, 4), (y1, 5), (x4, 6), (y2, 7), (x5, 8)];
    let mut v = low;
    for (b, s) in parts {
        let p = e.shlk(b, s);
        v = e.or(v, p);
    }
    v
}

/// The raw components (R, G, B, A as unsigned integers of `bits` bits; 0 past the format's) of the texel at
/// in-range integer coordinates `x`, `y`, `z` (BC1/BC3 blocks decoded to bytes when `blocks`: callers whose
/// block-compressed results fault anyway leave the decoder out of the module).
pub(super) fn fetch_raw(e: &mut E, d: &Desc, x: Id, y: Id, z: Id, layered: bool, blocks: bool) -> [Id; 4] {
    let plain = fetch_uncompressed(e, d, x, y, z, layered);
    if !blocks {
        return plain;
    }
    let bc = fetch_bc(e, d, x, y, z, layered);
    std::array::from_fn(|k| e.sel(d.bc, bc[k], plain[k]))
}

/// The R, G, B, A bytes of the texel at in-range `x`, `y`, `z` of a BC1 or BC3 texture (`d` with texel
/// extents). One path for both: a BC3 block is 8 alpha bytes before a BC1-style colour block.
fn fetch_bc(e: &mut E, d: &Desc, x: Id, y: Id, z: Id, layered: bool) -> [Id; 4] {
    // The layout is one of 4x4 blocks of 8 or 16 bytes: the offset computation sees blocks as texels.
    let mut b = d.clone();
    let w = e.addk(d.width, 3);
    b.width = e.shrk(w, 2);
    let h = e.addk(d.height, 3);
    b.height = e.shrk(h, 2);
    let eight = e.c(8);
    b.bpp = e.selk(d.bc3, 16, eight);
    let bx = e.shrk(x, 2);
    let by = e.shrk(y, 2);
    let xb = e.mul(bx, b.bpp);
    let off = offset(e, &b, xb, by, z, layered);
    let word = |e: &mut E, k: u32| {
        let o = e.addk(off, k);
        let o = e.wide(o);
        let a = e.add64(d.addr, o);
        load_word(e, a)
    };
    let alpha = [word(e, 0), word(e, 4)];
    let zero = e.c(0);
    let colour_at = e.selk(d.bc3, 8, zero);
    let colour_off = e.add(off, colour_at);
    let at = |e: &mut E, k: u32| {
        let o = e.addk(colour_off, k);
        let o = e.wide(o);
        let a = e.add64(d.addr, o);
        load_word(e, a)
    };
    let colours = at(e, 0);
    let indices = at(e, 4);
    let px = e.andk(x, 3);
    let py = e.andk(y, 3);
    let py = e.shlk(py, 2);
    let p = e.or(px, py);
    let sh = e.shlk(p, 1);
    let idx = e.shr(indices, sh);
    let idx = e.andk(idx, 3);
    let mut rgba = super::bc::decode(e, colours, idx, d.bc3);
    let a3 = super::bc::bc3_alpha(e, alpha, p);
    rgba[3] = e.sel(d.bc3, a3, rgba[3]);
    rgba
}

fn fetch_uncompressed(e: &mut E, d: &Desc, x: Id, y: Id, z: Id, layered: bool) -> [Id; 4] {
    let xb = e.mul(x, d.bpp);
    let off = offset(e, d, xb, y, z, layered);
    let aligned = e.andk(off, !3);
    let words_m1 = e.shrk(d.bpp, 2);
    let one = e.c(1);
    let words_m1 = e.umax(words_m1, one);
    let words_m1 = e.sub(words_m1, one);
    let mut w = Vec::new();
    for k in 0..4u32 {
        let kc = e.c(k);
        let kk = e.umin(kc, words_m1);
        let o = e.shlk(kk, 2);
        let o = e.add(aligned, o);
        let o = e.wide(o);
        let a = e.add64(d.addr, o);
        w.push(load_word(e, a));
    }
    let sub = e.andk(off, 3);
    let sub = e.shlk(sub, 3);
    let w0 = e.shr(w[0], sub);
    let b8 = e.eqk(d.bits, 8);
    let b16 = e.eqk(d.bits, 16);
    let mut out = [w[0]; 4];
    for (i, slot) in out.iter_mut().enumerate() {
        let i = i as u32;
        let c8 = e.bits(w0, 8 * i, 8);
        let word16 = if i < 2 { w0 } else { w[1] };
        let c16 = e.bits(word16, 16 * (i % 2), 16);
        let v = e.sel(b16, c16, w[i as usize]);
        *slot = e.sel(b8, c8, v);
    }
    // Components past the format's read 0 (the swizzle supplies 0 or 1 for them).
    out
}

/// Component `raw` as the value the texture unit returns before filtering, as f64 (normalized and float
/// types) — integer types are returned raw by [`to_bits`].
pub(super) fn to_f64(e: &mut E, d: &Desc, raw: Id) -> Id {
    let one = e.c(1);
    let max = e.shl(one, d.bits);
    let max = e.sub(max, one);
    let un = {
        let v = e.u_to_f64(raw);
        let m = e.u_to_f64(max);
        e.fop(Op::FDiv, v, m)
    };
    let sn = {
        let s = e.sext(raw, d.bits);
        let v = e.s_to_f64(s);
        let bm1 = e.sub(d.bits, one);
        let half = e.shl(one, bm1);
        let half = e.sub(half, one);
        let m = e.u_to_f64(half);
        let q = e.fop(Op::FDiv, v, m);
        let m1 = e.fk(-1.0);
        let lt = e.cmp(Op::FOrdLessThan, q, m1);
        e.fsel(lt, m1, q)
    };
    let fl = e.f32_to_f64(raw);
    let is_un = e.eqk(d.dtype, 2);
    let is_sn = e.eqk(d.dtype, 1);
    let v = e.fsel(is_sn, sn, fl);
    e.fsel(is_un, un, v)
}

/// Whether the format's values are integers (SINT/UINT: returned raw, never filtered).
pub(super) fn is_integer(e: &mut E, d: &Desc) -> Id {
    let s = e.eqk(d.dtype, 3);
    let u = e.eqk(d.dtype, 4);
    e.lor(s, u)
}

/// Component `raw` of an integer format as the register value (SINT sign-extended).
pub(super) fn int_bits(e: &mut E, d: &Desc, raw: Id) -> Id {
    let s = e.sext(raw, d.bits);
    let is_s = e.eqk(d.dtype, 3);
    e.sel(is_s, s, raw)
}

/// Applies the header's swizzle to filtered component values (u32 register bits) `rgba`.
pub(super) fn swizzle(e: &mut E, d: &Desc, rgba: [Id; 4]) -> [Id; 4] {
    let int = is_integer(e, d);
    let one_f = e.c(0x3f80_0000);
    let one_i = e.c(1);
    let one_any = e.sel(int, one_i, one_f);
    d.swizzle.map(|s| {
        let mut v = e.c(0);
        for (k, c) in rgba.iter().enumerate() {
            let is = e.eqk(s, 2 + k as u32);
            v = e.sel(is, *c, v);
        }
        let i1 = e.eqk(s, 6);
        v = e.sel(i1, one_i, v);
        let f1 = e.eqk(s, 7);
        e.sel(f1, one_any, v)
    })
}

/// Bytes of level `k` of a block-linear chain with level-0 extents `ext` (one layer), and its extents.
fn level_size(e: &mut E, d: &Desc, ext: [Id; 3], k: u32) -> (Id, [Id; 3]) {
    let one = e.c(1);
    let shrink = |e: &mut E, v: Id| {
        let s = e.shrk(v, k);
        e.umax(s, one)
    };
    let w = shrink(e, ext[0]);
    let h = shrink(e, ext[1]);
    let shrunk = shrink(e, ext[2]);
    let dd = e.sel(d.is_3d, shrunk, ext[2]);
    let slices = e.sel(d.is_3d, dd, one);
    let bh = clamp_log2(e, d.block_h, h, 8);
    let bd = clamp_log2(e, d.block_d, slices, 1);
    let row = e.mul(w, d.bpp);
    let gobs = e.addk(row, 63);
    let gobs = e.shrk(gobs, 6);
    let gob_rows = e.addk(h, 7);
    let gob_rows = e.shrk(gob_rows, 3);
    let up = |e: &mut E, v: Id, log2: Id| {
        let b = e.shl(one, log2);
        let v = e.add(v, b);
        let v = e.sub(v, one);
        e.shr(v, log2)
    };
    let rows = up(e, gob_rows, bh);
    let zs = up(e, slices, bd);
    let n = e.mul(gobs, rows);
    let n = e.mul(n, zs);
    let sh = e.add(bh, bd);
    let sh = e.addk(sh, 9);
    (e.shl(n, sh), [w, h, dd])
}

/// Makes `level` (from the view's first level; u32) the one `offset` and the extents refer to: its offset in
/// the chain (levels back to back) and the layer stride (the chain rounded up to a level-0 block), as
/// `sassport_textures::Chain` lays them out.
pub(super) fn select_level(e: &mut E, d: &mut Desc, level: Id) {
    let ext = d.extent0;
    let zero = e.c(0);
    let mut base = zero;
    let mut total = zero;
    let mut extents = ext;
    for k in 0..16u32 {
        let (size, ex) = level_size(e, d, ext, k);
        let kc = e.c(k);
        let before = e.cmp(Op::ULessThan, kc, level);
        let add = e.sel(before, size, zero);
        base = e.add(base, add);
        let stored = e.cmp(Op::ULessThanEqual, kc, d.max_mip);
        let add = e.sel(stored, size, zero);
        total = e.add(total, add);
        let at = e.eqk(level, k);
        for (x, v) in extents.iter_mut().zip(ex) {
            *x = e.sel(at, v, *x);
        }
    }
    let one = e.c(1);
    let slices0 = e.sel(d.is_3d, ext[2], one);
    let bh0 = clamp_log2(e, d.block_h, ext[1], 8);
    let bd0 = clamp_log2(e, d.block_d, slices0, 1);
    let sh = e.add(bh0, bd0);
    let sh = e.addk(sh, 9);
    let block = e.shl(one, sh);
    let t = e.add(total, block);
    let t = e.sub(t, one);
    let t = e.shr(t, sh);
    d.layer_stride = e.shl(t, sh);
    let is_bl = e.eqk(d.version, 3);
    d.level_base = e.sel(is_bl, base, zero);
    let [w, h, dd] = extents;
    d.width = e.sel(is_bl, w, ext[0]);
    d.height = e.sel(is_bl, h, ext[1]);
    d.depth = e.sel(is_bl, dd, ext[2]);
}

//! The TEX family (TEX, TLD, TLD4, TXD, TXQ) and the SU family (SULD, SUST) in the forms nvcc emits for CUDA
//! texture and surface objects: `.SCR`, the handle read from a constant bank (bank 58:54, word 53:40).
//!
//! There are no Vulkan images here: like the hardware, the shader reads the handle's texture header (TIC
//! index, bits 19:0) and sampler (TSC index, bits 31:20) from pools in guest memory whose addresses are
//! launch values ([`crate::abi::LaunchValues::texture_pools`]), computes each tap's address (pitch, buffer
//! or block-linear), loads texels through the global window and filters them with the fixed-point rules
//! measured on the H200 (`sample`). A header the code does not handle records a texture fault naming the
//! reason and the result reads 0; a shape it cannot translate is refused by name.
//!
//! Operand registers and the handle's bank and word come from the generated views; modifiers (LOD mode,
//! gather component, access size, boundary mode) from the generated decoder's rendering of the table.

mod bc;
mod cube;
mod desc;
mod emit;
mod query;
mod sample;
mod srgb;
mod surface;

use super::Ctx;
use crate::abi;
use crate::error::TranslateError;
use crate::spirv::Id;
use emit::E;
use sassport_gen::views::View;

pub(super) fn lower(cx: &mut Ctx<'_>, m: &str) -> Result<bool, TranslateError> {
    match m {
        "TEX" | "TLD" | "TLD4" | "TXD" => texture(cx, m)?,
        "TXQ" => query::lower(cx)?,
        "SULD" => surface::lower(cx, surface::Access::Load)?,
        "SUST" => surface::lower(cx, surface::Access::Store)?,
        "SURED" => surface::lower(cx, surface::Access::Reduce)?,
        // No CUDA source reaches these on sm_86 (PTX has no tmml or surface atom; suq compiles to TXQ and to
        // driver-table loads): graphics shaders only.
        "TMML" | "SUATOM" | "SUQUERY" => {
            return Err(cx.refuse(format!(
                "{m} is not translated yet (texture lowering: TEX/TLD/TLD4/TXD/TXQ/SULD/SUST/SURED)"
            )))
        }
        _ => return Ok(false),
    }
    Ok(true)
}

/// The mnemonic's modifiers as the generated decoder renders them (`TEX.SCR.LL` → `["SCR", "LL"]`).
fn modifiers(cx: &Ctx<'_>) -> Result<Vec<String>, TranslateError> {
    let d =
        sassport_gen::decode(cx.inst.word).map_err(|_| cx.refuse("the decoder does not know this word"))?;
    let text = d.text(0, sassport_gen::TargetStyle::Absolute);
    let first = text
        .split_whitespace()
        .find(|t| !t.starts_with('@'))
        .unwrap_or_default();
    Ok(first.split('.').skip(1).map(str::to_string).collect())
}

/// Registers and fields of a TEX-family instruction.
struct Operands {
    dst: u8,
    dst2: u8,
    ra: u8,
    rb: u8,
    bank: u8,
    word: u32,
    /// `.B` forms: the handle is the first register of Rb (the rest of the Rb list follows it).
    handle_in_reg: bool,
    mask: u32,
    dim: u32,
}

fn operands(cx: &Ctx<'_>) -> Result<Operands, TranslateError> {
    use sassport_gen::Src;
    let v = sassport_gen::decode(cx.inst.word)
        .map_err(|_| cx.refuse("the decoder does not know this word"))?
        .view();
    let (dst, dst2, a, b, c, d, e) = match v {
        View::Tex(t) => (t.dst, t.dst2, t.a, t.b, t.c, t.d, t.e),
        View::Tld(t) => (t.dst, t.dst2, t.a, t.b, t.c, t.d, t.e),
        View::Tld4(t) => (t.dst, t.dst2, t.a, t.b, t.c, t.d, t.e),
        View::Txd(t) => (t.dst, t.dst2, t.a, t.b, t.c, t.d, t.e),
        _ => return Err(cx.refuse("no bindless (.SCR) operand view for this form")),
    };
    let reg = |o: Option<sassport_gen::Operand>| match o.map(|o| o.src) {
        Some(Src::Reg(r)) => Some(r.0),
        _ => None,
    };
    let imm = |o: Option<sassport_gen::Operand>| match o.map(|o| (o.src, o.modifier)) {
        Some((Src::Imm(v), m)) => Some((v as u32, m)),
        _ => None,
    };
    let missing = || {
        cx.refuse(
            "the form has no constant-bank handle (only `.SCR` forms with c[bank][word] are translated)",
        )
    };
    // `.B` (register handle) forms have no bank and word: the mask and dimension are the third operand.
    let handle_in_reg = d.is_none() && e.is_none();
    let ((bank, _), (word, _), (mask, dim)) = if handle_in_reg {
        ((0, None), (0, None), imm(c).ok_or_else(missing)?)
    } else {
        (imm(c).ok_or_else(missing)?, imm(d).ok_or_else(missing)?, imm(e).ok_or_else(missing)?)
    };
    Ok(Operands {
        dst: reg(dst).unwrap_or(255),
        dst2: reg(dst2).unwrap_or(255),
        ra: reg(a).unwrap_or(255),
        rb: reg(b).unwrap_or(255),
        bank: bank as u8,
        word,
        handle_in_reg,
        mask,
        dim: dim.unwrap_or(0) as u32,
    })
}

/// The handle: the constant-bank word the instruction names.
fn handle(cx: &mut Ctx<'_>, bank: u8, word: u32) -> Result<Id, TranslateError> {
    cx.cbuf(bank, word * 4)
}

/// Vector operand `k` of the list split over Ra (first `na`) and Rb. A `.B` handle is the first register of
/// Rb (TXD: of Ra, before the coordinates), so the list starts one register later there.
fn list_reg(e: &mut E, o: &Operands, txd: bool, na: usize, k: usize) -> Id {
    let skip_a = u8::from(o.handle_in_reg && txd);
    let skip_b = u8::from(o.handle_in_reg && !txd);
    let r = if k < na {
        o.ra.wrapping_add(k as u8 + skip_a)
    } else {
        o.rb.wrapping_add((k - na) as u8 + skip_b)
    };
    if (k < na && o.ra == 255) || (k >= na && o.rb == 255) {
        return e.c(0);
    }
    e.reg(r)
}

fn texture(cx: &mut Ctx<'_>, m: &str) -> Result<(), TranslateError> {
    let mods = modifiers(cx)?;
    let has = |s: &str| mods.iter().any(|x| x == s);
    // nvcc emits plain `TEX` (no .SCR) with the same c[bank][word] handle for cube arrays (the sm_86
    // listing of texcube_layered_f4), so the constant-bank operand decides, not the modifier.
    if m != "TXD" && !has("SCR") && !(m == "TEX" && !has("B")) {
        return Err(cx.refuse(format!(
            "{m} without .SCR (a bound or register-bindless handle) is not translated yet"
        )));
    }
    for bad in ["AOFFI", "DC", "F16", "PTP", "LC", "LB", "LBA", "LLA", "NDV"] {
        if has(bad) {
            return Err(cx.refuse(format!("{m} with .{bad} is not translated yet")));
        }
    }
    let o = operands(cx)?;
    // Dimensions (63:61): 1D 2D 3D CUBE ARRAY_1D ARRAY_2D - ARRAY_CUBE.
    let (axes, array) = match o.dim {
        0 => (1, false),
        1 => (2, false),
        2 | 3 => (3, false),
        4 => (1, true),
        5 => (2, true),
        7 => (3, true),
        d => return Err(cx.refuse(format!("{m} of dimension code {d} is not translated"))),
    };
    let is_cube = o.dim == 3 || o.dim == 7;
    if is_cube && m != "TEX" {
        return Err(cx.refuse(format!("{m} of a cube texture is not translated yet (TEX is)")));
    }
    let lod = usize::from(has("LL"));
    let n = usize::from(array) + axes + if m == "TXD" { 0 } else { lod };
    // Ra takes the largest power of two of the operands that leaves at least one for Rb, and a `.B` handle
    // counts as one of Rb's (the sm_86 listings: TEX.LL 2D x y | lod, ARRAY_CUBE layer x y z | lod,
    // TEX.B.LL 2D x y | h lod, TLD4.B 2D x y | h, TLD.B.LZ 1D x | h).
    let total = n + usize::from(o.handle_in_reg);
    let na = if m == "TXD" {
        n
    } else if total <= 1 {
        n
    } else {
        1 << (usize::BITS - 1 - (total - 1).leading_zeros())
    };
    if m == "TXD" && array {
        return Err(cx.refuse("TXD of an array texture is not translated yet"));
    }
    let handle_reg = if m == "TXD" { o.ra } else { o.rb };
    if o.handle_in_reg && handle_reg == 255 {
        return Err(cx.refuse(format!("{m}.B with RZ as the handle register")));
    }
    let h = if o.handle_in_reg {
        cx.reg(handle_reg)
    } else {
        handle(cx, o.bank, o.word)?
    };
    let mut e = E { cx };
    let mut d = desc::load(&mut e, h, array);
    let list: Vec<Id> = (0..n).map(|k| list_reg(&mut e, &o, m == "TXD", na, k)).collect();
    let (layer, coords) = if array {
        (Some(list[0]), &list[1..1 + axes])
    } else {
        (None, &list[..axes])
    };
    let lod = (lod == 1 && m != "TXD").then(|| list[usize::from(array) + axes]);
    choose_level(&mut e, &mut d, m, lod);
    let values = match m {
        "TLD" => fetch(&mut e, &d, coords, layer),
        "TLD4" => {
            // The component is the first modifier of R/G/B/A (`TLD4.SCR.A.B`: alpha, bindless).
            let comp = mods
                .iter()
                .find_map(|x| ["R", "G", "B", "A"].iter().position(|c| c == x))
                .unwrap_or(0);
            if axes != 2 {
                return Err(e.cx.refuse("TLD4 other than 2-D is not translated yet"));
            }
            sample::gather(&mut e, &d, coords, layer, comp)
        }
        _ if is_cube => {
            let (st, face_layer) = cube::project(&mut e, &mut d, coords, layer);
            let rgba = sample::sample(&mut e, &d, &st, Some(face_layer));
            desc::swizzle(&mut e, &d, rgba)
        }
        _ => {
            let rgba = sample::sample(&mut e, &d, coords, layer);
            desc::swizzle(&mut e, &d, rgba)
        }
    };
    let mask = if m == "TLD4" { 0xf } else { o.mask };
    let values = guard_supported(&mut e, &d, values);
    write(&mut e, &o, mask, values);
    Ok(())
}

/// Selects the level the instruction reads: the view's first level plus the LOD. TLD: the integer LOD. TEX:
/// the float LOD plus the sampler's bias, clamped to its LOD range (the H200, `textures3.tgz`: mipmapped
/// arrays at LOD steps of 1/256, bias 0.25, clamps 0.5..2.75); a point mip filter takes `floor(lod + 1/2)`,
/// a linear one a whole LOD only (its level blend is not modelled: a fraction faults); no mip filter the
/// first level.
fn choose_level(e: &mut E, d: &mut desc::Desc, m: &str, lod: Option<Id>) {
    use crate::spirv::Op;
    let single = e.eqk(d.max_mip, 0);
    let none = e.eqk(d.mip_filter, 1);
    let base_only = e.lor(single, none);
    let (offset, ok) = if m == "TLD" {
        (lod.unwrap_or_else(|| e.c(0)), e.cx.m.c_bool(true))
    } else {
        let l = match lod {
            Some(bits) => e.f32_to_f64(bits),
            None => e.fk(0.0),
        };
        let k256 = e.fk(256.0);
        let bias = e.s_to_f64(d.lod_bias);
        let bias = e.fop(Op::FDiv, bias, k256);
        let l = e.fop(Op::FAdd, l, bias);
        let lo = e.u_to_f64(d.min_lod);
        let lo = e.fop(Op::FDiv, lo, k256);
        let hi = e.u_to_f64(d.max_lod);
        let hi = e.fop(Op::FDiv, hi, k256);
        let below = e.cmp(Op::FUnordLessThan, l, lo);
        let l = e.fsel(below, lo, l);
        let above = e.cmp(Op::FOrdGreaterThan, l, hi);
        let l = e.fsel(above, hi, l);
        let f = e.floor(l);
        let whole = e.cmp(Op::FOrdEqual, f, l);
        let half = e.fk(0.5);
        let up = e.fop(Op::FAdd, l, half);
        let nearest = e.floor(up);
        let point = e.eqk(d.mip_filter, 2);
        let f = e.fsel(point, nearest, f);
        // TXD's LOD comes from its gradients and TLD4's from none: neither is modelled past the base level.
        let ok = if m == "TEX" { e.lor(whole, point) } else { e.cx.m.c_bool(false) };
        let ok = e.lor(base_only, ok);
        (e.f64_to_s(f), ok)
    };
    let zero = e.c(0);
    let offset = e.sel(base_only, zero, offset);
    let level = e.add(d.view_min, offset);
    let level = e.umin(level, d.view_max);
    desc::select_level(e, d, level);
    let code = e.c(desc::reason::MIP_LEVELS);
    d.why = e.sel(ok, d.why, code);
    d.supported = e.land(d.supported, ok);
}

/// Results of an unsupported header are 0, and the fault names why.
fn guard_supported(e: &mut E, d: &desc::Desc, values: [Id; 4]) -> [Id; 4] {
    let (mut supported, mut why) = (d.supported, d.why);
    for (ok, reason) in d.checks.borrow().iter().copied() {
        let code = e.c(reason);
        why = e.sel(ok, why, code);
        supported = e.land(supported, ok);
    }
    let d = &desc::Desc { supported, why, ..d.clone() };
    let bad = e.lnot(d.supported);
    let merge = e.cx.begin_if(bad);
    let pc = e.c(e.cx.inst.offset);
    let a = e.wide(d.handle);
    super::fault::record_fault(e.cx, abi::FAULT_KIND_TEXTURE, pc, a, d.why);
    e.cx.end_if(merge);
    let z = e.c(0);
    values.map(|v| e.sel(d.supported, v, z))
}

/// TLD: the texel at integer coordinates (0 outside the texture).
fn fetch(e: &mut E, d: &desc::Desc, coords: &[Id], layer: Option<Id>) -> [Id; 4] {
    let ext = [d.width, d.height, d.depth];
    let zero = e.c(0);
    let mut inside = e.cx.m.c_bool(true);
    let mut c = [zero; 3];
    for (a, &x) in coords.iter().enumerate() {
        let ok = e.cmp(crate::spirv::Op::ULessThan, x, ext[a]);
        inside = e.land(inside, ok);
        c[a] = e.sel(ok, x, zero);
    }
    let z = match layer {
        Some(l) => {
            let ok = e.cmp(crate::spirv::Op::ULessThan, l, d.depth);
            inside = e.land(inside, ok);
            e.sel(ok, l, zero)
        }
        None => c[2],
    };
    let raw = desc::fetch_raw(e, d, c[0], c[1], z, layer.is_some(), true);
    let not_srgb = e.lnot(d.srgb);
    desc::check(d, not_srgb, desc::reason::SRGB);
    let int = desc::is_integer(e, d);
    let vals = raw.map(|r| {
        let f = desc::to_f64(e, d, r);
        let f = e.f64_to_f32(f);
        let is_f = e.eqk(d.dtype, 7);
        let f = e.sel(is_f, r, f);
        let iv = desc::int_bits(e, d, r);
        e.sel(int, iv, f)
    });
    let vals = desc::swizzle(e, d, vals);
    vals.map(|v| e.sel(inside, v, zero))
}

/// The enabled components of `values`, in order, into dst2, dst2 + 1, dst, dst + 1 (RZ slots dropped).
fn write(e: &mut E, o: &Operands, mask: u32, values: [Id; 4]) {
    let slots = [o.dst2, o.dst2.wrapping_add(1), o.dst, o.dst.wrapping_add(1)];
    let bases = [o.dst2, o.dst2, o.dst, o.dst];
    let mut n = 0;
    for (k, v) in values.iter().enumerate() {
        if mask & (1 << k) == 0 {
            continue;
        }
        if n < 4 && bases[n] != 255 {
            e.cx.set_reg(slots[n], *v);
        }
        n += 1;
    }
}

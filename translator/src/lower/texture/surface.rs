//! SULD/SUST `.D.BA` (raw data, byte x coordinate) on a surface's texture header: plain window loads and
//! stores at the texel's address (pitch, buffer or block-linear), with the boundary mode nvcc encodes:
//! `.TRAP` (cudaBoundaryModeTrap) records a texture fault and reads 0 / drops the store, `.IGN`
//! (cudaBoundaryModeZero) reads 0 / drops it, no suffix (cudaBoundaryModeClamp) clamps to the edge (the
//! H200 recordings of `corpus/silicon/textures`: `.IGN` reads 0 outside, no suffix reads the edge texel).
//! SURED `.D.BA` (PTX `sured.b`, what CUDA code can reach) is a device-scope atomic on that address with the
//! same boundary modes; the old value is not returned.

use super::desc::{self, reason};
use super::emit::E;
use super::super::memory::AtomicKind;
use super::{modifiers, Ctx};
use crate::abi;
use crate::error::TranslateError;
use crate::spirv::{Id, Op};
use sassport_gen::views::View;
use sassport_gen::Src;

/// What the instruction does at the texel.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Access {
    Load,
    Store,
    Reduce,
}

/// (bank, word, coordinate base register, data or destination register).
fn operands(cx: &Ctx<'_>, access: Access) -> Result<(u8, u32, u8, u8), TranslateError> {
    let v = sassport_gen::decode(cx.inst.word)
        .map_err(|_| cx.refuse("the decoder does not know this word"))?
        .view();
    let src = |o: Option<sassport_gen::Operand>| o.map(|o| o.src);
    let (data, mem, bank, word) = match (v, access) {
        (View::Suld(s), Access::Load) => (src(s.dst), src(s.a), src(s.b), src(s.c)),
        (View::Sust(s), Access::Store) => (src(s.b), src(s.a), src(s.c), src(s.d)),
        (View::Sured(s), Access::Reduce) => (src(s.b), src(s.a), src(s.c), src(s.d)),
        _ => return Err(cx.refuse("no constant-bank (bindless .D.BA) operand view for this form")),
    };
    match (data, mem, bank, word) {
        (Some(Src::Reg(r)), Some(Src::Mem { base: Some(b), .. }), Some(Src::Imm(k)), Some(Src::Imm(w))) => {
            Ok((k as u8, w as u32, b.0, r.0))
        }
        _ => Err(cx.refuse(
            "the surface handle is not in a constant bank (uniform-register forms are not translated)",
        )),
    }
}

/// SURED's operation (the atomic family's codes) and whether it is signed, from its modifiers.
fn reduction(cx: &Ctx<'_>, has: &dyn Fn(&str) -> bool, bytes: u32) -> Result<AtomicKind, TranslateError> {
    let ops = ["ADD", "MIN", "MAX", "INC", "DEC", "AND", "OR", "XOR"];
    let Some(op) = ops.iter().position(|o| has(o)) else {
        return Err(cx.refuse("SURED with no operation this lowering knows (ADD MIN MAX INC DEC AND OR XOR)"));
    };
    let signed = has("S32") || has("S64") || has("SD32") || has("SD64");
    super::super::memory::atomic_kind(cx, op as u32, bytes, signed, false)
}

pub(super) fn lower(cx: &mut Ctx<'_>, access: Access) -> Result<(), TranslateError> {
    let mods = modifiers(cx)?;
    let has = |s: &str| mods.iter().any(|x| x == s);
    let store = access == Access::Store;
    let m = match access {
        Access::Load => "SULD",
        Access::Store => "SUST",
        Access::Reduce => "SURED",
    };
    if !has("D") || !has("BA") {
        return Err(cx.refuse(format!(
            "{m} other than .D.BA (formatted or element-addressed) is not translated yet"
        )));
    }
    let (axes, layered) = if has("1D") {
        (1, false)
    } else if has("2D") {
        (2, false)
    } else if has("3D") {
        (3, false)
    } else if has("2D_ARRAY") {
        (3, true)
    } else if has("1D_ARRAY") {
        (2, true)
    } else {
        return Err(cx.refuse(format!(
            "{m} of this dimension (buffer or cube surfaces) is not translated yet"
        )));
    };
    let (bytes, signed) = match () {
        _ if access == Access::Reduce => (if has("U64") || has("S64") || has("64") { 8 } else { 4 }, false),
        _ if has("U8") => (1, false),
        _ if has("S8") => (1, true),
        _ if has("U16") => (2, false),
        _ if has("S16") => (2, true),
        _ if has("64") => (8, false),
        _ if has("128") => (16, false),
        _ => (4, false),
    };
    let trap = has("TRAP");
    let ign = has("IGN");
    let kind = match access {
        Access::Reduce => Some(reduction(cx, &has, bytes)?),
        _ => None,
    };
    let (bank, word, ra, rd) = operands(cx, access)?;
    let h = super::handle(cx, bank, word)?;
    let data: Vec<Id> = if access != Access::Load {
        (0..bytes.max(4) / 4)
            .map(|k| cx.reg(rd.wrapping_add(k as u8)))
            .collect()
    } else {
        vec![]
    };
    let mut e = E { cx };
    let mut d = desc::load(&mut e, h, layered);
    let first = d.view_min;
    desc::select_level(&mut e, &mut d, first);
    let coords: Vec<Id> = (0..axes)
        .map(|k| {
            if ra == 255 {
                e.c(0)
            } else {
                e.reg(ra.wrapping_add(k as u8))
            }
        })
        .collect();
    let (x, y, z, inside) = bounds(&mut e, &d, &coords, layered, bytes, !(trap || ign));
    let xb = x;
    let off = desc::offset(&mut e, &d, xb, y, z, layered);
    let off = e.wide(off);
    let addr = e.add64(d.addr, off);
    let ok = e.land(inside, d.supported);
    // Loads read 0 unless the access happens.
    if access == Access::Load {
        let z0 = e.c(0);
        for k in 0..bytes.max(4) / 4 {
            e.cx.set_reg(rd.wrapping_add(k as u8), z0);
        }
    }
    let then = e.cx.begin_if(ok);
    match kind {
        Some(kind) => {
            let v = if bytes == 8 { e.cx.pack64(data[0], data[1]) } else { data[0] };
            super::super::generic_atomic::global_op(e.cx, kind, addr, bytes, v, v)?;
        }
        None if store => {
            let data = if bytes < 4 { vec![data[0]] } else { data };
            super::super::memory::global_store_at(e.cx, addr, bytes, &data)?;
        }
        None => super::super::memory::global_load_at(e.cx, addr, bytes, signed, rd)?,
    }
    e.cx.end_if(then);
    let not_ok = e.lnot(ok);
    let merge = e.cx.begin_if(not_ok);
    let bad_header = e.lnot(d.supported);
    let fault = if trap { e.cx.m.c_bool(true) } else { bad_header };
    let code = {
        let b = e.c(reason::SURFACE_BOUNDS);
        e.sel(d.supported, b, d.why)
    };
    let m2 = e.cx.begin_if(fault);
    let pc = e.c(e.cx.inst.offset);
    let a = e.wide(d.handle);
    super::super::fault::record_fault(e.cx, abi::FAULT_KIND_TEXTURE, pc, a, code);
    e.cx.end_if(m2);
    e.cx.end_if(merge);
    Ok(())
}

/// The access's coordinates (clamped to the edge when `clamp`) and whether it lies inside the surface.
fn bounds(e: &mut E, d: &desc::Desc, c: &[Id], layered: bool, bytes: u32, clamp: bool) -> (Id, Id, Id, Id) {
    let zero = e.c(0);
    let row = e.mul(d.width, d.bpp);
    let size = e.c(bytes);
    let last_x = e.sub(row, size);
    let (y, z) = match (c.len(), layered) {
        (1, _) => (zero, zero),
        (2, true) => (zero, c[1]),
        (2, false) => (c[1], zero),
        _ => (c[1], c[2]),
    };
    let one = e.c(1);
    let ext_y = if c.len() >= 2 && !(c.len() == 2 && layered) {
        d.height
    } else {
        one
    };
    let ext_z = if c.len() == 3 || layered { d.depth } else { one };
    let xin = e.cmp(Op::ULessThanEqual, c[0], last_x);
    let yin = e.cmp(Op::ULessThan, y, ext_y);
    let zin = e.cmp(Op::ULessThan, z, ext_z);
    let inside = e.land(xin, yin);
    let inside = e.land(inside, zin);
    if !clamp {
        return (c[0], y, z, inside);
    }
    let cl = |e: &mut E, v: Id, hi: Id| {
        let lo = e.smax(v, zero);
        e.smin(lo, hi)
    };
    let x = cl(e, c[0], last_x);
    let ym = e.sub(ext_y, one);
    let y = cl(e, y, ym);
    let zm = e.sub(ext_z, one);
    let z = cl(e, z, zm);
    let t = e.cx.m.c_bool(true);
    (x, y, z, t)
}

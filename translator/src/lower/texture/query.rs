//! TXQ with a constant-bank handle: TEX_HEADER_DIMENSION (width, height, depth or layers, and level count of
//! the header at the level in Ra). Other queries and register-handle forms are refused by name.

use super::super::Ctx;
use super::desc;
use super::emit::E;
use crate::error::TranslateError;
use crate::spirv::Id;
use sassport_gen::views::View;
use sassport_gen::Src;

pub(super) fn lower(cx: &mut Ctx<'_>) -> Result<(), TranslateError> {
    let v = sassport_gen::decode(cx.inst.word)
        .map_err(|_| cx.refuse("the decoder does not know this word"))?
        .view();
    let View::Txq(t) = v else {
        return Err(cx.refuse("no operand view for this TXQ form"));
    };
    let reg = |o: Option<sassport_gen::Operand>| match o.map(|o| o.src) {
        Some(Src::Reg(r)) => r.0,
        _ => 255,
    };
    let imm = |o: Option<sassport_gen::Operand>| match o.map(|o| o.src) {
        Some(Src::Imm(v)) => Some(v as u32),
        _ => None,
    };
    let query = match t.b.map(|o| o.src) {
        Some(Src::Other(q)) => q as u32,
        _ => 3,
    };
    if query != 0 {
        let name = [
            "TEX_HEADER_DIMENSION",
            "TEX_HEADER_TEXTURE_TYPE",
            "TEX_HEADER_SAMPLER_POS",
            "INVALID3",
        ];
        let name = name.get(query as usize).copied().unwrap_or("INVALID3");
        return Err(cx.refuse(format!(
            "TXQ {name} is not translated yet (TEX_HEADER_DIMENSION is)"
        )));
    }
    let (Some(bank), Some(word), Some(mask)) = (imm(t.c), imm(t.d), imm(t.e)) else {
        return Err(cx.refuse(
            "TXQ without a constant-bank handle (the `.B` register form) is not translated yet",
        ));
    };
    let (dst, dst2, ra) = (reg(t.dst), reg(t.dst2), reg(t.a));
    let h = cx.cbuf(bank as u8, word * 4)?;
    let mut e = E { cx };
    let d = desc::load(&mut e, h, false);
    let level = if ra == 255 { e.c(0) } else { e.reg(ra) };
    let values = dimensions(&mut e, &d, level);
    // The enabled components in order into dst2, dst2 + 1, dst, dst + 1 (the TEX family's order).
    let slots = [dst2, dst2.wrapping_add(1), dst, dst.wrapping_add(1)];
    let bases = [dst2, dst2, dst, dst];
    let enabled = (0..4).filter(|k| mask & (1 << k) != 0);
    for (n, k) in enabled.enumerate() {
        if bases[n] != 255 {
            e.cx.set_reg(slots[n], values[k]);
        }
    }
    Ok(())
}

/// What the H200 returns (`txq_*` of `textures2.tgz`): width and height at `level` (at least 1), depth at the
/// level for 3-D, the layer count for arrays and 0 otherwise (1-D and 2-D), the level count; all 0 for a level
/// past MAX_MIP_LEVEL (level 1 of a one-level array reads 0, 0, 0).
fn dimensions(e: &mut E, d: &desc::Desc, level: Id) -> [Id; 4] {
    let one = e.c(1);
    let at = |e: &mut E, v: Id| {
        let s = e.shr(v, level);
        e.umax(s, one)
    };
    let w = at(e, d.width);
    let h = at(e, d.height);
    let dz = at(e, d.depth);
    let zero = e.c(0);
    let array = {
        let a1 = e.eqk(d.texture_type, 4);
        let a2 = e.eqk(d.texture_type, 5);
        e.lor(a1, a2)
    };
    let layers = e.sel(array, d.depth, zero);
    let z = e.sel(d.is_3d, dz, layers);
    let levels = e.addk(d.max_mip, 1);
    let stored = e.cmp(crate::spirv::Op::ULessThanEqual, level, d.max_mip);
    [w, h, z, levels].map(|v| e.sel(stored, v, zero))
}

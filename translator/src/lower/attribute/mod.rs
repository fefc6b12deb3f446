//! Graphics attribute instructions: ALD, AST, IPA, KILL, and the pixel outputs a program leaves in
//! registers at EXIT. The other graphics instructions are refused by name (OUT, ISBERD, ISBEWR, PIXLD, AL2P).
//!
//! Addresses (facts from the seed notes, Mesa NAK and yuzu): position 0x70..0x7c, generic vector n at
//! 0x80 + 16n, instance id 0x2f8, vertex id 0x2fc, front facing 0x3fc. Every address a program reads or
//! writes must be in its SPH's input or output map ([`TranslateError::AttributeOutsideMap`]); 0x3fc is past
//! the maps' range and always readable by a pixel program.
//! - `ALD[.64/.96/.128] Rd, a[addr]` (vertex; the per-vertex index register RZ): generic inputs, vertex and
//!   instance id (gl_VertexIndex/gl_InstanceIndex: draws with first vertex and instance 0 agree with the
//!   guest's ids; a base-relative id is left for later). In a pixel program, a[0x3fc] only.
//! - `AST[.64/.96/.128] a[addr], Rs` (vertex): position, point size (0x6c), clip distances (0x2c0..0x2dc)
//!   and generic outputs.
//! - `IPA.PASS/.CONSTANT Rd, a[addr]` (pixel): a[0x70..0x7c] is `FragCoord` (x, y, z, 1/w). A generic
//!   component interpolates as the SPH says, not as IPA says; a perspective component is returned
//!   multiplied by `FragCoord.w`, since SM70+ IPA yields attribute/w interpolated linearly and the program
//!   multiplies by w itself (NAK's lowering, yuzu's IPA). a[0x3fc] front facing is all ones or 0 (yuzu).
//! - `KILL [Pp]`: `OpTerminateInvocation` when the predicate holds.
//! - At EXIT (pixel): target t's enabled components take R0, R1, ... in target order; depth the register
//!   after the next one (the sample mask's slot; yuzu's exit).

pub mod io;

use super::Ctx;
use crate::error::{display_name, TranslateError};
use crate::graphics::sph::{Interpolation, StageMaps, GENERIC_BASE};
use crate::graphics::Stage;
use crate::spirv::{BuiltIn, Id, Op, StorageClass};
pub use io::GraphicsIo;

pub(super) fn lower(cx: &mut Ctx<'_>, m: &str) -> Result<bool, TranslateError> {
    let Some(stage) = cx.graphics.as_ref().map(|g| g.stage) else {
        return Err(cx.refuse("a graphics instruction in a compute program"));
    };
    match (m, stage) {
        ("ALD", Stage::Vertex | Stage::Fragment) => ald(cx, stage)?,
        ("AST", Stage::Vertex) => ast(cx)?,
        ("IPA", Stage::Fragment) => ipa(cx)?,
        ("KILL", Stage::Fragment) => kill(cx)?,
        ("OUT" | "ISBERD" | "ISBEWR" | "PIXLD" | "AL2P", _) => {
            return Err(cx.refuse(format!(
                "{m} not translated yet (geometry, tessellation and pixel-local forms)"
            )))
        }
        (_, stage) => return Err(cx.refuse(format!("{m} in a {stage:?} program"))),
    }
    Ok(true)
}

fn outside(cx: &Ctx<'_>, address: u32, map: &'static str) -> TranslateError {
    TranslateError::AttributeOutsideMap {
        name: display_name(cx.inst.word, cx.inst.mnemonic),
        section: cx.section.to_string(),
        offset: cx.inst.offset,
        address,
        map,
    }
}

/// The SPH's VTG input (`output == false`) or output map holds `address`.
fn in_vtg_map(cx: &Ctx<'_>, address: u32, output: bool) -> bool {
    match cx.graphics.as_ref().map(|g| &g.sph.maps) {
        Some(StageMaps::Vtg { inputs, outputs }) => {
            let map = if output { outputs } else { inputs };
            map.contains(address).unwrap_or(false)
        }
        _ => false,
    }
}

fn io<'c>(cx: &'c mut Ctx<'_>) -> Result<&'c mut GraphicsIo, TranslateError> {
    let refusal = cx.refuse("graphics state missing");
    cx.graphics.as_mut().ok_or(refusal)
}

/// Component `c` of the `vec4` interface variable `var` of storage `class`, as its bits.
fn component_bits(cx: &mut Ctx<'_>, var: Id, class: StorageClass, c: u32) -> Id {
    let t = cx.t;
    let f32 = cx.m.t_f32();
    let ptr = cx.m.t_ptr(class, f32);
    let k = cx.u32c(c);
    let p = cx.m.access(ptr, var, &[k]);
    let v = cx.m.load(f32, p);
    cx.m.un(Op::Bitcast, t.u32, v)
}

fn store_component(cx: &mut Ctx<'_>, var: Id, c: Option<u32>, bits: Id) {
    let f32 = cx.m.t_f32();
    let ptr = cx.m.t_ptr(StorageClass::Output, f32);
    let v = cx.m.un(Op::Bitcast, f32, bits);
    let p = match c {
        Some(c) => {
            let k = cx.u32c(c);
            cx.m.access(ptr, var, &[k])
        }
        None => var,
    };
    cx.m.store(p, v);
}

/// Components (1..=4) of an ALD/AST: bits 75:74.
fn component_count(cx: &Ctx<'_>) -> u32 {
    cx.inst.bits(74, 2) + 1
}

fn ald(cx: &mut Ctx<'_>, stage: Stage) -> Result<(), TranslateError> {
    let i = cx.inst;
    if i.bits(76, 2) != 0 {
        return Err(cx.refuse("ALD.P/ALD.PHYS (patch and physical addressing) not translated yet"));
    }
    if i.bit(79) {
        return Err(cx.refuse("ALD.O (reading outputs) not translated yet"));
    }
    if i.bits(32, 8) != 255 || i.bits(24, 8) != 255 {
        return Err(cx.refuse(
            "ALD with a vertex or offset register (geometry, tessellation) not translated yet",
        ));
    }
    let base = i.bits(40, 10);
    let rd = i.bits(16, 8) as u8;
    let mut values = Vec::new();
    for k in 0..component_count(cx) {
        values.push(read_attribute(cx, stage, base + 4 * k)?);
    }
    for (k, v) in values.into_iter().enumerate() {
        cx.set_reg(rd.wrapping_add(k as u8), v);
    }
    Ok(())
}

/// The bits ALD reads at `address`.
fn read_attribute(cx: &mut Ctx<'_>, stage: Stage, address: u32) -> Result<Id, TranslateError> {
    let t = cx.t;
    if stage == Stage::Fragment {
        if address == 0x3fc {
            return front_facing(cx);
        }
        return Err(cx.refuse(format!(
            "ALD a[{address:#x}] in a pixel program (only a[0x3fc])"
        )));
    }
    if !in_vtg_map(cx, address, false) {
        return Err(outside(cx, address, "input"));
    }
    match address {
        0x2f8 | 0x2fc => {
            let g = io(cx)?;
            let (slot, builtin) = if address == 0x2fc {
                (&mut g.vertex_index, BuiltIn::VertexIndex)
            } else {
                (&mut g.instance_index, BuiltIn::InstanceIndex)
            };
            let mut s = *slot;
            let var = GraphicsIo::builtin_input(&mut cx.m, &mut s, t.u32, builtin);
            let g = io(cx)?;
            if address == 0x2fc {
                g.vertex_index = s
            } else {
                g.instance_index = s
            }
            Ok(cx.m.load(t.u32, var))
        }
        a if (GENERIC_BASE..GENERIC_BASE + 16 * io::GENERIC_VECTORS).contains(&a) => {
            let n = (a - GENERIC_BASE) / 16;
            let mut g = io(cx)?.clone();
            let var = g.vertex_input(&mut cx.m, n);
            *io(cx)? = g;
            Ok(component_bits(cx, var, StorageClass::Input, (a % 16) / 4))
        }
        a => Err(cx.refuse(format!("vertex input a[{a:#x}] not translated yet"))),
    }
}

fn front_facing(cx: &mut Ctx<'_>) -> Result<Id, TranslateError> {
    let t = cx.t;
    let mut s = io(cx)?.front_facing;
    let var = GraphicsIo::builtin_input(&mut cx.m, &mut s, t.bool, BuiltIn::FrontFacing);
    io(cx)?.front_facing = s;
    let f = cx.m.load(t.bool, var);
    let ones = cx.u32c(u32::MAX);
    let zero = cx.u32c(0);
    Ok(cx.sel(f, ones, zero))
}

fn ast(cx: &mut Ctx<'_>) -> Result<(), TranslateError> {
    let i = cx.inst;
    if i.bits(76, 2) != 0 || i.bits(24, 8) != 255 {
        return Err(cx.refuse("AST.P/AST.PHYS or with a vertex register not translated yet"));
    }
    if i.bits(64, 8) != 255 {
        return Err(cx.refuse("AST with an offset register not translated yet"));
    }
    let base = i.bits(40, 10);
    let rs = i.bits(32, 8) as u8;
    let n = component_count(cx);
    let values: Vec<Id> = (0..n).map(|k| cx.reg(rs.wrapping_add(k as u8))).collect();
    for (k, v) in values.into_iter().enumerate() {
        let address = base + 4 * k as u32;
        if !in_vtg_map(cx, address, true) {
            return Err(outside(cx, address, "output"));
        }
        let g = io(cx)?;
        let clip = io::CLIP_DISTANCE..io::CLIP_DISTANCE + 32;
        let target = match address {
            0x70..=0x7c => g.position.map(|p| (p, Some((address - 0x70) / 4))),
            io::POINT_SIZE => g.point_size.map(|p| (p, None)),
            a if clip.contains(&a) => g
                .clip_distances
                .map(|(p, _)| (p, Some((a - io::CLIP_DISTANCE) / 4))),
            a if (GENERIC_BASE..GENERIC_BASE + 16 * io::GENERIC_VECTORS).contains(&a) => {
                g.outputs[((a - GENERIC_BASE) / 16) as usize].map(|p| (p, Some((a % 16) / 4)))
            }
            _ => None,
        };
        let Some((var, c)) = target else {
            return Err(cx.refuse(format!("vertex output a[{address:#x}] not translated yet")));
        };
        store_component(cx, var, c, v);
    }
    Ok(())
}

fn ipa(cx: &mut Ctx<'_>) -> Result<(), TranslateError> {
    let i = cx.inst;
    if i.opcode() != 0x0326 {
        return Err(cx.refuse(
            "IPA with an immediate, constant or uniform-register operand not translated yet",
        ));
    }
    match i.bits(76, 2) {
        0 => {}
        1 => return Err(cx.refuse("IPA.CENTROID not translated yet")),
        _ => return Err(cx.refuse("IPA at an offset or sample not translated yet")),
    }
    let freq = i.bits(78, 2);
    if freq > 1 {
        return Err(cx.refuse("IPA.STATE and frequency 3 not translated yet"));
    }
    if i.bits(81, 3) != 7 {
        return Err(cx.refuse("IPA with a predicate destination not translated yet"));
    }
    let address = i.bits(64, 8) * 4;
    let rd = i.bits(16, 8) as u8;
    let v = interpolate(cx, address, freq == 1)?;
    cx.set_reg(rd, v);
    Ok(())
}

fn frag_coord_component(cx: &mut Ctx<'_>, c: u32) -> Result<Id, TranslateError> {
    let vec4 = io(cx)?.vec4;
    let mut s = io(cx)?.frag_coord;
    let var = GraphicsIo::builtin_input(&mut cx.m, &mut s, vec4, BuiltIn::FragCoord);
    io(cx)?.frag_coord = s;
    Ok(component_bits(cx, var, StorageClass::Input, c))
}

/// What IPA returns for `address` (`constant`: the IPA asked for the flat value).
fn interpolate(cx: &mut Ctx<'_>, address: u32, constant: bool) -> Result<Id, TranslateError> {
    let t = cx.t;
    match address {
        0x70..=0x7c => frag_coord_component(cx, (address - 0x70) / 4),
        0x3fc => front_facing(cx),
        a if (GENERIC_BASE..GENERIC_BASE + 16 * io::GENERIC_VECTORS).contains(&a) => {
            let n = ((a - GENERIC_BASE) / 16) as usize;
            let c = (a % 16) / 4;
            let declared = io(cx)?.pixel_inputs[n];
            let mode = match &io(cx)?.sph.maps {
                StageMaps::Pixel { inputs, .. } => inputs.generic[n][c as usize],
                StageMaps::Vtg { .. } => Interpolation::Unused,
            };
            let Some((var, _)) = declared.filter(|_| mode != Interpolation::Unused) else {
                return Err(outside(cx, a, "input"));
            };
            if constant && mode != Interpolation::Constant {
                return Err(cx.refuse(format!(
                    "IPA.CONSTANT of a[{a:#x}], which the SPH interpolates ({mode:?})"
                )));
            }
            let bits = component_bits(cx, var, StorageClass::Input, c);
            if mode != Interpolation::Perspective {
                return Ok(bits);
            }
            let w = frag_coord_component(cx, 3)?;
            let f = cx.m.un(Op::Bitcast, t.f32, bits);
            let w = cx.m.un(Op::Bitcast, t.f32, w);
            let p = cx.m.bin(Op::FMul, t.f32, f, w);
            Ok(cx.m.un(Op::Bitcast, t.u32, p))
        }
        a => Err(cx.refuse(format!("pixel input a[{a:#x}] not translated yet"))),
    }
}

fn kill(cx: &mut Ctx<'_>) -> Result<(), TranslateError> {
    let p = cx.inst.bits(87, 3);
    let neg = cx.inst.bit(90);
    let merge = if p == 7 && !neg {
        None
    } else {
        let c = cx.pred(p, neg);
        Some(cx.begin_if(c))
    };
    cx.m.op_void(Op::TerminateInvocation, &[]);
    // Code after the kill (and the selection's merge branch) needs a block, unreachable from here.
    let after = cx.m.id();
    cx.m.label(after);
    if let Some(merge) = merge {
        cx.end_if(merge);
    }
    Ok(())
}

/// Before the program returns: a pixel program's colour and depth outputs from its registers.
pub fn at_exit(cx: &mut Ctx<'_>) {
    let Some(g) = cx.graphics.as_ref() else {
        return;
    };
    if g.stage != Stage::Fragment {
        return;
    }
    let (targets, depth) = (g.targets.clone(), g.frag_depth);
    let mut reg = 0u8;
    for (_, var, mask) in targets {
        for c in 0..4 {
            if mask >> c & 1 != 0 {
                let v = cx.reg(reg);
                store_component(cx, var, Some(c), v);
                reg += 1;
            }
        }
    }
    if let Some(var) = depth {
        let v = cx.reg(reg + 1);
        store_component(cx, var, None, v);
    }
}

//! Uniform datapath: `U`-prefixed ALU instructions run through the integer handlers with UR/UP operands;
//! ULDC reads constants into URs; R2UR copies a register into a UR; UP2UR/UR2UP move uniform predicates.

use super::Ctx;
use crate::error::TranslateError;

pub(super) fn lower(cx: &mut Ctx<'_>, m: &str) -> Result<bool, TranslateError> {
    match m {
        "ULDC" => {
            let (bytes, signed) = match cx.inst.bits(73, 3) {
                0 => (1, false),
                1 => (1, true),
                2 => (2, false),
                3 => (2, true),
                4 => (4, false),
                5 => (8, false),
                _ => return Err(cx.refuse("ULDC size not translated yet")),
            };
            // Opcode keys (bit 91 as bit 12): 0x0ab9 `c[bank][imm]`, 0x1abb `c[bank][URa + imm]`, 0x1ab9 the
            // bindless `cx[URa][imm]`.
            let ur_address = cx.inst.opcode() == 0x1abb;
            if cx.inst.opcode() & 0x1000 != 0 && !ur_address {
                return Err(cx.refuse("ULDC from a bindless bank (cx[UR]) not translated yet"));
            }
            let bank = cx.inst.bits(54, 5) as u8;
            let off = cx.inst.bits(38, 16);
            let rd = cx.inst.bits(16, 6) as u8;
            let t = cx.t;
            let mut vals = Vec::new();
            if ur_address {
                // `c[bank][URa + offset]` (opcode 0x1abb, URa 29:24, the offset signed): a run-time address,
                // checked and read like LDC's.
                let ua = cx.inst.bits(24, 6) as u8;
                let u = cx.st.ureg(&mut cx.m, &t, ua);
                let k = cx.u32c(off as u16 as i16 as i32 as u32);
                let a = cx.op2(crate::spirv::Op::IAdd, u, k);
                vals = super::memory::constant_at(cx, bank, a, bytes, signed);
            } else if bytes < 4 {
                let w = cx.cbuf(bank, off & !3)?;
                let sh = cx.u32c(8 * (off & 3));
                let cnt = cx.u32c(8 * bytes);
                let op = if signed { crate::spirv::Op::BitFieldSExtract } else { crate::spirv::Op::BitFieldUExtract };
                vals.push(cx.m.op(op, t.u32, &[w, sh, cnt]));
            } else {
                for k in 0..bytes / 4 {
                    vals.push(cx.cbuf(bank, off + 4 * k)?);
                }
            }
            for (k, v) in vals.into_iter().enumerate() {
                cx.st.set_ureg(&mut cx.m, &t, rd.wrapping_add(k as u8), v);
            }
            Ok(true)
        }
        "R2UR" => {
            let ra = cx.inst.bits(24, 8) as u8;
            let v = cx.reg(ra);
            let rd = cx.inst.bits(16, 6) as u8;
            let t = cx.t;
            cx.st.set_ureg(&mut cx.m, &t, rd, v);
            Ok(true)
        }
        "UP2UR" | "UR2UP" => {
            // P2R/R2P on the uniform datapath (UP0..UP6 and a UR byte).
            cx.uniform = true;
            let r = super::predicate::lower(cx, if m == "UP2UR" { "P2R" } else { "R2P" });
            cx.uniform = false;
            r
        }
        _ if m.len() > 1 && m.starts_with('U') => {
            let base = &m[1..];
            if !matches!(
                base,
                "IADD3" | "IMAD" | "LOP3" | "SHF" | "PRMT" | "SEL" | "ISETP" | "LEA" | "FLO" | "POPC" | "BREV"
                    | "MOV" | "SGXT" | "BMSK" | "IMNMX" | "IABS" | "PLOP3"
            ) {
                return Ok(false);
            }
            cx.uniform = true;
            let r = super::integer::lower(cx, base);
            cx.uniform = false;
            r
        }
        _ => Ok(false),
    }
}

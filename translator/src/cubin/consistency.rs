//! `.nv.info.<function>` records checked against the rest of the file: each parameter inside the parameter
//! block, the block inside constant bank 0, ordinals below the parameter count, instruction offsets on an
//! instruction of the function's code section, symbol indices in the symbol table, the register count
//! equal to the code section header's (where the header states one). A record that contradicts the file is refused naming the record (section
//! and offset within), its attribute and the function; a runtime trusting it would read or patch the wrong
//! bytes. Relations checked on nvcc 13.5.37 sm_86 output (`cuobjdump -elf` of the corpus): `PARAM_CBANK`'s
//! size equals `CBANK_PARAM_SIZE`, the bank holds `offset + size` bytes, ordinals run 0..count.

use super::attributes::{id, Attribute};
use super::nv_info::{KernelInfo, Param};
use super::sections::Section;
use super::symbols::Symbol;
use super::{CubinError, Kernel};

/// Bytes per instruction word: every instruction offset is a multiple.
const INSTRUCTION_BYTES: u32 = 16;

/// The offset-list records whose entries must each be an instruction of the function's code.
const INSTRUCTION_LISTS: [(u8, &str); 5] = [
    (id::EXIT_INSTR_OFFSETS, "EIATTR_EXIT_INSTR_OFFSETS"),
    (id::S2RCTAID_INSTR_OFFSETS, "EIATTR_S2RCTAID_INSTR_OFFSETS"),
    (
        id::COOP_GROUP_INSTR_OFFSETS,
        "EIATTR_COOP_GROUP_INSTR_OFFSETS",
    ),
    (
        id::INT_WARP_WIDE_INSTR_OFFSETS,
        "EIATTR_INT_WARP_WIDE_INSTR_OFFSETS",
    ),
    (id::SYSCALL_OFFSETS, "EIATTR_SYSCALL_OFFSETS"),
];

/// What one `.nv.info.<function>` section is checked against.
pub(crate) struct Context<'a, 'data> {
    /// `.nv.info.<function>`.
    pub section: &'a str,
    pub function: &'a str,
    pub code: &'a Section<'data>,
    pub sections: &'a [Section<'data>],
    pub symbols: &'a [Symbol<'data>],
}

impl<'a, 'data> Context<'a, 'data> {
    fn conflict(&self, a: &Attribute<'_>, attribute: &'static str, reason: String) -> CubinError {
        CubinError::AttributeConflict {
            section: self.section.to_owned(),
            offset: a.offset,
            attribute,
            function: self.function.to_owned(),
            reason,
        }
    }

    /// Every record of `info` that names code or symbols.
    pub fn check_records(&self, info: &KernelInfo<'_>) -> Result<(), CubinError> {
        for a in &info.attributes {
            if let Some((_, name)) = INSTRUCTION_LISTS.iter().find(|(i, _)| *i == a.id) {
                for value in words(a) {
                    self.instruction(a, name, value)?;
                }
            } else if a.id == id::INDIRECT_BRANCH_TARGETS {
                // Decoding already checked the shape; here each branch and target must be code.
                for b in &info.indirect_branches {
                    self.instruction(a, "EIATTR_INDIRECT_BRANCH_TARGETS", b.offset)?;
                    for &t in &b.targets {
                        self.instruction(a, "EIATTR_INDIRECT_BRANCH_TARGETS", t)?;
                    }
                }
            } else if a.id == id::EXTERNS {
                for symbol in words(a) {
                    self.symbol(a, "EIATTR_EXTERNS", symbol)?;
                }
            }
        }
        Ok(())
    }

    fn instruction(
        &self,
        a: &Attribute<'_>,
        attribute: &'static str,
        value: u32,
    ) -> Result<(), CubinError> {
        if value % INSTRUCTION_BYTES == 0 && u64::from(value) < self.code.size {
            return Ok(());
        }
        Err(CubinError::InstructionOffset {
            section: self.section.to_owned(),
            offset: a.offset,
            attribute,
            function: self.function.to_owned(),
            value,
            code_section: self.code.name.to_owned(),
            code_size: self.code.size,
        })
    }

    fn symbol(
        &self,
        a: &Attribute<'_>,
        attribute: &'static str,
        symbol: u32,
    ) -> Result<&'a Symbol<'data>, CubinError> {
        self.symbols
            .get(symbol as usize)
            .ok_or_else(|| CubinError::AttributeSymbol {
                section: self.section.to_owned(),
                offset: a.offset,
                attribute,
                symbol,
                symbols: self.symbols.len(),
            })
    }
}

/// A kernel's launch interface against its constant bank and code: see the module comment.
pub(crate) fn check_kernel(ctx: &Context<'_, '_>, kernel: &Kernel<'_>) -> Result<(), CubinError> {
    let info = &kernel.info;
    ctx.check_records(info)?;
    check_params(&ctx, kernel)?;
    // sm_90 and later cubins leave the header's count 0 (read for `info` only); 0 states nothing.
    if let (Some(stated), registers) = (kernel.function.resources.registers, kernel.code_registers)
    {
        if registers != 0 && stated != registers {
            return Err(CubinError::RegisterCountConflict {
                function: kernel.function.name.to_owned(),
                attribute: stated,
                code_section: ctx.code.name.to_owned(),
                section_header: registers,
            });
        }
    }
    Ok(())
}

/// `KPARAM_INFO`, `PARAM_CBANK` and `CBANK_PARAM_SIZE` against each other and against `.nv.constant0`.
fn check_params(ctx: &Context<'_, '_>, kernel: &Kernel<'_>) -> Result<(), CubinError> {
    let info = &kernel.info;
    let block = info.param_size.or(info.param_bank.map(|b| b.size));
    let count = info.params.len();
    let mut seen = vec![false; count];
    for a in info.attributes.iter().filter(|a| a.id == id::KPARAM_INFO) {
        // Decoding accepted the record, so it has the 12-byte shape.
        let Some(p) = Param::decode(a.payload) else {
            continue;
        };
        let ordinal = usize::from(p.ordinal);
        if ordinal >= count || seen[ordinal] {
            return Err(CubinError::ParamOrdinal {
                kernel: kernel.function.name.to_owned(),
                section: ctx.section.to_owned(),
                offset: a.offset,
                ordinal: p.ordinal,
                count,
            });
        }
        seen[ordinal] = true;
        let end = u32::from(p.offset) + u32::from(p.size);
        if p.in_shared_memory {
            continue; // not in the constant bank's block
        }
        if block.is_none_or(|size| end > u32::from(size)) {
            return Err(CubinError::ParamOutsideBlock {
                kernel: kernel.function.name.to_owned(),
                section: ctx.section.to_owned(),
                offset: a.offset,
                ordinal: p.ordinal,
                param_offset: p.offset,
                param_size: p.size,
                block_size: block.map_or(0, u32::from),
            });
        }
    }
    let Some(bank) = info.param_bank else {
        return Ok(());
    };
    let Some(record) = info.attributes.iter().find(|a| a.id == id::PARAM_CBANK) else {
        return Ok(());
    };
    if let Some(size) = info.param_size {
        if size != bank.size {
            let reason = format!(
                "its block size {:#x} is not EIATTR_CBANK_PARAM_SIZE's {size:#x}",
                bank.size
            );
            return Err(ctx.conflict(record, "EIATTR_PARAM_CBANK", reason));
        }
    }
    let symbol = ctx.symbol(record, "EIATTR_PARAM_CBANK", bank.section_symbol)?;
    let bank_section = format!(".nv.constant0.{}", kernel.function.name);
    let named = symbol
        .section
        .and_then(|i| ctx.sections.get(i))
        .map(|s| s.name);
    if named != Some(bank_section.as_str()) {
        let reason = format!(
            "symbol {} is not the section symbol of {bank_section}",
            bank.section_symbol
        );
        return Err(ctx.conflict(record, "EIATTR_PARAM_CBANK", reason));
    }
    let bank_len = kernel.constant0.map_or(0, |c| c.len() as u64);
    let end = u64::from(bank.offset) + u64::from(block.unwrap_or(bank.size));
    if end > bank_len {
        return Err(CubinError::ParamBlockOutsideBank {
            kernel: kernel.function.name.to_owned(),
            section: ctx.section.to_owned(),
            offset: record.offset,
            bank_offset: bank.offset,
            block_size: block.unwrap_or(bank.size),
            bank_section,
            bank_size: bank_len,
        });
    }
    Ok(())
}

/// The little-endian words of a sized record (a ragged tail was refused when the record was decoded).
fn words<'a>(a: &'a Attribute<'_>) -> impl Iterator<Item = u32> + 'a {
    a.payload
        .chunks_exact(4)
        .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
}

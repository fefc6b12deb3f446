//! Typed views of `.nv.info` (per-function resources, keyed by symbol) and `.nv.info.<kernel>` (launch
//! interface). Payload layouts verified against `cuobjdump -elf` 13.5.37 on sm_86 cubins; records this
//! reader does not decode stay available raw.

use super::attributes::{id, u16_at, u32_at, Attribute, AttributeFormat};
use super::CubinError;

/// One kernel parameter from `EIATTR_KPARAM_INFO`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Param {
    /// Position in the kernel's parameter list.
    pub ordinal: u16,
    /// Byte offset within the parameter block (add [`ParamBank::offset`] for the constant bank 0 address).
    pub offset: u16,
    /// Size in bytes (14 bits).
    pub size: u16,
    /// The record's index word (0 in nvcc output).
    pub index: u32,
    /// Bits 0..=7: pointee's log2 alignment.
    pub log_alignment: u8,
    /// Bits 8..=11: pointee's address space.
    pub space: u8,
    /// Bits 12..=16: constant bank number (0x1f in nvcc output).
    pub cbank: u8,
    /// Bit 17: the parameter lives in shared memory (`SMEM`) rather than a constant bank (`CBANK`).
    pub in_shared_memory: bool,
}

impl Param {
    pub(crate) fn decode(payload: &[u8]) -> Option<Self> {
        if payload.len() != 12 {
            return None;
        }
        let index = u32_at(payload, 0)?;
        let ordinal = u16_at(payload, 4)?;
        let offset = u16_at(payload, 6)?;
        let bits = u32_at(payload, 2)?;
        Some(Param {
            ordinal,
            offset,
            size: ((bits >> 18) & 0x3fff) as u16,
            index,
            log_alignment: (bits & 0xff) as u8,
            space: ((bits >> 8) & 0xf) as u8,
            cbank: ((bits >> 12) & 0x1f) as u8,
            in_shared_memory: bits & (1 << 17) != 0,
        })
    }
}

/// Where the parameter block lives: `EIATTR_PARAM_CBANK`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ParamBank {
    /// Symbol index of the constant bank section (`.nv.constant0.<kernel>`).
    pub section_symbol: u32,
    /// Byte offset of the first parameter within the bank (0x160 on sm_86).
    pub offset: u16,
    /// Size of the parameter block in bytes.
    pub size: u16,
}

/// One indirect branch (`BRX`) and the offsets it may jump to: `EIATTR_INDIRECT_BRANCH_TARGETS`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct IndirectBranch {
    /// Section-relative offset of the branch instruction.
    pub offset: u32,
    /// The word between offset and count (0 in nvcc output; cuobjdump does not print it).
    pub reserved: u32,
    /// Section-relative offsets of the possible targets.
    pub targets: Vec<u32>,
}

/// Launch-interface facts from a kernel's `.nv.info.<kernel>` section.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct KernelInfo<'data> {
    /// Parameters sorted by ordinal.
    pub params: Vec<Param>,
    pub param_bank: Option<ParamBank>,
    /// `EIATTR_CBANK_PARAM_SIZE`: size of the parameter block.
    pub param_size: Option<u16>,
    /// `EIATTR_MAXREG_COUNT`: the register limit the compiler worked under.
    pub max_reg_count: Option<u16>,
    /// `EIATTR_MAX_THREADS`: `__launch_bounds__` / `.maxntid` (x, y, z).
    pub max_threads: Option<[u32; 3]>,
    /// `EIATTR_REQNTID`: `.reqntid` (x, y, z).
    pub required_threads: Option<[u32; 3]>,
    /// `EIATTR_EXIT_INSTR_OFFSETS`: section-relative offsets of the EXIT instructions.
    pub exit_offsets: Vec<u32>,
    /// `EIATTR_S2RCTAID_INSTR_OFFSETS`: offsets of `S2R SR_CTAID.*` instructions.
    pub s2r_ctaid_offsets: Vec<u32>,
    /// `EIATTR_COOP_GROUP_INSTR_OFFSETS`.
    pub coop_group_offsets: Vec<u32>,
    /// `EIATTR_COOP_GROUP_MASK_REGIDS`.
    pub coop_group_mask_regids: Vec<u32>,
    /// `EIATTR_INT_WARP_WIDE_INSTR_OFFSETS`.
    pub warp_wide_offsets: Vec<u32>,
    /// `EIATTR_SYSCALL_OFFSETS` (calls into the driver, e.g. `vprintf`).
    pub syscall_offsets: Vec<u32>,
    /// `EIATTR_INDIRECT_BRANCH_TARGETS`: jump tables (`switch`).
    pub indirect_branches: Vec<IndirectBranch>,
    /// `EIATTR_EXTERNS`: symbol indices of external functions the kernel calls.
    pub externs: Vec<u32>,
    /// `EIATTR_WMMA_USED`: the kernel uses warp matrix (tensor core) instructions.
    pub wmma_used: bool,
    /// `EIATTR_CTAIDZ_USED`: the kernel reads `blockIdx.z`.
    pub ctaid_z_used: bool,
    /// `EIATTR_CRS_STACK_SIZE`.
    pub crs_stack_size: Option<u32>,
    /// `EIATTR_NUM_BARRIERS`: named barriers used.
    pub num_barriers: Option<u16>,
    /// `EIATTR_NUM_MBARRIERS`: shared-memory barriers (`mbarrier`) used.
    pub num_mbarriers: Option<u16>,
    /// `EIATTR_CUDA_API_VERSION`.
    pub cuda_api_version: Option<u32>,
    /// `EIATTR_LANGUAGE` (3 = PTX).
    pub language: Option<u32>,
    /// Every record of the section in order, decoded or not.
    pub attributes: Vec<Attribute<'data>>,
}

impl<'data> KernelInfo<'data> {
    /// The records whose meaning this reader does not decode into a field above.
    pub fn undecoded(&self) -> impl Iterator<Item = &Attribute<'data>> {
        self.attributes
            .iter()
            .filter(|a| !KERNEL_DECODED.contains(&a.id))
    }
}

const KERNEL_DECODED: &[u8] = &[
    id::KPARAM_INFO,
    id::PARAM_CBANK,
    id::CBANK_PARAM_SIZE,
    id::MAXREG_COUNT,
    id::MAX_THREADS,
    id::REQNTID,
    id::EXIT_INSTR_OFFSETS,
    id::S2RCTAID_INSTR_OFFSETS,
    id::COOP_GROUP_INSTR_OFFSETS,
    id::COOP_GROUP_MASK_REGIDS,
    id::WMMA_USED,
    id::INT_WARP_WIDE_INSTR_OFFSETS,
    id::SYSCALL_OFFSETS,
    id::EXTERNS,
    id::INDIRECT_BRANCH_TARGETS,
    id::CTAIDZ_USED,
    id::CRS_STACK_SIZE,
    id::NUM_BARRIERS,
    id::NUM_MBARRIERS,
    id::CUDA_API_VERSION,
    id::LANGUAGE,
];

struct Ctx<'a> {
    section: &'a str,
}

impl Ctx<'_> {
    fn bad(&self, a: &Attribute<'_>, name: &'static str, expected: &'static str) -> CubinError {
        CubinError::AttributePayload {
            section: self.section.to_owned(),
            offset: a.offset,
            attribute: name,
            expected,
            found: a.payload.len(),
        }
    }

    fn sized<'d>(&self, a: &Attribute<'d>, name: &'static str) -> Result<&'d [u8], CubinError> {
        if a.format == AttributeFormat::Sized {
            Ok(a.payload)
        } else {
            Err(self.bad(a, name, "EIFMT_SVAL payload"))
        }
    }

    fn words(&self, a: &Attribute<'_>, name: &'static str) -> Result<Vec<u32>, CubinError> {
        let payload = self.sized(a, name)?;
        if payload.len() % 4 != 0 {
            return Err(self.bad(a, name, "a multiple of 4"));
        }
        Ok(payload
            .chunks_exact(4)
            .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
            .collect())
    }

    fn word(&self, a: &Attribute<'_>, name: &'static str) -> Result<u32, CubinError> {
        match self.words(a, name)?.as_slice() {
            [w] => Ok(*w),
            _ => Err(self.bad(a, name, "4")),
        }
    }

    fn triple(&self, a: &Attribute<'_>, name: &'static str) -> Result<[u32; 3], CubinError> {
        match self.words(a, name)?.as_slice() {
            [x, y, z] => Ok([*x, *y, *z]),
            _ => Err(self.bad(a, name, "12")),
        }
    }

    fn small(&self, a: &Attribute<'_>, name: &'static str) -> Result<u16, CubinError> {
        a.small_value()
            .ok_or_else(|| self.bad(a, name, "EIFMT_BVAL or EIFMT_HVAL value"))
    }
}

/// Decodes the records of one `.nv.info.<kernel>` section.
pub fn decode_kernel_info<'data>(
    section: &str,
    attributes: Vec<Attribute<'data>>,
) -> Result<KernelInfo<'data>, CubinError> {
    let ctx = Ctx { section };
    let mut info = KernelInfo::default();
    for a in &attributes {
        match a.id {
            id::KPARAM_INFO => {
                let payload = ctx.sized(a, "EIATTR_KPARAM_INFO")?;
                let param =
                    Param::decode(payload).ok_or_else(|| ctx.bad(a, "EIATTR_KPARAM_INFO", "12"))?;
                info.params.push(param);
            }
            id::PARAM_CBANK => {
                let payload = ctx.sized(a, "EIATTR_PARAM_CBANK")?;
                let bank = match (
                    payload.len(),
                    u32_at(payload, 0),
                    u16_at(payload, 4),
                    u16_at(payload, 6),
                ) {
                    (8, Some(section_symbol), Some(offset), Some(size)) => ParamBank {
                        section_symbol,
                        offset,
                        size,
                    },
                    _ => return Err(ctx.bad(a, "EIATTR_PARAM_CBANK", "8")),
                };
                info.param_bank = Some(bank);
            }
            id::CBANK_PARAM_SIZE => {
                info.param_size = Some(ctx.small(a, "EIATTR_CBANK_PARAM_SIZE")?)
            }
            id::MAXREG_COUNT => info.max_reg_count = Some(ctx.small(a, "EIATTR_MAXREG_COUNT")?),
            id::NUM_BARRIERS => info.num_barriers = Some(ctx.small(a, "EIATTR_NUM_BARRIERS")?),
            id::NUM_MBARRIERS => info.num_mbarriers = Some(ctx.small(a, "EIATTR_NUM_MBARRIERS")?),
            id::MAX_THREADS => info.max_threads = Some(ctx.triple(a, "EIATTR_MAX_THREADS")?),
            id::REQNTID => info.required_threads = Some(ctx.triple(a, "EIATTR_REQNTID")?),
            id::EXIT_INSTR_OFFSETS => info
                .exit_offsets
                .extend(ctx.words(a, "EIATTR_EXIT_INSTR_OFFSETS")?),
            id::S2RCTAID_INSTR_OFFSETS => info
                .s2r_ctaid_offsets
                .extend(ctx.words(a, "EIATTR_S2RCTAID_INSTR_OFFSETS")?),
            id::COOP_GROUP_INSTR_OFFSETS => info
                .coop_group_offsets
                .extend(ctx.words(a, "EIATTR_COOP_GROUP_INSTR_OFFSETS")?),
            id::COOP_GROUP_MASK_REGIDS => info
                .coop_group_mask_regids
                .extend(ctx.words(a, "EIATTR_COOP_GROUP_MASK_REGIDS")?),
            id::WMMA_USED => info.wmma_used = true,
            id::INT_WARP_WIDE_INSTR_OFFSETS => info
                .warp_wide_offsets
                .extend(ctx.words(a, "EIATTR_INT_WARP_WIDE_INSTR_OFFSETS")?),
            id::SYSCALL_OFFSETS => info
                .syscall_offsets
                .extend(ctx.words(a, "EIATTR_SYSCALL_OFFSETS")?),
            id::EXTERNS => info.externs.extend(ctx.words(a, "EIATTR_EXTERNS")?),
            id::INDIRECT_BRANCH_TARGETS => {
                let words = ctx.words(a, "EIATTR_INDIRECT_BRANCH_TARGETS")?;
                let mut rest = words.as_slice();
                while let [offset, reserved, count, tail @ ..] = rest {
                    let count = *count as usize;
                    let Some((targets, after)) =
                        (count <= tail.len()).then(|| tail.split_at(count))
                    else {
                        return Err(ctx.bad(
                            a,
                            "EIATTR_INDIRECT_BRANCH_TARGETS",
                            "room for every target",
                        ));
                    };
                    info.indirect_branches.push(IndirectBranch {
                        offset: *offset,
                        reserved: *reserved,
                        targets: targets.to_vec(),
                    });
                    rest = after;
                }
                if !rest.is_empty() {
                    return Err(ctx.bad(
                        a,
                        "EIATTR_INDIRECT_BRANCH_TARGETS",
                        "whole (offset, word, count, targets) entries",
                    ));
                }
            }
            id::CTAIDZ_USED => info.ctaid_z_used = true,
            id::CRS_STACK_SIZE => info.crs_stack_size = Some(ctx.word(a, "EIATTR_CRS_STACK_SIZE")?),
            id::CUDA_API_VERSION => {
                info.cuda_api_version = Some(ctx.word(a, "EIATTR_CUDA_API_VERSION")?)
            }
            id::LANGUAGE => info.language = Some(ctx.word(a, "EIATTR_LANGUAGE")?),
            _ => {}
        }
    }
    info.params.sort_by_key(|p| p.ordinal);
    info.attributes = attributes;
    Ok(info)
}

/// Per-function resources from the global `.nv.info` section.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct FunctionResources {
    /// `EIATTR_REGCOUNT`: registers per thread.
    pub registers: Option<u32>,
    /// `EIATTR_FRAME_SIZE`: per-thread local memory (stack frame) in bytes.
    pub frame_size: Option<u32>,
    /// `EIATTR_MIN_STACK_SIZE`.
    pub min_stack_size: Option<u32>,
    /// `EIATTR_MAX_STACK_SIZE`.
    pub max_stack_size: Option<u32>,
}

/// One decoded global record: which symbol it is about and what it sets.
pub(crate) struct FunctionFact {
    pub symbol: u32,
    pub value: u32,
    /// Offset of the record within `.nv.info`.
    pub offset: usize,
    pub name: &'static str,
    pub apply: fn(&mut FunctionResources, u32),
}

/// Decodes the per-symbol records of the global `.nv.info`. Other records stay in the raw list.
pub(crate) fn decode_global_info(
    section: &str,
    attributes: &[Attribute<'_>],
) -> Result<Vec<FunctionFact>, CubinError> {
    let ctx = Ctx { section };
    let mut facts = Vec::new();
    for a in attributes {
        let (name, apply): (&'static str, fn(&mut FunctionResources, u32)) = match a.id {
            id::REGCOUNT => ("EIATTR_REGCOUNT", |r, v| r.registers = Some(v)),
            id::FRAME_SIZE => ("EIATTR_FRAME_SIZE", |r, v| r.frame_size = Some(v)),
            id::MIN_STACK_SIZE => ("EIATTR_MIN_STACK_SIZE", |r, v| r.min_stack_size = Some(v)),
            id::MAX_STACK_SIZE => ("EIATTR_MAX_STACK_SIZE", |r, v| r.max_stack_size = Some(v)),
            _ => continue,
        };
        let words = ctx.words(a, name)?;
        let [symbol, value] = words.as_slice() else {
            return Err(ctx.bad(a, name, "8"));
        };
        facts.push(FunctionFact {
            symbol: *symbol,
            value: *value,
            offset: a.offset,
            name,
            apply,
        });
    }
    Ok(facts)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Bit layout of the third KPARAM_INFO word as cuobjdump 13.5.37 prints it: setting each bit of a real
    /// record moved exactly one printed field (log alignment 0..=7, space 8..=11, cbank 12..=16, SMEM 17,
    /// size 18..=31).
    #[test]
    fn kparam_info_fields() {
        let mut payload = [0u8; 12];
        payload[4..6].copy_from_slice(&3u16.to_le_bytes());
        payload[6..8].copy_from_slice(&0x10u16.to_le_bytes());
        payload[8..12].copy_from_slice(&0x0021_f000u32.to_le_bytes());
        let p = Param::decode(&payload).expect("12 bytes");
        assert_eq!(
            (
                p.ordinal,
                p.offset,
                p.size,
                p.cbank,
                p.space,
                p.log_alignment
            ),
            (3, 0x10, 8, 0x1f, 0, 0)
        );
        assert!(!p.in_shared_memory);

        payload[8..12].copy_from_slice(&(0x0281_f000u32 | 1 << 17 | 0x0a05).to_le_bytes());
        let p = Param::decode(&payload).expect("12 bytes");
        assert_eq!(
            (p.size, p.cbank, p.space, p.log_alignment),
            (0xa0, 0x1f, 0xa, 0x05)
        );
        assert!(p.in_shared_memory);
        assert_eq!(Param::decode(&payload[..8]), None);
    }

    #[test]
    fn indirect_branch_lists() {
        let words: Vec<u8> = [0x130u32, 0, 2, 0x330, 0x170, 0x200, 0, 1, 0x230]
            .iter()
            .flat_map(|w| w.to_le_bytes())
            .collect();
        let record = Attribute {
            id: id::INDIRECT_BRANCH_TARGETS,
            format: AttributeFormat::Sized,
            offset: 0,
            payload: &words,
        };
        let info = decode_kernel_info("s", vec![record]).expect("well formed");
        let branches: Vec<(u32, Vec<u32>)> = info
            .indirect_branches
            .iter()
            .map(|b| (b.offset, b.targets.clone()))
            .collect();
        assert_eq!(
            branches,
            vec![(0x130, vec![0x330, 0x170]), (0x200, vec![0x230])]
        );
        assert_eq!(info.undecoded().count(), 0);

        // A count larger than what follows is refused.
        let short: Vec<u8> = [0x130u32, 0, 5, 0x330]
            .iter()
            .flat_map(|w| w.to_le_bytes())
            .collect();
        let record = Attribute {
            id: id::INDIRECT_BRANCH_TARGETS,
            format: AttributeFormat::Sized,
            offset: 8,
            payload: &short,
        };
        assert!(matches!(
            decode_kernel_info("s", vec![record]),
            Err(CubinError::AttributePayload { offset: 8, .. })
        ));
    }
}

//! EIATTR records: the raw layer of `.nv.info` sections.
//!
//! A record is a format byte, an attribute byte, then by format: nothing (`EIFMT_NVAL`, two padding bytes),
//! one byte plus one padding byte (`EIFMT_BVAL`), a little-endian u16 (`EIFMT_HVAL`), or a u16 size followed by
//! that many payload bytes (`EIFMT_SVAL`). Every record is at least four bytes. Layout and names checked
//! against `cuobjdump -elf` (13.5.37) on nvcc sm_86 cubins.

use super::CubinError;

/// How an EIATTR record stores its value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AttributeFormat {
    /// `EIFMT_NVAL` (1): a flag without a value.
    None,
    /// `EIFMT_BVAL` (2): one byte.
    Byte,
    /// `EIFMT_HVAL` (3): a u16.
    Half,
    /// `EIFMT_SVAL` (4): a sized payload.
    Sized,
}

impl AttributeFormat {
    fn from_byte(byte: u8) -> Option<Self> {
        match byte {
            1 => Some(Self::None),
            2 => Some(Self::Byte),
            3 => Some(Self::Half),
            4 => Some(Self::Sized),
            _ => None,
        }
    }

    /// The name cuobjdump prints.
    pub fn name(self) -> &'static str {
        match self {
            Self::None => "EIFMT_NVAL",
            Self::Byte => "EIFMT_BVAL",
            Self::Half => "EIFMT_HVAL",
            Self::Sized => "EIFMT_SVAL",
        }
    }
}

/// One EIATTR record as stored: id, format and payload bytes (for `Byte`/`Half` the value bytes; for `None`
/// empty).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Attribute<'data> {
    /// The attribute id (`EIATTR_*`).
    pub id: u8,
    pub format: AttributeFormat,
    /// Byte offset of the record within its `.nv.info*` section.
    pub offset: usize,
    pub payload: &'data [u8],
}

impl Attribute<'_> {
    /// The `EIATTR_*` name cuobjdump prints for this id, if it knows one.
    pub fn name(&self) -> Option<&'static str> {
        attribute_name(self.id)
    }

    /// The value of a `Half` record, or of a `Byte` record widened.
    pub fn small_value(&self) -> Option<u16> {
        match (self.format, self.payload) {
            (AttributeFormat::Byte, [b]) => Some(u16::from(*b)),
            (AttributeFormat::Half, [lo, hi]) => Some(u16::from_le_bytes([*lo, *hi])),
            _ => None,
        }
    }
}

/// Splits a `.nv.info*` section into records. Stops cleanly at the end; a record that overruns, or a format
/// byte this reader does not know (so the record's length is unknown), is an error.
pub fn parse_records<'data>(
    section: &str,
    bytes: &'data [u8],
) -> Result<Vec<Attribute<'data>>, CubinError> {
    let mut records = Vec::new();
    let mut pos = 0usize;
    while pos < bytes.len() {
        let available = bytes.len() - pos;
        let Some(header) = bytes.get(pos..pos + 4) else {
            return Err(CubinError::AttributeOverrun {
                section: section.to_owned(),
                offset: pos,
                needed: 4,
                available,
            });
        };
        let (format_byte, id) = (header[0], header[1]);
        let Some(format) = AttributeFormat::from_byte(format_byte) else {
            return Err(CubinError::UnknownAttributeFormat {
                section: section.to_owned(),
                offset: pos,
                attribute: id,
                format: format_byte,
            });
        };
        let (payload, next) = match format {
            AttributeFormat::None => (&bytes[pos + 2..pos + 2], pos + 4),
            AttributeFormat::Byte => (&bytes[pos + 2..pos + 3], pos + 4),
            AttributeFormat::Half => (&bytes[pos + 2..pos + 4], pos + 4),
            AttributeFormat::Sized => {
                let size = usize::from(u16::from_le_bytes([header[2], header[3]]));
                let end = pos + 4 + size;
                let Some(payload) = bytes.get(pos + 4..end) else {
                    return Err(CubinError::AttributeOverrun {
                        section: section.to_owned(),
                        offset: pos,
                        needed: 4 + size,
                        available,
                    });
                };
                (payload, end)
            }
        };
        records.push(Attribute {
            id,
            format,
            offset: pos,
            payload,
        });
        pos = next;
    }
    Ok(records)
}

/// Attribute ids this reader decodes into typed fields.
pub mod id {
    pub const CTAIDZ_USED: u8 = 0x04;
    pub const MAX_THREADS: u8 = 0x05;
    pub const PARAM_CBANK: u8 = 0x0a;
    pub const EXTERNS: u8 = 0x0f;
    pub const REQNTID: u8 = 0x10;
    pub const FRAME_SIZE: u8 = 0x11;
    pub const MIN_STACK_SIZE: u8 = 0x12;
    pub const KPARAM_INFO: u8 = 0x17;
    pub const CBANK_PARAM_SIZE: u8 = 0x19;
    pub const MAXREG_COUNT: u8 = 0x1b;
    pub const EXIT_INSTR_OFFSETS: u8 = 0x1c;
    pub const S2RCTAID_INSTR_OFFSETS: u8 = 0x1d;
    pub const CRS_STACK_SIZE: u8 = 0x1e;
    pub const MAX_STACK_SIZE: u8 = 0x23;
    pub const COOP_GROUP_INSTR_OFFSETS: u8 = 0x28;
    pub const COOP_GROUP_MASK_REGIDS: u8 = 0x29;
    pub const WMMA_USED: u8 = 0x2b;
    pub const REGCOUNT: u8 = 0x2f;
    pub const INT_WARP_WIDE_INSTR_OFFSETS: u8 = 0x31;
    pub const INDIRECT_BRANCH_TARGETS: u8 = 0x34;
    pub const CUDA_API_VERSION: u8 = 0x37;
    pub const NUM_MBARRIERS: u8 = 0x38;
    pub const SYSCALL_OFFSETS: u8 = 0x46;
    pub const NUM_BARRIERS: u8 = 0x4c;
    pub const LANGUAGE: u8 = 0x66;
}

/// The `EIATTR_*` names, as printed by the pinned `cuobjdump -elf` (13.5.37) for each id (found by writing
/// each id into a real cubin's record and reading cuobjdump's output). Ids it calls "unknown Attribute"
/// return `None`.
pub fn attribute_name(id: u8) -> Option<&'static str> {
    Some(match id {
        0x00 => "EIATTR_ERROR",
        0x01 => "EIATTR_PAD",
        0x02 => "EIATTR_IMAGE_SLOT",
        0x03 => "EIATTR_JUMPTABLE_RELOCS",
        0x04 => "EIATTR_CTAIDZ_USED",
        0x05 => "EIATTR_MAX_THREADS",
        0x06 => "EIATTR_IMAGE_OFFSET",
        0x07 => "EIATTR_IMAGE_SIZE",
        0x08 => "EIATTR_TEXTURE_NORMALIZED",
        0x09 => "EIATTR_SAMPLER_INIT",
        0x0a => "EIATTR_PARAM_CBANK",
        0x0b => "EIATTR_SMEM_PARAM_OFFSETS",
        0x0c => "EIATTR_CBANK_PARAM_OFFSETS",
        0x0d => "EIATTR_SYNC_STACK",
        0x0e => "EIATTR_TEXID_SAMPID_MAP",
        0x0f => "EIATTR_EXTERNS",
        0x10 => "EIATTR_REQNTID",
        0x11 => "EIATTR_FRAME_SIZE",
        0x12 => "EIATTR_MIN_STACK_SIZE",
        0x13 => "EIATTR_SAMPLER_FORCE_UNNORMALIZED",
        0x14 => "EIATTR_BINDLESS_IMAGE_OFFSETS",
        0x15 => "EIATTR_BINDLESS_TEXTURE_BANK",
        0x16 => "EIATTR_BINDLESS_SURFACE_BANK",
        0x17 => "EIATTR_KPARAM_INFO",
        0x18 => "EIATTR_SMEM_PARAM_SIZE",
        0x19 => "EIATTR_CBANK_PARAM_SIZE",
        0x1a => "EIATTR_QUERY_NUMATTRIB",
        0x1b => "EIATTR_MAXREG_COUNT",
        0x1c => "EIATTR_EXIT_INSTR_OFFSETS",
        0x1d => "EIATTR_S2RCTAID_INSTR_OFFSETS",
        0x1e => "EIATTR_CRS_STACK_SIZE",
        0x1f => "EIATTR_NEED_CNP_WRAPPER",
        0x20 => "EIATTR_NEED_CNP_PATCH",
        0x21 => "EIATTR_EXPLICIT_CACHING",
        0x22 => "EIATTR_ISTYPEP_USED",
        0x23 => "EIATTR_MAX_STACK_SIZE",
        0x24 => "EIATTR_SUQ_USED",
        0x25 => "EIATTR_LD_CACHEMOD_INSTR_OFFSETS",
        0x26 => "EIATTR_LOAD_CACHE_REQUEST",
        0x27 => "EIATTR_ATOM_SYS_INSTR_OFFSETS",
        0x28 => "EIATTR_COOP_GROUP_INSTR_OFFSETS",
        0x29 => "EIATTR_COOP_GROUP_MASK_REGIDS",
        0x2b => "EIATTR_WMMA_USED",
        0x2c => "EIATTR_HAS_PRE_V10_OBJECT",
        0x2d => "EIATTR_ATOMF16_EMUL_INSTR_OFFSETS",
        0x2e => "EIATTR_ATOM16_EMUL_INSTR_REG_MAP",
        0x2f => "EIATTR_REGCOUNT",
        0x31 => "EIATTR_INT_WARP_WIDE_INSTR_OFFSETS",
        0x32 => "EIATTR_SHARED_SCRATCH",
        0x33 => "EIATTR_STATISTICS",
        0x34 => "EIATTR_INDIRECT_BRANCH_TARGETS",
        0x36 => "EIATTR_SW_WAR",
        0x37 => "EIATTR_CUDA_API_VERSION",
        0x38 => "EIATTR_NUM_MBARRIERS",
        0x39 => "EIATTR_MBARRIER_INSTR_OFFSETS",
        0x3a => "EIATTR_COROUTINE_RESUME_ID_OFFSETS",
        0x3b => "EIATTR_SAM_REGION_STACK_SIZE",
        0x3c => "EIATTR_PER_REG_TARGET_PERF_STATS",
        0x3d => "EIATTR_CTA_PER_CLUSTER",
        0x3e => "EIATTR_EXPLICIT_CLUSTER",
        0x3f => "EIATTR_MAX_CLUSTER_RANK",
        0x40 => "EIATTR_INSTR_REG_MAP",
        0x41 => "EIATTR_RESERVED_SMEM_USED",
        0x42 => "EIATTR_RESERVED_SMEM_0_SIZE",
        0x43 => "EIATTR_UCODE_SECTION_DATA",
        0x44 => "EIATTR_UNUSED_LOAD_BYTE_OFFSET",
        0x45 => "EIATTR_KPARAM_INFO_V2",
        0x46 => "EIATTR_SYSCALL_OFFSETS",
        0x48 => "EIATTR_GRAPHICS_GLOBAL_CBANK",
        0x49 => "EIATTR_SHADER_TYPE",
        0x4a => "EIATTR_VRC_CTA_INIT_COUNT",
        0x4b => "EIATTR_TOOLS_PATCH_FUNC",
        0x4c => "EIATTR_NUM_BARRIERS",
        0x4d => "EIATTR_TEXMODE_INDEPENDENT",
        0x4e => "EIATTR_PERF_STATISTICS",
        0x4f => "EIATTR_AT_ENTRY_FRAGMENTS",
        0x50 => "EIATTR_SPARSE_MMA_MASK",
        0x51 => "EIATTR_TCGEN05_1CTA_USED",
        0x52 => "EIATTR_TCGEN05_2CTA_USED",
        0x53 => "EIATTR_GEN_ERRBAR_AT_EXIT",
        0x54 => "EIATTR_REG_RECONFIG",
        0x55 => "EIATTR_ANNOTATIONS",
        0x57 => "EIATTR_STACK_CANARY_TRAP_OFFSETS",
        0x58 => "EIATTR_STUB_FUNCTION_KIND",
        0x59 => "EIATTR_LOCAL_CTA_ASYNC_STORE_OFFSETS",
        0x5b => "EIATTR_BLOCKS_ARE_CLUSTERS",
        0x5c => "EIATTR_SANITIZE",
        0x5d => "EIATTR_SYSCALLS_FALLBACK",
        0x5e => "EIATTR_CUDA_REQ",
        0x61 => "EIATTR_RTCORE_ENTRY",
        0x62 => "EIATTR_CLUSTER_LAUNCH_CONTROL_USED",
        0x64 => "EIATTR_MIN_PER_CTA_MEMORY_SIZE",
        0x65 => "EIATTR_IGNOREOOB_CP_ASYNC_BULK_INSTR_OFFSETS",
        0x66 => "EIATTR_LANGUAGE",
        0x68 => "EIATTR_GRID_ATTRIBUTES",
        0x69 => "EIATTR_STACK_OFFSET",
        0x6a => "EIATTR_RT_LIVESTATE_SASS_MAP",
        0x6b => "EIATTR_NVSAL_SW_WAR",
        0x6c => "EIATTR_INSTR_OFFSETS",
        0x6d => "EIATTR_PREEXIT_USED",
        _ => return None,
    })
}

/// Reads little-endian u32 `index` of a payload (caller checked the length).
pub(crate) fn u32_at(payload: &[u8], index: usize) -> Option<u32> {
    let bytes = payload.get(index * 4..index * 4 + 4)?;
    Some(u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]))
}

/// Reads little-endian u16 at byte `offset` of a payload.
pub(crate) fn u16_at(payload: &[u8], offset: usize) -> Option<u16> {
    let bytes = payload.get(offset..offset + 2)?;
    Some(u16::from_le_bytes([bytes[0], bytes[1]]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_format_has_its_length() {
        // NVAL 0x04, BVAL 0x4c = 1, HVAL 0x1b = 0xff, SVAL 0x1c = [0x50]: as nvcc writes them.
        let bytes = [
            0x01, 0x04, 0, 0, 0x02, 0x4c, 0x01, 0, 0x03, 0x1b, 0xff, 0, 0x04, 0x1c, 4, 0, 0x50, 0,
            0, 0,
        ];
        let records = parse_records(".nv.info.k", &bytes).expect("well formed");
        let summary: Vec<(u8, AttributeFormat, usize, &[u8])> = records
            .iter()
            .map(|r| (r.id, r.format, r.offset, r.payload))
            .collect();
        assert_eq!(
            summary,
            vec![
                (0x04, AttributeFormat::None, 0, &[][..]),
                (0x4c, AttributeFormat::Byte, 4, &[1][..]),
                (0x1b, AttributeFormat::Half, 8, &[0xff, 0][..]),
                (0x1c, AttributeFormat::Sized, 12, &[0x50, 0, 0, 0][..]),
            ]
        );
        assert_eq!(records[1].small_value(), Some(1));
        assert_eq!(records[2].small_value(), Some(0xff));
        assert_eq!(records[3].name(), Some("EIATTR_EXIT_INSTR_OFFSETS"));
    }

    #[test]
    fn a_short_tail_is_an_overrun() {
        let err = parse_records("s", &[0x01, 0x04, 0, 0, 0x03, 0x1b]).expect_err("two bytes left");
        assert_eq!(
            err,
            CubinError::AttributeOverrun {
                section: "s".into(),
                offset: 4,
                needed: 4,
                available: 2
            }
        );
    }

    #[test]
    fn a_sized_payload_past_the_end_is_an_overrun() {
        let err = parse_records("s", &[0x04, 0x17, 12, 0, 1, 2, 3, 4]).expect_err("needs 16");
        assert_eq!(
            err,
            CubinError::AttributeOverrun {
                section: "s".into(),
                offset: 0,
                needed: 16,
                available: 8
            }
        );
    }

    #[test]
    fn an_unknown_format_is_refused() {
        let err = parse_records("s", &[0x05, 0x17, 0, 0]).expect_err("format 5");
        assert_eq!(
            err,
            CubinError::UnknownAttributeFormat {
                section: "s".into(),
                offset: 0,
                attribute: 0x17,
                format: 5
            }
        );
    }
}

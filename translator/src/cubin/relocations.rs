//! Relocations: `.rel.<target>` (offset, info) and `.rela.<target>` (offset, info, addend) entries, with
//! `info` = symbol index << 32 | `R_CUDA_*` type.

use super::symbols::Symbol;
use super::CubinError;

/// An `R_CUDA_*` relocation type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RelocationKind(pub u32);

impl RelocationKind {
    /// The name the pinned `cuobjdump -elf` (13.5.37) prints for this type (found by writing each type
    /// into a real cubin's relocation and reading cuobjdump's output); `None` where it prints `UNKNOWN`.
    pub fn name(self) -> Option<&'static str> {
        relocation_name(self.0)
    }
}

impl std::fmt::Display for RelocationKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.name() {
            Some(name) => f.write_str(name),
            None => write!(f, "R_CUDA_<{}>", self.0),
        }
    }
}

/// One relocation entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Relocation<'data> {
    /// Byte offset within the target section.
    pub offset: u64,
    pub kind: RelocationKind,
    /// Symbol table index of the symbol whose address is patched in.
    pub symbol: u32,
    pub symbol_name: &'data str,
    /// The explicit addend of a `.rela` entry; `None` for `.rel` entries (implicit addend in place).
    pub addend: Option<i64>,
}

/// A `.rel*`/`.rela*` section and the section it patches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RelocationSection<'data> {
    /// Index of this section in the section table.
    pub index: usize,
    pub name: &'data str,
    /// Index of the section the entries patch (`sh_info`).
    pub target: usize,
    pub target_name: &'data str,
    pub entries: Vec<Relocation<'data>>,
}

/// Decodes the entries of one relocation section. `target_size` bounds the offsets.
pub(crate) fn parse_entries<'data>(
    section: &str,
    bytes: &[u8],
    explicit_addend: bool,
    symbols: &[Symbol<'data>],
    target: &str,
    target_size: u64,
) -> Result<Vec<Relocation<'data>>, CubinError> {
    let entry_size = if explicit_addend { 24 } else { 16 };
    if bytes.len() % entry_size != 0 {
        return Err(CubinError::RelocationSection {
            section: section.to_owned(),
            reason: format!(
                "size {:#x} is not a multiple of the {entry_size}-byte entry",
                bytes.len()
            ),
        });
    }
    let mut entries = Vec::with_capacity(bytes.len() / entry_size);
    for (entry, raw) in bytes.chunks_exact(entry_size).enumerate() {
        let word = |i: usize| {
            let mut w = [0u8; 8];
            w.copy_from_slice(&raw[i * 8..i * 8 + 8]);
            u64::from_le_bytes(w)
        };
        let offset = word(0);
        let info = word(1);
        let addend = explicit_addend.then(|| word(2) as i64);
        let symbol = (info >> 32) as u32;
        let kind = RelocationKind(info as u32);
        let Some(sym) = symbols.get(symbol as usize) else {
            return Err(CubinError::RelocationSymbol {
                section: section.to_owned(),
                entry,
                symbol,
                symbols: symbols.len(),
            });
        };
        if offset >= target_size {
            return Err(CubinError::RelocationOutOfRange {
                section: section.to_owned(),
                entry,
                offset,
                target: target.to_owned(),
                target_size,
            });
        }
        entries.push(Relocation {
            offset,
            kind,
            symbol,
            symbol_name: sym.name,
            addend,
        });
    }
    Ok(entries)
}

fn relocation_name(kind: u32) -> Option<&'static str> {
    Some(match kind {
        1 => "R_CUDA_32",
        2 => "R_CUDA_64",
        3 => "R_CUDA_G32",
        4 => "R_CUDA_G64",
        5 => "R_CUDA_ABS32_26",
        6 => "R_CUDA_TEX_HEADER_INDEX",
        7 => "R_CUDA_SAMP_HEADER_INDEX",
        8 => "R_CUDA_SURF_HW_DESC",
        9 => "R_CUDA_SURF_HW_SW_DESC",
        10 => "R_CUDA_ABS32_LO_26",
        11 => "R_CUDA_ABS32_HI_26",
        12 => "R_CUDA_ABS32_23",
        13 => "R_CUDA_ABS32_LO_23",
        14 => "R_CUDA_ABS32_HI_23",
        15 => "R_CUDA_ABS24_26",
        16 => "R_CUDA_ABS24_23",
        17 => "R_CUDA_ABS16_26",
        18 => "R_CUDA_ABS16_23",
        19 => "R_CUDA_TEX_SLOT",
        20 => "R_CUDA_SAMP_SLOT",
        21 => "R_CUDA_SURF_SLOT",
        22 => "R_CUDA_TEX_BINDLESSOFF13_32",
        23 => "R_CUDA_TEX_BINDLESSOFF13_47",
        24 => "R_CUDA_CONST_FIELD19_28",
        25 => "R_CUDA_CONST_FIELD19_23",
        26 => "R_CUDA_TEX_SLOT9_49",
        27 => "R_CUDA_6_31",
        28 => "R_CUDA_2_47",
        29 => "R_CUDA_TEX_BINDLESSOFF13_41",
        30 => "R_CUDA_TEX_BINDLESSOFF13_45",
        31 => "R_CUDA_FUNC_DESC32_23",
        32 => "R_CUDA_FUNC_DESC32_LO_23",
        33 => "R_CUDA_FUNC_DESC32_HI_23",
        34 => "R_CUDA_FUNC_DESC_32",
        35 => "R_CUDA_FUNC_DESC_64",
        36 => "R_CUDA_CONST_FIELD21_26",
        37 => "R_CUDA_QUERY_DESC21_37",
        38 => "R_CUDA_CONST_FIELD19_26",
        39 => "R_CUDA_CONST_FIELD21_23",
        40 => "R_CUDA_PCREL_IMM24_26",
        41 => "R_CUDA_PCREL_IMM24_23",
        42 => "R_CUDA_ABS32_20",
        43 => "R_CUDA_ABS32_LO_20",
        44 => "R_CUDA_ABS32_HI_20",
        45 => "R_CUDA_ABS24_20",
        46 => "R_CUDA_ABS16_20",
        47 => "R_CUDA_FUNC_DESC32_20",
        48 => "R_CUDA_FUNC_DESC32_LO_20",
        49 => "R_CUDA_FUNC_DESC32_HI_20",
        50 => "R_CUDA_CONST_FIELD19_20",
        51 => "R_CUDA_BINDLESSOFF13_36",
        52 => "R_CUDA_SURF_HEADER_INDEX",
        53 => "R_CUDA_INSTRUCTION64",
        54 => "R_CUDA_CONST_FIELD21_20",
        55 => "R_CUDA_ABS32_32",
        56 => "R_CUDA_ABS32_LO_32",
        57 => "R_CUDA_ABS32_HI_32",
        58 => "R_CUDA_ABS47_34",
        59 => "R_CUDA_ABS16_32",
        60 => "R_CUDA_ABS24_32",
        61 => "R_CUDA_FUNC_DESC32_32",
        62 => "R_CUDA_FUNC_DESC32_LO_32",
        63 => "R_CUDA_FUNC_DESC32_HI_32",
        64 => "R_CUDA_CONST_FIELD19_40",
        65 => "R_CUDA_BINDLESSOFF14_40",
        66 => "R_CUDA_CONST_FIELD21_38",
        67 => "R_CUDA_INSTRUCTION128",
        68 => "R_CUDA_YIELD_OPCODE9_0",
        69 => "R_CUDA_YIELD_CLEAR_PRED4_87",
        70 => "R_CUDA_32_LO",
        71 => "R_CUDA_32_HI",
        72 => "R_CUDA_UNUSED_CLEAR32",
        73 => "R_CUDA_UNUSED_CLEAR64",
        74 => "R_CUDA_ABS24_40",
        75 => "R_CUDA_ABS55_16_34",
        76 => "R_CUDA_8_0",
        77 => "R_CUDA_8_8",
        78 => "R_CUDA_8_16",
        79 => "R_CUDA_8_24",
        80 => "R_CUDA_8_32",
        81 => "R_CUDA_8_40",
        82 => "R_CUDA_8_48",
        83 => "R_CUDA_8_56",
        84 => "R_CUDA_G8_0",
        85 => "R_CUDA_G8_8",
        86 => "R_CUDA_G8_16",
        87 => "R_CUDA_G8_24",
        88 => "R_CUDA_G8_32",
        89 => "R_CUDA_G8_40",
        90 => "R_CUDA_G8_48",
        91 => "R_CUDA_G8_56",
        92 => "R_CUDA_FUNC_DESC_8_0",
        93 => "R_CUDA_FUNC_DESC_8_8",
        94 => "R_CUDA_FUNC_DESC_8_16",
        95 => "R_CUDA_FUNC_DESC_8_24",
        96 => "R_CUDA_FUNC_DESC_8_32",
        97 => "R_CUDA_FUNC_DESC_8_40",
        98 => "R_CUDA_FUNC_DESC_8_48",
        99 => "R_CUDA_FUNC_DESC_8_56",
        100 => "R_CUDA_ABS20_44",
        101 => "R_CUDA_SAMP_HEADER_INDEX_0",
        102 => "R_CUDA_UNIFIED",
        103 => "R_CUDA_UNIFIED_32",
        104 => "R_CUDA_UNIFIED_8_0",
        105 => "R_CUDA_UNIFIED_8_8",
        106 => "R_CUDA_UNIFIED_8_16",
        107 => "R_CUDA_UNIFIED_8_24",
        108 => "R_CUDA_UNIFIED_8_32",
        109 => "R_CUDA_UNIFIED_8_40",
        110 => "R_CUDA_UNIFIED_8_48",
        111 => "R_CUDA_UNIFIED_8_56",
        112 => "R_CUDA_UNIFIED32_LO_32",
        113 => "R_CUDA_UNIFIED32_HI_32",
        114 => "R_CUDA_ABS56_16_34",
        115 => "R_CUDA_CONST_FIELD22_37",
        _ => return None,
    })
}

//! The section table, constant banks and variables.

use object::elf;
use object::read::elf::{SectionHeader, SectionTable};
use object::LittleEndian;

use super::relocations::{self, RelocationSection};
use super::symbols::{Symbol, SymbolKind};
use super::{symbol_range, CubinError};

/// One section header with its name and (bounds-checked) bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Section<'data> {
    pub index: usize,
    pub name: &'data str,
    /// `sh_type` (`SHT_PROGBITS`, `SHT_NOBITS`, 0x70000000 for `.nv.info*`, ...).
    pub kind: u32,
    pub flags: u64,
    /// File offset of the bytes.
    pub offset: u64,
    /// Size in memory; for `SHT_NOBITS` sections there are no bytes in the file.
    pub size: u64,
    pub link: u32,
    pub info: u32,
    pub align: u64,
    pub entry_size: u64,
    /// The bytes in the file (empty for `SHT_NOBITS`).
    pub data: &'data [u8],
}

pub(crate) fn read_sections<'data>(
    table: &SectionTable<'data, elf::FileHeader64<LittleEndian>>,
    data: &'data [u8],
) -> Result<Vec<Section<'data>>, CubinError> {
    let mut sections = Vec::with_capacity(table.len());
    for (index, header) in table.iter().enumerate() {
        let sh_name = header.sh_name(LittleEndian);
        let name = table
            .section_name(LittleEndian, header)
            .map_err(|e| CubinError::SectionName {
                index,
                sh_name,
                reason: e.to_string(),
            })
            .and_then(|bytes| {
                std::str::from_utf8(bytes).map_err(|_| CubinError::SectionName {
                    index,
                    sh_name,
                    reason: "name is not UTF-8".to_owned(),
                })
            })?;
        let kind = header.sh_type(LittleEndian);
        let offset = header.sh_offset(LittleEndian);
        let size = header.sh_size(LittleEndian);
        let bytes = if !occupies_file(kind) {
            &[][..]
        } else {
            let out_of_file = || CubinError::SectionOutOfFile {
                section: display_name(index, name),
                offset,
                size,
                file_len: data.len(),
            };
            let start = usize::try_from(offset).map_err(|_| out_of_file())?;
            let len = usize::try_from(size).map_err(|_| out_of_file())?;
            let end = start.checked_add(len).ok_or_else(out_of_file)?;
            data.get(start..end).ok_or_else(out_of_file)?
        };
        sections.push(Section {
            index,
            name,
            kind,
            flags: header.sh_flags(LittleEndian),
            offset,
            size,
            link: header.sh_link(LittleEndian),
            info: header.sh_info(LittleEndian),
            align: header.sh_addralign(LittleEndian),
            entry_size: header.sh_entsize(LittleEndian),
            data: bytes,
        });
    }
    Ok(sections)
}

fn display_name(index: usize, name: &str) -> String {
    if name.is_empty() {
        format!("#{index}")
    } else {
        name.to_owned()
    }
}

pub(crate) fn read_relocation_sections<'data>(
    sections: &[Section<'data>],
    symbols: &[Symbol<'data>],
) -> Result<Vec<RelocationSection<'data>>, CubinError> {
    let mut out = Vec::new();
    for section in sections
        .iter()
        .filter(|s| s.kind == elf::SHT_REL || s.kind == elf::SHT_RELA)
    {
        let target_index = section.info as usize;
        let Some(target) = sections.get(target_index) else {
            return Err(CubinError::RelocationSection {
                section: display_name(section.index, section.name),
                reason: format!("target section {target_index} (sh_info) does not exist"),
            });
        };
        let entries = relocations::parse_entries(
            section.name,
            section.data,
            section.kind == elf::SHT_RELA,
            symbols,
            target.name,
            target.size,
        )?;
        out.push(RelocationSection {
            index: section.index,
            name: section.name,
            target: target_index,
            target_name: target.name,
            entries,
        });
    }
    Ok(out)
}

/// A constant bank image: `.nv.constant<N>` (module-wide) or `.nv.constant<N>.<function>`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConstantBank<'data> {
    /// The bank number `N` (`c[N][...]`).
    pub bank: u32,
    /// The function the bank belongs to, for per-function banks.
    pub function: Option<&'data str>,
    /// Index in the section table.
    pub section: usize,
    pub name: &'data str,
    pub size: u64,
    pub data: &'data [u8],
}

pub(crate) fn constant_banks<'data>(sections: &[Section<'data>]) -> Vec<ConstantBank<'data>> {
    let mut banks = Vec::new();
    for section in sections {
        let Some(rest) = section.name.strip_prefix(".nv.constant") else {
            continue;
        };
        let (number, function) = match rest.split_once('.') {
            Some((number, function)) => (number, Some(function)),
            None => (rest, None),
        };
        // Names that do not follow the pattern are not banks; they stay in the plain section list.
        let Ok(bank) = number.parse::<u32>() else {
            continue;
        };
        if !number.bytes().all(|b| b.is_ascii_digit()) {
            continue;
        }
        banks.push(ConstantBank {
            bank,
            function,
            section: section.index,
            name: section.name,
            size: section.size,
            data: section.data,
        });
    }
    banks
}

/// A data object: `__device__`/`__constant__` variables, string literals, jump tables.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Variable<'data> {
    pub name: &'data str,
    pub symbol: usize,
    /// Index of the section holding it (`.nv.global`, `.nv.global.init`, `.nv.constant3`, ...).
    pub section: usize,
    pub section_name: &'data str,
    /// Offset within the section.
    pub offset: u64,
    pub size: u64,
    /// Initial bytes, if the section has contents in the file (absent for `SHT_NOBITS` such as `.nv.global`,
    /// which start zeroed).
    pub initial: Option<&'data [u8]>,
}

pub(crate) fn variables<'data>(
    sections: &[Section<'data>],
    symbols: &[Symbol<'data>],
) -> Result<Vec<Variable<'data>>, CubinError> {
    let mut out = Vec::new();
    for symbol in symbols
        .iter()
        .filter(|s| matches!(s.kind, SymbolKind::Object | SymbolKind::CudaObject))
    {
        let Some(section) = symbol.section.and_then(|i| sections.get(i)) else {
            continue;
        };
        let bytes = symbol_range(symbol, section)?;
        out.push(Variable {
            name: symbol.name,
            symbol: symbol.index,
            section: section.index,
            section_name: section.name,
            offset: symbol.value,
            size: symbol.size,
            initial: occupies_file(section.kind).then_some(bytes),
        });
    }
    Ok(out)
}

/// The type relocatable (`-rdc`) cubins give `.nv.shared.<kernel>`: like `SHT_NOBITS`, a size without bytes
/// in the file (its offset is the next section's; nvcc's executable cubins use `SHT_NOBITS` instead).
pub const SHT_CUDA_SHARED: u32 = 0x7000_000a;

/// The type relocatable cubins give `.nv.global` (zero-initialised `__device__` variables): like `SHT_NOBITS`,
/// no bytes in the file; its offset and size may even reach past the end (nvcc's executable cubins use
/// `SHT_NOBITS`). Initialised ones, `.nv.global.init`, are 0x7000_0008 and have their bytes.
pub const SHT_CUDA_GLOBAL: u32 = 0x7000_0007;

/// Whether a section of this `sh_type` has bytes in the file.
pub(crate) fn occupies_file(kind: u32) -> bool {
    !matches!(kind, elf::SHT_NOBITS | elf::SHT_NULL | SHT_CUDA_SHARED | SHT_CUDA_GLOBAL)
}

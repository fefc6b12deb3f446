//! The symbol table, and the functions (kernels and device functions) it names.

use object::elf;
use object::read::elf::{SectionTable, Sym};
use object::LittleEndian;

use super::nv_info::FunctionResources;
use super::CubinError;

/// `st_other` bit marking a kernel entry point (cuobjdump prints it as `ENTRY`).
pub const STO_CUDA_ENTRY: u8 = 0x10;

/// What a symbol names (`st_type`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SymbolKind {
    NoType,
    Object,
    Function,
    Section,
    File,
    /// `STT_LOPROC` (13), printed `CUDA_OBJECT` by cuobjdump: data objects in `-rdc` cubins.
    CudaObject,
    Other(u8),
}

/// `st_type` of CUDA data objects.
pub const STT_CUDA_OBJECT: u8 = 13;

/// One symbol table entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Symbol<'data> {
    pub index: usize,
    pub name: &'data str,
    pub kind: SymbolKind,
    /// `st_bind`: 0 local, 1 global, 2 weak.
    pub binding: u8,
    /// `st_other`: visibility in bits 0..=1, CUDA flags above (see [`STO_CUDA_ENTRY`]).
    pub other: u8,
    /// The section the symbol is defined in; `None` for undefined, absolute or reserved indices.
    pub section: Option<usize>,
    /// Section-relative offset (`st_value`).
    pub value: u64,
    pub size: u64,
}

impl Symbol<'_> {
    /// A kernel entry point (`STO_CUDA_ENTRY`).
    pub fn is_entry(&self) -> bool {
        self.kind == SymbolKind::Function && self.other & STO_CUDA_ENTRY != 0
    }
}

pub(crate) fn read_symbols<'data>(
    sections: &SectionTable<'data, elf::FileHeader64<LittleEndian>>,
    data: &'data [u8],
) -> Result<Vec<Symbol<'data>>, CubinError> {
    let table = sections
        .symbols(LittleEndian, data, elf::SHT_SYMTAB)
        .map_err(|e| CubinError::SymbolTable {
            reason: e.to_string(),
        })?;
    let mut symbols = Vec::with_capacity(table.len());
    for (index, sym) in table.iter().enumerate() {
        let st_name = sym.st_name(LittleEndian);
        let name = table
            .symbol_name(LittleEndian, sym)
            .ok()
            .and_then(|bytes| std::str::from_utf8(bytes).ok())
            .ok_or(CubinError::SymbolName { index, st_name })?;
        let kind = match sym.st_type() {
            elf::STT_NOTYPE => SymbolKind::NoType,
            elf::STT_OBJECT => SymbolKind::Object,
            elf::STT_FUNC => SymbolKind::Function,
            elf::STT_SECTION => SymbolKind::Section,
            elf::STT_FILE => SymbolKind::File,
            STT_CUDA_OBJECT => SymbolKind::CudaObject,
            other => SymbolKind::Other(other),
        };
        let shndx = sym.st_shndx(LittleEndian);
        let section = if shndx == elf::SHN_UNDEF || shndx >= elf::SHN_LORESERVE {
            None
        } else {
            let section = usize::from(shndx);
            if section >= sections.len() {
                return Err(CubinError::SymbolSection {
                    index,
                    name: name.to_owned(),
                    section,
                    sections: sections.len(),
                });
            }
            Some(section)
        };
        symbols.push(Symbol {
            index,
            name,
            kind,
            binding: sym.st_bind(),
            other: sym.st_other(),
            section,
            value: sym.st_value(LittleEndian),
            size: sym.st_size(LittleEndian),
        });
    }
    Ok(symbols)
}

/// A kernel or device function: a function symbol and its code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Function<'data> {
    pub name: &'data str,
    /// Symbol table index.
    pub symbol: usize,
    /// Index of its code section in the section table.
    pub section: usize,
    pub section_name: &'data str,
    /// Section-relative offset of the first instruction.
    pub offset: u64,
    pub size: u64,
    /// Exactly the function's bytes (`section bytes[offset..offset + size]`).
    pub code: &'data [u8],
    /// Register count, frame size and stack sizes from the global `.nv.info`.
    pub resources: FunctionResources,
}

/// A symbol inside a code section, as a disassembler labels it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CodeSymbol<'data> {
    pub name: &'data str,
    pub symbol: usize,
    pub offset: u64,
    pub size: u64,
    /// A kernel entry point rather than a device function.
    pub is_kernel: bool,
}

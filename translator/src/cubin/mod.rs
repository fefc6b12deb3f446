//! Reading cubins: the ELF files `nvcc -cubin -arch=sm_86` writes.
//!
//! [`Cubin::parse`] refuses code for an SM whose encoding is not SM86's ([`SM86_COMPATIBLE`]);
//! [`Cubin::parse_any_architecture`] reads any cubin for description only. Both borrow the file's bytes and gives kernels and device functions with their code, every
//! code section with the symbols inside it, the `.nv.info` attributes decoded into typed fields, constant
//! banks, global variables and relocations. Malformed input is a [`CubinError`] naming what and where;
//! nothing here panics on input-derived data.

mod arch;
mod attributes;
mod consistency;
mod error;
mod functions;
mod link;
mod nv_info;
mod relocations;
mod sections;
mod symbols;

pub use arch::{is_sm86_compatible, sm_from_flags, CUDA_ABI_V1, CUDA_ABI_V2, SM86_COMPATIBLE};
pub use attributes::{attribute_name, Attribute, AttributeFormat};
pub use error::CubinError;
pub use link::{BankPiece, LinkedCode, LinkedSection, MergedBank, RefusedRelocation, MERGED_BANK};
pub use nv_info::{FunctionResources, IndirectBranch, KernelInfo, Param, ParamBank};
pub use relocations::{Relocation, RelocationKind, RelocationSection};
pub use sections::{ConstantBank, Section, Variable};
pub use symbols::{CodeSymbol, Function, Symbol, SymbolKind, STO_CUDA_ENTRY, STT_CUDA_OBJECT};

use object::elf;
use object::read::elf::FileHeader;
use object::LittleEndian;

const EI_CLASS: usize = 4;
const EI_DATA: usize = 5;
const EI_ABIVERSION: usize = 8;

/// `e_machine` of CUDA ELF files.
pub const EM_CUDA: u16 = 190;

/// A parsed cubin. Borrows the file's bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cubin<'data> {
    /// `e_type`: 2 (`ET_EXEC`) for whole-program cubins, 1 (`ET_REL`) for `-rdc` ones.
    pub elf_type: u16,
    /// `e_flags` as stored.
    pub flags: u32,
    /// The SM version the code is for (86 for sm_86), from `e_flags` as [`sm_from_flags`] reads it.
    pub sm: u32,
    /// Every section, in section-table order (index 0 is the null section).
    pub sections: Vec<Section<'data>>,
    /// Every symbol, in symbol-table order.
    pub symbols: Vec<Symbol<'data>>,
    /// Every `.text.*` section with the function symbols inside it.
    pub code_sections: Vec<CodeSection<'data>>,
    /// Kernel entry points, in symbol-table order.
    pub kernels: Vec<Kernel<'data>>,
    /// Defined non-entry functions, in symbol-table order.
    pub device_functions: Vec<Function<'data>>,
    /// `.nv.info.<function>` sections of device functions (`-rdc` cubins have them).
    pub device_function_info: Vec<FunctionInfo<'data>>,
    /// The records of the global `.nv.info` section (per-function ones are also decoded into
    /// [`Function::resources`]).
    pub global_attributes: Vec<Attribute<'data>>,
    /// `.nv.constant<N>` and `.nv.constant<N>.<function>` sections.
    pub constant_banks: Vec<ConstantBank<'data>>,
    /// Object symbols (`__device__` and `__constant__` variables, string literals, ...).
    pub variables: Vec<Variable<'data>>,
    /// Every `.rel*`/`.rela*` section.
    pub relocation_sections: Vec<RelocationSection<'data>>,
}

/// A `.text.<name>` section: the code a disassembler walks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CodeSection<'data> {
    /// Index in the section table.
    pub index: usize,
    pub name: &'data str,
    pub bytes: &'data [u8],
    /// Registers per thread, from `sh_info` bits 24..=31 (agrees with `EIATTR_REGCOUNT` in nvcc output).
    pub registers: u32,
    /// Function symbols inside the section, sorted by offset.
    pub symbols: Vec<CodeSymbol<'data>>,
    /// Relocations that patch this section (`.rel.<name>` and `.rela.<name>` entries).
    pub relocations: Vec<Relocation<'data>>,
}

/// The `.nv.info.<function>` section of a device function.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FunctionInfo<'data> {
    pub function: &'data str,
    /// Symbol table index of the function.
    pub symbol: usize,
    pub info: KernelInfo<'data>,
}

/// A kernel: its function, its launch interface and its resources.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Kernel<'data> {
    pub function: Function<'data>,
    /// From `.nv.info.<name>`; empty if the cubin has none for this kernel.
    pub info: KernelInfo<'data>,
    /// Static shared memory in bytes: the size of `.nv.shared.<name>` (0 if absent).
    pub shared_size: u64,
    /// Constant bank 0 image (`.nv.constant0.<name>`): driver words, then parameters at
    /// [`ParamBank::offset`].
    pub constant0: Option<&'data [u8]>,
    /// Registers per thread from the code section header (`sh_info` >> 24).
    pub code_registers: u32,
}

impl<'data> Kernel<'data> {
    pub fn name(&self) -> &'data str {
        self.function.name
    }

    /// Registers per thread: `EIATTR_REGCOUNT` if present, else the code section header's count.
    pub fn registers(&self) -> u32 {
        self.function
            .resources
            .registers
            .unwrap_or(self.code_registers)
    }

    /// Per-thread local memory (stack frame) in bytes.
    pub fn frame_size(&self) -> u32 {
        self.function.resources.frame_size.unwrap_or(0)
    }
}

impl<'data> Cubin<'data> {
    /// Parses a cubin whose code sassport can decode. Never panics; malformed input gives a [`CubinError`]
    /// naming what and where, and code for an SM outside [`SM86_COMPATIBLE`] is
    /// [`CubinError::UnsupportedArchitecture`] (before anything past the ELF header is read).
    pub fn parse(data: &'data [u8]) -> Result<Self, CubinError> {
        Self::parse_checked(data, true)
    }

    /// Parses a cubin for any SM, for describing it (`sassport info`). Its code may not be SM86's: decode
    /// nothing from it without [`Cubin::check_architecture`].
    pub fn parse_any_architecture(data: &'data [u8]) -> Result<Self, CubinError> {
        Self::parse_checked(data, false)
    }

    /// [`CubinError::UnsupportedArchitecture`] unless the code is SM86-encoded.
    pub fn check_architecture(&self) -> Result<(), CubinError> {
        if is_sm86_compatible(self.sm) {
            Ok(())
        } else {
            Err(CubinError::UnsupportedArchitecture { sm: self.sm })
        }
    }

    fn parse_checked(data: &'data [u8], sm86_only: bool) -> Result<Self, CubinError> {
        let is_elf = data.starts_with(&elf::ELFMAG);
        if is_elf
            && (data.get(EI_CLASS) == Some(&elf::ELFCLASS32)
                || data.get(EI_DATA) == Some(&elf::ELFDATA2MSB))
        {
            return Err(CubinError::UnsupportedLayout);
        }
        if is_elf {
            check_tables(data)?;
        }
        let header = elf::FileHeader64::<LittleEndian>::parse(data).map_err(CubinError::elf)?;
        let machine = header.e_machine(LittleEndian);
        if machine != EM_CUDA {
            return Err(CubinError::NotCuda { machine });
        }
        let flags = header.e_flags(LittleEndian);
        let abi_version = data.get(EI_ABIVERSION).copied().unwrap_or_default();
        let sm = sm_from_flags(abi_version, flags).ok_or(CubinError::UnknownAbiVersion { version: abi_version })?;
        if sm86_only && !is_sm86_compatible(sm) {
            return Err(CubinError::UnsupportedArchitecture { sm });
        }
        // Nothing here uses the program headers, but a table past the end of the file means a truncated file.
        header
            .program_headers(LittleEndian, data)
            .map_err(CubinError::elf)?;
        let table = header
            .sections(LittleEndian, data)
            .map_err(CubinError::elf)?;
        let sections = sections::read_sections(&table, data)?;
        let symbols = symbols::read_symbols(&table, data)?;

        // Per-function resources from the global `.nv.info`.
        let mut resources = vec![FunctionResources::default(); symbols.len()];
        let mut global_attributes = Vec::new();
        if let Some(info) = sections.iter().find(|s| s.name == ".nv.info") {
            global_attributes = attributes::parse_records(info.name, info.data)?;
            for fact in nv_info::decode_global_info(info.name, &global_attributes)? {
                let Some(slot) = resources.get_mut(fact.symbol as usize) else {
                    return Err(CubinError::AttributeSymbol {
                        section: info.name.to_owned(),
                        offset: fact.offset,
                        attribute: fact.name,
                        symbol: fact.symbol,
                        symbols: symbols.len(),
                    });
                };
                (fact.apply)(slot, fact.value);
            }
        }

        let relocation_sections = sections::read_relocation_sections(&sections, &symbols)?;

        let mut code_sections = Vec::new();
        for section in sections.iter().filter(|s| is_code(s)) {
            let relocations = relocation_sections
                .iter()
                .filter(|r| r.target == section.index)
                .flat_map(|r| r.entries.iter().copied())
                .collect();
            code_sections.push(CodeSection {
                index: section.index,
                name: section.name,
                bytes: section.data,
                registers: section.info >> 24,
                symbols: Vec::new(),
                relocations,
            });
        }

        let mut kernels = Vec::new();
        let mut device_functions = Vec::new();
        for symbol in symbols.iter().filter(|s| s.kind == SymbolKind::Function) {
            // Undefined functions (`vprintf` in `-rdc` cubins) are external, not ours to describe.
            let Some(section_index) = symbol.section else {
                continue;
            };
            let Some(section) = sections.get(section_index) else {
                continue;
            };
            if !is_code(section) {
                return Err(CubinError::FunctionNotInCode {
                    name: symbol.name.to_owned(),
                    section: section.name.to_owned(),
                });
            }
            let code = symbol_range(symbol, section)?;
            let function = Function {
                name: symbol.name,
                symbol: symbol.index,
                section: section_index,
                section_name: section.name,
                offset: symbol.value,
                size: symbol.size,
                code,
                resources: resources.get(symbol.index).copied().unwrap_or_default(),
            };
            if let Some(code_section) = code_sections.iter_mut().find(|c| c.index == section_index)
            {
                code_section.symbols.push(CodeSymbol {
                    name: symbol.name,
                    symbol: symbol.index,
                    offset: symbol.value,
                    size: symbol.size,
                    is_kernel: symbol.is_entry(),
                });
            }
            if symbol.is_entry() {
                kernels.push(Kernel {
                    function,
                    info: KernelInfo::default(),
                    shared_size: 0,
                    constant0: None,
                    code_registers: section.info >> 24,
                });
            } else {
                device_functions.push(function);
            }
        }
        for code_section in &mut code_sections {
            code_section
                .symbols
                .sort_by_key(|s| (s.offset, !s.is_kernel));
        }

        // Per-function `.nv.info.<function>`: `sh_info` is the index of the function's code section.
        let mut device_function_info = Vec::new();
        for section in sections.iter().filter(|s| s.name.starts_with(".nv.info.")) {
            let owner = section.info;
            let suffix = &section.name[".nv.info.".len()..];
            let owns = |f: &Function<'_>| f.section == owner as usize && f.name == suffix;
            let records = attributes::parse_records(section.name, section.data)?;
            if let Some(kernel) = kernels.iter_mut().find(|k| owns(&k.function)) {
                kernel.info = nv_info::decode_kernel_info(section.name, records)?;
            } else if let Some(function) = device_functions.iter().find(|f| owns(f)) {
                let info = nv_info::decode_kernel_info(section.name, records)?;
                device_function_info.push(FunctionInfo {
                    function: function.name,
                    symbol: function.symbol,
                    info,
                });
            } else {
                return Err(CubinError::InfoOwner {
                    section: section.name.to_owned(),
                    code_section: owner,
                });
            }
        }

        let constant_banks = sections::constant_banks(&sections);
        for kernel in &mut kernels {
            let name = kernel.function.name;
            kernel.shared_size = sections
                .iter()
                .find(|s| s.name.strip_prefix(".nv.shared.") == Some(name))
                .map_or(0, |s| s.size);
            kernel.constant0 = constant_banks
                .iter()
                .find(|b| b.bank == 0 && b.function == Some(name))
                .map(|b| b.data);
        }

        check_consistency(&sections, &symbols, &kernels, &device_functions, &device_function_info)?;
        let variables = sections::variables(&sections, &symbols)?;

        Ok(Cubin {
            elf_type: header.e_type(LittleEndian),
            flags,
            sm,
            sections,
            symbols,
            code_sections,
            kernels,
            device_functions,
            device_function_info,
            global_attributes,
            constant_banks,
            variables,
            relocation_sections,
        })
    }

    /// The kernel with this name.
    pub fn kernel(&self, name: &str) -> Option<&Kernel<'data>> {
        self.kernels.iter().find(|k| k.function.name == name)
    }

    /// The section with this name (`.nv.global.init`, `.nv.callgraph`, ...).
    pub fn section(&self, name: &str) -> Option<&Section<'data>> {
        self.sections.iter().find(|s| s.name == name)
    }

    /// The code section with this name (`.text.<function>`).
    pub fn code_section(&self, name: &str) -> Option<&CodeSection<'data>> {
        self.code_sections.iter().find(|c| c.name == name)
    }
}

/// Every `.nv.info.<function>` against the code, constant banks and symbols it describes.
fn check_consistency(
    sections: &[Section<'_>],
    symbols: &[Symbol<'_>],
    kernels: &[Kernel<'_>],
    device_functions: &[Function<'_>],
    device_function_info: &[FunctionInfo<'_>],
) -> Result<(), CubinError> {
    // The section a function's records describe, and where its code lies (`symbol_range` checked it).
    let place = |function: &Function<'_>| Some((format!(".nv.info.{}", function.name), sections.get(function.section)?));
    for kernel in kernels {
        let Some((info_section, code)) = place(&kernel.function) else { continue };
        let ctx = consistency::Context { section: &info_section, function: kernel.function.name, code, sections, symbols };
        consistency::check_kernel(&ctx, kernel)?;
    }
    for info in device_function_info {
        let Some(function) = device_functions.iter().find(|f| f.symbol == info.symbol) else { continue };
        let Some((info_section, code)) = place(function) else { continue };
        let ctx = consistency::Context { section: &info_section, function: function.name, code, sections, symbols };
        ctx.check_records(&info.info)?;
    }
    Ok(())
}

/// Bounds-checks the program and section header tables named by the ELF header, so that a truncated file
/// is reported with offsets rather than as a bare "malformed" from `object`.
fn check_tables(data: &[u8]) -> Result<(), CubinError> {
    let field = |at: usize, len: usize| -> Result<u64, CubinError> {
        let bytes = data
            .get(at..at + len)
            .ok_or(CubinError::TooShort { len: data.len() })?;
        Ok(bytes
            .iter()
            .rev()
            .fold(0u64, |acc, b| acc << 8 | u64::from(*b)))
    };
    if data.len() < 64 {
        return Err(CubinError::TooShort { len: data.len() });
    }
    let tables = [
        (
            "program header table",
            field(0x20, 8)?,
            field(0x36, 2)?,
            field(0x38, 2)?,
        ),
        (
            "section header table",
            field(0x28, 8)?,
            field(0x3a, 2)?,
            field(0x3c, 2)?,
        ),
    ];
    for (table, offset, entry_size, count) in tables {
        if count == 0 {
            continue; // absent, or (sections) extended numbering that `object` reads from section 0
        }
        let size = entry_size * count; // both u16, cannot overflow u64
        let fits = offset
            .checked_add(size)
            .is_some_and(|end| end <= data.len() as u64);
        if !fits {
            return Err(CubinError::TableOutOfFile {
                table,
                offset,
                size,
                file_len: data.len(),
            });
        }
    }
    Ok(())
}

fn is_code(section: &Section<'_>) -> bool {
    section.kind == elf::SHT_PROGBITS && section.name.starts_with(".text.")
}

/// The bytes `symbol` covers inside `section`, bounds-checked.
pub(crate) fn symbol_range<'data>(
    symbol: &Symbol<'data>,
    section: &Section<'data>,
) -> Result<&'data [u8], CubinError> {
    // In `-rdc` cubins a shared-memory symbol's value is its alignment, not an offset (the linker places
    // it), and the section has no bytes: there is nothing to bound.
    if section.kind == sections::SHT_CUDA_SHARED {
        return Ok(&[]);
    }
    let out_of_section = || CubinError::SymbolOutOfSection {
        name: symbol.name.to_owned(),
        section: section.name.to_owned(),
        offset: symbol.value,
        size: symbol.size,
        section_size: section.size,
    };
    let end = symbol
        .value
        .checked_add(symbol.size)
        .ok_or_else(out_of_section)?;
    if end > section.size {
        return Err(out_of_section());
    }
    if !sections::occupies_file(section.kind) {
        return Ok(&[]);
    }
    let start = usize::try_from(symbol.value).map_err(|_| out_of_section())?;
    let end = usize::try_from(end).map_err(|_| out_of_section())?;
    section.data.get(start..end).ok_or_else(out_of_section)
}

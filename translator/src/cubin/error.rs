//! Why a cubin was refused. Every variant names what was wrong and where (section, byte offset).

use thiserror::Error;

/// A cubin that cannot be read. Offsets are file offsets unless the variant says "within".
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum CubinError {
    /// The ELF header or section table could not be read (the `object` crate's reason).
    #[error("malformed ELF header or section table: {reason}")]
    Elf { reason: String },

    /// The file is shorter than the 64-byte ELF64 header.
    #[error("file of {len} bytes is shorter than the 64-byte ELF header")]
    TooShort { len: usize },

    /// The program or section header table lies (partly) outside the file.
    #[error("{table}: bytes {offset:#x}..+{size:#x} lie outside the file of {file_len:#x} bytes")]
    TableOutOfFile {
        table: &'static str,
        offset: u64,
        size: u64,
        file_len: usize,
    },

    /// The ELF file is not for the CUDA machine (EM_CUDA = 190).
    #[error("not a CUDA ELF file: e_machine is {machine}, expected 190 (EM_CUDA)")]
    NotCuda { machine: u16 },

    /// A cubin must be a 64-bit little-endian ELF.
    #[error("unsupported ELF class or byte order: cubins are 64-bit little-endian")]
    UnsupportedLayout,

    /// A section's name could not be read from the section-name string table.
    #[error("section {index}: unreadable name (sh_name {sh_name:#x}): {reason}")]
    SectionName {
        index: usize,
        sh_name: u32,
        reason: String,
    },

    /// A section's bytes lie (partly) outside the file.
    #[error("section {section}: bytes {offset:#x}..+{size:#x} lie outside the file of {file_len:#x} bytes")]
    SectionOutOfFile {
        section: String,
        offset: u64,
        size: u64,
        file_len: usize,
    },

    /// The symbol table (or its string table) is malformed.
    #[error("symbol table: {reason}")]
    SymbolTable { reason: String },

    /// A symbol's name could not be read.
    #[error("symbol {index}: unreadable name (st_name {st_name:#x})")]
    SymbolName { index: usize, st_name: u32 },

    /// A symbol refers to a section index that does not exist.
    #[error("symbol {index} ({name}): section index {section} out of range (the file has {sections} sections)")]
    SymbolSection {
        index: usize,
        name: String,
        section: usize,
        sections: usize,
    },

    /// A function or variable symbol's range lies outside its section.
    #[error("symbol {name}: range {offset:#x}..+{size:#x} lies outside section {section} of {section_size:#x} bytes")]
    SymbolOutOfSection {
        name: String,
        section: String,
        offset: u64,
        size: u64,
        section_size: u64,
    },

    /// A function symbol does not live in a code section.
    #[error("function {name}: its section {section} is not a code section (`.text.*`)")]
    FunctionNotInCode { name: String, section: String },

    /// An EIATTR record uses a format byte this reader does not know, so its length is unknown.
    #[error("section {section}, offset {offset:#x} within: EIATTR {attribute} has unknown format byte {format:#04x}")]
    UnknownAttributeFormat {
        section: String,
        offset: usize,
        attribute: u8,
        format: u8,
    },

    /// An EIATTR record runs past the end of its section.
    #[error("section {section}, offset {offset:#x} within: EIATTR record needs {needed} bytes but only {available} remain")]
    AttributeOverrun {
        section: String,
        offset: usize,
        needed: usize,
        available: usize,
    },

    /// A known EIATTR record has a payload of the wrong shape.
    #[error("section {section}, offset {offset:#x} within: {attribute} has a {found}-byte payload, expected {expected}")]
    AttributePayload {
        section: String,
        offset: usize,
        attribute: &'static str,
        expected: &'static str,
        found: usize,
    },

    /// An EIATTR record refers to a symbol index that does not exist.
    #[error("section {section}, offset {offset:#x} within: {attribute} names symbol {symbol}, but the symbol table has {symbols}")]
    AttributeSymbol {
        section: String,
        offset: usize,
        attribute: &'static str,
        symbol: u32,
        symbols: usize,
    },

    /// A `.nv.info.<function>` section whose `sh_info` does not name a code section holding that function.
    #[error("section {section}: sh_info {code_section} is not the code section of a function named by the section")]
    InfoOwner { section: String, code_section: u32 },

    /// A relocation section's entries are malformed (size not a multiple of the entry size, bad link).
    #[error("relocation section {section}: {reason}")]
    RelocationSection { section: String, reason: String },

    /// A relocation refers to a symbol index that does not exist.
    #[error("relocation section {section}, entry {entry}: symbol {symbol} out of range (the symbol table has {symbols})")]
    RelocationSymbol {
        section: String,
        entry: usize,
        symbol: u32,
        symbols: usize,
    },

    /// A relocation patches bytes outside its target section.
    #[error("relocation section {section}, entry {entry}: offset {offset:#x} lies outside target {target} of {target_size:#x} bytes")]
    RelocationOutOfRange {
        section: String,
        entry: usize,
        offset: u64,
        target: String,
        target_size: u64,
    },

    /// The code is for an SM whose instruction encoding (or constant bank layout) is not SM86's; decoding
    /// it as SM86 would give wrong instructions. Which SMs pass is measured: `docs/architectures.md`.
    #[error("unsupported architecture sm_{sm}: sassport decodes SM86-encoded code only ({})", compatible_list())]
    UnsupportedArchitecture { sm: u32 },

    /// `e_ident[EI_ABIVERSION]` is neither 7 nor 8, so where `e_flags` keeps the SM is unknown.
    #[error("unknown CUDA ELF ABI version {version} (e_ident[8]): cannot tell which SM the code is for")]
    UnknownAbiVersion { version: u8 },

    /// A `.nv.info.<function>` record that contradicts the rest of the file (see the reason).
    #[error("section {section}, offset {offset:#x} within: {attribute} of {function}: {reason}")]
    AttributeConflict {
        section: String,
        offset: usize,
        attribute: &'static str,
        function: String,
        reason: String,
    },

    /// An instruction-offset record (`EIATTR_EXIT_INSTR_OFFSETS`, `EIATTR_S2RCTAID_INSTR_OFFSETS`, branch
    /// targets, ...) names a place that is not an instruction of the function's code section.
    #[error("section {section}, offset {offset:#x} within: {attribute} of {function} names {value:#x}, not an instruction of {code_section} ({code_size:#x} bytes, 16 per instruction)")]
    InstructionOffset {
        section: String,
        offset: usize,
        attribute: &'static str,
        function: String,
        value: u32,
        code_section: String,
        code_size: u64,
    },

    /// An `EIATTR_KPARAM_INFO` parameter reaches past the parameter block (`EIATTR_CBANK_PARAM_SIZE`).
    #[error("section {section}, offset {offset:#x} within: EIATTR_KPARAM_INFO of {kernel}: parameter {ordinal} at {param_offset:#x}+{param_size:#x} lies outside the {block_size:#x}-byte parameter block (EIATTR_CBANK_PARAM_SIZE)")]
    ParamOutsideBlock {
        kernel: String,
        section: String,
        offset: usize,
        ordinal: u16,
        param_offset: u16,
        param_size: u16,
        block_size: u32,
    },

    /// An `EIATTR_KPARAM_INFO` ordinal at or past the number of parameters, or one given twice.
    #[error("section {section}, offset {offset:#x} within: EIATTR_KPARAM_INFO of {kernel}: ordinal {ordinal} is beyond the {count} parameters or repeated")]
    ParamOrdinal {
        kernel: String,
        section: String,
        offset: usize,
        ordinal: u16,
        count: usize,
    },

    /// The parameter block (`EIATTR_PARAM_CBANK` offset + size) reaches past the kernel's constant bank 0.
    #[error("section {section}, offset {offset:#x} within: EIATTR_PARAM_CBANK of {kernel}: the parameter block at {bank_offset:#x}+{block_size:#x} lies outside {bank_section} of {bank_size:#x} bytes")]
    ParamBlockOutsideBank {
        kernel: String,
        section: String,
        offset: usize,
        bank_offset: u16,
        block_size: u16,
        bank_section: String,
        bank_size: u64,
    },

    /// `EIATTR_REGCOUNT` in `.nv.info` and the code section header (`sh_info` >> 24) disagree.
    #[error(".nv.info: EIATTR_REGCOUNT of {function} is {attribute}, but {code_section}'s header says {section_header} registers")]
    RegisterCountConflict {
        function: String,
        attribute: u32,
        code_section: String,
        section_header: u32,
    },
}

/// `sm_80, sm_86, ...`: the SMs [`super::SM86_COMPATIBLE`] accepts.
fn compatible_list() -> String {
    super::SM86_COMPATIBLE.iter().map(|sm| format!("sm_{sm}")).collect::<Vec<_>>().join(", ")
}

impl CubinError {
    pub(crate) fn elf(err: object::read::Error) -> Self {
        CubinError::Elf {
            reason: err.to_string(),
        }
    }
}

//! Malformed cubins: every one gives the right typed error (naming what and where), never a panic.
//! The inputs are real corpus cubins, truncated or with one field overwritten.

use proptest::prelude::*;
use sassport_translator::cubin::{Cubin, CubinError};

/// A corpus cubin with a kernel that has parameters and a relocation section, so every test below has
/// something to break.
fn sample() -> Vec<u8> {
    static SAMPLE: std::sync::OnceLock<Vec<u8>> = std::sync::OnceLock::new();
    SAMPLE.get_or_init(find_sample).clone()
}

fn find_sample() -> Vec<u8> {
    for path in sassport_corpus::cubins() {
        let bytes = std::fs::read(&path).expect("readable corpus cubin");
        let cubin = Cubin::parse(&bytes).expect("corpus cubins parse");
        let has_params = cubin.kernels.iter().any(|k| !k.info.params.is_empty());
        if has_params && !cubin.relocation_sections.is_empty() {
            return bytes;
        }
    }
    panic!("no corpus cubin has a kernel with parameters and a relocation section (run `cargo xtask corpus`)");
}

fn put_u16(bytes: &mut [u8], at: usize, value: u16) {
    bytes[at..at + 2].copy_from_slice(&value.to_le_bytes());
}
fn put_u32(bytes: &mut [u8], at: usize, value: u32) {
    bytes[at..at + 4].copy_from_slice(&value.to_le_bytes());
}
fn put_u64(bytes: &mut [u8], at: usize, value: u64) {
    bytes[at..at + 8].copy_from_slice(&value.to_le_bytes());
}

/// File offset of section `index`'s header.
fn section_header(bytes: &[u8], index: usize) -> usize {
    let shoff = u64::from_le_bytes(bytes[0x28..0x30].try_into().unwrap()) as usize;
    shoff + index * 64
}

/// Where things are in the sample, found through the reader on the unmodified file.
struct Layout {
    /// (file offset of the section bytes, section index, name) of the first `.nv.info.<kernel>` with params.
    kernel_info: (usize, usize, String),
    /// File offset of the symbol table.
    symtab: usize,
    /// Symbol index of the first kernel.
    kernel_symbol: usize,
    /// (file offset, section name) of the first relocation section.
    relocations: (usize, String),
}

fn layout(bytes: &[u8]) -> Layout {
    let cubin = Cubin::parse(bytes).expect("sample parses");
    let kernel = cubin
        .kernels
        .iter()
        .find(|k| !k.info.params.is_empty())
        .expect("kernel with params");
    let info = cubin
        .sections
        .iter()
        .find(|s| s.name == format!(".nv.info.{}", kernel.name()))
        .expect("kernel info section");
    let symtab = cubin
        .sections
        .iter()
        .find(|s| s.name == ".symtab")
        .expect("symtab");
    let rel = &cubin.relocation_sections[0];
    Layout {
        kernel_info: (info.offset as usize, info.index, info.name.to_owned()),
        symtab: symtab.offset as usize,
        kernel_symbol: kernel.function.symbol,
        relocations: (
            cubin.sections[rel.index].offset as usize,
            rel.name.to_owned(),
        ),
    }
}

#[test]
fn the_sample_parses() {
    let bytes = sample();
    let cubin = Cubin::parse(&bytes).expect("parses");
    assert!(!cubin.kernels.is_empty());
}

#[test]
fn every_truncation_is_an_error() {
    let bytes = sample();
    for len in 0..bytes.len() {
        assert!(
            Cubin::parse(&bytes[..len]).is_err(),
            "truncated to {len} of {} bytes but accepted",
            bytes.len()
        );
    }
}

#[test]
fn a_truncated_file_names_the_table_it_cuts() {
    let bytes = sample();
    assert_eq!(
        Cubin::parse(&bytes[..40]),
        Err(CubinError::TooShort { len: 40 })
    );
    match Cubin::parse(&bytes[..bytes.len() - 1]) {
        Err(CubinError::TableOutOfFile { file_len, .. }) => assert_eq!(file_len, bytes.len() - 1),
        other => panic!("expected TableOutOfFile, got {other:?}"),
    }
}

#[test]
fn not_an_elf_file() {
    let mut bytes = sample();
    bytes[0] = b'X';
    assert!(matches!(Cubin::parse(&bytes), Err(CubinError::Elf { .. })));
}

#[test]
fn other_machines_are_refused_by_number() {
    let mut bytes = sample();
    put_u16(&mut bytes, 18, 62); // EM_X86_64
    assert_eq!(
        Cubin::parse(&bytes),
        Err(CubinError::NotCuda { machine: 62 })
    );
}

#[test]
fn class_32_and_big_endian_are_refused() {
    let mut bytes = sample();
    bytes[4] = 1; // ELFCLASS32
    assert_eq!(Cubin::parse(&bytes), Err(CubinError::UnsupportedLayout));
    let mut bytes = sample();
    bytes[5] = 2; // ELFDATA2MSB
    assert_eq!(Cubin::parse(&bytes), Err(CubinError::UnsupportedLayout));
}

#[test]
fn section_table_outside_the_file() {
    let mut bytes = sample();
    let len = bytes.len() as u64;
    put_u64(&mut bytes, 0x28, len - 8);
    match Cubin::parse(&bytes) {
        Err(CubinError::TableOutOfFile { table, offset, .. }) => {
            assert_eq!((table, offset), ("section header table", len - 8));
        }
        other => panic!("expected TableOutOfFile, got {other:?}"),
    }
    let mut bytes = sample();
    put_u16(&mut bytes, 0x3e, 0x7000); // e_shstrndx past the table
    assert!(Cubin::parse(&bytes).is_err());
}

#[test]
fn section_bytes_outside_the_file_name_the_section() {
    let mut bytes = sample();
    let Layout {
        kernel_info: (_, index, name),
        ..
    } = layout(&bytes);
    let header = section_header(&bytes, index);
    put_u64(&mut bytes, header + 24, 0xffff_ffff_0000);
    match Cubin::parse(&bytes) {
        Err(CubinError::SectionOutOfFile {
            section, offset, ..
        }) => {
            assert_eq!((section, offset), (name, 0xffff_ffff_0000));
        }
        other => panic!("expected SectionOutOfFile, got {other:?}"),
    }
    // An offset + size that overflows is the same error, not an arithmetic panic.
    let mut bytes = sample();
    put_u64(&mut bytes, header + 24, u64::MAX - 2);
    assert!(matches!(
        Cubin::parse(&bytes),
        Err(CubinError::SectionOutOfFile { .. })
    ));
}

#[test]
fn attribute_overrunning_its_section() {
    let mut bytes = sample();
    let Layout {
        kernel_info: (at, _, name),
        ..
    } = layout(&bytes);
    // The first record is EIFMT_SVAL (EIATTR_LANGUAGE in nvcc output); claim a huge payload.
    assert_eq!(bytes[at], 4, "first record is sized");
    put_u16(&mut bytes, at + 2, 0xfff0);
    match Cubin::parse(&bytes) {
        Err(CubinError::AttributeOverrun {
            section,
            offset,
            needed,
            ..
        }) => {
            assert_eq!((section, offset, needed), (name, 0, 0xfff4));
        }
        other => panic!("expected AttributeOverrun, got {other:?}"),
    }
}

#[test]
fn attribute_with_unknown_format() {
    let mut bytes = sample();
    let Layout {
        kernel_info: (at, _, name),
        ..
    } = layout(&bytes);
    bytes[at] = 9;
    match Cubin::parse(&bytes) {
        Err(CubinError::UnknownAttributeFormat {
            section,
            offset,
            format,
            ..
        }) => {
            assert_eq!((section, offset, format), (name, 0, 9));
        }
        other => panic!("expected UnknownAttributeFormat, got {other:?}"),
    }
}

/// Finds the first record with `id` in the kernel's `.nv.info.<kernel>`; returns its offset within.
fn record_offset(bytes: &[u8], section_at: usize, id: u8) -> usize {
    let cubin = Cubin::parse(bytes).expect("sample parses");
    let kernel = cubin
        .kernels
        .iter()
        .find(|k| !k.info.params.is_empty())
        .expect("kernel with params");
    let record = kernel
        .info
        .attributes
        .iter()
        .find(|a| a.id == id)
        .expect("record present");
    section_at + record.offset
}

#[test]
fn kparam_info_of_the_wrong_size() {
    let mut bytes = sample();
    let Layout {
        kernel_info: (at, _, name),
        ..
    } = layout(&bytes);
    // Relabel the 8-byte EIATTR_PARAM_CBANK record as EIATTR_KPARAM_INFO, which must be 12 bytes.
    let record = record_offset(&bytes, at, 0x0a);
    bytes[record + 1] = 0x17;
    match Cubin::parse(&bytes) {
        Err(CubinError::AttributePayload {
            section,
            attribute,
            found,
            ..
        }) => {
            assert_eq!((section, attribute, found), (name, "EIATTR_KPARAM_INFO", 8));
        }
        other => panic!("expected AttributePayload, got {other:?}"),
    }
}

#[test]
fn global_attribute_naming_a_missing_symbol() {
    let mut bytes = sample();
    let cubin = Cubin::parse(&bytes).expect("sample parses");
    let info = cubin
        .sections
        .iter()
        .find(|s| s.name == ".nv.info")
        .expect(".nv.info");
    let record = cubin
        .global_attributes
        .iter()
        .find(|a| a.id == 0x2f)
        .expect("EIATTR_REGCOUNT");
    let at = info.offset as usize + record.offset + 4;
    put_u32(&mut bytes, at, 0x00ff_ffff);
    match Cubin::parse(&bytes) {
        Err(CubinError::AttributeSymbol {
            section,
            symbol,
            attribute,
            ..
        }) => {
            assert_eq!(
                (section.as_str(), symbol, attribute),
                (".nv.info", 0x00ff_ffff, "EIATTR_REGCOUNT")
            );
        }
        other => panic!("expected AttributeSymbol, got {other:?}"),
    }
}

#[test]
fn function_larger_than_its_section() {
    let mut bytes = sample();
    let Layout {
        symtab,
        kernel_symbol,
        ..
    } = layout(&bytes);
    put_u64(&mut bytes, symtab + kernel_symbol * 24 + 16, 0x10_0000);
    assert!(matches!(
        Cubin::parse(&bytes),
        Err(CubinError::SymbolOutOfSection {
            size: 0x10_0000,
            ..
        })
    ));
    // value + size overflowing u64 is the same error.
    put_u64(&mut bytes, symtab + kernel_symbol * 24 + 8, u64::MAX);
    assert!(matches!(
        Cubin::parse(&bytes),
        Err(CubinError::SymbolOutOfSection { .. })
    ));
}

#[test]
fn symbol_in_a_missing_section() {
    let mut bytes = sample();
    let Layout {
        symtab,
        kernel_symbol,
        ..
    } = layout(&bytes);
    put_u16(&mut bytes, symtab + kernel_symbol * 24 + 6, 0xfe00);
    assert!(matches!(
        Cubin::parse(&bytes),
        Err(CubinError::SymbolSection {
            section: 0xfe00,
            ..
        })
    ));
}

#[test]
fn relocation_naming_a_missing_symbol_or_offset() {
    let mut bytes = sample();
    let Layout {
        relocations: (at, name),
        ..
    } = layout(&bytes);
    put_u32(&mut bytes, at + 12, 0x00ff_ffff); // high half of r_info: the symbol
    match Cubin::parse(&bytes) {
        Err(CubinError::RelocationSymbol {
            section,
            entry,
            symbol,
            ..
        }) => {
            assert_eq!((section, entry, symbol), (name.clone(), 0, 0x00ff_ffff));
        }
        other => panic!("expected RelocationSymbol, got {other:?}"),
    }
    let mut bytes = sample();
    put_u64(&mut bytes, at, 0xffff_0000);
    assert!(matches!(
        Cubin::parse(&bytes),
        Err(CubinError::RelocationOutOfRange { entry: 0, .. })
    ));
}

#[test]
fn kernel_info_owned_by_nobody() {
    let mut bytes = sample();
    let Layout {
        kernel_info: (_, index, name),
        ..
    } = layout(&bytes);
    let header = section_header(&bytes, index);
    put_u32(&mut bytes, header + 44, 0); // sh_info: the code section index
    match Cubin::parse(&bytes) {
        Err(CubinError::InfoOwner {
            section,
            code_section,
        }) => assert_eq!((section, code_section), (name, 0)),
        other => panic!("expected InfoOwner, got {other:?}"),
    }
}

#[test]
fn errors_name_what_and_where() {
    let mut bytes = sample();
    let Layout {
        kernel_info: (at, _, name),
        ..
    } = layout(&bytes);
    put_u16(&mut bytes, at + 2, 0xfff0);
    let message = Cubin::parse(&bytes).expect_err("overrun").to_string();
    assert!(
        message.contains(&name) && message.contains("offset 0x0"),
        "{message}"
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    /// Random byte overwrites of a real cubin: parsing returns, it never panics.
    #[test]
    fn mutated_cubins_never_panic(edits in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..16)) {
        let mut bytes = sample();
        for (index, value) in edits {
            let at = index.index(bytes.len());
            bytes[at] = value;
        }
        let _ = Cubin::parse(&bytes);
    }

    /// Overwrites aimed at the ELF and section headers, where offsets and sizes live.
    #[test]
    fn mutated_headers_never_panic(edits in prop::collection::vec((0usize..64, any::<u64>()), 1..4), section in 0usize..64) {
        let mut bytes = sample();
        let table = section_header(&bytes, 0);
        for (field, value) in edits {
            let at = if field < 8 { 0x18 + field * 8 % 0x28 } else { table + (section % 32) * 64 + (field % 8) * 8 };
            if at + 8 <= bytes.len() {
                put_u64(&mut bytes, at, value);
            }
        }
        let _ = Cubin::parse(&bytes);
    }
}

// ---- `.nv.info` records that contradict the rest of the file (issue 24, item 6) ----

/// Where a kernel's `.nv.info.<kernel>` record lies in a real corpus cubin.
struct Record {
    bytes: Vec<u8>,
    kernel: String,
    section: String,
    /// File offset of the record's first (format) byte.
    at: usize,
    /// Offset of the record within its section, as errors name it.
    within: usize,
}

/// The first corpus kernel (in file order) whose `.nv.info.<kernel>` holds a record `id` that `pick`
/// accepts, with the record's place found by parsing the unmodified file.
fn record(id: u8, pick: impl Fn(&sassport_translator::cubin::Kernel<'_>) -> bool) -> Record {
    for path in sassport_corpus::cubins() {
        let bytes = std::fs::read(&path).expect("readable corpus cubin");
        let cubin = Cubin::parse(&bytes).expect("corpus cubins parse");
        for kernel in cubin.kernels.iter().filter(|k| pick(k)) {
            let Some(a) = kernel.info.attributes.iter().find(|a| a.id == id) else { continue };
            let name = format!(".nv.info.{}", kernel.name());
            let section = cubin.sections.iter().find(|s| s.name == name).expect("info section");
            let (at, within) = (section.offset as usize + a.offset, a.offset);
            let kernel = kernel.name().to_owned();
            drop(cubin);
            return Record { bytes, kernel, section: name, at, within };
        }
    }
    panic!("no corpus kernel has record {id:#x}");
}

const KPARAM_INFO: u8 = 0x17;
const PARAM_CBANK: u8 = 0x0a;
const CBANK_PARAM_SIZE: u8 = 0x19;
const EXIT_INSTR_OFFSETS: u8 = 0x1c;
const INDIRECT_BRANCH_TARGETS: u8 = 0x34;

#[test]
fn a_parameter_past_the_parameter_block_is_refused() {
    let Record { mut bytes, kernel, section, at, within } = record(KPARAM_INFO, |_| true);
    // KPARAM_INFO payload: index u32, ordinal u16, offset u16, then the size in bits 18..=31.
    put_u16(&mut bytes, at + 4 + 6, 0x7ff0);
    match Cubin::parse(&bytes) {
        Err(CubinError::ParamOutsideBlock { kernel: k, section: s, offset, param_offset, .. }) => {
            assert_eq!((k, s, offset, param_offset), (kernel, section, within, 0x7ff0));
        }
        other => panic!("expected ParamOutsideBlock, got {other:?}"),
    }
}

#[test]
fn a_parameter_ordinal_past_the_count_is_refused() {
    let Record { mut bytes, kernel, section, at, within } = record(KPARAM_INFO, |_| true);
    let count = {
        let cubin = Cubin::parse(&bytes).expect("unmodified");
        cubin.kernel(&kernel).expect("kernel").info.params.len()
    };
    put_u16(&mut bytes, at + 4 + 4, count as u16);
    match Cubin::parse(&bytes) {
        Err(CubinError::ParamOrdinal { kernel: k, section: s, offset, ordinal, count: c }) => {
            assert_eq!((k, s, offset, ordinal as usize, c), (kernel, section, within, count, count));
        }
        other => panic!("expected ParamOrdinal, got {other:?}"),
    }
}

#[test]
fn a_parameter_block_past_constant_bank_0_is_refused() {
    // Both size records agree on a block far larger than `.nv.constant0.<kernel>`.
    let Record { mut bytes, kernel, section, at: bank_at, within } = record(PARAM_CBANK, |k| !k.info.params.is_empty());
    let size_at = {
        let cubin = Cubin::parse(&bytes).expect("unmodified");
        let info = cubin.sections.iter().find(|s| s.name == section).expect("info section").offset as usize;
        let k = cubin.kernel(&kernel).expect("kernel");
        info + k.info.attributes.iter().find(|a| a.id == CBANK_PARAM_SIZE).expect("CBANK_PARAM_SIZE").offset
    };
    put_u16(&mut bytes, bank_at + 4 + 6, 0x7000); // PARAM_CBANK: symbol u32, offset u16, size u16
    put_u16(&mut bytes, size_at + 2, 0x7000); // CBANK_PARAM_SIZE is EIFMT_HVAL
    match Cubin::parse(&bytes) {
        Err(CubinError::ParamBlockOutsideBank { kernel: k, section: s, offset, block_size, bank_section, .. }) => {
            assert_eq!((k, s, offset, block_size), (kernel.clone(), section, within, 0x7000));
            assert_eq!(bank_section, format!(".nv.constant0.{kernel}"));
        }
        other => panic!("expected ParamBlockOutsideBank, got {other:?}"),
    }
}

#[test]
fn parameter_block_sizes_that_disagree_are_refused() {
    let Record { mut bytes, kernel, section, at, within } = record(PARAM_CBANK, |k| !k.info.params.is_empty());
    put_u16(&mut bytes, at + 4 + 6, 0x7000);
    match Cubin::parse(&bytes) {
        Err(CubinError::AttributeConflict { section: s, offset, attribute, function, reason }) => {
            assert_eq!((s, offset, attribute, function), (section, within, "EIATTR_PARAM_CBANK", kernel));
            assert!(reason.contains("EIATTR_CBANK_PARAM_SIZE"), "{reason}");
        }
        other => panic!("expected AttributeConflict, got {other:?}"),
    }
}

#[test]
fn a_parameter_bank_symbol_that_is_not_the_bank_is_refused() {
    let Record { bytes, kernel, section, at, within } = record(PARAM_CBANK, |k| !k.info.params.is_empty());
    let mut missing = bytes.clone();
    put_u32(&mut missing, at + 4, 0x00ff_ffff);
    match Cubin::parse(&missing) {
        Err(CubinError::AttributeSymbol { section: s, offset, attribute, symbol, .. }) => {
            assert_eq!((s, offset, attribute, symbol), (section.clone(), within, "EIATTR_PARAM_CBANK", 0x00ff_ffff));
        }
        other => panic!("expected AttributeSymbol, got {other:?}"),
    }
    // Symbol 0 exists but is the null symbol, not `.nv.constant0.<kernel>`'s.
    let mut wrong = bytes;
    put_u32(&mut wrong, at + 4, 0);
    assert!(matches!(
        Cubin::parse(&wrong),
        Err(CubinError::AttributeConflict { attribute: "EIATTR_PARAM_CBANK", ref function, .. }) if *function == kernel
    ));
}

/// Writes `value` over the first offset of record `id` and expects `InstructionOffset` naming it.
fn expect_instruction_offset_refused(id: u8, attribute: &str, value: u32) {
    let Record { mut bytes, kernel, section, at, within } = record(id, |_| true);
    put_u32(&mut bytes, at + 4, value);
    match Cubin::parse(&bytes) {
        Err(CubinError::InstructionOffset { section: s, offset, attribute: a, function, value: v, code_section, .. }) => {
            assert_eq!((s, offset, a, function, v), (section, within, attribute, kernel.clone(), value));
            assert!(code_section.starts_with(".text."), "{code_section}");
        }
        other => panic!("{attribute} = {value:#x}: expected InstructionOffset, got {other:?}"),
    }
}

#[test]
fn an_exit_offset_outside_the_code_is_refused() {
    expect_instruction_offset_refused(EXIT_INSTR_OFFSETS, "EIATTR_EXIT_INSTR_OFFSETS", 0x00ff_fff0);
    // Inside the section but between instructions.
    expect_instruction_offset_refused(EXIT_INSTR_OFFSETS, "EIATTR_EXIT_INSTR_OFFSETS", 0x18);
}

/// The other instruction lists take the same check. (`EIATTR_S2RCTAID_INSTR_OFFSETS` does too, but nvcc
/// 13.5.37 writes it for no corpus kernel, so there is no real record of it to break.)
#[test]
fn other_instruction_offsets_outside_the_code_are_refused() {
    for (id, name) in [
        (0x28, "EIATTR_COOP_GROUP_INSTR_OFFSETS"),
        (0x31, "EIATTR_INT_WARP_WIDE_INSTR_OFFSETS"),
        (0x46, "EIATTR_SYSCALL_OFFSETS"),
    ] {
        expect_instruction_offset_refused(id, name, 0x00ff_fff0);
    }
}

#[test]
fn a_jump_table_entry_outside_the_code_is_refused() {
    // The record is (branch offset, word, count, targets...): the branch itself, then its first target.
    expect_instruction_offset_refused(INDIRECT_BRANCH_TARGETS, "EIATTR_INDIRECT_BRANCH_TARGETS", 0x00ff_fff0);
    let Record { mut bytes, at, within, .. } = record(INDIRECT_BRANCH_TARGETS, |_| true);
    put_u32(&mut bytes, at + 4 + 12, 0x00ff_fff0);
    assert!(matches!(
        Cubin::parse(&bytes),
        Err(CubinError::InstructionOffset { offset, value: 0x00ff_fff0, .. }) if offset == within
    ));
}

#[test]
fn a_register_count_the_code_section_contradicts_is_refused() {
    let mut bytes = sample();
    let cubin = Cubin::parse(&bytes).expect("sample parses");
    let info = cubin.sections.iter().find(|s| s.name == ".nv.info").expect(".nv.info");
    // The first REGCOUNT record about a kernel: payload (symbol, value).
    let (record, kernel) = cubin
        .global_attributes
        .iter()
        .filter(|a| a.id == 0x2f)
        .find_map(|a| {
            let symbol = u32::from_le_bytes(a.payload[0..4].try_into().unwrap()) as usize;
            cubin.kernels.iter().find(|k| k.function.symbol == symbol).map(|k| (a, k))
        })
        .expect("a kernel's EIATTR_REGCOUNT");
    let (at, name, registers) = (info.offset as usize + record.offset + 8, kernel.name().to_owned(), kernel.code_registers);
    put_u32(&mut bytes, at, registers + 1);
    match Cubin::parse(&bytes) {
        Err(CubinError::RegisterCountConflict { function, attribute, section_header, .. }) => {
            assert_eq!((function, attribute, section_header), (name, registers + 1, registers));
        }
        other => panic!("expected RegisterCountConflict, got {other:?}"),
    }
}

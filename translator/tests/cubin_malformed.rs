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

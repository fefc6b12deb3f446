//! The SM a cubin is for (issue 24, item 2), at the library's edge: real sm_90 cubins of the corpus
//! (`corpus/sm90/*.cubin`, built by the pinned nvcc from our sources) are refused by name by
//! `Cubin::parse` and described by `Cubin::parse_any_architecture`; `translate_kernel` refuses a cubin
//! read the second way. The SM the reader takes from `e_flags` agrees with the `sm=` line of the pinned
//! `cuobjdump -elf` (first line of each `corpus/sm86/*.elf.txt`).

use sassport_translator::cubin::{Cubin, CubinError, SM86_COMPATIBLE};
use sassport_translator::error::TranslateError;
use sassport_translator::translate::{translate_kernel, Options};

fn sm90_cubins() -> Vec<(String, Vec<u8>)> {
    let dir = sassport_corpus::root().join("sm90");
    let mut out: Vec<(String, Vec<u8>)> = std::fs::read_dir(&dir)
        .expect("corpus/sm90")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "cubin"))
        .map(|p| {
            (
                p.display().to_string(),
                std::fs::read(&p).expect("readable"),
            )
        })
        .collect();
    out.sort();
    assert!(!out.is_empty(), "no sm_90 cubins in {}", dir.display());
    out
}

#[test]
fn every_sm90_corpus_cubin_is_refused_by_name() {
    for (path, bytes) in sm90_cubins() {
        assert_eq!(
            Cubin::parse(&bytes),
            Err(CubinError::UnsupportedArchitecture { sm: 90 }),
            "{path}"
        );
        let described =
            Cubin::parse_any_architecture(&bytes).unwrap_or_else(|e| panic!("{path}: {e}"));
        assert_eq!(described.sm, 90, "{path}");
        assert!(!described.kernels.is_empty(), "{path}");
        assert_eq!(
            described.check_architecture(),
            Err(CubinError::UnsupportedArchitecture { sm: 90 })
        );
    }
}

#[test]
fn translate_kernel_refuses_a_cubin_read_for_description() {
    let (path, bytes) = sm90_cubins()
        .into_iter()
        .find(|(p, _)| p.ends_with("saxpy.cubin"))
        .expect("saxpy");
    let cubin = Cubin::parse_any_architecture(&bytes).expect("described");
    match translate_kernel(&cubin, "saxpy", &Options::default()) {
        Err(TranslateError::Cubin(CubinError::UnsupportedArchitecture { sm: 90 })) => {}
        Err(other) => panic!("{path}: expected UnsupportedArchitecture, got {other}"),
        Ok(_) => panic!("{path}: an sm_90 kernel was translated as SM86"),
    }
}

#[test]
fn the_message_names_the_sm_and_the_accepted_ones() {
    let message = CubinError::UnsupportedArchitecture { sm: 90 }.to_string();
    assert!(message.contains("sm_90"), "{message}");
    for sm in SM86_COMPATIBLE {
        assert!(message.contains(&format!("sm_{sm}")), "{message}");
    }
}

/// cuobjdump's header line, `64-bit ELF: type=ET_EXEC, ABI=8, sm=86, toolkit=13.5, flags=0x6005604`.
#[test]
fn the_sm_agrees_with_cuobjdump() {
    for path in sassport_corpus::cubins() {
        let bytes = std::fs::read(&path).expect("readable");
        let dump =
            std::fs::read_to_string(path.with_extension("elf.txt")).expect("cuobjdump listing");
        let header = dump
            .lines()
            .find(|l| l.contains("sm="))
            .expect("header line");
        let sm: u32 = header
            .split("sm=")
            .nth(1)
            .and_then(|r| r.split(',').next())
            .and_then(|s| s.parse().ok())
            .expect("sm");
        let flags = header
            .split("flags=0x")
            .nth(1)
            .and_then(|f| u32::from_str_radix(f.trim(), 16).ok())
            .expect("flags");
        let cubin = Cubin::parse(&bytes).expect("corpus cubins parse");
        assert_eq!((cubin.sm, cubin.flags), (sm, flags), "{}", path.display());
    }
}

fn saxpy_sm86() -> Vec<u8> {
    std::fs::read(sassport_corpus::root().join("sm86/saxpy.cubin")).expect("saxpy")
}

#[test]
fn an_sm86_file_relabelled_for_another_sm_is_refused() {
    // Only e_flags changes: the SM byte (bits 8..=15 under ABI version 8) of a real sm_86 cubin.
    for sm in [75u32, 80, 89, 90, 100, 120] {
        let mut bytes = saxpy_sm86();
        let flags = u32::from_le_bytes(bytes[0x30..0x34].try_into().unwrap());
        bytes[0x30..0x34].copy_from_slice(&((flags & !0xff00) | sm << 8).to_le_bytes());
        assert_eq!(
            Cubin::parse(&bytes),
            Err(CubinError::UnsupportedArchitecture { sm }),
            "sm_{sm}"
        );
    }
}

#[test]
fn abi_version_7_keeps_the_sm_in_the_low_byte() {
    // The older layout (LLVM's EF_CUDA_SM): 0x56 in bits 0..=7, EF_CUDA_64BIT_ADDRESS and the virtual SM
    // above. The pinned tools cannot read such a file, so this rests on LLVM's header.
    let mut bytes = saxpy_sm86();
    bytes[8] = 7;
    bytes[0x30..0x34].copy_from_slice(&0x0056_0556u32.to_le_bytes());
    assert_eq!(Cubin::parse(&bytes).map(|c| c.sm), Ok(86));
    bytes[0x30..0x34].copy_from_slice(&0x005a_055au32.to_le_bytes());
    assert_eq!(
        Cubin::parse(&bytes),
        Err(CubinError::UnsupportedArchitecture { sm: 90 })
    );
}

#[test]
fn an_unknown_abi_version_is_refused() {
    let mut bytes = saxpy_sm86();
    bytes[8] = 6;
    assert_eq!(
        Cubin::parse(&bytes),
        Err(CubinError::UnknownAbiVersion { version: 6 })
    );
    assert_eq!(
        Cubin::parse_any_architecture(&bytes),
        Err(CubinError::UnknownAbiVersion { version: 6 })
    );
}

//! `WARPSYNC.EXCLUSIVE` and the warp handlers' other decoded fields (see `lower::warp_exclusive`): nvdisasm
//! says which bits are which, and the shapes the translator has no model for are refused by name and pc in
//! both warp forms. Whether the model computes what silicon does is checked by `cli/tests/coop_tiles.rs`
//! (lavapipe against host models) and the coop_tiles silicon goldens.

mod support;

use sassport_translator::abi::DeviceProfile;
use sassport_translator::error::TranslateError;
use sassport_translator::program::{Program, TableDecoder};
use sassport_translator::translate::{translate_decoded_for, Options, Translation};
use sassport_translator::Cubin;
use std::process::Command;

/// The code section, its bytes and the entry offset of `kernel` in `corpus/sm86/<stem>.cubin`.
fn code(stem: &str, kernel: &str) -> (String, Vec<u8>, u32) {
    let path = format!("{}/../corpus/sm86/{stem}.cubin", env!("CARGO_MANIFEST_DIR"));
    let bytes = std::fs::read(path).expect("corpus cubin");
    let cubin = Cubin::parse(&bytes).expect("cubin");
    let k = cubin.kernel(kernel).expect("kernel");
    let section = k.function.section_name.to_string();
    let text = cubin.code_section(&section).expect("code").bytes.to_vec();
    (section, text, k.function.offset as u32)
}

fn word(code: &[u8], offset: usize) -> u128 {
    u128::from_le_bytes(code[offset..offset + 16].try_into().expect("16 bytes"))
}

fn set_word(code: &mut [u8], offset: usize, w: u128) {
    code[offset..offset + 16].copy_from_slice(&w.to_le_bytes());
}

fn opcode(w: u128) -> u32 {
    (w & 0xfff) as u32
}

/// Offsets of the words of `code` for which `pred` holds.
fn find(code: &[u8], pred: impl Fn(u128) -> bool) -> Vec<usize> {
    (0..code.len() / 16).map(|k| 16 * k).filter(|&o| pred(word(code, o))).collect()
}

/// nvdisasm's text for raw words (`-b SM86 -raw`), one instruction a line.
fn nvdisasm_text(words: &[u128]) -> Option<String> {
    let tool = support::nvdisasm()?;
    let path = std::env::temp_dir().join(format!("sassport-excl-{}-{}.bin", std::process::id(), words.len()));
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    std::fs::write(&path, bytes).ok()?;
    let out = Command::new(tool).args(["-b", "SM86", "-raw"]).arg(&path).output().ok()?;
    let _ = std::fs::remove_file(&path);
    Some(String::from_utf8_lossy(&out.stdout).into_owned())
}

fn turns() -> Option<DeviceProfile> {
    None
}

fn subgroups() -> Option<DeviceProfile> {
    Some(sassport_translator::lower::subgroup::warp_subgroup_profile())
}

fn translate(section: &str, code: &[u8], entry: u32, profile: Option<DeviceProfile>) -> Result<Translation, TranslateError> {
    let program = Program::build(section, code, entry, &TableDecoder).expect("program");
    translate_decoded_for("k", &program, 0, 0, &Options { profile, ..Options::default() })
}

/// Asserts that translating fails with a refusal naming `mnemonic` at `offset`.
fn assert_refused(r: Result<Translation, TranslateError>, mnemonic: &str, offset: usize, form: &str) {
    match r {
        Err(TranslateError::NotTranslated { name, offset: at, reason, .. }) => {
            assert!(name.starts_with(mnemonic), "{form}: refused {name} ({reason}), expected {mnemonic}");
            assert_eq!(at as usize, offset, "{form}: {name}: {reason}");
        }
        Err(e) => panic!("{form}: expected a refusal of {mnemonic} at {offset:#x}, got {e}"),
        Ok(_) => panic!("{form}: {mnemonic} at {offset:#x} translated"),
    }
}

/// Bit 86 of WARPSYNC's register form is what nvdisasm prints as `.EXCLUSIVE`; bits 90:87 of BSSY are a
/// predicate operand (`BSSY P0, B0, ...`), which the handlers now read or refuse.
#[test]
fn nvdisasm_names_the_fields() {
    let (_, code, _) = code("coop_tiles", "tile_reduce_16");
    let excl = find(&code, |w| opcode(w) == 0x348 && w >> 86 & 1 == 1);
    assert!(!excl.is_empty(), "tile_reduce_16 holds WARPSYNC.EXCLUSIVE");
    let bssy = find(&code, |w| opcode(w) == 0x945);
    let w = word(&code, excl[0]);
    let b = word(&code, bssy[0]);
    let Some(text) = nvdisasm_text(&[w, w & !(1 << 86), b & !(0xf << 87)]) else {
        eprintln!("nvdisasm not installed: skipped");
        return;
    };
    let lines: Vec<&str> = text.lines().filter(|l| l.contains("/*")).collect();
    assert!(lines[0].contains("WARPSYNC.EXCLUSIVE R"), "{}", lines[0]);
    assert!(lines[1].contains("WARPSYNC R") && !lines[1].contains("EXCLUSIVE"), "{}", lines[1]);
    assert!(lines[2].contains("BSSY P0, B"), "{}", lines[2]);
}

/// The kernel as compiled translates in both forms; with a predicate operand on a BSSY it is refused there.
#[test]
fn bssy_with_a_predicate_operand_is_refused_by_name() {
    let (section, mut code, entry) = code("coop_tiles", "tile_reduce_16");
    for (form, p) in [("turns", turns()), ("subgroups", subgroups())] {
        translate(&section, &code, entry, p).unwrap_or_else(|e| panic!("{form}: {e}"));
    }
    let at = find(&code, |w| opcode(w) == 0x945)[0];
    let w = word(&code, at);
    set_word(&mut code, at, w & !(0xf << 87));
    for (form, p) in [("turns", turns()), ("subgroups", subgroups())] {
        assert_refused(translate(&section, &code, entry, p), "BSSY", at, form);
    }
}

/// As subgroups, a BMOV (a convergence barrier through a register) is refused in a kernel that holds
/// WARPSYNC.EXCLUSIVE (it would carry the exclusive state); elsewhere it translates as before.
#[test]
fn bmov_beside_warpsync_exclusive_is_refused_as_subgroups() {
    let (_, calls, _) = code("calls", "calls_recursive");
    let bmov = find(&calls, |w| opcode(w) == 0x355);
    let Some(&b) = bmov.first() else { panic!("calls_recursive holds BMOV.32.CLEAR") };
    let bmov = word(&calls, b);
    for (kernel, exclusive) in [("tile_reduce_16", true), ("tile_reduce_2", false)] {
        let (section, mut code, entry) = code("coop_tiles", kernel);
        assert_eq!(!find(&code, |w| opcode(w) == 0x348 && w >> 86 & 1 == 1).is_empty(), exclusive, "{kernel}");
        // The first instruction (R1 from the stack pointer) becomes the BMOV.
        set_word(&mut code, entry as usize, bmov);
        let r = translate(&section, &code, entry, subgroups());
        if exclusive {
            assert_refused(r, "BMOV", entry as usize, kernel);
        } else {
            r.unwrap_or_else(|e| panic!("{kernel}: {e}"));
        }
    }
}

/// Every module of the corpus kernels that hold WARPSYNC.EXCLUSIVE passes spirv-val in both forms.
#[test]
fn exclusive_kernels_validate_in_both_forms() {
    for (stem, kernel) in [
        ("coop_tiles", "tile_reduce_16"),
        ("coop_tiles", "tile_loop"),
        ("coop_tiles", "coalesced_after_exit"),
        ("warp_divergent", "match_reduce_divergent"),
        ("warp_divergent", "vote_loop_break"),
    ] {
        let (section, code, entry) = code(stem, kernel);
        assert!(!find(&code, |w| opcode(w) == 0x348 && w >> 86 & 1 == 1).is_empty(), "{kernel}");
        for (form, p) in [("turns", turns()), ("subgroups", subgroups())] {
            let t = translate(&section, &code, entry, p).unwrap_or_else(|e| panic!("{kernel} {form}: {e}"));
            support::spirv_val(&t.words).unwrap_or_else(|e| panic!("{kernel} {form}: spirv-val: {e}"));
        }
    }
}

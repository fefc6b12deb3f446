//! Calls to the CUDA driver's externs (`vprintf`, `__assertfail`) in the corpus (`corpus/src/externs_traps.cu`):
//! each `CALL.ABS.NOINC` nvdisasm lists becomes a builtin call that falls through to the next instruction, both
//! control forms pass spirv-val, and an extern the translator does not provide is refused by name. Running
//! them on lavapipe is `cli/tests/externs.rs`.

mod support;

use sassport_translator::lower::externs::{bind_extern_calls, ExternFunction};
use sassport_translator::program::{Exit, Program, TableDecoder};
use sassport_translator::translate::{translate_kernel, ControlForm, Options};
use sassport_translator::Cubin;

fn externs_cubin() -> Vec<u8> {
    let path =
        sassport_corpus::cubins().into_iter().find(|p| p.file_stem().is_some_and(|s| s == "externs_traps")).unwrap();
    std::fs::read(path).unwrap()
}

/// Offsets of `CALL.ABS` lines in the committed nvdisasm listing, per code section.
fn listed_calls(section: &str) -> Vec<u32> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../corpus/sm86/externs_traps.sass");
    let text = std::fs::read_to_string(path).unwrap();
    let mut inside = false;
    let mut out = Vec::new();
    for line in text.lines() {
        if line.split_whitespace().next() == Some(".section") {
            inside = line.contains(&format!("{section},"));
        }
        if inside && line.contains("CALL.ABS") {
            let hex = line.split("/*").nth(1).and_then(|s| s.split("*/").next()).unwrap();
            out.push(u32::from_str_radix(hex.trim(), 16).unwrap());
        }
    }
    out
}

#[test]
fn extern_calls_are_the_listed_call_abs_sites() {
    let bytes = externs_cubin();
    let cubin = Cubin::parse(&bytes).unwrap();
    for (kernel, f) in [("printf_on_magic", ExternFunction::Vprintf), ("assert_on_magic", ExternFunction::AssertFail)] {
        let k = cubin.kernel(kernel).unwrap();
        let section = k.function.section_name;
        let code = cubin.code_section(section).unwrap().bytes;
        let mut program = Program::build(section, code, 0, &TableDecoder).unwrap();
        let calls = bind_extern_calls(&cubin, k, &mut program).unwrap();
        let listed = listed_calls(section);
        assert_eq!(listed.len(), 1, "{kernel}: {listed:?}");
        assert_eq!(calls.sites, vec![(listed[0], f)], "{kernel}");
        // The call's block falls through to the next instruction; no return point is left for it.
        let b = program.blocks.iter().find(|b| b.end == listed[0] + 16).unwrap();
        assert_eq!(b.exit, Exit::Fall, "{kernel}");
        assert_eq!(b.successors, vec![listed[0] + 16]);
        assert!(!program.return_points.contains(&(listed[0] + 16)));
    }
}

#[test]
fn both_forms_validate() {
    let bytes = externs_cubin();
    let cubin = Cubin::parse(&bytes).unwrap();
    for kernel in ["printf_on_magic", "assert_on_magic"] {
        for control in [ControlForm::Structured, ControlForm::Dispatch] {
            let t = translate_kernel(&cubin, kernel, &Options { control, ..Options::default() })
                .unwrap_or_else(|e| panic!("{kernel} ({control:?}): {e}"));
            if let Err(e) = support::spirv_val(&t.words) {
                panic!("{kernel} ({control:?}): spirv-val rejected the module:\n{e}");
            }
        }
    }
}

#[test]
fn an_unknown_extern_is_refused_by_name() {
    // The same cubin with the symbol renamed: a call to an extern sassport does not provide.
    let mut bytes = externs_cubin();
    let at = bytes.windows(9).position(|w| w == b"\0vprintf\0").expect("the symbol name") + 1;
    bytes[at..at + 7].copy_from_slice(b"vprintg");
    let cubin = Cubin::parse(&bytes).unwrap();
    let e = translate_kernel(&cubin, "printf_on_magic", &Options::default()).expect_err("refused");
    let text = e.to_string();
    assert!(text.contains("`vprintg`"), "{text}");
    assert!(text.contains("printf_on_magic+0x1e0"), "{text}");
    // The other kernels of the cubin are unaffected.
    translate_kernel(&cubin, "assert_on_magic", &Options::default()).expect("assert_on_magic translates");
}

#[test]
fn an_untraceable_extern_call_is_refused_with_the_reason() {
    // CALL.ABS.NOINC R8 turned into CALL.ABS.NOINC R12: no LDC defines R12, and the cubin has no address-taken
    // function the register could hold.
    let mut bytes = externs_cubin();
    let cubin = Cubin::parse(&bytes).unwrap();
    let code = cubin.code_section(".text.printf_on_magic").unwrap();
    let at = (code.bytes.as_ptr() as usize - bytes.as_ptr() as usize) + 0x1e0 + 3;
    drop(cubin);
    assert_eq!(bytes[at], 8, "the call's register field");
    bytes[at] = 12;
    let cubin = Cubin::parse(&bytes).unwrap();
    let text = translate_kernel(&cubin, "printf_on_magic", &Options::default()).expect_err("refused").to_string();
    assert!(text.contains("printf_on_magic+0x1e0") && text.contains("not traced back to a relocated extern"), "{text}");
}

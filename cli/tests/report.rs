//! `sassport report` end to end: totals and refusal rows against facts read from nvdisasm's listings of the
//! same cubins (kernel names from `STO_CUDA_ENTRY`, instruction counts from their sections' lines).

#[path = "../../gen/tests/common/listing.rs"]
mod listing;

use std::path::{Path, PathBuf};
use std::process::Command;

fn sassport() -> Command {
    Command::new(env!("CARGO_BIN_EXE_sassport"))
}

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data").join(name)
}

/// (kernel count, instruction count over the kernels' sections) from a listing.
fn kernels_in(sass: &str) -> (usize, usize) {
    let kernels: Vec<&str> = sass
        .lines()
        .filter(|l| l.contains("STO_CUDA_ENTRY"))
        .filter_map(|l| l.split_whitespace().nth(1)?.split(',').next())
        .collect();
    let sections = listing::parse(sass).expect("listing parses");
    let instructions = sections
        .iter()
        .filter(|s| kernels.iter().any(|k| s.name == format!(".text.{k}")))
        .map(|s| s.instructions.len())
        .sum();
    (kernels.len(), instructions)
}

fn report(args: &[&Path]) -> String {
    let out = sassport().arg("report").args(args).output().expect("sassport runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).expect("UTF-8")
}

#[test]
fn a_corpus_cubin_translates_whole() {
    let cubin = sassport_corpus::cubins().into_iter().find(|c| c.ends_with("saxpy.cubin")).expect("saxpy");
    let sass = std::fs::read_to_string(sassport_corpus::companion(&cubin, ".sass")).expect("listing");
    let (kernels, instructions) = kernels_in(&sass);
    let text = report(&[&cubin]);
    assert!(text.starts_with("cubins: 1 (0 unreadable)\n"), "{text}");
    let line = text.lines().nth(1).expect("totals");
    assert!(line.starts_with(&format!("kernels: {kernels}; translated")), "{line}");
    assert!(line.contains(&format!(": {kernels} (100.0%); their instructions: {instructions} of {instructions} (100.0%)")), "{line}");
    assert!(!text.contains("refused"), "{text}");
}

/// The `-rdc` cubins: `dis_rdc`'s kernels, which call through relocated absolute calls (`CALL.ABS.NOINC
/// `(sym)`), all translate now that the translator links them; `rdc_cases`' call to a function of another file
/// is refused by name, under its form, with its instructions. An unreadable file is counted and named, the
/// rest still measured.
#[test]
fn refusals_are_counted_by_form_and_unreadable_files_named() {
    let dir = std::env::temp_dir().join(format!("sassport-report-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(data("dis_rdc.cubin"), dir.join("a.cubin")).unwrap();
    std::fs::write(dir.join("b.cubin"), b"\x7fELF not really").unwrap();
    std::fs::copy(data("rdc_cases.cubin"), dir.join("c.cubin")).unwrap();
    std::fs::write(dir.join("notes.txt"), b"not a cubin and not named .cubin").unwrap();
    let sass = std::fs::read_to_string(data("dis_rdc.sass")).unwrap();
    let (rdc_kernels, rdc_instructions) = kernels_in(&sass);
    let sections = listing::parse(&sass).unwrap();
    let calling = ["dis_rdc_calls", "dis_rdc_spin", "dis_rdc_shared"]
        .iter()
        .map(|k| sections.iter().find(|s| s.name == format!(".text.{k}")).expect("kernel section"))
        .filter(|s| s.instructions.iter().any(|i| i.text.contains("CALL.ABS.NOINC")))
        .count();
    assert_eq!(calling, 2, "the listing changed");
    // rdc_cases.cubin: rdc_device_var translates, rdc_extern_call is refused (sizes from its symbols).
    let cases = std::fs::read(data("rdc_cases.cubin")).unwrap();
    let cubin = sassport_translator::Cubin::parse(&cases).unwrap();
    let size = |k: &str| (cubin.kernel(k).expect(k).function.size / 16) as usize;
    let (counted, refused) = (size("rdc_device_var"), size("rdc_extern_call"));
    let kernels = rdc_kernels + 2;
    let instructions = rdc_instructions + counted + refused;

    let text = report(&[&dir]);
    assert!(text.starts_with("cubins: 3 (1 unreadable)\n"), "{text}");
    assert!(text.contains("unreadable: ") && text.contains("b.cubin"), "{text}");
    let translated = kernels - 1;
    let share = format!("{:.1}%", translated as f64 * 100.0 / kernels as f64);
    assert!(text.contains(&format!("kernels: {kernels}; ")), "{text}");
    assert!(text.contains(&format!(": {translated} ({share}); their instructions: {} of {instructions}", instructions - refused)), "{text}");
    let row = text.lines().find(|l| l.contains("CALL.ABS.NOINC")).unwrap_or_else(|| panic!("no CALL.ABS row:\n{text}"));
    assert!(row.contains("`_Z13rdc_elsewherej`"), "{row}");
    let cols: Vec<&str> = row.split_whitespace().collect();
    assert_eq!((cols[0], cols[1]), ("1", refused.to_string().as_str()), "{row}");
    std::fs::remove_dir_all(&dir).ok();
}

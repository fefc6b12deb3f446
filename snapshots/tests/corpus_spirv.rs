//! One snapshot per corpus kernel: the disassembled SPIR-V the translator emits (`spirv-dis --raw-id`, ids as
//! allocated, which are deterministic), or the refusal with its reason and place. Review changes with
//! `cargo insta review`.
//!
//! Decoding is the product's own (the generated decoder), so a word it cannot decode shows here as a refusal.

#[path = "../../translator/tests/support/mod.rs"]
mod support;

use sassport_translator::translate::{translate_kernel, Options};
use sassport_translator::Cubin;

#[test]
fn corpus_kernels() {
    let mut settings = insta::Settings::clone_current();
    settings.set_prepend_module_to_snapshot(false);
    settings.set_snapshot_path("../snapshots");
    let _guard = settings.bind_to_scope();
    let cubins = sassport_corpus::cubins();
    assert!(cubins.len() >= 20, "the corpus is missing");
    for path in cubins {
        let bytes = std::fs::read(&path).unwrap();
        let cubin = Cubin::parse(&bytes).unwrap();
        let file = path.file_stem().unwrap().to_string_lossy().to_string();
        if sassport_corpus::is_uncommitted(&file) {
            continue; // built locally, never committed: neither is their SPIR-V (see UNCOMMITTED_PREFIX)
        }
        for k in &cubin.kernels {
            let result = translate_kernel(&cubin, k.name(), &Options::default());
            let text = match result {
                Ok(t) => support::spirv_dis(&t.words),
                Err(e) => format!("refused: {e}\n"),
            };
            insta::assert_snapshot!(format!("{file}__{}", k.name()), text);
        }
    }
}

/// The kernels with warp instructions once more, translated for a device with 32-wide subgroups (the
/// structured form with subgroup operations; `corpus_kernels` shows them in turns). Maximal reconvergence is
/// left out so that the Debian spirv-dis reads every module.
#[test]
fn warp_kernels_as_subgroups() {
    use sassport_translator::control::structured::Form;
    let mut settings = insta::Settings::clone_current();
    settings.set_prepend_module_to_snapshot(false);
    settings.set_snapshot_path("../snapshots");
    let _guard = settings.bind_to_scope();
    let profile = sassport_translator::lower::subgroup::warp_subgroup_profile();
    let options = Options { profile: Some(profile), ..Options::default() };
    let mut count = 0;
    for path in sassport_corpus::cubins() {
        let bytes = std::fs::read(&path).unwrap();
        let cubin = Cubin::parse(&bytes).unwrap();
        let file = path.file_stem().unwrap().to_string_lossy().to_string();
        if sassport_corpus::is_uncommitted(&file) {
            continue;
        }
        for k in &cubin.kernels {
            let Ok(t) = translate_kernel(&cubin, k.name(), &options) else { continue };
            if matches!(t.report.form, Some(Form::Structured { warps_as_subgroups: true, .. })) {
                count += 1;
                insta::assert_snapshot!(format!("subgroups__{file}__{}", k.name()), support::spirv_dis(&t.words));
            }
        }
    }
    assert!(count >= 16, "only {count} kernels as subgroups");
}

//! One snapshot per corpus kernel: the disassembled SPIR-V the translator emits (`spirv-dis --raw-id`, ids as
//! allocated, which are deterministic), or the refusal with its reason and place. Review changes with
//! `cargo insta review`.
//!
//! Decoding is the product's own (the generated decoder), so a word it cannot decode shows here as a refusal.

#[path = "../../translator/tests/support/mod.rs"]
mod support;

use sassport_translator::translate::{translate_kernel, Options};
use sassport_translator::Cubin;

/// Modules above this many words are snapshot as their size and a hash: the CUDA math API's (`math_api.cu`) run
/// to ~1.2 M words, 10 MB of text each; the hash still catches every change, `sassport translate` shows it.
const MAX_LISTED_WORDS: usize = 200_000;

fn module_text(words: &[u32]) -> String {
    if words.len() <= MAX_LISTED_WORDS {
        return support::spirv_dis(words);
    }
    // FNV-1a over the words' bytes (deterministic, dependency-free).
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in words.iter().flat_map(|w| w.to_le_bytes()) {
        h = (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
    }
    format!("{} words (over {MAX_LISTED_WORDS}: not listed), FNV-1a 64 of the words: {h:016x}\n", words.len())
}

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
                Ok(t) => module_text(&t.words),
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
                insta::assert_snapshot!(format!("subgroups__{file}__{}", k.name()), module_text(&t.words));
            }
        }
    }
    assert!(count >= 16, "only {count} kernels as subgroups");
}

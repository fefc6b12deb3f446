//! One snapshot per corpus kernel: the disassembled SPIR-V the translator emits (`spirv-dis --raw-id`, ids as
//! allocated, which are deterministic), or the refusal with its reason and place. Review changes with
//! `cargo insta review`.
//!
//! Mnemonics come from the generated decoder where it knows every word, else from the pinned nvdisasm's
//! listing (the same instructions either way); without either the test is skipped.

#[path = "../../translator/tests/support/mod.rs"]
mod support;

use sassport_translator::program::{Disassembler, TableDecoder};
use sassport_translator::translate::{translate_kernel_with, Options};
use sassport_translator::Cubin;

#[test]
fn corpus_kernels() {
    let mut settings = insta::Settings::clone_current();
    settings.set_prepend_module_to_snapshot(false);
    settings.set_snapshot_path("../snapshots");
    let _guard = settings.bind_to_scope();
    for path in sassport_corpus::cubins() {
        let bytes = std::fs::read(&path).unwrap();
        let cubin = Cubin::parse(&bytes).unwrap();
        let file = path.file_stem().unwrap().to_string_lossy().to_string();
        for k in &cubin.kernels {
            let table = translate_kernel_with(&cubin, k.name(), &Options::default(), &TableDecoder);
            let listing;
            let result = match table {
                Err(sassport_translator::error::TranslateError::Undecodable { .. }) => {
                    if support::nvdisasm().is_none() {
                        eprintln!("{file}:{}: neither the table nor nvdisasm decodes it; skipped", k.name());
                        continue;
                    }
                    listing = support::Listing::of(cubin.code_section(k.function.section_name).unwrap().bytes);
                    let dis: &dyn Disassembler = &listing;
                    translate_kernel_with(&cubin, k.name(), &Options::default(), dis)
                }
                other => other,
            };
            let text = match result {
                Ok(t) => support::spirv_dis(&t.words),
                Err(e) => format!("refused: {e}\n"),
            };
            insta::assert_snapshot!(format!("{file}__{}", k.name()), text);
        }
    }
}

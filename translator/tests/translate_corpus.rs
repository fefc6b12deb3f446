//! Every corpus kernel: translated (or refused by name with its offset), every module valid for Vulkan 1.3
//! according to spirv-val, and translation deterministic.
//!
//! Mnemonics come from the generated decoder (the product path). With the pinned nvdisasm installed
//! (`cargo xtask tools`), an ignored test cross-checks: taking mnemonics from nvdisasm's own listing instead
//! must give the very same modules.

mod support;

use sassport_translator::error::TranslateError;
use sassport_translator::program::{Disassembler, TableDecoder};
use sassport_translator::translate::{translate_kernel_with, Options};
use sassport_translator::Cubin;
use std::collections::BTreeMap;

struct Outcome {
    translated: Vec<(String, usize, usize)>,
    refused: Vec<(String, TranslateError)>,
}

fn run_corpus(use_listing: bool) -> Outcome {
    let mut out = Outcome { translated: Vec::new(), refused: Vec::new() };
    for path in sassport_corpus::cubins() {
        let bytes = std::fs::read(&path).unwrap();
        let cubin = Cubin::parse(&bytes).unwrap();
        for k in &cubin.kernels {
            let name = format!("{}:{}", path.file_stem().unwrap().to_string_lossy(), k.name());
            let listing;
            let dis: &dyn Disassembler = if use_listing {
                let code = cubin.code_section(k.function.section_name).unwrap().bytes;
                listing = support::Listing::of(code);
                &listing
            } else {
                &TableDecoder
            };
            match translate_kernel_with(&cubin, k.name(), &Options::default(), dis) {
                Ok(t) => {
                    if let Err(e) = support::spirv_val(&t.words) {
                        panic!("{name}: spirv-val rejected the module:\n{e}");
                    }
                    let again = translate_kernel_with(&cubin, k.name(), &Options::default(), dis).unwrap();
                    assert_eq!(t.words, again.words, "{name}: translation is not deterministic");
                    out.translated.push((name, t.report.instructions, t.words.len()));
                }
                Err(e) => {
                    // Every refusal names a place: section and offset (or the cubin-level reason).
                    let text = e.to_string();
                    assert!(text.contains(".text.") || matches!(e, TranslateError::Cubin(_)), "{name}: {text}");
                    out.refused.push((name, e));
                }
            }
        }
    }
    out
}

fn report(label: &str, o: &Outcome) {
    let mut hist: BTreeMap<String, usize> = BTreeMap::new();
    for (_, e) in &o.refused {
        *hist.entry(e.kind()).or_default() += 1;
    }
    println!("[{label}] translated {} kernels, refused {}", o.translated.len(), o.refused.len());
    for (n, i, w) in &o.translated {
        println!("  ok  {n}: {i} instructions, {w} words");
    }
    for (n, e) in &o.refused {
        println!("  --  {n}: {e}");
    }
    let mut h: Vec<_> = hist.into_iter().collect();
    h.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    println!("  refusal reasons:");
    for (k, n) in h {
        println!("  {n:4} {k}");
    }
}

#[test]
fn corpus_with_generated_decoder() {
    let o = run_corpus(false);
    report("decoder", &o);
    assert!(o.translated.len() + o.refused.len() >= 70, "the corpus is missing");
    // A floor that only rises: kernels without warp instructions translate.
    assert!(o.translated.len() >= 50, "only {} kernels translated", o.translated.len());
    for k in ["saxpy:saxpy", "saxpy:saxpy_vec4", "saxpy:saxpy_grid_stride", "control:loops", "switch:switch_brx_ptx"] {
        assert!(o.translated.iter().any(|(n, _, _)| n == k), "{k} was not translated");
    }
}

#[test]
#[ignore = "needs the pinned nvdisasm (cargo xtask tools)"]
fn nvdisasm_mnemonics_give_the_same_modules() {
    assert!(support::nvdisasm().is_some(), "pinned nvdisasm not installed: run `cargo xtask tools`");
    let ours = run_corpus(false);
    let theirs = run_corpus(true);
    report("nvdisasm", &theirs);
    let names = |o: &Outcome| o.translated.iter().map(|(n, i, w)| (n.clone(), *i, *w)).collect::<Vec<_>>();
    assert_eq!(names(&ours), names(&theirs));
}

/// On a device whose self-test measured a fused `Fma` and preserved f32 denormals, round-to-nearest FFMA is
/// native: the modules still validate, and they are smaller than the exact-helper ones (the matmul kernels are
/// FFMA chains). Results on such a device are checked against the silicon goldens by the main job there.
#[test]
fn native_fma_on_a_fusing_device() {
    use sassport_translator::abi::{DeviceProfile, MeasuredFloat};
    let mut profile = DeviceProfile::default();
    profile.float_controls.signed_zero_inf_nan_preserve = [true; 3];
    profile.measured = MeasuredFloat { fma_f32_fused: Some(true), denorm_f32_preserved: Some(true), fma_f64_fused: None, denorm_f64_preserved: None };
    let fusing = Options { profile: Some(profile), ..Options::default() };
    let path = sassport_corpus::cubins().into_iter().find(|p| p.file_stem().is_some_and(|s| s == "matmul")).unwrap();
    let bytes = std::fs::read(&path).unwrap();
    let cubin = Cubin::parse(&bytes).unwrap();
    for kernel in ["matmul_naive", "matmul_tiled", "matmul_regblock"] {
        let exact = translate_kernel_with(&cubin, kernel, &Options::default(), &TableDecoder).unwrap();
        let native = translate_kernel_with(&cubin, kernel, &fusing, &TableDecoder).unwrap();
        if let Err(e) = support::spirv_val(&native.words) {
            panic!("{kernel}: spirv-val rejected the module:\n{e}");
        }
        assert!(native.words.len() < exact.words.len(), "{kernel}: {} words native, {} exact", native.words.len(), exact.words.len());
    }
}

//! `--without FEATURE`: a translation for a profile lacking a feature declares none of its capabilities.
//! Every kernel of every corpus cubin is translated for profiles without float64 (soft double), without each
//! other maskable feature, and without all of them: each module is scanned for its `OpCapability` list and
//! validated with spirv-val, or the kernel is refused with `MissingCapabilities` naming the masked feature
//! and the instruction that needed it. No kernel may be refused for float64: soft double covers every f64 step (FP64
//! instructions, the FP32/FP16 helpers' exact f64 intermediates, HMMA's f64 accumulation, DMMA); nor for any
//! other feature (64-bit atomics under a lock, the device heap's free lists with 32-bit
//! atomics, FP16 through 32-bit values).

mod support;

use sassport_translator::abi::{DeviceProfile, Feature, Features};
use sassport_translator::error::TranslateError;
use sassport_translator::spirv::Capability;
use sassport_translator::translate::{translate_kernel, Options};
use sassport_translator::Cubin;
use std::path::PathBuf;

fn corpus_cubins() -> Vec<(String, Vec<u8>)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../corpus/sm86");
    let mut out: Vec<(String, Vec<u8>)> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "cubin"))
        .map(|p| (p.file_stem().unwrap().to_string_lossy().into_owned(), std::fs::read(&p).unwrap()))
        .collect();
    out.sort();
    out
}

/// The capabilities an emitted module declares (its `OpCapability` instructions).
fn capabilities(words: &[u32]) -> Vec<u32> {
    let mut caps = Vec::new();
    let mut at = 5;
    while at < words.len() {
        let n = (words[at] >> 16) as usize;
        if words[at] & 0xffff == 17 {
            caps.push(words[at + 1]);
        }
        at += n.max(1);
    }
    caps
}

fn profile(mask: Features) -> DeviceProfile {
    DeviceProfile { float64: true, int16: true, float16: true, int8: true, int64_atomics: true, int64: true, ..Default::default() }
        .without_features(mask)
}

struct Tally {
    translated: usize,
    refused: Vec<String>,
}

fn check(mask: Features, kernels_filter: Option<&str>) -> Tally {
    let options = Options { profile: Some(profile(mask)), ..Options::default() };
    let mut tally = Tally { translated: 0, refused: Vec::new() };
    for (file, bytes) in corpus_cubins() {
        let cubin = Cubin::parse(&bytes).unwrap();
        for k in &cubin.kernels {
            let name = k.name();
            if kernels_filter.is_some_and(|f| !name.contains(f)) {
                continue;
            }
            match translate_kernel(&cubin, name, &options) {
                Ok(t) => {
                    let caps = capabilities(&t.words);
                    for f in mask.iter() {
                        if let Some(c) = f.capability() {
                            assert!(!caps.contains(&(c as u32)), "{file}/{name} declares {c:?} without {f}");
                        }
                    }
                    support::spirv_val(&t.words).unwrap_or_else(|e| panic!("{file}/{name} without {mask}: {e}"));
                    tally.translated += 1;
                }
                Err(TranslateError::MissingCapabilities { missing, .. }) => {
                    assert!(missing.iter().all(|m| mask.contains(m.feature)), "{file}/{name}: {missing:?}");
                    assert!(missing.iter().all(|m| m.site.is_some()), "{file}/{name}: no site in {missing:?}");
                    tally.refused.push(format!("{name}: {:?}", missing));
                }
                // Refusals that do not depend on the mask (instructions not translated yet) are other tests'.
                Err(_) => {}
            }
        }
    }
    tally
}

#[test]
fn without_float64_no_module_declares_float64() {
    let t = check(Features::NONE.with(Feature::Float64), None);
    eprintln!("without float64: {} kernels translated, refused: {:#?}", t.translated, t.refused);
    assert!(t.refused.is_empty(), "refused without float64: {:#?}", t.refused);
    assert!(t.translated >= 100);
}

#[test]
fn every_mask_is_honoured_without_refusals() {
    // Soft double (float64), the 64-bit atomics under a lock (int64-atomics), FP16 through 32-bit values
    // (float16; the translator never declares Int8/Int16/Float16 types at all), warps in turns
    // (subgroups-32), the device heap's free lists with 32-bit atomics (`lower/heap/soft_lists.rs`): no
    // kernel needs a masked capability, alone or all masked at once.
    let all = Feature::ALL.iter().fold(Features::NONE, |s, f| s.with(*f));
    for mask in Feature::ALL.iter().map(|f| Features::NONE.with(*f)).chain([all]) {
        let t = check(mask, None);
        eprintln!("without {mask}: {} translated, {} refused", t.translated, t.refused.len());
        assert!(t.refused.is_empty(), "refused without {mask}: {:#?}", t.refused);
        assert!(t.translated >= 100, "without {mask}: {} translated", t.translated);
    }
}

/// The device heap's kernels (malloc/free, also barrier_save_calls) translate without Int64Atomics: their free
/// lists then use 32-bit atomics only (`lower/heap/soft_lists.rs`), and the module declares no 64-bit view
/// of memory (`memory::window64`, which declares the capability); with the feature, the 64-bit heads.
#[test]
fn heap_kernels_translate_without_int64_atomics() {
    let masked = Options { profile: Some(profile(Features::NONE.with(Feature::Int64Atomics))), ..Options::default() };
    let full = Options { profile: Some(profile(Features::NONE)), ..Options::default() };
    let mut seen = 0;
    for file in ["device_heap", "call_barriers"] {
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("../corpus/sm86/{file}.cubin"));
        let bytes = std::fs::read(path).unwrap();
        let cubin = Cubin::parse(&bytes).unwrap();
        for k in cubin.kernels.iter().filter(|k| k.name().starts_with("heap_") || k.name() == "barrier_save_calls") {
            let t = translate_kernel(&cubin, k.name(), &masked).unwrap_or_else(|e| panic!("{}: {e}", k.name()));
            assert!(!capabilities(&t.words).contains(&(Capability::Int64Atomics as u32)), "{}", k.name());
            support::spirv_val(&t.words).unwrap_or_else(|e| panic!("{}: {e}", k.name()));
            let n = translate_kernel(&cubin, k.name(), &full).unwrap_or_else(|e| panic!("{}: {e}", k.name()));
            assert!(capabilities(&n.words).contains(&(Capability::Int64Atomics as u32)), "{} natively", k.name());
            seen += 1;
        }
    }
    assert_eq!(seen, 4, "heap_per_thread, heap_block_shared, heap_exhaustion, barrier_save_calls");
}

/// The 64-bit global atomics of the corpus translate without Int64Atomics (`lower::soft_atomic64`), and
/// their modules then access no 64-bit view of memory: no 64-bit atomic at all.
#[test]
fn int64_atomics_kernels_translate_without_the_capability() {
    let options = Options { profile: Some(profile(Features::NONE.with(Feature::Int64Atomics))), ..Options::default() };
    let bytes = std::fs::read(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../corpus/sm86/atomics.cubin")).unwrap();
    let cubin = Cubin::parse(&bytes).unwrap();
    // Also for a device with a loop limit (lavapipe), which gets the written-out lock reads.
    let mut limited = profile(Features::NONE.with(Feature::Int64Atomics));
    limited.loop_iteration_limit = Some(65_535);
    let limited = Options { profile: Some(limited), ..Options::default() };
    for name in ["atomics_global_owned", "atomics_global_contended"] {
        for o in [&options, &limited] {
            let t = translate_kernel(&cubin, name, o).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert!(!capabilities(&t.words).contains(&(Capability::Int64Atomics as u32)), "{name}");
            support::spirv_val(&t.words).unwrap_or_else(|e| panic!("{name}: {e}"));
        }
    }
}

/// The corpus kernels whose native translation (full profile) declares Float64: the ones soft double
/// changes most (the lavapipe and H200 runs with `--without float64` and the soft_f64 bench use this list).
#[test]
fn fp64_kernels_of_the_corpus() {
    let options = Options { profile: Some(profile(Features::NONE)), ..Options::default() };
    let mut with_f64 = Vec::new();
    for (_, bytes) in corpus_cubins() {
        let cubin = Cubin::parse(&bytes).unwrap();
        for k in &cubin.kernels {
            if let Ok(t) = translate_kernel(&cubin, k.name(), &options) {
                if capabilities(&t.words).contains(&(Capability::Float64 as u32)) {
                    with_f64.push(k.name().to_string());
                }
            }
        }
    }
    with_f64.sort();
    eprintln!("kernels with Float64 natively: {with_f64:?}");
    assert!(with_f64.iter().any(|k| k == "daxpy") && with_f64.iter().any(|k| k == "fp64_div_sqrt"));
}

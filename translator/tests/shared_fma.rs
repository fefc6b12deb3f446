//! Few copies of the exact FP64 fused multiply-add (`lower::shared_fma`): drivers inline every call, so the
//! number of call sites of the ~330-instruction helper is what the driver compiles. Counted on the emitted
//! words (each module also passes spirv-val): the structured form's segment loops leave one call per block
//! with several sites, the dispatch form one per kernel, and a device measured to fuse f64 `Fma` and keep f64
//! denormals gets native `Fma` for round-to-nearest DFMA. Results are checked against silicon by the main job
//! and `cli/tests/soft_f64_goldens.rs` on lavapipe, and by the device runs on the H200.

mod support;

use sassport_translator::abi::{DeviceProfile, Feature, Features, MeasuredFloat};
use sassport_translator::translate::{translate_kernel, ControlForm, Options, Translation};
use sassport_translator::Cubin;

const OP_EXT_INST: u32 = 12;
const OP_FUNCTION: u32 = 54;
const OP_FUNCTION_END: u32 = 56;
const OP_FUNCTION_CALL: u32 = 57;
const GLSL_FMA: u32 = 50;

/// Calls of functions longer than 300 instructions (the exact DFMA helper, soft double's FMA), and the
/// number of `GLSL.std.450 Fma` instructions.
fn large_calls_and_fmas(words: &[u32]) -> (usize, usize) {
    let mut size = std::collections::HashMap::new();
    let mut calls = Vec::new();
    let (mut current, mut fmas) = (None, 0);
    let mut at = 5;
    while at < words.len() {
        let (op, n) = (words[at] & 0xffff, (words[at] >> 16) as usize);
        match op {
            OP_FUNCTION => current = Some(words[at + 2]),
            OP_FUNCTION_END => current = None,
            OP_FUNCTION_CALL => calls.push(words[at + 3]),
            OP_EXT_INST if words[at + 4] == GLSL_FMA => fmas += 1,
            _ => {}
        }
        if let Some(f) = current {
            *size.entry(f).or_insert(0usize) += 1;
        }
        at += n.max(1);
    }
    (
        calls
            .iter()
            .filter(|f| size.get(f).copied().unwrap_or(0) > 300)
            .count(),
        fmas,
    )
}

fn translate(file: &str, kernel: &str, options: &Options) -> Translation {
    let path = sassport_corpus::cubins()
        .into_iter()
        .find(|p| p.file_stem().is_some_and(|s| s == file))
        .unwrap();
    let bytes = std::fs::read(&path).unwrap();
    let cubin = Cubin::parse(&bytes).unwrap();
    let t = translate_kernel(&cubin, kernel, options).unwrap();
    if let Err(e) = support::spirv_val(&t.words) {
        panic!("{kernel}: spirv-val rejected the module:\n{e}");
    }
    t
}

/// Before segment loops the math API's double kernel called the helper at each of its 2,483 DFMA sites.
#[test]
fn segment_loops_share_the_exact_dfma_in_the_math_library() {
    let t = translate("math_api", "math_f64_special", &Options::default());
    let (calls, _) = large_calls_and_fmas(&t.words);
    // 241 on 2026-12-02.
    assert!(calls <= 300, "{calls} calls");
    // A block with 15 directed-mode sites (DADD/DMUL/DFMA .RM/.RP/.RZ) keeps one.
    let t = translate("fp64", "fp64_round_arith", &Options::default());
    assert_eq!(large_calls_and_fmas(&t.words).0, 1);
}

/// Soft double shares the same way (DADD and DMUL of every mode are sites there).
#[test]
fn segment_loops_share_soft_double() {
    let profile =
        DeviceProfile::default().without_features(Features::default().with(Feature::Float64));
    let options = Options {
        profile: Some(profile),
        ..Options::default()
    };
    let t = translate("math_api", "math_f64_elementary", &options);
    let (calls, fmas) = large_calls_and_fmas(&t.words);
    assert!(calls <= 100, "{calls} calls"); // 82 on 2026-12-02
    assert_eq!(fmas, 0);
}

/// The dispatch form: one body for the whole kernel.
#[test]
fn dispatch_form_has_one_fma_body() {
    let options = Options {
        control: ControlForm::Dispatch,
        ..Options::default()
    };
    let t = translate("math_api", "math_f64_elementary", &options);
    assert_eq!(large_calls_and_fmas(&t.words).0, 1);
}

/// Measured fused f64 `Fma` with f64 denormals kept (NVIDIA): round-to-nearest DFMA is native; the directed
/// modes still call the exact helper. Without the denormal measurement it stays exact.
#[test]
fn native_fma64_where_measured_fused() {
    let mut profile = DeviceProfile::default();
    profile.float_controls.signed_zero_inf_nan_preserve = [true; 3];
    profile.float64 = true;
    let measured = MeasuredFloat {
        fma_f64_fused: Some(true),
        denorm_f64_preserved: Some(true),
        ..Default::default()
    };
    profile.measured = measured;
    let fused = Options {
        profile: Some(profile.clone()),
        ..Options::default()
    };
    let t = translate("math_api", "math_f64_special", &fused);
    let (calls, fmas) = large_calls_and_fmas(&t.words);
    // Its SASS has three directed-mode sites (DFMA.RM, DFMA.RP, DMUL.RP), in functions inlined at each call.
    assert!(calls <= 20, "{calls} calls");
    assert!(fmas >= 2000, "{fmas} native Fma");
    let t = translate("fp64", "fp64_round_arith", &fused);
    assert_eq!(
        large_calls_and_fmas(&t.words).0,
        1,
        "directed modes stay exact"
    );
    profile.measured.denorm_f64_preserved = Some(false);
    let flushing = Options {
        profile: Some(profile),
        ..Options::default()
    };
    let t = translate("math_api", "math_f64_elementary", &flushing);
    assert_eq!(
        large_calls_and_fmas(&t.words).1,
        0,
        "f64 denormals flushed: no native Fma"
    );
}

//! The loop guard (`control::guard`) in every form: each corpus kernel translated for a device with a loop
//! limit (lavapipe's quirk: loop-limit canaries, unrolled innermost loops, written-out lane loops) and for one
//! without (only the abort polls) is a valid Vulkan module, and the quirk's code appears only where asked.

mod support;

use sassport_translator::abi::{DeviceProfile, LAVAPIPE_LOOP_ITERATION_LIMIT};
use sassport_translator::translate::{translate_kernel, ControlForm, Options};
use sassport_translator::Cubin;

fn lavapipe_like() -> DeviceProfile {
    DeviceProfile {
        subgroup_size: 8,
        min_subgroup_size: 8,
        max_subgroup_size: 8,
        loop_iteration_limit: Some(LAVAPIPE_LOOP_ITERATION_LIMIT),
        ..Default::default()
    }
}

fn every_kernel(options: &Options, mut check: impl FnMut(&str, &[u32])) -> usize {
    let mut n = 0;
    for path in sassport_corpus::cubins() {
        let bytes = std::fs::read(&path).unwrap();
        let cubin = Cubin::parse(&bytes).unwrap();
        for k in &cubin.kernels {
            if let Ok(t) = translate_kernel(&cubin, k.name(), options) {
                check(k.name(), &t.words);
                n += 1;
            }
        }
    }
    n
}

#[test]
fn every_kernel_under_the_loop_quirk_is_valid() {
    for control in [ControlForm::Structured, ControlForm::Dispatch] {
        let options = Options { profile: Some(lavapipe_like()), control, ..Options::default() };
        let n = every_kernel(&options, |name, words| {
            if let Err(e) = support::spirv_val(words) {
                panic!("{name} ({control:?}): {e}");
            }
        });
        assert!(n >= 80, "{n} kernels translated");
    }
}

/// Whether the module holds an `OpAtomicOr` (opcode 241): `loop_long` has no atomics of its own, so one is
/// the quirk's read of the abort word (canaries and polls under a loop limit).
fn has_loop_limit_fault(words: &[u32]) -> bool {
    let mut i = 5;
    while i < words.len() {
        let (len, op) = ((words[i] >> 16) as usize, words[i] & 0xffff);
        if op == 241 {
            return true;
        }
        i += len.max(1);
    }
    false
}

#[test]
fn the_quirk_is_emitted_only_for_a_device_that_has_it() {
    let loops = std::fs::read(sassport_corpus::root().join("sm86/loops_long.cubin")).unwrap();
    let cubin = Cubin::parse(&loops).unwrap();
    for (profile, want) in [(Some(lavapipe_like()), true), (None, false)] {
        let t = translate_kernel(&cubin, "loop_long", &Options { profile, ..Default::default() }).unwrap();
        assert_eq!(has_loop_limit_fault(&t.words), want);
        support::spirv_val(&t.words).unwrap();
    }
}

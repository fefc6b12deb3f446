//! Issue 16's forms in every control form: the corpus kernels with cooperative groups' plain `BAR.SYNC 0x0`
//! (`coop_groups.cu`), ptxas's loop-exit `@P0 CALL.REL.NOINC` (`device_calls.cu`) and malloc/free
//! (`device_heap.cu`) translate structured, as the dispatch loop, and with warps as 32-wide subgroups, and
//! every module passes spirv-val. Which instruction forms they hold is checked against nvdisasm's listing.

mod support;

use sassport_translator::control::structured::Form;
use sassport_translator::translate::{translate_kernel, ControlForm, Options};
use sassport_translator::Cubin;

fn corpus(stem: &str) -> (Vec<u8>, String) {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../corpus/sm86/");
    (std::fs::read(format!("{root}{stem}.cubin")).unwrap(), std::fs::read_to_string(format!("{root}{stem}.sass")).unwrap())
}

#[test]
fn the_corpus_holds_the_forms() {
    let (_, coop) = corpus("coop_groups");
    assert!(coop.lines().any(|l| l.contains("BAR.SYNC 0x0 ;")), "plain BAR.SYNC");
    let (_, calls) = corpus("device_calls");
    assert!(calls.lines().any(|l| l.contains("@P0 CALL.REL.NOINC")), "predicated CALL");
    assert!(calls.lines().any(|l| l.contains("PLOP3.LUT P0, PT, PT, PT, UP0")), "PLOP3 on a uniform predicate");
    let (_, heap) = corpus("device_heap");
    assert!(heap.lines().filter(|l| l.contains("CALL.ABS.NOINC")).count() >= 10, "malloc/free calls");
}

#[test]
fn every_form_translates_and_validates() {
    let subgroups = sassport_translator::lower::subgroup::warp_subgroup_profile();
    for stem in ["coop_groups", "device_calls", "device_heap"] {
        let (bytes, _) = corpus(stem);
        let cubin = Cubin::parse(&bytes).unwrap();
        for k in &cubin.kernels {
            let options = [
                Options::default(),
                Options { control: ControlForm::Dispatch, ..Options::default() },
                Options { profile: Some(subgroups.clone()), ..Options::default() },
            ];
            for o in options {
                let t = translate_kernel(&cubin, k.name(), &o).unwrap_or_else(|e| panic!("{} ({:?}): {e}", k.name(), o.control));
                support::spirv_val(&t.words).unwrap_or_else(|e| panic!("{} ({:?}): {e}", k.name(), o.control));
            }
        }
    }
}

#[test]
fn the_predicated_call_stays_structured() {
    let (bytes, _) = corpus("device_calls");
    let cubin = Cubin::parse(&bytes).unwrap();
    let t = translate_kernel(&cubin, "loop_exit_call_sgemm", &Options::default()).unwrap();
    match t.report.form {
        Some(Form::Structured { inlined, .. }) => assert_eq!(inlined.call_sites, 1, "the exit jump, inlined once"),
        other => panic!("not structured: {other:?}"),
    }
}

//! The shared exact FP64 multiply-add (`translator/src/lower/shared_fma.rs`) on lavapipe: `fp64_round_misc`
//! (32 DFMA/DADD/DMUL sites, blocks of 16 and 28 with guards: segment loops in the structured form, one body
//! with continuation cases in the dispatch form) matches its NVIDIA silicon goldens in both forms, natively and
//! with float64 masked (soft double, whose DADD/DMUL of every mode are sites too).

mod common;

use sassport::golden::compare;
use sassport_runtime::abi::{Feature, Features};
use sassport_runtime::{Bank0, Launch, Runtime};
use sassport_translator::translate::{translate_kernel, ControlForm, Options};
use sassport_translator::Cubin;
use std::time::Duration;

const KERNEL: &str = "fp64_round_misc";

/// The final contents of every buffer argument of the kernel's corpus launch, translated in `form` for the
/// runtime's profile.
fn run(rt: &mut Runtime, form: ControlForm) -> Vec<Vec<u8>> {
    let launches = sassport_corpus::launches().unwrap();
    let l = launches.iter().find(|l| l.kernel == KERNEL).unwrap();
    let bytes = std::fs::read(l.cubin_sm86()).unwrap();
    let cubin = Cubin::parse(&bytes).unwrap();
    rt.measure_float().unwrap();
    let options = Options { profile: Some(rt.profile()), control: form, ..Options::default() };
    let t = translate_kernel(&cubin, KERNEL, &options).unwrap();
    let id = rt.load_kernel(KERNEL, &t.words).unwrap();
    let mut addresses = Vec::new();
    for a in &l.args {
        if let Some(init) = a.initial_contents() {
            let addr = rt.alloc(init.len().max(4) as u64).unwrap();
            rt.upload(addr, &init).unwrap();
            addresses.push((addr, init.len()));
        }
    }
    let params = l.param_bytes(&addresses.iter().map(|(a, _)| *a).collect::<Vec<_>>()).unwrap();
    let (grid, block) = ([l.grid.x, l.grid.y, l.grid.z], [l.block.x, l.block.y, l.block.z]);
    let bank0 = Bank0::new(grid, block).with_params(&params);
    let module = rt.load_module_data(&cubin).unwrap();
    let mut banks: Vec<(u32, &[u8])> = vec![(0, bank0.as_bytes())];
    banks.extend(module.banks_for(KERNEL));
    rt.launch(&Launch { kernel: id, grid, block, dynamic_shared_bytes: 0, banks: &banks }).unwrap();
    drop(banks);
    module.free(rt).unwrap();
    let mut out = Vec::new();
    for (addr, len) in addresses {
        let mut b = vec![0u8; len];
        rt.download(addr, &mut b).unwrap();
        rt.free(addr).unwrap();
        out.push(b);
    }
    out
}

fn check(rt: &mut Runtime, what: &str) {
    let launches = sassport_corpus::launches().unwrap();
    let l = launches.iter().find(|l| l.kernel == KERNEL).unwrap();
    let goldens: Vec<Vec<u8>> = (0..l.args.len())
        .filter(|&i| l.args[i].is_buffer())
        .map(|i| std::fs::read(l.golden(i)).unwrap())
        .collect();
    for form in [ControlForm::Structured, ControlForm::Dispatch] {
        let got = run(rt, form);
        for (i, (g, want)) in got.iter().zip(&goldens).enumerate() {
            let diff = compare(l.comparison, g, want);
            assert_eq!(diff.mismatches, 0, "{what} {form:?} buffer {i}: {:?}", diff.examples);
        }
    }
}

#[test]
fn shared_fma_matches_silicon_in_both_forms_native_and_soft() {
    let mut rt = common::runtime(Duration::from_secs(300));
    check(&mut rt, "native");
    drop(rt);
    let mut rt = common::runtime_without(Duration::from_secs(300), Features::default().with(Feature::Float64));
    check(&mut rt, "soft");
}

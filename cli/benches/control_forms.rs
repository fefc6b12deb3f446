//! Structured control flow against the whole-kernel pc-dispatch loop, on the default Vulkan device (lavapipe
//! here): the launch time of the control-heavy corpus kernels in both forms, and their module sizes.
//!
//! `cargo bench -p sassport --bench control_forms`; the sizes print once before the timings.

mod support;

use criterion::{criterion_group, criterion_main, Criterion};
use sassport_translator::translate::ControlForm;
use support::{corpus_launch, launch, prepare};

const KERNELS: &[&str] = &[
    "loops",
    "divergent_branches",
    "switch_dense",
    "switch_sparse",
    "reduce_shared_tree",
    "matmul_tiled",
    "calls_direct",
    "calls_recursive",
    "calls_indirect",
];

fn control_forms(c: &mut Criterion) {
    let mut rt = support::runtime();
    let launches = sassport_corpus::launches().expect("corpus manifest");
    let mut group = c.benchmark_group(format!("control_forms/{}", rt.device().name));
    group.sample_size(20);
    for name in KERNELS {
        let l = corpus_launch(&launches, name);
        let structured = prepare(&mut rt, &l, ControlForm::Structured);
        let dispatch = prepare(&mut rt, &l, ControlForm::Dispatch);
        println!("{name}: module words structured {}, dispatch {}", structured.words, dispatch.words);
        // First launches create the pipelines; keep them out of the timings.
        launch(&mut rt, &structured);
        launch(&mut rt, &dispatch);
        group.bench_function(format!("{name}/structured"), |b| b.iter(|| launch(&mut rt, &structured)));
        group.bench_function(format!("{name}/dispatch"), |b| b.iter(|| launch(&mut rt, &dispatch)));
    }
    group.finish();
}

criterion_group!(benches, control_forms);
criterion_main!(benches);

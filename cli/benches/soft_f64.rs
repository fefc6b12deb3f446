//! Soft double against native double (issue 23): the launch time of the FP64 corpus kernels translated for
//! the default device (lavapipe here) as it is and with `float64` masked (`RuntimeOptions::without`, soft
//! double in integer arithmetic), after one untimed first launch each. That first launch creates the
//! pipeline: its wall time (the driver's compile, lavapipe's shader cache off) and the module sizes print
//! once before the timings.
//!
//! `MESA_SHADER_CACHE_DISABLE=true cargo bench -p sassport --bench soft_f64`

mod support;

use criterion::{criterion_group, criterion_main, Criterion};
use sassport_runtime::{abi, PipelineCacheLocation, Runtime, RuntimeOptions};
use sassport_translator::translate::ControlForm;
use std::time::Instant;
use support::{corpus_launch, launch, prepare};

/// The corpus kernels whose native translation declares Float64 (translator/tests/without_features.rs lists
/// them), the double matrix product among them.
const KERNELS: &[&str] =
    &["daxpy", "dmatmul_tiled", "fp64_round_arith", "fp64_div_sqrt", "fp64_convert", "fp64_round_misc"];

fn runtime(without: abi::Features) -> Runtime {
    Runtime::new(RuntimeOptions {
        window_bytes: Some(64 << 20),
        pipeline_cache: PipelineCacheLocation::Disabled,
        without,
        ..Default::default()
    })
    .expect("a Vulkan device")
}

fn soft_f64(c: &mut Criterion) {
    let mut native = runtime(abi::Features::NONE);
    let mut soft = runtime(abi::Features::NONE.with(abi::Feature::Float64));
    let launches = sassport_corpus::launches().expect("corpus manifest");
    let mut group = c.benchmark_group(format!("soft_f64/{}", native.device().name));
    group.sample_size(10);
    for name in KERNELS {
        let l = corpus_launch(&launches, name);
        let pn = prepare(&mut native, &l, ControlForm::default());
        let ps = prepare(&mut soft, &l, ControlForm::default());
        let t = Instant::now();
        launch(&mut native, &pn);
        let first_native = t.elapsed();
        let t = Instant::now();
        launch(&mut soft, &ps);
        let first_soft = t.elapsed();
        println!(
            "{name}: module words native {}, soft {}; first launch (pipeline creation included) native {:.3} s, soft {:.3} s",
            pn.words,
            ps.words,
            first_native.as_secs_f64(),
            first_soft.as_secs_f64()
        );
        group.bench_function(format!("{name}/native"), |b| b.iter(|| launch(&mut native, &pn)));
        group.bench_function(format!("{name}/soft"), |b| b.iter(|| launch(&mut soft, &ps)));
    }
    group.finish();
}

criterion_group!(benches, soft_f64);
criterion_main!(benches);

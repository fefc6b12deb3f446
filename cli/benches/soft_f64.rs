//! Soft double against native double (issue 23): the launch time of the FP64 corpus kernels translated for
//! the default device (lavapipe here) as it is and with `float64` masked (`RuntimeOptions::without`, soft
//! double in integer arithmetic), after one untimed first launch each. That first launch creates the
//! pipeline: its wall time (the driver's compile, lavapipe's shader cache off) and the module sizes print
//! once before the timings.
//!
//! The same for the other emulations (`SASSPORT_BENCH_GROUP=soft_f16` or `soft_atomic64` picks one group):
//! the FP16 corpus kernels with `float16` masked (FP16 arithmetic through 32-bit values, `lower::soft_f16`) and
//! with `float16,float64` masked, and the 64-bit atomic kernels with `int64-atomics` masked (a lock per
//! doubleword, `lower::soft_atomic64`). By name only: `soft_f64_rest` (the other FP64 corpus kernels) and
//! `soft_heap` (the device heap's kernels with `int64-atomics` masked: free lists with 32-bit atomics).
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

/// The FP16 kernels (sm86 SASS with HADD2/HMUL2/HFMA2/HSETP2/HSET2/HMNMX2) and the 64-bit atomic ones.
const FP16_KERNELS: &[&str] = &["fp16_arith", "fp16_convert", "fp16_compare", "bf16_ops", "narrowing_conversions"];
const ATOMIC64_KERNELS: &[&str] = &["atomics_global_owned", "atomics_global_contended", "reduce_warp_shuffle"];
/// The other FP64 corpus kernels (`cli/tests/soft_f64_goldens.rs`), for `SASSPORT_BENCH_GROUP=soft_f64_rest`.
const FP64_REST: &[&str] = &[
    "fp32_double_convert",
    "fp16_convert",
    "math_library_forms",
    "precise_math",
    "narrow_int_convert",
    "global_widths",
    "calls_direct",
    "atomics_global_contended",
    "wmma_s8_f64",
];
/// The device heap's kernels with goldens (free lists with 32-bit atomics without int64-atomics).
const HEAP_KERNELS: &[&str] = &["heap_per_thread", "heap_block_shared", "heap_exhaustion"];

fn soft_f64(c: &mut Criterion) {
    use abi::Feature::{Float16, Float64, Int64Atomics};
    let none = abi::Features::NONE;
    let groups: [(&str, &[&str], abi::Features); 6] = [
        ("soft_f64", KERNELS, none.with(Float64)),
        ("soft_f64_rest", FP64_REST, none.with(Float64)),
        ("soft_heap", HEAP_KERNELS, none.with(Int64Atomics)),
        ("soft_f16", FP16_KERNELS, none.with(Float16)),
        ("soft_f16_f64", FP16_KERNELS, none.with(Float16).with(Float64)),
        ("soft_atomic64", ATOMIC64_KERNELS, none.with(Int64Atomics)),
    ];
    let only = std::env::var("SASSPORT_BENCH_GROUP").ok();
    let launches = sassport_corpus::launches().expect("corpus manifest");
    for (label, kernels, mask) in groups {
        // A group runs when asked for by name, or with no name given (the rest and the heap only by name).
        let extra = matches!(label, "soft_f64_rest" | "soft_heap");
        if only.as_deref().map_or(extra, |o| !label.starts_with(o) || (extra && label != o)) {
            continue;
        }
        let mut native = runtime(none);
        let mut soft = runtime(mask);
        let mut group = c.benchmark_group(format!("{label}/{}", native.device().name));
        group.sample_size(10);
        for name in kernels {
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
                "{label} {name}: module words native {}, soft {}; first launch (pipeline creation included) native {:.3} s, soft {:.3} s",
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
}

criterion_group!(benches, soft_f64);
criterion_main!(benches);

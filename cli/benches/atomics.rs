//! Atomics (issue 4): the contended global atomics kernel (`atomics_global_contended`: integer, f32 and
//! f64 RED, the f64 add a compare-exchange loop on 64-bit words) and the shared-memory one
//! (`atomics_shared`: ATOMS, the 32-bit CAS loop and the lock-guarded `ATOMS.CAST.SPIN.64`), both in the
//! warps-in-turns form, launched with warm pipelines on the default Vulkan device (lavapipe here). Module
//! sizes print once before the timings.
//!
//! `cargo bench -p sassport --bench atomics`.

use criterion::{criterion_group, criterion_main, Criterion};
use sassport_corpus::Launch;
use sassport_runtime::{
    Bank0, KernelId, Launch as RtLaunch, PipelineCacheLocation, Runtime, RuntimeOptions,
};
use sassport_translator::translate::{translate_kernel, Options};
use sassport_translator::Cubin;

const KERNELS: &[&str] = &["atomics_global_contended", "atomics_shared"];

struct Prepared {
    kernel: KernelId,
    launch: Launch,
    bank0: Bank0,
}

fn prepare(rt: &mut Runtime, l: &Launch) -> Prepared {
    let bytes = std::fs::read(l.cubin_sm86()).expect("corpus cubin");
    let cubin = Cubin::parse(&bytes).expect("corpus cubin parses");
    let options = Options {
        profile: Some(rt.profile()),
        ..Default::default()
    };
    let t =
        translate_kernel(&cubin, &l.kernel, &options).expect("the benchmarked kernels translate");
    let form = t
        .report
        .form
        .as_ref()
        .map_or(String::from("-"), |f| f.to_string());
    println!("{}: {} module words; {form}", l.kernel, t.words.len());
    let kernel = rt.load_kernel(&l.kernel, &t.words).expect("pipeline");
    let mut addresses = Vec::new();
    for a in &l.args {
        if let Some(init) = a.initial_contents() {
            let addr = rt.alloc(init.len().max(4) as u64).expect("window space");
            rt.upload(addr, &init).expect("upload");
            addresses.push(addr);
        }
    }
    let params = l.param_bytes(&addresses).expect("one address per buffer");
    let bank0 = Bank0::new(
        [l.grid.x, l.grid.y, l.grid.z],
        [l.block.x, l.block.y, l.block.z],
    )
    .with_dynamic_shared(l.shared_bytes)
    .with_params(&params);
    Prepared {
        kernel,
        launch: l.clone(),
        bank0,
    }
}

fn launch(rt: &mut Runtime, p: &Prepared) {
    let l = &p.launch;
    rt.launch(&RtLaunch {
        kernel: p.kernel,
        grid: [l.grid.x, l.grid.y, l.grid.z],
        block: [l.block.x, l.block.y, l.block.z],
        dynamic_shared_bytes: l.shared_bytes,
        banks: &[(0, p.bank0.as_bytes())],
    })
    .expect("launch");
}

fn atomics(c: &mut Criterion) {
    let mut rt = Runtime::new(RuntimeOptions {
        window_bytes: Some(64 << 20),
        pipeline_cache: PipelineCacheLocation::Disabled,
        ..Default::default()
    })
    .expect("a Vulkan device");
    let launches = sassport_corpus::launches().expect("corpus manifest");
    let mut group = c.benchmark_group(format!("atomics/{}", rt.device().name));
    group.sample_size(20);
    for name in KERNELS {
        let l = launches
            .iter()
            .find(|l| l.kernel == *name)
            .expect("kernel in the manifest");
        let p = prepare(&mut rt, l);
        // The first launch creates the pipeline; keep it out of the timings.
        launch(&mut rt, &p);
        group.bench_function(*name, |b| b.iter(|| launch(&mut rt, &p)));
    }
    group.finish();
}

criterion_group!(benches, atomics);
criterion_main!(benches);

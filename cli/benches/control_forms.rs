//! Structured control flow against the whole-kernel pc-dispatch loop, on the default Vulkan device (lavapipe
//! here): the launch time of the control-heavy corpus kernels in both forms, and their module sizes.
//!
//! `cargo bench -p sassport --bench control_forms`; the sizes print once before the timings.

use criterion::{criterion_group, criterion_main, Criterion};
use sassport_corpus::Launch;
use sassport_runtime::{
    Bank0, KernelId, Launch as RtLaunch, ModuleData, PipelineCacheLocation, Runtime, RuntimeOptions,
};
use sassport_translator::translate::{translate_kernel, ControlForm, Options};
use sassport_translator::Cubin;

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

/// A launch ready to repeat: the kernel loaded, its buffers uploaded, bank 0 filled.
struct Prepared {
    kernel: KernelId,
    launch: Launch,
    bank0: Bank0,
    /// The cubin's other constant banks (jump tables, relocated addresses), as the runtime loads them.
    banks: Vec<(u32, Vec<u8>)>,
    /// The placed globals those banks point into (kept for the whole run).
    _module: ModuleData,
    words: usize,
}

fn prepare(rt: &mut Runtime, l: &Launch, control: ControlForm) -> Prepared {
    let bytes = std::fs::read(l.cubin_sm86()).expect("corpus cubin");
    let cubin = Cubin::parse(&bytes).expect("corpus cubin parses");
    let options = Options { profile: Some(rt.profile()), control };
    let t = translate_kernel(&cubin, &l.kernel, &options).expect("control-heavy corpus kernels translate");
    let kernel = rt.load_kernel(&l.kernel, &t.words).expect("pipeline");
    let module = rt.load_module_data(&cubin).expect("module data");
    let banks = module.banks_for(&l.kernel).into_iter().map(|(b, d)| (b, d.to_vec())).collect();
    let mut addresses = Vec::new();
    for a in &l.args {
        if let Some(init) = a.initial_contents() {
            let addr = rt.alloc(init.len().max(4) as u64).expect("window space");
            rt.upload(addr, &init).expect("upload");
            addresses.push(addr);
        }
    }
    let params = l.param_bytes(&addresses).expect("one address per buffer");
    let bank0 = Bank0::new([l.grid.x, l.grid.y, l.grid.z], [l.block.x, l.block.y, l.block.z])
        .with_dynamic_shared(l.shared_bytes)
        .with_params(&params);
    Prepared { kernel, launch: l.clone(), bank0, banks, _module: module, words: t.words.len() }
}

fn launch(rt: &mut Runtime, p: &Prepared) {
    let l = &p.launch;
    let mut banks: Vec<(u32, &[u8])> = vec![(0, p.bank0.as_bytes())];
    banks.extend(p.banks.iter().map(|(b, d)| (*b, d.as_slice())));
    rt.launch(&RtLaunch {
        kernel: p.kernel,
        grid: [l.grid.x, l.grid.y, l.grid.z],
        block: [l.block.x, l.block.y, l.block.z],
        dynamic_shared_bytes: l.shared_bytes,
        banks: &banks,
    })
    .expect("launch");
}

fn control_forms(c: &mut Criterion) {
    let mut rt = Runtime::new(RuntimeOptions {
        window_bytes: Some(64 << 20),
        pipeline_cache: PipelineCacheLocation::Disabled,
        ..Default::default()
    })
    .expect("a Vulkan device");
    let launches = sassport_corpus::launches().expect("corpus manifest");
    let mut group = c.benchmark_group(format!("control_forms/{}", rt.device().name));
    group.sample_size(20);
    for name in KERNELS {
        let l = launches.iter().find(|l| l.kernel == *name).expect("kernel in the manifest");
        let structured = prepare(&mut rt, l, ControlForm::Structured);
        let dispatch = prepare(&mut rt, l, ControlForm::Dispatch);
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

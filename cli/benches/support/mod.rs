//! Corpus launches prepared once and repeated, shared by the launch benchmarks: the kernel translated for the
//! runtime's device and loaded, its buffers uploaded, bank 0 filled, and the cubin's other constant banks and
//! module data placed as the runtime's `run_kernel` does.

use sassport_corpus::Launch;
use sassport_runtime::{
    Bank0, KernelId, Launch as RtLaunch, ModuleData, PipelineCacheLocation, Runtime, RuntimeOptions,
};
use sassport_translator::translate::{translate_kernel, ControlForm, Options};
use sassport_translator::Cubin;

/// A launch ready to repeat.
pub struct Prepared {
    kernel: KernelId,
    launch: Launch,
    bank0: Bank0,
    /// The cubin's other constant banks (jump tables, relocated addresses), as the runtime loads them.
    banks: Vec<(u32, Vec<u8>)>,
    /// The placed globals those banks point into (kept for the whole run).
    _module: ModuleData,
    /// Words of the translated module.
    pub words: usize,
    /// The control form the translator reports.
    pub form: String,
}

/// The default device with a 64 MiB window and no on-disk pipeline cache.
pub fn runtime() -> Runtime {
    Runtime::new(RuntimeOptions {
        window_bytes: Some(64 << 20),
        pipeline_cache: PipelineCacheLocation::Disabled,
        ..Default::default()
    })
    .expect("a Vulkan device")
}

/// The manifest's launch of `kernel`.
pub fn corpus_launch(launches: &[Launch], kernel: &str) -> Launch {
    launches.iter().find(|l| l.kernel == kernel).expect("kernel in the manifest").clone()
}

pub fn prepare(rt: &mut Runtime, l: &Launch, control: ControlForm) -> Prepared {
    let bytes = std::fs::read(l.cubin_sm86()).expect("corpus cubin");
    let cubin = Cubin::parse(&bytes).expect("corpus cubin parses");
    let options = Options { profile: Some(rt.profile()), control, ..Options::default() };
    let t = translate_kernel(&cubin, &l.kernel, &options).expect("the benchmarked kernels translate");
    let form = t.report.form.as_ref().map_or(String::from("-"), |f| f.to_string());
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
    Prepared { kernel, launch: l.clone(), bank0, banks, _module: module, words: t.words.len(), form }
}

pub fn launch(rt: &mut Runtime, p: &Prepared) {
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

/// Times each of `kernels` in the default (structured or turns) form, after one untimed launch that creates
/// the pipeline; module sizes and forms print first.
#[allow(dead_code)] // control_forms times two forms per kernel instead
pub fn bench_kernels(c: &mut criterion::Criterion, group: &str, kernels: &[&str]) {
    let mut rt = runtime();
    let launches = sassport_corpus::launches().expect("corpus manifest");
    let mut group = c.benchmark_group(format!("{group}/{}", rt.device().name));
    group.sample_size(20);
    for name in kernels {
        let p = prepare(&mut rt, &corpus_launch(&launches, name), ControlForm::default());
        println!("{name}: {} module words; {}", p.words, p.form);
        launch(&mut rt, &p);
        group.bench_function(*name, |b| b.iter(|| launch(&mut rt, &p)));
    }
    group.finish();
}

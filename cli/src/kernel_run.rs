//! Translating and launching one cubin kernel on a [`Runtime`]: the shared path of `sassport run`, the main
//! job (`sassport corpus`) and the end-to-end tests.

use anyhow::{anyhow, Context, Result};
use sassport_runtime::{Bank0, Launch, PipelineCacheLocation, Runtime, SpirvCache, TranslationKey};
use sassport_translator::translate::{translate_kernel, Options, Report, Translation, TRANSLATOR_VERSION};
use sassport_translator::Cubin;
use std::time::{Duration, Instant};

/// A kernel argument as the launch sees it.
#[derive(Clone, Debug, PartialEq)]
pub enum KernelArg {
    /// A by-value parameter: its little-endian bytes and alignment.
    Value { bytes: Vec<u8>, align: u32 },
    /// A device buffer with these initial contents; the kernel receives its 64-bit GPU address.
    Buffer(Vec<u8>),
}

impl KernelArg {
    /// The arguments of a corpus launch (`corpus/launches.txt`): buffers with their generated contents, scalars
    /// with their bytes and alignment.
    pub fn of_launch(launch: &sassport_corpus::Launch) -> Vec<KernelArg> {
        launch
            .args
            .iter()
            .map(|a| match (a.initial_contents(), a.value_bytes()) {
                (Some(init), _) => KernelArg::Buffer(init),
                (None, bytes) => KernelArg::Value { bytes: bytes.unwrap_or_default(), align: a.param_size_align().1 },
            })
            .collect()
    }
}

/// What one launch produced.
#[derive(Debug)]
pub struct KernelRun {
    pub translation: Translation,
    /// Whether the module came from the on-disk SPIR-V cache (then the report holds no figures).
    pub cached: bool,
    /// Wall time of translation (or of the cache lookup).
    pub translate_time: Duration,
    /// Wall time of the driver's pipeline creation (0 when its in-memory cache held the pipeline).
    pub compile_time: Duration,
    /// GPU time of the kernel when the device has timestamps, else the host-side launch time.
    pub kernel_time: Duration,
    /// Final contents of each [`KernelArg::Buffer`], in argument order.
    pub buffers: Vec<Vec<u8>>,
    /// What the kernel printed with device `printf`.
    pub printf: sassport_runtime::PrintfOutput,
}

/// Why a kernel did not run.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The translator refused the kernel (an instruction not translated yet, ...).
    #[error("refused: {0}")]
    Refused(String),
    /// Anything else: missing kernel, device or launch errors.
    #[error(transparent)]
    Other(#[from] anyhow::Error),
}

/// Lays out parameters at their natural alignment, as nvcc does for `KPARAM_INFO` (checked against the cubin
/// by [`run_kernel`]).
pub fn param_layout(args: &[KernelArg]) -> Vec<(u32, u32)> {
    let mut offset = 0u32;
    args.iter()
        .map(|a| {
            let (size, align) = match a {
                KernelArg::Value { bytes, align } => (bytes.len() as u32, (*align).max(1)),
                KernelArg::Buffer(_) => (8, 8),
            };
            offset = offset.div_ceil(align) * align;
            let slot = (offset, size);
            offset += size;
            slot
        })
        .collect()
}

/// The default on-disk cache of translated modules: `spirv/` in the user's sassport cache directory.
pub fn default_spirv_cache() -> Option<SpirvCache> {
    PipelineCacheLocation::UserCache.dir().map(|d| SpirvCache::new(d.join("spirv")))
}

/// Translates `kernel` of `cubin_bytes` for the runtime's device (or takes the module from `cache`) and
/// launches it with `args`.
#[allow(clippy::too_many_arguments)]
/// How kernels with warp instructions run their warps (`--warps`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Warps {
    /// As 32-wide subgroups where the device has them, else in turns.
    Auto,
    /// In turns on every device.
    Turns,
}

pub fn run_kernel(
    rt: &mut Runtime,
    cache: Option<&SpirvCache>,
    cubin_bytes: &[u8],
    kernel: &str,
    grid: [u32; 3],
    block: [u32; 3],
    dynamic_shared_bytes: u32,
    args: &[KernelArg],
) -> Result<KernelRun, RunError> {
    let cubin = Cubin::parse(cubin_bytes).context("reading the cubin")?;
    let k = cubin.kernel(kernel).ok_or_else(|| {
        let names: Vec<&str> = cubin.kernels.iter().map(|k| k.name()).collect();
        anyhow!("no kernel `{kernel}` in the cubin (kernels: {})", names.join(", "))
    })?;

    // Parameters must land where the cubin says the kernel reads them.
    let layout = param_layout(args);
    let params = &k.info.params;
    if params.len() != args.len() {
        return Err(anyhow!("kernel `{kernel}` takes {} parameters, {} given", params.len(), args.len()).into());
    }
    let mut by_ordinal: Vec<_> = params.iter().collect();
    by_ordinal.sort_by_key(|p| p.ordinal);
    for (i, (p, (offset, size))) in by_ordinal.iter().zip(&layout).enumerate() {
        if u32::from(p.offset) != *offset || u32::from(p.size) != *size {
            return Err(anyhow!(
                "argument {i}: the kernel expects {} bytes at parameter offset {:#x}, the argument gives {size} at {offset:#x}",
                p.size,
                p.offset
            )
            .into());
        }
    }

    // The float self-test (once per device and driver, kept on disk) decides native or exact lowerings.
    rt.measure_float().context("measuring the device's float behaviour")?;
    let profile = rt.profile();
    let options = Options { profile: Some(profile.clone()), ..Options::default() };
    let key = TranslationKey { cubin: cubin_bytes, kernel, profile: &profile, translator_version: TRANSLATOR_VERSION };
    let started = Instant::now();
    // A cached module is used only after its key and content hash check out; a damaged or misplaced entry
    // is reported once, translated again and overwritten, and an unwritable cache only loses the caching.
    let mut built = None;
    let mut translate = || -> Result<Vec<u32>, RunError> {
        let t = translate_kernel(&cubin, kernel, &options).map_err(|e| RunError::Refused(e.to_string()))?;
        let words = t.words.clone();
        built = Some(t);
        Ok(words)
    };
    let (words, cached) = match cache {
        Some(c) => c.get_or_build(&key, translate)?,
        None => (translate()?, false),
    };
    let translation = built.unwrap_or_else(|| Translation {
        kernel: kernel.to_string(),
        report: Report { words: words.len(), ..Report::default() },
        words,
    });
    let translate_time = started.elapsed();
    let id = rt.load_kernel(kernel, &translation.words).context("creating the pipeline")?;
    // The driver's compile on its own (a launch would create the pipeline too; the corpus table shows both).
    let started = Instant::now();
    rt.prepare(id, block, dynamic_shared_bytes).context("creating the pipeline")?;
    let compile_time = started.elapsed();

    let mut addresses = Vec::new();
    for arg in args {
        if let KernelArg::Buffer(init) = arg {
            let addr = rt.alloc(init.len().max(4) as u64).context("allocating a buffer")?;
            rt.upload(addr, init).context("uploading a buffer")?;
            addresses.push((addr, init.len()));
        }
    }
    let mut param_bytes = vec![0u8; layout.last().map_or(0, |(o, s)| (o + s) as usize)];
    let mut next = addresses.iter();
    for (arg, (offset, _)) in args.iter().zip(&layout) {
        let bytes = match arg {
            KernelArg::Value { bytes, .. } => bytes.clone(),
            KernelArg::Buffer(_) => next.next().map(|(a, _)| a.to_le_bytes().to_vec()).unwrap_or_default(),
        };
        param_bytes[*offset as usize..*offset as usize + bytes.len()].copy_from_slice(&bytes);
    }
    let bank0 = Bank0::new(grid, block).with_dynamic_shared(dynamic_shared_bytes).with_params(&param_bytes);
    // `__device__` variables placed in the window, constant banks with their relocations applied.
    let module = rt.load_module_data(&cubin).context("placing the cubin's global data")?;
    let mut banks: Vec<(u32, &[u8])> = vec![(0, bank0.as_bytes())];
    banks.extend(module.banks_for(kernel));
    let started = Instant::now();
    let launched = rt.launch(&Launch { kernel: id, grid, block, dynamic_shared_bytes, banks: &banks });
    drop(banks);
    module.free(rt).context("freeing the cubin's global data")?;
    let report = launched.context("launching")?;
    let kernel_time = report.kernel_time.unwrap_or_else(|| started.elapsed());

    let mut buffers = Vec::new();
    for (addr, len) in addresses {
        let mut out = vec![0u8; len];
        rt.download(addr, &mut out).context("reading a buffer back")?;
        rt.free(addr).context("freeing a buffer")?;
        buffers.push(out);
    }
    Ok(KernelRun { translation, cached, translate_time, compile_time, kernel_time, buffers, printf: report.printf })
}

/// Parses `--without FEATURE,...` (`float64,int8`; see `sassport_runtime::abi::Feature`).
pub fn parse_without(list: &str) -> Result<sassport_runtime::abi::Features, String> {
    sassport_runtime::abi::Features::parse(list).map_err(|e| e.to_string())
}

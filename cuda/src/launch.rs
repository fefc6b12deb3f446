//! `cuLaunchKernel`: the kernel's parameters laid out as its cubin says (`KPARAM_INFO`) in constant bank 0,
//! the module's other banks (shared ones read back from the window, where `__constant__` writes land),
//! translation on first launch (kept in the on-disk SPIR-V cache), and the launch, queued: it runs after the
//! work queued before it, and its printf output and failure show at the next synchronisation point
//! ([`crate::sync`]), as CUDA's.

use crate::error::{DriverError, Result};
use crate::log::call;
use crate::result::CUresult;
use crate::state::{self, Driver, Gpu, Handle, Module};
use sassport_runtime::{Bank0, KernelId, Launch, TranslationKey};
use sassport_translator::translate::{translate_kernel, Options, TRANSLATOR_VERSION};
use sassport_translator::Cubin;
use std::ffi::c_void;

/// `CU_LAUNCH_PARAM_END`, `CU_LAUNCH_PARAM_BUFFER_POINTER`, `CU_LAUNCH_PARAM_BUFFER_SIZE`.
const PARAM_END: usize = 0;
const PARAM_BUFFER_POINTER: usize = 1;
const PARAM_BUFFER_SIZE: usize = 2;

/// One launch as `cuLaunchKernel` describes it.
pub struct LaunchRequest {
    pub func: Handle,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub shared: u32,
    pub stream: Handle,
    pub params: *mut *mut c_void,
    pub extra: *mut *mut c_void,
}

/// The parameter block from `kernelParams` (one pointer per parameter) or the `extra` buffer form.
///
/// # Safety
/// `params` holds one valid pointer per parameter, or `extra` is a `CU_LAUNCH_PARAM_END`-terminated list.
pub(crate) unsafe fn parameter_block(
    layout: &[(u32, u32)],
    total: u32,
    params: *mut *mut c_void,
    extra: *mut *mut c_void,
) -> Result<Vec<u8>> {
    let mut block = vec![0u8; total as usize];
    if !params.is_null() {
        for (i, &(offset, size)) in layout.iter().enumerate() {
            let p = unsafe { *params.add(i) };
            if p.is_null() {
                return Err(DriverError::InvalidValue(format!(
                    "kernelParams[{i}] is null"
                )));
            }
            let dst = block
                .get_mut(offset as usize..(offset + size) as usize)
                .ok_or_else(|| {
                    DriverError::InvalidImage(format!(
                        "parameter {i} lies outside the parameter block"
                    ))
                })?;
            dst.copy_from_slice(unsafe {
                std::slice::from_raw_parts(p.cast::<u8>(), size as usize)
            });
        }
        return Ok(block);
    }
    if extra.is_null() {
        return if layout.is_empty() {
            Ok(block)
        } else {
            Err(DriverError::InvalidValue(
                "no kernel parameters given".into(),
            ))
        };
    }
    let (mut buffer, mut size) = (std::ptr::null::<u8>(), None::<usize>);
    let mut i = 0;
    loop {
        let key = unsafe { *extra.add(i) } as usize;
        match key {
            PARAM_END => break,
            PARAM_BUFFER_POINTER => buffer = unsafe { *extra.add(i + 1) } as *const u8,
            PARAM_BUFFER_SIZE => size = Some(unsafe { *(*extra.add(i + 1) as *const usize) }),
            other => {
                return Err(DriverError::NotSupported(format!(
                    "launch extra option {other:#x}"
                )))
            }
        }
        i += 2;
    }
    let size = size
        .ok_or_else(|| DriverError::InvalidValue("CU_LAUNCH_PARAM_BUFFER_SIZE missing".into()))?;
    if buffer.is_null() || size < total as usize {
        return Err(DriverError::InvalidValue(format!(
            "parameter buffer of {size} bytes, the kernel takes {total}"
        )));
    }
    block.copy_from_slice(unsafe { std::slice::from_raw_parts(buffer, total as usize) });
    Ok(block)
}

/// The kernel's pipeline: translated on first use, through the on-disk cache.
fn pipeline(gpu: &mut Gpu, module: &Module, name: &str) -> Result<KernelId> {
    let cubin = Cubin::parse(&module.cubin)
        .map_err(|e| DriverError::InvalidImage(format!("cubin: {e}")))?;
    gpu.rt.measure_float()?;
    let profile = gpu.rt.profile();
    let key = TranslationKey {
        cubin: &module.cubin,
        kernel: name,
        profile: &profile,
        translator_version: TRANSLATOR_VERSION,
    };
    let started = std::time::Instant::now();
    let mut made = String::from("module from the translation cache");
    let words = match gpu.spirv_cache.as_ref().and_then(|c| c.get(&key)) {
        Some(words) => words,
        None => {
            let options = Options {
                profile: Some(profile.clone()),
                ..Options::default()
            };
            let t = translate_kernel(&cubin, name, &options).map_err(|e| DriverError::Refused {
                kernel: name.to_string(),
                reason: e.to_string(),
            })?;
            if let Some(c) = &gpu.spirv_cache {
                // A cache that cannot be written only costs the next run a translation.
                let _ = c.put(&key, &t.words);
            }
            if crate::log::kernels_enabled() {
                let form = t.report.form.as_ref().map(|f| f.to_string()).unwrap_or_default();
                made = format!(
                    "translated in {} ms ({} instructions, {} words; {form})",
                    started.elapsed().as_millis(),
                    t.report.instructions,
                    t.report.words
                );
            }
            t.words
        }
    };
    let loading = std::time::Instant::now();
    let id = gpu.rt.load_kernel(name, &words)?;
    if crate::log::kernels_enabled() {
        crate::log::line(&format!(
            "kernel {name}: {made}; pipeline ready in {} ms",
            loading.elapsed().as_millis()
        ));
    }
    Ok(id)
}

fn check_shape(r: &LaunchRequest, max_threads: u32, max_dynamic_shared: u32) -> Result<()> {
    let threads: u64 = r.block.iter().map(|&b| u64::from(b)).product();
    if r.grid.contains(&0) || r.block.contains(&0) {
        return Err(DriverError::InvalidValue(format!(
            "grid {:?} or block {:?} has a zero dimension",
            r.grid, r.block
        )));
    }
    if threads > 1024
        || r.block[0] > 1024
        || r.block[1] > 1024
        || r.block[2] > 64
        || r.grid[1] > 65535
        || r.grid[2] > 65535
    {
        return Err(DriverError::InvalidValue(format!(
            "grid {:?} block {:?} exceeds CUDA's limits",
            r.grid, r.block
        )));
    }
    if threads > u64::from(max_threads) {
        return Err(DriverError::LaunchOutOfResources(format!(
            "{threads} threads, the kernel runs at most {max_threads}"
        )));
    }
    if r.shared > max_dynamic_shared {
        return Err(DriverError::InvalidValue(format!(
            "{} bytes of dynamic shared memory, at most {max_dynamic_shared}",
            r.shared
        )));
    }
    Ok(())
}

fn launch(d: &mut Driver, r: &LaunchRequest) -> Result<()> {
    crate::stream::check(d, r.stream)?;
    let f = d.function(r.func)?;
    check_shape(r, f.max_threads, f.max_dynamic_shared)?;
    let params = unsafe { parameter_block(&f.params, f.param_bytes, r.params, r.extra) }?;
    let (func, grid, block, shared) = (r.func, r.grid, r.block, r.shared);
    let node = || Ok(crate::graph::Op::Kernel { func, grid, block, shared, params: params.clone() });
    if crate::graph::captured(d, r.stream, node)? {
        return Ok(());
    }
    enqueue(d, r.func, r.grid, r.block, r.shared, r.stream, &params)
}

/// Queues a launch of `func` with its laid-out parameter block (a launch call, or a graph's kernel node).
pub(crate) fn enqueue(
    d: &mut Driver,
    func: Handle,
    grid: [u32; 3],
    block: [u32; 3],
    shared: u32,
    stream: Handle,
    params: &[u8],
) -> Result<()> {
    let r = &LaunchRequest {
        func,
        grid,
        block,
        shared,
        stream,
        params: std::ptr::null_mut(),
        extra: std::ptr::null_mut(),
    };
    let f = d.function(r.func)?;
    let (module, name, kernel) = (f.module, f.name.clone(), f.kernel);
    check_shape(r, f.max_threads, f.max_dynamic_shared)?;
    if params.len() != f.param_bytes as usize {
        return Err(DriverError::InvalidValue(format!(
            "a parameter block of {} bytes, the kernel takes {}",
            params.len(),
            f.param_bytes
        )));
    }
    let device = d
        .modules
        .get(&module)
        .ok_or(DriverError::InvalidHandle { what: "module", handle: module })?
        .device;
    crate::managed::before_launch(d, device)?;
    let Driver {
        modules,
        devices,
        functions,
        ..
    } = d;
    let m = modules.get(&module).ok_or(DriverError::InvalidHandle {
        what: "module",
        handle: module,
    })?;
    let gpu = devices[m.device].gpu()?;
    let kernel = match kernel {
        Some(k) => k,
        None => {
            let k = pipeline(gpu, m, &name)?;
            if let Some(f) = functions.get_mut(&r.func) {
                f.kernel = Some(k);
            }
            k
        }
    };
    let mut banks: Vec<(u32, Vec<u8>)> = Vec::new();
    for (bank, bytes) in m.data.banks_for(&name) {
        match m.mirrored_banks.iter().find(|b| b.bank == bank) {
            Some(b) => {
                let mut current = vec![0u8; b.size as usize];
                // Kernels cannot write constant banks: read them without waiting for queued launches.
                gpu.rt.download_unqueued(b.address, &mut current)?;
                banks.push((bank, current));
            }
            None => banks.push((bank, bytes.to_vec())),
        }
    }
    let bank0 = Bank0::new(r.grid, r.block)
        .with_dynamic_shared(r.shared)
        .with_params(params);
    let mut bound: Vec<(u32, &[u8])> = vec![(0, bank0.as_bytes())];
    bound.extend(banks.iter().map(|(b, bytes)| (*b, bytes.as_slice())));
    let queued = gpu.rt.enqueue(&Launch {
        kernel,
        grid: r.grid,
        block: r.block,
        dynamic_shared_bytes: r.shared,
        banks: &bound,
    })?;
    if queued.pipeline_created {
        // The driver state lives until the process exits and is never dropped: keep new pipelines on disk
        // now, or the next run compiles them again. A cache that cannot be written only costs time.
        let _ = gpu.rt.save_pipeline_cache();
    }
    if !gpu.managed.is_empty() {
        gpu.managed_owed = true;
    }
    if let Some(s) = d.streams.get_mut(&r.stream) {
        s.last_serial = queued.serial;
    }
    Ok(())
}

#[no_mangle]
pub unsafe extern "C" fn cuLaunchKernel(
    func: Handle,
    gx: u32,
    gy: u32,
    gz: u32,
    bx: u32,
    by: u32,
    bz: u32,
    shared: u32,
    stream: Handle,
    params: *mut *mut c_void,
    extra: *mut *mut c_void,
) -> CUresult {
    let r = LaunchRequest {
        func,
        grid: [gx, gy, gz],
        block: [bx, by, bz],
        shared,
        stream,
        params,
        extra,
    };
    call(
        "cuLaunchKernel",
        || {
            format!(
                "func={func:#x}, grid={:?}, block={:?}, shared={shared}, stream={stream:#x}",
                r.grid, r.block
            )
        },
        || state::with(|d| launch(d, &r)),
    )
}

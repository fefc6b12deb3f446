//! Modules and libraries (one thing here: a cubin placed on a device), their functions and kernels (one thing
//! too), `__device__`/`__constant__` globals, and function attributes.
//!
//! Loading a module places its globals and relocated constant banks ([`sassport_runtime::ModuleData`]).
//! Banks shared by every kernel (`.nv.constant3`, which holds `__constant__` variables) are also copied into
//! the window, so that `cuModuleGetGlobal` has a device address to give for them and `cudaMemcpyToSymbol`
//! writes land where the next launch reads them ([`crate::launch`] binds the window's copy).

use crate::error::{DriverError, Result};
use crate::ffi::{c_str, out};
use crate::log::call;
use crate::result::CUresult;
use crate::state::{self, Driver, Function, Handle, Module};
use sassport_translator::Cubin;
use std::collections::HashMap;
use std::ffi::{c_char, c_void};

fn parse(cubin: &[u8]) -> Result<Cubin<'_>> {
    Cubin::parse(cubin).map_err(|e| DriverError::InvalidImage(format!("cubin: {e}")))
}

/// Loads a cubin into the current context's device.
pub fn load(d: &mut Driver, cubin: Vec<u8>) -> Result<Handle> {
    // Libraries belong to no context: without a current one, device 0 holds it (one device at a time for now).
    let device = if crate::context::current().is_some() {
        d.current_device()?
    } else {
        0
    };
    if d.devices.is_empty() {
        return Err(DriverError::NoDevice("no devices".into()));
    }
    let parsed = parse(&cubin)?;
    if !(80..=crate::fatbin::TARGET_ARCH).contains(&parsed.sm) {
        return Err(DriverError::NoBinaryForGpu(format!(
            "the cubin is for sm_{}",
            parsed.sm
        )));
    }
    let shared_banks: Vec<(u32, usize)> = parsed
        .constant_banks
        .iter()
        .filter(|b| b.function.is_none() && b.bank != 0)
        .map(|b| (b.bank, b.section))
        .collect();
    let gpu = crate::sync::settled_gpu(d, device)?;
    let data = gpu.rt.load_module_data(&parsed)?;
    let images: Vec<(u32, Vec<u8>)> = data
        .banks_for("")
        .into_iter()
        .map(|(b, bytes)| (b, bytes.to_vec()))
        .collect();
    let mut mirrored = Vec::new();
    for (bank, bytes) in images {
        let placed = gpu
            .rt
            .alloc(bytes.len().max(4) as u64)
            .and_then(|a| gpu.rt.upload(a, &bytes).map(|()| a));
        match placed {
            Ok(address) => {
                let section = shared_banks
                    .iter()
                    .find(|(b, _)| *b == bank)
                    .map_or(usize::MAX, |(_, s)| *s);
                mirrored.push(MirroredBank {
                    bank,
                    section,
                    address,
                    size: bytes.len() as u64,
                });
            }
            Err(e) => {
                for m in &mirrored {
                    let _ = gpu.rt.free(m.address);
                }
                let _ = data.free(&mut gpu.rt);
                return Err(e.into());
            }
        }
    }
    drop(parsed);
    let handle = d.issue();
    d.modules.insert(
        handle,
        Module {
            device,
            cubin,
            data,
            mirrored_banks: mirrored,
            functions: HashMap::new(),
        },
    );
    Ok(handle)
}

/// A constant bank shared by all kernels of a module, kept in the window.
pub struct MirroredBank {
    pub bank: u32,
    /// The bank's section in the cubin.
    pub section: usize,
    pub address: u64,
    pub size: u64,
}

/// Loads the image CUDA hands over (fat-binary wrapper, container or cubin) into the current context.
///
/// # Safety
/// `image` is a valid module image (see [`crate::fatbin::cubin_from_image`]).
pub unsafe fn load_image(image: *const c_void) -> Result<Handle> {
    let cubin = unsafe { crate::fatbin::cubin_from_image(image.cast()) }?;
    state::with(|d| load(d, cubin))
}

fn unload(d: &mut Driver, module: Handle) -> Result<()> {
    let m = d
        .modules
        .remove(&module)
        .ok_or(DriverError::InvalidHandle {
            what: "module",
            handle: module,
        })?;
    let gpu = crate::sync::settled_gpu(d, m.device)?;
    for b in &m.mirrored_banks {
        gpu.rt.free(b.address)?;
    }
    m.data.free(&mut gpu.rt)?;
    d.functions.retain(|_, f| f.module != module);
    Ok(())
}

/// The function `name` of `module`, made on first lookup.
pub fn function(d: &mut Driver, module: Handle, name: &str) -> Result<Handle> {
    let m = d.modules.get(&module).ok_or(DriverError::InvalidHandle {
        what: "module",
        handle: module,
    })?;
    if let Some(&f) = m.functions.get(name) {
        return Ok(f);
    }
    let parsed = parse(&m.cubin)?;
    let k = parsed.kernel(name).ok_or_else(|| DriverError::NotFound {
        what: "kernel",
        name: name.into(),
    })?;
    let mut params: Vec<_> = k.info.params.iter().collect();
    params.sort_by_key(|p| p.ordinal);
    let params: Vec<(u32, u32)> = params
        .iter()
        .map(|p| (u32::from(p.offset), u32::from(p.size)))
        .collect();
    let param_bytes = k
        .info
        .param_size
        .map(u32::from)
        .unwrap_or_else(|| params.iter().map(|(o, s)| o + s).max().unwrap_or(0));
    let registers = k.registers();
    let limit = k
        .info
        .required_threads
        .or(k.info.max_threads)
        .map(|t| t.iter().product::<u32>());
    let f = Function {
        module,
        name: name.to_string(),
        params,
        param_bytes,
        static_shared: k.shared_size,
        registers,
        local_bytes: k.frame_size(),
        max_threads: max_threads(registers, limit),
        max_dynamic_shared: 48 << 10,
        kernel: None,
    };
    drop(parsed);
    let handle = d.issue();
    d.functions.insert(handle, f);
    d.modules
        .get_mut(&module)
        .expect("looked up above")
        .functions
        .insert(name.to_string(), handle);
    Ok(handle)
}

/// The largest block a kernel can run: 1024, fewer where its registers do not fit 64K per block (registers
/// are allocated per warp in units of 256), or its `__launch_bounds__`.
fn max_threads(registers: u32, launch_bound: Option<u32>) -> u32 {
    let per_warp = (registers.max(1) * 32).next_multiple_of(256);
    let by_registers = (65536 / per_warp) * 32;
    by_registers.min(1024).min(launch_bound.unwrap_or(1024))
}

/// The device address and size of global `name` of `module`.
fn global(d: &mut Driver, module: Handle, name: &str) -> Result<(u64, usize)> {
    let m = d.modules.get(&module).ok_or(DriverError::InvalidHandle {
        what: "module",
        handle: module,
    })?;
    let parsed = parse(&m.cubin)?;
    let v = parsed
        .variables
        .iter()
        .find(|v| v.name == name)
        .ok_or_else(|| DriverError::NotFound {
            what: "global",
            name: name.into(),
        })?;
    let base = m
        .data
        .section_address(v.section)
        .or_else(|| {
            m.mirrored_banks
                .iter()
                .find(|b| b.section == v.section)
                .map(|b| b.address)
        })
        .ok_or_else(|| {
            DriverError::NotSupported(format!(
                "global {name} lives in {}, which is not placed",
                v.section_name
            ))
        })?;
    Ok((base + v.offset, v.size as usize))
}

#[no_mangle]
pub unsafe extern "C" fn cuModuleLoadData(module: *mut Handle, image: *const c_void) -> CUresult {
    call(
        "cuModuleLoadData",
        || format!("image={image:p}"),
        || {
            let h = unsafe { load_image(image) }?;
            unsafe { out(module, h, "module") }
        },
    )
}

/// JIT options only concern PTX, which sassport does not compile: they are accepted and ignored.
#[no_mangle]
pub unsafe extern "C" fn cuModuleLoadDataEx(
    module: *mut Handle,
    image: *const c_void,
    _num_options: u32,
    _options: *mut c_void,
    _values: *mut *mut c_void,
) -> CUresult {
    call(
        "cuModuleLoadDataEx",
        || format!("image={image:p}"),
        || {
            let h = unsafe { load_image(image) }?;
            unsafe { out(module, h, "module") }
        },
    )
}

#[no_mangle]
pub unsafe extern "C" fn cuModuleLoadFatBinary(
    module: *mut Handle,
    image: *const c_void,
) -> CUresult {
    call(
        "cuModuleLoadFatBinary",
        || format!("image={image:p}"),
        || {
            let h = unsafe { load_image(image) }?;
            unsafe { out(module, h, "module") }
        },
    )
}

#[no_mangle]
pub unsafe extern "C" fn cuModuleLoad(module: *mut Handle, path: *const c_char) -> CUresult {
    call("cuModuleLoad", String::new, || {
        let path = unsafe { c_str(path, "path") }?;
        let bytes = std::fs::read(path).map_err(|e| DriverError::NotFound {
            what: "file",
            name: format!("{path}: {e}"),
        })?;
        let h = unsafe { load_image(bytes.as_ptr().cast()) }?;
        unsafe { out(module, h, "module") }
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuModuleUnload(module: Handle) -> CUresult {
    call(
        "cuModuleUnload",
        || format!("module={module:#x}"),
        || state::with(|d| unload(d, module)),
    )
}

#[no_mangle]
pub unsafe extern "C" fn cuModuleGetFunction(
    func: *mut Handle,
    module: Handle,
    name: *const c_char,
) -> CUresult {
    let name = unsafe { c_str(name, "name") };
    let label = format!("module={module:#x}, name={:?}", name.as_ref().ok());
    call(
        "cuModuleGetFunction",
        || label,
        move || {
            let name = name?;
            let f = state::with(|d| function(d, module, name))?;
            unsafe { out(func, f, "function") }
        },
    )
}

#[no_mangle]
pub unsafe extern "C" fn cuModuleGetGlobal_v2(
    dptr: *mut u64,
    bytes: *mut usize,
    module: Handle,
    name: *const c_char,
) -> CUresult {
    let name = unsafe { c_str(name, "name") };
    let label = format!("module={module:#x}, name={:?}", name.as_ref().ok());
    call(
        "cuModuleGetGlobal",
        || label,
        move || {
            let name = name?;
            let (address, size) = state::with(|d| global(d, module, name))?;
            if !dptr.is_null() {
                unsafe { dptr.write(address) };
            }
            if !bytes.is_null() {
                unsafe { bytes.write(size) };
            }
            Ok(())
        },
    )
}

/// Modules load everything at once.
#[no_mangle]
pub unsafe extern "C" fn cuModuleGetLoadingMode(mode: *mut u32) -> CUresult {
    call("cuModuleGetLoadingMode", String::new, || unsafe {
        out(mode, 1, "mode")
    })
}

/// A library is a module; its options concern JIT and lazy loading and are ignored.
#[no_mangle]
pub unsafe extern "C" fn cuLibraryLoadData(
    library: *mut Handle,
    code: *const c_void,
    _jit_options: *mut c_void,
    _jit_values: *mut *mut c_void,
    _num_jit: u32,
    _library_options: *mut c_void,
    _library_values: *mut *mut c_void,
    _num_library: u32,
) -> CUresult {
    call(
        "cuLibraryLoadData",
        || format!("code={code:p}"),
        || {
            let h = unsafe { load_image(code) }?;
            unsafe { out(library, h, "library") }
        },
    )
}

#[no_mangle]
pub unsafe extern "C" fn cuLibraryUnload(library: Handle) -> CUresult {
    call(
        "cuLibraryUnload",
        || format!("library={library:#x}"),
        || state::with(|d| unload(d, library)),
    )
}

#[no_mangle]
pub unsafe extern "C" fn cuLibraryGetModule(module: *mut Handle, library: Handle) -> CUresult {
    call(
        "cuLibraryGetModule",
        || format!("library={library:#x}"),
        || {
            state::with(|d| {
                d.modules
                    .get(&library)
                    .map(|_| ())
                    .ok_or(DriverError::InvalidHandle {
                        what: "library",
                        handle: library,
                    })
            })?;
            unsafe { out(module, library, "module") }
        },
    )
}

#[no_mangle]
pub unsafe extern "C" fn cuLibraryGetKernel(
    kernel: *mut Handle,
    library: Handle,
    name: *const c_char,
) -> CUresult {
    let name = unsafe { c_str(name, "name") };
    let label = format!("library={library:#x}, name={:?}", name.as_ref().ok());
    call(
        "cuLibraryGetKernel",
        || label,
        move || {
            let name = name?;
            let f = state::with(|d| function(d, library, name))?;
            unsafe { out(kernel, f, "kernel") }
        },
    )
}

/// A kernel is its function in the one context there is per device.
#[no_mangle]
pub unsafe extern "C" fn cuKernelGetFunction(func: *mut Handle, kernel: Handle) -> CUresult {
    call(
        "cuKernelGetFunction",
        || format!("kernel={kernel:#x}"),
        || {
            state::with(|d| d.function(kernel).map(|_| ()))?;
            unsafe { out(func, kernel, "function") }
        },
    )
}

#[no_mangle]
pub unsafe extern "C" fn cuLibraryGetGlobal(
    dptr: *mut u64,
    bytes: *mut usize,
    library: Handle,
    name: *const c_char,
) -> CUresult {
    unsafe { cuModuleGetGlobal_v2(dptr, bytes, library, name) }
}

fn function_attribute(d: &mut Driver, attr: i32, func: Handle) -> Result<i32> {
    let f = d.function(func)?;
    let clamp = |v: u64| i32::try_from(v).unwrap_or(i32::MAX);
    Ok(match attr {
        0 => clamp(u64::from(f.max_threads)),
        1 => clamp(f.static_shared),
        2 => 0, // CONST_SIZE_BYTES: user constants are the module's, not the function's
        3 => clamp(u64::from(f.local_bytes)),
        4 => clamp(u64::from(f.registers)),
        5 | 6 => 86, // PTX_VERSION, BINARY_VERSION (sm_86 code)
        7 => 0,
        8 => clamp(u64::from(f.max_dynamic_shared)),
        9 => -1,      // PREFERRED_SHARED_MEMORY_CARVEOUT: no preference
        10..=17 => 0, // clusters (none on 8.6) and the rest
        _ => {
            return Err(DriverError::InvalidValue(format!(
                "no function attribute {attr}"
            )))
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuFuncGetAttribute(value: *mut i32, attr: i32, func: Handle) -> CUresult {
    call(
        "cuFuncGetAttribute",
        || format!("attr={attr}, func={func:#x}"),
        || {
            let v = state::with(|d| function_attribute(d, attr, func))?;
            unsafe { out(value, v, "value") }
        },
    )
}

#[no_mangle]
pub unsafe extern "C" fn cuKernelGetAttribute(
    value: *mut i32,
    attr: i32,
    kernel: Handle,
    _dev: i32,
) -> CUresult {
    call(
        "cuKernelGetAttribute",
        || format!("attr={attr}, kernel={kernel:#x}"),
        || {
            let v = state::with(|d| function_attribute(d, attr, kernel))?;
            unsafe { out(value, v, "value") }
        },
    )
}

/// Only the dynamic shared-memory limit (checked against the device at launch) and the carveout preference
/// can be set; anything else is refused by number.
fn set_function_attribute(d: &mut Driver, attr: i32, value: i32, func: Handle) -> Result<()> {
    let f = d.function(func)?;
    match attr {
        8 => {
            f.max_dynamic_shared = u32::try_from(value)
                .map_err(|_| DriverError::InvalidValue("negative size".into()))?;
            Ok(())
        }
        9 => Ok(()),
        _ => Err(DriverError::NotSupported(format!(
            "setting function attribute {attr}"
        ))),
    }
}

#[no_mangle]
pub unsafe extern "C" fn cuFuncSetAttribute(func: Handle, attr: i32, value: i32) -> CUresult {
    call(
        "cuFuncSetAttribute",
        || format!("func={func:#x}, attr={attr}, value={value}"),
        || state::with(|d| set_function_attribute(d, attr, value, func)),
    )
}

#[no_mangle]
pub unsafe extern "C" fn cuKernelSetAttribute(
    attr: i32,
    value: i32,
    kernel: Handle,
    _dev: i32,
) -> CUresult {
    call(
        "cuKernelSetAttribute",
        || format!("attr={attr}, value={value}, kernel={kernel:#x}"),
        || state::with(|d| set_function_attribute(d, attr, value, kernel)),
    )
}

/// A cache preference; sassport has one configuration.
#[no_mangle]
pub unsafe extern "C" fn cuFuncSetCacheConfig(func: Handle, config: u32) -> CUresult {
    call(
        "cuFuncSetCacheConfig",
        || format!("func={func:#x}, config={config}"),
        || state::with(|d| d.function(func).map(|_| ())),
    )
}

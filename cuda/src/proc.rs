//! `cuGetProcAddress`: the runtime asks for every driver entry point by name, CUDA version and flags. Names
//! this library implements resolve to the entry point with the signature of the requested version; the
//! per-thread default-stream variants (flag 2) resolve to the same functions, since every stream's work has
//! completed when a call returns. Any other name gets a stub of its own that logs the name once and returns
//! CUDA_ERROR_NOT_SUPPORTED: a program that needs it stops with the call named, instead of crashing.

use crate::log::call;
use crate::memory2d::*;
use crate::array::*;
use crate::texobj::*;
use crate::occupancy::*;
use crate::result::{CUresult, CUDA_ERROR_NOT_SUPPORTED};
use crate::{
    context::*, context_explicit::*, device::*, errors::*, host_func::*, host_memory::*, launch::*, limits::*, managed::*, memory::*, mempool::*,
    module::*, occupancy_potential::*, profiler::*, stream::*,
};
use std::ffi::{c_char, c_void, CStr};
use std::sync::Mutex;

/// `CU_GET_PROC_ADDRESS_SUCCESS`, `_SYMBOL_NOT_FOUND`, `_VERSION_NOT_SUFFICIENT`.
const FOUND: i32 = 0;
const SYMBOL_NOT_FOUND: i32 = 1;
const VERSION_NOT_SUFFICIENT: i32 = 2;

/// (name as asked for, first CUDA version with this signature, entry point).
type Entry = (&'static str, i32, *const c_void);

macro_rules! entries {
    ($(($name:literal, $since:literal, $f:expr)),* $(,)?) => {
        [$(($name, $since, $f as *const c_void)),*]
    };
}

/// Every implemented entry point.
fn table() -> &'static [Entry] {
    struct Table([Entry; TABLE_LEN]);
    // SAFETY: names, numbers and function addresses only.
    unsafe impl Sync for Table {}
    unsafe impl Send for Table {}
    static TABLE: std::sync::OnceLock<Table> = std::sync::OnceLock::new();
    &TABLE
        .get_or_init(|| {
            Table(entries![
                ("cuInit", 2000, cuInit),
                ("cuDriverGetVersion", 2020, cuDriverGetVersion),
                ("cuGetProcAddress", 11030, cuGetProcAddress),
                ("cuGetProcAddress", 12000, cuGetProcAddress_v2),
                ("cuGetExportTable", 3000, crate::export::cuGetExportTable),
                ("cuGetErrorName", 6000, cuGetErrorName),
                ("cuGetErrorString", 6000, cuGetErrorString),
                ("cuDeviceGet", 2000, cuDeviceGet),
                ("cuDeviceGetCount", 2000, cuDeviceGetCount),
                ("cuDeviceGetName", 2000, cuDeviceGetName),
                ("cuDeviceTotalMem", 3020, cuDeviceTotalMem_v2),
                ("cuDeviceGetAttribute", 2000, cuDeviceGetAttribute),
                ("cuDeviceComputeCapability", 2000, cuDeviceComputeCapability),
                ("cuDeviceGetUuid", 9020, cuDeviceGetUuid),
                ("cuDeviceGetUuid", 11040, cuDeviceGetUuid_v2),
                ("cuDeviceGetPCIBusId", 4010, cuDeviceGetPCIBusId),
                ("cuDevicePrimaryCtxRetain", 7000, cuDevicePrimaryCtxRetain),
                (
                    "cuDevicePrimaryCtxRelease",
                    7000,
                    cuDevicePrimaryCtxRelease_v2
                ),
                (
                    "cuDevicePrimaryCtxSetFlags",
                    7000,
                    cuDevicePrimaryCtxSetFlags_v2
                ),
                (
                    "cuDevicePrimaryCtxGetState",
                    7000,
                    cuDevicePrimaryCtxGetState
                ),
                ("cuDevicePrimaryCtxReset", 7000, cuDevicePrimaryCtxReset_v2),
                ("cuCtxSetCurrent", 4000, cuCtxSetCurrent),
                ("cuCtxGetCurrent", 4000, cuCtxGetCurrent),
                ("cuCtxPushCurrent", 4000, cuCtxPushCurrent_v2),
                ("cuCtxPopCurrent", 4000, cuCtxPopCurrent_v2),
                ("cuCtxGetDevice", 2000, cuCtxGetDevice),
                ("cuCtxGetDevice", 13000, cuCtxGetDevice_v2),
                ("cuCtxSynchronize", 2000, cuCtxSynchronize),
                ("cuCtxSynchronize", 13000, cuCtxSynchronize_v2),
                ("cuCtxGetFlags", 7000, cuCtxGetFlags),
                ("cuCtxGetApiVersion", 3020, cuCtxGetApiVersion),
                (
                    "cuCtxGetStreamPriorityRange",
                    5050,
                    cuCtxGetStreamPriorityRange
                ),
                ("cuCtxGetCacheConfig", 3020, cuCtxGetCacheConfig),
                ("cuCtxSetCacheConfig", 3020, cuCtxSetCacheConfig),
                ("cuModuleLoad", 2000, cuModuleLoad),
                ("cuModuleLoadData", 2000, cuModuleLoadData),
                ("cuModuleLoadDataEx", 2010, cuModuleLoadDataEx),
                ("cuModuleLoadFatBinary", 2000, cuModuleLoadFatBinary),
                ("cuModuleUnload", 2000, cuModuleUnload),
                ("cuModuleGetFunction", 2000, cuModuleGetFunction),
                ("cuModuleGetGlobal", 3020, cuModuleGetGlobal_v2),
                ("cuModuleGetLoadingMode", 11070, cuModuleGetLoadingMode),
                ("cuLibraryLoadData", 12000, cuLibraryLoadData),
                ("cuLibraryUnload", 12000, cuLibraryUnload),
                ("cuLibraryGetKernel", 12000, cuLibraryGetKernel),
                ("cuLibraryGetModule", 12000, cuLibraryGetModule),
                ("cuLibraryGetGlobal", 12000, cuLibraryGetGlobal),
                ("cuKernelGetFunction", 12000, cuKernelGetFunction),
                ("cuKernelGetAttribute", 12000, cuKernelGetAttribute),
                ("cuKernelSetAttribute", 12000, cuKernelSetAttribute),
                ("cuFuncGetAttribute", 2020, cuFuncGetAttribute),
                ("cuFuncSetAttribute", 9000, cuFuncSetAttribute),
                ("cuFuncSetCacheConfig", 3000, cuFuncSetCacheConfig),
                ("cuMemGetInfo", 3020, cuMemGetInfo_v2),
                ("cuMemAlloc", 3020, cuMemAlloc_v2),
                ("cuMemFree", 3020, cuMemFree_v2),
                ("cuMemHostAlloc", 2020, cuMemHostAlloc),
                ("cuMemAllocHost", 3020, cuMemAllocHost_v2),
                ("cuMemFreeHost", 2000, cuMemFreeHost),
                ("cuMemHostGetFlags", 2030, cuMemHostGetFlags),
                ("cuMemAllocManaged", 6000, cuMemAllocManaged),
                ("cuMemcpy", 4000, cuMemcpy),
                ("cuMemcpyAsync", 4000, cuMemcpyAsync),
                ("cuMemcpyHtoD", 3020, cuMemcpyHtoD_v2),
                ("cuMemcpyHtoDAsync", 3020, cuMemcpyHtoDAsync_v2),
                ("cuMemcpyDtoH", 3020, cuMemcpyDtoH_v2),
                ("cuMemcpyDtoHAsync", 3020, cuMemcpyDtoHAsync_v2),
                ("cuMemcpyDtoD", 3020, cuMemcpyDtoD_v2),
                ("cuMemcpyDtoDAsync", 3020, cuMemcpyDtoDAsync_v2),
                ("cuMemsetD8", 3020, cuMemsetD8_v2),
                ("cuMemsetD8Async", 3020, cuMemsetD8Async),
                ("cuMemsetD16", 3020, cuMemsetD16_v2),
                ("cuMemsetD32", 3020, cuMemsetD32_v2),
                ("cuMemsetD32Async", 3020, cuMemsetD32Async),
                ("cuLaunchKernel", 4000, cuLaunchKernel),
                ("cuMemAllocPitch", 3020, cuMemAllocPitch_v2),
                ("cuMemcpy2D", 3020, cuMemcpy2D_v2),
                ("cuMemcpy3D", 3020, cuMemcpy3D_v2),
                ("cuMemcpy3DAsync", 3020, cuMemcpy3DAsync_v2),
                ("cuArrayCreate", 3020, cuArrayCreate_v2),
                ("cuArray3DCreate", 3020, cuArray3DCreate_v2),
                ("cuArrayDestroy", 2000, cuArrayDestroy),
                ("cuArrayGetDescriptor", 3020, cuArrayGetDescriptor_v2),
                ("cuArray3DGetDescriptor", 3020, cuArray3DGetDescriptor_v2),
                ("cuTexObjectCreate", 5000, cuTexObjectCreate),
                ("cuTexObjectDestroy", 5000, cuTexObjectDestroy),
                ("cuTexObjectGetResourceDesc", 5000, cuTexObjectGetResourceDesc),
                ("cuSurfObjectCreate", 5000, cuSurfObjectCreate),
                ("cuSurfObjectDestroy", 5000, cuSurfObjectDestroy),
                ("cuMemcpy2DUnaligned", 3020, cuMemcpy2DUnaligned_v2),
                ("cuMemcpy2DAsync", 3020, cuMemcpy2DAsync_v2),
                ("cuMemsetD2D8", 3020, cuMemsetD2D8_v2),
                ("cuMemsetD2D8Async", 3020, cuMemsetD2D8Async),
                ("cuMemsetD2D32", 3020, cuMemsetD2D32_v2),
                (
                    "cuOccupancyMaxActiveBlocksPerMultiprocessor",
                    6050,
                    cuOccupancyMaxActiveBlocksPerMultiprocessor
                ),
                (
                    "cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags",
                    7000,
                    cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags
                ),
                (
                    "cuOccupancyAvailableDynamicSMemPerBlock",
                    10020,
                    cuOccupancyAvailableDynamicSMemPerBlock
                ),
                ("cuStreamCreate", 2000, cuStreamCreate),
                (
                    "cuStreamCreateWithPriority",
                    5050,
                    cuStreamCreateWithPriority
                ),
                ("cuStreamDestroy", 4000, cuStreamDestroy_v2),
                ("cuStreamSynchronize", 2000, cuStreamSynchronize),
                ("cuStreamQuery", 2000, cuStreamQuery),
                ("cuStreamWaitEvent", 3020, cuStreamWaitEvent),
                ("cuStreamGetFlags", 5050, cuStreamGetFlags),
                ("cuStreamGetPriority", 5050, cuStreamGetPriority),
                ("cuEventCreate", 2000, cuEventCreate),
                ("cuEventRecord", 2000, cuEventRecord),
                ("cuEventRecordWithFlags", 11010, cuEventRecordWithFlags),
                ("cuEventQuery", 2000, cuEventQuery),
                ("cuEventSynchronize", 2000, cuEventSynchronize),
                ("cuEventDestroy", 4000, cuEventDestroy_v2),
                ("cuEventElapsedTime", 2000, cuEventElapsedTime),
                ("cuEventElapsedTime", 12080, cuEventElapsedTime_v2),
                ("cuCtxCreate", 3020, cuCtxCreate_v2),
                ("cuCtxCreate", 12050, cuCtxCreate_v4),
                ("cuCtxDestroy", 4000, cuCtxDestroy_v2),
                ("cuOccupancyMaxPotentialBlockSize", 6050, cuOccupancyMaxPotentialBlockSize),
                (
                    "cuOccupancyMaxPotentialBlockSizeWithFlags",
                    7000,
                    cuOccupancyMaxPotentialBlockSizeWithFlags
                ),
                ("cuStreamGetCtx", 9020, cuStreamGetCtx),
                ("cuStreamGetCtx", 12050, cuStreamGetCtx_v2),
                ("cuStreamGetDevice", 12080, cuStreamGetDevice),
                ("cuStreamGetId", 12000, cuStreamGetId),
                ("cuCtxGetLimit", 3010, cuCtxGetLimit),
                ("cuCtxSetLimit", 3010, cuCtxSetLimit),
                ("cuLaunchHostFunc", 10000, cuLaunchHostFunc),
                ("cuLaunchHostFunc", 13010, cuLaunchHostFunc_v2),
                ("cuStreamAddCallback", 5000, cuStreamAddCallback),
                ("cuProfilerInitialize", 4000, cuProfilerInitialize),
                ("cuProfilerStart", 4000, cuProfilerStart),
                ("cuProfilerStop", 4000, cuProfilerStop),
                ("cuMemAllocAsync", 11020, cuMemAllocAsync),
                ("cuMemAllocFromPoolAsync", 11020, cuMemAllocFromPoolAsync),
                ("cuMemFreeAsync", 11020, cuMemFreeAsync),
                ("cuDeviceGetDefaultMemPool", 11020, cuDeviceGetDefaultMemPool),
                ("cuDeviceGetMemPool", 11020, cuDeviceGetMemPool),
                ("cuDeviceSetMemPool", 11020, cuDeviceSetMemPool),
                ("cuMemGetDefaultMemPool", 13000, cuMemGetDefaultMemPool),
                ("cuMemGetMemPool", 13000, cuMemGetMemPool),
                ("cuMemSetMemPool", 13000, cuMemSetMemPool),
                ("cuMemPoolCreate", 11020, cuMemPoolCreate),
                ("cuMemPoolDestroy", 11020, cuMemPoolDestroy),
                ("cuMemPoolSetAttribute", 11020, cuMemPoolSetAttribute),
                ("cuMemPoolGetAttribute", 11020, cuMemPoolGetAttribute),
                ("cuMemPoolTrimTo", 11020, cuMemPoolTrimTo),
                ("cuMemPoolSetAccess", 11020, cuMemPoolSetAccess),
                ("cuMemPoolGetAccess", 11020, cuMemPoolGetAccess),
            ])
        })
        .0
}
const TABLE_LEN: usize = 146;

/// Every implemented entry point: (name as asked for through `cuGetProcAddress`, first CUDA version of the
/// signature), in table order.
pub fn implemented() -> Vec<(&'static str, i32)> {
    table().iter().map(|e| (e.0, e.1)).chain(graph_table().iter().map(|e| (e.0, e.1))).collect()
}

/// The graph and stream-capture entry points ([`crate::graph_api`]), kept in their own table.
fn graph_table() -> &'static [Entry] {
    struct Table(Vec<Entry>);
    // SAFETY: names, numbers and function addresses only.
    unsafe impl Sync for Table {}
    unsafe impl Send for Table {}
    static TABLE: std::sync::OnceLock<Table> = std::sync::OnceLock::new();
    &TABLE.get_or_init(|| Table(crate::graph_api::entries())).0
}

/// The implemented entry point for `name` at `version`: the newest signature not newer than the request.
pub fn resolve(name: &str, version: i32) -> Result<*const c_void, i32> {
    let candidates = table().iter().chain(graph_table()).filter(|e| e.0 == name);
    let mut any = false;
    let mut best: Option<&Entry> = None;
    for e in candidates {
        any = true;
        if e.1 <= version && best.is_none_or(|b| e.1 > b.1) {
            best = Some(e);
        }
    }
    match (best, any) {
        (Some(e), _) => Ok(e.2),
        (None, true) => Err(VERSION_NOT_SUFFICIENT),
        (None, false) => Err(SYMBOL_NOT_FOUND),
    }
}

/// The names every stub stands for, by stub index.
static STUB_NAMES: Mutex<Vec<String>> = Mutex::new(Vec::new());

fn stub_name(index: usize) -> String {
    STUB_NAMES
        .lock()
        .ok()
        .and_then(|n| n.get(index).cloned())
        .unwrap_or_else(|| format!("stub {index}"))
}

extern "C" fn stub<const N: usize>() -> CUresult {
    unsupported_call(&stub_name(N))
}

/// What a call of an entry point sassport does not implement does: its name in the log (once, and at every
/// call with `SASSPORT_LOG=calls`), and `CUDA_ERROR_NOT_SUPPORTED`.
pub fn unsupported_call(name: &str) -> CUresult {
    crate::log::once(
        name,
        &format!("{name} is not supported by sassport: returns CUDA_ERROR_NOT_SUPPORTED"),
    );
    if crate::log::calls_enabled() {
        crate::log::line(&format!("{name}(...) = CUDA_ERROR_NOT_SUPPORTED"));
    }
    CUDA_ERROR_NOT_SUPPORTED
}

type StubFn = extern "C" fn() -> CUresult;

macro_rules! row {
    ($r:literal) => {
        [
            stub::<{ $r * 16 + 0 }> as StubFn,
            stub::<{ $r * 16 + 1 }> as StubFn,
            stub::<{ $r * 16 + 2 }> as StubFn,
            stub::<{ $r * 16 + 3 }> as StubFn,
            stub::<{ $r * 16 + 4 }> as StubFn,
            stub::<{ $r * 16 + 5 }> as StubFn,
            stub::<{ $r * 16 + 6 }> as StubFn,
            stub::<{ $r * 16 + 7 }> as StubFn,
            stub::<{ $r * 16 + 8 }> as StubFn,
            stub::<{ $r * 16 + 9 }> as StubFn,
            stub::<{ $r * 16 + 10 }> as StubFn,
            stub::<{ $r * 16 + 11 }> as StubFn,
            stub::<{ $r * 16 + 12 }> as StubFn,
            stub::<{ $r * 16 + 13 }> as StubFn,
            stub::<{ $r * 16 + 14 }> as StubFn,
            stub::<{ $r * 16 + 15 }> as StubFn,
        ]
    };
}
/// 512 distinct stubs: enough for every name the CUDA 13.5 runtime asks for.
static STUBS: [[StubFn; 16]; 32] = [
    row!(0),
    row!(1),
    row!(2),
    row!(3),
    row!(4),
    row!(5),
    row!(6),
    row!(7),
    row!(8),
    row!(9),
    row!(10),
    row!(11),
    row!(12),
    row!(13),
    row!(14),
    row!(15),
    row!(16),
    row!(17),
    row!(18),
    row!(19),
    row!(20),
    row!(21),
    row!(22),
    row!(23),
    row!(24),
    row!(25),
    row!(26),
    row!(27),
    row!(28),
    row!(29),
    row!(30),
    row!(31),
];

/// The stub standing for `name` (the same one each time it is asked for), if any is left.
fn stub_for(name: &str) -> Option<*const c_void> {
    let mut names = STUB_NAMES.lock().ok()?;
    let index = match names.iter().position(|n| n == name) {
        Some(i) => i,
        None => {
            if names.len() >= 512 {
                return None;
            }
            names.push(name.to_string());
            names.len() - 1
        }
    };
    Some(STUBS[index / 16][index % 16] as *const c_void)
}

unsafe fn get_proc_address(
    symbol: *const c_char,
    pfn: *mut *mut c_void,
    version: i32,
    flags: u64,
    status: *mut i32,
) -> CUresult {
    let name = if symbol.is_null() {
        None
    } else {
        unsafe { CStr::from_ptr(symbol) }.to_str().ok()
    };
    let label = format!(
        "{:?}, version={version}, flags={flags}",
        name.unwrap_or("?")
    );
    call(
        "cuGetProcAddress",
        || label,
        || {
            let name = name.ok_or_else(|| {
                crate::error::DriverError::InvalidValue("symbol is null or not UTF-8".into())
            })?;
            if pfn.is_null() {
                return Err(crate::error::DriverError::InvalidValue(
                    "pfn is null".into(),
                ));
            }
            let (found, code) = match resolve(name, version) {
                Ok(f) => (Some(f), FOUND),
                Err(VERSION_NOT_SUFFICIENT) => (None, VERSION_NOT_SUFFICIENT),
                Err(_) => match stub_for(name) {
                    Some(s) => (Some(s), FOUND),
                    None => (None, SYMBOL_NOT_FOUND),
                },
            };
            unsafe { pfn.write(found.map_or(std::ptr::null_mut(), |f| f as *mut c_void)) };
            if !status.is_null() {
                unsafe { status.write(code) };
            }
            match code {
                FOUND => Ok(()),
                _ => Err(crate::error::DriverError::NotFound {
                    what: "driver entry point",
                    name: format!("{name} at version {version}"),
                }),
            }
        },
    )
}

#[no_mangle]
pub unsafe extern "C" fn cuGetProcAddress(
    symbol: *const c_char,
    pfn: *mut *mut c_void,
    version: i32,
    flags: u64,
) -> CUresult {
    unsafe { get_proc_address(symbol, pfn, version, flags, std::ptr::null_mut()) }
}

#[no_mangle]
pub unsafe extern "C" fn cuGetProcAddress_v2(
    symbol: *const c_char,
    pfn: *mut *mut c_void,
    version: i32,
    flags: u64,
    status: *mut i32,
) -> CUresult {
    unsafe { get_proc_address(symbol, pfn, version, flags, status) }
}

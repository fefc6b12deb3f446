//! Device memory: allocation in the device's window, copies in every direction between host and device
//! memory, memsets. Each is a synchronisation point (queued launches complete first) and has completed when
//! the call returns, so the `Async` forms are the synchronous ones (correct for any stream order).

use crate::error::{DriverError, Result};
use crate::ffi::out;
use crate::log::call;
use crate::result::CUresult;
use crate::state::{self, Driver, Gpu};
use std::ffi::c_void;

/// The opened device whose window holds `[address, address + len)`.
fn gpu_of(d: &mut Driver, address: u64, len: usize) -> Result<&mut Gpu> {
    let dev = d.device_of_address(address).ok_or_else(|| {
        DriverError::InvalidValue(format!("{address:#x} (+{len} bytes) is not device memory"))
    })?;
    crate::sync::settled_gpu(d, dev)
}

pub(crate) fn copy_htod(d: &mut Driver, dst: u64, src: *const c_void, n: usize) -> Result<()> {
    if n == 0 {
        return Ok(());
    }
    if src.is_null() {
        return Err(DriverError::InvalidValue("source is null".into()));
    }
    // SAFETY: the caller gives `n` readable bytes at `src`, as CUDA requires.
    let bytes = unsafe { std::slice::from_raw_parts(src.cast::<u8>(), n) };
    write_device(d, dst, bytes)
}

/// Writes device memory at `dst` (a synchronisation point); managed memory is written in its host pages.
fn write_device(d: &mut Driver, dst: u64, bytes: &[u8]) -> Result<()> {
    let gpu = gpu_of(d, dst, bytes.len())?;
    if crate::managed::is_managed(gpu, dst, bytes.len())? {
        // SAFETY: inside a managed allocation's host pages; no kernel is queued (settled by `gpu_of`).
        unsafe { std::ptr::copy(bytes.as_ptr(), dst as *mut u8, bytes.len()) };
        return Ok(());
    }
    Ok(gpu.rt.upload(dst, bytes)?)
}

/// Reads device memory at `src` (a synchronisation point); managed memory is read from its host pages.
fn read_device(d: &mut Driver, src: u64, out: &mut [u8]) -> Result<()> {
    let gpu = gpu_of(d, src, out.len())?;
    if crate::managed::is_managed(gpu, src, out.len())? {
        // SAFETY: as in `write_device`.
        unsafe { std::ptr::copy(src as *const u8, out.as_mut_ptr(), out.len()) };
        return Ok(());
    }
    Ok(gpu.rt.download(src, out)?)
}

pub(crate) fn copy_dtoh(d: &mut Driver, dst: *mut c_void, src: u64, n: usize) -> Result<()> {
    if n == 0 {
        return Ok(());
    }
    if dst.is_null() {
        return Err(DriverError::InvalidValue("destination is null".into()));
    }
    // SAFETY: the caller gives `n` writable bytes at `dst`, as CUDA requires.
    let bytes = unsafe { std::slice::from_raw_parts_mut(dst.cast::<u8>(), n) };
    read_device(d, src, bytes)
}

pub(crate) fn copy_dtod(d: &mut Driver, dst: u64, src: u64, n: usize) -> Result<()> {
    if n == 0 {
        return Ok(());
    }
    let mut staging = vec![0u8; n];
    read_device(d, src, &mut staging)?;
    write_device(d, dst, &staging)
}

/// `cuMemcpy`: unified addressing tells the direction from the addresses.
pub(crate) fn copy_any(d: &mut Driver, dst: u64, src: u64, n: usize) -> Result<()> {
    match (
        d.device_of_address(dst).is_some(),
        d.device_of_address(src).is_some(),
    ) {
        (true, true) => copy_dtod(d, dst, src, n),
        (true, false) => copy_htod(d, dst, src as *const c_void, n),
        (false, true) => copy_dtoh(d, dst as *mut c_void, src, n),
        (false, false) => {
            if n > 0 {
                // SAFETY: both are host ranges of `n` bytes the caller owns.
                unsafe { std::ptr::copy(src as *const u8, dst as *mut u8, n) };
            }
            Ok(())
        }
    }
}

/// A captured copy: one row (the source is read when the graph runs, as CUDA's).
fn copy_node(dst: u64, src: u64, n: usize) -> crate::graph::Op {
    crate::graph::Op::Copy { rows: vec![(dst, src, n)] }
}

/// A captured memset of `count` copies of `pattern`.
fn fill_node(dst: u64, pattern: &[u8], count: usize) -> crate::graph::Op {
    crate::graph::Op::Fill { dst, pitch: 0, pattern: pattern.to_vec(), width: count, height: 1 }
}

pub(crate) fn fill(d: &mut Driver, dst: u64, pattern: &[u8], count: usize) -> Result<()> {
    if count == 0 {
        return Ok(());
    }
    let bytes: Vec<u8> = pattern
        .iter()
        .copied()
        .cycle()
        .take(pattern.len() * count)
        .collect();
    write_device(d, dst, &bytes)
}

#[no_mangle]
pub unsafe extern "C" fn cuMemAlloc_v2(dptr: *mut u64, bytes: usize) -> CUresult {
    call(
        "cuMemAlloc",
        || format!("bytes={bytes}"),
        || {
            let address = state::with(|d| Ok(d.current_gpu()?.rt.alloc(bytes as u64)?))?;
            unsafe { out(dptr, address, "dptr") }
        },
    )
}

#[no_mangle]
pub unsafe extern "C" fn cuMemFree_v2(dptr: u64) -> CUresult {
    call(
        "cuMemFree",
        || format!("dptr={dptr:#x}"),
        || {
            if dptr == 0 {
                return Ok(());
            }
            state::with(|d| free(d, dptr))
        },
    )
}

/// Frees device or managed allocation `dptr` (a synchronisation point).
pub(crate) fn free(d: &mut Driver, dptr: u64) -> Result<()> {
    let gpu = gpu_of(d, dptr, 0)?;
    if crate::managed::free(gpu, dptr)? {
        return Ok(());
    }
    Ok(gpu.rt.free(dptr)?)
}

/// Free memory is what the window has left; total is the window.
#[no_mangle]
pub unsafe extern "C" fn cuMemGetInfo_v2(free: *mut usize, total: *mut usize) -> CUresult {
    call("cuMemGetInfo", String::new, || {
        let (f, t) = state::with(|d| {
            let rt = &d.current_gpu()?.rt;
            Ok((rt.window_free_bytes() as usize, rt.window_size() as usize))
        })?;
        unsafe {
            out(free, f, "free")?;
            out(total, t, "total")
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuMemcpyHtoD_v2(dst: u64, src: *const c_void, n: usize) -> CUresult {
    call(
        "cuMemcpyHtoD",
        || format!("dst={dst:#x}, src={src:p}, n={n}"),
        || state::with(|d| copy_htod(d, dst, src, n)),
    )
}

#[no_mangle]
pub unsafe extern "C" fn cuMemcpyHtoDAsync_v2(
    dst: u64,
    src: *const c_void,
    n: usize,
    stream: usize,
) -> CUresult {
    call(
        "cuMemcpyHtoDAsync",
        || format!("dst={dst:#x}, src={src:p}, n={n}, stream={stream:#x}"),
        || {
            state::with(|d| {
                crate::stream::check(d, stream)?;
                if crate::graph::captured(d, stream, || Ok(copy_node(dst, src as u64, n)))? {
                    return Ok(());
                }
                copy_htod(d, dst, src, n)
            })
        },
    )
}

#[no_mangle]
pub unsafe extern "C" fn cuMemcpyDtoH_v2(dst: *mut c_void, src: u64, n: usize) -> CUresult {
    call(
        "cuMemcpyDtoH",
        || format!("dst={dst:p}, src={src:#x}, n={n}"),
        || state::with(|d| copy_dtoh(d, dst, src, n)),
    )
}

#[no_mangle]
pub unsafe extern "C" fn cuMemcpyDtoHAsync_v2(
    dst: *mut c_void,
    src: u64,
    n: usize,
    stream: usize,
) -> CUresult {
    call(
        "cuMemcpyDtoHAsync",
        || format!("dst={dst:p}, src={src:#x}, n={n}, stream={stream:#x}"),
        || {
            state::with(|d| {
                crate::stream::check(d, stream)?;
                if crate::graph::captured(d, stream, || Ok(copy_node(dst as u64, src, n)))? {
                    return Ok(());
                }
                copy_dtoh(d, dst, src, n)
            })
        },
    )
}

#[no_mangle]
pub unsafe extern "C" fn cuMemcpyDtoD_v2(dst: u64, src: u64, n: usize) -> CUresult {
    call(
        "cuMemcpyDtoD",
        || format!("dst={dst:#x}, src={src:#x}, n={n}"),
        || state::with(|d| copy_dtod(d, dst, src, n)),
    )
}

#[no_mangle]
pub unsafe extern "C" fn cuMemcpyDtoDAsync_v2(
    dst: u64,
    src: u64,
    n: usize,
    stream: usize,
) -> CUresult {
    call(
        "cuMemcpyDtoDAsync",
        || format!("dst={dst:#x}, src={src:#x}, n={n}, stream={stream:#x}"),
        || {
            state::with(|d| {
                crate::stream::check(d, stream)?;
                if crate::graph::captured(d, stream, || Ok(copy_node(dst, src, n)))? {
                    return Ok(());
                }
                copy_dtod(d, dst, src, n)
            })
        },
    )
}

#[no_mangle]
pub unsafe extern "C" fn cuMemcpy(dst: u64, src: u64, n: usize) -> CUresult {
    call(
        "cuMemcpy",
        || format!("dst={dst:#x}, src={src:#x}, n={n}"),
        || state::with(|d| copy_any(d, dst, src, n)),
    )
}

#[no_mangle]
pub unsafe extern "C" fn cuMemcpyAsync(dst: u64, src: u64, n: usize, stream: usize) -> CUresult {
    call(
        "cuMemcpyAsync",
        || format!("dst={dst:#x}, src={src:#x}, n={n}, stream={stream:#x}"),
        || {
            state::with(|d| {
                crate::stream::check(d, stream)?;
                if crate::graph::captured(d, stream, || Ok(copy_node(dst, src, n)))? {
                    return Ok(());
                }
                copy_any(d, dst, src, n)
            })
        },
    )
}

#[no_mangle]
pub unsafe extern "C" fn cuMemsetD8_v2(dst: u64, value: u8, n: usize) -> CUresult {
    call(
        "cuMemsetD8",
        || format!("dst={dst:#x}, value={value:#x}, n={n}"),
        || state::with(|d| fill(d, dst, &[value], n)),
    )
}

#[no_mangle]
pub unsafe extern "C" fn cuMemsetD8Async(dst: u64, value: u8, n: usize, stream: usize) -> CUresult {
    call(
        "cuMemsetD8Async",
        || format!("dst={dst:#x}, value={value:#x}, n={n}, stream={stream:#x}"),
        || {
            state::with(|d| {
                crate::stream::check(d, stream)?;
                if crate::graph::captured(d, stream, || Ok(fill_node(dst, &[value], n)))? {
                    return Ok(());
                }
                fill(d, dst, &[value], n)
            })
        },
    )
}

#[no_mangle]
pub unsafe extern "C" fn cuMemsetD16_v2(dst: u64, value: u16, n: usize) -> CUresult {
    call(
        "cuMemsetD16",
        || format!("dst={dst:#x}, value={value:#x}, n={n}"),
        || state::with(|d| fill(d, dst, &value.to_le_bytes(), n)),
    )
}

#[no_mangle]
pub unsafe extern "C" fn cuMemsetD32_v2(dst: u64, value: u32, n: usize) -> CUresult {
    call(
        "cuMemsetD32",
        || format!("dst={dst:#x}, value={value:#x}, n={n}"),
        || state::with(|d| fill(d, dst, &value.to_le_bytes(), n)),
    )
}

#[no_mangle]
pub unsafe extern "C" fn cuMemsetD32Async(
    dst: u64,
    value: u32,
    n: usize,
    stream: usize,
) -> CUresult {
    call(
        "cuMemsetD32Async",
        || format!("dst={dst:#x}, value={value:#x}, n={n}, stream={stream:#x}"),
        || {
            state::with(|d| {
                crate::stream::check(d, stream)?;
                let pattern = value.to_le_bytes();
                if crate::graph::captured(d, stream, || Ok(fill_node(dst, &pattern, n)))? {
                    return Ok(());
                }
                fill(d, dst, &pattern, n)
            })
        },
    )
}

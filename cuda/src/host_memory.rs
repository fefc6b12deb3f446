//! Page-locked host memory (`cuMemHostAlloc`, `cuMemAllocHost`): page-aligned host allocations the library
//! tracks, usable as the host side of every copy. Mapping them into the device's address space
//! (`CU_MEMHOSTALLOC_DEVICEMAP`) is not supported yet: the flag is refused by name, and
//! `CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY` says 0.
//!
//! `cuMemHostGetFlags` answers as NVIDIA's driver does (recorded on an H200, driver 580.159.04, by our probe
//! `host_flags_probe`; corpus/programs/h200-native.txt): `CU_MEMHOSTALLOC_PORTABLE` is never reported (with
//! unified addressing every allocation is portable), `CU_MEMHOSTALLOC_WRITECOMBINED` is, and
//! `CU_MEMHOSTALLOC_DEVICEMAP` is reported for every allocation because NVIDIA maps all page-locked memory
//! into the device: here none is mapped, so that bit stays clear.

use crate::error::{DriverError, Result};
use crate::ffi::out;
use crate::log::call;
use crate::result::CUresult;
use crate::state::{self, Driver};
use std::alloc::Layout;
use std::ffi::c_void;

const PORTABLE: u32 = 0x1;
const DEVICEMAP: u32 = 0x2;
const WRITECOMBINED: u32 = 0x4;
const PAGE: usize = 4096;

fn alloc(d: &mut Driver, bytes: usize, flags: u32) -> Result<*mut c_void> {
    if flags & DEVICEMAP != 0 {
        return Err(DriverError::NotSupported(
            "host memory mapped into the device (CU_MEMHOSTALLOC_DEVICEMAP)".into(),
        ));
    }
    if flags & !(PORTABLE | WRITECOMBINED) != 0 {
        return Err(DriverError::InvalidValue(format!(
            "host allocation flags {flags:#x}"
        )));
    }
    d.current_device()?;
    let layout = Layout::from_size_align(bytes.max(1), PAGE)
        .map_err(|_| DriverError::InvalidValue(format!("{bytes} bytes")))?;
    // SAFETY: the layout has a non-zero size.
    let p = unsafe { std::alloc::alloc_zeroed(layout) };
    if p.is_null() {
        return Err(DriverError::Runtime(
            sassport_runtime::RuntimeError::OutOfMemory {
                requested: bytes as u64,
                largest_free: 0,
            },
        ));
    }
    d.host_allocations.insert(p as usize, (layout, flags));
    Ok(p.cast())
}

#[no_mangle]
pub unsafe extern "C" fn cuMemHostAlloc(
    pp: *mut *mut c_void,
    bytes: usize,
    flags: u32,
) -> CUresult {
    call(
        "cuMemHostAlloc",
        || format!("bytes={bytes}, flags={flags:#x}"),
        || {
            let p = state::with(|d| alloc(d, bytes, flags))?;
            unsafe { out(pp, p, "pp") }
        },
    )
}

#[no_mangle]
pub unsafe extern "C" fn cuMemAllocHost_v2(pp: *mut *mut c_void, bytes: usize) -> CUresult {
    call(
        "cuMemAllocHost",
        || format!("bytes={bytes}"),
        || {
            let p = state::with(|d| alloc(d, bytes, 0))?;
            unsafe { out(pp, p, "pp") }
        },
    )
}

#[no_mangle]
pub unsafe extern "C" fn cuMemFreeHost(p: *mut c_void) -> CUresult {
    call(
        "cuMemFreeHost",
        || format!("p={p:p}"),
        || {
            let (layout, _) = state::with(|d| {
                d.host_allocations.remove(&(p as usize)).ok_or_else(|| {
                    DriverError::InvalidValue(format!(
                        "{p:p} is not page-locked host memory from this library"
                    ))
                })
            })?;
            // SAFETY: allocated by `alloc` with this layout and removed from the table, so freed once.
            unsafe { std::alloc::dealloc(p.cast(), layout) };
            Ok(())
        },
    )
}

/// The flags `cuMemHostGetFlags` reports for an allocation made with `flags` (see the module comment).
pub fn reported_flags(flags: u32) -> u32 {
    flags & WRITECOMBINED
}

#[no_mangle]
pub unsafe extern "C" fn cuMemHostGetFlags(flags: *mut u32, p: *mut c_void) -> CUresult {
    call(
        "cuMemHostGetFlags",
        || format!("p={p:p}"),
        || {
            let f = state::with(|d| {
                // The pointer may point inside an allocation.
                let at = p as usize;
                d.host_allocations
                    .iter()
                    .find(|(&start, (layout, _))| at >= start && at < start + layout.size())
                    .map(|(_, (_, f))| reported_flags(*f))
                    .ok_or_else(|| {
                        DriverError::InvalidValue(format!(
                            "{p:p} is not page-locked host memory from this library"
                        ))
                    })
            })?;
            unsafe { out(flags, f, "flags") }
        },
    )
}

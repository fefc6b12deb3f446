//! Managed memory (`cuMemAllocManaged`) as CUDA defines it for a device without concurrent managed access
//! (`CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS` 0, like Windows and pre-Pascal devices): one pointer for
//! host and device; the host may use the memory whenever no kernel is queued or running, kernels while they
//! run. The allocation's pages of the window's reserved host range are made ordinary host memory
//! (`mmap(MAP_FIXED)`), so the device pointer is also a host pointer, and the bytes move at the points CUDA
//! makes coherent: before a kernel is queued, the queued work completes (and its bytes come back) and the
//! host's bytes go to the window; once all queued work has completed (a synchronisation point, see
//! [`crate::sync`]) the window's bytes come back to the host pages. Copies and memsets on managed memory use
//! the host pages (the truth whenever no kernel is queued). Every launch pays a copy of all live managed
//! memory both ways: correct, not fast.

use crate::error::{DriverError, Result};
use crate::ffi::out;
use crate::log::call;
use crate::result::CUresult;
use crate::state::{self, Driver, Gpu};

const PAGE: u64 = 4096;
/// `CU_MEM_ATTACH_GLOBAL`, `CU_MEM_ATTACH_HOST`.
const ATTACH_GLOBAL: u32 = 0x1;
const ATTACH_HOST: u32 = 0x2;

/// One managed allocation: host pages at `start..start + len` over the window allocation at `window`.
pub struct ManagedRange {
    pub window: u64,
    pub start: u64,
    pub len: u64,
}

/// Where `[address, address + len)` lies: inside a managed allocation (true), outside all (false); across
/// an edge is refused.
pub fn is_managed(gpu: &Gpu, address: u64, len: usize) -> Result<bool> {
    let end = address.saturating_add(len.max(1) as u64);
    for m in &gpu.managed {
        let overlaps = address < m.start + m.len && end > m.start;
        if overlaps && address >= m.start && end <= m.start + m.len {
            return Ok(true);
        }
        if overlaps {
            return Err(DriverError::InvalidValue(format!(
                "{address:#x} (+{len} bytes) crosses the edge of managed memory at {:#x} (+{} bytes)",
                m.start, m.len
            )));
        }
    }
    Ok(false)
}

/// Before a kernel of device `dev` is queued: queued work completes (its managed bytes come back to the
/// host), then the host's managed bytes go to the window, and the kernel's writes are owed to the host.
pub fn before_launch(d: &mut Driver, dev: usize) -> Result<()> {
    if d.devices[dev].opened().is_none_or(|g| g.managed.is_empty()) {
        return Ok(());
    }
    crate::sync::settle(d, dev)?;
    let gpu = d.devices[dev].gpu()?;
    for i in 0..gpu.managed.len() {
        let (start, len) = (gpu.managed[i].start, gpu.managed[i].len);
        // SAFETY: the range is host memory this module mapped; no kernel runs (settled above).
        let host = unsafe { std::slice::from_raw_parts(start as *const u8, len as usize) };
        gpu.rt.upload(start, host)?;
    }
    gpu.managed_owed = true;
    Ok(())
}

/// After all queued work of `gpu` completed: the window's managed bytes come back to the host pages, once
/// per round of kernels (later host writes must not be overwritten by a second copy).
pub fn after_completion(gpu: &mut Gpu) -> Result<()> {
    if !gpu.managed_owed {
        return Ok(());
    }
    for i in 0..gpu.managed.len() {
        let (start, len) = (gpu.managed[i].start, gpu.managed[i].len);
        // SAFETY: as above; the device is idle, so nothing else writes the host pages through us.
        let host = unsafe { std::slice::from_raw_parts_mut(start as *mut u8, len as usize) };
        gpu.rt.download_unqueued(start, host)?;
    }
    gpu.managed_owed = false;
    Ok(())
}

fn alloc(d: &mut Driver, bytes: usize, flags: u32) -> Result<u64> {
    if bytes == 0 {
        return Err(DriverError::InvalidValue("a managed allocation of 0 bytes".into()));
    }
    if flags != ATTACH_GLOBAL && flags != ATTACH_HOST {
        return Err(DriverError::InvalidValue(format!("managed allocation flags {flags:#x}")));
    }
    let gpu = d.current_gpu()?;
    let len = (bytes as u64).next_multiple_of(PAGE);
    // A page more than the pages, so that the page-aligned start leaves whole pages inside the allocation.
    let window = gpu.rt.alloc(len + PAGE)?;
    let start = window.next_multiple_of(PAGE);
    // SAFETY: the pages lie inside the window's reservation (a PROT_NONE mapping the driver owns) and inside
    // a window allocation nobody else uses: replacing them with fresh host memory touches nothing else.
    let mapped = unsafe {
        libc::mmap(
            start as *mut libc::c_void,
            len as usize,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_FIXED,
            -1,
            0,
        )
    };
    if mapped == libc::MAP_FAILED || mapped as u64 != start {
        let why = std::io::Error::last_os_error();
        let _ = gpu.rt.free(window);
        return Err(DriverError::NotSupported(format!("mapping {len} bytes of managed memory at {start:#x}: {why}")));
    }
    gpu.managed.push(ManagedRange { window, start, len });
    Ok(start)
}

/// Frees managed memory at `address` (a synchronisation point): its pages go back to the reservation.
/// `Ok(false)`: `address` is not managed memory.
pub fn free(gpu: &mut Gpu, address: u64) -> Result<bool> {
    let Some(i) = gpu.managed.iter().position(|m| m.start == address) else {
        return Ok(false);
    };
    let m = gpu.managed.swap_remove(i);
    // SAFETY: the pages were mapped by `alloc`; making them PROT_NONE again restores the reservation.
    unsafe {
        libc::mmap(
            m.start as *mut libc::c_void,
            m.len as usize,
            libc::PROT_NONE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_FIXED | libc::MAP_NORESERVE,
            -1,
            0,
        )
    };
    gpu.rt.free(m.window)?;
    Ok(true)
}

#[no_mangle]
pub unsafe extern "C" fn cuMemAllocManaged(dptr: *mut u64, bytes: usize, flags: u32) -> CUresult {
    call(
        "cuMemAllocManaged",
        || format!("bytes={bytes}, flags={flags:#x}"),
        || {
            let address = state::with(|d| alloc(d, bytes, flags))?;
            unsafe { out(dptr, address, "dptr") }
        },
    )
}

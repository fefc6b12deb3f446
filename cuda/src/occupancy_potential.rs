//! `cuOccupancyMaxPotentialBlockSize(WithFlags)`: the block size with the most resident threads per
//! multiprocessor (by [`crate::occupancy::active_blocks`], the same rule as the other occupancy queries),
//! trying every multiple of the warp size from the largest the kernel allows down, as CUDA's calculator does
//! (ties keep the larger block), with the dynamic shared memory the caller's callback gives for each size.

use crate::attributes::attribute;
use crate::error::{DriverError, Result};
use crate::ffi::out;
use crate::log::call;
use crate::occupancy::{active_blocks, Limits};
use crate::result::CUresult;
use crate::state::{self, Handle};

/// `CUoccupancyB2DSize`: dynamic shared memory for a block size.
type BlockToShared = Option<unsafe extern "C" fn(block_size: i32) -> usize>;

fn potential(func: Handle, cb: BlockToShared, fixed: usize, limit: i32) -> Result<(i32, i32)> {
    let (f_limits, max_threads, multiprocessors) = state::with(|d| {
        let limits = Limits::of(d, func)?;
        let module = d.function(func)?.module;
        let device = d.modules.get(&module).map_or(0, |m| m.device);
        let info = &d
            .devices
            .get(device)
            .ok_or(DriverError::InvalidDevice(device as i32))?
            .info;
        let sms = attribute(info, device, 16).unwrap_or(1).max(1);
        Ok((limits, d.function(func)?.max_threads, sms))
    })?;
    let mut top = max_threads.min(f_limits.threads);
    if limit > 0 {
        top = top.min(limit as u32);
    }
    let mut best = (0u32, 0u32); // (block size, blocks per multiprocessor)
    let mut size = top - top % 32;
    while size >= 32 {
        // SAFETY: the caller's callback, called as CUDA calls it.
        let shared = cb.map_or(fixed, |cb| unsafe { cb(size as i32) });
        let blocks = state::with(|d| {
            Ok(active_blocks(
                d.function(func)?,
                f_limits,
                size,
                shared as u64,
            ))
        })?;
        if blocks * size > best.0 * best.1 {
            best = (size, blocks);
        }
        size -= 32;
    }
    Ok((best.1 as i32 * multiprocessors, best.0 as i32))
}

#[no_mangle]
pub unsafe extern "C" fn cuOccupancyMaxPotentialBlockSizeWithFlags(
    min_grid: *mut i32,
    block: *mut i32,
    func: Handle,
    cb: BlockToShared,
    dynamic_shared: usize,
    limit: i32,
    flags: u32,
) -> CUresult {
    call(
        "cuOccupancyMaxPotentialBlockSize",
        || format!("func={func:#x}, dynamic_shared={dynamic_shared}, limit={limit}, flags={flags}"),
        || {
            let (grid, size) = potential(func, cb, dynamic_shared, limit)?;
            unsafe {
                out(min_grid, grid, "minGridSize")?;
                out(block, size, "blockSize")
            }
        },
    )
}

#[no_mangle]
pub unsafe extern "C" fn cuOccupancyMaxPotentialBlockSize(
    min_grid: *mut i32,
    block: *mut i32,
    func: Handle,
    cb: BlockToShared,
    dynamic_shared: usize,
    limit: i32,
) -> CUresult {
    unsafe {
        cuOccupancyMaxPotentialBlockSizeWithFlags(
            min_grid,
            block,
            func,
            cb,
            dynamic_shared,
            limit,
            0,
        )
    }
}

//! Occupancy: how many blocks of a kernel one multiprocessor holds at once, by the occupancy calculator's
//! rule (warps, registers allocated per warp in units of 256, shared memory in units of 128 bytes plus each
//! block's reserved part, and a block count per multiprocessor), with the per-multiprocessor limits
//! `cuDeviceGetAttribute` reports for the device, so that both answers agree.

use crate::attributes::attribute;
use crate::error::{DriverError, Result};
use crate::ffi::out;
use crate::log::call;
use crate::result::CUresult;
use crate::state::{self, Driver, Function, Handle};

/// A multiprocessor's limits, as the device attributes give them.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    pub threads: u32,
    pub blocks: u32,
    pub registers: u32,
    pub shared: u64,
    pub reserved_shared: u64,
}

impl Limits {
    pub(crate) fn of(d: &mut Driver, func: Handle) -> Result<Limits> {
        let module = d.function(func)?.module;
        let device = d.modules.get(&module).map_or(0, |m| m.device);
        let info = &d
            .devices
            .get(device)
            .ok_or(DriverError::InvalidDevice(device as i32))?
            .info;
        let a = |attr| attribute(info, device, attr).unwrap_or(0).max(0) as u32;
        Ok(Limits {
            threads: a(39),
            blocks: a(106),
            registers: a(82),
            shared: u64::from(a(81)),
            reserved_shared: u64::from(a(111)),
        })
    }
}

/// Active blocks per multiprocessor for `block_size` threads and `dynamic_shared` bytes.
pub fn active_blocks(f: &Function, l: Limits, block_size: u32, dynamic_shared: u64) -> u32 {
    if block_size == 0 || block_size > f.max_threads {
        return 0;
    }
    let warps = block_size.div_ceil(32);
    let by_warps = (l.threads / 32) / warps;
    let per_warp_registers = (f.registers.max(1) * 32).next_multiple_of(256);
    let by_registers = (l.registers / per_warp_registers) / warps;
    let shared = (f.static_shared + dynamic_shared).next_multiple_of(128) + l.reserved_shared;
    let by_shared = u32::try_from(l.shared / shared.max(1)).unwrap_or(u32::MAX);
    l.blocks.min(by_warps).min(by_registers).min(by_shared)
}

#[no_mangle]
pub unsafe extern "C" fn cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
    blocks: *mut i32,
    func: Handle,
    block_size: i32,
    dynamic_shared: usize,
    flags: u32,
) -> CUresult {
    call(
        "cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags",
        || {
            format!("func={func:#x}, block_size={block_size}, dynamic_shared={dynamic_shared}, flags={flags}")
        },
        || {
            let block = u32::try_from(block_size)
                .map_err(|_| DriverError::InvalidValue("negative block size".into()))?;
            let n = state::with(|d| {
                let limits = Limits::of(d, func)?;
                Ok(active_blocks(
                    d.function(func)?,
                    limits,
                    block,
                    dynamic_shared as u64,
                ))
            })?;
            unsafe { out(blocks, n as i32, "numBlocks") }
        },
    )
}

#[no_mangle]
pub unsafe extern "C" fn cuOccupancyMaxActiveBlocksPerMultiprocessor(
    blocks: *mut i32,
    func: Handle,
    block_size: i32,
    dynamic_shared: usize,
) -> CUresult {
    unsafe {
        cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
            blocks,
            func,
            block_size,
            dynamic_shared,
            0,
        )
    }
}

/// The most dynamic shared memory a block can have with `num_blocks` blocks of `block_size` threads
/// resident on a multiprocessor.
#[no_mangle]
pub unsafe extern "C" fn cuOccupancyAvailableDynamicSMemPerBlock(
    bytes: *mut usize,
    func: Handle,
    num_blocks: i32,
    block_size: i32,
) -> CUresult {
    call(
        "cuOccupancyAvailableDynamicSMemPerBlock",
        || format!("func={func:#x}, num_blocks={num_blocks}, block_size={block_size}"),
        || {
            let (limits, max_threads, static_shared, optin) = state::with(|d| {
                let limits = Limits::of(d, func)?;
                let f = d.function(func)?;
                Ok((
                    limits,
                    f.max_threads,
                    f.static_shared,
                    u64::from(f.max_dynamic_shared),
                ))
            })?;
            if num_blocks <= 0 || block_size <= 0 || block_size as u32 > max_threads {
                return Err(DriverError::InvalidValue(format!(
                    "{num_blocks} blocks of {block_size} threads"
                )));
            }
            let per_block = (limits.shared / num_blocks as u64) & !127;
            let available = per_block
                .saturating_sub(limits.reserved_shared + static_shared.next_multiple_of(128));
            unsafe { out(bytes, available.min(optin) as usize, "dynamicSmemSize") }
        },
    )
}

//! `cuCtxGetLimit` / `cuCtxSetLimit` (`cudaDeviceGetLimit`/`SetLimit`). The device heap's size is the
//! runtime's (`Runtime::set_malloc_heap_size`: it can change until a module calling malloc is loaded). The
//! other limits bound nothing sassport has (a thread's stack is its translated locals, the printf buffer is
//! the runtime's and reports what it drops, there are no device-side launches or L2 controls), so a set
//! value is kept and read back, as CUDA reads back what it accepted.

use crate::error::{DriverError, Result};
use crate::ffi::out;
use crate::log::call;
use crate::result::CUresult;
use crate::state;
use std::collections::HashMap;
use std::sync::Mutex;

/// `CU_LIMIT_MALLOC_HEAP_SIZE`; the last limit `cuda.h` 13.5 defines: `CU_LIMIT_PERSISTING_L2_CACHE_SIZE`.
const MALLOC_HEAP_SIZE: i32 = 2;
const LAST_LIMIT: i32 = 6;

/// CUDA's defaults for the limits other than the heap: stack 1 KiB, printf FIFO 1 MiB, sync depth 2,
/// pending launches 2048, L2 fetch granularity 32 bytes, persisting L2 0.
fn default(limit: i32) -> usize {
    match limit {
        0 => 1024,
        1 => 1 << 20,
        3 => 2,
        4 => 2048,
        5 => 32,
        _ => 0,
    }
}

/// Values set per (device, limit).
static SET: Mutex<Option<HashMap<(usize, i32), usize>>> = Mutex::new(None);

fn check(limit: i32) -> Result<()> {
    if (0..=LAST_LIMIT).contains(&limit) {
        Ok(())
    } else {
        Err(DriverError::InvalidValue(format!("limit {limit}")))
    }
}

#[no_mangle]
pub unsafe extern "C" fn cuCtxGetLimit(value: *mut usize, limit: i32) -> CUresult {
    call(
        "cuCtxGetLimit",
        || format!("limit={limit}"),
        || {
            check(limit)?;
            let v = state::with(|d| {
                let dev = d.current_device()?;
                if limit == MALLOC_HEAP_SIZE {
                    return Ok(d.devices[dev].gpu()?.rt.malloc_heap_size() as usize);
                }
                let set = SET
                    .lock()
                    .map_err(|_| DriverError::InvalidValue("limits poisoned".into()))?;
                Ok(set
                    .as_ref()
                    .and_then(|m| m.get(&(dev, limit)).copied())
                    .unwrap_or_else(|| default(limit)))
            })?;
            unsafe { out(value, v, "pvalue") }
        },
    )
}

#[no_mangle]
pub unsafe extern "C" fn cuCtxSetLimit(limit: i32, value: usize) -> CUresult {
    call(
        "cuCtxSetLimit",
        || format!("limit={limit}, value={value}"),
        || {
            check(limit)?;
            state::with(|d| {
                let dev = d.current_device()?;
                if limit == MALLOC_HEAP_SIZE {
                    return d.devices[dev]
                        .gpu()?
                        .rt
                        .set_malloc_heap_size(value as u64)
                        // CUDA fixes the heap at the first launch of a kernel using it, sassport when such a
                        // module loads (the runtime loads every module at its first call): refused by name.
                        .map_err(|e| DriverError::NotSupported(e.to_string()));
                }
                let mut set = SET
                    .lock()
                    .map_err(|_| DriverError::InvalidValue("limits poisoned".into()))?;
                set.get_or_insert_with(HashMap::new)
                    .insert((dev, limit), value);
                Ok(())
            })
        },
    )
}

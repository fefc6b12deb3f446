//! Stream-ordered allocation: `cuMemAllocAsync`, `cuMemFreeAsync` and memory pools (`cuMemPool*`, the
//! default and current pool of a device). CCCL's `cuda::memory_pool` (which CUB and Thrust examples use) and
//! `cudaMallocAsync` sit on these. A pool here is bookkeeping over the device's window allocator: an
//! allocation is made at once (so it exists before any later work of the stream uses it) and a free waits
//! for the queued work first (so no earlier work of the stream still uses it), which keeps stream order.
//! Pools of device memory without export handles only; anything else is refused by name.

use crate::error::{DriverError, Result};
use crate::ffi::out;
use crate::log::call;
use crate::result::CUresult;
use crate::state::{self, Driver, Handle};
use std::collections::HashMap;
use std::ffi::c_void;
use std::sync::Mutex;

/// `CU_MEM_LOCATION_TYPE_DEVICE`, `CU_MEM_ALLOCATION_TYPE_PINNED`, `CU_MEM_ACCESS_FLAGS_PROT_READWRITE`.
const LOCATION_DEVICE: i32 = 1;
const ALLOCATION_PINNED: i32 = 1;
const ACCESS_READWRITE: i32 = 3;

/// `CUmemLocation`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct MemLocation {
    pub kind: i32,
    pub id: i32,
}

/// `CUmemAccessDesc`.
#[repr(C)]
pub struct MemAccessDesc {
    pub location: MemLocation,
    pub flags: i32,
}

/// The head of `CUmemPoolProps` (what is read of it).
#[repr(C)]
pub struct MemPoolProps {
    pub alloc_type: i32,
    pub handle_types: i32,
    pub location: MemLocation,
    pub win32_security_attributes: *mut c_void,
    pub max_size: usize,
}

#[derive(Default)]
struct Pool {
    device: usize,
    release_threshold: u64,
    reuse: [i32; 3],
    used: u64,
    used_high: u64,
    max_size: u64,
}

#[derive(Default)]
struct Pools {
    pools: HashMap<Handle, Pool>,
    /// Per device ordinal: (default pool, current pool).
    of_device: HashMap<usize, (Handle, Handle)>,
    /// Live allocations: address -> (pool, bytes).
    live: HashMap<u64, (Handle, u64)>,
}

static POOLS: Mutex<Option<Pools>> = Mutex::new(None);

fn with_pools<T>(f: impl FnOnce(&mut Pools) -> Result<T>) -> Result<T> {
    let mut guard = POOLS
        .lock()
        .map_err(|_| DriverError::InvalidValue("memory pool state poisoned".into()))?;
    f(guard.get_or_insert_with(Pools::default))
}

/// The (default, current) pools of device `dev`, made on first use.
fn device_pools(d: &mut Driver, p: &mut Pools, dev: usize) -> Result<(Handle, Handle)> {
    if let Some(&pair) = p.of_device.get(&dev) {
        return Ok(pair);
    }
    let h = d.issue();
    p.pools.insert(
        h,
        Pool {
            device: dev,
            ..Pool::default()
        },
    );
    p.of_device.insert(dev, (h, h));
    Ok((h, h))
}

fn device_index(d: &mut Driver, ordinal: i32) -> Result<usize> {
    d.device(ordinal)?;
    Ok(ordinal as usize)
}

/// The device of a location that must be device memory (`type` PINNED), else refused by name.
fn location_device(d: &mut Driver, loc: *const MemLocation, alloc_type: i32) -> Result<usize> {
    if loc.is_null() {
        return Err(DriverError::InvalidValue("location is null".into()));
    }
    let loc = unsafe { *loc };
    if loc.kind != LOCATION_DEVICE || alloc_type != ALLOCATION_PINNED {
        return Err(DriverError::NotSupported(format!(
            "memory pools of location type {} / allocation type {alloc_type} (device memory only)",
            loc.kind
        )));
    }
    device_index(d, loc.id)
}

fn pool_mut(p: &mut Pools, pool: Handle) -> Result<&mut Pool> {
    p.pools.get_mut(&pool).ok_or(DriverError::InvalidHandle {
        what: "memory pool",
        handle: pool,
    })
}

/// A stream handle carries its context: a created stream needs no current one (CCCL allocates from a pool on
/// a stream with none current).
fn check_stream(d: &Driver, stream: Handle) -> Result<()> {
    if stream <= 2 || d.streams.contains_key(&stream) {
        Ok(())
    } else {
        Err(DriverError::InvalidHandle {
            what: "stream",
            handle: stream,
        })
    }
}

fn alloc_from(
    d: &mut Driver,
    p: &mut Pools,
    pool: Handle,
    bytes: usize,
    stream: Handle,
) -> Result<u64> {
    crate::graph::refuse_in_capture(d, stream, "stream-ordered allocation (graph memory nodes)")?;
    check_stream(d, stream)?;
    let pl = pool_mut(p, pool)?;
    let dev = pl.device;
    if pl.max_size != 0 && pl.used + bytes as u64 > pl.max_size {
        return Err(DriverError::Runtime(
            sassport_runtime::RuntimeError::OutOfMemory {
                requested: bytes as u64,
                largest_free: pl.max_size - pl.used,
            },
        ));
    }
    let address = crate::sync::settled_gpu(d, dev)?.rt.alloc(bytes as u64)?;
    let pl = pool_mut(p, pool)?;
    pl.used += bytes as u64;
    pl.used_high = pl.used_high.max(pl.used);
    p.live.insert(address, (pool, bytes as u64));
    Ok(address)
}

#[no_mangle]
pub unsafe extern "C" fn cuMemAllocAsync(dptr: *mut u64, bytes: usize, stream: Handle) -> CUresult {
    call(
        "cuMemAllocAsync",
        || format!("bytes={bytes}, stream={stream:#x}"),
        || {
            let a = state::with(|d| {
                let dev = d.current_device()?;
                with_pools(|p| {
                    let (_, current) = device_pools(d, p, dev)?;
                    alloc_from(d, p, current, bytes, stream)
                })
            })?;
            unsafe { out(dptr, a, "dptr") }
        },
    )
}

#[no_mangle]
pub unsafe extern "C" fn cuMemAllocFromPoolAsync(
    dptr: *mut u64,
    bytes: usize,
    pool: Handle,
    stream: Handle,
) -> CUresult {
    call(
        "cuMemAllocFromPoolAsync",
        || format!("bytes={bytes}, pool={pool:#x}, stream={stream:#x}"),
        || {
            let a = state::with(|d| with_pools(|p| alloc_from(d, p, pool, bytes, stream)))?;
            unsafe { out(dptr, a, "dptr") }
        },
    )
}

#[no_mangle]
pub unsafe extern "C" fn cuMemFreeAsync(dptr: u64, stream: Handle) -> CUresult {
    call(
        "cuMemFreeAsync",
        || format!("dptr={dptr:#x}, stream={stream:#x}"),
        || {
            if dptr == 0 {
                return Ok(());
            }
            state::with(|d| {
                check_stream(d, stream)?;
                crate::graph::refuse_in_capture(d, stream, "stream-ordered free (graph memory nodes)")?;
                // A free waits for the queued work (crate::sync), so the stream's earlier uses are done.
                crate::memory::free(d, dptr)?;
                with_pools(|p| {
                    if let Some((pool, bytes)) = p.live.remove(&dptr) {
                        if let Some(pl) = p.pools.get_mut(&pool) {
                            pl.used = pl.used.saturating_sub(bytes);
                        }
                    }
                    Ok(())
                })
            })
        },
    )
}

#[no_mangle]
pub unsafe extern "C" fn cuDeviceGetDefaultMemPool(pool: *mut Handle, dev: i32) -> CUresult {
    call(
        "cuDeviceGetDefaultMemPool",
        || format!("dev={dev}"),
        || {
            let h = state::with(|d| {
                let dev = device_index(d, dev)?;
                with_pools(|p| Ok(device_pools(d, p, dev)?.0))
            })?;
            unsafe { out(pool, h, "pool") }
        },
    )
}

#[no_mangle]
pub unsafe extern "C" fn cuDeviceGetMemPool(pool: *mut Handle, dev: i32) -> CUresult {
    call(
        "cuDeviceGetMemPool",
        || format!("dev={dev}"),
        || {
            let h = state::with(|d| {
                let dev = device_index(d, dev)?;
                with_pools(|p| Ok(device_pools(d, p, dev)?.1))
            })?;
            unsafe { out(pool, h, "pool") }
        },
    )
}

fn set_current(d: &mut Driver, dev: usize, pool: Handle) -> Result<()> {
    with_pools(|p| {
        let (default, _) = device_pools(d, p, dev)?;
        if pool_mut(p, pool)?.device != dev {
            return Err(DriverError::InvalidValue(format!(
                "pool {pool:#x} is not of device {dev}"
            )));
        }
        p.of_device.insert(dev, (default, pool));
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuDeviceSetMemPool(dev: i32, pool: Handle) -> CUresult {
    call(
        "cuDeviceSetMemPool",
        || format!("dev={dev}, pool={pool:#x}"),
        || {
            state::with(|d| {
                let dev = device_index(d, dev)?;
                set_current(d, dev, pool)
            })
        },
    )
}

#[no_mangle]
pub unsafe extern "C" fn cuMemGetDefaultMemPool(
    pool: *mut Handle,
    location: *const MemLocation,
    alloc_type: i32,
) -> CUresult {
    call(
        "cuMemGetDefaultMemPool",
        || format!("type={alloc_type}"),
        || {
            let h = state::with(|d| {
                let dev = location_device(d, location, alloc_type)?;
                with_pools(|p| Ok(device_pools(d, p, dev)?.0))
            })?;
            unsafe { out(pool, h, "pool") }
        },
    )
}

#[no_mangle]
pub unsafe extern "C" fn cuMemGetMemPool(
    pool: *mut Handle,
    location: *const MemLocation,
    alloc_type: i32,
) -> CUresult {
    call(
        "cuMemGetMemPool",
        || format!("type={alloc_type}"),
        || {
            let h = state::with(|d| {
                let dev = location_device(d, location, alloc_type)?;
                with_pools(|p| Ok(device_pools(d, p, dev)?.1))
            })?;
            unsafe { out(pool, h, "pool") }
        },
    )
}

#[no_mangle]
pub unsafe extern "C" fn cuMemSetMemPool(
    location: *const MemLocation,
    alloc_type: i32,
    pool: Handle,
) -> CUresult {
    call(
        "cuMemSetMemPool",
        || format!("type={alloc_type}, pool={pool:#x}"),
        || {
            state::with(|d| {
                let dev = location_device(d, location, alloc_type)?;
                set_current(d, dev, pool)
            })
        },
    )
}

#[no_mangle]
pub unsafe extern "C" fn cuMemPoolCreate(
    pool: *mut Handle,
    props: *const MemPoolProps,
) -> CUresult {
    call("cuMemPoolCreate", String::new, || {
        if props.is_null() {
            return Err(DriverError::InvalidValue("props is null".into()));
        }
        let props = unsafe { &*props };
        if props.handle_types != 0 {
            return Err(DriverError::NotSupported(format!(
                "memory pools with export handle types {:#x}",
                props.handle_types
            )));
        }
        let h = state::with(|d| {
            let dev = location_device(d, &props.location, props.alloc_type)?;
            let h = d.issue();
            let max_size = props.max_size as u64;
            with_pools(|p| {
                p.pools.insert(
                    h,
                    Pool {
                        device: dev,
                        max_size,
                        ..Pool::default()
                    },
                );
                Ok(h)
            })
        })?;
        unsafe { out(pool, h, "pool") }
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuMemPoolDestroy(pool: Handle) -> CUresult {
    call(
        "cuMemPoolDestroy",
        || format!("pool={pool:#x}"),
        || {
            with_pools(|p| {
                if p.of_device.values().any(|&(default, _)| default == pool) {
                    return Err(DriverError::InvalidValue(
                        "a device's default pool cannot be destroyed".into(),
                    ));
                }
                p.pools.remove(&pool).ok_or(DriverError::InvalidHandle {
                    what: "memory pool",
                    handle: pool,
                })?;
                // A destroyed current pool gives way to the default one, as CUDA does.
                for pair in p.of_device.values_mut() {
                    if pair.1 == pool {
                        pair.1 = pair.0;
                    }
                }
                Ok(())
            })
        },
    )
}

/// Reads or writes one `CUmemPool_attribute` through `value` (an int or a 64-bit number, as CUDA defines).
unsafe fn attribute(pl: &mut Pool, attr: i32, value: *mut c_void, write: bool) -> Result<()> {
    if value.is_null() {
        return Err(DriverError::InvalidValue("value is null".into()));
    }
    let int = value.cast::<i32>();
    let u64p = value.cast::<u64>();
    unsafe {
        match (attr, write) {
            (1..=3, false) => int.write(pl.reuse[attr as usize - 1]),
            (1..=3, true) => pl.reuse[attr as usize - 1] = int.read(),
            (4, false) => u64p.write(pl.release_threshold),
            (4, true) => pl.release_threshold = u64p.read(),
            // RESERVED_MEM_CURRENT/HIGH: what is allocated is what is reserved (nothing is cached).
            (5 | 7, false) => u64p.write(pl.used),
            (6 | 8, false) => u64p.write(pl.used_high),
            (6 | 8, true) => pl.used_high = pl.used,
            (9, false) => int.write(ALLOCATION_PINNED),
            (10, false) => int.write(0),
            (11, false) => int.write(pl.device as i32),
            (12, false) => int.write(LOCATION_DEVICE),
            (13, false) => u64p.write(pl.max_size),
            (14, false) => int.write(0),
            _ => {
                return Err(DriverError::NotSupported(format!(
                    "memory pool attribute {attr} ({})",
                    if write { "set" } else { "get" }
                )))
            }
        }
    }
    Ok(())
}

#[no_mangle]
pub unsafe extern "C" fn cuMemPoolSetAttribute(
    pool: Handle,
    attr: i32,
    value: *mut c_void,
) -> CUresult {
    call(
        "cuMemPoolSetAttribute",
        || format!("pool={pool:#x}, attr={attr}"),
        || with_pools(|p| unsafe { attribute(pool_mut(p, pool)?, attr, value, true) }),
    )
}

#[no_mangle]
pub unsafe extern "C" fn cuMemPoolGetAttribute(
    pool: Handle,
    attr: i32,
    value: *mut c_void,
) -> CUresult {
    call(
        "cuMemPoolGetAttribute",
        || format!("pool={pool:#x}, attr={attr}"),
        || with_pools(|p| unsafe { attribute(pool_mut(p, pool)?, attr, value, false) }),
    )
}

#[no_mangle]
pub unsafe extern "C" fn cuMemPoolTrimTo(pool: Handle, min_bytes: usize) -> CUresult {
    call(
        "cuMemPoolTrimTo",
        || format!("pool={pool:#x}, min_bytes={min_bytes}"),
        // Nothing is cached: there is nothing to give back.
        || with_pools(|p| pool_mut(p, pool).map(|_| ())),
    )
}

/// Access from the pool's own device is read-write; other devices cannot be granted access (no peer access).
#[no_mangle]
pub unsafe extern "C" fn cuMemPoolSetAccess(
    pool: Handle,
    map: *const MemAccessDesc,
    count: usize,
) -> CUresult {
    call(
        "cuMemPoolSetAccess",
        || format!("pool={pool:#x}, count={count}"),
        || {
            let dev = with_pools(|p| Ok(pool_mut(p, pool)?.device))?;
            if count > 0 && map.is_null() {
                return Err(DriverError::InvalidValue("map is null".into()));
            }
            for i in 0..count {
                let desc = unsafe { &*map.add(i) };
                let own = desc.location.kind == LOCATION_DEVICE && desc.location.id == dev as i32;
                if !own || desc.flags != ACCESS_READWRITE {
                    return Err(DriverError::NotSupported(format!(
                        "pool access for location type {} id {} with flags {:#x} \
                         (only the pool's device, read-write)",
                        desc.location.kind, desc.location.id, desc.flags
                    )));
                }
            }
            Ok(())
        },
    )
}

#[no_mangle]
pub unsafe extern "C" fn cuMemPoolGetAccess(
    flags: *mut i32,
    pool: Handle,
    location: *const MemLocation,
) -> CUresult {
    call(
        "cuMemPoolGetAccess",
        || format!("pool={pool:#x}"),
        || {
            if location.is_null() {
                return Err(DriverError::InvalidValue("location is null".into()));
            }
            let loc = unsafe { *location };
            let dev = with_pools(|p| Ok(pool_mut(p, pool)?.device))?;
            let own = loc.kind == LOCATION_DEVICE && loc.id == dev as i32;
            unsafe { out(flags, if own { ACCESS_READWRITE } else { 0 }, "flags") }
        },
    )
}

//! Streams and events. All work is queued in one order on the device's one queue ([`crate::sync`]), so every
//! stream is in order and a stream's wait on an event is met by construction. A stream remembers the serial
//! of its last queued work, an event the serial of the work before its record and, where the queue has
//! timestamps, a device timestamp queued with it: queries ask whether that serial has completed,
//! synchronising waits for it, and elapsed times are between the two device timestamps (host moments of
//! the record calls where the queue has no timestamps).

use crate::error::{DriverError, Result};
use crate::ffi::out;
use crate::log::call;
use crate::result::CUresult;
use crate::state::{self, Driver, Event, Handle, Recorded, Stream};
use std::time::Instant;

/// `CU_STREAM_LEGACY` and `CU_STREAM_PER_THREAD`: the default streams, like the null handle.
const DEFAULT_STREAMS: [Handle; 3] = [0, 1, 2];
/// `CU_EVENT_DISABLE_TIMING`.
const EVENT_DISABLE_TIMING: u32 = 0x2;

/// Checks that `stream` is a default stream or one the library created, with a current context.
pub fn check(d: &mut Driver, stream: Handle) -> Result<()> {
    device_of_stream(d, stream).map(|_| ())
}

/// The current device, once `stream` is checked.
fn device_of_stream(d: &mut Driver, stream: Handle) -> Result<usize> {
    let dev = d.current_device()?;
    if DEFAULT_STREAMS.contains(&stream) || d.streams.contains_key(&stream) {
        Ok(dev)
    } else {
        Err(DriverError::InvalidHandle {
            what: "stream",
            handle: stream,
        })
    }
}

fn create(d: &mut Driver, flags: u32, priority: i32) -> Result<Handle> {
    d.current_device()?;
    let context = crate::context::current().ok_or(DriverError::InvalidContext)?;
    let h = d.issue();
    d.streams.insert(h, Stream { flags, priority, last_serial: 0, context });
    Ok(h)
}

#[no_mangle]
pub unsafe extern "C" fn cuStreamCreate(stream: *mut Handle, flags: u32) -> CUresult {
    call(
        "cuStreamCreate",
        || format!("flags={flags:#x}"),
        || {
            let h = state::with(|d| create(d, flags, 0))?;
            unsafe { out(stream, h, "stream") }
        },
    )
}

#[no_mangle]
pub unsafe extern "C" fn cuStreamCreateWithPriority(
    stream: *mut Handle,
    flags: u32,
    priority: i32,
) -> CUresult {
    call(
        "cuStreamCreateWithPriority",
        || format!("flags={flags:#x}, priority={priority}"),
        || {
            // One priority level (cuCtxGetStreamPriorityRange says 0..0): CUDA clamps others into the range.
            let h = state::with(|d| create(d, flags, priority.clamp(0, 0)))?;
            unsafe { out(stream, h, "stream") }
        },
    )
}

#[no_mangle]
pub unsafe extern "C" fn cuStreamDestroy_v2(stream: Handle) -> CUresult {
    call(
        "cuStreamDestroy",
        || format!("stream={stream:#x}"),
        || {
            state::with(|d| {
                d.streams
                    .remove(&stream)
                    .map(|_| ())
                    .ok_or(DriverError::InvalidHandle {
                        what: "stream",
                        handle: stream,
                    })
            })
        },
    )
}

/// The serial a stream's queued work completes with: a default stream's is all queued work's.
fn stream_serial(d: &mut Driver, dev: usize, stream: Handle) -> Result<u64> {
    match d.streams.get(&stream) {
        Some(s) => Ok(s.last_serial),
        None => Ok(d.devices[dev].gpu()?.rt.pending_serial()),
    }
}

/// Waits until the work queued on `stream` has completed (a synchronisation point).
pub(crate) fn synchronize(d: &mut Driver, stream: Handle) -> Result<()> {
    let dev = device_of_stream(d, stream)?;
    let serial = stream_serial(d, dev, stream)?;
    d.devices[dev].gpu()?.rt.wait_for(serial)?;
    crate::sync::collect(d, dev)
}

/// Whether the work before `serial` on device `dev` has completed: `CUDA_ERROR_NOT_READY` while it has not.
fn query(d: &mut Driver, dev: usize, serial: u64) -> Result<()> {
    if !d.devices[dev].gpu()?.rt.is_complete(serial)? {
        return Err(DriverError::NotReady);
    }
    crate::sync::collect(d, dev)
}

#[no_mangle]
pub unsafe extern "C" fn cuStreamSynchronize(stream: Handle) -> CUresult {
    call(
        "cuStreamSynchronize",
        || format!("stream={stream:#x}"),
        || state::with(|d| synchronize(d, stream)),
    )
}

#[no_mangle]
pub unsafe extern "C" fn cuStreamQuery(stream: Handle) -> CUresult {
    call(
        "cuStreamQuery",
        || format!("stream={stream:#x}"),
        || {
            state::with(|d| {
                let dev = device_of_stream(d, stream)?;
                let serial = stream_serial(d, dev, stream)?;
                query(d, dev, serial)
            })
        },
    )
}

#[no_mangle]
pub unsafe extern "C" fn cuStreamWaitEvent(stream: Handle, event: Handle, _flags: u32) -> CUresult {
    call(
        "cuStreamWaitEvent",
        || format!("stream={stream:#x}, event={event:#x}"),
        || {
            state::with(|d| {
                check(d, stream)?;
                d.events
                    .get(&event)
                    .map(|_| ())
                    .ok_or(DriverError::InvalidHandle {
                        what: "event",
                        handle: event,
                    })?;
                crate::graph::captured_wait(d, stream, event).map(|_| ())
            })
        },
    )
}

#[no_mangle]
pub unsafe extern "C" fn cuStreamGetFlags(stream: Handle, flags: *mut u32) -> CUresult {
    call(
        "cuStreamGetFlags",
        || format!("stream={stream:#x}"),
        || {
            let f = state::with(|d| {
                check(d, stream)?;
                Ok(d.streams.get(&stream).map_or(0, |s| s.flags))
            })?;
            unsafe { out(flags, f, "flags") }
        },
    )
}

#[no_mangle]
pub unsafe extern "C" fn cuStreamGetPriority(stream: Handle, priority: *mut i32) -> CUresult {
    call(
        "cuStreamGetPriority",
        || format!("stream={stream:#x}"),
        || {
            let p = state::with(|d| {
                check(d, stream)?;
                Ok(d.streams.get(&stream).map_or(0, |s| s.priority))
            })?;
            unsafe { out(priority, p, "priority") }
        },
    )
}

#[no_mangle]
pub unsafe extern "C" fn cuEventCreate(event: *mut Handle, flags: u32) -> CUresult {
    call(
        "cuEventCreate",
        || format!("flags={flags:#x}"),
        || {
            let h = state::with(|d| {
                d.current_device()?;
                let h = d.issue();
                d.events.insert(
                    h,
                    Event {
                        flags,
                        recorded: None,
                    },
                );
                Ok(h)
            })?;
            unsafe { out(event, h, "event") }
        },
    )
}

fn record(d: &mut Driver, event: Handle, stream: Handle) -> Result<()> {
    let dev = device_of_stream(d, stream)?;
    if !d.events.contains_key(&event) {
        return Err(DriverError::InvalidHandle { what: "event", handle: event });
    }
    if crate::graph::captured_record(d, event, stream)? {
        return Ok(());
    }
    let flags = d
        .events
        .get(&event)
        .ok_or(DriverError::InvalidHandle {
            what: "event",
            handle: event,
        })?
        .flags;
    let rt = &mut d.devices[dev].gpu()?.rt;
    // All work is in one order, so the event follows all queued work (a stream's included).
    let (serial, stamp) = if flags & EVENT_DISABLE_TIMING != 0 {
        (rt.pending_serial(), None)
    } else {
        rt.enqueue_timestamp()?
    };
    if let Some(s) = d.streams.get_mut(&stream) {
        s.last_serial = s.last_serial.max(serial);
    }
    let at = Instant::now();
    if let Some(e) = d.events.get_mut(&event) {
        e.recorded = Some(Recorded { device: dev, serial, stamp, at });
    }
    Ok(())
}

#[no_mangle]
pub unsafe extern "C" fn cuEventRecord(event: Handle, stream: Handle) -> CUresult {
    call(
        "cuEventRecord",
        || format!("event={event:#x}, stream={stream:#x}"),
        || state::with(|d| record(d, event, stream)),
    )
}

#[no_mangle]
pub unsafe extern "C" fn cuEventRecordWithFlags(
    event: Handle,
    stream: Handle,
    flags: u32,
) -> CUresult {
    call(
        "cuEventRecordWithFlags",
        || format!("event={event:#x}, stream={stream:#x}, flags={flags:#x}"),
        || state::with(|d| record(d, event, stream)),
    )
}

fn event(d: &mut Driver, event: Handle) -> Result<&Event> {
    d.current_device()?;
    d.events.get(&event).ok_or(DriverError::InvalidHandle {
        what: "event",
        handle: event,
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuEventQuery(e: Handle) -> CUresult {
    call(
        "cuEventQuery",
        || format!("event={e:#x}"),
        || {
            state::with(|d| match event(d, e)?.recorded {
                // An event never recorded has no work to wait for.
                None => Ok(()),
                Some(r) => query(d, r.device, r.serial),
            })
        },
    )
}

#[no_mangle]
pub unsafe extern "C" fn cuEventSynchronize(e: Handle) -> CUresult {
    call(
        "cuEventSynchronize",
        || format!("event={e:#x}"),
        || {
            state::with(|d| match event(d, e)?.recorded {
                None => Ok(()),
                Some(r) => {
                    d.devices[r.device].gpu()?.rt.wait_for(r.serial)?;
                    crate::sync::collect(d, r.device)
                }
            })
        },
    )
}

#[no_mangle]
pub unsafe extern "C" fn cuEventDestroy_v2(e: Handle) -> CUresult {
    call(
        "cuEventDestroy",
        || format!("event={e:#x}"),
        || {
            state::with(|d| {
                d.events
                    .remove(&e)
                    .map(|_| ())
                    .ok_or(DriverError::InvalidHandle {
                        what: "event",
                        handle: e,
                    })
            })
        },
    )
}

fn elapsed(d: &mut Driver, start: Handle, end: Handle) -> Result<f32> {
    let recorded = |d: &mut Driver, h: Handle| -> Result<Recorded> {
        let e = event(d, h)?;
        if e.flags & EVENT_DISABLE_TIMING != 0 {
            return Err(DriverError::InvalidHandle {
                what: "timed event (it was created without timing)",
                handle: h,
            });
        }
        e.recorded.ok_or(DriverError::InvalidHandle {
            what: "recorded event",
            handle: h,
        })
    };
    let (a, b) = (recorded(d, start)?, recorded(d, end)?);
    // As CUDA: both events' work must have completed.
    for r in [a, b] {
        if !d.devices[r.device].gpu()?.rt.is_complete(r.serial)? {
            return Err(DriverError::NotReady);
        }
    }
    let device_ns = |d: &mut Driver, r: Recorded| -> Option<u64> {
        let gpu = d.devices[r.device].opened()?;
        gpu.rt.timestamp_ns(r.stamp?)
    };
    let ms = match (device_ns(d, a), device_ns(d, b)) {
        (Some(x), Some(y)) if a.device == b.device => (y as f64 - x as f64) / 1e6,
        _ if b.at >= a.at => (b.at - a.at).as_secs_f64() * 1e3,
        _ => -((a.at - b.at).as_secs_f64() * 1e3),
    };
    Ok(ms as f32)
}

#[no_mangle]
pub unsafe extern "C" fn cuEventElapsedTime(ms: *mut f32, start: Handle, end: Handle) -> CUresult {
    call(
        "cuEventElapsedTime",
        || format!("start={start:#x}, end={end:#x}"),
        || {
            let t = state::with(|d| elapsed(d, start, end))?;
            unsafe { out(ms, t, "ms") }
        },
    )
}

#[no_mangle]
pub unsafe extern "C" fn cuEventElapsedTime_v2(
    ms: *mut f32,
    start: Handle,
    end: Handle,
) -> CUresult {
    unsafe { cuEventElapsedTime(ms, start, end) }
}

/// The context of `stream`: a created stream's, or for a default stream the current one.
fn context_of(d: &mut Driver, stream: Handle) -> Result<(Handle, usize)> {
    let ctx = match d.streams.get(&stream) {
        Some(s) => s.context,
        None if DEFAULT_STREAMS.contains(&stream) => {
            crate::context::current().ok_or(DriverError::InvalidContext)?
        }
        None => return Err(DriverError::InvalidHandle { what: "stream", handle: stream }),
    };
    let dev = d.context(ctx)?.device;
    Ok((ctx, dev))
}

#[no_mangle]
pub unsafe extern "C" fn cuStreamGetCtx(stream: Handle, pctx: *mut Handle) -> CUresult {
    call(
        "cuStreamGetCtx",
        || format!("stream={stream:#x}"),
        || {
            let (ctx, _) = state::with(|d| context_of(d, stream))?;
            unsafe { out(pctx, ctx, "pctx") }
        },
    )
}

/// CUDA 12.5's form, which also answers a green context (none here: null).
#[no_mangle]
pub unsafe extern "C" fn cuStreamGetCtx_v2(stream: Handle, pctx: *mut Handle, green: *mut Handle) -> CUresult {
    call(
        "cuStreamGetCtx_v2",
        || format!("stream={stream:#x}"),
        || {
            let (ctx, _) = state::with(|d| context_of(d, stream))?;
            unsafe {
                out(pctx, ctx, "pctx")?;
                if !green.is_null() {
                    green.write(0);
                }
            }
            Ok(())
        },
    )
}

#[no_mangle]
pub unsafe extern "C" fn cuStreamGetDevice(stream: Handle, dev: *mut i32) -> CUresult {
    call(
        "cuStreamGetDevice",
        || format!("stream={stream:#x}"),
        || {
            let (_, device) = state::with(|d| context_of(d, stream))?;
            unsafe { out(dev, device as i32, "device") }
        },
    )
}

/// A stream's unique id: its handle (default streams: their own small numbers).
#[no_mangle]
pub unsafe extern "C" fn cuStreamGetId(stream: Handle, id: *mut u64) -> CUresult {
    call(
        "cuStreamGetId",
        || format!("stream={stream:#x}"),
        || {
            state::with(|d| context_of(d, stream).map(|_| ()))?;
            unsafe { out(id, stream as u64, "streamId") }
        },
    )
}

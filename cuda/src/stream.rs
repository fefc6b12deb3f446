//! Streams and events. Work runs to completion inside the call that submits it, so every stream is in order
//! and synchronised by construction: a stream synchronise, query or wait only checks its handle. An event
//! records the moment the work before it had completed, and elapsed times are measured between those host
//! moments (microsecond resolution, as CUDA's).

use crate::error::{DriverError, Result};
use crate::ffi::out;
use crate::log::call;
use crate::result::CUresult;
use crate::state::{self, Driver, Event, Handle, Stream};
use std::time::Instant;

/// `CU_STREAM_LEGACY` and `CU_STREAM_PER_THREAD`: the default streams, like the null handle.
const DEFAULT_STREAMS: [Handle; 3] = [0, 1, 2];
/// `CU_EVENT_DISABLE_TIMING`.
const EVENT_DISABLE_TIMING: u32 = 0x2;

/// Checks that `stream` is a default stream or one the library created, with a current context.
pub fn check(d: &mut Driver, stream: Handle) -> Result<()> {
    d.current_device()?;
    if DEFAULT_STREAMS.contains(&stream) || d.streams.contains_key(&stream) {
        Ok(())
    } else {
        Err(DriverError::InvalidHandle {
            what: "stream",
            handle: stream,
        })
    }
}

fn create(d: &mut Driver, flags: u32, priority: i32) -> Result<Handle> {
    d.current_device()?;
    let h = d.issue();
    d.streams.insert(h, Stream { flags, priority });
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

#[no_mangle]
pub unsafe extern "C" fn cuStreamSynchronize(stream: Handle) -> CUresult {
    call(
        "cuStreamSynchronize",
        || format!("stream={stream:#x}"),
        || state::with(|d| check(d, stream)),
    )
}

#[no_mangle]
pub unsafe extern "C" fn cuStreamQuery(stream: Handle) -> CUresult {
    call(
        "cuStreamQuery",
        || format!("stream={stream:#x}"),
        || state::with(|d| check(d, stream)),
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
                    })
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
    check(d, stream)?;
    let e = d.events.get_mut(&event).ok_or(DriverError::InvalidHandle {
        what: "event",
        handle: event,
    })?;
    e.recorded = Some(Instant::now());
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
        || state::with(|d| event(d, e).map(|_| ())),
    )
}

#[no_mangle]
pub unsafe extern "C" fn cuEventSynchronize(e: Handle) -> CUresult {
    call(
        "cuEventSynchronize",
        || format!("event={e:#x}"),
        || state::with(|d| event(d, e).map(|_| ())),
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
    let moment = |d: &mut Driver, h: Handle| -> Result<Instant> {
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
    let (a, b) = (moment(d, start)?, moment(d, end)?);
    let ms = if b >= a {
        (b - a).as_secs_f64() * 1e3
    } else {
        -((a - b).as_secs_f64() * 1e3)
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

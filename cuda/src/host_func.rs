//! Host functions in stream order: `cuLaunchHostFunc` and `cuStreamAddCallback`. CUDA runs one once the work
//! queued before it on its stream has completed, and holds later work of that stream back until it returns.
//! Here the call waits for the stream's queued work, then runs the function on the calling thread before
//! returning, so later work is queued after it: the same order, with the host blocked meanwhile (CUDA lets
//! host functions make no CUDA calls, so running them outside the library's lock cannot deadlock it).

use crate::error::DriverError;
use crate::log::call;
use crate::result::{CUresult, CUDA_SUCCESS};
use crate::state::{self, Handle};
use std::ffi::c_void;

/// `CUhostFn`.
type HostFn = Option<unsafe extern "C" fn(user_data: *mut c_void)>;
/// `CUstreamCallback`: (stream, status of the stream's work, user data).
type StreamCallback =
    Option<unsafe extern "C" fn(stream: Handle, status: CUresult, user: *mut c_void)>;

/// Waits for `stream`'s queued work (a synchronisation point: a kernel's failure is the call's result, and
/// then the function does not run, as CUDA skips host functions after a fault).
fn drain(stream: Handle) -> crate::error::Result<()> {
    state::with(|d| crate::stream::synchronize(d, stream))
}

#[no_mangle]
pub unsafe extern "C" fn cuLaunchHostFunc(
    stream: Handle,
    f: HostFn,
    user: *mut c_void,
) -> CUresult {
    call(
        "cuLaunchHostFunc",
        || {
            format!(
                "stream={stream:#x}, fn={:?}, user={user:p}",
                f.map(|f| f as *const c_void)
            )
        },
        || {
            let f = f.ok_or_else(|| DriverError::InvalidValue("fn is null".into()))?;
            let node = || Ok(crate::graph::Op::Host { f, user: user as usize });
            if state::with(|d| crate::graph::captured(d, stream, node))? {
                return Ok(());
            }
            drain(stream)?;
            // SAFETY: the caller's function with the caller's argument, as CUDA would call it.
            unsafe { f(user) };
            Ok(())
        },
    )
}

#[no_mangle]
pub unsafe extern "C" fn cuStreamAddCallback(
    stream: Handle,
    f: StreamCallback,
    user: *mut c_void,
    flags: u32,
) -> CUresult {
    call(
        "cuStreamAddCallback",
        || format!("stream={stream:#x}, user={user:p}, flags={flags:#x}"),
        || {
            let f = f.ok_or_else(|| DriverError::InvalidValue("callback is null".into()))?;
            if flags != 0 {
                return Err(DriverError::InvalidValue(format!(
                    "flags {flags:#x} (must be 0)"
                )));
            }
            drain(stream)?;
            // SAFETY: as above; the stream's work succeeded (a failure returned above).
            unsafe { f(stream, CUDA_SUCCESS, user) };
            Ok(())
        },
    )
}

/// CUDA 13.1's form with a synchronisation mode (how the driver waits before the call): every mode runs
/// the function after the stream's queued work here.
#[no_mangle]
pub unsafe extern "C" fn cuLaunchHostFunc_v2(
    stream: Handle,
    f: HostFn,
    user: *mut c_void,
    _sync_mode: u32,
) -> CUresult {
    unsafe { cuLaunchHostFunc(stream, f, user) }
}

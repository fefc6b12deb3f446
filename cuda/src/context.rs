//! Contexts: each device's primary context (retain, release, flags, state, reset) and the calling thread's
//! stack of current contexts. Explicit contexts: [`crate::context_explicit`].

use crate::error::{DriverError, Result};
use crate::ffi::out;
use crate::log::call;
use crate::result::CUresult;
use crate::state::{self, Handle};
use std::cell::RefCell;
use std::ffi::c_void;

thread_local! {
    /// The calling thread's context stack; the top is current.
    static CURRENT: RefCell<Vec<Handle>> = const { RefCell::new(Vec::new()) };
}

/// The calling thread's current context.
pub fn current() -> Option<Handle> {
    CURRENT.with(|c| c.borrow().last().copied())
}

fn set_current(ctx: Option<Handle>) {
    CURRENT.with(|c| {
        let mut stack = c.borrow_mut();
        stack.pop();
        if let Some(ctx) = ctx {
            stack.push(ctx);
        }
    });
}

/// Makes `ctx` the calling thread's current context by pushing it (what `cuCtxCreate` does).
pub(crate) fn push_current(ctx: Handle) {
    CURRENT.with(|c| c.borrow_mut().push(ctx));
}

/// Takes `ctx` off the calling thread's stack wherever it is (a destroyed context is current nowhere).
pub(crate) fn forget(ctx: Handle) {
    CURRENT.with(|c| c.borrow_mut().retain(|&h| h != ctx));
}

/// The primary context of `dev`, without retaining it (what the runtime's private table asks for).
pub fn primary_of(dev: i32) -> Result<Handle> {
    state::with(|d| Ok(d.device(dev)?.primary))
}

#[no_mangle]
pub unsafe extern "C" fn cuDevicePrimaryCtxRetain(pctx: *mut Handle, dev: i32) -> CUresult {
    call(
        "cuDevicePrimaryCtxRetain",
        || format!("dev={dev}"),
        || {
            let ctx = state::with(|d| {
                let primary = d.device(dev)?.primary;
                d.context(primary)?.retained += 1;
                Ok(primary)
            })?;
            unsafe { out(pctx, ctx, "pctx") }
        },
    )
}

#[no_mangle]
pub unsafe extern "C" fn cuDevicePrimaryCtxRelease_v2(dev: i32) -> CUresult {
    call(
        "cuDevicePrimaryCtxRelease",
        || format!("dev={dev}"),
        || {
            state::with(|d| {
                let primary = d.device(dev)?.primary;
                let ctx = d.context(primary)?;
                if ctx.retained == 0 {
                    return Err(DriverError::InvalidContext);
                }
                // The context's state stays: programs may keep using memory after the runtime's last release.
                ctx.retained -= 1;
                // The runtime releases at exit: queued work runs and prints before the process ends.
                let device = ctx.device;
                let _ = crate::sync::settle(d, device);
                Ok(())
            })
        },
    )
}

#[no_mangle]
pub unsafe extern "C" fn cuDevicePrimaryCtxSetFlags_v2(dev: i32, flags: u32) -> CUresult {
    call(
        "cuDevicePrimaryCtxSetFlags",
        || format!("dev={dev}, flags={flags:#x}"),
        || {
            state::with(|d| {
                let primary = d.device(dev)?.primary;
                d.context(primary)?.flags = flags;
                Ok(())
            })
        },
    )
}

#[no_mangle]
pub unsafe extern "C" fn cuDevicePrimaryCtxGetState(
    dev: i32,
    flags: *mut u32,
    active: *mut i32,
) -> CUresult {
    call(
        "cuDevicePrimaryCtxGetState",
        || format!("dev={dev}"),
        || {
            let (f, a) = state::with(|d| {
                let primary = d.device(dev)?.primary;
                let ctx = d.context(primary)?;
                Ok((ctx.flags, i32::from(ctx.retained > 0)))
            })?;
            unsafe {
                out(flags, f, "flags")?;
                out(active, a, "active")
            }
        },
    )
}

#[no_mangle]
pub unsafe extern "C" fn cuDevicePrimaryCtxReset_v2(dev: i32) -> CUresult {
    call(
        "cuDevicePrimaryCtxReset",
        || format!("dev={dev}"),
        || {
            // Memory and modules stay as they are; the destructors registered in context-local storage run, as
            // the runtime expects of a reset.
            let (primary, storage) = state::with(|d| {
                let primary = d.device(dev)?.primary;
                // Queued work completes (its failure no longer matters: the context starts over).
                if let Ok(device) = usize::try_from(dev) {
                    let _ = crate::sync::settle(d, device);
                }
                let ctx = d.context(primary)?;
                ctx.retained = 0;
                ctx.flags = 0;
                Ok((primary, std::mem::take(&mut ctx.storage)))
            })?;
            for (key, (value, dtor)) in storage {
                if let Some(dtor) = dtor {
                    dtor(primary, key as *mut c_void, value as *mut c_void);
                }
            }
            Ok(())
        },
    )
}

#[no_mangle]
pub unsafe extern "C" fn cuCtxSetCurrent(ctx: Handle) -> CUresult {
    call(
        "cuCtxSetCurrent",
        || format!("ctx={ctx:#x}"),
        || {
            if ctx != 0 {
                state::with(|d| d.context(ctx).map(|_| ()))?;
            }
            set_current((ctx != 0).then_some(ctx));
            Ok(())
        },
    )
}

#[no_mangle]
pub unsafe extern "C" fn cuCtxGetCurrent(pctx: *mut Handle) -> CUresult {
    call("cuCtxGetCurrent", String::new, || unsafe {
        out(pctx, current().unwrap_or(0), "pctx")
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuCtxPushCurrent_v2(ctx: Handle) -> CUresult {
    call(
        "cuCtxPushCurrent",
        || format!("ctx={ctx:#x}"),
        || {
            state::with(|d| d.context(ctx).map(|_| ()))?;
            CURRENT.with(|c| c.borrow_mut().push(ctx));
            Ok(())
        },
    )
}

#[no_mangle]
pub unsafe extern "C" fn cuCtxPopCurrent_v2(pctx: *mut Handle) -> CUresult {
    call("cuCtxPopCurrent", String::new, || {
        let popped = CURRENT
            .with(|c| c.borrow_mut().pop())
            .ok_or(DriverError::InvalidContext)?;
        if !pctx.is_null() {
            unsafe { pctx.write(popped) };
        }
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuCtxGetDevice(dev: *mut i32) -> CUresult {
    call("cuCtxGetDevice", String::new, || {
        let d = state::with(|d| d.current_device())?;
        unsafe { out(dev, d as i32, "device") }
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuCtxGetDevice_v2(dev: *mut i32, ctx: Handle) -> CUresult {
    call(
        "cuCtxGetDevice_v2",
        || format!("ctx={ctx:#x}"),
        || {
            let d = state::with(|d| {
                if ctx == 0 {
                    d.current_device()
                } else {
                    Ok(d.context(ctx)?.device)
                }
            })?;
            unsafe { out(dev, d as i32, "device") }
        },
    )
}

/// Waits for all work queued on the context's device (a synchronisation point: see [`crate::sync`]).
#[no_mangle]
pub unsafe extern "C" fn cuCtxSynchronize() -> CUresult {
    call("cuCtxSynchronize", String::new, || {
        state::with(|d| {
            let dev = d.current_device()?;
            crate::sync::settle(d, dev)
        })
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuCtxSynchronize_v2(ctx: Handle) -> CUresult {
    call(
        "cuCtxSynchronize_v2",
        || format!("ctx={ctx:#x}"),
        || {
            state::with(|d| {
                let dev = d.usable_context(ctx)?;
                crate::sync::settle(d, dev)
            })
        },
    )
}

#[no_mangle]
pub unsafe extern "C" fn cuCtxGetFlags(flags: *mut u32) -> CUresult {
    call("cuCtxGetFlags", String::new, || {
        let f = state::with(|d| {
            let ctx = current().ok_or(DriverError::InvalidContext)?;
            Ok(d.context(ctx)?.flags)
        })?;
        unsafe { out(flags, f, "flags") }
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuCtxGetApiVersion(ctx: Handle, version: *mut u32) -> CUresult {
    call(
        "cuCtxGetApiVersion",
        || format!("ctx={ctx:#x}"),
        || {
            state::with(|d| {
                if ctx == 0 {
                    d.current_device().map(|_| ())
                } else {
                    d.context(ctx).map(|_| ())
                }
            })?;
            unsafe { out(version, 13050, "version") }
        },
    )
}

/// One priority level: priorities are accepted and have no effect (work runs in call order).
#[no_mangle]
pub unsafe extern "C" fn cuCtxGetStreamPriorityRange(
    least: *mut i32,
    greatest: *mut i32,
) -> CUresult {
    call("cuCtxGetStreamPriorityRange", String::new, || {
        if !least.is_null() {
            unsafe { least.write(0) };
        }
        if !greatest.is_null() {
            unsafe { greatest.write(0) };
        }
        Ok(())
    })
}

/// The cache configuration is a preference CUDA may ignore; sassport has one configuration.
#[no_mangle]
pub unsafe extern "C" fn cuCtxGetCacheConfig(config: *mut u32) -> CUresult {
    call("cuCtxGetCacheConfig", String::new, || unsafe {
        out(config, 0, "config")
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuCtxSetCacheConfig(config: u32) -> CUresult {
    call(
        "cuCtxSetCacheConfig",
        || format!("config={config}"),
        || Ok(()),
    )
}

//! Explicit contexts: `cuCtxCreate` (the `_v2` and CUDA 12.5's `_v4` forms) and `cuCtxDestroy`. A created
//! context is a context of its device beside the primary one, sharing the device's memory window, queue and
//! modules (CUDA gives each context an address space of its own; with unified addressing no program can
//! tell, save by using a pointer of one context in another, which CUDA leaves undefined). It becomes current
//! on the calling thread, as CUDA does. Execution-affinity and CIG parameters are refused by name.

use crate::error::{DriverError, Result};
use crate::ffi::out;
use crate::log::call;
use crate::result::CUresult;
use crate::state::{self, Context, Handle};
use std::collections::HashMap;
use std::ffi::c_void;

/// `CUctxCreateParams`.
#[repr(C)]
pub struct CtxCreateParams {
    pub exec_affinity_params: *mut c_void,
    pub num_exec_affinity_params: i32,
    pub cig_params: *mut c_void,
}

fn create(flags: u32, dev: i32) -> Result<Handle> {
    let ctx = state::with(|d| {
        d.device(dev)?;
        let h = d.issue();
        d.contexts.insert(
            h,
            Context {
                device: dev as usize,
                retained: 1,
                flags,
                storage: HashMap::new(),
                sticky: None,
            },
        );
        Ok(h)
    })?;
    crate::context::push_current(ctx);
    Ok(ctx)
}

#[no_mangle]
pub unsafe extern "C" fn cuCtxCreate_v2(pctx: *mut Handle, flags: u32, dev: i32) -> CUresult {
    call(
        "cuCtxCreate",
        || format!("flags={flags:#x}, dev={dev}"),
        || {
            if pctx.is_null() {
                return Err(DriverError::InvalidValue("pctx is null".into()));
            }
            let ctx = create(flags, dev)?;
            unsafe { out(pctx, ctx, "pctx") }
        },
    )
}

#[no_mangle]
pub unsafe extern "C" fn cuCtxCreate_v4(
    pctx: *mut Handle,
    params: *const CtxCreateParams,
    flags: u32,
    dev: i32,
) -> CUresult {
    call(
        "cuCtxCreate_v4",
        || format!("params={params:p}, flags={flags:#x}, dev={dev}"),
        || {
            if let Some(p) = unsafe { params.as_ref() } {
                if !p.exec_affinity_params.is_null() || p.num_exec_affinity_params != 0 {
                    return Err(DriverError::NotSupported(
                        "contexts with execution affinity".into(),
                    ));
                }
                if !p.cig_params.is_null() {
                    return Err(DriverError::NotSupported(
                        "contexts in CUDA-in-graphics mode".into(),
                    ));
                }
            }
            if pctx.is_null() {
                return Err(DriverError::InvalidValue("pctx is null".into()));
            }
            let ctx = create(flags, dev)?;
            unsafe { out(pctx, ctx, "pctx") }
        },
    )
}

#[no_mangle]
pub unsafe extern "C" fn cuCtxDestroy_v2(ctx: Handle) -> CUresult {
    call(
        "cuCtxDestroy",
        || format!("ctx={ctx:#x}"),
        || {
            state::with(|d| {
                let dev = d.context(ctx)?.device;
                if d.devices[dev].primary == ctx {
                    return Err(DriverError::InvalidContext);
                }
                // Its queued work completes first, as CUDA's destroy waits for it.
                let _ = crate::sync::settle(d, dev);
                d.contexts.remove(&ctx);
                Ok(())
            })?;
            crate::context::forget(ctx);
            Ok(())
        },
    )
}

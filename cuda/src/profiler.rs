//! `cuProfilerInitialize`, `cuProfilerStart`, `cuProfilerStop`: profiler range markers (what
//! `cudaProfilerStart`/`Stop` call). There is no profiler to tell, so they succeed and do nothing, as they do
//! on NVIDIA's driver when no profiler is attached.

use crate::log::call;
use crate::result::CUresult;
use std::ffi::{c_char, c_int};

#[no_mangle]
pub unsafe extern "C" fn cuProfilerInitialize(
    _config: *const c_char,
    _output: *const c_char,
    mode: c_int,
) -> CUresult {
    call("cuProfilerInitialize", || format!("mode={mode}"), || Ok(()))
}

#[no_mangle]
pub unsafe extern "C" fn cuProfilerStart() -> CUresult {
    call("cuProfilerStart", String::new, || Ok(()))
}

#[no_mangle]
pub unsafe extern "C" fn cuProfilerStop() -> CUresult {
    call("cuProfilerStop", String::new, || Ok(()))
}

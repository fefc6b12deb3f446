//! `cuGetErrorName` and `cuGetErrorString`: static C strings for every result code.

use crate::result::{
    result_description, result_name, CUresult, CUDA_ERROR_INVALID_VALUE, CUDA_SUCCESS, RESULT_NAMES,
};
use std::ffi::{c_char, CString};
use std::sync::OnceLock;

/// (code, name, description) as C strings, made once and kept for the life of the process.
fn strings() -> &'static [(CUresult, CString, CString)] {
    static STRINGS: OnceLock<Vec<(CUresult, CString, CString)>> = OnceLock::new();
    STRINGS.get_or_init(|| {
        RESULT_NAMES
            .iter()
            .map(|&(code, name)| {
                let text = result_description(code).unwrap_or(name);
                (
                    code,
                    CString::new(name).unwrap_or_default(),
                    CString::new(text).unwrap_or_default(),
                )
            })
            .collect()
    })
}

fn lookup(
    code: CUresult,
    out: *mut *const c_char,
    pick: fn(&(CUresult, CString, CString)) -> *const c_char,
) -> CUresult {
    if out.is_null() {
        return CUDA_ERROR_INVALID_VALUE;
    }
    match strings().iter().find(|s| s.0 == code) {
        Some(s) => {
            // SAFETY: `out` is a valid pointer to a string pointer, as the API requires.
            unsafe { out.write(pick(s)) };
            CUDA_SUCCESS
        }
        None => {
            unsafe { out.write(std::ptr::null()) };
            CUDA_ERROR_INVALID_VALUE
        }
    }
}

#[no_mangle]
pub unsafe extern "C" fn cuGetErrorName(code: CUresult, name: *mut *const c_char) -> CUresult {
    let r = lookup(code, name, |s| s.1.as_ptr());
    if crate::log::calls_enabled() {
        crate::log::line(&format!(
            "cuGetErrorName(code={code} {}) = {}",
            result_name(code).unwrap_or("?"),
            result_name(r).unwrap_or("?")
        ));
    }
    r
}

#[no_mangle]
pub unsafe extern "C" fn cuGetErrorString(code: CUresult, text: *mut *const c_char) -> CUresult {
    let r = lookup(code, text, |s| s.2.as_ptr());
    if crate::log::calls_enabled() {
        crate::log::line(&format!(
            "cuGetErrorString(code={code} {}) = {}",
            result_name(code).unwrap_or("?"),
            result_name(r).unwrap_or("?")
        ));
    }
    r
}

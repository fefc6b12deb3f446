//! Small helpers for the C side of entry points: writing through out-pointers, reading C strings.

use crate::error::{DriverError, Result};
use std::ffi::{c_char, CStr};

/// Writes `value` through `ptr`; a null pointer is `CUDA_ERROR_INVALID_VALUE`.
///
/// # Safety
/// `ptr` is null or valid for a write of `T`, as the CUDA API requires of its callers.
pub unsafe fn out<T>(ptr: *mut T, value: T, what: &str) -> Result<()> {
    if ptr.is_null() {
        return Err(DriverError::InvalidValue(format!("{what} is null")));
    }
    unsafe { ptr.write(value) };
    Ok(())
}

/// The C string at `ptr`.
///
/// # Safety
/// `ptr` is null or points at a NUL-terminated string.
pub unsafe fn c_str<'a>(ptr: *const c_char, what: &str) -> Result<&'a str> {
    if ptr.is_null() {
        return Err(DriverError::InvalidValue(format!("{what} is null")));
    }
    unsafe { CStr::from_ptr(ptr) }
        .to_str()
        .map_err(|_| DriverError::InvalidValue(format!("{what} is not UTF-8")))
}

/// Copies `text` with a terminating NUL into the caller's `len`-byte buffer, truncating as CUDA does.
///
/// # Safety
/// `buf` is null or valid for `len` bytes.
pub unsafe fn write_c_string(buf: *mut c_char, len: i32, text: &str) -> Result<()> {
    if buf.is_null() || len <= 0 {
        return Err(DriverError::InvalidValue(
            "name buffer is null or empty".into(),
        ));
    }
    let n = text.len().min(len as usize - 1);
    unsafe {
        std::ptr::copy_nonoverlapping(text.as_ptr().cast::<c_char>(), buf, n);
        *buf.add(n) = 0;
    }
    Ok(())
}

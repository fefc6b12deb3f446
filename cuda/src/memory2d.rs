//! Pitched memory: `cuMemAllocPitch`, 2-D copies between host and device memory (`CUDA_MEMCPY2D`, arrays not
//! supported yet) and 2-D memsets, row by row over the linear copies of [`crate::memory`].

use crate::error::{DriverError, Result};
use crate::ffi::out;
use crate::log::call;
use crate::memory::{copy_dtod, copy_dtoh, copy_htod, fill};
use crate::result::CUresult;
use crate::state::{self, Driver};
use std::ffi::c_void;

/// Rows of pitched allocations start at multiples of this (what NVIDIA's driver uses for textures too).
const PITCH_ALIGNMENT: usize = 512;

/// `CUDA_MEMCPY2D` as `cuda.h` lays it out.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct Memcpy2d {
    src_x: usize,
    src_y: usize,
    src_type: u32,
    src_host: *const c_void,
    src_device: u64,
    src_array: usize,
    src_pitch: usize,
    dst_x: usize,
    dst_y: usize,
    dst_type: u32,
    dst_host: *mut c_void,
    dst_device: u64,
    dst_array: usize,
    dst_pitch: usize,
    width: usize,
    height: usize,
}

const HOST: u32 = 1;
const DEVICE: u32 = 2;
const ARRAY: u32 = 3;
const UNIFIED: u32 = 4;

/// One side of a copy: a host or a device address.
#[derive(Clone, Copy)]
enum Side {
    Host(u64),
    Device(u64),
}

fn side(d: &Driver, kind: u32, host: u64, device: u64, what: &str) -> Result<Side> {
    match kind {
        HOST => Ok(Side::Host(host)),
        DEVICE => Ok(Side::Device(device)),
        UNIFIED if d.device_of_address(device).is_some() => Ok(Side::Device(device)),
        UNIFIED => Ok(Side::Host(device)),
        ARRAY => Err(DriverError::InvalidValue(format!("array {what} without its array"))),
        other => Err(DriverError::InvalidValue(format!(
            "memory type {other} for the {what}"
        ))),
    }
}

/// A CUDA array side: its memory and row pitch (`crate::array`); other sides as given.
fn array_side(d: &Driver, kind: u32, array: usize, device: u64, pitch: usize) -> Result<(u32, u64, usize)> {
    if kind != ARRAY {
        return Ok((kind, device, pitch));
    }
    let a = crate::array::get(d, array)?;
    Ok((DEVICE, a.base, a.pitch as usize))
}

fn copy_2d(d: &mut Driver, c: &Memcpy2d) -> Result<()> {
    let (src_type, src_device, src_pitch) = array_side(d, c.src_type, c.src_array, c.src_device, c.src_pitch)?;
    let (dst_type, dst_device, dst_pitch) = array_side(d, c.dst_type, c.dst_array, c.dst_device, c.dst_pitch)?;
    let c = &Memcpy2d {
        src_type,
        src_device,
        src_pitch,
        dst_type,
        dst_device,
        dst_pitch,
        src_host: c.src_host,
        dst_host: c.dst_host,
        ..*c
    };
    let src = side(d, c.src_type, c.src_host as u64, c.src_device, "source")?;
    let dst = side(
        d,
        c.dst_type,
        c.dst_host as u64,
        c.dst_device,
        "destination",
    )?;
    if c.height > 1 && (c.width > c.src_pitch || c.width > c.dst_pitch) {
        return Err(DriverError::InvalidValue(format!(
            "width {} exceeds a pitch",
            c.width
        )));
    }
    for row in 0..c.height {
        let at =
            |base: u64, x: usize, y: usize, pitch: usize| base + ((y + row) * pitch + x) as u64;
        let s = match src {
            Side::Host(b) => Side::Host(at(b, c.src_x, c.src_y, c.src_pitch)),
            Side::Device(b) => Side::Device(at(b, c.src_x, c.src_y, c.src_pitch)),
        };
        let t = match dst {
            Side::Host(b) => Side::Host(at(b, c.dst_x, c.dst_y, c.dst_pitch)),
            Side::Device(b) => Side::Device(at(b, c.dst_x, c.dst_y, c.dst_pitch)),
        };
        match (s, t) {
            (Side::Host(s), Side::Device(t)) => copy_htod(d, t, s as *const c_void, c.width)?,
            (Side::Device(s), Side::Host(t)) => copy_dtoh(d, t as *mut c_void, s, c.width)?,
            (Side::Device(s), Side::Device(t)) => copy_dtod(d, t, s, c.width)?,
            // SAFETY: both rows are host memory of `width` bytes the caller owns.
            (Side::Host(s), Side::Host(t)) => unsafe {
                std::ptr::copy(s as *const u8, t as *mut u8, c.width)
            },
        }
    }
    Ok(())
}

unsafe fn copy_2d_call(name: &str, p: *const Memcpy2d, stream: usize) -> CUresult {
    call(
        name,
        || format!("copy={p:p}, stream={stream:#x}"),
        || {
            // SAFETY: the caller passes a valid CUDA_MEMCPY2D (or null, refused).
            let c = unsafe { p.as_ref() }
                .ok_or_else(|| DriverError::InvalidValue("pCopy is null".into()))?;
            state::with(|d| {
                crate::stream::check(d, stream)?;
                copy_2d(d, c)
            })
        },
    )
}

#[no_mangle]
pub unsafe extern "C" fn cuMemcpy2D_v2(p: *const Memcpy2d) -> CUresult {
    unsafe { copy_2d_call("cuMemcpy2D", p, 0) }
}

#[no_mangle]
pub unsafe extern "C" fn cuMemcpy2DUnaligned_v2(p: *const Memcpy2d) -> CUresult {
    unsafe { copy_2d_call("cuMemcpy2DUnaligned", p, 0) }
}

#[no_mangle]
pub unsafe extern "C" fn cuMemcpy2DAsync_v2(p: *const Memcpy2d, stream: usize) -> CUresult {
    unsafe { copy_2d_call("cuMemcpy2DAsync", p, stream) }
}

#[no_mangle]
pub unsafe extern "C" fn cuMemAllocPitch_v2(
    dptr: *mut u64,
    pitch: *mut usize,
    width: usize,
    height: usize,
    element_size: u32,
) -> CUresult {
    call(
        "cuMemAllocPitch",
        || format!("width={width}, height={height}, element={element_size}"),
        || {
            if ![4, 8, 16].contains(&element_size) {
                return Err(DriverError::InvalidValue(format!(
                    "element size {element_size} (4, 8 or 16)"
                )));
            }
            let row = width.next_multiple_of(PITCH_ALIGNMENT);
            let bytes = row
                .checked_mul(height)
                .ok_or_else(|| DriverError::InvalidValue("size overflows".into()))?;
            let address = state::with(|d| Ok(d.current_gpu()?.rt.alloc(bytes as u64)?))?;
            unsafe {
                out(dptr, address, "dptr")?;
                out(pitch, row, "pitch")
            }
        },
    )
}

fn fill_2d(
    d: &mut Driver,
    dst: u64,
    pitch: usize,
    pattern: &[u8],
    width: usize,
    height: usize,
) -> Result<()> {
    for row in 0..height {
        fill(d, dst + (row * pitch) as u64, pattern, width)?;
    }
    Ok(())
}

#[no_mangle]
pub unsafe extern "C" fn cuMemsetD2D8_v2(
    dst: u64,
    pitch: usize,
    value: u8,
    width: usize,
    height: usize,
) -> CUresult {
    call(
        "cuMemsetD2D8",
        || format!("dst={dst:#x}, pitch={pitch}, value={value:#x}, {width}x{height}"),
        || state::with(|d| fill_2d(d, dst, pitch, &[value], width, height)),
    )
}

#[no_mangle]
pub unsafe extern "C" fn cuMemsetD2D8Async(
    dst: u64,
    pitch: usize,
    value: u8,
    width: usize,
    height: usize,
    stream: usize,
) -> CUresult {
    call(
        "cuMemsetD2D8Async",
        || format!("dst={dst:#x}, pitch={pitch}, value={value:#x}, {width}x{height}"),
        || {
            state::with(|d| {
                crate::stream::check(d, stream)?;
                fill_2d(d, dst, pitch, &[value], width, height)
            })
        },
    )
}

#[no_mangle]
pub unsafe extern "C" fn cuMemsetD2D32_v2(
    dst: u64,
    pitch: usize,
    value: u32,
    width: usize,
    height: usize,
) -> CUresult {
    call(
        "cuMemsetD2D32",
        || format!("dst={dst:#x}, pitch={pitch}, value={value:#x}, {width}x{height}"),
        || state::with(|d| fill_2d(d, dst, pitch, &value.to_le_bytes(), width, height)),
    )
}

//! CUDA arrays: `cuArrayCreate`/`cuArray3DCreate`, their descriptors and destruction, and the array sides of
//! `cuMemcpy2D`/`cuMemcpy3D`. An array is pitch-linear memory in the window (rows 32-byte aligned, what a
//! texture header's pitch field can hold; slices and layers `pitch × height` apart), which the translated
//! TEX and SU families address through the header `crate::texobj` writes.

use crate::error::{DriverError, Result};
use crate::ffi::out;
use crate::log::call;
use crate::result::CUresult;
use crate::state::{self, Driver, Handle};
use std::ffi::c_void;

/// `CUDA_ARRAY3D_LAYERED`.
pub const LAYERED: u32 = 1;
/// `CUDA_ARRAY3D_CUBEMAP`.
const CUBEMAP: u32 = 4;
/// Row alignment: the texture header's pitch field counts 32-byte units.
const PITCH_ALIGNMENT: u64 = 32;

/// One array.
#[derive(Clone, Copy, Debug)]
pub struct Array {
    pub device: usize,
    pub base: u64,
    pub width: u64,
    pub height: u64,
    pub depth: u64,
    /// `CUarray_format` and channels per element.
    pub format: u32,
    pub channels: u32,
    pub flags: u32,
    pub pitch: u64,
}

/// `CUDA_ARRAY_DESCRIPTOR`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct Descriptor {
    width: usize,
    height: usize,
    format: u32,
    channels: u32,
}

/// `CUDA_ARRAY3D_DESCRIPTOR`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct Descriptor3d {
    width: usize,
    height: usize,
    depth: usize,
    format: u32,
    channels: u32,
    flags: u32,
}

/// Bytes of one component of `CUarray_format` `format`.
pub fn component_bytes(format: u32) -> Result<u64> {
    match format {
        0x01 | 0x08 => Ok(1),
        0x02 | 0x09 | 0x10 => Ok(2),
        0x03 | 0x0a | 0x20 => Ok(4),
        f => Err(DriverError::NotSupported(format!(
            "CUDA arrays of CUarray_format {f:#x}"
        ))),
    }
}

impl Array {
    /// Bytes per element.
    pub fn element_bytes(&self) -> u64 {
        component_bytes(self.format).unwrap_or(1) * self.channels as u64
    }
    /// Rows of one slice (1-D arrays have one).
    pub fn rows(&self) -> u64 {
        self.height.max(1)
    }
}

fn create(d: &mut Driver, desc: Descriptor3d) -> Result<Handle> {
    if !matches!(desc.channels, 1 | 2 | 4) {
        return Err(DriverError::InvalidValue(format!("{} channels", desc.channels)));
    }
    // Layered, surface load/store, texture gather and colour attachment need nothing more of a pitch array.
    if desc.flags & CUBEMAP != 0 || desc.flags & !(LAYERED | 2 | 8 | 0x20) != 0 {
        return Err(DriverError::NotSupported(format!(
            "CUDA array flags {:#x} (cube maps, depth textures and sparse arrays are not supported)",
            desc.flags
        )));
    }
    let bytes = component_bytes(desc.format)? * desc.channels as u64;
    let width = desc.width as u64;
    if width == 0 {
        return Err(DriverError::InvalidValue("width 0".into()));
    }
    let pitch = (width * bytes).div_ceil(PITCH_ALIGNMENT) * PITCH_ALIGNMENT;
    let size = pitch * (desc.height.max(1) as u64) * (desc.depth.max(1) as u64);
    let device = d.current_device()?;
    let base = d.current_gpu()?.rt.alloc(size)?;
    d.current_gpu()?.rt.upload(base, &vec![0u8; size as usize])?;
    let h = d.issue();
    d.arrays.insert(
        h,
        Array {
            device,
            base,
            width,
            height: desc.height as u64,
            depth: desc.depth as u64,
            format: desc.format,
            channels: desc.channels,
            flags: desc.flags,
            pitch,
        },
    );
    Ok(h)
}

/// The array behind `h`.
pub fn get(d: &Driver, h: usize) -> Result<Array> {
    d.arrays.get(&h).copied().ok_or(DriverError::InvalidHandle {
        what: "array",
        handle: h,
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuArrayCreate_v2(p: *mut Handle, desc: *const Descriptor) -> CUresult {
    call(
        "cuArrayCreate",
        || format!("desc={desc:p}"),
        || {
            // SAFETY: the caller passes a valid descriptor (or null, refused).
            let a = unsafe { desc.as_ref() }
                .ok_or_else(|| DriverError::InvalidValue("pAllocateArray is null".into()))?;
            let d3 = Descriptor3d {
                width: a.width,
                height: a.height,
                depth: 0,
                format: a.format,
                channels: a.channels,
                flags: 0,
            };
            let h = state::with(|d| create(d, d3))?;
            unsafe { out(p, h, "pHandle") }
        },
    )
}

#[no_mangle]
pub unsafe extern "C" fn cuArray3DCreate_v2(p: *mut Handle, desc: *const Descriptor3d) -> CUresult {
    call(
        "cuArray3DCreate",
        || format!("desc={desc:p}"),
        || {
            // SAFETY: as above.
            let a = *unsafe { desc.as_ref() }
                .ok_or_else(|| DriverError::InvalidValue("pAllocateArray is null".into()))?;
            let h = state::with(|d| create(d, a))?;
            unsafe { out(p, h, "pHandle") }
        },
    )
}

#[no_mangle]
pub extern "C" fn cuArrayDestroy(h: Handle) -> CUresult {
    call(
        "cuArrayDestroy",
        || format!("hArray={h:#x}"),
        || {
            state::with(|d| {
                let a = get(d, h)?;
                d.arrays.remove(&h);
                Ok(d.current_gpu()?.rt.free(a.base)?)
            })
        },
    )
}

#[no_mangle]
pub unsafe extern "C" fn cuArrayGetDescriptor_v2(p: *mut Descriptor, h: Handle) -> CUresult {
    call(
        "cuArrayGetDescriptor",
        || format!("hArray={h:#x}"),
        || {
            let a = state::with(|d| get(d, h))?;
            let desc = Descriptor {
                width: a.width as usize,
                height: a.height as usize,
                format: a.format,
                channels: a.channels,
            };
            unsafe { out(p, desc, "pArrayDescriptor") }
        },
    )
}

#[no_mangle]
pub unsafe extern "C" fn cuArray3DGetDescriptor_v2(p: *mut Descriptor3d, h: Handle) -> CUresult {
    call(
        "cuArray3DGetDescriptor",
        || format!("hArray={h:#x}"),
        || {
            let a = state::with(|d| get(d, h))?;
            let desc = Descriptor3d {
                width: a.width as usize,
                height: a.height as usize,
                depth: a.depth as usize,
                format: a.format,
                channels: a.channels,
                flags: a.flags,
            };
            unsafe { out(p, desc, "pArrayDescriptor") }
        },
    )
}

/// `CUDA_MEMCPY3D` as `cuda.h` lays it out (also the parameters of a graph memcpy node: `graph_api`).
#[repr(C)]
pub struct Memcpy3d {
    pub(crate) src_x: usize,
    pub(crate) src_y: usize,
    pub(crate) src_z: usize,
    pub(crate) src_lod: usize,
    pub(crate) src_type: u32,
    pub(crate) src_host: *const c_void,
    pub(crate) src_device: u64,
    pub(crate) src_array: usize,
    pub(crate) reserved0: *mut c_void,
    pub(crate) src_pitch: usize,
    pub(crate) src_height: usize,
    pub(crate) dst_x: usize,
    pub(crate) dst_y: usize,
    pub(crate) dst_z: usize,
    pub(crate) dst_lod: usize,
    pub(crate) dst_type: u32,
    pub(crate) dst_host: *mut c_void,
    pub(crate) dst_device: u64,
    pub(crate) dst_array: usize,
    pub(crate) reserved1: *mut c_void,
    pub(crate) dst_pitch: usize,
    pub(crate) dst_height: usize,
    pub(crate) width: usize,
    pub(crate) height: usize,
    pub(crate) depth: usize,
}

/// One side of a 3-D copy: (is device memory, base address, pitch, rows per slice).
fn side3(
    d: &Driver,
    kind: u32,
    host: u64,
    device: u64,
    array: usize,
    pitch: usize,
    height: usize,
) -> Result<(bool, u64, u64, u64)> {
    match kind {
        1 => Ok((false, host, pitch as u64, height as u64)),
        2 => Ok((true, device, pitch as u64, height as u64)),
        4 => Ok((
            d.device_of_address(device).is_some(),
            device,
            pitch as u64,
            height as u64,
        )),
        3 => {
            let a = get(d, array)?;
            Ok((true, a.base, a.pitch, a.rows()))
        }
        k => Err(DriverError::InvalidValue(format!("memory type {k}"))),
    }
}

fn copy_3d(d: &mut Driver, c: &Memcpy3d) -> Result<()> {
    if c.src_lod != 0 || c.dst_lod != 0 {
        return Err(DriverError::NotSupported(
            "copies of mipmap levels other than 0".into(),
        ));
    }
    let s = side3(
        d,
        c.src_type,
        c.src_host as u64,
        c.src_device,
        c.src_array,
        c.src_pitch,
        c.src_height,
    )?;
    let t = side3(
        d,
        c.dst_type,
        c.dst_host as u64,
        c.dst_device,
        c.dst_array,
        c.dst_pitch,
        c.dst_height,
    )?;
    for z in 0..c.depth.max(1) as u64 {
        for y in 0..c.height.max(1) as u64 {
            let at = |b: (bool, u64, u64, u64), x: usize, yy: usize, zz: usize| {
                b.1 + ((zz as u64 + z) * b.3 + yy as u64 + y) * b.2 + x as u64
            };
            let (sa, ta) = (at(s, c.src_x, c.src_y, c.src_z), at(t, c.dst_x, c.dst_y, c.dst_z));
            match (s.0, t.0) {
                (false, true) => crate::memory::copy_htod(d, ta, sa as *const c_void, c.width)?,
                (true, false) => crate::memory::copy_dtoh(d, ta as *mut c_void, sa, c.width)?,
                (true, true) => crate::memory::copy_dtod(d, ta, sa, c.width)?,
                // SAFETY: both rows are host memory of `width` bytes the caller owns.
                (false, false) => unsafe { std::ptr::copy(sa as *const u8, ta as *mut u8, c.width) },
            }
        }
    }
    Ok(())
}

unsafe fn copy_3d_call(name: &str, p: *const Memcpy3d, stream: usize) -> CUresult {
    call(
        name,
        || format!("copy={p:p}, stream={stream:#x}"),
        || {
            // SAFETY: the caller passes a valid CUDA_MEMCPY3D (or null, refused).
            let c = unsafe { p.as_ref() }.ok_or_else(|| DriverError::InvalidValue("pCopy is null".into()))?;
            state::with(|d| {
                crate::stream::check(d, stream)?;
                copy_3d(d, c)
            })
        },
    )
}

#[no_mangle]
pub unsafe extern "C" fn cuMemcpy3D_v2(p: *const Memcpy3d) -> CUresult {
    unsafe { copy_3d_call("cuMemcpy3D", p, 0) }
}

#[no_mangle]
pub unsafe extern "C" fn cuMemcpy3DAsync_v2(p: *const Memcpy3d, stream: usize) -> CUresult {
    unsafe { copy_3d_call("cuMemcpy3DAsync", p, stream) }
}

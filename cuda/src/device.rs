//! Initialisation, the driver version and devices: count, handles, names, memory, attributes, UUIDs.

use crate::attributes::attribute;
use crate::error::DriverError;
use crate::ffi::{out, write_c_string};
use crate::log::call;
use crate::result::CUresult;
use crate::state;
use std::ffi::c_char;

/// The CUDA version this driver reports (13.5, the runtime it was written against).
pub const DRIVER_VERSION: i32 = 13050;

#[no_mangle]
pub unsafe extern "C" fn cuInit(flags: u32) -> CUresult {
    call(
        "cuInit",
        || format!("flags={flags}"),
        || {
            if flags != 0 {
                return Err(DriverError::InvalidValue("cuInit flags must be 0".into()));
            }
            state::init()
        },
    )
}

#[no_mangle]
pub unsafe extern "C" fn cuDriverGetVersion(version: *mut i32) -> CUresult {
    call("cuDriverGetVersion", String::new, || unsafe {
        out(version, DRIVER_VERSION, "version")
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuDeviceGetCount(count: *mut i32) -> CUresult {
    call("cuDeviceGetCount", String::new, || {
        let n = state::with(|d| Ok(d.devices.len() as i32))?;
        unsafe { out(count, n, "count") }
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuDeviceGet(device: *mut i32, ordinal: i32) -> CUresult {
    call(
        "cuDeviceGet",
        || format!("ordinal={ordinal}"),
        || {
            state::with(|d| d.device(ordinal).map(|_| ()))?;
            unsafe { out(device, ordinal, "device") }
        },
    )
}

/// The device's name: "sassport on <Vulkan device name>".
pub fn device_name(dev: i32) -> crate::error::Result<String> {
    state::with(|d| Ok(format!("sassport on {}", d.device(dev)?.info.name)))
}

#[no_mangle]
pub unsafe extern "C" fn cuDeviceGetName(name: *mut c_char, len: i32, dev: i32) -> CUresult {
    call(
        "cuDeviceGetName",
        || format!("len={len}, dev={dev}"),
        || {
            let text = device_name(dev)?;
            unsafe { write_c_string(name, len, &text) }
        },
    )
}

/// Global memory: the device's window.
fn total_memory(dev: i32) -> crate::error::Result<usize> {
    state::with(|d| Ok(state::window_bytes(&d.device(dev)?.info)? as usize))
}

#[no_mangle]
pub unsafe extern "C" fn cuDeviceTotalMem_v2(bytes: *mut usize, dev: i32) -> CUresult {
    call(
        "cuDeviceTotalMem",
        || format!("dev={dev}"),
        || {
            let total = total_memory(dev)?;
            unsafe { out(bytes, total, "bytes") }
        },
    )
}

#[no_mangle]
pub unsafe extern "C" fn cuDeviceGetAttribute(value: *mut i32, attr: i32, dev: i32) -> CUresult {
    call(
        "cuDeviceGetAttribute",
        || format!("attr={attr}, dev={dev}"),
        || {
            let v = state::with(|d| {
                let device = d.device(dev)?;
                attribute(&device.info, dev as usize, attr)
                    .ok_or_else(|| DriverError::InvalidValue(format!("no device attribute {attr}")))
            })?;
            unsafe { out(value, v, "value") }
        },
    )
}

#[no_mangle]
pub unsafe extern "C" fn cuDeviceComputeCapability(
    major: *mut i32,
    minor: *mut i32,
    dev: i32,
) -> CUresult {
    call(
        "cuDeviceComputeCapability",
        || format!("dev={dev}"),
        || {
            state::with(|d| d.device(dev).map(|_| ()))?;
            unsafe {
                out(major, 8, "major")?;
                out(minor, 6, "minor")
            }
        },
    )
}

/// A stable UUID per Vulkan device: a hash of its identity and its ordinal here.
pub fn device_uuid(dev: i32) -> crate::error::Result<[u8; 16]> {
    state::with(|d| {
        let info = &d.device(dev)?.info;
        let key = format!(
            "sassport {} {:04x}:{:04x} {} {}",
            info.name, info.vendor_id, info.device_id, info.index, dev
        );
        Ok(sassport_runtime::fnv1a_128(key.as_bytes()).to_le_bytes())
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuDeviceGetUuid(uuid: *mut [u8; 16], dev: i32) -> CUresult {
    call(
        "cuDeviceGetUuid",
        || format!("dev={dev}"),
        || {
            let u = device_uuid(dev)?;
            unsafe { out(uuid, u, "uuid") }
        },
    )
}

#[no_mangle]
pub unsafe extern "C" fn cuDeviceGetUuid_v2(uuid: *mut [u8; 16], dev: i32) -> CUresult {
    call(
        "cuDeviceGetUuid_v2",
        || format!("dev={dev}"),
        || {
            let u = device_uuid(dev)?;
            unsafe { out(uuid, u, "uuid") }
        },
    )
}

/// One device per bus: "0000:<ordinal>:00.0", matching the PCI attributes.
#[no_mangle]
pub unsafe extern "C" fn cuDeviceGetPCIBusId(bus_id: *mut c_char, len: i32, dev: i32) -> CUresult {
    call(
        "cuDeviceGetPCIBusId",
        || format!("dev={dev}"),
        || {
            state::with(|d| d.device(dev).map(|_| ()))?;
            unsafe { write_c_string(bus_id, len, &format!("0000:{dev:02x}:00.0")) }
        },
    )
}

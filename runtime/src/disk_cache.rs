//! The `VkPipelineCache` persisted on disk, one file per device, driver and version string.

use std::path::{Path, PathBuf};

use crate::device::DeviceInfo;
use crate::error::{Result, RuntimeError};

/// Where the on-disk pipeline cache lives.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum PipelineCacheLocation {
    /// `$XDG_CACHE_HOME/sassport`, else `$HOME/.cache/sassport`; no disk cache if neither is set.
    #[default]
    UserCache,
    /// This directory (created if missing).
    Dir(PathBuf),
    /// Keep the pipeline cache in memory only.
    Disabled,
}

impl PipelineCacheLocation {
    /// The directory this location names, if any.
    pub fn dir(&self) -> Option<PathBuf> {
        match self {
            PipelineCacheLocation::Dir(d) => Some(d.clone()),
            PipelineCacheLocation::Disabled => None,
            PipelineCacheLocation::UserCache => std::env::var_os("XDG_CACHE_HOME")
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
                .or_else(|| {
                    std::env::var_os("HOME")
                        .filter(|v| !v.is_empty())
                        .map(|h| PathBuf::from(h).join(".cache"))
                })
                .map(|d| d.join("sassport")),
        }
    }
}

/// The cache file for a device and version: `<dir>/pipelines-<vendor>-<device>-<driver>-<uuid>-<version>.bin`.
/// The version is sanitised to `[A-Za-z0-9._-]`.
pub fn cache_file(dir: &Path, device: &DeviceInfo, version: &str) -> PathBuf {
    let version: String = version
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "._-".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect();
    dir.join(format!("pipelines-{}-{version}.bin", device.cache_key()))
}

/// Reads a cache file, keeping it only if its header names this device (vendor, device, pipeline-cache UUID):
/// a file from another driver is ignored rather than handed to the driver.
pub fn load(path: &Path, device: &DeviceInfo) -> Vec<u8> {
    match std::fs::read(path) {
        Ok(data) if header_matches(&data, device) => data,
        _ => Vec::new(),
    }
}

/// `VkPipelineCacheHeaderVersionOne`: length, version 1, vendor id, device id, 16-byte UUID.
pub fn header_matches(data: &[u8], device: &DeviceInfo) -> bool {
    let word = |i: usize| {
        data.get(4 * i..4 * i + 4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    };
    let (Some(len), Some(version), Some(vendor), Some(dev)) = (word(0), word(1), word(2), word(3))
    else {
        return false;
    };
    len as usize >= 32
        && len as usize <= data.len()
        && version == 1
        && vendor == device.vendor_id
        && dev == device.device_id
        && data.get(16..32) == Some(&device.pipeline_cache_uuid[..])
}

/// Writes the cache atomically (temporary file, then rename), creating the directory.
pub fn store(path: &Path, data: &[u8]) -> Result<()> {
    let io = |source| RuntimeError::CacheIo {
        path: path.to_owned(),
        source,
    };
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(io)?;
    }
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    std::fs::write(&tmp, data).map_err(io)?;
    std::fs::rename(&tmp, path).map_err(io)
}

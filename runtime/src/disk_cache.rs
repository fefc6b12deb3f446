//! The on-disk caches' common ground — where they live, atomic writes, the warnings of damaged entries and
//! unwritable directories — and the `VkPipelineCache` persisted on disk, one file per device, driver and
//! version string.
//!
//! A cache is an optimisation, never a source of truth: an entry that fails verification is reported once
//! and rebuilt, and a directory that cannot be written costs one warning and the caching, never the launch.

use std::path::{Path, PathBuf};

use crate::cache_entry::{self, CacheEntryError};
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

/// The cache file for a device and version:
/// `<dir>/pipelines-v2-<vendor>-<device>-<driver>-<uuid>-<version>.bin`. The version is sanitised to
/// `[A-Za-z0-9._-]`. (`v2`: the sealed format; files of the raw format before it are never read.)
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
    dir.join(format!("pipelines-v2-{}-{version}.bin", device.cache_key()))
}

/// The kind line of a pipeline-cache entry.
const PIPELINE_MAGIC: &[u8] = cache_entry::PIPELINE_CACHE_MAGIC;

/// What a pipeline-cache entry is stored under: the device and driver (as the file name says, plus the
/// driver's name and info string) and the version string, in full rather than sanitised.
pub fn pipeline_cache_key(device: &DeviceInfo, version: &str) -> String {
    format!(
        "device={}\ndriver={}\ndriver_info={}\nversion={}\n",
        device.cache_key(),
        device.driver_name.escape_debug(),
        device.driver_info.escape_debug(),
        version.escape_debug()
    )
}

/// The file contents for the `VkPipelineCache` data `data` of this device and version.
pub fn seal_pipeline_cache(data: &[u8], device: &DeviceInfo, version: &str) -> Vec<u8> {
    cache_entry::seal(
        PIPELINE_MAGIC,
        pipeline_cache_key(device, version).as_bytes(),
        data,
    )
}

/// The `VkPipelineCache` data in a pipeline-cache file, if the entry is whole and undamaged (hash), was
/// stored for this device, driver and version (key), and the data's own header names this device (vendor,
/// device id, pipeline-cache UUID). Only then is it handed to the driver.
pub fn open_pipeline_cache<'a>(
    file: &'a [u8],
    key: &str,
    device: &DeviceInfo,
) -> Result<&'a [u8], CacheEntryError> {
    let data = cache_entry::open(file, PIPELINE_MAGIC, key.as_bytes())?;
    if !header_matches(data, device) {
        return Err(CacheEntryError::Payload(
            "the VkPipelineCache header does not name this device".into(),
        ));
    }
    Ok(data)
}

/// Reads a pipeline-cache file: the verified data, or nothing when the file is absent. A file that fails
/// verification is reported once ([`cache_warnings`]) and ignored; the next save overwrites it.
pub fn load(path: &Path, device: &DeviceInfo, version: &str) -> Vec<u8> {
    let Some(file) = read_entry(path) else {
        return Vec::new();
    };
    match open_pipeline_cache(&file, &pipeline_cache_key(device, version), device) {
        Ok(data) => data.to_vec(),
        Err(e) => {
            rejected(path, &file, &e);
            Vec::new()
        }
    }
}

/// `VkPipelineCacheHeaderVersionOne`: length, version 1, vendor id, device id, 16-byte UUID.
pub fn header_matches(data: &[u8], device: &DeviceInfo) -> bool {
    header_names(data, device.vendor_id, device.device_id, &device.pipeline_cache_uuid)
}

/// Whether `data` starts with a `VkPipelineCacheHeaderVersionOne` for this vendor, device and UUID whose
/// length field fits the data.
pub fn header_names(data: &[u8], vendor_id: u32, device_id: u32, uuid: &[u8; 16]) -> bool {
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
        && vendor == vendor_id
        && dev == device_id
        && data.get(16..32) == Some(&uuid[..])
}

/// Reads a cache file; `None` when it does not exist. Another read error (a directory in its place, no
/// permission) is reported once and treated as absent.
pub(crate) fn read_entry(path: &Path) -> Option<Vec<u8>> {
    match std::fs::read(path) {
        Ok(data) => Some(data),
        Err(e) if matches!(
            e.kind(),
            std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory
        ) => None,
        Err(e) => {
            warn_once(
                format!("read:{}", path.display()),
                format!("cache entry {} cannot be read ({e}); rebuilding it", path.display()),
            );
            None
        }
    }
}

/// Reports an entry that failed verification (the caller rebuilds it): once per file and contents in a
/// process, so a damaged entry that cannot be rewritten (a read-only directory) is not reported at every load.
pub(crate) fn rejected(path: &Path, contents: &[u8], why: &CacheEntryError) {
    warn_once(
        format!(
            "rejected:{}:{}",
            path.display(),
            cache_entry::hex(&cache_entry::sha256(contents))
        ),
        format!("cache entry {} is not used ({why}); rebuilding it", path.display()),
    );
}

/// Writes `data` to `path` atomically: a fresh temporary file in the same directory (created exclusively,
/// so concurrent writers never share one), written and synced, then renamed over `path`. A reader sees the
/// old file or the new one, never a mix; on failure the temporary file is removed and `path` is untouched.
/// The directory must exist.
pub fn write_atomically(path: &Path, data: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    // A readable prefix of the name only, so the temporary name fits wherever the name itself does.
    let name: String = path
        .file_name()
        .map(|n| n.to_string_lossy().chars().take(64).collect())
        .unwrap_or_default();
    let (file, tmp) = loop {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let tmp = dir.join(format!(
            ".{name}.tmp-{}-{}-{nanos:08x}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)
        {
            Ok(f) => break (f, tmp),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    };
    let written = (|| {
        let mut file = file;
        file.write_all(data)?;
        file.sync_all()?;
        drop(file);
        std::fs::rename(&tmp, path)
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
        return written;
    }
    // The rename itself is durable once the directory is synced; not all file systems allow opening one.
    if let Ok(d) = std::fs::File::open(dir) {
        let _ = d.sync_all();
    }
    Ok(())
}

/// Writes a cache file atomically ([`write_atomically`]), creating its directory.
pub fn store(path: &Path, data: &[u8]) -> Result<()> {
    write_cache_file(path, data).map_err(|source| RuntimeError::CacheIo {
        path: path.to_owned(),
        source,
    })
}

/// [`write_atomically`] after creating the directory.
pub(crate) fn write_cache_file(path: &Path, data: &[u8]) -> std::io::Result<()> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
    }
    write_atomically(path, data)
}

/// Writes a cache file, or reports once per directory and process that the cache there cannot be written
/// (read-only, full disk, not a directory) and carries on without it. Whether it was written.
pub(crate) fn store_or_warn(path: &Path, data: &[u8]) -> bool {
    match write_cache_file(path, data) {
        Ok(()) => true,
        Err(e) => {
            warn_unwritable(path, &e);
            false
        }
    }
}

/// The once-per-directory warning of a cache that cannot be written.
pub(crate) fn warn_unwritable(path: &Path, e: &std::io::Error) {
    let dir = path.parent().unwrap_or(path);
    warn_once(
        format!("unwritable:{}", dir.display()),
        format!(
            "cache directory {} cannot be written ({e}); going on without caching there",
            dir.display()
        ),
    );
}

/// Every cache warning this process has issued, oldest first (each also went to stderr as `warning: ...`,
/// the form the CLI uses for its own warnings).
pub fn cache_warnings() -> Vec<String> {
    warnings().lock().map(|w| w.1.clone()).unwrap_or_default()
}

type Warnings = (std::collections::HashSet<String>, Vec<String>);

fn warnings() -> &'static std::sync::Mutex<Warnings> {
    static WARNINGS: std::sync::OnceLock<std::sync::Mutex<Warnings>> = std::sync::OnceLock::new();
    WARNINGS.get_or_init(Default::default)
}

/// Prints `message` to stderr and records it, unless a warning with this `topic` was issued before.
pub(crate) fn warn_once(topic: String, message: String) {
    let Ok(mut w) = warnings().lock() else {
        return;
    };
    if w.0.insert(topic) {
        eprintln!("warning: {message}");
        w.1.push(message);
    }
}

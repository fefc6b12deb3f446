//! A window larger than one storage buffer: guest memory in chunk buffers of `2^k` bytes reached through
//! their device addresses (`abi::WindowChunks`, docs/abi.md), each allocated when an allocation first
//! reaches it. Binding 33 (`Runtime::window`) then holds the table of chunk addresses and the runtime's
//! records after it, so the record code (fault block, printf area, abort word) works as after a one-buffer
//! window: the records are the buffer's last `reserve` bytes in both forms.

use ash::vk;
use sassport_translator::abi::{self, WindowChunks};

use super::{Backing, Runtime, RuntimeOptions, DEFAULT_MAX_WINDOW_BYTES};
use crate::device::{DeviceInfo, DeviceKind};
use crate::error::{Result, RuntimeError};
use crate::gpu::{Buffer, Gpu};

/// Share of a discrete GPU's device-local memory the default window covers (the rest: the driver's own
/// allocations, pipelines, staging, other processes).
const DEFAULT_DEVICE_SHARE_PERCENT: u64 = 90;

/// Environment variable that sets the window size when `RuntimeOptions::window_bytes` is `None`.
pub const WINDOW_BYTES_ENV: &str = "SASSPORT_WINDOW_BYTES";

/// Guest memory in chunks, backed up to `backed.len()` chunks.
pub(crate) struct ChunkedWindow {
    pub(crate) form: WindowChunks,
    pub(crate) backed: Vec<Buffer>,
    /// Chunks are host-visible and mapped (`Backing::Mapped`).
    pub(crate) mapped: bool,
}

/// One piece of a guest byte range inside one chunk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Piece {
    pub(crate) chunk: usize,
    /// Byte offset in the chunk.
    pub(crate) at: u64,
    pub(crate) len: u64,
    /// Byte offset in the range.
    pub(crate) pos: u64,
}

/// Splits guest bytes `[offset, offset + len)` at chunk boundaries of `2^log2` bytes.
pub(crate) fn pieces(log2: u32, offset: u64, len: u64) -> Vec<Piece> {
    let size = 1u64 << log2;
    let mut out = Vec::new();
    let mut pos = 0;
    while pos < len {
        let o = offset + pos;
        let at = o & (size - 1);
        let n = (size - at).min(len - pos);
        out.push(Piece {
            chunk: (o >> log2) as usize,
            at,
            len: n,
            pos,
        });
        pos += n;
    }
    out
}

/// How the window is laid out: one buffer of `bytes` guest bytes, or chunks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct WindowPlan {
    pub(crate) bytes: u64,
    pub(crate) chunks: Option<WindowChunks>,
}

/// Parses a byte count: digits with an optional `K`, `M`, `G`, `T` (binary) suffix, `KiB`.. accepted too.
pub(crate) fn parse_bytes(text: &str) -> Option<u64> {
    let t = text.trim();
    let digits = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let n: u64 = t[..digits].parse().ok()?;
    let shift = match t[digits..].trim().trim_end_matches("iB").trim_end_matches('B') {
        "" => 0,
        "K" | "k" => 10,
        "M" | "m" => 20,
        "G" | "g" => 30,
        "T" | "t" => 40,
        _ => return None,
    };
    n.checked_mul(1u64 << shift)
}

/// The window size a runtime on `info` gets when `RuntimeOptions::window_bytes` is `None`:
/// [`WINDOW_BYTES_ENV`] if set, else on a discrete GPU 90% of its device-local memory, else the one-buffer
/// default (the device's storage-buffer range less `reserve`, at most `DEFAULT_MAX_WINDOW_BYTES`). What the
/// CUDA driver library reports as the device's memory before it opens the device.
pub fn default_window_bytes(info: &DeviceInfo, reserve: u64) -> Result<u64> {
    // Set and not empty (an empty value is the same as none, as shells pass `VAR= cmd`).
    if let Some(v) = std::env::var(WINDOW_BYTES_ENV).ok().filter(|v| !v.trim().is_empty()) {
        return parse_bytes(&v).filter(|&b| b > 0).ok_or(RuntimeError::WindowOption {
            variable: WINDOW_BYTES_ENV,
            value: v,
        });
    }
    let one_buffer = one_buffer_max(info, reserve).min(DEFAULT_MAX_WINDOW_BYTES);
    Ok(match info.kind {
        DeviceKind::Discrete => (info.limits.device_local_bytes / 100 * DEFAULT_DEVICE_SHARE_PERCENT).max(one_buffer),
        _ => one_buffer,
    })
}

/// The largest window one storage buffer holds beside `reserve` bytes of records.
fn one_buffer_max(info: &DeviceInfo, reserve: u64) -> u64 {
    let limits = &info.limits;
    u64::from(limits.max_storage_buffer_range)
        .min(limits.max_memory_allocation_size.max(1 << 20))
        .saturating_sub(reserve)
}

/// Chooses the window for `gpu`: what `options.window_bytes` asks, else [`default_window_bytes`]; one
/// buffer when it fits in one, else chunks.
pub(crate) fn plan(gpu: &Gpu, options: &RuntimeOptions, reserve: u64) -> Result<WindowPlan> {
    let info = &gpu.info;
    let limits = &info.limits;
    let one_buffer_max = one_buffer_max(info, reserve);
    let wanted = match options.window_bytes {
        Some(0) => {
            return Err(RuntimeError::WindowTooLarge {
                requested: 0,
                max: one_buffer_max,
                reserved: reserve,
            })
        }
        Some(w) => w,
        None => default_window_bytes(info, reserve)?,
    };
    let wanted = wanted - wanted % abi::ALLOCATION_ALIGNMENT;
    // A CPU device's memory is the host's (lavapipe reports a 2 GiB heap but allocates from the host).
    let device_bytes = match info.kind {
        DeviceKind::Cpu => limits.device_local_bytes.max(host_memory_bytes()),
        _ => limits.device_local_bytes,
    };
    if wanted > device_bytes.max(one_buffer_max) {
        return Err(RuntimeError::WindowTooLarge {
            requested: wanted,
            max: device_bytes,
            reserved: reserve,
        });
    }
    if wanted <= one_buffer_max {
        return Ok(WindowPlan {
            bytes: wanted,
            chunks: None,
        });
    }
    if !info.features.buffer_device_address {
        return Err(RuntimeError::MissingFeature {
            device: info.name.clone(),
            missing: format!(
                "bufferDeviceAddress (a window of {wanted} bytes is larger than one storage buffer, \
                 {one_buffer_max} bytes)"
            ),
        });
    }
    // The largest power of two one buffer covers.
    let range = u64::from(limits.max_storage_buffer_range).min(limits.max_memory_allocation_size.max(1 << 20));
    let log2 = (63 - range.leading_zeros()).max(abi::MIN_CHUNK_LOG2);
    let count = wanted.div_ceil(1u64 << log2);
    // The address table must fit in one storage buffer beside the records.
    let most = one_buffer_max / 8;
    if count > most {
        return Err(RuntimeError::WindowTooLarge {
            requested: wanted,
            max: most << log2,
            reserved: reserve,
        });
    }
    Ok(WindowPlan {
        bytes: wanted,
        chunks: Some(WindowChunks {
            count: count as u32,
            log2_bytes: log2,
        }),
    })
}

/// The host's memory (`MemTotal` of `/proc/meminfo`; 0 where there is none).
fn host_memory_bytes() -> u64 {
    let text = std::fs::read_to_string("/proc/meminfo").unwrap_or_default();
    text.lines()
        .find_map(|l| l.strip_prefix("MemTotal:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map_or(0, |kib| kib << 10)
}

impl Runtime {
    /// The window's chunk layout (`None`: one buffer).
    pub fn window_chunks(&self) -> Option<WindowChunks> {
        self.chunked.as_ref().map(|c| c.form)
    }

    /// Guest bytes backed by device memory: the window size kernels see (accesses past it fault as outside
    /// the window).
    pub fn window_backed_bytes(&self) -> u64 {
        match &self.chunked {
            None => self.allocator.size(),
            Some(c) => ((c.backed.len() as u64) << c.form.log2_bytes).min(self.allocator.size()),
        }
    }

    /// Backs the chunks up to guest byte `end` (exclusive); no-op for a one-buffer window. Queued launches
    /// complete first, and descriptor sets and recorded launches are rebuilt for the new chunks.
    pub(super) fn back_window(&mut self, end: u64) -> Result<()> {
        let Some(c) = &self.chunked else { return Ok(()) };
        let need = end.div_ceil(c.form.chunk_bytes()) as usize;
        if need <= c.backed.len() {
            return Ok(());
        }
        self.synchronize()?;
        let Some(c) = &self.chunked else { return Ok(()) };
        let (bytes, mapped, have) = (c.form.chunk_bytes(), c.mapped, c.backed.len());
        let mut fresh = Vec::new();
        for _ in have..need {
            match self.create_chunk(bytes, mapped) {
                Ok(b) => fresh.push(b),
                Err(e) => {
                    for b in &fresh {
                        self.gpu.destroy_buffer(b);
                    }
                    return Err(e);
                }
            }
        }
        // Their addresses into the table at the start of binding 33 (nothing runs: synchronized above).
        let table: Vec<u8> = fresh
            .iter()
            .flat_map(|b| self.gpu.buffer_address(b).to_le_bytes())
            .collect();
        if let Some(c) = &mut self.chunked {
            c.backed.extend(fresh);
        }
        self.write_records(8 * have as u64, &table)
    }

    fn create_chunk(&self, bytes: u64, mapped: bool) -> Result<Buffer> {
        let usage = vk::BufferUsageFlags::STORAGE_BUFFER
            | vk::BufferUsageFlags::SHADER_DEVICE_ADDRESS
            | vk::BufferUsageFlags::TRANSFER_SRC
            | vk::BufferUsageFlags::TRANSFER_DST;
        let local = vk::MemoryPropertyFlags::DEVICE_LOCAL;
        let host = vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT;
        if mapped {
            self.gpu.create_buffer(
                bytes,
                usage,
                local | host,
                vk::MemoryPropertyFlags::empty(),
                "a window chunk",
            )
        } else {
            self.gpu
                .create_buffer(bytes, usage, vk::MemoryPropertyFlags::empty(), local, "a window chunk")
        }
    }

    /// Guest pieces of `[offset, offset + len)` as (buffer, offset in it, length, offset in the range).
    pub(super) fn guest_regions(&self, offset: u64, len: u64) -> Vec<(vk::Buffer, u64, u64, u64)> {
        match &self.chunked {
            None => vec![(self.window.buffer, offset, len, 0)],
            Some(c) => pieces(c.form.log2_bytes, offset, len)
                .into_iter()
                .filter_map(|p| c.backed.get(p.chunk).map(|b| (b.buffer, p.at, p.len, p.pos)))
                .collect(),
        }
    }

    /// The error for guest bytes `[offset, offset + len)` that reach past the backed chunks.
    fn unbacked(&self, offset: u64, len: u64) -> RuntimeError {
        let base = self.allocator.base();
        RuntimeError::OutOfWindow {
            address: base + offset,
            len,
            base,
            end: base + self.window_backed_bytes(),
        }
    }

    /// `offset..offset + len` of guest memory lies in backed chunks.
    fn check_backed(&self, offset: u64, len: u64) -> Result<()> {
        match offset.checked_add(len) {
            Some(end) if end <= self.window_backed_bytes() => Ok(()),
            _ => Err(self.unbacked(offset, len)),
        }
    }

    /// Writes guest bytes of a chunked window: through the mapped chunks, else the staging buffer.
    pub(super) fn write_chunks(&mut self, offset: u64, data: &[u8]) -> Result<()> {
        let len = data.len() as u64;
        self.check_backed(offset, len)?;
        let Some(c) = &mut self.chunked else {
            return Err(self.unbacked(offset, len));
        };
        if !matches!(self.backing, Backing::Mapped) {
            return self.write_staged(offset, data, false);
        }
        for p in pieces(c.form.log2_bytes, offset, len) {
            let dst = c.backed[p.chunk].bytes_mut().expect("mapped chunk");
            dst[p.at as usize..(p.at + p.len) as usize]
                .copy_from_slice(&data[p.pos as usize..(p.pos + p.len) as usize]);
        }
        Ok(())
    }

    /// Reads guest bytes of a chunked window: through the mapped chunks, else the staging buffer.
    pub(super) fn read_chunks(&mut self, offset: u64, out: &mut [u8]) -> Result<()> {
        let len = out.len() as u64;
        self.check_backed(offset, len)?;
        let Some(c) = &mut self.chunked else {
            return Err(self.unbacked(offset, len));
        };
        if !matches!(self.backing, Backing::Mapped) {
            return self.read_staged(offset, out, false);
        }
        for p in pieces(c.form.log2_bytes, offset, len) {
            let src = c.backed[p.chunk].bytes_mut().expect("mapped chunk");
            out[p.pos as usize..(p.pos + p.len) as usize].copy_from_slice(&src[p.at as usize..(p.at + p.len) as usize]);
        }
        Ok(())
    }

    /// Frees the chunk buffers (drop).
    pub(super) fn destroy_chunks(&mut self) {
        if let Some(c) = self.chunked.take() {
            for b in &c.backed {
                self.gpu.destroy_buffer(b);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_split_at_chunk_boundaries() {
        assert_eq!(
            pieces(20, 5, 10),
            vec![Piece {
                chunk: 0,
                at: 5,
                len: 10,
                pos: 0
            }]
        );
        let p = pieces(20, (1 << 20) - 4, (2 << 20) + 8);
        assert_eq!(
            p,
            vec![
                Piece {
                    chunk: 0,
                    at: (1 << 20) - 4,
                    len: 4,
                    pos: 0
                },
                Piece {
                    chunk: 1,
                    at: 0,
                    len: 1 << 20,
                    pos: 4
                },
                Piece {
                    chunk: 2,
                    at: 0,
                    len: 1 << 20,
                    pos: 4 + (1 << 20)
                },
                Piece {
                    chunk: 3,
                    at: 0,
                    len: 4,
                    pos: 4 + (2 << 20)
                },
            ]
        );
        assert!(pieces(20, 7, 0).is_empty());
    }

    #[test]
    fn byte_counts_parse_with_binary_suffixes() {
        assert_eq!(parse_bytes("4096"), Some(4096));
        assert_eq!(parse_bytes("3G"), Some(3 << 30));
        assert_eq!(parse_bytes("3GiB"), Some(3 << 30));
        assert_eq!(parse_bytes("100 G"), Some(100 << 30));
        assert_eq!(parse_bytes("512M"), Some(512 << 20));
        assert_eq!(parse_bytes("lots"), None);
        assert_eq!(parse_bytes("12Q"), None);
    }
}

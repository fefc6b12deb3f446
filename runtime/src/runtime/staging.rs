//! Host↔window copies where the window is not mapped: through two halves of one staging buffer in turn, so
//! that while the GPU copies one chunk the host fills (or empties) the other. Discrete GPUs get this path
//! even when they offer host-visible device-local memory: reading such a mapping crosses the bus uncached
//! (about 50 MiB/s on the H200 in 2026-11's `sassport run`), and writing it gains nothing over a DMA copy.

use ash::vk;

use super::launch::barrier;
use super::{Backing, Runtime};
use crate::error::{Result, RuntimeError};

/// Bytes of one staging half (the staging buffer holds two).
pub(super) const CHUNK_BYTES: u64 = 16 << 20;

/// Host threads that copy one chunk between the caller's bytes and a staging half: one thread's memcpy
/// moved 10 GiB/s on the H200's host, below the 10 GB/s each way issue 19 asks of the whole copy.
const COPY_THREADS: usize = 4;

/// Copies `src` into `dst` (equal lengths), split over [`COPY_THREADS`] threads when large.
fn copy_bytes(dst: &mut [u8], src: &[u8]) {
    const PARALLEL_FROM: usize = 4 << 20;
    if src.len() < PARALLEL_FROM {
        dst.copy_from_slice(src);
        return;
    }
    let part = src.len().div_ceil(COPY_THREADS);
    std::thread::scope(|sc| {
        for (d, s) in dst.chunks_mut(part).zip(src.chunks(part)) {
            sc.spawn(move || d.copy_from_slice(s));
        }
    });
}

/// One half of the staging buffer with the command buffer and fence of the copy using it.
#[derive(Clone, Copy, Default)]
pub(super) struct TransferSlot {
    pub(super) cb: vk::CommandBuffer,
    pub(super) fence: vk::Fence,
}

/// Which way a chunk moves.
#[derive(Clone, Copy)]
enum Way {
    ToWindow,
    FromWindow,
}

impl Runtime {
    /// Creates the two transfer slots' command buffers and fences (after the command pool).
    pub(super) fn create_transfer_slots(&mut self) -> Result<()> {
        for s in 0..2 {
            let cb = self.allocate_command_buffer()?;
            let fence = unsafe { self.gpu.device.create_fence(&vk::FenceCreateInfo::default(), None) }
                .map_err(RuntimeError::vk("vkCreateFence"))?;
            self.transfer[s] = TransferSlot { cb, fence };
        }
        Ok(())
    }

    pub(super) fn destroy_transfer_slots(&mut self) {
        for s in self.transfer {
            if s.fence != vk::Fence::null() {
                unsafe { self.gpu.device.destroy_fence(s.fence, None) };
            }
        }
    }

    /// Copies `data` to window byte `offset` (of the records buffer where `records`, else guest bytes)
    /// through the staging halves.
    pub(super) fn write_staged(&mut self, offset: u64, data: &[u8], records: bool) -> Result<()> {
        self.check_usable()?;
        let mut busy = [false; 2];
        let mut result = Ok(());
        for (i, chunk) in data.chunks(CHUNK_BYTES as usize).enumerate() {
            let s = i % 2;
            if busy[s] {
                busy[s] = false;
                if let Err(e) = self.wait_transfer(s) {
                    result = Err(e);
                    break;
                }
            }
            let half = s as u64 * CHUNK_BYTES;
            copy_bytes(&mut self.staging_half(s)[..chunk.len()], chunk);
            let at = offset + i as u64 * CHUNK_BYTES;
            if let Err(e) = self.start_copy(s, Way::ToWindow, half, at, chunk.len() as u64, records) {
                result = Err(e);
                break;
            }
            busy[s] = true;
        }
        self.finish_slots(busy, result)
    }

    /// Copies window bytes from `offset` (of the records buffer where `records`, else guest bytes) into `out`
    /// through the staging halves, the next chunk's copy running while the host takes the previous one.
    pub(super) fn read_staged(&mut self, offset: u64, out: &mut [u8], records: bool) -> Result<()> {
        self.check_usable()?;
        let chunk = CHUNK_BYTES as usize;
        let n = out.len().div_ceil(chunk);
        let total = out.len();
        let len_of = |i: usize| (total - i * chunk).min(chunk) as u64;
        let mut busy = [false; 2];
        let mut result = Ok(());
        for i in 0..n.min(2) {
            let at = offset + (i * chunk) as u64;
            if let Err(e) = self.start_copy(i, Way::FromWindow, i as u64 * CHUNK_BYTES, at, len_of(i), records) {
                return self.finish_slots(busy, Err(e));
            }
            busy[i] = true;
        }
        for i in 0..n {
            let s = i % 2;
            busy[s] = false;
            if let Err(e) = self.wait_transfer(s) {
                result = Err(e);
                break;
            }
            let len = len_of(i) as usize;
            copy_bytes(&mut out[i * chunk..i * chunk + len], &self.staging_half(s)[..len]);
            let next = i + 2;
            if next < n {
                let at = offset + (next * chunk) as u64;
                if let Err(e) = self.start_copy(s, Way::FromWindow, s as u64 * CHUNK_BYTES, at, len_of(next), records) {
                    result = Err(e);
                    break;
                }
                busy[s] = true;
            }
        }
        self.finish_slots(busy, result)
    }

    /// The host's view of staging half `s`.
    fn staging_half(&mut self, s: usize) -> &mut [u8] {
        let Backing::Staged(staging) = &mut self.backing else {
            unreachable!("staged copies only with a staging buffer")
        };
        let half = CHUNK_BYTES as usize;
        &mut staging.bytes_mut().expect("the staging buffer is mapped")[s * half..(s + 1) * half]
    }

    /// Records and submits slot `s`'s copy of `len` bytes between staging byte `half` and window byte `at`
    /// (of the records buffer where `records`; guest bytes are split at chunk boundaries).
    fn start_copy(&mut self, s: usize, way: Way, half: u64, at: u64, len: u64, records: bool) -> Result<()> {
        let Backing::Staged(staging) = &self.backing else {
            unreachable!("staged copies only with a staging buffer")
        };
        let stage = staging.buffer;
        let regions = if records { vec![(self.window.buffer, at, len, 0)] } else { self.guest_regions(at, len) };
        let TransferSlot { cb, fence } = self.transfer[s];
        self.record(cb, vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT, |d, cb| unsafe {
            // Earlier submissions (launches, copies) finish with the window before this copy touches it.
            barrier(
                d,
                cb,
                vk::PipelineStageFlags::COMPUTE_SHADER | vk::PipelineStageFlags::TRANSFER,
                vk::AccessFlags::SHADER_WRITE | vk::AccessFlags::SHADER_READ | vk::AccessFlags::TRANSFER_WRITE,
                vk::PipelineStageFlags::TRANSFER,
                vk::AccessFlags::TRANSFER_READ | vk::AccessFlags::TRANSFER_WRITE,
            );
            for &(window, at, len, pos) in &regions {
                let (src, dst, region) = match way {
                    Way::ToWindow => (stage, window, vk::BufferCopy { src_offset: half + pos, dst_offset: at, size: len }),
                    Way::FromWindow => (window, stage, vk::BufferCopy { src_offset: at, dst_offset: half + pos, size: len }),
                };
                d.cmd_copy_buffer(cb, src, dst, &[region]);
            }
            if let Way::FromWindow = way {
                barrier(
                    d,
                    cb,
                    vk::PipelineStageFlags::TRANSFER,
                    vk::AccessFlags::TRANSFER_WRITE,
                    vk::PipelineStageFlags::HOST,
                    vk::AccessFlags::HOST_READ,
                );
            }
        })?;
        let cbs = [cb];
        let submit = vk::SubmitInfo::default().command_buffers(&cbs);
        unsafe { self.gpu.device.queue_submit(self.gpu.queue, &[submit], fence) }
            .map_err(RuntimeError::vk("vkQueueSubmit"))
    }

    fn wait_transfer(&self, s: usize) -> Result<()> {
        let d = &self.gpu.device;
        let fence = [self.transfer[s].fence];
        unsafe {
            d.wait_for_fences(&fence, true, u64::MAX).map_err(RuntimeError::vk("vkWaitForFences"))?;
            d.reset_fences(&fence).map_err(RuntimeError::vk("vkResetFences"))
        }
    }

    /// Waits for the slots still copying (so no command buffer is reused in flight), keeping the first error.
    fn finish_slots(&mut self, busy: [bool; 2], result: Result<()>) -> Result<()> {
        let mut result = result;
        for (s, b) in busy.into_iter().enumerate() {
            if b {
                let waited = self.wait_transfer(s);
                if result.is_ok() {
                    result = waited;
                }
            }
        }
        result
    }
}

//! Queued launches: [`Runtime::enqueue`] records a launch into the open batch (one command buffer) and returns
//! without waiting; batches are submitted whenever the device has nothing in flight (so batches grow while
//! the device is busy; the fence is asked when the open batch reaches 1, 2, 4, ... launches), when one fills, and at every
//! synchronisation ([`Runtime::synchronize`], [`Runtime::wait_for`], [`Runtime::is_complete`]). At most one
//! batch is in flight; the other is recorded meanwhile. Each batch carries a serial: work enqueued returns
//! the serial it completes with, so a caller can ask whether (or wait until) some work has completed.
//!
//! Every launch of a batch gets its own copy of its constant banks and launch values in the batch's ring
//! (host-visible); the command buffer copies them to the kernel's fixed scratch offsets just before the
//! dispatch, behind a barrier that also orders the launch after the one before it (CUDA stream order: one
//! queue, every launch sees the writes of every launch before it). The fault record and printf area are
//! zeroed once per batch: the record keeps the batch's first failure (it names its kernel), the printf
//! area collects every launch's records in order. A completed batch's printf output and failure wait in
//! [`Runtime::take_completed`] for the caller's next synchronisation point, as CUDA reports them.
//!
//! The launch timeout applies to each launch of a batch: the command buffer writes the index of the launch
//! about to run into the ring's first word, and a batch whose index stands still for the timeout is
//! stopped through the abort word ([`super::timeout`]).

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use ash::vk;
use sassport_translator::abi::{self, LaunchValues};

use super::launch::{barrier, CheckedLaunch, HEAD_WORDS};
use super::{Backing, Launch, Runtime, FAULT_RESERVE, SCRATCH_BANKS_START};
use crate::error::{Result, RuntimeError};
use crate::gpu::Buffer;
use crate::grid::split_grid;
use crate::printf::PrintfOutput;

/// Most launches in one batch.
const MAX_BATCH_LAUNCHES: usize = 256;
/// Bytes of each batch's ring (constant banks and launch values of its launches, after the progress word).
const RING_BYTES: u64 = 4 << 20;
/// Ring bytes before the first launch's copy: the progress word.
const RING_START: u64 = 256;
/// Timestamps one batch may write (events recorded between launches).
const MAX_BATCH_TIMESTAMPS: u32 = 64;
/// Completed timestamps kept for [`Runtime::timestamp_ns`]: older ones are forgotten.
const KEPT_TIMESTAMPS: usize = 1 << 16;
/// How long a stopped batch may take to end after the abort word was raised.
const ABORT_GRACE: Duration = Duration::from_secs(10);

/// A timestamp written into a batch by [`Runtime::enqueue_timestamp`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TimestampId(u64);

/// What a queued launch did at once (it runs later).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QueuedLaunch {
    /// The serial of the batch the launch is in: it has completed once [`Runtime::is_complete`] says so.
    pub serial: u64,
    /// Whether the pipeline for this block shape had to be created.
    pub pipeline_created: bool,
    /// Number of `vkCmdDispatch` calls the grid was split into.
    pub dispatches: u32,
}

/// What completed batches left for the caller: printf output of all their launches, in order, and the first
/// failure (a fault, trap, assertion, timeout), after which the caller's context is unusable.
#[derive(Debug, Default)]
pub struct Completed {
    pub printf: PrintfOutput,
    pub failure: Option<RuntimeError>,
}

struct Slot {
    cb: vk::CommandBuffer,
    fence: vk::Fence,
    ring: Buffer,
    queries: vk::QueryPool,
    /// Ring bytes in use.
    used: u64,
    /// Kernel ids of the batch's launches, in order (names for a timeout).
    kernels: Vec<u32>,
    /// Timestamps written, by query index.
    stamps: Vec<TimestampId>,
    serial: u64,
    recording: bool,
}

/// The runtime's batches; empty until the first queued launch.
#[derive(Default)]
pub(crate) struct Batches {
    slots: Vec<Slot>,
    open: usize,
    in_flight: Option<usize>,
    /// The serial the open batch will complete with.
    next_serial: u64,
    completed_serial: u64,
    completed: Completed,
    timestamps: BTreeMap<TimestampId, u64>,
    next_timestamp: u64,
}

impl Runtime {
    fn ensure_slots(&mut self) -> Result<()> {
        if !self.batches.slots.is_empty() {
            return Ok(());
        }
        self.batches.next_serial = self.batches.completed_serial + 1;
        for _ in 0..2 {
            let slot = self.create_slot()?;
            self.batches.slots.push(slot);
        }
        Ok(())
    }

    fn create_slot(&self) -> Result<Slot> {
        let d = &self.gpu.device;
        let host = vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT;
        let ring = self.gpu.create_buffer(
            RING_BYTES,
            vk::BufferUsageFlags::TRANSFER_SRC | vk::BufferUsageFlags::TRANSFER_DST,
            host,
            vk::MemoryPropertyFlags::empty(),
            "queued launches' constant banks",
        )?;
        let cb = match self.allocate_command_buffer() {
            Ok(cb) => cb,
            Err(e) => {
                self.gpu.destroy_buffer(&ring);
                return Err(e);
            }
        };
        let fence = match unsafe { d.create_fence(&vk::FenceCreateInfo::default(), None) } {
            Ok(f) => f,
            Err(e) => {
                self.gpu.destroy_buffer(&ring);
                return Err(RuntimeError::Vulkan { call: "vkCreateFence", result: e });
            }
        };
        let queries = if self.gpu.timestamp_bits > 0 {
            let info = vk::QueryPoolCreateInfo::default()
                .query_type(vk::QueryType::TIMESTAMP)
                .query_count(MAX_BATCH_TIMESTAMPS);
            match unsafe { d.create_query_pool(&info, None) } {
                Ok(q) => q,
                Err(e) => {
                    unsafe { d.destroy_fence(fence, None) };
                    self.gpu.destroy_buffer(&ring);
                    return Err(RuntimeError::Vulkan { call: "vkCreateQueryPool", result: e });
                }
            }
        } else {
            vk::QueryPool::null()
        };
        Ok(Slot {
            cb,
            fence,
            ring,
            queries,
            used: RING_START,
            kernels: Vec::new(),
            stamps: Vec::new(),
            serial: 0,
            recording: false,
        })
    }

    /// Releases the batches' objects (the device is idle: called from `Drop`).
    pub(super) fn destroy_batches(&mut self) {
        let d = &self.gpu.device;
        for s in &self.batches.slots {
            unsafe {
                d.destroy_fence(s.fence, None);
                d.destroy_query_pool(s.queries, None);
            }
            self.gpu.destroy_buffer(&s.ring);
        }
        self.batches.slots.clear();
    }

    /// The open batch, begun if it was not: its command buffer zeroes the fault record and printf area.
    fn open_slot(&mut self) -> Result<usize> {
        self.ensure_slots()?;
        let i = self.batches.open;
        if self.batches.slots[i].recording {
            return Ok(i);
        }
        let (fault_offset, _) = self.fault_layout();
        let staged = self.is_staged();
        let abort_offset = self.abort_offset();
        let window = self.window.buffer;
        let serial = self.batches.next_serial;
        let slot = &mut self.batches.slots[i];
        slot.used = RING_START;
        slot.kernels.clear();
        slot.stamps.clear();
        slot.serial = serial;
        let (cb, queries) = (slot.cb, slot.queries);
        let d = &self.gpu.device;
        unsafe {
            d.reset_command_buffer(cb, vk::CommandBufferResetFlags::empty())
                .map_err(RuntimeError::vk("vkResetCommandBuffer"))?;
            let begin = vk::CommandBufferBeginInfo::default().flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT);
            d.begin_command_buffer(cb, &begin).map_err(RuntimeError::vk("vkBeginCommandBuffer"))?;
            if queries != vk::QueryPool::null() {
                d.cmd_reset_query_pool(cb, queries, 0, MAX_BATCH_TIMESTAMPS);
            }
            barrier(
                d,
                cb,
                vk::PipelineStageFlags::COMPUTE_SHADER | vk::PipelineStageFlags::TRANSFER,
                vk::AccessFlags::SHADER_WRITE | vk::AccessFlags::TRANSFER_WRITE,
                vk::PipelineStageFlags::TRANSFER,
                vk::AccessFlags::TRANSFER_WRITE,
            );
            d.cmd_fill_buffer(cb, window, fault_offset, FAULT_RESERVE, 0);
            if staged {
                d.cmd_fill_buffer(cb, window, abort_offset, 4 * u64::from(abi::ABORT_BLOCK_WORDS), 0);
            }
        }
        self.batches.slots[i].recording = true;
        Ok(i)
    }

    /// Queues a launch: checked now (a bad launch fails here), run later in order with every other queued
    /// launch. Its failure, if it fails, shows in [`Runtime::take_completed`] once its batch completed.
    pub fn enqueue(&mut self, launch: &Launch<'_>) -> Result<QueuedLaunch> {
        let CheckedLaunch { name, entry, chunks, max_count, ordered } = self.check_launch(launch)?;
        let shared_window = self.shared_window_words(entry, launch.dynamic_shared_bytes)?;
        let stride = self.uniform_stride;
        let lv_offset = self.entries[entry].launch_values_offset;
        let end = lv_offset + chunks * stride;
        let copy_bytes = end - SCRATCH_BANKS_START;
        if copy_bytes.next_multiple_of(16) > RING_BYTES - RING_START {
            // Too large to queue (a grid of many dispatches): run it on its own, reporting as queued work.
            self.synchronize()?;
            let outcome = self.launch(launch);
            let serial = self.batches.completed_serial;
            return match outcome {
                Ok(r) => {
                    self.batches.completed.printf.records.extend(r.printf.records);
                    self.batches.completed.printf.dropped += r.printf.dropped;
                    Ok(QueuedLaunch { serial, pipeline_created: r.pipeline_created, dispatches: r.dispatches })
                }
                Err(e) if is_kernel_failure(&e) => {
                    let printf = self.take_failed_launch_printf();
                    self.batches.completed.printf.records.extend(printf.records);
                    self.batches.completed.failure.get_or_insert(e);
                    Ok(QueuedLaunch { serial, pipeline_created: false, dispatches: chunks as u32 })
                }
                Err(e) => Err(e),
            };
        }
        if end > self.scratch.size {
            // Growing the scratch buffer replaces the one queued launches copy into.
            self.synchronize()?;
            self.ensure_scratch(end)?;
        }
        if self.entries[entry].set_generation != self.scratch_generation {
            self.write_descriptors(entry);
        }
        let (pipeline, pipeline_created) =
            self.pipeline(entry, launch.block, launch.dynamic_shared_bytes, &name)?;
        let mut i = self.open_slot()?;
        {
            let s = &self.batches.slots[i];
            if s.kernels.len() >= MAX_BATCH_LAUNCHES || s.used + copy_bytes.next_multiple_of(16) > RING_BYTES {
                self.submit_open()?;
                i = self.open_slot()?;
            }
        }
        let image = self.launch_image(launch, entry, chunks, (max_count, shared_window));
        let at = self.batches.slots[i].used;
        {
            let slot = &mut self.batches.slots[i];
            let ring = slot.ring.bytes_mut().expect("the ring is host-visible");
            ring[at as usize..at as usize + image.len()].copy_from_slice(&image);
            slot.used = (at + copy_bytes).next_multiple_of(16);
            slot.kernels.push(launch.kernel.raw());
        }
        let index = (self.batches.slots[i].kernels.len() - 1) as u32;
        self.record_launch(i, index, at, copy_bytes, entry, pipeline, launch.grid, (max_count, ordered));
        let serial = self.batches.slots[i].serial;
        // Asking the fence costs a call into the driver: ask when the open batch's size is a power of two, so
        // a batch of n launches asks about log2(n) times and a lone launch is asked about at once.
        self.submit_if_idle(index.wrapping_add(1).is_power_of_two())?;
        Ok(QueuedLaunch { serial, pipeline_created, dispatches: chunks as u32 })
    }

    /// The bytes of scratch from `SCRATCH_BANKS_START` to the launch's last launch values.
    fn launch_image(
        &self,
        launch: &Launch<'_>,
        entry: usize,
        chunks: u64,
        (max_count, shared_window): ([u32; 3], [u32; 4]),
    ) -> Vec<u8> {
        let e = &self.entries[entry];
        let stride = self.uniform_stride;
        let end = e.launch_values_offset + chunks * stride;
        let mut image = vec![0u8; (end - SCRATCH_BANKS_START) as usize];
        for &(bank, offset, bytes) in &e.banks {
            let at = (offset - SCRATCH_BANKS_START) as usize;
            let given = launch.banks.iter().rev().find(|b| b.0 == bank).map(|b| b.1).unwrap_or(&[]);
            let n = given.len().min(bytes as usize);
            image[at..at + n].copy_from_slice(&given[..n]);
        }
        let (fault_offset, printf_capacity) = self.fault_layout();
        let fault_word = (fault_offset / 4) as u32;
        let (grid, block) = (launch.grid, launch.block);
        let mut values = LaunchValues {
            window_base: self.allocator.base(),
            window_size: self.window_backed_bytes(),
            fault_record_word: fault_word,
            kernel_id: launch.kernel.raw(),
            printf_area_word: fault_word + abi::PRINTF_AREA_OFFSET,
            printf_capacity_words: printf_capacity,
            grid_dim: [grid[0], grid[1], grid[2], 0],
            block_dim: [block[0], block[1], block[2], 0],
            workgroup_base: [0; 4],
            texture_pools: self.texture_pool_words(),
            shared_window,
        };
        for (i, chunk) in split_grid(grid, max_count).enumerate() {
            values.workgroup_base = [chunk.base[0], chunk.base[1], chunk.base[2], 0];
            let at = (e.launch_values_offset - SCRATCH_BANKS_START + i as u64 * stride) as usize;
            image[at..at + std::mem::size_of::<LaunchValues>()].copy_from_slice(&values.to_bytes());
        }
        image
    }

    /// Records launch `index` of batch `i`: wait for the work before it, note its index in the progress word,
    /// copy its banks into place, dispatch.
    #[allow(clippy::too_many_arguments)]
    fn record_launch(
        &self,
        i: usize,
        index: u32,
        ring_at: u64,
        copy_bytes: u64,
        entry: usize,
        pipeline: vk::Pipeline,
        grid: [u32; 3],
        (max_count, ordered): ([u32; 3], bool),
    ) {
        let slot = &self.batches.slots[i];
        let e = &self.entries[entry];
        let (cb, ring, scratch) = (slot.cb, slot.ring.buffer, self.scratch.buffer);
        let d = &self.gpu.device;
        let stride = self.uniform_stride;
        unsafe {
            barrier(
                d,
                cb,
                vk::PipelineStageFlags::COMPUTE_SHADER | vk::PipelineStageFlags::TRANSFER,
                vk::AccessFlags::SHADER_WRITE | vk::AccessFlags::TRANSFER_WRITE,
                vk::PipelineStageFlags::COMPUTE_SHADER | vk::PipelineStageFlags::TRANSFER,
                vk::AccessFlags::SHADER_READ
                    | vk::AccessFlags::SHADER_WRITE
                    | vk::AccessFlags::TRANSFER_WRITE,
            );
            d.cmd_fill_buffer(cb, ring, 0, 4, index);
            let region = vk::BufferCopy { src_offset: ring_at, dst_offset: SCRATCH_BANKS_START, size: copy_bytes };
            d.cmd_copy_buffer(cb, ring, scratch, &[region]);
            barrier(
                d,
                cb,
                vk::PipelineStageFlags::TRANSFER,
                vk::AccessFlags::TRANSFER_WRITE,
                vk::PipelineStageFlags::COMPUTE_SHADER,
                vk::AccessFlags::UNIFORM_READ | vk::AccessFlags::SHADER_READ | vk::AccessFlags::SHADER_WRITE,
            );
            d.cmd_bind_pipeline(cb, vk::PipelineBindPoint::COMPUTE, pipeline);
            for (k, chunk) in split_grid(grid, max_count).enumerate() {
                if ordered && k > 0 {
                    super::launch::dispatch_after_dispatch(d, cb);
                }
                let dynamic = [(e.launch_values_offset + k as u64 * stride) as u32];
                let offsets: &[u32] = if e.interface.uses_launch_values { &dynamic } else { &[] };
                d.cmd_bind_descriptor_sets(cb, vk::PipelineBindPoint::COMPUTE, e.pipeline_layout, 0, &[e.set], offsets);
                d.cmd_dispatch(cb, chunk.count[0], chunk.count[1], chunk.count[2]);
            }
        }
    }

    /// Queues a device timestamp after all work queued so far (None when the queue has no timestamps), and
    /// returns the serial it completes with.
    pub fn enqueue_timestamp(&mut self) -> Result<(u64, Option<TimestampId>)> {
        self.ensure_slots()?;
        if self.batches.slots[0].queries == vk::QueryPool::null() {
            return Ok((self.pending_serial(), None));
        }
        let mut i = self.open_slot()?;
        if self.batches.slots[i].stamps.len() as u32 >= MAX_BATCH_TIMESTAMPS {
            self.submit_open()?;
            i = self.open_slot()?;
        }
        let id = TimestampId(self.batches.next_timestamp);
        self.batches.next_timestamp += 1;
        let slot = &mut self.batches.slots[i];
        let query = slot.stamps.len() as u32;
        slot.stamps.push(id);
        let (cb, queries, serial) = (slot.cb, slot.queries, slot.serial);
        unsafe {
            self.gpu.device.cmd_write_timestamp(cb, vk::PipelineStageFlags::BOTTOM_OF_PIPE, queries, query);
        }
        self.submit_if_idle(true)?;
        Ok((serial, Some(id)))
    }

    /// A completed timestamp in nanoseconds of the device's clock (None: not completed, or forgotten).
    pub fn timestamp_ns(&self, id: TimestampId) -> Option<u64> {
        self.batches.timestamps.get(&id).copied()
    }

    /// The serial all work queued so far completes with.
    pub fn pending_serial(&self) -> u64 {
        let b = &self.batches;
        match b.slots.get(b.open) {
            Some(s) if s.recording => s.serial,
            _ => b.in_flight.map_or(b.completed_serial, |i| b.slots[i].serial),
        }
    }

    /// Whether the work that completes with `serial` has completed; submits it if it waits unsubmitted and
    /// nothing is in flight.
    pub fn is_complete(&mut self, serial: u64) -> Result<bool> {
        if serial <= self.batches.completed_serial {
            return Ok(true);
        }
        if let Some(i) = self.batches.in_flight {
            let done = unsafe { self.gpu.device.get_fence_status(self.batches.slots[i].fence) }
                .map_err(RuntimeError::vk("vkGetFenceStatus"))?;
            if !done {
                return Ok(false);
            }
            self.finish_in_flight()?;
        }
        self.submit_if_idle(true)?;
        Ok(serial <= self.batches.completed_serial)
    }

    /// Waits until the work that completes with `serial` has completed.
    pub fn wait_for(&mut self, serial: u64) -> Result<()> {
        while serial > self.batches.completed_serial {
            if self.batches.in_flight.is_some() {
                self.finish_in_flight()?;
            } else if self.batches.slots.get(self.batches.open).is_some_and(|s| s.recording) {
                self.submit_open()?;
            } else {
                break;
            }
        }
        Ok(())
    }

    /// Waits until every queued launch has completed.
    pub fn synchronize(&mut self) -> Result<()> {
        self.wait_for(u64::MAX)
    }

    /// Printf output and the first failure of the batches completed since the last call.
    pub fn take_completed(&mut self) -> Completed {
        std::mem::take(&mut self.batches.completed)
    }

    /// Submits the open batch if nothing is in flight, or (`poll`) what is in flight has completed.
    fn submit_if_idle(&mut self, poll: bool) -> Result<()> {
        if let Some(i) = self.batches.in_flight {
            if !poll {
                return Ok(());
            }
            let done = unsafe { self.gpu.device.get_fence_status(self.batches.slots[i].fence) }
                .map_err(RuntimeError::vk("vkGetFenceStatus"))?;
            if !done {
                return Ok(());
            }
        }
        if self.batches.slots.get(self.batches.open).is_some_and(|s| s.recording) {
            self.submit_open()?;
        }
        Ok(())
    }

    /// Ends and submits the open batch, after the one in flight (if any) completed.
    fn submit_open(&mut self) -> Result<()> {
        self.check_usable()?;
        if self.batches.in_flight.is_some() {
            self.finish_in_flight()?;
        }
        let i = self.batches.open;
        let staged = self.is_staged();
        let (fault_offset, _) = self.fault_layout();
        let (window, scratch) = (self.window.buffer, self.scratch.buffer);
        let slot = &self.batches.slots[i];
        let (cb, ring, fence, count) = (slot.cb, slot.ring.buffer, slot.fence, slot.kernels.len() as u32);
        let d = &self.gpu.device;
        unsafe {
            barrier(
                d,
                cb,
                vk::PipelineStageFlags::COMPUTE_SHADER | vk::PipelineStageFlags::TRANSFER,
                vk::AccessFlags::SHADER_WRITE | vk::AccessFlags::TRANSFER_WRITE,
                vk::PipelineStageFlags::TRANSFER | vk::PipelineStageFlags::HOST,
                vk::AccessFlags::TRANSFER_READ | vk::AccessFlags::TRANSFER_WRITE | vk::AccessFlags::HOST_READ,
            );
            d.cmd_fill_buffer(cb, ring, 0, 4, count);
            if staged {
                let region = vk::BufferCopy { src_offset: fault_offset, dst_offset: 0, size: 4 * HEAD_WORDS as u64 };
                d.cmd_copy_buffer(cb, window, scratch, &[region]);
            }
            barrier(
                d,
                cb,
                vk::PipelineStageFlags::TRANSFER,
                vk::AccessFlags::TRANSFER_WRITE,
                vk::PipelineStageFlags::HOST,
                vk::AccessFlags::HOST_READ,
            );
            d.end_command_buffer(cb).map_err(RuntimeError::vk("vkEndCommandBuffer"))?;
        }
        // Nothing is in flight, so the host may write the abort word of a mapped window.
        if let Backing::Mapped = self.backing {
            self.write_abort_word(0);
        }
        let cbs = [cb];
        let submit = vk::SubmitInfo::default().command_buffers(&cbs);
        let submitted = unsafe { self.gpu.device.queue_submit(self.gpu.queue, &[submit], fence) };
        let slot = &mut self.batches.slots[i];
        slot.recording = false;
        submitted.map_err(RuntimeError::vk("vkQueueSubmit"))?;
        self.batches.in_flight = Some(i);
        self.batches.open = 1 - i;
        self.batches.next_serial += 1;
        Ok(())
    }

    /// Waits for the batch in flight (within the launch timeout of each of its launches), then reads its
    /// fault record, printf output and timestamps into what [`Runtime::take_completed`] returns.
    fn finish_in_flight(&mut self) -> Result<()> {
        let Some(i) = self.batches.in_flight else { return Ok(()) };
        let waited = self.wait_slot(i);
        let serial = self.batches.slots[i].serial;
        if let Err(e) = waited {
            // The batch is abandoned (it stopped, or hangs): nothing more can be read from it.
            if matches!(e, RuntimeError::LaunchTimeout { .. }) {
                self.batches.in_flight = None;
                self.batches.completed_serial = serial;
                let _ = unsafe { self.gpu.device.reset_fences(&[self.batches.slots[i].fence]) };
                self.batches.completed.failure.get_or_insert(e);
                return Ok(());
            }
            return Err(e);
        }
        unsafe { self.gpu.device.reset_fences(&[self.batches.slots[i].fence]) }
            .map_err(RuntimeError::vk("vkResetFences"))?;
        self.batches.in_flight = None;
        self.batches.completed_serial = serial;
        self.read_timestamps(i)?;
        let last = self.batches.slots[i].kernels.last().copied();
        let name = last
            .and_then(|k| self.names.get(k as usize))
            .map_or_else(|| "a queued kernel".to_string(), |(n, _)| n.clone());
        let (fault_offset, printf_capacity) = self.fault_layout();
        match self.read_outcome(&name, fault_offset, printf_capacity) {
            Ok(printf) => {
                let c = &mut self.batches.completed;
                c.printf.records.extend(printf.records);
                c.printf.dropped += printf.dropped;
                if c.printf.problem.is_none() {
                    c.printf.problem = printf.problem;
                }
            }
            Err(e) => {
                let printf = self.take_failed_launch_printf();
                let c = &mut self.batches.completed;
                c.printf.records.extend(printf.records);
                c.printf.dropped += printf.dropped;
                c.failure.get_or_insert(e);
            }
        }
        Ok(())
    }

    /// Waits for batch `i`'s fence, stopping it when one launch runs past the launch timeout.
    fn wait_slot(&mut self, i: usize) -> Result<()> {
        let fence = self.batches.slots[i].fence;
        let Some(timeout) = self.options.launch_timeout else {
            self.wait_fence_for(fence, Duration::MAX)?;
            return Ok(());
        };
        let mut progress = self.progress(i);
        let mut since = Instant::now();
        loop {
            let left = timeout.saturating_sub(since.elapsed()).max(Duration::from_millis(1));
            if self.wait_fence_for(fence, left.min(Duration::from_millis(500)))? {
                return Ok(());
            }
            let now = self.progress(i);
            if now != progress {
                (progress, since) = (now, Instant::now());
            } else if since.elapsed() >= timeout {
                break;
            }
        }
        let kernel = self.batches.slots[i]
            .kernels
            .get(progress as usize)
            .and_then(|&k| self.names.get(k as usize))
            .map_or_else(|| "a queued kernel".to_string(), |(n, _)| n.clone());
        let seconds = timeout.as_secs_f64();
        let written = self.write_abort_word(1);
        if written && self.wait_fence_for(fence, ABORT_GRACE)? {
            return Err(RuntimeError::LaunchTimeout { kernel, seconds });
        }
        self.hung = Some(kernel.clone());
        Err(RuntimeError::LaunchHung { kernel, seconds: seconds + ABORT_GRACE.as_secs_f64() })
    }

    /// Waits for `fence`: true when it signalled within `limit`.
    fn wait_fence_for(&self, fence: vk::Fence, limit: Duration) -> Result<bool> {
        let nanos = u64::try_from(limit.as_nanos()).unwrap_or(u64::MAX);
        match unsafe { self.gpu.device.wait_for_fences(&[fence], true, nanos) } {
            Ok(()) => Ok(true),
            Err(vk::Result::TIMEOUT) => Ok(false),
            Err(e) => Err(RuntimeError::Vulkan { call: "vkWaitForFences", result: e }),
        }
    }

    /// The progress word of batch `i`: the index of the launch running (the launch count once done).
    fn progress(&self, i: usize) -> u32 {
        let ring = self.batches.slots[i].ring.mapped.expect("the ring is host-visible");
        // SAFETY: the ring's first word, mapped for the ring's lifetime, which the device writes: read volatile.
        unsafe { std::ptr::read_volatile(ring.cast::<u32>()) }
    }

    /// Reads batch `i`'s timestamps (it has completed) into nanoseconds.
    fn read_timestamps(&mut self, i: usize) -> Result<()> {
        let slot = &self.batches.slots[i];
        if slot.stamps.is_empty() {
            return Ok(());
        }
        let mut ticks = vec![0u64; slot.stamps.len()];
        unsafe {
            self.gpu.device.get_query_pool_results(
                slot.queries,
                0,
                &mut ticks,
                vk::QueryResultFlags::TYPE_64 | vk::QueryResultFlags::WAIT,
            )
        }
        .map_err(RuntimeError::vk("vkGetQueryPoolResults"))?;
        let mask = if self.gpu.timestamp_bits >= 64 { u64::MAX } else { (1u64 << self.gpu.timestamp_bits) - 1 };
        let period = f64::from(self.gpu.info.limits.timestamp_period_ns);
        let stamps = slot.stamps.clone();
        for (id, t) in stamps.into_iter().zip(ticks) {
            self.batches.timestamps.insert(id, ((t & mask) as f64 * period) as u64);
        }
        while self.batches.timestamps.len() > KEPT_TIMESTAMPS {
            self.batches.timestamps.pop_first();
        }
        Ok(())
    }
}

/// Whether `e` is a kernel's own failure (it ran and failed), which CUDA reports at the next synchronisation.
fn is_kernel_failure(e: &RuntimeError) -> bool {
    matches!(
        e,
        RuntimeError::Fault { .. }
            | RuntimeError::MemorySpaceFault { .. }
            | RuntimeError::ControlFault { .. }
            | RuntimeError::Trap { .. }
            | RuntimeError::AssertionFailed(_)
            | RuntimeError::NoProgress { .. }
            | RuntimeError::Misaligned { .. }
            | RuntimeError::HeapFault { .. }
            | RuntimeError::SubgroupLayout { .. }
            | RuntimeError::DeviceLoopLimit { .. }
            | RuntimeError::LaunchTimeout { .. }
    )
}

//! Launching a kernel: validation, constant banks and launch values, split dispatches, the fault record.

use std::time::Duration;

use ash::vk;
use sassport_translator::abi::{self, FaultRecord, LaunchValues};

use super::{Backing, KernelId, Runtime, FAULT_RESERVE};

/// Most recorded launch command buffers kept; past it, all are freed and recording starts over.
const MAX_RECORDED: usize = 256;
use crate::error::{Result, RuntimeError};
use crate::printf::{self, PrintfOutput, PrintfRecord};
use crate::grid::{chunk_count, split_grid};

/// One kernel launch.
#[derive(Clone, Debug)]
pub struct Launch<'a> {
    /// The kernel.
    pub kernel: KernelId,
    /// CUDA `gridDim`.
    pub grid: [u32; 3],
    /// CUDA `blockDim` (the workgroup size).
    pub block: [u32; 3],
    /// CUDA dynamic shared memory in bytes.
    pub dynamic_shared_bytes: u32,
    /// Constant-bank contents by bank index; banks the module reads but not given here read as zero.
    pub banks: &'a [(u32, &'a [u8])],
}

/// What a launch did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LaunchReport {
    /// Number of `vkCmdDispatch` calls the grid was split into.
    pub dispatches: u32,
    /// Whether the pipeline for this block shape had to be created.
    pub pipeline_created: bool,
    /// GPU time from before the first dispatch to after the last, when [`crate::RuntimeOptions::kernel_timing`] is
    /// set and the queue supports timestamps.
    pub kernel_time: Option<Duration>,
    /// What the kernel printed with device `printf` (empty for kernels that print nothing).
    pub printf: PrintfOutput,
}

/// A launch that passed [`Runtime::check_launch`].
pub(super) struct CheckedLaunch {
    pub(super) name: String,
    pub(super) entry: usize,
    pub(super) chunks: u64,
    pub(super) max_count: [u32; 3],
    /// Each dispatch waits for the one before (a barrier between): one block per dispatch, ascending, for
    /// kernels that wait on other blocks; the window slots' reuse for window-backed shared memory.
    pub(super) ordered: bool,
}

/// Words at the fault record's start that the host reads back after every launch: the fault record, the
/// assert record and the printf area's two counters.
pub(super) const HEAD_WORDS: usize = (abi::PRINTF_AREA_OFFSET + abi::printf_word::RECORDS) as usize;

impl Runtime {
    pub(super) fn check_block(
        &self,
        name: &str,
        block: [u32; 3],
    ) -> Result<()> {
        let l = &self.gpu.info.limits;
        let invalid = |reason: String| {
            Err(RuntimeError::InvalidLaunch {
                kernel: name.into(),
                reason,
            })
        };
        let threads = block.iter().map(|&b| u64::from(b)).product::<u64>();
        if block.contains(&0) {
            return invalid(format!("block {block:?} has a zero dimension"));
        }
        if threads > 1024 || block[2] > 64 {
            return invalid(format!(
                "block {block:?} exceeds CUDA's limits (1024 threads, blockDim.z <= 64)"
            ));
        }
        if (0..3).any(|i| block[i] > l.max_workgroup_size[i]) {
            return invalid(format!(
                "block {block:?} exceeds the device's workgroup size {:?}",
                l.max_workgroup_size
            ));
        }
        if threads > u64::from(l.max_workgroup_invocations) {
            return invalid(format!(
                "block of {threads} threads exceeds the device's {} invocations",
                l.max_workgroup_invocations
            ));
        }
        Ok(())
    }

    /// Grows the scratch buffer to at least `needed` bytes.
    pub(super) fn ensure_scratch(&mut self, needed: u64) -> Result<()> {
        if needed <= self.scratch.size {
            return Ok(());
        }
        let size = needed.next_power_of_two();
        let host = vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT;
        let fresh = self.gpu.create_buffer(
            size,
            vk::BufferUsageFlags::UNIFORM_BUFFER | vk::BufferUsageFlags::TRANSFER_DST,
            host,
            vk::MemoryPropertyFlags::DEVICE_LOCAL,
            "launch values and constant banks",
        )?;
        let old = std::mem::replace(&mut self.scratch, fresh);
        self.gpu.destroy_buffer(&old);
        self.scratch_generation += 1;
        Ok(())
    }

    /// Checks a launch against CUDA's and the device's limits: its kernel's name and entry, and how many
    /// dispatches its grid is split into (with the per-dispatch workgroup limits).
    pub(super) fn check_launch(&self, launch: &Launch<'_>) -> Result<CheckedLaunch> {
        let kernel = launch.kernel;
        let (ref name, entry) = *self
            .names
            .get(kernel.0 as usize)
            .ok_or(RuntimeError::UnknownKernel(kernel.0))?;
        let name = name.clone();
        let invalid = |reason: String| RuntimeError::InvalidLaunch {
            kernel: name.clone(),
            reason,
        };
        let grid = launch.grid;
        if grid.contains(&0) || grid[0] > i32::MAX as u32 || grid[1] > 65535 || grid[2] > 65535 {
            return Err(invalid(format!(
                "grid {grid:?} is outside CUDA's limits (1..=2^31-1, 1..=65535, 1..=65535)"
            )));
        }
        self.check_block(&name, launch.block)?;
        self.check_shared(entry, &name, launch.dynamic_shared_bytes)?;
        let mut max_count = self.gpu.info.limits.max_workgroup_count;
        if let Some(cap) = self.options.max_dispatch_workgroups {
            max_count = [0, 1, 2].map(|i| max_count[i].min(cap[i]).max(1));
        }
        let polls = self.entries[entry].interface.polls_other_blocks.is_some();
        let ordered = grid != [1, 1, 1]
            && match self.options.block_order {
                // GPUs run the resident blocks of a dispatch side by side, as CUDA's look-back relies on (the
                // H200 passes CUB's scans and sorts concurrently, and ordered they took over 60 s); lavapipe
                // runs one group of blocks at a time, so there a waiting block must come after its producers.
                super::BlockOrder::Auto => polls && self.gpu.info.kind == crate::device::DeviceKind::Cpu,
                super::BlockOrder::Ascending => true,
                super::BlockOrder::Concurrent => false,
            };
        let in_window = self.entries[entry].interface.shared_in_window;
        if ordered {
            // split_grid walks x fastest, then y, then z: CUDA's linear block order.
            max_count = [1, 1, 1];
        } else if in_window {
            // One window slot per workgroup of a dispatch: gl_WorkGroupID.x names it.
            max_count = [max_count[0].min(abi::SHARED_WINDOW_SLOTS), 1, 1];
        }
        let ordered = ordered || in_window;
        // A module without launch values reads no block index (a translated kernel's is always
        // `gl_WorkGroupID + workgroup_base`), so its dispatches need not tell themselves apart.
        let chunks = chunk_count(grid, max_count);
        // Banks given must exist and fit a CUDA bank.
        for &(bank, data) in launch.banks {
            if bank >= abi::CONSTANT_BANK_COUNT {
                return Err(invalid(format!(
                    "constant bank {bank} does not exist (0..{})",
                    abi::CONSTANT_BANK_COUNT
                )));
            }
            // Bytes past what the module declares are never read (unused parameters): not an error.
            if data.len() > abi::MAX_BANK_BYTES as usize {
                return Err(invalid(format!(
                    "constant bank {bank} has {} bytes; banks hold at most {}",
                    data.len(),
                    abi::MAX_BANK_BYTES
                )));
            }
        }
        Ok(CheckedLaunch { name, entry, chunks, max_count, ordered })
    }

    /// Byte offset of the fault record in the window buffer, and the printf area's capacity in words.
    pub(super) fn fault_layout(&self) -> (u64, u32) {
        let fault_offset = self.window.size - self.reserve;
        let printf_capacity = ((self.reserve / 4) as u32)
            .saturating_sub(abi::PRINTF_AREA_OFFSET + abi::printf_word::RECORDS + abi::ABORT_BLOCK_WORDS);
        (fault_offset, printf_capacity)
    }

    /// Runs a kernel to completion. An access outside the window is reported as [`RuntimeError::Fault`].
    /// Launches queued with [`Runtime::enqueue`] complete first.
    pub fn launch(&mut self, launch: &Launch<'_>) -> Result<LaunchReport> {
        self.synchronize()?;
        let kernel = launch.kernel;
        let grid = launch.grid;
        let CheckedLaunch { name, entry, chunks, max_count, ordered } = self.check_launch(launch)?;
        let shared_window = self.shared_window_words(entry, launch.dynamic_shared_bytes)?;

        let stride = self.uniform_stride;
        let lv_offset = self.entries[entry].launch_values_offset;
        self.ensure_scratch(lv_offset + chunks * stride)?;
        if self.entries[entry].set_generation != self.scratch_generation {
            self.write_descriptors(entry);
        }
        let (pipeline, pipeline_created) =
            self.pipeline(entry, launch.block, launch.dynamic_shared_bytes, &name)?;

        let (fault_offset, printf_capacity) = self.fault_layout();
        // Constant banks and launch values into scratch.
        let e = &self.entries[entry];
        let texture_pools = self.texture_pool_words();
        let window_size = self.window_backed_bytes();
        let scratch = self.scratch.bytes_mut().expect("scratch is host-visible");
        for &(bank, offset, bytes) in &e.banks {
            let dst = &mut scratch[offset as usize..(offset + bytes) as usize];
            let given = launch
                .banks
                .iter()
                .rev()
                .find(|b| b.0 == bank)
                .map(|b| b.1)
                .unwrap_or(&[]);
            let n = given.len().min(dst.len());
            dst[..n].copy_from_slice(&given[..n]);
            dst[n..].fill(0);
        }
        let fault_word = (fault_offset / 4) as u32;
        let mut values = LaunchValues {
            window_base: self.allocator.base(),
            window_size,
            fault_record_word: fault_word,
            kernel_id: kernel.0,
            printf_area_word: fault_word + abi::PRINTF_AREA_OFFSET,
            printf_capacity_words: printf_capacity,
            grid_dim: [grid[0], grid[1], grid[2], 0],
            block_dim: [launch.block[0], launch.block[1], launch.block[2], 0],
            workgroup_base: [0; 4],
            texture_pools,
            shared_window,
        };
        for (i, chunk) in split_grid(grid, max_count).enumerate() {
            values.workgroup_base = [chunk.base[0], chunk.base[1], chunk.base[2], 0];
            let at = (lv_offset + i as u64 * stride) as usize;
            scratch[at..at + std::mem::size_of::<LaunchValues>()]
                .copy_from_slice(&values.to_bytes());
        }
        if let Backing::Mapped = self.backing {
            let w = self.window.bytes_mut().expect("mapped window");
            w[fault_offset as usize..(fault_offset + FAULT_RESERVE) as usize].fill(0);
        }
        self.write_abort_word(0);
        let abort_offset = self.abort_offset();
        let staged = self.is_staged();
        let timestamps = self.timestamps;

        // The commands depend only on kernel, block shape, grid and the scratch buffer: record them once and
        // resubmit (a launch then costs the bank copies, one submit and one wait).
        if self.recorded_generation != self.scratch_generation
            || self.recorded.len() >= MAX_RECORDED
        {
            self.free_recorded();
            self.recorded_generation = self.scratch_generation;
        }
        let key = (entry, launch.block, launch.dynamic_shared_bytes, grid);
        let cb = match self.recorded.get(&key) {
            Some(&cb) => cb,
            None => {
                let e = &self.entries[entry];
                let dispatches: Vec<(u32, [u32; 3])> = split_grid(grid, max_count)
                    .enumerate()
                    .map(|(i, chunk)| ((lv_offset + i as u64 * stride) as u32, chunk.count))
                    .collect();
                let set = e.set;
                let layout = e.pipeline_layout;
                let uses_lv = e.interface.uses_launch_values;
                let window = self.window.buffer;
                let scratch_buffer = self.scratch.buffer;
                let cb = self.allocate_command_buffer()?;
                self.recorded.insert(key, cb);
                self.record(cb, vk::CommandBufferUsageFlags::empty(), |d, cb| unsafe {
                    barrier(
                        d,
                        cb,
                        vk::PipelineStageFlags::COMPUTE_SHADER
                            | vk::PipelineStageFlags::TRANSFER
                            | vk::PipelineStageFlags::HOST,
                        vk::AccessFlags::SHADER_WRITE
                            | vk::AccessFlags::TRANSFER_WRITE
                            | vk::AccessFlags::HOST_WRITE,
                        vk::PipelineStageFlags::COMPUTE_SHADER | vk::PipelineStageFlags::TRANSFER,
                        vk::AccessFlags::SHADER_READ
                            | vk::AccessFlags::SHADER_WRITE
                            | vk::AccessFlags::UNIFORM_READ
                            | vk::AccessFlags::TRANSFER_WRITE,
                    );
                    if staged {
                        d.cmd_fill_buffer(cb, window, fault_offset, FAULT_RESERVE, 0);
                        d.cmd_fill_buffer(cb, window, abort_offset, 4 * u64::from(abi::ABORT_BLOCK_WORDS), 0);
                        barrier(
                            d,
                            cb,
                            vk::PipelineStageFlags::TRANSFER,
                            vk::AccessFlags::TRANSFER_WRITE,
                            vk::PipelineStageFlags::COMPUTE_SHADER,
                            vk::AccessFlags::SHADER_READ | vk::AccessFlags::SHADER_WRITE,
                        );
                    }
                    d.cmd_bind_pipeline(cb, vk::PipelineBindPoint::COMPUTE, pipeline);
                    if timestamps != vk::QueryPool::null() {
                        d.cmd_reset_query_pool(cb, timestamps, 0, 2);
                        d.cmd_write_timestamp(
                            cb,
                            vk::PipelineStageFlags::TOP_OF_PIPE,
                            timestamps,
                            0,
                        );
                    }
                    for (k, &(offset, count)) in dispatches.iter().enumerate() {
                        if ordered && k > 0 {
                            dispatch_after_dispatch(d, cb);
                        }
                        let dynamic = [offset];
                        let offsets: &[u32] = if uses_lv { &dynamic } else { &[] };
                        d.cmd_bind_descriptor_sets(
                            cb,
                            vk::PipelineBindPoint::COMPUTE,
                            layout,
                            0,
                            &[set],
                            offsets,
                        );
                        d.cmd_dispatch(cb, count[0], count[1], count[2]);
                    }
                    if timestamps != vk::QueryPool::null() {
                        d.cmd_write_timestamp(
                            cb,
                            vk::PipelineStageFlags::BOTTOM_OF_PIPE,
                            timestamps,
                            1,
                        );
                    }
                    if staged {
                        barrier(
                            d,
                            cb,
                            vk::PipelineStageFlags::COMPUTE_SHADER,
                            vk::AccessFlags::SHADER_WRITE,
                            vk::PipelineStageFlags::TRANSFER,
                            vk::AccessFlags::TRANSFER_READ,
                        );
                        let region = vk::BufferCopy {
                            src_offset: fault_offset,
                            dst_offset: 0,
                            size: 4 * HEAD_WORDS as u64,
                        };
                        d.cmd_copy_buffer(cb, window, scratch_buffer, &[region]);
                        barrier(
                            d,
                            cb,
                            vk::PipelineStageFlags::TRANSFER,
                            vk::AccessFlags::TRANSFER_WRITE,
                            vk::PipelineStageFlags::HOST,
                            vk::AccessFlags::HOST_READ,
                        );
                    } else {
                        barrier(
                            d,
                            cb,
                            vk::PipelineStageFlags::COMPUTE_SHADER,
                            vk::AccessFlags::SHADER_WRITE,
                            vk::PipelineStageFlags::HOST,
                            vk::AccessFlags::HOST_READ,
                        );
                    }
                })?;
                cb
            }
        };
        self.submit_and_wait_launch(cb, &name)?;

        let printf_out = self.read_outcome(&name, fault_offset, printf_capacity)?;
        let kernel_time = if timestamps != vk::QueryPool::null() {
            let mut ticks = [0u64; 2];
            unsafe {
                self.gpu.device.get_query_pool_results(
                    timestamps,
                    0,
                    &mut ticks,
                    vk::QueryResultFlags::TYPE_64 | vk::QueryResultFlags::WAIT,
                )
            }
            .map_err(RuntimeError::vk("vkGetQueryPoolResults"))?;
            let mask = if self.gpu.timestamp_bits >= 64 {
                u64::MAX
            } else {
                (1u64 << self.gpu.timestamp_bits) - 1
            };
            let delta = ticks[1].wrapping_sub(ticks[0]) & mask;
            Some(Duration::from_nanos(
                (delta as f64 * f64::from(self.gpu.info.limits.timestamp_period_ns)) as u64,
            ))
        } else {
            None
        };
        Ok(LaunchReport {
            dispatches: chunks as u32,
            pipeline_created,
            kernel_time,
            printf: printf_out,
        })
    }

    /// Reads the fault record and printf area a finished launch (or batch of launches) left: the printf
    /// output, or the failure the record names (its printf output kept for
    /// [`Runtime::take_failed_launch_printf`]). `name`: the kernel to name when the record's id is unknown.
    pub(super) fn read_outcome(
        &mut self,
        name: &str,
        fault_offset: u64,
        printf_capacity: u32,
    ) -> Result<PrintfOutput> {
        let staged = self.is_staged();
        let head_bytes: Vec<u8> = if staged {
            self.scratch.bytes_mut().expect("scratch")[..4 * HEAD_WORDS].to_vec()
        } else {
            let w = self.window.bytes_mut().expect("mapped window");
            w[fault_offset as usize..fault_offset as usize + 4 * HEAD_WORDS].to_vec()
        };
        let head: Vec<u32> = head_bytes
            .chunks_exact(4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect();
        let mut words = [0u32; abi::FAULT_RECORD_WORDS as usize];
        words.copy_from_slice(&head[..abi::FAULT_RECORD_WORDS as usize]);
        let printf_out = self.read_printf(fault_offset, &head, printf_capacity)?;
        let record = FaultRecord::from_words(&words);
        if record.flag != 0 {
            self.failed_printf = printf_out;
            let kernel = self
                .names
                .get(record.kernel_id as usize)
                .map(|(n, _)| n.clone())
                .unwrap_or_else(|| {
                    format!(
                        "{name} (record names unknown kernel id {})",
                        record.kernel_id
                    )
                });
            if record.kind == abi::FAULT_KIND_TRAP {
                return Err(RuntimeError::Trap { kernel, pc: record.pc });
            }
            if record.kind == abi::FAULT_KIND_ASSERT {
                return Err(self.assertion(kernel, record.pc, &head));
            }
            if record.kind == abi::FAULT_KIND_CONTROL {
                return Err(RuntimeError::ControlFault {
                    kernel,
                    pc: record.pc,
                    target: record.address,
                    count: record.count,
                });
            }
            if record.kind == abi::FAULT_KIND_NO_PROGRESS {
                return Err(RuntimeError::NoProgress { kernel, pc: record.pc });
            }
            if record.kind == abi::FAULT_KIND_HEAP {
                return Err(RuntimeError::HeapFault {
                    kernel,
                    pc: record.pc,
                    pointer: record.address,
                    count: record.count,
                });
            }
            if record.kind == abi::FAULT_KIND_TEXTURE {
                return Err(RuntimeError::TextureFault {
                    kernel,
                    pc: record.pc,
                    handle: record.address,
                    why: texture_fault_reason(record.size),
                    count: record.count,
                });
            }
            if record.kind == abi::FAULT_KIND_SUBGROUP_LAYOUT {
                return Err(RuntimeError::SubgroupLayout { kernel });
            }
            if record.kind == abi::FAULT_KIND_LOOP_LIMIT {
                let limit = self.gpu.info.loop_iteration_limit().unwrap_or(0);
                return Err(RuntimeError::DeviceLoopLimit { kernel, pc: record.pc, limit });
            }
            if abi::fault_is_misaligned(record.kind, record.address, record.size) {
                return Err(misaligned(kernel, &record));
            }
            let space_access = match record.kind {
                abi::FAULT_KIND_SHARED_LOAD => Some(("shared", "load")),
                abi::FAULT_KIND_SHARED_STORE => Some(("shared", "store")),
                abi::FAULT_KIND_SHARED_ATOMIC => Some(("shared", "atomic")),
                abi::FAULT_KIND_LOCAL_LOAD => Some(("local", "load")),
                abi::FAULT_KIND_LOCAL_STORE => Some(("local", "store")),
                _ => None,
            };
            if let Some((space, access)) = space_access {
                return Err(RuntimeError::MemorySpaceFault {
                    kernel,
                    pc: record.pc,
                    space,
                    access,
                    offset: record.address,
                    size: record.size,
                    count: record.count,
                });
            }
            let kind = match record.kind {
                abi::FAULT_KIND_LOAD => "load".to_string(),
                abi::FAULT_KIND_STORE => "store".to_string(),
                abi::FAULT_KIND_ATOMIC => "atomic".to_string(),
                k => format!("access kind {k}"),
            };
            return Err(RuntimeError::Fault {
                kernel,
                pc: record.pc,
                address: record.address,
                kind,
                size: record.size,
                count: record.count,
            });
        }
        Ok(printf_out)
    }

    /// Printf output of the last launch that failed (a fault, trap or failed assertion): what the kernel
    /// printed before it stopped, as CUDA still flushes it. Taken: a second call returns nothing.
    pub fn take_failed_launch_printf(&mut self) -> PrintfOutput {
        std::mem::take(&mut self.failed_printf)
    }

    /// Reads and formats the printf records a launch left (`head`: the words read back at the fault record).
    fn read_printf(&mut self, fault_offset: u64, head: &[u32], capacity: u32) -> Result<PrintfOutput> {
        let area = abi::PRINTF_AREA_OFFSET as usize;
        let used = head[area + abi::printf_word::USED as usize];
        let dropped = head[area + abi::printf_word::DROPPED as usize];
        let words = used.min(capacity) as usize;
        let mut out = PrintfOutput { dropped, ..Default::default() };
        if words == 0 {
            return Ok(out);
        }
        let mut bytes = vec![0u8; 4 * words];
        self.read_records(fault_offset + 4 * HEAD_WORDS as u64, &mut bytes)?;
        let (records, problem) = printf::parse_records(&bytes);
        out.problem = problem;
        // Records repeat their format strings: read each address once per launch.
        let mut seen: std::collections::HashMap<u64, std::result::Result<Vec<u8>, String>> = Default::default();
        let mut strings =
            |address: u64| seen.entry(address).or_insert_with(|| self.read_guest_string(address)).clone();
        for r in &records {
            let text = printf::format_record(r, &mut strings);
            out.records.push(PrintfRecord {
                pc: r.pc,
                block: r.block,
                thread: r.thread,
                format_address: r.format,
                text,
            });
        }
        Ok(out)
    }

    /// A NUL-terminated string of guest memory, at most [`printf::MAX_STRING_BYTES`] long.
    fn read_guest_string(&mut self, address: u64) -> std::result::Result<Vec<u8>, String> {
        let (base, size) = (self.allocator.base(), self.window_backed_bytes());
        if address < base || address - base >= size {
            return Err("outside the window".into());
        }
        let mut offset = address - base;
        let mut out = Vec::new();
        let mut chunk = [0u8; 256];
        while out.len() < printf::MAX_STRING_BYTES {
            let n = (size - offset).min(chunk.len() as u64) as usize;
            if n == 0 {
                return Err("not terminated before the end of the window".into());
            }
            self.read_window(offset, &mut chunk[..n]).map_err(|e| e.to_string())?;
            match chunk[..n].iter().position(|&b| b == 0) {
                Some(end) => {
                    out.extend_from_slice(&chunk[..end]);
                    return Ok(out);
                }
                None => out.extend_from_slice(&chunk[..n]),
            }
            offset += n as u64;
        }
        Err(format!("not terminated within {} bytes", printf::MAX_STRING_BYTES))
    }

    /// The error of a failed `assert`, from the assert record in `head`.
    fn assertion(&mut self, kernel: String, pc: u32, head: &[u32]) -> RuntimeError {
        let a = |k: u32| head[(abi::ASSERT_RECORD_OFFSET + k) as usize];
        let addr = |k: u32| u64::from(a(k)) | (u64::from(a(k + 1)) << 32);
        use abi::assert_word as w;
        let mut text = |address: u64| match self.read_guest_string(address) {
            Ok(s) => String::from_utf8_lossy(&s).into_owned(),
            Err(why) => format!("<string at {address:#x}: {why}>"),
        };
        let recorded = a(w::FLAG) != 0;
        RuntimeError::AssertionFailed(Box::new(crate::error::AssertionFailure {
            kernel,
            pc: if recorded { a(w::PC) } else { pc },
            message: text(addr(w::MESSAGE)),
            file: text(addr(w::FILE)),
            line: a(w::LINE),
            function: text(addr(w::FUNCTION)),
            block: [a(w::CTAID), a(w::CTAID + 1), a(w::CTAID + 2)],
            thread: [a(w::TID), a(w::TID + 1), a(w::TID + 2)],
        }))
    }
}

/// The error of a fault record of a misaligned access ([`abi::fault_is_misaligned`]).
fn misaligned(kernel: String, record: &FaultRecord) -> RuntimeError {
    let (space, access) = match record.kind {
        abi::FAULT_KIND_LOAD => ("address", "load"),
        abi::FAULT_KIND_STORE => ("address", "store"),
        abi::FAULT_KIND_SHARED_LOAD => ("shared-memory offset", "load"),
        abi::FAULT_KIND_SHARED_STORE => ("shared-memory offset", "store"),
        abi::FAULT_KIND_SHARED_ATOMIC => ("shared-memory offset", "atomic"),
        abi::FAULT_KIND_LOCAL_LOAD => ("local-memory offset", "load"),
        abi::FAULT_KIND_LOCAL_STORE => ("local-memory offset", "store"),
        abi::FAULT_KIND_ATOMIC => ("address", "atomic"),
        _ => ("address", "access"),
    };
    RuntimeError::Misaligned {
        kernel,
        pc: record.pc,
        space,
        access,
        address: record.address,
        size: record.size,
        count: record.count,
    }
}

pub(super) unsafe fn barrier(
    d: &ash::Device,
    cb: vk::CommandBuffer,
    src_stage: vk::PipelineStageFlags,
    src: vk::AccessFlags,
    dst_stage: vk::PipelineStageFlags,
    dst: vk::AccessFlags,
) {
    let m = [vk::MemoryBarrier::default()
        .src_access_mask(src)
        .dst_access_mask(dst)];
    d.cmd_pipeline_barrier(
        cb,
        src_stage,
        dst_stage,
        vk::DependencyFlags::empty(),
        &m,
        &[],
        &[],
    );
}

/// Between two dispatches of an ordered launch: the later one's blocks start after the earlier one's
/// finished and see its writes (an ordered launch's block k only waits on blocks before k).
pub(super) unsafe fn dispatch_after_dispatch(d: &ash::Device, cb: vk::CommandBuffer) {
    let shader = vk::PipelineStageFlags::COMPUTE_SHADER;
    let access = vk::AccessFlags::SHADER_READ | vk::AccessFlags::SHADER_WRITE;
    barrier(d, cb, shader, vk::AccessFlags::SHADER_WRITE, shader, access);
}

/// The texture lowering's reason codes (`translator/src/lower/texture/desc.rs`, `reason`).
fn texture_fault_reason(code: u32) -> &'static str {
    match code {
        1 => "texel format not sampled by the translated code (BC2-BC7 or packed layouts)",
        2 => "data type not sampled (fp16-forced normalized or non-32-bit float components)",
        3 => "mipmapped texture (only level 0 is sampled yet)",
        4 => "colour-key or reserved header version",
        5 => "surface access outside the surface (cudaBoundaryModeTrap)",
        6 => "sRGB decoding not recorded on silicon (filtered, gathered or fetched sRGB texels)",
        7 => "block-compressed form not recorded on silicon (BC1 filtered or gathered, non-UNORM BC1)",
        _ => "unknown reason",
    }
}

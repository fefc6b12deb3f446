//! [`Runtime`]: one instance, device, window and pipeline set, reused across launches.

use std::collections::HashMap;
use std::path::PathBuf;
use std::time::Duration;

use ash::vk;
use sassport_translator::abi::{self, DeviceProfile, LaunchValues};

use crate::alloc::WindowAllocator;
use crate::device::{choose_device, DeviceInfo, DeviceSelector, Instance};
use crate::disk_cache::{self, PipelineCacheLocation};
use crate::error::{Result, RuntimeError};
use crate::gpu::{Buffer, Gpu};
use crate::reflect::ModuleInterface;

mod batch;
mod chunks;
mod kernels;
mod launch;
mod shared_window;
mod staging;
mod textures;
mod timeout;

pub use batch::{Completed, QueuedLaunch, TimestampId};
pub use chunks::{default_window_bytes, WINDOW_BYTES_ENV};
pub use launch::{Launch, LaunchReport};
pub use textures::{HostTexture, TextureMemory};

/// Largest window chosen when [`RuntimeOptions::window_bytes`] is `None`.
pub const DEFAULT_MAX_WINDOW_BYTES: u64 = 256 << 20;

/// Bytes after the window that hold the fault record, the assert record and the printf area's counters;
/// zeroed before every launch. The rest of the printf area follows.
const FAULT_RESERVE: u64 = abi::FAULT_RECORD_ALIGNMENT;
/// Bytes at the end of the reserved block for the abort word (`abi::ABORT_BLOCK_WORDS`).
const ABORT_RESERVE: u64 = 4 * abi::ABORT_BLOCK_WORDS as u64;
/// Default of [`RuntimeOptions::launch_timeout`].
pub const DEFAULT_LAUNCH_TIMEOUT: Duration = Duration::from_secs(10);
/// What the default launch timeout becomes on a CPU device (lavapipe): its driver compiles a shader during the
/// first launch, on the same cores as the kernel and everything else (corpus kernels took 20-35 s on two
/// loaded cores), and it ends never-ending loops by its loop limit (docs/device-quirks.md) long before.
pub const DEFAULT_CPU_LAUNCH_TIMEOUT: Duration = Duration::from_secs(300);

/// Default size of the printf area after the fault block (CUDA's default `cudaLimitPrintfFifoSize` is 1 MiB).
pub const DEFAULT_PRINTF_BUFFER_BYTES: u64 = 1 << 20;

/// Size of the staging buffer used when the window is not mapped: two halves copied in turn.
const STAGING_BYTES: u64 = 2 * staging::CHUNK_BYTES;

/// Start of the per-kernel constant banks in the scratch buffer; bytes before it receive the fault record
/// copied back in staged mode.
const SCRATCH_BANKS_START: u64 = 256;

/// How the window's memory is reached from the host.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum MemoryMode {
    /// Map the window directly where the device has large host-visible device-local memory and is not a
    /// discrete GPU (lavapipe, integrated GPUs), else keep it device-local and copy through a staging buffer
    /// (a discrete GPU's host-visible device-local memory is read across the bus uncached).
    #[default]
    Auto,
    /// Always copy through a staging buffer.
    Staged,
}

/// In which order a launch's blocks run (`docs/block-order.md`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum BlockOrder {
    /// On CPU devices (lavapipe), kernels that wait for other blocks' writes (the module declares
    /// [`abi::SPEC_ID_POLLS_OTHER_BLOCKS`]) run one block per dispatch in ascending order, with a barrier
    /// between dispatches; every other kernel's blocks, and every kernel's on GPUs, run concurrently in as
    /// few dispatches as fit.
    #[default]
    Auto,
    /// Every launch of more than one block runs one block at a time in ascending order (slow; for kernels
    /// whose waits the translator does not recognise, and for checking that a kernel's result does not
    /// depend on the order).
    Ascending,
    /// Never order blocks: a kernel waiting for another block may then spin until a loop limit or the
    /// launch timeout stops it.
    Concurrent,
}

impl std::str::FromStr for BlockOrder {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Self, String> {
        match s {
            "auto" => Ok(BlockOrder::Auto),
            "ascending" => Ok(BlockOrder::Ascending),
            "concurrent" => Ok(BlockOrder::Concurrent),
            _ => Err(format!("block order {s:?} is not one of auto, ascending, concurrent")),
        }
    }
}

/// How a [`Runtime`] is set up.
#[derive(Clone, Debug)]
pub struct RuntimeOptions {
    /// Which device to open.
    pub device: DeviceSelector,
    /// Window size in bytes; `None`: [`WINDOW_BYTES_ENV`] if set, else on a discrete GPU 90% of its
    /// device-local memory, else the device's storage-buffer range (less the fault record), at most
    /// [`DEFAULT_MAX_WINDOW_BYTES`]. A window larger than one storage buffer is made of chunks
    /// (docs/abi.md), backed as allocations reach them.
    pub window_bytes: Option<u64>,
    /// Guest address of the window's first byte (aligned to [`abi::ALLOCATION_ALIGNMENT`]).
    pub window_base: u64,
    /// Host access to the window.
    pub memory: MemoryMode,
    /// Where the `VkPipelineCache` is persisted.
    pub pipeline_cache: PipelineCacheLocation,
    /// Version string in the cache file name; change it when generated code changes meaning.
    pub cache_version: String,
    /// Give up on a pipeline whose driver compilation takes longer (the compile keeps running on a helper
    /// thread, and dropping the runtime waits for it).
    pub pipeline_timeout: Option<Duration>,
    /// Most workgroups per dimension in one dispatch, below the device limit: keeps single dispatches short
    /// (display drivers reset GPUs whose commands run too long) and lets tests exercise grid splitting on
    /// devices with large limits. `None`: the device limit.
    pub max_dispatch_workgroups: Option<[u32; 3]>,
    /// Measure each launch's GPU time with timestamp queries ([`LaunchReport::kernel_time`]); costs a few
    /// microseconds per launch. Ignored on queues without timestamps.
    pub kernel_timing: bool,
    /// Run under the Khronos validation layer where it is installed and collect its messages
    /// ([`Runtime::validation_messages`]); for tests and debugging, slow.
    pub validation: bool,
    /// Bytes of device `printf` records a launch may leave (rounded up to 256); records beyond are dropped
    /// and counted ([`crate::PrintfOutput::dropped`]).
    pub printf_buffer_bytes: u64,
    /// Let kernels with warp instructions run their warps as 32-wide subgroups where the device can; `false`
    /// hides the device's subgroup operations from [`Runtime::profile`], so the translator runs warps in
    /// turns (for comparisons, or a driver whose subgroups misbehave).
    pub warp_subgroups: bool,
    /// Bytes of the device heap that kernels' `malloc`/`new` draw from (CUDA's `cudaLimitMallocHeapSize`,
    /// default 8 MiB; rounded up to 16). Placed in the window when the first cubin that calls `malloc` or
    /// `free` is loaded; [`Runtime::set_malloc_heap_size`] changes it until then.
    pub heap_bytes: u64,
    /// Longest a launch may run: then the runtime raises the abort word that translated loops poll and the
    /// launch fails with [`RuntimeError::LaunchTimeout`]. `None`: wait for ever. Default 10 s
    /// ([`DEFAULT_LAUNCH_TIMEOUT`]; on a CPU device that value means [`DEFAULT_CPU_LAUNCH_TIMEOUT`]).
    pub launch_timeout: Option<Duration>,
    /// Device features to do without, as if the device lacked them (`--without float64,...`): the device is
    /// opened without them, modules needing them are refused, and the translator emulates what it can
    /// (soft double for `float64`, warps in turns for `subgroups-32`). Empty by default.
    pub without: abi::Features,
    /// In which order blocks run ([`BlockOrder::Auto`] by default).
    pub block_order: BlockOrder,
}

impl Default for RuntimeOptions {
    fn default() -> Self {
        RuntimeOptions {
            device: DeviceSelector::Default,
            window_bytes: None,
            window_base: abi::DEFAULT_WINDOW_BASE,
            memory: MemoryMode::Auto,
            pipeline_cache: PipelineCacheLocation::UserCache,
            cache_version: concat!("runtime-", env!("CARGO_PKG_VERSION")).into(),
            pipeline_timeout: None,
            max_dispatch_workgroups: None,
            kernel_timing: false,
            validation: false,
            printf_buffer_bytes: DEFAULT_PRINTF_BUFFER_BYTES,
            warp_subgroups: true,
            heap_bytes: abi::DEFAULT_HEAP_BYTES,
            launch_timeout: Some(DEFAULT_LAUNCH_TIMEOUT),
            without: abi::Features::NONE,
            block_order: BlockOrder::Auto,
        }
    }
}

/// A loaded kernel. Only valid with the [`Runtime`] that issued it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct KernelId(u32);

impl KernelId {
    /// The id written into [`LaunchValues::kernel_id`] and reported back in faults.
    pub fn raw(self) -> u32 {
        self.0
    }

    /// The handle for a raw id (e.g. one stored by an emulator); ids the runtime never issued are refused
    /// with [`RuntimeError::UnknownKernel`].
    pub fn from_raw(raw: u32) -> KernelId {
        KernelId(raw)
    }
}

enum Backing {
    Mapped,
    Staged(Buffer),
}

struct KernelEntry {
    words: Vec<u32>,
    interface: ModuleInterface,
    module: vk::ShaderModule,
    set_layout: vk::DescriptorSetLayout,
    pipeline_layout: vk::PipelineLayout,
    pool: vk::DescriptorPool,
    set: vk::DescriptorSet,
    /// Scratch generation the descriptor set was written for.
    set_generation: u64,
    /// (bank, scratch offset, bytes) for each bank the module declares.
    banks: Vec<(u32, u64, u64)>,
    /// Scratch offset of the first launch-values copy.
    launch_values_offset: u64,
    pipelines: HashMap<([u32; 3], u32), vk::Pipeline>,
    /// The module runs warps as subgroups and the device's default subgroup size is not 32: pipelines ask
    /// for 32 with subgroup-size control.
    require_warp_subgroups: bool,
}

/// One Vulkan device with its global-memory window, loaded kernels and their pipelines.
///
/// Launches are synchronous: [`Runtime::launch`] returns when the kernel has finished and its fault record
/// has been read. Not `Sync`; wrap it in a mutex to share it.
pub struct Runtime {
    entries: Vec<KernelEntry>,
    /// KernelId -> (name, entry index): several names may share one module.
    names: Vec<(String, usize)>,
    by_hash: HashMap<u64, Vec<usize>>,
    allocator: WindowAllocator,
    /// The window buffer: guest bytes then the records, or (chunked) the records alone.
    window: Buffer,
    /// Guest memory of a window larger than one storage buffer.
    chunked: Option<chunks::ChunkedWindow>,
    backing: Backing,
    scratch: Buffer,
    scratch_generation: u64,
    command_pool: vk::CommandPool,
    command_buffer: vk::CommandBuffer,
    /// Recorded launches by (kernel entry, block, dynamic shared bytes, grid), valid for one scratch buffer.
    recorded: HashMap<(usize, [u32; 3], u32, [u32; 3]), vk::CommandBuffer>,
    recorded_generation: u64,
    /// Guest addresses of the texture-header and sampler pools launches read texture handles from.
    texture_pools: [u64; 2],
    fence: vk::Fence,
    /// Command buffers and fences of the two staging halves' copies (`staging`).
    transfer: [staging::TransferSlot; 2],
    timestamps: vk::QueryPool,
    /// The kernel of a launch that did not stop when asked ([`RuntimeError::LaunchHung`]): the queue may
    /// still be running it, so every later submission is refused ([`RuntimeError::DeviceUnusable`]).
    hung: Option<String>,
    pipeline_cache: vk::PipelineCache,
    cache_path: Option<PathBuf>,
    abandoned_compiles: Vec<std::thread::JoinHandle<()>>,
    pipelines_created: u64,
    uniform_stride: u64,
    options: RuntimeOptions,
    measured: abi::MeasuredFloat,
    /// Bytes reserved after the window: the fault block and the printf area.
    reserve: u64,
    /// Printf output of the last launch that failed (faults, traps, assertions).
    failed_printf: crate::PrintfOutput,
    gpu: Gpu,
    /// The device heap: its header at the window's start, its arena once placed.
    pub(crate) heap: crate::heap::DeviceHeap,
    /// Slots of window-backed shared memory, once a kernel needed them.
    shared_window: shared_window::SharedWindow,
    /// Launches queued with [`Runtime::enqueue`].
    batches: batch::Batches,
}

impl Runtime {
    /// Opens the device `options.device` names and creates the window and caches.
    pub fn new(options: RuntimeOptions) -> Result<Runtime> {
        let instance = Instance::with_validation(options.validation)?;
        let pds = instance.physical_devices()?;
        let infos: Vec<DeviceInfo> = pds
            .iter()
            .enumerate()
            .map(|(i, &pd)| instance.describe(i, pd))
            .collect();
        let mut info = choose_device(&infos, &options.device)?.clone();
        info.features = info.features.without(options.without);
        let pd = pds[info.index];
        let gpu = Gpu::open(instance, pd, info)?;
        Self::with_gpu(gpu, options)
    }

    fn with_gpu(gpu: Gpu, mut options: RuntimeOptions) -> Result<Runtime> {
        if options.launch_timeout == Some(DEFAULT_LAUNCH_TIMEOUT) && gpu.info.kind == crate::device::DeviceKind::Cpu {
            options.launch_timeout = Some(DEFAULT_CPU_LAUNCH_TIMEOUT);
        }
        let info = &gpu.info;
        let limits = &info.limits;
        let reserve = FAULT_RESERVE + options.printf_buffer_bytes.min(1 << 30).next_multiple_of(FAULT_RESERVE) + ABORT_RESERVE;
        let plan = chunks::plan(&gpu, &options, reserve)?;
        let window_bytes = plan.bytes;
        if options.window_base % abi::ALLOCATION_ALIGNMENT != 0
            || options.window_base.checked_add(window_bytes).is_none()
        {
            return Err(RuntimeError::OutOfWindow {
                address: options.window_base,
                len: window_bytes,
                base: options.window_base,
                end: options.window_base.wrapping_add(window_bytes),
            });
        }
        // Chunked: the window buffer holds the chunk-address table and the records; the chunks are mapped if
        // one chunk could be.
        let total = plan.chunks.map_or(window_bytes, |c| c.table_bytes()) + reserve;
        let mappable = plan.chunks.map_or(total, |c| c.chunk_bytes());
        let usage = vk::BufferUsageFlags::STORAGE_BUFFER
            | vk::BufferUsageFlags::TRANSFER_SRC
            | vk::BufferUsageFlags::TRANSFER_DST;
        let host = vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT;
        let local = vk::MemoryPropertyFlags::DEVICE_LOCAL;
        let mapped = options.memory == MemoryMode::Auto
            && gpu.info.kind != crate::device::DeviceKind::Discrete
            && gpu.has_mappable_device_local(mappable);
        let window = if mapped {
            gpu.create_buffer(
                total,
                usage,
                local | host,
                vk::MemoryPropertyFlags::empty(),
                "the global-memory window",
            )?
        } else {
            gpu.create_buffer(
                total,
                usage,
                vk::MemoryPropertyFlags::empty(),
                local,
                "the global-memory window",
            )?
        };
        let mut cleanup = vec![window];
        let backing = if mapped && cleanup[0].mapped.is_some() {
            Backing::Mapped
        } else {
            match gpu.create_buffer(
                STAGING_BYTES,
                vk::BufferUsageFlags::TRANSFER_SRC | vk::BufferUsageFlags::TRANSFER_DST,
                host,
                vk::MemoryPropertyFlags::HOST_CACHED,
                "the staging buffer",
            ) {
                Ok(b) => Backing::Staged(b),
                Err(e) => {
                    gpu.destroy_buffer(&cleanup[0]);
                    return Err(e);
                }
            }
        };
        let window = cleanup.pop().expect("window buffer");
        let scratch = match gpu.create_buffer(
            1 << 20,
            vk::BufferUsageFlags::UNIFORM_BUFFER | vk::BufferUsageFlags::TRANSFER_DST,
            host,
            local,
            "launch values and constant banks",
        ) {
            Ok(b) => b,
            Err(e) => {
                gpu.destroy_buffer(&window);
                if let Backing::Staged(s) = &backing {
                    gpu.destroy_buffer(s);
                }
                return Err(e);
            }
        };
        let uniform_stride = (std::mem::size_of::<LaunchValues>() as u64)
            .next_multiple_of(limits.min_uniform_buffer_offset_alignment.max(16));
        // From here on, `Runtime::drop` releases whatever was created (null handles are skipped).
        let mut rt = Runtime {
            entries: Vec::new(),
            names: Vec::new(),
            by_hash: HashMap::new(),
            allocator: WindowAllocator::new(options.window_base, window_bytes),
            chunked: plan.chunks.map(|form| chunks::ChunkedWindow { form, backed: Vec::new(), mapped: matches!(backing, Backing::Mapped) }),
            window,
            backing,
            scratch,
            scratch_generation: 0,
            command_pool: vk::CommandPool::null(),
            command_buffer: vk::CommandBuffer::null(),
            recorded: HashMap::new(),
            recorded_generation: 0,
            texture_pools: [0; 2],
            fence: vk::Fence::null(),
            transfer: [staging::TransferSlot::default(); 2],
            timestamps: vk::QueryPool::null(),
            hung: None,
            pipeline_cache: vk::PipelineCache::null(),
            cache_path: None,
            abandoned_compiles: Vec::new(),
            pipelines_created: 0,
            uniform_stride,
            options,
            measured: Default::default(),
            reserve,
            failed_printf: Default::default(),
            gpu,
            heap: Default::default(),
            shared_window: Default::default(),
            batches: Default::default(),
        };
        let d = &rt.gpu.device;
        let pool_info = vk::CommandPoolCreateInfo::default()
            .queue_family_index(rt.gpu.queue_family)
            .flags(vk::CommandPoolCreateFlags::RESET_COMMAND_BUFFER);
        rt.command_pool = unsafe { d.create_command_pool(&pool_info, None) }
            .map_err(RuntimeError::vk("vkCreateCommandPool"))?;
        let alloc = vk::CommandBufferAllocateInfo::default()
            .command_pool(rt.command_pool)
            .level(vk::CommandBufferLevel::PRIMARY)
            .command_buffer_count(1);
        rt.command_buffer = unsafe { d.allocate_command_buffers(&alloc) }
            .map_err(RuntimeError::vk("vkAllocateCommandBuffers"))?[0];
        rt.fence = unsafe { d.create_fence(&vk::FenceCreateInfo::default(), None) }
            .map_err(RuntimeError::vk("vkCreateFence"))?;
        if rt.options.kernel_timing && rt.gpu.timestamp_bits > 0 {
            let info = vk::QueryPoolCreateInfo::default()
                .query_type(vk::QueryType::TIMESTAMP)
                .query_count(2);
            rt.timestamps = unsafe { d.create_query_pool(&info, None) }
                .map_err(RuntimeError::vk("vkCreateQueryPool"))?;
        }
        rt.cache_path = rt
            .options
            .pipeline_cache
            .dir()
            .map(|dir| disk_cache::cache_file(&dir, &rt.gpu.info, &rt.options.cache_version));
        let initial = rt
            .cache_path
            .as_deref()
            .map(|p| disk_cache::load(p, &rt.gpu.info, &rt.options.cache_version))
            .unwrap_or_default();
        let cache_info = vk::PipelineCacheCreateInfo::default().initial_data(&initial);
        rt.pipeline_cache = match unsafe { d.create_pipeline_cache(&cache_info, None) } {
            Ok(c) => c,
            // Data the driver refuses (verified, so the driver's own rules) is not fatal: start empty.
            Err(e) => {
                if let Some(p) = &rt.cache_path {
                    disk_cache::rejected(
                        p,
                        &initial,
                        &crate::cache_entry::CacheEntryError::Payload(format!(
                            "vkCreatePipelineCache refused it: {e}"
                        )),
                    );
                }
                unsafe { d.create_pipeline_cache(&vk::PipelineCacheCreateInfo::default(), None) }
                    .map_err(RuntimeError::vk("vkCreatePipelineCache"))?
            }
        };
        if rt.is_staged() {
            rt.create_transfer_slots()?;
        }
        rt.reserve_heap_header()?;
        Ok(rt)
    }

    /// Whether the validation layer is active ([`RuntimeOptions::validation`] and the layer installed).
    pub fn validation_active(&self) -> bool {
        self.gpu.instance.validation.is_some()
    }

    /// Takes the validation-layer errors and warnings collected so far (empty without validation).
    pub fn validation_messages(&self) -> Vec<String> {
        match &self.gpu.instance.validation {
            Some((_, _, log)) => log
                .lock()
                .map(|mut v| std::mem::take(&mut *v))
                .unwrap_or_default(),
            None => Vec::new(),
        }
    }

    /// The device in use.
    pub fn device(&self) -> &DeviceInfo {
        &self.gpu.info
    }

    /// What the device can do, for the translator; includes the measured float behaviour once
    /// [`Runtime::measure_float`] has run.
    pub fn profile(&self) -> DeviceProfile {
        let device = self.gpu.info.profile();
        // What the device (or the `without` option, already applied to its features) lacks, for the translator.
        let mask = self.gpu.info.features.lacking().union(self.options.without);
        DeviceProfile {
            measured: self.measured,
            window_chunks: self.window_chunks(),
            subgroup_operations: if self.options.warp_subgroups {
                device.subgroup_operations
            } else {
                0
            },
            ..device
        }
        .without_features(mask)
    }

    pub(crate) fn set_measured(&mut self, m: abi::MeasuredFloat) {
        self.measured = m;
    }

    pub(crate) fn measured(&self) -> abi::MeasuredFloat {
        self.measured
    }

    /// How the runtime was set up.
    pub(crate) fn options(&self) -> &RuntimeOptions {
        &self.options
    }

    /// Records a new device-heap size (before the heap is placed; `crate::heap`).
    pub(crate) fn set_heap_option(&mut self, bytes: u64) {
        self.options.heap_bytes = bytes;
    }

    /// The directory of the on-disk caches, if any.
    pub(crate) fn cache_dir(&self) -> Option<PathBuf> {
        self.options.pipeline_cache.dir()
    }

    /// Guest address of the window's first byte.
    pub fn window_base(&self) -> u64 {
        self.allocator.base()
    }

    /// Window size in bytes.
    pub fn window_size(&self) -> u64 {
        self.allocator.size()
    }

    /// Bytes of the window not allocated (what `cuMemGetInfo` reports as free).
    pub fn window_free_bytes(&self) -> u64 {
        self.allocator.free_bytes()
    }

    /// Whether the window is written and read through a staging buffer.
    pub fn is_staged(&self) -> bool {
        matches!(self.backing, Backing::Staged(_))
    }

    /// Pipelines created by the driver so far (cache misses of the in-memory pipeline set).
    pub fn pipelines_created(&self) -> u64 {
        self.pipelines_created
    }

    /// Path of the on-disk pipeline cache, if one is used.
    pub fn pipeline_cache_path(&self) -> Option<&std::path::Path> {
        self.cache_path.as_deref()
    }

    /// Allocates `len` bytes of the window; returns its guest address (aligned to 256). In a chunked window
    /// the chunks the allocation reaches are backed now (device memory runs out here, not in a kernel).
    pub fn alloc(&mut self, len: u64) -> Result<u64> {
        let address = self.allocator.alloc(len)?;
        let end = address - self.allocator.base() + len.max(1);
        if let Err(e) = self.back_window(end) {
            let _ = self.allocator.free(address);
            return Err(e);
        }
        Ok(address)
    }

    /// Frees an allocation made by [`Runtime::alloc`].
    pub fn free(&mut self, address: u64) -> Result<()> {
        self.allocator.free(address)
    }

    /// Copies `data` to guest address `address`; the range must lie within one live allocation. Queued
    /// launches complete first.
    pub fn upload(&mut self, address: u64, data: &[u8]) -> Result<()> {
        self.synchronize()?;
        let offset = self.allocator.check_range(address, data.len() as u64)?;
        self.write_window(offset, data)
    }

    /// Copies guest memory at `address` into `out`; the range must lie within one live allocation. Queued
    /// launches complete first.
    pub fn download(&mut self, address: u64, out: &mut [u8]) -> Result<()> {
        self.synchronize()?;
        let offset = self.allocator.check_range(address, out.len() as u64)?;
        self.read_window(offset, out)
    }

    /// Copies guest memory that no queued launch writes (constant banks: kernels cannot write them) into
    /// `out` without waiting for queued launches where the window is mapped.
    pub fn download_unqueued(&mut self, address: u64, out: &mut [u8]) -> Result<()> {
        if self.is_staged() {
            return self.download(address, out);
        }
        let offset = self.allocator.check_range(address, out.len() as u64)?;
        self.read_window(offset, out)
    }

    fn write_window(&mut self, offset: u64, data: &[u8]) -> Result<()> {
        if self.chunked.is_some() {
            return self.write_chunks(offset, data);
        }
        match &mut self.backing {
            Backing::Mapped => {
                let bytes = self.window.bytes_mut().expect("mapped window");
                bytes[offset as usize..offset as usize + data.len()].copy_from_slice(data);
                Ok(())
            }
            Backing::Staged(_) => self.write_staged(offset, data, false),
        }
    }

    fn read_window(&mut self, offset: u64, out: &mut [u8]) -> Result<()> {
        if self.chunked.is_some() {
            return self.read_chunks(offset, out);
        }
        self.read_buffer(offset, out)
    }

    /// Writes the runtime's records (or a chunked window's address table) at byte `offset` of the window
    /// buffer. Nothing may run.
    fn write_records(&mut self, offset: u64, data: &[u8]) -> Result<()> {
        match &mut self.backing {
            Backing::Mapped => {
                let bytes = self.window.bytes_mut().expect("mapped window");
                bytes[offset as usize..offset as usize + data.len()].copy_from_slice(data);
                Ok(())
            }
            Backing::Staged(_) => self.write_staged(offset, data, true),
        }
    }

    /// Reads the runtime's records at byte `offset` of the window buffer (after the guest bytes, or the
    /// records buffer of a chunked window).
    fn read_records(&mut self, offset: u64, out: &mut [u8]) -> Result<()> {
        self.read_buffer(offset, out)
    }

    fn read_buffer(&mut self, offset: u64, out: &mut [u8]) -> Result<()> {
        match &mut self.backing {
            Backing::Mapped => {
                let bytes = self.window.bytes_mut().expect("mapped window");
                out.copy_from_slice(&bytes[offset as usize..offset as usize + out.len()]);
                Ok(())
            }
            Backing::Staged(_) => self.read_staged(offset, out, true),
        }
    }

    /// Records `record` into the shared command buffer, submits it and waits for it.
    fn submit(&mut self, record: impl FnOnce(&ash::Device, vk::CommandBuffer)) -> Result<()> {
        let cb = self.command_buffer;
        self.record(cb, vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT, record)?;
        self.submit_and_wait(cb)
    }

    /// Resets `cb` and records `record` into it.
    fn record(
        &self,
        cb: vk::CommandBuffer,
        usage: vk::CommandBufferUsageFlags,
        record: impl FnOnce(&ash::Device, vk::CommandBuffer),
    ) -> Result<()> {
        let d = &self.gpu.device;
        unsafe {
            d.reset_command_buffer(cb, vk::CommandBufferResetFlags::empty())
                .map_err(RuntimeError::vk("vkResetCommandBuffer"))?;
            let begin = vk::CommandBufferBeginInfo::default().flags(usage);
            d.begin_command_buffer(cb, &begin)
                .map_err(RuntimeError::vk("vkBeginCommandBuffer"))?;
            record(d, cb);
            d.end_command_buffer(cb)
                .map_err(RuntimeError::vk("vkEndCommandBuffer"))?;
        }
        Ok(())
    }

    /// Submits a recorded command buffer and waits for it.
    fn submit_and_wait(&self, cb: vk::CommandBuffer) -> Result<()> {
        self.check_usable()?;
        let d = &self.gpu.device;
        let cbs = [cb];
        let submit = vk::SubmitInfo::default().command_buffers(&cbs);
        unsafe {
            d.queue_submit(self.gpu.queue, &[submit], self.fence)
                .map_err(RuntimeError::vk("vkQueueSubmit"))?;
            d.wait_for_fences(&[self.fence], true, u64::MAX)
                .map_err(RuntimeError::vk("vkWaitForFences"))?;
            d.reset_fences(&[self.fence])
                .map_err(RuntimeError::vk("vkResetFences"))?;
        }
        Ok(())
    }

    /// A fresh primary command buffer from the runtime's pool.
    fn allocate_command_buffer(&self) -> Result<vk::CommandBuffer> {
        let alloc = vk::CommandBufferAllocateInfo::default()
            .command_pool(self.command_pool)
            .level(vk::CommandBufferLevel::PRIMARY)
            .command_buffer_count(1);
        unsafe { self.gpu.device.allocate_command_buffers(&alloc) }
            .map_err(RuntimeError::vk("vkAllocateCommandBuffers"))
            .map(|v| v[0])
    }

    /// Frees every recorded launch (no submission is pending: launches wait for completion).
    fn free_recorded(&mut self) {
        let cbs: Vec<vk::CommandBuffer> = self.recorded.drain().map(|(_, cb)| cb).collect();
        if !cbs.is_empty() {
            unsafe {
                self.gpu
                    .device
                    .free_command_buffers(self.command_pool, &cbs)
            };
        }
    }

    /// Writes the `VkPipelineCache` to its file, sealed with its key and hash (also done when the runtime is
    /// dropped). Returns the path, or `None` when the disk cache is disabled or its directory cannot be
    /// written (reported once, see [`crate::cache_warnings`]).
    pub fn save_pipeline_cache(&self) -> Result<Option<PathBuf>> {
        let Some(path) = &self.cache_path else {
            return Ok(None);
        };
        let data = unsafe { self.gpu.device.get_pipeline_cache_data(self.pipeline_cache) }
            .map_err(RuntimeError::vk("vkGetPipelineCacheData"))?;
        let sealed = disk_cache::seal_pipeline_cache(&data, &self.gpu.info, &self.options.cache_version);
        Ok(disk_cache::store_or_warn(path, &sealed).then(|| path.clone()))
    }
}

impl Drop for Runtime {
    fn drop(&mut self) {
        for h in self.abandoned_compiles.drain(..) {
            let _ = h.join();
        }
        let _ = self.save_pipeline_cache();
        unsafe {
            let _ = self.gpu.device.device_wait_idle();
        }
        self.destroy_batches();
        for e in &self.entries {
            self.destroy_entry(e);
        }
        let d = &self.gpu.device;
        unsafe {
            d.destroy_pipeline_cache(self.pipeline_cache, None);
            d.destroy_fence(self.fence, None);
        }
        self.destroy_transfer_slots();
        let d = &self.gpu.device;
        unsafe {
            d.destroy_query_pool(self.timestamps, None);
            d.destroy_command_pool(self.command_pool, None);
        }
        self.destroy_chunks();
        self.gpu.destroy_buffer(&self.window);
        self.gpu.destroy_buffer(&self.scratch);
        if let Backing::Staged(s) = &self.backing {
            self.gpu.destroy_buffer(s);
        }
    }
}

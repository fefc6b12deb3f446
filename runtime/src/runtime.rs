//! [`Runtime`]: one instance, device, window and pipeline set, reused across launches.

use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::path::PathBuf;
use std::sync::mpsc;
use std::time::Duration;

use ash::vk;
use sassport_translator::abi::{self, DeviceProfile, FaultRecord, LaunchValues};

use crate::alloc::WindowAllocator;
use crate::device::{choose_device, DeviceInfo, DeviceSelector, Instance};
use crate::disk_cache::{self, PipelineCacheLocation};
use crate::error::{Result, RuntimeError};
use crate::gpu::{Buffer, Gpu};
use crate::grid::{chunk_count, split_grid};
use crate::reflect::{reflect, ModuleInterface};

/// Largest window chosen when [`RuntimeOptions::window_bytes`] is `None`.
pub const DEFAULT_MAX_WINDOW_BYTES: u64 = 256 << 20;

/// Bytes after the window that hold the fault record.
const FAULT_RESERVE: u64 = abi::FAULT_RECORD_ALIGNMENT;

/// Size of the staging buffer used when the window is not host-visible.
const STAGING_BYTES: u64 = 4 << 20;

/// Start of the per-kernel constant banks in the scratch buffer; bytes before it receive the fault record
/// copied back in staged mode.
const SCRATCH_BANKS_START: u64 = 256;

/// How the window's memory is reached from the host.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum MemoryMode {
    /// Map the window directly where the device has large host-visible device-local memory (lavapipe,
    /// resizable BAR), else keep it device-local and copy through a staging buffer.
    #[default]
    Auto,
    /// Always copy through a staging buffer.
    Staged,
}

/// How a [`Runtime`] is set up.
#[derive(Clone, Debug)]
pub struct RuntimeOptions {
    /// Which device to open.
    pub device: DeviceSelector,
    /// Window size in bytes; `None`: the device's storage-buffer range (less the fault record), at most
    /// [`DEFAULT_MAX_WINDOW_BYTES`].
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
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaunchReport {
    /// Number of `vkCmdDispatch` calls the grid was split into.
    pub dispatches: u32,
    /// Whether the pipeline for this block shape had to be created.
    pub pipeline_created: bool,
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
    window: Buffer,
    backing: Backing,
    scratch: Buffer,
    scratch_generation: u64,
    command_pool: vk::CommandPool,
    command_buffer: vk::CommandBuffer,
    fence: vk::Fence,
    pipeline_cache: vk::PipelineCache,
    cache_path: Option<PathBuf>,
    abandoned_compiles: Vec<std::thread::JoinHandle<()>>,
    pipelines_created: u64,
    uniform_stride: u64,
    options: RuntimeOptions,
    measured: abi::MeasuredFloat,
    gpu: Gpu,
}

impl Runtime {
    /// Opens the device `options.device` names and creates the window and caches.
    pub fn new(options: RuntimeOptions) -> Result<Runtime> {
        let instance = Instance::new()?;
        let pds = instance.physical_devices()?;
        let infos: Vec<DeviceInfo> = pds.iter().enumerate().map(|(i, &pd)| instance.describe(i, pd)).collect();
        let info = choose_device(&infos, &options.device)?.clone();
        let pd = pds[info.index];
        let gpu = Gpu::open(instance, pd, info)?;
        Self::with_gpu(gpu, options)
    }

    fn with_gpu(gpu: Gpu, options: RuntimeOptions) -> Result<Runtime> {
        let info = &gpu.info;
        let limits = &info.limits;
        let max_window = (u64::from(limits.max_storage_buffer_range))
            .min(limits.max_memory_allocation_size.max(1 << 20))
            .saturating_sub(FAULT_RESERVE);
        let window_bytes = match options.window_bytes {
            Some(w) if w > max_window || w == 0 => {
                return Err(RuntimeError::WindowTooLarge {
                    requested: w,
                    max: u64::from(limits.max_storage_buffer_range),
                    reserved: FAULT_RESERVE,
                })
            }
            Some(w) => w,
            None => max_window.min(DEFAULT_MAX_WINDOW_BYTES),
        };
        let window_bytes = window_bytes - window_bytes % abi::ALLOCATION_ALIGNMENT;
        if options.window_base % abi::ALLOCATION_ALIGNMENT != 0 || options.window_base.checked_add(window_bytes).is_none() {
            return Err(RuntimeError::OutOfWindow {
                address: options.window_base,
                len: window_bytes,
                base: options.window_base,
                end: options.window_base.wrapping_add(window_bytes),
            });
        }
        let total = window_bytes + FAULT_RESERVE;
        let usage = vk::BufferUsageFlags::STORAGE_BUFFER
            | vk::BufferUsageFlags::TRANSFER_SRC
            | vk::BufferUsageFlags::TRANSFER_DST;
        let host = vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT;
        let local = vk::MemoryPropertyFlags::DEVICE_LOCAL;
        let mapped = options.memory == MemoryMode::Auto && gpu.has_mappable_device_local(total);
        let window = if mapped {
            gpu.create_buffer(total, usage, local | host, vk::MemoryPropertyFlags::empty(), "the global-memory window")?
        } else {
            gpu.create_buffer(total, usage, vk::MemoryPropertyFlags::empty(), local, "the global-memory window")?
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
            window,
            backing,
            scratch,
            scratch_generation: 0,
            command_pool: vk::CommandPool::null(),
            command_buffer: vk::CommandBuffer::null(),
            fence: vk::Fence::null(),
            pipeline_cache: vk::PipelineCache::null(),
            cache_path: None,
            abandoned_compiles: Vec::new(),
            pipelines_created: 0,
            uniform_stride,
            options,
            measured: Default::default(),
            gpu,
        };
        let d = &rt.gpu.device;
        let pool_info = vk::CommandPoolCreateInfo::default()
            .queue_family_index(rt.gpu.queue_family)
            .flags(vk::CommandPoolCreateFlags::RESET_COMMAND_BUFFER);
        rt.command_pool = unsafe { d.create_command_pool(&pool_info, None) }.map_err(RuntimeError::vk("vkCreateCommandPool"))?;
        let alloc = vk::CommandBufferAllocateInfo::default()
            .command_pool(rt.command_pool)
            .level(vk::CommandBufferLevel::PRIMARY)
            .command_buffer_count(1);
        rt.command_buffer = unsafe { d.allocate_command_buffers(&alloc) }
            .map_err(RuntimeError::vk("vkAllocateCommandBuffers"))?[0];
        rt.fence = unsafe { d.create_fence(&vk::FenceCreateInfo::default(), None) }.map_err(RuntimeError::vk("vkCreateFence"))?;
        rt.cache_path = rt
            .options
            .pipeline_cache
            .dir()
            .map(|dir| disk_cache::cache_file(&dir, &rt.gpu.info, &rt.options.cache_version));
        let initial = rt.cache_path.as_deref().map(|p| disk_cache::load(p, &rt.gpu.info)).unwrap_or_default();
        let cache_info = vk::PipelineCacheCreateInfo::default().initial_data(&initial);
        rt.pipeline_cache = match unsafe { d.create_pipeline_cache(&cache_info, None) } {
            Ok(c) => c,
            // A rejected file is not fatal: start empty.
            Err(_) => unsafe { d.create_pipeline_cache(&vk::PipelineCacheCreateInfo::default(), None) }
                .map_err(RuntimeError::vk("vkCreatePipelineCache"))?,
        };
        Ok(rt)
    }

    /// The device in use.
    pub fn device(&self) -> &DeviceInfo {
        &self.gpu.info
    }

    /// What the device can do, for the translator; includes the measured float behaviour once
    /// [`Runtime::measure_float`] has run.
    pub fn profile(&self) -> DeviceProfile {
        DeviceProfile { measured: self.measured, ..self.gpu.info.profile() }
    }

    pub(crate) fn set_measured(&mut self, m: abi::MeasuredFloat) {
        self.measured = m;
    }

    pub(crate) fn measured(&self) -> abi::MeasuredFloat {
        self.measured
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

    /// Allocates `len` bytes of the window; returns its guest address (aligned to 256).
    pub fn alloc(&mut self, len: u64) -> Result<u64> {
        self.allocator.alloc(len)
    }

    /// Frees an allocation made by [`Runtime::alloc`].
    pub fn free(&mut self, address: u64) -> Result<()> {
        self.allocator.free(address)
    }

    /// Copies `data` to guest address `address`; the range must lie within one live allocation.
    pub fn upload(&mut self, address: u64, data: &[u8]) -> Result<()> {
        let offset = self.allocator.check_range(address, data.len() as u64)?;
        self.write_window(offset, data)
    }

    /// Copies guest memory at `address` into `out`; the range must lie within one live allocation.
    pub fn download(&mut self, address: u64, out: &mut [u8]) -> Result<()> {
        let offset = self.allocator.check_range(address, out.len() as u64)?;
        self.read_window(offset, out)
    }

    fn write_window(&mut self, offset: u64, data: &[u8]) -> Result<()> {
        match &mut self.backing {
            Backing::Mapped => {
                let bytes = self.window.bytes_mut().expect("mapped window");
                bytes[offset as usize..offset as usize + data.len()].copy_from_slice(data);
                Ok(())
            }
            Backing::Staged(_) => {
                for (i, chunk) in data.chunks(STAGING_BYTES as usize).enumerate() {
                    let Backing::Staged(staging) = &mut self.backing else { unreachable!() };
                    staging.bytes_mut().expect("mapped staging")[..chunk.len()].copy_from_slice(chunk);
                    let (src, dst) = (staging.buffer, self.window.buffer);
                    let at = offset + (i as u64) * STAGING_BYTES;
                    let len = chunk.len() as u64;
                    self.submit(|d, cb| unsafe {
                        let region = vk::BufferCopy { src_offset: 0, dst_offset: at, size: len };
                        d.cmd_copy_buffer(cb, src, dst, &[region]);
                    })?;
                }
                Ok(())
            }
        }
    }

    fn read_window(&mut self, offset: u64, out: &mut [u8]) -> Result<()> {
        match &mut self.backing {
            Backing::Mapped => {
                let bytes = self.window.bytes_mut().expect("mapped window");
                out.copy_from_slice(&bytes[offset as usize..offset as usize + out.len()]);
                Ok(())
            }
            Backing::Staged(staging) => {
                let (src, dst) = (self.window.buffer, staging.buffer);
                for (i, chunk) in out.chunks_mut(STAGING_BYTES as usize).enumerate() {
                    let at = offset + (i as u64) * STAGING_BYTES;
                    let len = chunk.len() as u64;
                    self.submit(|d, cb| unsafe {
                        barrier(d, cb, vk::PipelineStageFlags::COMPUTE_SHADER | vk::PipelineStageFlags::TRANSFER,
                            vk::AccessFlags::SHADER_WRITE | vk::AccessFlags::TRANSFER_WRITE,
                            vk::PipelineStageFlags::TRANSFER, vk::AccessFlags::TRANSFER_READ);
                        d.cmd_copy_buffer(cb, src, dst, &[vk::BufferCopy { src_offset: at, dst_offset: 0, size: len }]);
                        barrier(d, cb, vk::PipelineStageFlags::TRANSFER, vk::AccessFlags::TRANSFER_WRITE,
                            vk::PipelineStageFlags::HOST, vk::AccessFlags::HOST_READ);
                    })?;
                    let Backing::Staged(staging) = &mut self.backing else { unreachable!() };
                    chunk.copy_from_slice(&staging.bytes_mut().expect("mapped staging")[..chunk.len()]);
                }
                Ok(())
            }
        }
    }

    /// Records `record` into the command buffer, submits it and waits for it.
    fn submit(&mut self, record: impl FnOnce(&ash::Device, vk::CommandBuffer)) -> Result<()> {
        let d = &self.gpu.device;
        let cb = self.command_buffer;
        unsafe {
            d.reset_command_buffer(cb, vk::CommandBufferResetFlags::empty())
                .map_err(RuntimeError::vk("vkResetCommandBuffer"))?;
            let begin = vk::CommandBufferBeginInfo::default().flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT);
            d.begin_command_buffer(cb, &begin).map_err(RuntimeError::vk("vkBeginCommandBuffer"))?;
            record(d, cb);
            d.end_command_buffer(cb).map_err(RuntimeError::vk("vkEndCommandBuffer"))?;
            let cbs = [cb];
            let submit = vk::SubmitInfo::default().command_buffers(&cbs);
            d.queue_submit(self.gpu.queue, &[submit], self.fence).map_err(RuntimeError::vk("vkQueueSubmit"))?;
            d.wait_for_fences(&[self.fence], true, u64::MAX).map_err(RuntimeError::vk("vkWaitForFences"))?;
            d.reset_fences(&[self.fence]).map_err(RuntimeError::vk("vkResetFences"))?;
        }
        Ok(())
    }

    /// Loads a translated module under `name`. Modules are cached by content: loading the same words again
    /// reuses the shader module and its pipelines.
    pub fn load_kernel(&mut self, name: &str, spirv: &[u32]) -> Result<KernelId> {
        let hash = {
            let mut h = std::hash::DefaultHasher::new();
            spirv.hash(&mut h);
            h.finish()
        };
        let existing = self
            .by_hash
            .get(&hash)
            .and_then(|v| v.iter().copied().find(|&i| self.entries[i].words == spirv));
        let entry = match existing {
            Some(i) => i,
            None => {
                let e = self.create_entry(name, spirv)?;
                self.entries.push(e);
                let i = self.entries.len() - 1;
                self.by_hash.entry(hash).or_default().push(i);
                i
            }
        };
        if let Some(id) = self.names.iter().position(|(n, e)| n == name && *e == entry) {
            return Ok(KernelId(id as u32));
        }
        self.names.push((name.to_owned(), entry));
        Ok(KernelId((self.names.len() - 1) as u32))
    }

    /// The interface reflected from a kernel's module.
    pub fn kernel_interface(&self, kernel: KernelId) -> Result<&ModuleInterface> {
        let (_, e) = self.names.get(kernel.0 as usize).ok_or(RuntimeError::UnknownKernel(kernel.0))?;
        Ok(&self.entries[*e].interface)
    }

    /// The name a kernel was loaded under.
    pub fn kernel_name(&self, kernel: KernelId) -> Result<&str> {
        self.names.get(kernel.0 as usize).map(|(n, _)| n.as_str()).ok_or(RuntimeError::UnknownKernel(kernel.0))
    }

    fn create_entry(&mut self, name: &str, spirv: &[u32]) -> Result<KernelEntry> {
        let interface = reflect(name, spirv)?;
        let info = &self.gpu.info;
        if let Some(missing) = interface.missing_feature(&info.features) {
            return Err(RuntimeError::MissingFeature {
                device: info.name.clone(),
                missing: format!("{missing} (kernel {name:?} needs it)"),
            });
        }
        let uniforms = interface.banks.len() as u32 + u32::from(interface.uses_launch_values);
        if uniforms > info.limits.max_per_stage_uniform_buffers {
            return Err(RuntimeError::AbiViolation {
                kernel: name.into(),
                reason: format!(
                    "uses {uniforms} uniform buffers; the device allows {}",
                    info.limits.max_per_stage_uniform_buffers
                ),
            });
        }
        if let Some((b, bytes)) =
            interface.banks.iter().find(|(_, &bytes)| bytes > info.limits.max_uniform_buffer_range)
        {
            return Err(RuntimeError::MissingFeature {
                device: info.name.clone(),
                missing: format!("a {bytes}-byte uniform buffer for constant bank {b} of kernel {name:?} (maxUniformBufferRange {})", info.limits.max_uniform_buffer_range),
            });
        }
        // Fixed scratch offsets for this kernel's banks, then its launch values.
        let align = info.limits.min_uniform_buffer_offset_alignment.max(16);
        let mut at = SCRATCH_BANKS_START;
        let mut banks = Vec::new();
        for (&bank, &bytes) in &interface.banks {
            at = at.next_multiple_of(align);
            banks.push((bank, at, u64::from(bytes.max(16))));
            at += u64::from(bytes.max(16));
        }
        let launch_values_offset = at.next_multiple_of(align);

        let d = &self.gpu.device;
        let mut bindings = Vec::new();
        let stage = vk::ShaderStageFlags::COMPUTE;
        if interface.uses_launch_values {
            bindings.push(
                vk::DescriptorSetLayoutBinding::default()
                    .binding(abi::LAUNCH_VALUES_BINDING)
                    .descriptor_type(vk::DescriptorType::UNIFORM_BUFFER_DYNAMIC)
                    .descriptor_count(1)
                    .stage_flags(stage),
            );
        }
        for &(bank, _, _) in &banks {
            bindings.push(
                vk::DescriptorSetLayoutBinding::default()
                    .binding(abi::FIRST_BANK_BINDING + bank)
                    .descriptor_type(vk::DescriptorType::UNIFORM_BUFFER)
                    .descriptor_count(1)
                    .stage_flags(stage),
            );
        }
        if interface.uses_window {
            bindings.push(
                vk::DescriptorSetLayoutBinding::default()
                    .binding(abi::GLOBAL_WINDOW_BINDING)
                    .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
                    .descriptor_count(1)
                    .stage_flags(stage),
            );
        }
        let mut entry = KernelEntry {
            words: spirv.to_vec(),
            interface,
            module: vk::ShaderModule::null(),
            set_layout: vk::DescriptorSetLayout::null(),
            pipeline_layout: vk::PipelineLayout::null(),
            pool: vk::DescriptorPool::null(),
            set: vk::DescriptorSet::null(),
            set_generation: u64::MAX,
            banks,
            launch_values_offset,
            pipelines: HashMap::new(),
        };
        let result = (|| -> Result<()> {
            unsafe {
                entry.module = d
                    .create_shader_module(&vk::ShaderModuleCreateInfo::default().code(spirv), None)
                    .map_err(RuntimeError::vk("vkCreateShaderModule"))?;
                entry.set_layout = d
                    .create_descriptor_set_layout(&vk::DescriptorSetLayoutCreateInfo::default().bindings(&bindings), None)
                    .map_err(RuntimeError::vk("vkCreateDescriptorSetLayout"))?;
                let layouts = [entry.set_layout];
                entry.pipeline_layout = d
                    .create_pipeline_layout(&vk::PipelineLayoutCreateInfo::default().set_layouts(&layouts), None)
                    .map_err(RuntimeError::vk("vkCreatePipelineLayout"))?;
                let mut sizes = Vec::new();
                for (ty, n) in [
                    (vk::DescriptorType::UNIFORM_BUFFER_DYNAMIC, u32::from(entry.interface.uses_launch_values)),
                    (vk::DescriptorType::UNIFORM_BUFFER, entry.banks.len() as u32),
                    (vk::DescriptorType::STORAGE_BUFFER, u32::from(entry.interface.uses_window)),
                ] {
                    if n > 0 {
                        sizes.push(vk::DescriptorPoolSize { ty, descriptor_count: n });
                    }
                }
                if sizes.is_empty() {
                    sizes.push(vk::DescriptorPoolSize { ty: vk::DescriptorType::STORAGE_BUFFER, descriptor_count: 1 });
                }
                entry.pool = d
                    .create_descriptor_pool(&vk::DescriptorPoolCreateInfo::default().max_sets(1).pool_sizes(&sizes), None)
                    .map_err(RuntimeError::vk("vkCreateDescriptorPool"))?;
                entry.set = d
                    .allocate_descriptor_sets(
                        &vk::DescriptorSetAllocateInfo::default().descriptor_pool(entry.pool).set_layouts(&layouts),
                    )
                    .map_err(RuntimeError::vk("vkAllocateDescriptorSets"))?[0];
            }
            Ok(())
        })();
        if let Err(e) = result {
            self.destroy_entry(&entry);
            return Err(e);
        }
        Ok(entry)
    }

    fn destroy_entry(&self, e: &KernelEntry) {
        let d = &self.gpu.device;
        unsafe {
            for &p in e.pipelines.values() {
                d.destroy_pipeline(p, None);
            }
            d.destroy_descriptor_pool(e.pool, None);
            d.destroy_pipeline_layout(e.pipeline_layout, None);
            d.destroy_descriptor_set_layout(e.set_layout, None);
            d.destroy_shader_module(e.module, None);
        }
    }

    /// Writes the kernel's descriptor set for the current scratch buffer.
    fn write_descriptors(&mut self, entry: usize) {
        let e = &self.entries[entry];
        let scratch = self.scratch.buffer;
        let mut infos: Vec<(u32, vk::DescriptorType, [vk::DescriptorBufferInfo; 1])> = Vec::new();
        if e.interface.uses_launch_values {
            infos.push((
                abi::LAUNCH_VALUES_BINDING,
                vk::DescriptorType::UNIFORM_BUFFER_DYNAMIC,
                [vk::DescriptorBufferInfo { buffer: scratch, offset: 0, range: std::mem::size_of::<LaunchValues>() as u64 }],
            ));
        }
        for &(bank, offset, bytes) in &e.banks {
            infos.push((
                abi::FIRST_BANK_BINDING + bank,
                vk::DescriptorType::UNIFORM_BUFFER,
                [vk::DescriptorBufferInfo { buffer: scratch, offset, range: bytes }],
            ));
        }
        if e.interface.uses_window {
            infos.push((
                abi::GLOBAL_WINDOW_BINDING,
                vk::DescriptorType::STORAGE_BUFFER,
                [vk::DescriptorBufferInfo { buffer: self.window.buffer, offset: 0, range: self.window.size }],
            ));
        }
        let writes: Vec<vk::WriteDescriptorSet> = infos
            .iter()
            .map(|(binding, ty, info)| {
                vk::WriteDescriptorSet::default()
                    .dst_set(e.set)
                    .dst_binding(*binding)
                    .descriptor_type(*ty)
                    .buffer_info(info)
            })
            .collect();
        // SAFETY: no submission using this set is pending (launches wait for completion).
        unsafe { self.gpu.device.update_descriptor_sets(&writes, &[]) };
        self.entries[entry].set_generation = self.scratch_generation;
    }

    /// Grows the scratch buffer to at least `needed` bytes.
    fn ensure_scratch(&mut self, needed: u64) -> Result<()> {
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

    fn pipeline(&mut self, entry: usize, block: [u32; 3], dynamic_shared: u32, name: &str) -> Result<(vk::Pipeline, bool)> {
        if let Some(&p) = self.entries[entry].pipelines.get(&(block, dynamic_shared)) {
            return Ok((p, false));
        }
        let e = &self.entries[entry];
        let job = PipelineJob {
            device: self.gpu.device.clone(),
            cache: self.pipeline_cache,
            module: e.module,
            layout: e.pipeline_layout,
            spec: [block[0], block[1], block[2], dynamic_shared],
        };
        let created = match self.options.pipeline_timeout {
            None => job.run(),
            Some(limit) => {
                let (tx, rx) = mpsc::channel();
                let handle = std::thread::spawn(move || {
                    let device = job.device.clone();
                    let r = job.run();
                    if let Err(mpsc::SendError(Ok(p))) = tx.send(r) {
                        // Nobody waits any more: the runtime gave up on this compile.
                        unsafe { device.destroy_pipeline(p, None) };
                    }
                });
                match rx.recv_timeout(limit) {
                    Ok(r) => {
                        let _ = handle.join();
                        r
                    }
                    Err(_) => {
                        self.abandoned_compiles.push(handle);
                        return Err(RuntimeError::PipelineTimeout { kernel: name.into(), seconds: limit.as_secs_f64() });
                    }
                }
            }
        };
        let p = created.map_err(RuntimeError::vk("vkCreateComputePipelines"))?;
        self.pipelines_created += 1;
        self.entries[entry].pipelines.insert((block, dynamic_shared), p);
        Ok((p, true))
    }

    /// Creates the pipeline for a block shape ahead of the first launch (launches create it on demand).
    pub fn prepare(&mut self, kernel: KernelId, block: [u32; 3], dynamic_shared_bytes: u32) -> Result<()> {
        let (name, entry) = self.names.get(kernel.0 as usize).cloned().ok_or(RuntimeError::UnknownKernel(kernel.0))?;
        self.check_block(&name, block, dynamic_shared_bytes)?;
        self.pipeline(entry, block, dynamic_shared_bytes, &name).map(|_| ())
    }

    fn check_block(&self, name: &str, block: [u32; 3], dynamic_shared: u32) -> Result<()> {
        let l = &self.gpu.info.limits;
        let invalid = |reason: String| Err(RuntimeError::InvalidLaunch { kernel: name.into(), reason });
        let threads = block.iter().map(|&b| u64::from(b)).product::<u64>();
        if block.contains(&0) {
            return invalid(format!("block {block:?} has a zero dimension"));
        }
        if (0..3).any(|i| block[i] > l.max_workgroup_size[i]) || threads > 1024 {
            return invalid(format!(
                "block {block:?} exceeds the device's workgroup size {:?} or CUDA's 1024 threads",
                l.max_workgroup_size
            ));
        }
        if threads > u64::from(l.max_workgroup_invocations) {
            return invalid(format!("block of {threads} threads exceeds the device's {} invocations", l.max_workgroup_invocations));
        }
        if dynamic_shared > l.max_shared_memory_bytes {
            return invalid(format!(
                "{dynamic_shared} bytes of dynamic shared memory exceed the device's {}",
                l.max_shared_memory_bytes
            ));
        }
        Ok(())
    }

    /// Runs a kernel to completion. An access outside the window is reported as [`RuntimeError::Fault`].
    pub fn launch(&mut self, launch: &Launch<'_>) -> Result<LaunchReport> {
        let kernel = launch.kernel;
        let (ref name, entry) = *self.names.get(kernel.0 as usize).ok_or(RuntimeError::UnknownKernel(kernel.0))?;
        let name = name.clone();
        let invalid = |reason: String| RuntimeError::InvalidLaunch { kernel: name.clone(), reason };
        let grid = launch.grid;
        if grid.contains(&0) || grid[0] > i32::MAX as u32 || grid[1] > 65535 || grid[2] > 65535 {
            return Err(invalid(format!("grid {grid:?} is outside CUDA's limits (1..=2^31-1, 1..=65535, 1..=65535)")));
        }
        self.check_block(&name, launch.block, launch.dynamic_shared_bytes)?;
        let mut max_count = self.gpu.info.limits.max_workgroup_count;
        if let Some(cap) = self.options.max_dispatch_workgroups {
            max_count = [0, 1, 2].map(|i| max_count[i].min(cap[i]).max(1));
        }
        let chunks = chunk_count(grid, max_count);
        if chunks > 1 && !self.entries[entry].interface.uses_launch_values {
            return Err(invalid(format!(
                "grid {grid:?} needs {chunks} dispatches, but the module does not read launch values (binding 0)"
            )));
        }
        // Banks given must exist and fit a CUDA bank.
        for &(bank, data) in launch.banks {
            if bank >= abi::CONSTANT_BANK_COUNT {
                return Err(invalid(format!("constant bank {bank} does not exist (0..{})", abi::CONSTANT_BANK_COUNT)));
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

        let stride = self.uniform_stride;
        let lv_offset = self.entries[entry].launch_values_offset;
        self.ensure_scratch(lv_offset + chunks * stride)?;
        if self.entries[entry].set_generation != self.scratch_generation {
            self.write_descriptors(entry);
        }
        let (pipeline, pipeline_created) = self.pipeline(entry, launch.block, launch.dynamic_shared_bytes, &name)?;

        // Constant banks and launch values into scratch.
        let e = &self.entries[entry];
        let scratch = self.scratch.bytes_mut().expect("scratch is host-visible");
        for &(bank, offset, bytes) in &e.banks {
            let dst = &mut scratch[offset as usize..(offset + bytes) as usize];
            let given = launch.banks.iter().rev().find(|b| b.0 == bank).map(|b| b.1).unwrap_or(&[]);
            let n = given.len().min(dst.len());
            dst[..n].copy_from_slice(&given[..n]);
            dst[n..].fill(0);
        }
        let fault_offset = self.window.size - FAULT_RESERVE;
        let mut values = LaunchValues {
            window_base: self.allocator.base(),
            window_size: self.allocator.size(),
            fault_record_word: (fault_offset / 4) as u32,
            kernel_id: kernel.0,
            reserved: [0; 2],
            grid_dim: [grid[0], grid[1], grid[2], 0],
            block_dim: [launch.block[0], launch.block[1], launch.block[2], 0],
            workgroup_base: [0; 4],
        };
        let mut dispatches = Vec::with_capacity(chunks as usize);
        for (i, chunk) in split_grid(grid, max_count).enumerate() {
            values.workgroup_base = [chunk.base[0], chunk.base[1], chunk.base[2], 0];
            let at = (lv_offset + i as u64 * stride) as usize;
            scratch[at..at + std::mem::size_of::<LaunchValues>()].copy_from_slice(&values.to_bytes());
            dispatches.push(((at as u64 - 0) as u32, chunk.count));
        }
        if let Backing::Mapped = self.backing {
            let w = self.window.bytes_mut().expect("mapped window");
            w[fault_offset as usize..(fault_offset + FAULT_RESERVE) as usize].fill(0);
        }

        let set = e.set;
        let layout = e.pipeline_layout;
        let uses_lv = e.interface.uses_launch_values;
        let window = self.window.buffer;
        let scratch_buffer = self.scratch.buffer;
        let staged = self.is_staged();
        self.submit(|d, cb| unsafe {
            barrier(
                d,
                cb,
                vk::PipelineStageFlags::COMPUTE_SHADER | vk::PipelineStageFlags::TRANSFER | vk::PipelineStageFlags::HOST,
                vk::AccessFlags::SHADER_WRITE | vk::AccessFlags::TRANSFER_WRITE | vk::AccessFlags::HOST_WRITE,
                vk::PipelineStageFlags::COMPUTE_SHADER | vk::PipelineStageFlags::TRANSFER,
                vk::AccessFlags::SHADER_READ | vk::AccessFlags::SHADER_WRITE | vk::AccessFlags::UNIFORM_READ | vk::AccessFlags::TRANSFER_WRITE,
            );
            if staged {
                d.cmd_fill_buffer(cb, window, fault_offset, FAULT_RESERVE, 0);
                barrier(d, cb, vk::PipelineStageFlags::TRANSFER, vk::AccessFlags::TRANSFER_WRITE,
                    vk::PipelineStageFlags::COMPUTE_SHADER, vk::AccessFlags::SHADER_READ | vk::AccessFlags::SHADER_WRITE);
            }
            d.cmd_bind_pipeline(cb, vk::PipelineBindPoint::COMPUTE, pipeline);
            for &(offset, count) in &dispatches {
                let dynamic = [offset];
                let offsets: &[u32] = if uses_lv { &dynamic } else { &[] };
                d.cmd_bind_descriptor_sets(cb, vk::PipelineBindPoint::COMPUTE, layout, 0, &[set], offsets);
                d.cmd_dispatch(cb, count[0], count[1], count[2]);
            }
            if staged {
                barrier(d, cb, vk::PipelineStageFlags::COMPUTE_SHADER, vk::AccessFlags::SHADER_WRITE,
                    vk::PipelineStageFlags::TRANSFER, vk::AccessFlags::TRANSFER_READ);
                let region = vk::BufferCopy { src_offset: fault_offset, dst_offset: 0, size: 4 * u64::from(abi::FAULT_RECORD_WORDS) };
                d.cmd_copy_buffer(cb, window, scratch_buffer, &[region]);
                barrier(d, cb, vk::PipelineStageFlags::TRANSFER, vk::AccessFlags::TRANSFER_WRITE,
                    vk::PipelineStageFlags::HOST, vk::AccessFlags::HOST_READ);
            } else {
                barrier(d, cb, vk::PipelineStageFlags::COMPUTE_SHADER, vk::AccessFlags::SHADER_WRITE,
                    vk::PipelineStageFlags::HOST, vk::AccessFlags::HOST_READ);
            }
        })?;

        let record_bytes: Vec<u8> = if staged {
            self.scratch.bytes_mut().expect("scratch")[..32].to_vec()
        } else {
            let w = self.window.bytes_mut().expect("mapped window");
            w[fault_offset as usize..fault_offset as usize + 32].to_vec()
        };
        let mut words = [0u32; abi::FAULT_RECORD_WORDS as usize];
        for (w, b) in words.iter_mut().zip(record_bytes.chunks_exact(4)) {
            *w = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
        }
        let record = FaultRecord::from_words(&words);
        if record.flag != 0 {
            let kernel = self
                .names
                .get(record.kernel_id as usize)
                .map(|(n, _)| n.clone())
                .unwrap_or_else(|| format!("{name} (record names unknown kernel id {})", record.kernel_id));
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
        Ok(LaunchReport { dispatches: chunks as u32, pipeline_created })
    }

    /// Writes the `VkPipelineCache` to its file (also done when the runtime is dropped). Returns the path, or
    /// `None` when the disk cache is disabled.
    pub fn save_pipeline_cache(&self) -> Result<Option<PathBuf>> {
        let Some(path) = &self.cache_path else { return Ok(None) };
        let data = unsafe { self.gpu.device.get_pipeline_cache_data(self.pipeline_cache) }
            .map_err(RuntimeError::vk("vkGetPipelineCacheData"))?;
        disk_cache::store(path, &data)?;
        Ok(Some(path.clone()))
    }
}

unsafe fn barrier(
    d: &ash::Device,
    cb: vk::CommandBuffer,
    src_stage: vk::PipelineStageFlags,
    src: vk::AccessFlags,
    dst_stage: vk::PipelineStageFlags,
    dst: vk::AccessFlags,
) {
    let m = [vk::MemoryBarrier::default().src_access_mask(src).dst_access_mask(dst)];
    d.cmd_pipeline_barrier(cb, src_stage, dst_stage, vk::DependencyFlags::empty(), &m, &[], &[]);
}

/// One `vkCreateComputePipelines` call, movable to a helper thread.
struct PipelineJob {
    device: ash::Device,
    cache: vk::PipelineCache,
    module: vk::ShaderModule,
    layout: vk::PipelineLayout,
    spec: [u32; 4],
}

impl PipelineJob {
    fn run(self) -> std::result::Result<vk::Pipeline, vk::Result> {
        let ids = [abi::SPEC_ID_BLOCK_DIM_X, abi::SPEC_ID_BLOCK_DIM_Y, abi::SPEC_ID_BLOCK_DIM_Z, abi::SPEC_ID_DYNAMIC_SHARED_BYTES];
        let entries: Vec<vk::SpecializationMapEntry> = ids
            .iter()
            .enumerate()
            .map(|(i, &id)| vk::SpecializationMapEntry { constant_id: id, offset: 4 * i as u32, size: 4 })
            .collect();
        let data: Vec<u8> = self.spec.iter().flat_map(|v| v.to_le_bytes()).collect();
        let spec = vk::SpecializationInfo::default().map_entries(&entries).data(&data);
        let name = std::ffi::CString::new(abi::ENTRY_POINT).expect("entry point name has no NUL");
        let stage = vk::PipelineShaderStageCreateInfo::default()
            .stage(vk::ShaderStageFlags::COMPUTE)
            .module(self.module)
            .name(&name)
            .specialization_info(&spec);
        let info = vk::ComputePipelineCreateInfo::default().stage(stage).layout(self.layout);
        // SAFETY: module and layout outlive this call (the runtime joins abandoned compiles before dropping).
        unsafe { self.device.create_compute_pipelines(self.cache, &[info], None) }
            .map(|v| v[0])
            .map_err(|(_, e)| e)
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
        for e in &self.entries {
            self.destroy_entry(e);
        }
        let d = &self.gpu.device;
        unsafe {
            d.destroy_pipeline_cache(self.pipeline_cache, None);
            d.destroy_fence(self.fence, None);
            d.destroy_command_pool(self.command_pool, None);
        }
        self.gpu.destroy_buffer(&self.window);
        self.gpu.destroy_buffer(&self.scratch);
        if let Backing::Staged(s) = &self.backing {
            self.gpu.destroy_buffer(s);
        }
    }
}

//! Loading kernels: reflection, descriptor layouts and sets, and pipelines specialised per block shape.

use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::mpsc;

use ash::vk;
use sassport_translator::abi::{self, LaunchValues};
use sassport_translator::lower::shared_allocation_bytes;

use super::{KernelEntry, KernelId, Runtime, SCRATCH_BANKS_START};
use crate::error::{Result, RuntimeError};
use crate::reflect::{reflect, ModuleInterface};

impl Runtime {
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
        if let Some(id) = self
            .names
            .iter()
            .position(|(n, e)| n == name && *e == entry)
        {
            return Ok(KernelId(id as u32));
        }
        self.names.push((name.to_owned(), entry));
        Ok(KernelId((self.names.len() - 1) as u32))
    }

    /// The interface reflected from a kernel's module.
    pub fn kernel_interface(&self, kernel: KernelId) -> Result<&ModuleInterface> {
        let (_, e) = self
            .names
            .get(kernel.0 as usize)
            .ok_or(RuntimeError::UnknownKernel(kernel.0))?;
        Ok(&self.entries[*e].interface)
    }

    /// The name a kernel was loaded under.
    pub fn kernel_name(&self, kernel: KernelId) -> Result<&str> {
        self.names
            .get(kernel.0 as usize)
            .map(|(n, _)| n.as_str())
            .ok_or(RuntimeError::UnknownKernel(kernel.0))
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
        // Window-backed shared memory does not count against the device's.
        let guest = if interface.shared_in_window { 0 } else { interface.guest_static_shared_bytes };
        let static_shared = u64::from(guest) + interface.static_shared_bytes;
        if static_shared > u64::from(info.limits.max_shared_memory_bytes) {
            return Err(RuntimeError::SharedMemoryLimit {
                kernel: name.into(),
                static_bytes: static_shared,
                dynamic_bytes: 0,
                limit: info.limits.max_shared_memory_bytes,
            });
        }
        // A module with subgroup operations runs each warp as one 32-wide subgroup (the translator's subgroup
        // form): the device must give 32 by default or through subgroup-size control.
        let warp = abi::WARP_SIZE;
        let require_warp_subgroups = if !interface.uses_subgroups() || info.subgroup_size == warp {
            false
        } else if info.features.subgroup_size_control
            && info.features.compute_full_subgroups
            && info.min_subgroup_size <= warp
            && warp <= info.max_subgroup_size
        {
            true
        } else {
            return Err(RuntimeError::MissingFeature {
                device: info.name.clone(),
                missing: format!(
                    "32-wide subgroups (kernel {name:?} runs warps as subgroups; the device's are {} wide)",
                    info.subgroup_size
                ),
            });
        };
        // A module translated for the other window form would read guest words as addresses or the reverse.
        let chunked_module = interface.capabilities.contains(&rspirv::spirv::Capability::PhysicalStorageBufferAddresses);
        if interface.uses_window && chunked_module != self.window_chunks().is_some() {
            let (module, window) = if chunked_module { ("chunked", "one buffer") } else { ("one-buffer", "chunked") };
            return Err(RuntimeError::AbiViolation {
                kernel: name.into(),
                reason: format!("a module for a {module} window, this runtime's window is {window} (translate with Runtime::profile)"),
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
        if let Some((b, bytes)) = interface
            .banks
            .iter()
            .find(|(_, &bytes)| bytes > info.limits.max_uniform_buffer_range)
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
            require_warp_subgroups,
        };
        let result = (|| -> Result<()> {
            unsafe {
                entry.module = d
                    .create_shader_module(&vk::ShaderModuleCreateInfo::default().code(spirv), None)
                    .map_err(RuntimeError::vk("vkCreateShaderModule"))?;
                entry.set_layout = d
                    .create_descriptor_set_layout(
                        &vk::DescriptorSetLayoutCreateInfo::default().bindings(&bindings),
                        None,
                    )
                    .map_err(RuntimeError::vk("vkCreateDescriptorSetLayout"))?;
                let layouts = [entry.set_layout];
                entry.pipeline_layout = d
                    .create_pipeline_layout(
                        &vk::PipelineLayoutCreateInfo::default().set_layouts(&layouts),
                        None,
                    )
                    .map_err(RuntimeError::vk("vkCreatePipelineLayout"))?;
                let mut sizes = Vec::new();
                for (ty, n) in [
                    (
                        vk::DescriptorType::UNIFORM_BUFFER_DYNAMIC,
                        u32::from(entry.interface.uses_launch_values),
                    ),
                    (vk::DescriptorType::UNIFORM_BUFFER, entry.banks.len() as u32),
                    (
                        vk::DescriptorType::STORAGE_BUFFER,
                        u32::from(entry.interface.uses_window),
                    ),
                ] {
                    if n > 0 {
                        sizes.push(vk::DescriptorPoolSize {
                            ty,
                            descriptor_count: n,
                        });
                    }
                }
                if sizes.is_empty() {
                    sizes.push(vk::DescriptorPoolSize {
                        ty: vk::DescriptorType::STORAGE_BUFFER,
                        descriptor_count: 1,
                    });
                }
                entry.pool = d
                    .create_descriptor_pool(
                        &vk::DescriptorPoolCreateInfo::default()
                            .max_sets(1)
                            .pool_sizes(&sizes),
                        None,
                    )
                    .map_err(RuntimeError::vk("vkCreateDescriptorPool"))?;
                entry.set = d
                    .allocate_descriptor_sets(
                        &vk::DescriptorSetAllocateInfo::default()
                            .descriptor_pool(entry.pool)
                            .set_layouts(&layouts),
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

    pub(super) fn destroy_entry(&self, e: &KernelEntry) {
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
    pub(super) fn write_descriptors(&mut self, entry: usize) {
        let e = &self.entries[entry];
        let scratch = self.scratch.buffer;
        let mut infos: Vec<(u32, vk::DescriptorType, [vk::DescriptorBufferInfo; 1])> = Vec::new();
        if e.interface.uses_launch_values {
            infos.push((
                abi::LAUNCH_VALUES_BINDING,
                vk::DescriptorType::UNIFORM_BUFFER_DYNAMIC,
                [vk::DescriptorBufferInfo {
                    buffer: scratch,
                    offset: 0,
                    range: std::mem::size_of::<LaunchValues>() as u64,
                }],
            ));
        }
        for &(bank, offset, bytes) in &e.banks {
            infos.push((
                abi::FIRST_BANK_BINDING + bank,
                vk::DescriptorType::UNIFORM_BUFFER,
                [vk::DescriptorBufferInfo {
                    buffer: scratch,
                    offset,
                    range: bytes,
                }],
            ));
        }
        if e.interface.uses_window {
            infos.push((
                abi::GLOBAL_WINDOW_BINDING,
                vk::DescriptorType::STORAGE_BUFFER,
                [vk::DescriptorBufferInfo {
                    buffer: self.window.buffer,
                    offset: 0,
                    range: self.window.size,
                }],
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

    /// Refuses a launch whose static plus dynamic shared memory exceeds the device's limit, as CUDA does.
    /// Static is the kernel's own (the module's spec id 4 default) plus the module's fixed-size workgroup
    /// variables (sassport's own words, 0 to a few hundred bytes; those sized by the block shape, the turns
    /// form's, are left to pipeline creation). What the module declares is the kernel's part rounded up to
    /// the hardware's granule, so that is what must fit.
    pub(super) fn check_shared(&self, entry: usize, name: &str, dynamic_shared: u32) -> Result<()> {
        let i = &self.entries[entry].interface;
        if i.shared_in_window {
            // The kernel's part lives in window slots (its size is checked against the window when the slots
            // are placed); only the module's own Workgroup words must fit.
            let limit = self.gpu.info.limits.max_shared_memory_bytes;
            if i.static_shared_bytes > u64::from(limit) {
                return Err(RuntimeError::SharedMemoryLimit {
                    kernel: name.into(),
                    static_bytes: i.static_shared_bytes,
                    dynamic_bytes: 0,
                    limit,
                });
            }
            return Ok(());
        }
        let static_bytes = u64::from(i.guest_static_shared_bytes) + i.static_shared_bytes;
        let declared = shared_allocation_bytes(i.guest_static_shared_bytes, dynamic_shared) + i.static_shared_bytes;
        let limit = self.gpu.info.limits.max_shared_memory_bytes;
        if static_bytes + u64::from(dynamic_shared) > u64::from(limit) || declared > u64::from(limit) {
            return Err(RuntimeError::SharedMemoryLimit {
                kernel: name.into(),
                static_bytes,
                dynamic_bytes: dynamic_shared.into(),
                limit,
            });
        }
        Ok(())
    }

    pub(super) fn pipeline(
        &mut self,
        entry: usize,
        block: [u32; 3],
        dynamic_shared: u32,
        name: &str,
    ) -> Result<(vk::Pipeline, bool)> {
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
            warp_subgroups: e.require_warp_subgroups,
            full_subgroups: block[0] % abi::WARP_SIZE == 0,
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
                        return Err(RuntimeError::PipelineTimeout {
                            kernel: name.into(),
                            seconds: limit.as_secs_f64(),
                        });
                    }
                }
            }
        };
        let p = created.map_err(RuntimeError::vk("vkCreateComputePipelines"))?;
        self.pipelines_created += 1;
        self.entries[entry]
            .pipelines
            .insert((block, dynamic_shared), p);
        Ok((p, true))
    }

    /// Creates the pipeline for a block shape ahead of the first launch (launches create it on demand).
    pub fn prepare(
        &mut self,
        kernel: KernelId,
        block: [u32; 3],
        dynamic_shared_bytes: u32,
    ) -> Result<()> {
        let (name, entry) = self
            .names
            .get(kernel.0 as usize)
            .cloned()
            .ok_or(RuntimeError::UnknownKernel(kernel.0))?;
        self.check_block(&name, block)?;
        self.check_shared(entry, &name, dynamic_shared_bytes)?;
        self.pipeline(entry, block, dynamic_shared_bytes, &name)
            .map(|_| ())
    }
}

/// One `vkCreateComputePipelines` call, movable to a helper thread.
struct PipelineJob {
    device: ash::Device,
    cache: vk::PipelineCache,
    module: vk::ShaderModule,
    layout: vk::PipelineLayout,
    spec: [u32; 4],
    /// Ask for 32-wide subgroups (and, when the block's x size allows, full ones).
    warp_subgroups: bool,
    full_subgroups: bool,
}

impl PipelineJob {
    fn run(self) -> std::result::Result<vk::Pipeline, vk::Result> {
        let ids = [
            abi::SPEC_ID_BLOCK_DIM_X,
            abi::SPEC_ID_BLOCK_DIM_Y,
            abi::SPEC_ID_BLOCK_DIM_Z,
            abi::SPEC_ID_DYNAMIC_SHARED_BYTES,
        ];
        let entries: Vec<vk::SpecializationMapEntry> = ids
            .iter()
            .enumerate()
            .map(|(i, &id)| vk::SpecializationMapEntry {
                constant_id: id,
                offset: 4 * i as u32,
                size: 4,
            })
            .collect();
        let data: Vec<u8> = self.spec.iter().flat_map(|v| v.to_le_bytes()).collect();
        let spec = vk::SpecializationInfo::default()
            .map_entries(&entries)
            .data(&data);
        let name = std::ffi::CString::new(abi::ENTRY_POINT).expect("entry point name has no NUL");
        let mut required = vk::PipelineShaderStageRequiredSubgroupSizeCreateInfo::default()
            .required_subgroup_size(abi::WARP_SIZE);
        let mut stage = vk::PipelineShaderStageCreateInfo::default()
            .stage(vk::ShaderStageFlags::COMPUTE)
            .module(self.module)
            .name(&name)
            .specialization_info(&spec);
        if self.warp_subgroups {
            stage = stage.push_next(&mut required);
            if self.full_subgroups {
                stage = stage.flags(vk::PipelineShaderStageCreateFlags::REQUIRE_FULL_SUBGROUPS);
            }
        }
        let info = vk::ComputePipelineCreateInfo::default()
            .stage(stage)
            .layout(self.layout);
        // SAFETY: module and layout outlive this call (the runtime joins abandoned compiles before dropping).
        unsafe {
            self.device
                .create_compute_pipelines(self.cache, &[info], None)
        }
        .map(|v| v[0])
        .map_err(|(_, e)| e)
    }
}

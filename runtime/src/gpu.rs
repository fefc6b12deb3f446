//! The opened device: logical device, compute queue, memory types and buffers.

use ash::vk;

use crate::device::{DeviceInfo, Instance};
use crate::error::{Result, RuntimeError};

/// A logical device with one compute queue; destroys the device (then the instance) on drop.
pub(crate) struct Gpu {
    pub(crate) device: ash::Device,
    pub(crate) queue: vk::Queue,
    pub(crate) queue_family: u32,
    /// Valid bits of timestamps on the queue (0: no timestamps).
    pub(crate) timestamp_bits: u32,
    pub(crate) memory: vk::PhysicalDeviceMemoryProperties,
    pub(crate) info: DeviceInfo,
    /// The physical device (format and image capability queries).
    pub(crate) physical: vk::PhysicalDevice,
    // Dropped after `device` is destroyed in Drop.
    pub(crate) instance: Instance,
}

/// A buffer with its own memory, mapped persistently when host-visible.
pub(crate) struct Buffer {
    pub(crate) buffer: vk::Buffer,
    pub(crate) memory: vk::DeviceMemory,
    pub(crate) size: u64,
    pub(crate) mapped: Option<*mut u8>,
}

// SAFETY: the mapping is valid in every thread of the process; access goes through `&mut Buffer`.
unsafe impl Send for Buffer {}

impl Buffer {
    /// The mapped bytes. Caller guarantees the GPU is not accessing them concurrently.
    pub(crate) fn bytes_mut(&mut self) -> Option<&mut [u8]> {
        // SAFETY: `mapped` covers `size` bytes for the buffer's lifetime; `&mut self` excludes other host users.
        self.mapped
            .map(|p| unsafe { std::slice::from_raw_parts_mut(p, self.size as usize) })
    }
}

impl Gpu {
    pub(crate) fn open(
        instance: Instance,
        pd: vk::PhysicalDevice,
        info: DeviceInfo,
    ) -> Result<Self> {
        let inst = &instance.instance;
        let families = unsafe { inst.get_physical_device_queue_family_properties(pd) };
        let queue_family = families
            .iter()
            .position(|f| f.queue_flags.contains(vk::QueueFlags::COMPUTE))
            .ok_or_else(|| RuntimeError::MissingFeature {
                device: info.name.clone(),
                missing: "a compute queue".into(),
            })? as u32;
        let timestamp_bits = families[queue_family as usize].timestamp_valid_bits;
        let f = &info.features;
        let features = vk::PhysicalDeviceFeatures::default()
            .shader_int64(f.int64)
            .shader_float64(f.float64)
            .shader_int16(f.int16);
        let mut f11 = vk::PhysicalDeviceVulkan11Features::default()
            .storage_buffer16_bit_access(f.storage_buffer_16bit);
        let mut f12 = vk::PhysicalDeviceVulkan12Features::default()
            .shader_float16(f.float16)
            .shader_int8(f.int8)
            .storage_buffer8_bit_access(f.storage_buffer_8bit)
            .shader_buffer_int64_atomics(f.int64_atomics)
            .shader_shared_int64_atomics(f.int64_atomics)
            .vulkan_memory_model(f.vulkan_memory_model)
            .vulkan_memory_model_device_scope(f.vulkan_memory_model)
            .buffer_device_address(f.buffer_device_address);
        let mut f13 = vk::PhysicalDeviceVulkan13Features::default()
            .subgroup_size_control(f.subgroup_size_control)
            .compute_full_subgroups(f.compute_full_subgroups)
            .maintenance4(f.maintenance4)
            // Core in Vulkan 1.3 (required): lets the translator zero-initialise its workgroup lock word.
            .shader_zero_initialize_workgroup_memory(true);
        let priorities = [1.0f32];
        let queues = [vk::DeviceQueueCreateInfo::default()
            .queue_family_index(queue_family)
            .queue_priorities(&priorities)];
        let mut fmr = vk::PhysicalDeviceShaderMaximalReconvergenceFeaturesKHR::default()
            .shader_maximal_reconvergence(true);
        let extensions = [crate::device::MAXIMAL_RECONVERGENCE.as_ptr()];
        let mut create = vk::DeviceCreateInfo::default()
            .queue_create_infos(&queues)
            .enabled_features(&features)
            .push_next(&mut f11)
            .push_next(&mut f12)
            .push_next(&mut f13);
        if f.maximal_reconvergence {
            create = create
                .enabled_extension_names(&extensions)
                .push_next(&mut fmr);
        }
        // SAFETY: valid create info; features enabled are ones the device reported.
        let device = unsafe { inst.create_device(pd, &create, None) }
            .map_err(RuntimeError::vk("vkCreateDevice"))?;
        let queue = unsafe { device.get_device_queue(queue_family, 0) };
        let memory = unsafe { inst.get_physical_device_memory_properties(pd) };
        Ok(Gpu {
            device,
            queue,
            queue_family,
            timestamp_bits,
            memory,
            info,
            physical: pd,
            instance,
        })
    }

    /// The first memory type allowed by `type_bits` that has `required` and `preferred` flags, else the first
    /// with `required` only. Types are chosen by flags, never by index (drivers order them differently).
    pub(crate) fn memory_type(
        &self,
        type_bits: u32,
        required: vk::MemoryPropertyFlags,
        preferred: vk::MemoryPropertyFlags,
    ) -> Option<u32> {
        let types = &self.memory.memory_types[..self.memory.memory_type_count as usize];
        let fits = |want: vk::MemoryPropertyFlags| {
            types
                .iter()
                .enumerate()
                .position(|(i, t)| type_bits & (1 << i) != 0 && t.property_flags.contains(want))
        };
        fits(required | preferred)
            .or_else(|| fits(required))
            .map(|i| i as u32)
    }

    /// Size of the heap a memory type lives in.
    pub(crate) fn heap_size(&self, memory_type: u32) -> u64 {
        let heap = self.memory.memory_types[memory_type as usize].heap_index;
        self.memory.memory_heaps[heap as usize].size
    }

    /// Whether some memory type is device-local and host-visible-coherent in a heap of at least `size` bytes.
    pub(crate) fn has_mappable_device_local(&self, size: u64) -> bool {
        let want = vk::MemoryPropertyFlags::DEVICE_LOCAL
            | vk::MemoryPropertyFlags::HOST_VISIBLE
            | vk::MemoryPropertyFlags::HOST_COHERENT;
        (0..self.memory.memory_type_count).any(|i| {
            self.memory.memory_types[i as usize]
                .property_flags
                .contains(want)
                && self.heap_size(i) >= size
        })
    }

    /// Creates a buffer with dedicated memory; maps it if the memory is host-visible.
    pub(crate) fn create_buffer(
        &self,
        size: u64,
        usage: vk::BufferUsageFlags,
        required: vk::MemoryPropertyFlags,
        preferred: vk::MemoryPropertyFlags,
        purpose: &'static str,
    ) -> Result<Buffer> {
        let d = &self.device;
        let info = vk::BufferCreateInfo::default()
            .size(size)
            .usage(usage)
            .sharing_mode(vk::SharingMode::EXCLUSIVE);
        let buffer =
            unsafe { d.create_buffer(&info, None) }.map_err(RuntimeError::vk("vkCreateBuffer"))?;
        let req = unsafe { d.get_buffer_memory_requirements(buffer) };
        let Some(type_index) = self.memory_type(req.memory_type_bits, required, preferred) else {
            unsafe { d.destroy_buffer(buffer, None) };
            return Err(RuntimeError::NoMemoryType {
                flags: required,
                purpose,
            });
        };
        // Buffers read through device addresses (chunks of a large window) need memory allocated for them.
        let mut flags = vk::MemoryAllocateFlagsInfo::default().flags(vk::MemoryAllocateFlags::DEVICE_ADDRESS);
        let mut alloc = vk::MemoryAllocateInfo::default()
            .allocation_size(req.size)
            .memory_type_index(type_index);
        if usage.contains(vk::BufferUsageFlags::SHADER_DEVICE_ADDRESS) {
            alloc = alloc.push_next(&mut flags);
        }
        let memory = match unsafe { d.allocate_memory(&alloc, None) } {
            Ok(m) => m,
            Err(e) => {
                unsafe { d.destroy_buffer(buffer, None) };
                return Err(RuntimeError::Vulkan {
                    call: "vkAllocateMemory",
                    result: e,
                });
            }
        };
        let cleanup = |e: vk::Result, call| {
            unsafe {
                d.destroy_buffer(buffer, None);
                d.free_memory(memory, None);
            }
            RuntimeError::Vulkan { call, result: e }
        };
        unsafe { d.bind_buffer_memory(buffer, memory, 0) }
            .map_err(|e| cleanup(e, "vkBindBufferMemory"))?;
        let flags = self.memory.memory_types[type_index as usize].property_flags;
        let mapped = if flags.contains(
            vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT,
        ) {
            let p = unsafe { d.map_memory(memory, 0, vk::WHOLE_SIZE, vk::MemoryMapFlags::empty()) }
                .map_err(|e| cleanup(e, "vkMapMemory"))?;
            Some(p.cast::<u8>())
        } else {
            None
        };
        Ok(Buffer {
            buffer,
            memory,
            size,
            mapped,
        })
    }

    /// The device address of a buffer created with `SHADER_DEVICE_ADDRESS` usage.
    pub(crate) fn buffer_address(&self, b: &Buffer) -> u64 {
        let info = vk::BufferDeviceAddressInfo::default().buffer(b.buffer);
        unsafe { self.device.get_buffer_device_address(&info) }
    }

    /// Destroys a buffer and frees its memory. The GPU must be done with it.
    pub(crate) fn destroy_buffer(&self, b: &Buffer) {
        unsafe {
            self.device.destroy_buffer(b.buffer, None);
            self.device.free_memory(b.memory, None);
        }
    }
}

impl Drop for Gpu {
    fn drop(&mut self) {
        unsafe {
            let _ = self.device.device_wait_idle();
            self.device.destroy_device(None);
        }
    }
}

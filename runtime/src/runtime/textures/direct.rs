//! Textures the host writes in place: a linear image in memory that is both device-local and host-visible
//! (CPU devices such as lavapipe, integrated GPUs), mapped for the texture's lifetime. Untiling writes each
//! level and layer straight at its subresource offset and row pitch, so an upload is one pass over the
//! bytes instead of untiling into staging memory and a second, device-side copy (on lavapipe that copy is
//! another CPU pass). Discrete GPUs keep the staged path: their DMA copy is fast and sampling a linear
//! image is not.

use ash::vk;
use sassport_textures::{Chain, Placement};

use super::super::Runtime;
use crate::device::DeviceKind;
use crate::error::{Result, RuntimeError};

/// The mapping and where each level and layer lies in it (level-major, then layer, like the packed form).
pub(crate) struct Direct {
    mapped: *mut u8,
    size: u64,
    pub(crate) places: Vec<Placement>,
}

impl Direct {
    /// The mapped image memory. Caller guarantees the GPU is not accessing it concurrently.
    pub(crate) fn bytes_mut(&mut self) -> &mut [u8] {
        // SAFETY: `mapped` covers `size` bytes while the memory lives; `&mut self` excludes other host users.
        unsafe { std::slice::from_raw_parts_mut(self.mapped, self.size as usize) }
    }
}

/// Copies the packed form of `chain` (what `untile_chain` writes) into the placed form.
pub(crate) fn place_packed(chain: &Chain, packed: &[u8], direct: &mut Direct) {
    let from = chain.packed_placements();
    let to = direct.places.clone();
    let dst = direct.bytes_mut();
    for (i, (f, t)) in from.iter().zip(&to).enumerate() {
        let level = &chain.levels[i / chain.layers as usize];
        let row = level.row_bytes as usize;
        for z in 0..level.depth as u64 {
            for r in 0..level.rows as u64 {
                let s = (f.offset + z * f.depth_pitch + r * f.row_pitch) as usize;
                let d = (t.offset + z * t.depth_pitch + r * t.row_pitch) as usize;
                dst[d..d + row].copy_from_slice(&packed[s..s + row]);
            }
        }
    }
}

impl Runtime {
    /// A mapped linear image for `info` (tiling and initial layout replaced) when the device shares memory
    /// with the host and supports the image linearly; None otherwise (the caller stages instead).
    pub(crate) fn direct_image(
        &self,
        info: &vk::ImageCreateInfo,
        chain: &Chain,
    ) -> Result<Option<(vk::Image, vk::DeviceMemory, Direct)>> {
        if !matches!(self.gpu.info.kind, DeviceKind::Cpu | DeviceKind::Integrated) {
            return Ok(None);
        }
        let info = info
            .tiling(vk::ImageTiling::LINEAR)
            .initial_layout(vk::ImageLayout::PREINITIALIZED);
        let inst = &self.gpu.instance.instance;
        let caps = unsafe {
            inst.get_physical_device_image_format_properties(
                self.gpu.physical,
                info.format,
                info.image_type,
                info.tiling,
                info.usage,
                info.flags,
            )
        };
        let Ok(caps) = caps else {
            return Ok(None);
        };
        let e = caps.max_extent;
        if caps.max_mip_levels < info.mip_levels
            || caps.max_array_layers < info.array_layers
            || e.width < info.extent.width
            || e.height < info.extent.height
            || e.depth < info.extent.depth
        {
            return Ok(None);
        }
        let d = &self.gpu.device;
        let image = unsafe { d.create_image(&info, None) }.map_err(RuntimeError::vk("vkCreateImage"))?;
        let req = unsafe { d.get_image_memory_requirements(image) };
        let shared = vk::MemoryPropertyFlags::DEVICE_LOCAL
            | vk::MemoryPropertyFlags::HOST_VISIBLE
            | vk::MemoryPropertyFlags::HOST_COHERENT;
        let Some(type_index) = self.gpu.memory_type(req.memory_type_bits, shared, vk::MemoryPropertyFlags::empty())
        else {
            unsafe { d.destroy_image(image, None) };
            return Ok(None);
        };
        let alloc = vk::MemoryAllocateInfo::default()
            .allocation_size(req.size)
            .memory_type_index(type_index);
        let cleanup = |memory: Option<vk::DeviceMemory>, call, result| {
            unsafe {
                d.destroy_image(image, None);
                if let Some(m) = memory {
                    d.free_memory(m, None);
                }
            }
            RuntimeError::Vulkan { call, result }
        };
        let memory =
            unsafe { d.allocate_memory(&alloc, None) }.map_err(|e| cleanup(None, "vkAllocateMemory", e))?;
        unsafe { d.bind_image_memory(image, memory, 0) }
            .map_err(|e| cleanup(Some(memory), "vkBindImageMemory", e))?;
        let mapped = unsafe { d.map_memory(memory, 0, vk::WHOLE_SIZE, vk::MemoryMapFlags::empty()) }
            .map_err(|e| cleanup(Some(memory), "vkMapMemory", e))?;
        let places = self.subresource_places(image, chain);
        let direct = Direct {
            mapped: mapped.cast::<u8>(),
            size: req.size,
            places,
        };
        Ok(Some((image, memory, direct)))
    }

    /// Each level and layer's offset and pitches in the image's memory (level-major, then layer).
    fn subresource_places(&self, image: vk::Image, chain: &Chain) -> Vec<Placement> {
        let d = &self.gpu.device;
        let mut out = Vec::with_capacity(chain.levels.len() * chain.layers as usize);
        for l in 0..chain.levels.len() as u32 {
            for layer in 0..chain.layers {
                let sub = vk::ImageSubresource::default()
                    .aspect_mask(vk::ImageAspectFlags::COLOR)
                    .mip_level(l)
                    .array_layer(layer);
                let s = unsafe { d.get_image_subresource_layout(image, sub) };
                out.push(Placement {
                    offset: s.offset,
                    row_pitch: s.row_pitch,
                    depth_pitch: s.depth_pitch,
                });
            }
        }
        out
    }
}

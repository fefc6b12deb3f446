//! The Vulkan objects of one draw, destroyed together when the draw is done.

use ash::vk;

use super::{vk_err, GraphicsDevice, GraphicsError};

/// Objects made for one draw; Drop destroys them in reverse dependency order.
pub(crate) struct Scratch<'a> {
    pub(crate) gd: &'a GraphicsDevice,
    pub(crate) buffers: Vec<(vk::Buffer, vk::DeviceMemory)>,
    pub(crate) images: Vec<(vk::Image, vk::ImageView, vk::DeviceMemory)>,
    pub(crate) modules: Vec<vk::ShaderModule>,
    pub(crate) set_layouts: Vec<vk::DescriptorSetLayout>,
    pub(crate) pipeline_layout: vk::PipelineLayout,
    pub(crate) pipeline: vk::Pipeline,
    pub(crate) descriptor_pool: vk::DescriptorPool,
    pub(crate) command_pool: vk::CommandPool,
    pub(crate) fence: vk::Fence,
}

impl<'a> Scratch<'a> {
    pub(crate) fn new(gd: &'a GraphicsDevice) -> Self {
        Scratch {
            gd,
            buffers: Vec::new(),
            images: Vec::new(),
            modules: Vec::new(),
            set_layouts: Vec::new(),
            pipeline_layout: vk::PipelineLayout::null(),
            pipeline: vk::Pipeline::null(),
            descriptor_pool: vk::DescriptorPool::null(),
            command_pool: vk::CommandPool::null(),
            fence: vk::Fence::null(),
        }
    }

    fn memory_type(&self, bits: u32, flags: vk::MemoryPropertyFlags) -> Option<u32> {
        let m = &self.gd.memory;
        (0..m.memory_type_count).find(|&i| {
            bits >> i & 1 != 0 && m.memory_types[i as usize].property_flags.contains(flags)
        })
    }

    fn allocate(
        &self,
        req: vk::MemoryRequirements,
        flags: vk::MemoryPropertyFlags,
        what: &'static str,
    ) -> Result<vk::DeviceMemory, GraphicsError> {
        let index = self
            .memory_type(req.memory_type_bits, flags)
            .ok_or(GraphicsError::NoMemoryType { what })?;
        let info = vk::MemoryAllocateInfo::default()
            .allocation_size(req.size)
            .memory_type_index(index);
        // SAFETY: valid allocate info.
        unsafe { self.gd.device.allocate_memory(&info, None) }.map_err(vk_err("vkAllocateMemory"))
    }

    /// A host-visible, coherent buffer of `size` bytes (at least 16) holding `data` then zeros.
    pub(crate) fn buffer(
        &mut self,
        size: u64,
        usage: vk::BufferUsageFlags,
        data: &[u8],
    ) -> Result<vk::Buffer, GraphicsError> {
        let d = &self.gd.device;
        let size = size.max(data.len() as u64).max(16);
        let info = vk::BufferCreateInfo::default().size(size).usage(usage);
        // SAFETY: valid create info.
        let buffer = unsafe { d.create_buffer(&info, None) }.map_err(vk_err("vkCreateBuffer"))?;
        // SAFETY: `buffer` is live.
        let req = unsafe { d.get_buffer_memory_requirements(buffer) };
        let flags = vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT;
        let memory = match self.allocate(req, flags, "a host-visible buffer") {
            Ok(m) => m,
            Err(e) => {
                // SAFETY: not bound or used yet.
                unsafe { d.destroy_buffer(buffer, None) };
                return Err(e);
            }
        };
        self.buffers.push((buffer, memory));
        // SAFETY: fresh memory of the buffer's requirements; mapped range within its size.
        unsafe {
            d.bind_buffer_memory(buffer, memory, 0)
                .map_err(vk_err("vkBindBufferMemory"))?;
            let p = d
                .map_memory(memory, 0, size, vk::MemoryMapFlags::empty())
                .map_err(vk_err("vkMapMemory"))?;
            let bytes = std::slice::from_raw_parts_mut(p.cast::<u8>(), size as usize);
            bytes.fill(0);
            bytes[..data.len()].copy_from_slice(data);
            d.unmap_memory(memory);
        }
        Ok(buffer)
    }

    /// Reads `len` bytes of the host-visible buffer made `index`-th.
    pub(crate) fn read(&self, buffer: vk::Buffer, len: usize) -> Result<Vec<u8>, GraphicsError> {
        let d = &self.gd.device;
        let Some(&(_, memory)) = self.buffers.iter().find(|(b, _)| *b == buffer) else {
            return Err(GraphicsError::BadDraw("readback buffer missing".into()));
        };
        // SAFETY: the buffer is at least `len` bytes, host-visible and idle (the fence was waited on).
        unsafe {
            let p = d
                .map_memory(memory, 0, len as u64, vk::MemoryMapFlags::empty())
                .map_err(vk_err("vkMapMemory"))?;
            let out = std::slice::from_raw_parts(p.cast::<u8>(), len).to_vec();
            d.unmap_memory(memory);
            Ok(out)
        }
    }

    /// A device-local 2-D image with a view, for rendering to and copying from.
    pub(crate) fn image(
        &mut self,
        width: u32,
        height: u32,
        format: vk::Format,
        usage: vk::ImageUsageFlags,
        aspect: vk::ImageAspectFlags,
    ) -> Result<(vk::Image, vk::ImageView), GraphicsError> {
        let d = &self.gd.device;
        let info = vk::ImageCreateInfo::default()
            .image_type(vk::ImageType::TYPE_2D)
            .format(format)
            .extent(vk::Extent3D {
                width,
                height,
                depth: 1,
            })
            .mip_levels(1)
            .array_layers(1)
            .samples(vk::SampleCountFlags::TYPE_1)
            .tiling(vk::ImageTiling::OPTIMAL)
            .usage(usage | vk::ImageUsageFlags::TRANSFER_SRC);
        // SAFETY: valid create info.
        let image = unsafe { d.create_image(&info, None) }.map_err(vk_err("vkCreateImage"))?;
        // SAFETY: `image` is live.
        let req = unsafe { d.get_image_memory_requirements(image) };
        let memory = match self.allocate(req, vk::MemoryPropertyFlags::empty(), "an image") {
            Ok(m) => m,
            Err(e) => {
                // SAFETY: not bound or used yet.
                unsafe { d.destroy_image(image, None) };
                return Err(e);
            }
        };
        // SAFETY: fresh memory of the image's requirements.
        unsafe { d.bind_image_memory(image, memory, 0) }.map_err(vk_err("vkBindImageMemory"))?;
        let range = vk::ImageSubresourceRange::default()
            .aspect_mask(aspect)
            .level_count(1)
            .layer_count(1);
        let view_info = vk::ImageViewCreateInfo::default()
            .image(image)
            .view_type(vk::ImageViewType::TYPE_2D)
            .format(format)
            .subresource_range(range);
        // SAFETY: the image is bound to memory.
        let view = match unsafe { d.create_image_view(&view_info, None) } {
            Ok(v) => v,
            Err(e) => {
                self.images.push((image, vk::ImageView::null(), memory));
                return Err(vk_err("vkCreateImageView")(e));
            }
        };
        self.images.push((image, view, memory));
        Ok((image, view))
    }
}

impl Drop for Scratch<'_> {
    fn drop(&mut self) {
        let d = &self.gd.device;
        // SAFETY: the draw's fence was waited on (or nothing was submitted), so none of these is in use;
        // destroying null handles is allowed.
        unsafe {
            let _ = d.device_wait_idle();
            d.destroy_fence(self.fence, None);
            d.destroy_command_pool(self.command_pool, None);
            d.destroy_descriptor_pool(self.descriptor_pool, None);
            d.destroy_pipeline(self.pipeline, None);
            d.destroy_pipeline_layout(self.pipeline_layout, None);
            for l in &self.set_layouts {
                d.destroy_descriptor_set_layout(*l, None);
            }
            for m in &self.modules {
                d.destroy_shader_module(*m, None);
            }
            for (image, view, memory) in &self.images {
                d.destroy_image_view(*view, None);
                d.destroy_image(*image, None);
                d.free_memory(*memory, None);
            }
            for (buffer, memory) in &self.buffers {
                d.destroy_buffer(*buffer, None);
                d.free_memory(*memory, None);
            }
        }
    }
}

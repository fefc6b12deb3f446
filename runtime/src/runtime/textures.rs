//! Host images and samplers made from decoded texture headers and samplers: a device-local image with one
//! view and one sampler, filled from the packed form of its mip chain (`sassport_textures::untile_chain`)
//! through a staging buffer, and read back level by level (what tests compare).
//!
//! The caller owns a [`HostTexture`] and gives it back with [`Runtime::destroy_texture`] before the runtime
//! is dropped. Binding textures to launches is not done yet.

mod direct;

use ash::vk;
use sassport_textures::{untile_chain, untile_chain_placed, Chain, Sampler, TextureHeader};

use direct::{place_packed, Direct};

use super::Runtime;
use crate::error::{Result, RuntimeError};
use crate::gpu::Buffer;
use crate::texture_format::{component_mapping, image_types, sampler_info, vk_format, TextureError};

/// An image, its memory, view and sampler, and the chain it was made from.
pub struct HostTexture {
    image: vk::Image,
    memory: vk::DeviceMemory,
    view: vk::ImageView,
    sampler: vk::Sampler,
    chain: Chain,
    extent: [u32; 3],
    /// Host-visible buffer of the packed chain, kept for re-uploads (the emulator re-uploads a texture
    /// whenever its guest pages change).
    staging: Option<Buffer>,
    /// A linear image the host writes in place (devices that share memory with the host): no staging.
    direct: Option<Direct>,
}

// SAFETY: the mapping of `direct` is valid in every thread of the process; access goes through `&mut`.
unsafe impl Send for HostTexture {}

/// Where a texture's image lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TextureMemory {
    /// Written in place where the device shares memory with the host and supports the image linearly,
    /// staged otherwise.
    Auto,
    /// An optimal-tiling image filled through a staging buffer and a buffer-to-image copy.
    Staged,
}

impl HostTexture {
    /// Whether the host writes the image in place (no staging copy).
    pub fn is_direct(&self) -> bool {
        self.direct.is_some()
    }

    /// The layout the image rests in between uploads and reads.
    fn rest_layout(&self) -> vk::ImageLayout {
        match self.direct {
            Some(_) => vk::ImageLayout::GENERAL,
            None => vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL,
        }
    }

    /// The chain (levels, layers) the image holds.
    pub fn chain(&self) -> &Chain {
        &self.chain
    }
}

const COLOR: vk::ImageAspectFlags = vk::ImageAspectFlags::COLOR;

impl Runtime {
    /// Creates the image, view and sampler for `header`/`sampler` and uploads `packed` (the chain's packed
    /// form, `chain.packed_bytes()` long).
    pub fn create_texture(
        &mut self,
        header: &TextureHeader,
        sampler: &Sampler,
        chain: Chain,
        packed: &[u8],
    ) -> Result<HostTexture> {
        self.create_texture_in(header, sampler, chain, packed, TextureMemory::Auto)
    }

    /// [`Runtime::create_texture`] with the image's memory chosen by `memory`.
    pub fn create_texture_in(
        &mut self,
        header: &TextureHeader,
        sampler: &Sampler,
        chain: Chain,
        packed: &[u8],
        memory: TextureMemory,
    ) -> Result<HostTexture> {
        let texture_error = |e: TextureError| RuntimeError::Texture(e.to_string());
        let format = vk_format(&header.format, header.srgb).map_err(texture_error)?;
        let (image_type, view_type, cube) = image_types(header).map_err(texture_error)?;
        let sampler_create = sampler_info(sampler, header).map_err(texture_error)?;
        if (packed.len() as u64) < chain.packed_bytes() {
            return Err(RuntimeError::Texture(format!(
                "{} packed bytes given, the chain needs {}",
                packed.len(),
                chain.packed_bytes()
            )));
        }
        let extent = [header.width, header.height, header.slices()];
        let info = vk::ImageCreateInfo::default()
            .flags(if cube {
                vk::ImageCreateFlags::CUBE_COMPATIBLE
            } else {
                vk::ImageCreateFlags::empty()
            })
            .image_type(image_type)
            .format(format)
            .extent(vk::Extent3D {
                width: extent[0],
                height: extent[1],
                depth: extent[2],
            })
            .mip_levels(chain.levels.len() as u32)
            .array_layers(chain.layers)
            .samples(vk::SampleCountFlags::TYPE_1)
            .tiling(vk::ImageTiling::OPTIMAL)
            .usage(
                vk::ImageUsageFlags::SAMPLED
                    | vk::ImageUsageFlags::TRANSFER_DST
                    | vk::ImageUsageFlags::TRANSFER_SRC,
            )
            .sharing_mode(vk::SharingMode::EXCLUSIVE)
            .initial_layout(vk::ImageLayout::UNDEFINED);
        let direct = match memory {
            TextureMemory::Auto => self.direct_image(&info, &chain)?,
            TextureMemory::Staged => None,
        };
        let (image, memory, direct) = match direct {
            Some((image, memory, direct)) => (image, memory, Some(direct)),
            None => {
                let (image, memory) = self.image_with_memory(&info)?;
                (image, memory, None)
            }
        };
        let mut texture = HostTexture {
            image,
            memory,
            view: vk::ImageView::null(),
            sampler: vk::Sampler::null(),
            chain,
            extent,
            staging: None,
            direct,
        };
        if let Err(e) = self.finish_texture(&mut texture, format, view_type, header, &sampler_create, packed)
        {
            self.destroy_texture(texture);
            return Err(e);
        }
        Ok(texture)
    }

    fn image_with_memory(&self, info: &vk::ImageCreateInfo) -> Result<(vk::Image, vk::DeviceMemory)> {
        let d = &self.gpu.device;
        let image = unsafe { d.create_image(info, None) }.map_err(RuntimeError::vk("vkCreateImage"))?;
        let req = unsafe { d.get_image_memory_requirements(image) };
        let Some(type_index) = self.gpu.memory_type(
            req.memory_type_bits,
            vk::MemoryPropertyFlags::empty(),
            vk::MemoryPropertyFlags::DEVICE_LOCAL,
        ) else {
            unsafe { d.destroy_image(image, None) };
            return Err(RuntimeError::NoMemoryType {
                flags: vk::MemoryPropertyFlags::empty(),
                purpose: "texture image",
            });
        };
        let alloc = vk::MemoryAllocateInfo::default()
            .allocation_size(req.size)
            .memory_type_index(type_index);
        let memory = match unsafe { d.allocate_memory(&alloc, None) } {
            Ok(m) => m,
            Err(result) => {
                unsafe { d.destroy_image(image, None) };
                return Err(RuntimeError::Vulkan {
                    call: "vkAllocateMemory",
                    result,
                });
            }
        };
        if let Err(result) = unsafe { d.bind_image_memory(image, memory, 0) } {
            unsafe {
                d.destroy_image(image, None);
                d.free_memory(memory, None);
            }
            return Err(RuntimeError::Vulkan {
                call: "vkBindImageMemory",
                result,
            });
        }
        Ok((image, memory))
    }

    fn finish_texture(
        &mut self,
        t: &mut HostTexture,
        format: vk::Format,
        view_type: vk::ImageViewType,
        header: &TextureHeader,
        sampler: &vk::SamplerCreateInfo,
        packed: &[u8],
    ) -> Result<()> {
        let range = vk::ImageSubresourceRange::default()
            .aspect_mask(COLOR)
            .level_count(t.chain.levels.len() as u32)
            .layer_count(t.chain.layers);
        let view = vk::ImageViewCreateInfo::default()
            .image(t.image)
            .view_type(view_type)
            .format(format)
            .components(component_mapping(&header.format))
            .subresource_range(range);
        let d = &self.gpu.device;
        t.view =
            unsafe { d.create_image_view(&view, None) }.map_err(RuntimeError::vk("vkCreateImageView"))?;
        t.sampler =
            unsafe { d.create_sampler(sampler, None) }.map_err(RuntimeError::vk("vkCreateSampler"))?;
        self.upload_texture(t, packed)?;
        if t.direct.is_some() {
            // Host writes to a PREINITIALIZED image survive this transition; it stays GENERAL from now on
            // (host writes to linear images are defined there), and later submissions see later writes.
            let (image, levels, layers) = (t.image, t.chain.levels.len() as u32, t.chain.layers);
            self.submit(|d, cb| unsafe {
                layout_barrier(
                    d,
                    cb,
                    image,
                    levels,
                    layers,
                    vk::ImageLayout::PREINITIALIZED,
                    vk::ImageLayout::GENERAL,
                );
            })?;
        }
        Ok(())
    }

    /// Untiles the chain from `guest` (its first byte at the texture's address; `pitch` for pitch-linear
    /// textures) into `t`: straight into the image where it is written in place, else into the staging
    /// memory followed by the copy. The GPU must not be using `t`.
    pub fn upload_texture_from_guest(&mut self, t: &mut HostTexture, guest: &[u8], pitch: u32) -> Result<()> {
        let texture_error = |e: sassport_textures::UntileError| RuntimeError::Texture(e.to_string());
        if let Some(direct) = t.direct.as_mut() {
            let places = std::mem::take(&mut direct.places);
            let result = untile_chain_placed(&t.chain, guest, pitch, direct.bytes_mut(), &places);
            direct.places = places;
            return result.map_err(texture_error);
        }
        let chain = t.chain.clone();
        self.upload_texture_with(t, |staging| untile_chain(&chain, guest, staging, pitch).map_err(texture_error))
    }

    /// Copies `packed` into every level and layer of `t` and leaves the image shader-readable.
    pub fn upload_texture(&mut self, t: &mut HostTexture, packed: &[u8]) -> Result<()> {
        self.upload_texture_with(t, |staging| {
            staging.copy_from_slice(&packed[..staging.len()]);
            Ok(())
        })
    }

    /// Lets `fill` write the packed chain straight into the texture's staging memory (e.g. by untiling
    /// guest memory into it: no extra copy), then copies it into every level and layer of `t`.
    pub fn upload_texture_with(
        &mut self,
        t: &mut HostTexture,
        fill: impl FnOnce(&mut [u8]) -> Result<()>,
    ) -> Result<()> {
        let bytes = t.chain.packed_bytes();
        if let Some(direct) = t.direct.as_mut() {
            let mut packed = vec![0u8; bytes as usize];
            fill(&mut packed)?;
            place_packed(&t.chain, &packed, direct);
            return Ok(());
        }
        if t.staging.is_none() {
            t.staging = Some(self.staging(bytes, vk::BufferUsageFlags::TRANSFER_SRC)?);
        }
        let Some(staging) = t.staging.as_mut() else {
            return Ok(());
        };
        match staging.bytes_mut() {
            Some(dst) => fill(&mut dst[..bytes as usize])?,
            None => return Err(RuntimeError::Texture("staging memory is not host-visible".into())),
        }
        let src = staging.buffer;
        let regions = copy_regions(t);
        let (image, levels, layers) = (t.image, t.chain.levels.len() as u32, t.chain.layers);
        self.submit(|d, cb| unsafe {
            layout_barrier(
                d,
                cb,
                image,
                levels,
                layers,
                vk::ImageLayout::UNDEFINED,
                vk::ImageLayout::TRANSFER_DST_OPTIMAL,
            );
            d.cmd_copy_buffer_to_image(cb, src, image, vk::ImageLayout::TRANSFER_DST_OPTIMAL, &regions);
            layout_barrier(
                d,
                cb,
                image,
                levels,
                layers,
                vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL,
            );
        })
    }

    /// Reads every level and layer of `t` back in packed form (`t.chain().packed_bytes()` bytes).
    pub fn read_texture(&mut self, t: &HostTexture, out: &mut [u8]) -> Result<()> {
        let bytes = t.chain.packed_bytes();
        if (out.len() as u64) < bytes {
            return Err(RuntimeError::Texture(format!(
                "{} bytes to read into, {bytes} needed",
                out.len()
            )));
        }
        let mut staging = self.staging(bytes, vk::BufferUsageFlags::TRANSFER_DST)?;
        let regions = copy_regions(t);
        let (image, levels, layers) = (t.image, t.chain.levels.len() as u32, t.chain.layers);
        let dst = staging.buffer;
        let shader = t.rest_layout();
        let result = self.submit(|d, cb| unsafe {
            layout_barrier(
                d,
                cb,
                image,
                levels,
                layers,
                shader,
                vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
            );
            d.cmd_copy_image_to_buffer(cb, image, vk::ImageLayout::TRANSFER_SRC_OPTIMAL, dst, &regions);
            layout_barrier(
                d,
                cb,
                image,
                levels,
                layers,
                vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
                shader,
            );
        });
        if result.is_ok() {
            if let Some(src) = staging.bytes_mut() {
                out[..bytes as usize].copy_from_slice(src);
            }
        }
        self.gpu.destroy_buffer(&staging);
        result
    }

    fn staging(&self, bytes: u64, usage: vk::BufferUsageFlags) -> Result<Buffer> {
        let host = vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT;
        self.gpu.create_buffer(
            bytes.max(4),
            usage,
            host,
            vk::MemoryPropertyFlags::empty(),
            "texture staging",
        )
    }

    /// Destroys `t` (the GPU must be done with it).
    pub fn destroy_texture(&mut self, t: HostTexture) {
        if let Some(staging) = &t.staging {
            self.gpu.destroy_buffer(staging);
        }
        let d = &self.gpu.device;
        unsafe {
            if t.sampler != vk::Sampler::null() {
                d.destroy_sampler(t.sampler, None);
            }
            if t.view != vk::ImageView::null() {
                d.destroy_image_view(t.view, None);
            }
            d.destroy_image(t.image, None);
            d.free_memory(t.memory, None);
        }
    }
}

/// One buffer-image copy per level covering all layers, at the level's offset in the packed form.
fn copy_regions(t: &HostTexture) -> Vec<vk::BufferImageCopy> {
    t.chain
        .levels
        .iter()
        .enumerate()
        .map(|(l, level)| {
            let shrink = |v: u32| (v >> l).max(1);
            vk::BufferImageCopy::default()
                .buffer_offset(t.chain.packed_offset(l))
                .image_subresource(
                    vk::ImageSubresourceLayers::default()
                        .aspect_mask(COLOR)
                        .mip_level(l as u32)
                        .layer_count(t.chain.layers),
                )
                .image_extent(vk::Extent3D {
                    width: shrink(t.extent[0]),
                    height: shrink(t.extent[1]),
                    depth: level.depth,
                })
        })
        .collect()
}

/// A full-image layout transition between transfers and shader reads.
unsafe fn layout_barrier(
    d: &ash::Device,
    cb: vk::CommandBuffer,
    image: vk::Image,
    levels: u32,
    layers: u32,
    from: vk::ImageLayout,
    to: vk::ImageLayout,
) {
    let range = vk::ImageSubresourceRange::default()
        .aspect_mask(COLOR)
        .level_count(levels)
        .layer_count(layers);
    let access = |l: vk::ImageLayout| match l {
        vk::ImageLayout::TRANSFER_DST_OPTIMAL => vk::AccessFlags::TRANSFER_WRITE,
        vk::ImageLayout::TRANSFER_SRC_OPTIMAL => vk::AccessFlags::TRANSFER_READ,
        vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL => vk::AccessFlags::SHADER_READ,
        vk::ImageLayout::GENERAL => vk::AccessFlags::SHADER_READ | vk::AccessFlags::TRANSFER_READ,
        // Host writes before a submission are visible to it without a barrier.
        _ => vk::AccessFlags::empty(),
    };
    let barrier = vk::ImageMemoryBarrier::default()
        .src_access_mask(access(from))
        .dst_access_mask(access(to))
        .old_layout(from)
        .new_layout(to)
        .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
        .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
        .image(image)
        .subresource_range(range);
    let stages = vk::PipelineStageFlags::ALL_COMMANDS;
    d.cmd_pipeline_barrier(
        cb,
        stages,
        stages,
        vk::DependencyFlags::empty(),
        &[],
        &[],
        &[barrier],
    );
}

impl Runtime {
    /// Points launches at a texture-header (TIC) pool and a sampler (TSC) pool in the window: the TEX and
    /// SU families read a handle's entries there (TIC index bits 19:0, TSC index bits 31:20). 0: none.
    pub fn set_texture_pools(&mut self, headers: u64, samplers: u64) {
        self.texture_pools = [headers, samplers];
    }

    /// The pools as the launch values' words 20..23.
    pub(crate) fn texture_pool_words(&self) -> [u32; 4] {
        let [h, s] = self.texture_pools;
        [h as u32, (h >> 32) as u32, s as u32, (s >> 32) as u32]
    }
}

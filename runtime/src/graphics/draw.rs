//! Recording, running and reading back one draw.

use ash::vk;

use super::resources::Scratch;
use super::{pipeline, vk_err, Draw, GraphicsDevice, GraphicsError, Rendered};

/// Largest target side accepted.
pub const MAX_TARGET_SIDE: u32 = 4096;

struct Targets {
    colors: Vec<(vk::Image, vk::ImageView, vk::Buffer, usize)>,
    depth: Option<(vk::Image, vk::ImageView, vk::Buffer, usize)>,
}

fn check(draw: &Draw) -> Result<(), GraphicsError> {
    let bad = |s: String| Err(GraphicsError::BadDraw(s));
    if draw.width == 0
        || draw.height == 0
        || draw.width > MAX_TARGET_SIDE
        || draw.height > MAX_TARGET_SIDE
    {
        return bad(format!(
            "target {}x{} (1..={MAX_TARGET_SIDE} a side)",
            draw.width, draw.height
        ));
    }
    if draw.color_formats.is_empty() || draw.color_formats.len() > 8 {
        return bad(format!(
            "{} colour targets (1..=8)",
            draw.color_formats.len()
        ));
    }
    for a in &draw.attributes {
        if !(1..=4).contains(&a.components) || a.offset + 4 * a.components > draw.stride {
            return bad(format!(
                "attribute at location {} does not fit the {}-byte stride",
                a.location, draw.stride
            ));
        }
    }
    if !draw.attributes.is_empty() {
        let need = u64::from(draw.stride) * u64::from(draw.vertex_count);
        if (draw.vertex_data.len() as u64) < need {
            return bad(format!(
                "{} bytes of vertex data, {} vertices need {need}",
                draw.vertex_data.len(),
                draw.vertex_count
            ));
        }
    }
    Ok(())
}

impl GraphicsDevice {
    /// Runs `draw` and returns its targets.
    pub fn render(&self, draw: &Draw) -> Result<Rendered, GraphicsError> {
        check(draw)?;
        let mut s = Scratch::new(self);
        pipeline::layout(&mut s, draw)?;
        pipeline::pipeline(&mut s, draw)?;
        let targets = make_targets(&mut s, draw)?;
        let sets = descriptor_sets(&mut s, draw)?;
        let vertex = if draw.attributes.is_empty() {
            None
        } else {
            Some(s.buffer(
                draw.vertex_data.len() as u64,
                vk::BufferUsageFlags::VERTEX_BUFFER,
                &draw.vertex_data,
            )?)
        };
        let cmd = command_buffer(&mut s)?;
        record(&s, cmd, draw, &targets, &sets, vertex)?;
        submit(&mut s, cmd)?;
        let mut colors = Vec::new();
        for (_, _, buffer, len) in &targets.colors {
            colors.push(s.read(*buffer, *len)?);
        }
        let depth = match &targets.depth {
            Some((_, _, buffer, len)) => Some(s.read(*buffer, *len)?),
            None => None,
        };
        Ok(Rendered { colors, depth })
    }
}

fn make_targets(s: &mut Scratch<'_>, draw: &Draw) -> Result<Targets, GraphicsError> {
    let pixels = draw.width as usize * draw.height as usize;
    let mut colors = Vec::new();
    for f in &draw.color_formats {
        let (image, view) = s.image(
            draw.width,
            draw.height,
            f.vk(),
            vk::ImageUsageFlags::COLOR_ATTACHMENT,
            vk::ImageAspectFlags::COLOR,
        )?;
        let len = pixels * f.bytes_per_pixel() as usize;
        let buffer = s.buffer(len as u64, vk::BufferUsageFlags::TRANSFER_DST, &[])?;
        colors.push((image, view, buffer, len));
    }
    let depth = match draw.depth {
        Some(_) => {
            let usage = vk::ImageUsageFlags::DEPTH_STENCIL_ATTACHMENT;
            let (image, view) = s.image(
                draw.width,
                draw.height,
                vk::Format::D32_SFLOAT,
                usage,
                vk::ImageAspectFlags::DEPTH,
            )?;
            let buffer = s.buffer(pixels as u64 * 4, vk::BufferUsageFlags::TRANSFER_DST, &[])?;
            Some((image, view, buffer, pixels * 4))
        }
        None => None,
    };
    Ok(Targets { colors, depth })
}

fn descriptor_sets(
    s: &mut Scratch<'_>,
    draw: &Draw,
) -> Result<Vec<vk::DescriptorSet>, GraphicsError> {
    let d = &s.gd.device;
    let sizes = [vk::DescriptorPoolSize {
        ty: vk::DescriptorType::UNIFORM_BUFFER,
        descriptor_count: draw.banks.len().max(1) as u32,
    }];
    let info = vk::DescriptorPoolCreateInfo::default()
        .max_sets(pipeline::SETS)
        .pool_sizes(&sizes);
    // SAFETY: valid create info.
    s.descriptor_pool = unsafe { d.create_descriptor_pool(&info, None) }
        .map_err(vk_err("vkCreateDescriptorPool"))?;
    let alloc = vk::DescriptorSetAllocateInfo::default()
        .descriptor_pool(s.descriptor_pool)
        .set_layouts(&s.set_layouts);
    // SAFETY: the pool has room for one set per layout.
    let sets = unsafe { s.gd.device.allocate_descriptor_sets(&alloc) }
        .map_err(vk_err("vkAllocateDescriptorSets"))?;
    for b in &draw.banks {
        let size = u64::from(b.bytes.max(16))
            .max(b.data.len() as u64)
            .next_multiple_of(16);
        let buffer = s.buffer(size, vk::BufferUsageFlags::UNIFORM_BUFFER, &b.data)?;
        let infos = [vk::DescriptorBufferInfo {
            buffer,
            offset: 0,
            range: size,
        }];
        let set = *sets
            .get(b.set as usize)
            .ok_or_else(|| GraphicsError::BadDraw(format!("descriptor set {}", b.set)))?;
        let write = vk::WriteDescriptorSet::default()
            .dst_set(set)
            .dst_binding(crate::abi::FIRST_BANK_BINDING + u32::from(b.bank))
            .descriptor_type(vk::DescriptorType::UNIFORM_BUFFER)
            .buffer_info(&infos);
        // SAFETY: the set and buffer are live; the binding is in the set's layout.
        unsafe { s.gd.device.update_descriptor_sets(&[write], &[]) };
    }
    Ok(sets)
}

pub(crate) fn command_buffer(s: &mut Scratch<'_>) -> Result<vk::CommandBuffer, GraphicsError> {
    let d = &s.gd.device;
    let info = vk::CommandPoolCreateInfo::default().queue_family_index(s.gd.queue_family);
    // SAFETY: valid create info.
    s.command_pool =
        unsafe { d.create_command_pool(&info, None) }.map_err(vk_err("vkCreateCommandPool"))?;
    let alloc = vk::CommandBufferAllocateInfo::default()
        .command_pool(s.command_pool)
        .command_buffer_count(1);
    // SAFETY: the pool is live.
    let cmds = unsafe { d.allocate_command_buffers(&alloc) }
        .map_err(vk_err("vkAllocateCommandBuffers"))?;
    cmds.first()
        .copied()
        .ok_or_else(|| GraphicsError::BadDraw("no command buffer".into()))
}

pub(crate) fn barrier(
    d: &ash::Device,
    cmd: vk::CommandBuffer,
    image: vk::Image,
    aspect: vk::ImageAspectFlags,
    (from, to): (vk::ImageLayout, vk::ImageLayout),
    (src, dst): (vk::AccessFlags, vk::AccessFlags),
    (src_stage, dst_stage): (vk::PipelineStageFlags, vk::PipelineStageFlags),
) {
    let range = vk::ImageSubresourceRange::default()
        .aspect_mask(aspect)
        .level_count(1)
        .layer_count(1);
    let b = vk::ImageMemoryBarrier::default()
        .image(image)
        .old_layout(from)
        .new_layout(to)
        .src_access_mask(src)
        .dst_access_mask(dst)
        .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
        .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
        .subresource_range(range);
    // SAFETY: `cmd` is recording; `image` is live.
    unsafe {
        d.cmd_pipeline_barrier(
            cmd,
            src_stage,
            dst_stage,
            vk::DependencyFlags::empty(),
            &[],
            &[],
            &[b],
        )
    };
}

fn record(
    s: &Scratch<'_>,
    cmd: vk::CommandBuffer,
    draw: &Draw,
    t: &Targets,
    sets: &[vk::DescriptorSet],
    vertex: Option<vk::Buffer>,
) -> Result<(), GraphicsError> {
    let d = &s.gd.device;
    let begin =
        vk::CommandBufferBeginInfo::default().flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT);
    // SAFETY: a fresh command buffer.
    unsafe { d.begin_command_buffer(cmd, &begin) }.map_err(vk_err("vkBeginCommandBuffer"))?;
    let color = vk::ImageAspectFlags::COLOR;
    let top = vk::PipelineStageFlags::TOP_OF_PIPE;
    let out = vk::PipelineStageFlags::COLOR_ATTACHMENT_OUTPUT;
    let tests =
        vk::PipelineStageFlags::EARLY_FRAGMENT_TESTS | vk::PipelineStageFlags::LATE_FRAGMENT_TESTS;
    let none = vk::AccessFlags::empty();
    for (image, ..) in &t.colors {
        let layouts = (
            vk::ImageLayout::UNDEFINED,
            vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL,
        );
        barrier(
            d,
            cmd,
            *image,
            color,
            layouts,
            (none, vk::AccessFlags::COLOR_ATTACHMENT_WRITE),
            (top, out),
        );
    }
    if let Some((image, ..)) = &t.depth {
        let layouts = (
            vk::ImageLayout::UNDEFINED,
            vk::ImageLayout::DEPTH_ATTACHMENT_OPTIMAL,
        );
        let access = vk::AccessFlags::DEPTH_STENCIL_ATTACHMENT_WRITE
            | vk::AccessFlags::DEPTH_STENCIL_ATTACHMENT_READ;
        barrier(
            d,
            cmd,
            *image,
            vk::ImageAspectFlags::DEPTH,
            layouts,
            (none, access),
            (top, tests),
        );
    }
    let clear = vk::ClearValue {
        color: vk::ClearColorValue {
            float32: draw.clear,
        },
    };
    let attachments: Vec<vk::RenderingAttachmentInfo> = t
        .colors
        .iter()
        .map(|(_, view, ..)| {
            vk::RenderingAttachmentInfo::default()
                .image_view(*view)
                .image_layout(vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL)
                .load_op(vk::AttachmentLoadOp::CLEAR)
                .store_op(vk::AttachmentStoreOp::STORE)
                .clear_value(clear)
        })
        .collect();
    let depth_attachment = t.depth.as_ref().zip(draw.depth).map(|((_, view, ..), d)| {
        vk::RenderingAttachmentInfo::default()
            .image_view(*view)
            .image_layout(vk::ImageLayout::DEPTH_ATTACHMENT_OPTIMAL)
            .load_op(vk::AttachmentLoadOp::CLEAR)
            .store_op(vk::AttachmentStoreOp::STORE)
            .clear_value(vk::ClearValue {
                depth_stencil: vk::ClearDepthStencilValue {
                    depth: d.clear,
                    stencil: 0,
                },
            })
    });
    let area = vk::Rect2D {
        offset: vk::Offset2D::default(),
        extent: vk::Extent2D {
            width: draw.width,
            height: draw.height,
        },
    };
    let mut rendering = vk::RenderingInfo::default()
        .render_area(area)
        .layer_count(1)
        .color_attachments(&attachments);
    if let Some(da) = depth_attachment.as_ref() {
        rendering = rendering.depth_attachment(da);
    }
    // SAFETY: recording; every handle is live and made for this draw.
    unsafe {
        d.cmd_begin_rendering(cmd, &rendering);
        d.cmd_bind_pipeline(cmd, vk::PipelineBindPoint::GRAPHICS, s.pipeline);
        d.cmd_bind_descriptor_sets(
            cmd,
            vk::PipelineBindPoint::GRAPHICS,
            s.pipeline_layout,
            0,
            sets,
            &[],
        );
        if let Some(v) = vertex {
            d.cmd_bind_vertex_buffers(cmd, 0, &[v], &[0]);
        }
        d.cmd_draw(cmd, draw.vertex_count, draw.instance_count.max(1), 0, 0);
        d.cmd_end_rendering(cmd);
    }
    copy_out(d, cmd, draw, t);
    // SAFETY: recording.
    unsafe { d.end_command_buffer(cmd) }.map_err(vk_err("vkEndCommandBuffer"))
}

/// After the draw: every target to TRANSFER_SRC, copied into its readback buffer, made visible to the host.
fn copy_out(d: &ash::Device, cmd: vk::CommandBuffer, draw: &Draw, t: &Targets) {
    let color = vk::ImageAspectFlags::COLOR;
    let out = vk::PipelineStageFlags::COLOR_ATTACHMENT_OUTPUT;
    let tests =
        vk::PipelineStageFlags::EARLY_FRAGMENT_TESTS | vk::PipelineStageFlags::LATE_FRAGMENT_TESTS;
    let transfer = vk::PipelineStageFlags::TRANSFER;
    let extent = vk::Extent3D {
        width: draw.width,
        height: draw.height,
        depth: 1,
    };
    let mut copies: Vec<(
        vk::Image,
        vk::ImageAspectFlags,
        vk::Buffer,
        vk::AccessFlags,
        vk::PipelineStageFlags,
        vk::ImageLayout,
    )> = t
        .colors
        .iter()
        .map(|(i, _, b, _)| {
            (
                *i,
                color,
                *b,
                vk::AccessFlags::COLOR_ATTACHMENT_WRITE,
                out,
                vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL,
            )
        })
        .collect();
    if let Some((i, _, b, _)) = &t.depth {
        copies.push((
            *i,
            vk::ImageAspectFlags::DEPTH,
            *b,
            vk::AccessFlags::DEPTH_STENCIL_ATTACHMENT_WRITE,
            tests,
            vk::ImageLayout::DEPTH_ATTACHMENT_OPTIMAL,
        ));
    }
    for (image, aspect, buffer, access, stage, layout) in copies {
        let layouts = (layout, vk::ImageLayout::TRANSFER_SRC_OPTIMAL);
        barrier(
            d,
            cmd,
            image,
            aspect,
            layouts,
            (access, vk::AccessFlags::TRANSFER_READ),
            (stage, transfer),
        );
        let layers = vk::ImageSubresourceLayers::default()
            .aspect_mask(aspect)
            .layer_count(1);
        let region = vk::BufferImageCopy::default()
            .image_subresource(layers)
            .image_extent(extent);
        // SAFETY: recording; the image is in TRANSFER_SRC_OPTIMAL and the buffer holds the whole image.
        unsafe {
            d.cmd_copy_image_to_buffer(
                cmd,
                image,
                vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
                buffer,
                &[region],
            )
        };
    }
    let host = vk::MemoryBarrier::default()
        .src_access_mask(vk::AccessFlags::TRANSFER_WRITE)
        .dst_access_mask(vk::AccessFlags::HOST_READ);
    // SAFETY: recording.
    unsafe {
        d.cmd_pipeline_barrier(
            cmd,
            transfer,
            vk::PipelineStageFlags::HOST,
            vk::DependencyFlags::empty(),
            &[host],
            &[],
            &[],
        );
    }
}

pub(crate) fn submit(s: &mut Scratch<'_>, cmd: vk::CommandBuffer) -> Result<(), GraphicsError> {
    let d = &s.gd.device;
    // SAFETY: valid create info.
    s.fence = unsafe { d.create_fence(&vk::FenceCreateInfo::default(), None) }
        .map_err(vk_err("vkCreateFence"))?;
    let cmds = [cmd];
    let submit = vk::SubmitInfo::default().command_buffers(&cmds);
    // SAFETY: the command buffer is recorded; the queue belongs to the device.
    unsafe {
        d.queue_submit(s.gd.queue, &[submit], s.fence)
            .map_err(vk_err("vkQueueSubmit"))?;
        d.wait_for_fences(&[s.fence], true, 60_000_000_000)
            .map_err(vk_err("vkWaitForFences"))
    }
}

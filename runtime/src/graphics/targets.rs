//! Draws into targets that outlive one draw, with pipelines cached by the state that shapes them.
//!
//! What an emulated GPU's 3D engine needs: its render targets live in guest memory, so each draw starts
//! from their current contents (uploaded, loaded, drawn over, copied back) instead of a clear, takes its
//! viewport and scissor from the command buffer, and may be indexed. A [`TargetRenderer`] owns the device
//! and one pipeline per distinct [`PipelineState`] (built on first use, reused after), so a stream of
//! many draws over few states compiles few pipelines ([`TargetRenderer::pipelines_compiled`]).

use std::collections::HashMap;

use ash::vk;

use super::draw::{barrier, command_buffer, submit};
use super::resources::Scratch;
use super::{
    pipeline, vk_err, BankBinding, ColorFormat, DepthTarget, Draw, GraphicsDevice, GraphicsError,
    Topology, VertexAttribute,
};

/// Everything that shapes a pipeline: the stages, the bank slots, vertex input, topology, target formats,
/// write masks and the depth test. Viewport and scissor are dynamic and do not.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct PipelineState {
    pub vertex_spirv: Vec<u32>,
    pub fragment_spirv: Vec<u32>,
    /// (descriptor set, bank) of every constant bank the stages read.
    pub banks: Vec<(u32, u8)>,
    pub stride: u32,
    pub attributes: Vec<VertexAttribute>,
    pub topology: Topology,
    pub color_formats: Vec<ColorFormat>,
    pub write_masks: Vec<u8>,
    /// The depth test: `Some(true)` less, `Some(false)` always (both write depth); `None` no depth target.
    pub depth_less: Option<bool>,
}

/// A viewport in framebuffer pixels (height may be negative, flipping y) and its depth range.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Viewport {
    pub x: f32,
    pub y: f32,
    pub width: f32,
    pub height: f32,
    pub min_depth: f32,
    pub max_depth: f32,
}

/// The per-draw inputs that do not shape the pipeline.
#[derive(Debug, Clone)]
pub struct TargetDraw<'a> {
    /// Bank contents; each (set, bank) of the state's `banks` must have one.
    pub banks: &'a [BankBinding],
    /// Vertex data of binding 0 (may be empty when the state has no attributes).
    pub vertex_data: &'a [u8],
    /// Indices (already widened to 32 bits) for an indexed draw; `None` draws vertices in order.
    pub indices: Option<&'a [u32]>,
    /// First vertex (or first index when indexed) and how many.
    pub first: u32,
    pub count: u32,
    pub instance_count: u32,
    pub viewport: Viewport,
    /// Scissor rectangle: x, y, width, height (clamped to the targets by the caller).
    pub scissor: [u32; 4],
}

/// The targets a draw loads from and stores back to: tightly packed rows in each format, depth as f32.
#[derive(Debug)]
pub struct TargetSet<'a> {
    pub width: u32,
    pub height: u32,
    pub colors: &'a mut [Vec<u8>],
    pub depth: Option<&'a mut Vec<u8>>,
}

struct CachedPipeline {
    set_layouts: Vec<vk::DescriptorSetLayout>,
    layout: vk::PipelineLayout,
    pipeline: vk::Pipeline,
}

/// A graphics device with a pipeline cache, drawing into caller-held targets.
pub struct TargetRenderer {
    pipelines: HashMap<PipelineState, CachedPipeline>,
    compiled: usize,
    // Dropped after the pipelines are destroyed (Drop below).
    gd: GraphicsDevice,
}

impl TargetRenderer {
    pub fn new(gd: GraphicsDevice) -> Self {
        Self {
            pipelines: HashMap::new(),
            compiled: 0,
            gd,
        }
    }

    pub fn device(&self) -> &GraphicsDevice {
        &self.gd
    }

    /// How many pipelines were built so far (one per distinct state).
    pub fn pipelines_compiled(&self) -> usize {
        self.compiled
    }

    fn cached(&mut self, state: &PipelineState) -> Result<&CachedPipeline, GraphicsError> {
        if !self.pipelines.contains_key(state) {
            let built = build(&self.gd, state)?;
            self.compiled += 1;
            self.pipelines.insert(state.clone(), built);
        }
        self.pipelines
            .get(state)
            .ok_or_else(|| GraphicsError::BadDraw("pipeline cache lost an entry".into()))
    }

    /// Draws `draw` with `state` over `targets`, which hold the result afterwards.
    pub fn draw(
        &mut self,
        state: &PipelineState,
        draw: &TargetDraw<'_>,
        targets: &mut TargetSet<'_>,
    ) -> Result<(), GraphicsError> {
        check(state, draw, targets)?;
        let cached = self.cached(state)?;
        let (set_layouts, layout, pipeline) =
            (cached.set_layouts.clone(), cached.layout, cached.pipeline);
        let mut s = Scratch::new(&self.gd);
        let images = upload_targets(&mut s, state, targets)?;
        let sets = descriptor_sets(&mut s, &set_layouts, draw.banks)?;
        let usage = vk::BufferUsageFlags::VERTEX_BUFFER;
        let vertex = (!state.attributes.is_empty())
            .then(|| s.buffer(draw.vertex_data.len() as u64, usage, draw.vertex_data))
            .transpose()?;
        let index = match draw.indices {
            Some(indices) => {
                let bytes: Vec<u8> = indices.iter().flat_map(|i| i.to_le_bytes()).collect();
                let usage = vk::BufferUsageFlags::INDEX_BUFFER;
                Some(s.buffer(bytes.len() as u64, usage, &bytes)?)
            }
            None => None,
        };
        let cmd = command_buffer(&mut s)?;
        let bound = Bound { layout, pipeline, sets: &sets, vertex, index };
        record(&s, cmd, draw, targets, &images, &bound)?;
        submit(&mut s, cmd)?;
        for (target, image) in targets.colors.iter_mut().zip(&images.colors) {
            *target = s.read(image.buffer, target.len())?;
        }
        if let (Some(depth), Some(image)) = (targets.depth.as_mut(), &images.depth) {
            **depth = s.read(image.buffer, depth.len())?;
        }
        Ok(())
    }
}

impl Drop for TargetRenderer {
    fn drop(&mut self) {
        let d = &self.gd.device;
        // SAFETY: every draw waited on its fence, so no pipeline is in use.
        unsafe {
            let _ = d.device_wait_idle();
            for p in self.pipelines.values() {
                d.destroy_pipeline(p.pipeline, None);
                d.destroy_pipeline_layout(p.layout, None);
                for l in &p.set_layouts {
                    d.destroy_descriptor_set_layout(*l, None);
                }
            }
        }
    }
}

fn check(
    state: &PipelineState,
    draw: &TargetDraw<'_>,
    targets: &TargetSet<'_>,
) -> Result<(), GraphicsError> {
    let bad = |s: String| Err(GraphicsError::BadDraw(s));
    let side = super::draw::MAX_TARGET_SIDE;
    if targets.width == 0 || targets.height == 0 || targets.width > side || targets.height > side {
        return bad(format!("target {}x{} (1..={side} a side)", targets.width, targets.height));
    }
    if state.color_formats.is_empty() || state.color_formats.len() != targets.colors.len() {
        return bad(format!(
            "{} colour formats for {} colour targets",
            state.color_formats.len(),
            targets.colors.len()
        ));
    }
    let pixels = targets.width as usize * targets.height as usize;
    for (f, c) in state.color_formats.iter().zip(targets.colors.iter()) {
        if c.len() != pixels * f.bytes_per_pixel() as usize {
            return bad(format!("a {:?} target of {} bytes for {pixels} pixels", f, c.len()));
        }
    }
    if state.depth_less.is_some() != targets.depth.is_some()
        || targets.depth.as_ref().is_some_and(|d| d.len() != pixels * 4)
    {
        return bad("the depth target does not match the state".into());
    }
    for a in &state.attributes {
        if !(1..=4).contains(&a.components) || a.offset + 4 * a.components > state.stride {
            return bad(format!("attribute {} does not fit the {}-byte stride", a.location, state.stride));
        }
    }
    for (set, bank) in &state.banks {
        if !draw.banks.iter().any(|b| b.set == *set && b.bank == *bank) {
            return bad(format!("no data for bank {bank} of set {set}"));
        }
    }
    Ok(())
}

/// A pipeline for `state`, built through the one-draw path with a dynamic viewport and scissor.
fn build(gd: &GraphicsDevice, state: &PipelineState) -> Result<CachedPipeline, GraphicsError> {
    let draw = Draw {
        vertex_spirv: state.vertex_spirv.clone(),
        fragment_spirv: state.fragment_spirv.clone(),
        banks: state
            .banks
            .iter()
            .map(|&(set, bank)| BankBinding { set, bank, bytes: 16, data: Vec::new() })
            .collect(),
        vertex_data: Vec::new(),
        stride: state.stride,
        attributes: state.attributes.clone(),
        topology: state.topology,
        vertex_count: 0,
        instance_count: 1,
        width: 1,
        height: 1,
        color_formats: state.color_formats.clone(),
        write_masks: state.write_masks.clone(),
        clear: [0.0; 4],
        depth: state.depth_less.map(|less| DepthTarget { clear: 1.0, less }),
    };
    let mut s = Scratch::new(gd);
    pipeline::layout(&mut s, &draw)?;
    pipeline::pipeline_with(&mut s, &draw, true)?;
    // The scratch keeps the modules (no longer needed) and hands over what the cache keeps.
    Ok(CachedPipeline {
        set_layouts: std::mem::take(&mut s.set_layouts),
        layout: std::mem::take(&mut s.pipeline_layout),
        pipeline: std::mem::take(&mut s.pipeline),
    })
}

struct TargetImage {
    image: vk::Image,
    view: vk::ImageView,
    buffer: vk::Buffer,
}

struct TargetImages {
    colors: Vec<TargetImage>,
    depth: Option<TargetImage>,
}

struct Bound<'a> {
    layout: vk::PipelineLayout,
    pipeline: vk::Pipeline,
    sets: &'a [vk::DescriptorSet],
    vertex: Option<vk::Buffer>,
    index: Option<vk::Buffer>,
}

fn upload_targets(
    s: &mut Scratch<'_>,
    state: &PipelineState,
    targets: &TargetSet<'_>,
) -> Result<TargetImages, GraphicsError> {
    let transfer = vk::BufferUsageFlags::TRANSFER_SRC | vk::BufferUsageFlags::TRANSFER_DST;
    let mut colors = Vec::new();
    for (f, bytes) in state.color_formats.iter().zip(targets.colors.iter()) {
        let usage = vk::ImageUsageFlags::COLOR_ATTACHMENT | vk::ImageUsageFlags::TRANSFER_DST;
        let aspect = vk::ImageAspectFlags::COLOR;
        let (image, view) = s.image(targets.width, targets.height, f.vk(), usage, aspect)?;
        let buffer = s.buffer(bytes.len() as u64, transfer, bytes)?;
        colors.push(TargetImage { image, view, buffer });
    }
    let depth = match &targets.depth {
        Some(bytes) => {
            let usage =
                vk::ImageUsageFlags::DEPTH_STENCIL_ATTACHMENT | vk::ImageUsageFlags::TRANSFER_DST;
            let aspect = vk::ImageAspectFlags::DEPTH;
            let format = vk::Format::D32_SFLOAT;
            let (image, view) = s.image(targets.width, targets.height, format, usage, aspect)?;
            let buffer = s.buffer(bytes.len() as u64, transfer, bytes)?;
            Some(TargetImage { image, view, buffer })
        }
        None => None,
    };
    Ok(TargetImages { colors, depth })
}

fn descriptor_sets(
    s: &mut Scratch<'_>,
    layouts: &[vk::DescriptorSetLayout],
    banks: &[BankBinding],
) -> Result<Vec<vk::DescriptorSet>, GraphicsError> {
    let sizes = [vk::DescriptorPoolSize {
        ty: vk::DescriptorType::UNIFORM_BUFFER,
        descriptor_count: banks.len().max(1) as u32,
    }];
    let info = vk::DescriptorPoolCreateInfo::default()
        .max_sets(layouts.len() as u32)
        .pool_sizes(&sizes);
    // SAFETY: valid create info.
    s.descriptor_pool = unsafe { s.gd.device.create_descriptor_pool(&info, None) }
        .map_err(vk_err("vkCreateDescriptorPool"))?;
    let alloc = vk::DescriptorSetAllocateInfo::default()
        .descriptor_pool(s.descriptor_pool)
        .set_layouts(layouts);
    // SAFETY: the pool has room for one set per layout.
    let sets = unsafe { s.gd.device.allocate_descriptor_sets(&alloc) }
        .map_err(vk_err("vkAllocateDescriptorSets"))?;
    for b in banks {
        let size = u64::from(b.bytes.max(16)).max(b.data.len() as u64).next_multiple_of(16);
        let buffer = s.buffer(size, vk::BufferUsageFlags::UNIFORM_BUFFER, &b.data)?;
        let infos = [vk::DescriptorBufferInfo { buffer, offset: 0, range: size }];
        let set = *sets
            .get(b.set as usize)
            .ok_or_else(|| GraphicsError::BadDraw(format!("descriptor set {}", b.set)))?;
        let write = vk::WriteDescriptorSet::default()
            .dst_set(set)
            .dst_binding(crate::abi::FIRST_BANK_BINDING + u32::from(b.bank))
            .descriptor_type(vk::DescriptorType::UNIFORM_BUFFER)
            .buffer_info(&infos);
        // SAFETY: the set and buffer are live; callers pass only the state's banks, whose bindings the
        // set layouts hold.
        unsafe { s.gd.device.update_descriptor_sets(&[write], &[]) };
    }
    Ok(sets)
}

/// Buffer → image before the draw, or image → buffer after it, for every target.
fn copy_targets(d: &ash::Device, cmd: vk::CommandBuffer, t: &TargetSet<'_>, images: &TargetImages, load: bool) {
    let extent = vk::Extent3D { width: t.width, height: t.height, depth: 1 };
    let colors = images.colors.iter().map(|i| (i, vk::ImageAspectFlags::COLOR));
    let depth = images.depth.iter().map(|i| (i, vk::ImageAspectFlags::DEPTH));
    let transfer = vk::PipelineStageFlags::TRANSFER;
    let all = vk::PipelineStageFlags::ALL_COMMANDS;
    let attachment = vk::AccessFlags::COLOR_ATTACHMENT_WRITE
        | vk::AccessFlags::COLOR_ATTACHMENT_READ
        | vk::AccessFlags::DEPTH_STENCIL_ATTACHMENT_WRITE
        | vk::AccessFlags::DEPTH_STENCIL_ATTACHMENT_READ;
    for (image, aspect) in colors.chain(depth) {
        let attached = if aspect == vk::ImageAspectFlags::COLOR {
            vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL
        } else {
            vk::ImageLayout::DEPTH_ATTACHMENT_OPTIMAL
        };
        let layers = vk::ImageSubresourceLayers::default().aspect_mask(aspect).layer_count(1);
        let region = vk::BufferImageCopy::default().image_subresource(layers).image_extent(extent);
        let dst = vk::ImageLayout::TRANSFER_DST_OPTIMAL;
        let src = vk::ImageLayout::TRANSFER_SRC_OPTIMAL;
        let (w, r) = (vk::AccessFlags::TRANSFER_WRITE, vk::AccessFlags::TRANSFER_READ);
        if load {
            let none = vk::AccessFlags::empty();
            let top = vk::PipelineStageFlags::TOP_OF_PIPE;
            barrier(d, cmd, image.image, aspect, (vk::ImageLayout::UNDEFINED, dst), (none, w), (top, transfer));
            // SAFETY: recording; the image is in TRANSFER_DST_OPTIMAL and the buffer holds it whole.
            unsafe { d.cmd_copy_buffer_to_image(cmd, image.buffer, image.image, dst, &[region]) };
            barrier(d, cmd, image.image, aspect, (dst, attached), (w, attachment), (transfer, all));
        } else {
            barrier(d, cmd, image.image, aspect, (attached, src), (attachment, r), (all, transfer));
            // SAFETY: recording; the image is in TRANSFER_SRC_OPTIMAL and the buffer holds it whole.
            unsafe { d.cmd_copy_image_to_buffer(cmd, image.image, src, image.buffer, &[region]) };
        }
    }
}

fn record(
    s: &Scratch<'_>,
    cmd: vk::CommandBuffer,
    draw: &TargetDraw<'_>,
    t: &TargetSet<'_>,
    images: &TargetImages,
    bound: &Bound<'_>,
) -> Result<(), GraphicsError> {
    let d = &s.gd.device;
    let begin =
        vk::CommandBufferBeginInfo::default().flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT);
    // SAFETY: a fresh command buffer.
    unsafe { d.begin_command_buffer(cmd, &begin) }.map_err(vk_err("vkBeginCommandBuffer"))?;
    copy_targets(d, cmd, t, images, true);
    let attachment = |view: vk::ImageView, layout: vk::ImageLayout| {
        vk::RenderingAttachmentInfo::default()
            .image_view(view)
            .image_layout(layout)
            .load_op(vk::AttachmentLoadOp::LOAD)
            .store_op(vk::AttachmentStoreOp::STORE)
    };
    let colors: Vec<vk::RenderingAttachmentInfo> = images
        .colors
        .iter()
        .map(|i| attachment(i.view, vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL))
        .collect();
    let depth = images
        .depth
        .as_ref()
        .map(|i| attachment(i.view, vk::ImageLayout::DEPTH_ATTACHMENT_OPTIMAL));
    let extent = vk::Extent2D { width: t.width, height: t.height };
    let area = vk::Rect2D { offset: vk::Offset2D::default(), extent };
    let mut rendering = vk::RenderingInfo::default()
        .render_area(area)
        .layer_count(1)
        .color_attachments(&colors);
    if let Some(da) = depth.as_ref() {
        rendering = rendering.depth_attachment(da);
    }
    let v = draw.viewport;
    let viewport = vk::Viewport {
        x: v.x,
        y: v.y,
        width: v.width,
        height: v.height,
        min_depth: v.min_depth,
        max_depth: v.max_depth,
    };
    let [sx, sy, sw, sh] = draw.scissor;
    let scissor = vk::Rect2D {
        offset: vk::Offset2D { x: sx as i32, y: sy as i32 },
        extent: vk::Extent2D { width: sw, height: sh },
    };
    let instances = draw.instance_count.max(1);
    // SAFETY: recording; every handle is live and made for this draw or held by the cache.
    unsafe {
        d.cmd_begin_rendering(cmd, &rendering);
        d.cmd_bind_pipeline(cmd, vk::PipelineBindPoint::GRAPHICS, bound.pipeline);
        d.cmd_set_viewport(cmd, 0, &[viewport]);
        d.cmd_set_scissor(cmd, 0, &[scissor]);
        let point = vk::PipelineBindPoint::GRAPHICS;
        d.cmd_bind_descriptor_sets(cmd, point, bound.layout, 0, bound.sets, &[]);
        if let Some(b) = bound.vertex {
            d.cmd_bind_vertex_buffers(cmd, 0, &[b], &[0]);
        }
        match bound.index {
            Some(b) => {
                d.cmd_bind_index_buffer(cmd, b, 0, vk::IndexType::UINT32);
                d.cmd_draw_indexed(cmd, draw.count, instances, draw.first, 0, 0);
            }
            None => d.cmd_draw(cmd, draw.count, instances, draw.first, 0),
        }
        d.cmd_end_rendering(cmd);
    }
    copy_targets(d, cmd, t, images, false);
    let host = vk::MemoryBarrier::default()
        .src_access_mask(vk::AccessFlags::TRANSFER_WRITE)
        .dst_access_mask(vk::AccessFlags::HOST_READ);
    // SAFETY: recording.
    unsafe {
        d.cmd_pipeline_barrier(
            cmd,
            vk::PipelineStageFlags::TRANSFER,
            vk::PipelineStageFlags::HOST,
            vk::DependencyFlags::empty(),
            &[host],
            &[],
            &[],
        );
        d.end_command_buffer(cmd)
    }
    .map_err(vk_err("vkEndCommandBuffer"))
}

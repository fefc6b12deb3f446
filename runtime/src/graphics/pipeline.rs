//! The pipeline of a draw: shader modules, the two descriptor-set layouts, the graphics pipeline.

use ash::vk;

use super::resources::Scratch;
use super::{vk_err, Draw, GraphicsError, Topology};

/// Descriptor sets the layout has: set 0 for the vertex stage's banks, set 1 for the fragment stage's.
pub(crate) const SETS: u32 = 2;

fn module(s: &mut Scratch<'_>, words: &[u32]) -> Result<vk::ShaderModule, GraphicsError> {
    let info = vk::ShaderModuleCreateInfo::default().code(words);
    // SAFETY: valid SPIR-V is the caller's contract (translated modules pass spirv-val in tests).
    let m = unsafe { s.gd.device.create_shader_module(&info, None) }
        .map_err(vk_err("vkCreateShaderModule"))?;
    s.modules.push(m);
    Ok(m)
}

/// Set layouts (one per set, bindings 1 + bank of the draw's banks) and the pipeline layout.
pub(crate) fn layout(s: &mut Scratch<'_>, draw: &Draw) -> Result<(), GraphicsError> {
    for set in 0..SETS {
        let stage = if set == 0 {
            vk::ShaderStageFlags::VERTEX
        } else {
            vk::ShaderStageFlags::FRAGMENT
        };
        let bindings: Vec<vk::DescriptorSetLayoutBinding> = draw
            .banks
            .iter()
            .filter(|b| b.set == set)
            .map(|b| {
                vk::DescriptorSetLayoutBinding::default()
                    .binding(crate::abi::FIRST_BANK_BINDING + u32::from(b.bank))
                    .descriptor_type(vk::DescriptorType::UNIFORM_BUFFER)
                    .descriptor_count(1)
                    .stage_flags(stage)
            })
            .collect();
        let info = vk::DescriptorSetLayoutCreateInfo::default().bindings(&bindings);
        // SAFETY: valid create info.
        let l = unsafe { s.gd.device.create_descriptor_set_layout(&info, None) }
            .map_err(vk_err("vkCreateDescriptorSetLayout"))?;
        s.set_layouts.push(l);
    }
    let info = vk::PipelineLayoutCreateInfo::default().set_layouts(&s.set_layouts);
    // SAFETY: the set layouts are live.
    s.pipeline_layout = unsafe { s.gd.device.create_pipeline_layout(&info, None) }
        .map_err(vk_err("vkCreatePipelineLayout"))?;
    Ok(())
}

/// The graphics pipeline for dynamic rendering into the draw's targets.
pub(crate) fn pipeline(s: &mut Scratch<'_>, draw: &Draw) -> Result<(), GraphicsError> {
    pipeline_with(s, draw, false)
}

/// [`pipeline`], with the viewport and scissor left to the command buffer when `dynamic_viewport` (so
/// one pipeline serves every viewport: the targets module's cached pipelines).
pub(crate) fn pipeline_with(
    s: &mut Scratch<'_>,
    draw: &Draw,
    dynamic_viewport: bool,
) -> Result<(), GraphicsError> {
    let vs = module(s, &draw.vertex_spirv)?;
    let fs = module(s, &draw.fragment_spirv)?;
    let stages = [
        vk::PipelineShaderStageCreateInfo::default()
            .stage(vk::ShaderStageFlags::VERTEX)
            .module(vs)
            .name(c"main"),
        vk::PipelineShaderStageCreateInfo::default()
            .stage(vk::ShaderStageFlags::FRAGMENT)
            .module(fs)
            .name(c"main"),
    ];
    let bindings = [vk::VertexInputBindingDescription::default()
        .binding(0)
        .stride(draw.stride)];
    let attributes: Vec<vk::VertexInputAttributeDescription> = draw
        .attributes
        .iter()
        .map(|a| {
            let format = match a.components {
                1 => vk::Format::R32_SFLOAT,
                2 => vk::Format::R32G32_SFLOAT,
                3 => vk::Format::R32G32B32_SFLOAT,
                _ => vk::Format::R32G32B32A32_SFLOAT,
            };
            vk::VertexInputAttributeDescription::default()
                .location(a.location)
                .binding(0)
                .format(format)
                .offset(a.offset)
        })
        .collect();
    let mut vertex_input = vk::PipelineVertexInputStateCreateInfo::default();
    if !draw.attributes.is_empty() {
        vertex_input = vertex_input
            .vertex_binding_descriptions(&bindings)
            .vertex_attribute_descriptions(&attributes);
    }
    let topology = match draw.topology {
        Topology::TriangleList => vk::PrimitiveTopology::TRIANGLE_LIST,
        Topology::TriangleStrip => vk::PrimitiveTopology::TRIANGLE_STRIP,
        Topology::PointList => vk::PrimitiveTopology::POINT_LIST,
    };
    let assembly = vk::PipelineInputAssemblyStateCreateInfo::default().topology(topology);
    let viewports = [vk::Viewport {
        x: 0.0,
        y: 0.0,
        width: draw.width as f32,
        height: draw.height as f32,
        min_depth: 0.0,
        max_depth: 1.0,
    }];
    let scissors = [vk::Rect2D {
        offset: vk::Offset2D::default(),
        extent: vk::Extent2D {
            width: draw.width,
            height: draw.height,
        },
    }];
    let viewport = vk::PipelineViewportStateCreateInfo::default()
        .viewports(&viewports)
        .scissors(&scissors);
    let raster = vk::PipelineRasterizationStateCreateInfo::default()
        .polygon_mode(vk::PolygonMode::FILL)
        .cull_mode(vk::CullModeFlags::NONE)
        .front_face(vk::FrontFace::COUNTER_CLOCKWISE)
        .line_width(1.0);
    let multisample = vk::PipelineMultisampleStateCreateInfo::default()
        .rasterization_samples(vk::SampleCountFlags::TYPE_1);
    let blend: Vec<vk::PipelineColorBlendAttachmentState> = draw
        .color_formats
        .iter()
        .enumerate()
        .map(|(t, _)| {
            let mask = draw.write_masks.get(t).map_or(0xf, |m| u32::from(*m & 0xf));
            vk::PipelineColorBlendAttachmentState::default()
                .color_write_mask(vk::ColorComponentFlags::from_raw(mask))
        })
        .collect();
    let blend_state = vk::PipelineColorBlendStateCreateInfo::default().attachments(&blend);
    let depth = draw
        .depth
        .map_or_else(vk::PipelineDepthStencilStateCreateInfo::default, |d| {
            vk::PipelineDepthStencilStateCreateInfo::default()
                .depth_test_enable(true)
                .depth_write_enable(true)
                .depth_compare_op(if d.less {
                    vk::CompareOp::LESS
                } else {
                    vk::CompareOp::ALWAYS
                })
        });
    let formats: Vec<vk::Format> = draw.color_formats.iter().map(|f| f.vk()).collect();
    let mut rendering =
        vk::PipelineRenderingCreateInfo::default().color_attachment_formats(&formats);
    if draw.depth.is_some() {
        rendering = rendering.depth_attachment_format(vk::Format::D32_SFLOAT);
    }
    let dynamic_states = [vk::DynamicState::VIEWPORT, vk::DynamicState::SCISSOR];
    let dynamic = vk::PipelineDynamicStateCreateInfo::default()
        .dynamic_states(if dynamic_viewport { &dynamic_states } else { &[] });
    let info = vk::GraphicsPipelineCreateInfo::default()
        .stages(&stages)
        .dynamic_state(&dynamic)
        .vertex_input_state(&vertex_input)
        .input_assembly_state(&assembly)
        .viewport_state(&viewport)
        .rasterization_state(&raster)
        .multisample_state(&multisample)
        .color_blend_state(&blend_state)
        .depth_stencil_state(&depth)
        .layout(s.pipeline_layout)
        .push_next(&mut rendering);
    // SAFETY: every state the pipeline reads lives until this call returns.
    let pipelines = unsafe {
        s.gd.device
            .create_graphics_pipelines(vk::PipelineCache::null(), &[info], None)
    }
    .map_err(|(_, e)| vk_err("vkCreateGraphicsPipelines")(e))?;
    s.pipeline = pipelines.first().copied().unwrap_or_default();
    Ok(())
}

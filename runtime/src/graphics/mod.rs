//! Graphics: one vertex + fragment draw into colour (and depth) targets, read back to the host.
//!
//! [`GraphicsDevice`] opens the chosen device with a graphics queue and Vulkan 1.3's dynamic rendering and
//! terminate-invocation features; [`GraphicsDevice::render`] builds the pipeline of a [`Draw`] (modules from
//! `sassport_translator::translate_graphics`, or any modules keeping its layout: constant bank b at binding
//! 1 + b, set 0 for the vertex stage and 1 for the fragment stage), records one draw, waits and returns the
//! targets' bytes ([`Rendered`]). Vertex inputs are 32-bit float vectors from one interleaved buffer, or
//! none (a program working from `VertexIndex`). Rasterisation is fixed: no culling, counter-clockwise front
//! faces, no blending, the viewport the whole target with depth 0..1.
//!
//! ```no_run
//! use sassport_runtime::graphics::{ColorFormat, Draw, GraphicsDevice, Topology};
//! # fn modules() -> (Vec<u32>, Vec<u32>) { unimplemented!() }
//! # fn main() -> Result<(), sassport_runtime::graphics::GraphicsError> {
//! let gd = GraphicsDevice::new(&sassport_runtime::DeviceSelector::Default)?;
//! let (vertex_spirv, fragment_spirv) = modules(); // translate_graphics::translate_stage, vertex and pixel
//! let draw = Draw {
//!     vertex_spirv,
//!     fragment_spirv,
//!     banks: Vec::new(),
//!     vertex_data: Vec::new(), // a program placing its vertices from VertexIndex
//!     stride: 0,
//!     attributes: Vec::new(),
//!     topology: Topology::TriangleStrip,
//!     vertex_count: 4,
//!     instance_count: 1,
//!     width: 64,
//!     height: 64,
//!     color_formats: vec![ColorFormat::Rgba8Unorm],
//!     write_masks: Vec::new(),
//!     clear: [0.0, 0.0, 0.0, 1.0],
//!     depth: None,
//! };
//! let rendered = gd.render(&draw)?;
//! assert_eq!(rendered.colors[0].len(), 64 * 64 * 4);
//! # Ok(()) }
//! ```

mod draw;
mod pipeline;
mod resources;
mod targets;

pub use targets::{PipelineState, TargetDraw, TargetRenderer, TargetSet, Viewport};

use ash::vk;
use thiserror::Error;

use crate::device::{DeviceInfo, DeviceSelector, Instance};
use crate::error::RuntimeError;

/// What can go wrong building or running a draw.
#[derive(Debug, Error)]
pub enum GraphicsError {
    #[error(transparent)]
    Runtime(#[from] RuntimeError),
    #[error("{call} failed: {result}")]
    Vulkan {
        call: &'static str,
        result: vk::Result,
    },
    #[error("device {device}: no queue family with graphics")]
    NoGraphicsQueue { device: String },
    #[error("no memory type for {what}")]
    NoMemoryType { what: &'static str },
    #[error("draw: {0}")]
    BadDraw(String),
}

pub(crate) fn vk_err(call: &'static str) -> impl FnOnce(vk::Result) -> GraphicsError {
    move |result| GraphicsError::Vulkan { call, result }
}

/// A colour target's format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ColorFormat {
    Rgba8Unorm,
    Rgba32Float,
}

impl ColorFormat {
    pub fn bytes_per_pixel(self) -> u32 {
        match self {
            Self::Rgba8Unorm => 4,
            Self::Rgba32Float => 16,
        }
    }
    pub(crate) fn vk(self) -> vk::Format {
        match self {
            Self::Rgba8Unorm => vk::Format::R8G8B8A8_UNORM,
            Self::Rgba32Float => vk::Format::R32G32B32A32_SFLOAT,
        }
    }
}

/// Primitive topology of a draw.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Topology {
    TriangleList,
    TriangleStrip,
    PointList,
}

/// One vertex attribute: `components` 32-bit floats at `offset` in each vertex, read at `location`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct VertexAttribute {
    pub location: u32,
    pub components: u32,
    pub offset: u32,
}

/// A constant bank bound for a stage: `data` padded with zeros to at least `bytes`.
#[derive(Debug, Clone)]
pub struct BankBinding {
    /// Descriptor set (0 vertex, 1 fragment).
    pub set: u32,
    pub bank: u8,
    pub bytes: u32,
    pub data: Vec<u8>,
}

/// The depth target: cleared to `clear`, tested with `less` (else always) and written.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DepthTarget {
    pub clear: f32,
    pub less: bool,
}

/// Everything one draw needs.
#[derive(Debug, Clone)]
pub struct Draw {
    pub vertex_spirv: Vec<u32>,
    pub fragment_spirv: Vec<u32>,
    pub banks: Vec<BankBinding>,
    /// Interleaved vertex data (may be empty) and its stride in bytes.
    pub vertex_data: Vec<u8>,
    pub stride: u32,
    pub attributes: Vec<VertexAttribute>,
    pub topology: Topology,
    pub vertex_count: u32,
    pub instance_count: u32,
    pub width: u32,
    pub height: u32,
    /// One colour target per location 0.., each cleared to `clear`.
    pub color_formats: Vec<ColorFormat>,
    /// Per colour target, the components written (bit 0 red .. bit 3 alpha; missing entries write all):
    /// a program that leaves components unwritten leaves them undefined unless the mask keeps the clear.
    pub write_masks: Vec<u8>,
    pub clear: [f32; 4],
    pub depth: Option<DepthTarget>,
}

/// The targets after the draw: each colour target's rows (tightly packed), the depth as f32 little-endian.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rendered {
    pub colors: Vec<Vec<u8>>,
    pub depth: Option<Vec<u8>>,
}

/// A device opened for graphics.
pub struct GraphicsDevice {
    pub(crate) device: ash::Device,
    pub(crate) queue: vk::Queue,
    pub(crate) queue_family: u32,
    pub(crate) memory: vk::PhysicalDeviceMemoryProperties,
    info: DeviceInfo,
    // Dropped after `device` is destroyed in Drop.
    _instance: Instance,
}

impl GraphicsDevice {
    /// Opens the device `selector` picks (the same choice as compute: discrete, integrated, then CPU).
    pub fn new(selector: &DeviceSelector) -> Result<Self, GraphicsError> {
        let instance = Instance::new()?;
        let pds = instance.physical_devices()?;
        let infos: Vec<DeviceInfo> = pds
            .iter()
            .enumerate()
            .map(|(i, &pd)| instance.describe(i, pd))
            .collect();
        let info = crate::device::choose_device(&infos, selector)?.clone();
        let pd = pds[info.index];
        let inst = &instance.instance;
        // SAFETY: `pd` came from this instance.
        let families = unsafe { inst.get_physical_device_queue_family_properties(pd) };
        let queue_family = families
            .iter()
            .position(|f| f.queue_flags.contains(vk::QueueFlags::GRAPHICS))
            .ok_or_else(|| GraphicsError::NoGraphicsQueue {
                device: info.name.clone(),
            })? as u32;
        // Both are required features of Vulkan 1.3, which every chosen device has.
        let mut f13 = vk::PhysicalDeviceVulkan13Features::default()
            .dynamic_rendering(true)
            .shader_terminate_invocation(true);
        let priorities = [1.0f32];
        let queues = [vk::DeviceQueueCreateInfo::default()
            .queue_family_index(queue_family)
            .queue_priorities(&priorities)];
        // Clip distances and points larger than a pixel, where the device has them (vertex programs
        // writing a[0x2c0..] or a[0x6c]).
        // SAFETY: `pd` came from this instance.
        let has = unsafe { inst.get_physical_device_features(pd) };
        let features = vk::PhysicalDeviceFeatures::default()
            .shader_clip_distance(has.shader_clip_distance == vk::TRUE)
            .large_points(has.large_points == vk::TRUE);
        let create = vk::DeviceCreateInfo::default()
            .queue_create_infos(&queues)
            .enabled_features(&features)
            .push_next(&mut f13);
        // SAFETY: valid create info for a physical device of this instance.
        let device =
            unsafe { inst.create_device(pd, &create, None) }.map_err(vk_err("vkCreateDevice"))?;
        // SAFETY: the family and index were requested at creation.
        let queue = unsafe { device.get_device_queue(queue_family, 0) };
        // SAFETY: `pd` came from this instance.
        let memory = unsafe { inst.get_physical_device_memory_properties(pd) };
        Ok(GraphicsDevice {
            device,
            queue,
            queue_family,
            memory,
            info,
            _instance: instance,
        })
    }

    /// The device drawn on.
    pub fn info(&self) -> &DeviceInfo {
        &self.info
    }
}

impl Drop for GraphicsDevice {
    fn drop(&mut self) {
        // SAFETY: every object made from the device is destroyed by the draw that made it.
        unsafe {
            let _ = self.device.device_wait_idle();
            self.device.destroy_device(None);
        }
    }
}

//! The interface variables of a vertex or pixel program, declared from its SPH before any code is lowered.
//!
//! Vertex: generic input vector n is `vec4` at Location n (created on the first `ALD` of it: the SPH's input
//! map says which vectors exist, the vertex fetch fills unread components as (0, 0, 0, 1)); position and
//! generic outputs exist when the output map holds any of their components (Location n for vector n), so a
//! pixel program's inputs link by location whatever the vertex program wrote. `VertexIndex` and
//! `InstanceIndex` serve a[0x2fc] and a[0x2f8]; a[0x6c] is `PointSize`, a[0x2c0 + 4i] `ClipDistance[i]`.
//! Pixel: generic input vector n is `vec4` at Location n with the SPH's interpolation (flat, noperspective or
//! perspective; one per vector, since a SPIR-V variable has one); colour target t is an output `vec4` at
//! Location t when its component mask is not empty; depth is `FragDepth`.

use crate::error::TranslateError;
use crate::graphics::sph::{Interpolation, PixelInputs, StageMaps, GENERIC_BASE};
use crate::graphics::{ShaderProgramHeader, Stage};
use crate::spirv::{BuiltIn, Decoration, Id, Module, StorageClass, Type};

/// Generic attribute vectors an SPH map covers.
pub const GENERIC_VECTORS: u32 = 32;
/// The point size output's address (yuzu's attribute numbering: 27 words in).
pub const POINT_SIZE: u32 = 0x6c;
/// Clip distance 0's address; distance i is at `CLIP_DISTANCE + 4 i`, i < 8.
pub const CLIP_DISTANCE: u32 = 0x2c0;

/// A program's interface variables and the header they came from.
#[derive(Debug, Clone)]
pub struct GraphicsIo {
    pub stage: Stage,
    pub sph: ShaderProgramHeader,
    pub f32: Id,
    pub vec4: Id,
    /// Vertex: `vec4` inputs by location, created on first read.
    pub vertex_inputs: Vec<Option<Id>>,
    /// Vertex: `vec4` outputs by location (from the output map).
    pub outputs: Vec<Option<Id>>,
    /// Vertex: `Position`.
    pub position: Option<Id>,
    /// Vertex: `PointSize` (a[0x6c]) and `ClipDistance` (a[0x2c0 + 4i], an array of the highest i + 1).
    pub point_size: Option<Id>,
    pub clip_distances: Option<(Id, u32)>,
    /// Vertex: `VertexIndex` / `InstanceIndex` (u32), created on first read.
    pub vertex_index: Option<Id>,
    pub instance_index: Option<Id>,
    /// Pixel: `vec4` inputs by location with their interpolation.
    pub pixel_inputs: Vec<Option<(Id, Interpolation)>>,
    /// Pixel: `FragCoord`, `FrontFacing` (created on first read).
    pub frag_coord: Option<Id>,
    pub front_facing: Option<Id>,
    /// Pixel: colour target outputs (location, variable, component mask).
    pub targets: Vec<(u32, Id, u8)>,
    /// Pixel: `FragDepth`, when the output map writes depth.
    pub frag_depth: Option<Id>,
}

/// Why a header cannot be given an interface: the field and the reason.
fn header_refusal(stage: Stage, field: &str, reason: &str) -> TranslateError {
    TranslateError::GraphicsHeader {
        stage,
        field: field.to_string(),
        reason: reason.to_string(),
    }
}

impl GraphicsIo {
    /// Declares the interface of `stage` from `sph` (the caller has checked that they agree).
    pub fn declare(
        m: &mut Module,
        stage: Stage,
        sph: &ShaderProgramHeader,
    ) -> Result<GraphicsIo, TranslateError> {
        let f32 = m.t_f32();
        let vec4 = m.ty(Type::Vector(f32, 4));
        let mut io = GraphicsIo {
            stage,
            sph: sph.clone(),
            f32,
            vec4,
            vertex_inputs: vec![None; GENERIC_VECTORS as usize],
            outputs: vec![None; GENERIC_VECTORS as usize],
            position: None,
            point_size: None,
            clip_distances: None,
            vertex_index: None,
            instance_index: None,
            pixel_inputs: vec![None; GENERIC_VECTORS as usize],
            frag_coord: None,
            front_facing: None,
            targets: Vec::new(),
            frag_depth: None,
        };
        match (&sph.maps, stage) {
            (StageMaps::Vtg { outputs, .. }, Stage::Vertex) => {
                let any =
                    |base: u32| (0..4).any(|c| outputs.contains(base + 4 * c).unwrap_or(false));
                if any(0x70) {
                    let ptr = m.t_ptr(StorageClass::Output, vec4);
                    let v = m.global_var(ptr, StorageClass::Output, None);
                    m.decorate(v, Decoration::BuiltIn, &[BuiltIn::Position as u32]);
                    io.position = Some(v);
                }
                io.declare_vertex_system_outputs(m, outputs);
                for n in 0..GENERIC_VECTORS {
                    if any(GENERIC_BASE + 16 * n) {
                        io.outputs[n as usize] = Some(io.located(m, StorageClass::Output, n));
                    }
                }
            }
            (StageMaps::Pixel { inputs, outputs }, Stage::Fragment) => {
                io.declare_pixel_inputs(m, inputs)?;
                if outputs.sample_mask {
                    return Err(header_refusal(
                        stage,
                        "OmapSampleMask",
                        "sample-mask output not translated yet",
                    ));
                }
                for (t, &mask) in outputs.targets.iter().enumerate() {
                    if mask & 0xf != 0 {
                        let v = io.located(m, StorageClass::Output, t as u32);
                        io.targets.push((t as u32, v, mask & 0xf));
                    }
                }
                if outputs.depth {
                    let ptr = m.t_ptr(StorageClass::Output, f32);
                    let v = m.global_var(ptr, StorageClass::Output, None);
                    m.decorate(v, Decoration::BuiltIn, &[BuiltIn::FragDepth as u32]);
                    io.frag_depth = Some(v);
                }
            }
            _ => {
                return Err(header_refusal(
                    stage,
                    "ShaderType",
                    "only vertex and pixel programs are translated yet",
                ))
            }
        }
        Ok(io)
    }

    /// Point size and clip distances the output map holds.
    fn declare_vertex_system_outputs(
        &mut self,
        m: &mut Module,
        outputs: &crate::graphics::sph::AttributeMap,
    ) {
        if outputs.contains(POINT_SIZE).unwrap_or(false) {
            let ptr = m.t_ptr(StorageClass::Output, self.f32);
            let v = m.global_var(ptr, StorageClass::Output, None);
            m.decorate(v, Decoration::BuiltIn, &[BuiltIn::PointSize as u32]);
            self.point_size = Some(v);
        }
        let clips = (0..8u32)
            .filter(|i| outputs.contains(CLIP_DISTANCE + 4 * i).unwrap_or(false))
            .max();
        if let Some(last) = clips {
            m.capability(crate::spirv::Capability::ClipDistance);
            let len = m.c_u32(last + 1);
            let arr = m.ty(Type::Array(self.f32, len, None));
            let ptr = m.t_ptr(StorageClass::Output, arr);
            let v = m.global_var(ptr, StorageClass::Output, None);
            m.decorate(v, Decoration::BuiltIn, &[BuiltIn::ClipDistance as u32]);
            self.clip_distances = Some((v, last + 1));
        }
    }

    fn located(&self, m: &mut Module, class: StorageClass, location: u32) -> Id {
        let ptr = m.t_ptr(class, self.vec4);
        let v = m.global_var(ptr, class, None);
        m.decorate(v, Decoration::Location, &[location]);
        v
    }

    fn declare_pixel_inputs(
        &mut self,
        m: &mut Module,
        inputs: &PixelInputs,
    ) -> Result<(), TranslateError> {
        for (n, comps) in inputs.generic.iter().enumerate() {
            let used: Vec<Interpolation> = comps
                .iter()
                .copied()
                .filter(|i| *i != Interpolation::Unused)
                .collect();
            let Some(&mode) = used.first() else { continue };
            if used.iter().any(|i| *i != mode) {
                return Err(header_refusal(
                    Stage::Fragment,
                    &format!("ImapGenericVector[{n}]"),
                    "components with different interpolation types (one variable has one)",
                ));
            }
            let v = self.located(m, StorageClass::Input, n as u32);
            match mode {
                Interpolation::Constant => m.decorate(v, Decoration::Flat, &[]),
                Interpolation::ScreenLinear => m.decorate(v, Decoration::NoPerspective, &[]),
                _ => {}
            }
            self.pixel_inputs[n] = Some((v, mode));
        }
        if inputs.color.iter().any(|c| *c != Interpolation::Unused) {
            return Err(header_refusal(
                Stage::Fragment,
                "ImapColor",
                "colour inputs not translated yet",
            ));
        }
        if inputs
            .fixed_function_texture
            .iter()
            .flatten()
            .any(|c| *c != Interpolation::Unused)
        {
            return Err(header_refusal(
                Stage::Fragment,
                "ImapFixedFncTexture",
                "not translated yet",
            ));
        }
        Ok(())
    }

    /// The vertex input variable of generic vector `n`, declared on first use.
    pub fn vertex_input(&mut self, m: &mut Module, n: u32) -> Id {
        if let Some(v) = self.vertex_inputs[n as usize] {
            return v;
        }
        let v = self.located(m, StorageClass::Input, n);
        self.vertex_inputs[n as usize] = Some(v);
        v
    }

    /// A built-in input variable of type `ty`, declared on first use in `slot`.
    pub fn builtin_input(m: &mut Module, slot: &mut Option<Id>, ty: Id, builtin: BuiltIn) -> Id {
        if let Some(v) = *slot {
            return v;
        }
        let ptr = m.t_ptr(StorageClass::Input, ty);
        let v = m.global_var(ptr, StorageClass::Input, None);
        m.decorate(v, Decoration::BuiltIn, &[builtin as u32]);
        *slot = Some(v);
        v
    }

    /// Locations of the vertex inputs the program reads, in order.
    pub fn read_vertex_inputs(&self) -> Vec<u32> {
        (0..GENERIC_VECTORS)
            .filter(|n| self.vertex_inputs[*n as usize].is_some())
            .collect()
    }
}

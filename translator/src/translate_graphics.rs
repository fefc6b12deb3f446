//! The graphics entry: a vertex or pixel program (its SPH followed by its code) in, a Vulkan module of that
//! stage out, with the interface the runtime links and binds.
//!
//! ```no_run
//! use sassport_translator::graphics::Stage;
//! use sassport_translator::translate::Options;
//! use sassport_translator::translate_graphics::translate_stage;
//! let bytes = std::fs::read("shader.bin").unwrap(); // 0x50-byte SPH, then SM86 words
//! let options = Options { stage: Stage::Fragment, ..Options::default() };
//! let t = translate_stage("fs", &bytes, &options).unwrap();
//! println!("{} words; colour targets {:?}", t.words.len(), t.interface.color_targets);
//! ```
//!
//! Bindings: constant bank b at binding 1 + b as for compute, in descriptor set 0 for vertex programs and
//! set 1 for pixel programs (the seed notes' layout), so one pipeline layout serves both stages. Programs
//! that reach global memory, the launch values or warp-synchronous instructions are refused (compute-only
//! machinery so far).

use crate::error::TranslateError;
use crate::graphics::{ShaderProgramHeader, Stage};
use crate::lower::attribute::GraphicsIo;
use crate::lower::{Builtins, Ctx, FloatSupport};
use crate::program::{Program, TableDecoder, Targets};
use crate::spirv::{
    Decoration, ExecutionMode, ExecutionModel, FunctionControl, Module, StorageClass, Type,
};
use crate::state::{State, Types};
use crate::translate::Options;

/// Descriptor set of a vertex program's constant banks.
pub const VERTEX_DESCRIPTOR_SET: u32 = 0;
/// Descriptor set of a pixel program's constant banks.
pub const FRAGMENT_DESCRIPTOR_SET: u32 = 1;

/// What a translated stage reads and writes, for linking and binding.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StageInterface {
    /// Descriptor set of the stage's constant banks.
    pub descriptor_set: u32,
    /// Constant banks read: (bank, bytes the reads need), at binding 1 + bank.
    pub banks: Vec<(u8, u32)>,
    /// Vertex: locations of the `vec4` float inputs read (generic vector n at location n).
    pub vertex_inputs: Vec<u32>,
    /// Vertex: locations of the generic outputs (from the SPH's output map).
    pub outputs: Vec<u32>,
    /// Pixel: locations of the generic inputs.
    pub inputs: Vec<u32>,
    /// Pixel: colour targets (location, component mask), `vec4` float outputs.
    pub color_targets: Vec<(u32, u8)>,
    /// Pixel: writes depth.
    pub writes_depth: bool,
    /// Pixel: may discard (KILL).
    pub kills: bool,
}

/// One translated graphics stage.
#[derive(Debug, Clone)]
pub struct StageTranslation {
    pub stage: Stage,
    pub sph: ShaderProgramHeader,
    pub words: Vec<u32>,
    pub report: crate::translate::Report,
    pub interface: StageInterface,
}

/// Translates `bytes` (a 0x50-byte SPH, then the program's code from offset 0) as `options.stage` (the
/// header must agree); `name` names it in errors (its "section").
pub fn translate_stage(
    name: &str,
    bytes: &[u8],
    options: &Options,
) -> Result<StageTranslation, TranslateError> {
    let stage = options.stage;
    let sph = ShaderProgramHeader::parse(bytes)?;
    stage.check_header(&sph)?;
    let code = &bytes[crate::graphics::sph::SPH_BYTES..];
    let targets = Targets {
        branches: &[],
        calls: &[],
        code_section: 0,
    };
    let program = Program::build_with(name, code, 0, &targets, &TableDecoder)?;
    translate_stage_program(name, &sph, &program, options)
}

/// [`translate_stage`] on a decoded program and its parsed header.
pub fn translate_stage_program(
    name: &str,
    sph: &ShaderProgramHeader,
    program: &Program,
    options: &Options,
) -> Result<StageTranslation, TranslateError> {
    let stage = options.stage;
    stage.check_header(sph)?;
    let limit = |reason: &str| TranslateError::Limit {
        kernel: name.into(),
        reason: reason.into(),
    };
    if crate::control::turns::needs_turns(program) {
        return Err(limit(
            "warp-synchronous instructions in a graphics stage are not translated yet",
        ));
    }
    let local = u32::try_from(sph.common.local_memory_bytes)
        .ok()
        .filter(|b| *b <= 0x10_0000)
        .ok_or_else(|| limit("SPH local memory above 1 MiB"))?;
    let local = local.div_ceil(16) * 16;
    // A header that says no pixel is killed lets the hardware test depth early: a KILL there contradicts it.
    if program.insts.iter().any(|i| i.mnemonic == "KILL") && !sph.common.kills_pixels {
        return Err(TranslateError::GraphicsHeader {
            stage,
            field: "KillsPixels".into(),
            reason: "the program has KILL but the header says it kills no pixels".into(),
        });
    }
    let (model, set) = match stage {
        Stage::Vertex => (ExecutionModel::Vertex, VERTEX_DESCRIPTOR_SET),
        Stage::Fragment => (ExecutionModel::Fragment, FRAGMENT_DESCRIPTOR_SET),
        other => {
            return Err(TranslateError::StageNotTranslated {
                kernel: name.into(),
                stage: other,
            })
        }
    };
    let float = FloatSupport::for_profile(options.profile.as_ref());
    let mut m = Module::new();
    m.set_soft_float64(!float.float64);
    let t = Types::declare(&mut m);
    let io = GraphicsIo::declare(&mut m, stage, sph)?;
    // Graphics stages have no workgroup: the built-ins the control lowering names are private zeros, and
    // the special-register lowering refuses to read them.
    let private = m.t_ptr(StorageClass::Private, t.uvec3);
    let local_id = m.global_var(private, StorageClass::Private, None);
    let group_id = m.global_var(private, StorageClass::Private, None);
    let fn_ty = m.ty(Type::Function(t.void, [0; 4]));
    let main = m.begin_function(t.void, fn_ty, FunctionControl::NONE);
    let first = m.id();
    m.label(first);
    let zero = m.c_u32(0);
    let next_pc = m.local_var(t.fn_u32, Some(zero));
    let inst = *program
        .insts
        .first()
        .ok_or_else(|| TranslateError::FallsOffCode {
            section: program.section.clone(),
            offset: program.entry,
        })?;
    let mut cx = Ctx {
        m,
        t,
        st: State::new(local, 0),
        section: &program.section,
        inst,
        next_pc,
        builtins: Builtins { local_id, group_id },
        clock: None,
        local_bytes: local,
        uniform: false,
        float,
        externs: Default::default(),
        warp: None,
        subgroup: None,
        loops: Default::default(),
        graphics: Some(io),
        shared_fma: None,
    };
    let form = match options.control {
        crate::translate::ControlForm::Structured => {
            crate::control::structured::emit(&mut cx, program, &[])?
        }
        crate::translate::ControlForm::Dispatch => {
            crate::control::emit_dispatch(&mut cx, program)?;
            crate::control::structured::Form::Dispatch("requested".into())
        }
    };
    let Ctx {
        mut m,
        st,
        graphics,
        ..
    } = cx;
    m.end_function();
    if st.uniforms.first().is_some_and(Option::is_some)
        || st.window.is_some()
        || st.shared.is_some()
    {
        let what = "global or shared memory, faults or loop polls in a graphics stage";
        return Err(limit(&format!("{what} are not translated yet")));
    }
    let banks = declare_banks(&mut m, &t, &st, set);
    let io = graphics.ok_or_else(|| limit("graphics state lost"))?;
    let mut modes: Vec<(ExecutionMode, &[u32])> = Vec::new();
    if stage == Stage::Fragment {
        modes.push((ExecutionMode::OriginUpperLeft, &[]));
        if io.frag_depth.is_some() {
            modes.push((ExecutionMode::DepthReplacing, &[]));
        }
    }
    m.entry_point_as(model, main, crate::abi::ENTRY_POINT, &modes);
    let words = m.finish();
    let interface = interface_of(&io, set, banks, program);
    let report = crate::translate::Report {
        instructions: program.len(),
        blocks: program.blocks.len(),
        words: words.len(),
        local_bytes: local,
        shared_bytes: 0,
        form: Some(form),
        polls_other_blocks: None,
    };
    Ok(StageTranslation {
        stage,
        sph: sph.clone(),
        words,
        report,
        interface,
    })
}

/// Declares the constant banks read, in `set`; returns (bank, bytes).
fn declare_banks(m: &mut Module, t: &Types, st: &State, set: u32) -> Vec<(u8, u32)> {
    let mut banks = Vec::new();
    for b in st.uniforms.iter().skip(1).flatten() {
        let len = m.c_u32(b.vec4s.max(1));
        let arr = m.ty(Type::Array(
            t.uvec4,
            len,
            Some(crate::abi::UNIFORM_ARRAY_STRIDE),
        ));
        let block = m.ty(Type::Block(arr));
        let ptr = m.t_ptr(StorageClass::Uniform, block);
        m.global_inst(
            crate::spirv::Op::Variable,
            &[ptr, b.var, StorageClass::Uniform as u32],
        );
        m.decorate(b.var, Decoration::DescriptorSet, &[set]);
        m.decorate(b.var, Decoration::Binding, &[b.binding]);
        let bank = b.binding.saturating_sub(crate::abi::FIRST_BANK_BINDING) as u8;
        banks.push((bank, b.vec4s.max(1) * 16));
    }
    banks
}

fn interface_of(
    io: &GraphicsIo,
    set: u32,
    banks: Vec<(u8, u32)>,
    program: &Program,
) -> StageInterface {
    let located = |v: &[Option<u32>]| -> Vec<u32> { v.iter().flatten().copied().collect() };
    let outputs: Vec<Option<u32>> = io
        .outputs
        .iter()
        .enumerate()
        .map(|(n, v)| v.map(|_| n as u32))
        .collect();
    let inputs: Vec<Option<u32>> = io
        .pixel_inputs
        .iter()
        .enumerate()
        .map(|(n, v)| v.map(|_| n as u32))
        .collect();
    StageInterface {
        descriptor_set: set,
        banks,
        vertex_inputs: io.read_vertex_inputs(),
        outputs: located(&outputs),
        inputs: located(&inputs),
        color_targets: io.targets.iter().map(|(l, _, mask)| (*l, *mask)).collect(),
        writes_depth: io.frag_depth.is_some(),
        kills: program.insts.iter().any(|i| i.mnemonic == "KILL"),
    }
}

/// Two stages that do not link: a pixel input no vertex output provides.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "the pixel program reads generic vector {location} (a[{address:#x}]): no vertex SPH output"
)]
pub struct LinkError {
    pub location: u32,
    pub address: u32,
}

/// Checks that every generic input of `fragment` is an output of `vertex` (Vulkan leaves such an input
/// undefined; the guest's hardware would read whatever the attribute memory held).
pub fn check_link(vertex: &StageInterface, fragment: &StageInterface) -> Result<(), LinkError> {
    match fragment.inputs.iter().find(|l| !vertex.outputs.contains(l)) {
        Some(&location) => Err(LinkError {
            location,
            address: crate::graphics::sph::GENERIC_BASE + 16 * location,
        }),
        None => Ok(()),
    }
}

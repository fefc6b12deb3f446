//! The public entry: a cubin kernel in, a Vulkan 1.3 compute module (SPIR-V 1.6 words) out.
//!
//! ```no_run
//! let bytes = std::fs::read("saxpy.cubin").unwrap();
//! let cubin = sassport_translator::Cubin::parse(&bytes).unwrap();
//! let t = sassport_translator::translate::translate_kernel(&cubin, "saxpy", &Default::default()).unwrap();
//! println!("{} words, {} blocks", t.words.len(), t.report.blocks);
//! ```
//!
//! Workgroup size: the `WorkgroupSize` built-in is a spec-constant composite of ABI ids 0..=2, so one module
//! serves every block shape and the runtime specialises one pipeline per shape (a per-launch variant would
//! re-translate for nothing: the code does not depend on the block size).

use crate::abi;
use crate::cubin::{Cubin, Kernel};
use crate::error::TranslateError;
use crate::lower::{Builtins, Ctx, FloatSupport};
use crate::program::{Disassembler, Program, TableDecoder, Targets};
use crate::spirv::{BuiltIn, Capability, Decoration, ExecutionMode, FunctionControl, Module, Op, StorageClass, Type};
use crate::state::{State, Types};

/// Identifies the code this build of the translator emits: the crate version and a hash of the translator's
/// sources, the generated decoder and the encoding table. Key caches of translated modules with it.
pub const TRANSLATOR_VERSION: &str = concat!(env!("CARGO_PKG_VERSION"), "+", env!("SASSPORT_TRANSLATOR_STAMP"));

/// Translation options.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// The target device, if known (selects native or emulated lowerings as they become device-dependent).
    /// Kernels with warp-synchronous instructions run their warps as 32-wide subgroups where the profile says
    /// the device can (`lower::subgroup::device_supports`), else in turns; set `subgroup_operations` to 0 to
    /// ask for turns.
    pub profile: Option<abi::DeviceProfile>,
    /// Which control-flow form to emit.
    pub control: ControlForm,
    /// The pipeline stage the code is for. The cubin entries here translate compute and refuse the graphics
    /// stages ([`TranslateError::StageNotTranslated`]: a cubin holds no SPH); vertex and pixel programs go
    /// through [`crate::translate_graphics::translate_stage`], which takes the stage from here.
    pub stage: crate::graphics::Stage,
}

/// The control-flow form of the emitted module.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum ControlForm {
    /// Structured selections and loops (Beyond Relooper), falling back to a dispatch loop only where the
    /// structurizer cannot place the code; what each kernel got is in [`Report::form`].
    #[default]
    Structured,
    /// The whole kernel as one pc-dispatch loop (for comparisons and as a reference form).
    Dispatch,
}

/// Figures about one translation.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Report {
    /// Reachable SASS instructions translated.
    pub instructions: usize,
    pub blocks: usize,
    /// Words of the module.
    pub words: usize,
    /// Bytes of local memory per thread (also the initial stack pointer).
    pub local_bytes: u32,
    /// Bytes of static shared memory.
    pub shared_bytes: u32,
    /// The control-flow form the kernel got (with the structurizer's figures, or why it is a dispatch loop);
    /// `None` for a report not made by a translation (a module taken from a cache).
    pub form: Option<crate::control::structured::Form>,
    /// Offset of the first instruction by which the kernel waits, in a loop, for other blocks' writes
    /// ([`crate::program::polling`]); the module then declares [`abi::SPEC_ID_POLLS_OTHER_BLOCKS`].
    pub polls_other_blocks: Option<u32>,
}

/// One translated kernel.
#[derive(Debug, Clone)]
pub struct Translation {
    pub kernel: String,
    pub words: Vec<u32>,
    pub report: Report,
}

/// Translates kernel `name` with mnemonics from the generated decoder.
pub fn translate_kernel(cubin: &Cubin<'_>, name: &str, options: &Options) -> Result<Translation, TranslateError> {
    translate_kernel_with(cubin, name, options, &TableDecoder)
}

/// Translates every kernel of a cubin, in symbol order.
pub fn translate_all(cubin: &Cubin<'_>, options: &Options) -> Vec<(String, Result<Translation, TranslateError>)> {
    cubin.kernels.iter().map(|k| (k.name().to_string(), translate_kernel(cubin, k.name(), options))).collect()
}

/// [`translate_kernel`] with another source of mnemonics (tests use nvdisasm's listing).
pub fn translate_kernel_with(
    cubin: &Cubin<'_>,
    name: &str,
    options: &Options,
    dis: &dyn Disassembler,
) -> Result<Translation, TranslateError> {
    if options.stage != crate::graphics::Stage::Compute {
        return Err(TranslateError::StageNotTranslated { kernel: name.into(), stage: options.stage });
    }
    // A cubin read for description only (`Cubin::parse_any_architecture`) may hold another SM's code.
    cubin.check_architecture()?;
    let kernel = cubin.kernel(name).ok_or_else(|| TranslateError::NoKernel(name.to_string()))?;
    let section = kernel.function.section_name;
    if cubin.code_section(section).is_none() {
        return Err(TranslateError::NoCode { kernel: name.into(), section: section.into() });
    }
    // The kernel's section, with the functions relocated calls reach (`-rdc` cubins) linked after it.
    let linked = cubin.link_kernel(kernel);
    translate_linked(cubin, kernel, &linked, options, dis).map_err(|e| in_own_section(e, &linked))
}

/// [`translate_kernel_with`] on the kernel's linked code.
fn translate_linked(
    cubin: &Cubin<'_>,
    kernel: &Kernel<'_>,
    linked: &crate::cubin::LinkedCode<'_>,
    options: &Options,
    dis: &dyn Disassembler,
) -> Result<Translation, TranslateError> {
    let name = kernel.name();
    let section = kernel.function.section_name;
    let code: &[u8] = &linked.bytes;
    let entry = u32::try_from(kernel.function.offset)
        .map_err(|_| TranslateError::Limit { kernel: name.into(), reason: "entry offset beyond 4 GiB".into() })?;
    let targets: Vec<u32> = kernel.info.indirect_branches.iter().flat_map(|b| b.targets.iter().copied()).collect();
    let calls = cubin.address_taken_functions(section);
    let code_section = cubin.code_section(section).and_then(|c| u16::try_from(c.index).ok()).unwrap_or(0);
    let program =
        Program::build_with(section, code, entry, &Targets { branches: &targets, calls: &calls, code_section }, dis)?;
    let mut program = program;
    // Extern calls first: a call into the device runtime is refused as that, before the relocated operands
    // that set it up (`R_CUDA_FUNC_DESC32_*` of the child kernel).
    let externs =
        crate::lower::externs::bind_linked_extern_calls(cubin, kernel, &mut program, &linked.extern_calls)?;
    // A relocated operand the linker left unresolved is refused where the kernel can reach it.
    if let Some(r) = linked.refused.iter().find(|r| program.inst_at(r.offset).is_some()) {
        let inst = program.inst_at(r.offset).copied();
        return Err(TranslateError::Relocation {
            name: inst.map_or_else(|| "instruction".into(), |i| crate::error::display_name(i.word, i.mnemonic)),
            section: section.into(),
            offset: r.offset,
            symbol: r.symbol.clone(),
            relocation: r.relocation.clone(),
            reason: r.reason.clone(),
        });
    }
    let local = local_bytes(kernel, &program);
    let shared = shared_size(kernel.name(), linked.shared_bytes)?;
    let float = FloatSupport::for_profile(options.profile.as_ref());
    let warps = WarpPlan::for_profile(options.profile.as_ref());
    let source = ModuleSource {
        name,
        program: &program,
        local,
        shared,
        control: options.control,
        jump_tables: &kernel.info.indirect_branches,
        float,
        externs,
        loops: crate::control::guard::LoopGuard::new(options.profile.as_ref()),
        without: options.profile.as_ref().map(|p| p.without).unwrap_or_default(),
        sync_points: &kernel.info.coop_group_offsets,
        window_chunks: options.profile.as_ref().and_then(|p| p.window_chunks),
        shared_in_window: shared_in_window(options.profile.as_ref(), shared),
    };
    emit_module(&source, warps)
}

/// How a kernel with warp-synchronous instructions may run its warps on the target.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct WarpPlan {
    /// Warps as 32-wide subgroups in the structured form.
    subgroups: bool,
    /// Declare `MaximallyReconvergesKHR` (the device enabled `VK_KHR_shader_maximal_reconvergence`).
    maximal_reconvergence: bool,
}

impl WarpPlan {
    fn for_profile(p: Option<&abi::DeviceProfile>) -> WarpPlan {
        match p {
            Some(p) if crate::lower::subgroup::device_supports(p) && !p.lacks(abi::Feature::Subgroups32) => {
                WarpPlan { subgroups: true, maximal_reconvergence: p.maximal_reconvergence }
            }
            _ => WarpPlan::default(),
        }
    }
}

/// The form chosen for a kernel's warps.
#[derive(Debug, Clone)]
enum WarpMode {
    /// No warp-synchronous instructions.
    None,
    /// Structured, warps as subgroups.
    Subgroups { maximal_reconvergence: bool },
    /// In turns, and why not as subgroups.
    Turns(String),
}

fn shared_bytes(kernel: &Kernel<'_>) -> Result<u32, TranslateError> {
    shared_size(kernel.name(), kernel.shared_size)
}

fn shared_size(kernel: &str, bytes: u64) -> Result<u32, TranslateError> {
    u32::try_from(bytes)
        .ok()
        .filter(|s| *s <= 0x10_0000)
        .ok_or_else(|| TranslateError::Limit { kernel: kernel.into(), reason: "shared memory too large".into() })
}

/// An error about linked code placed in the section it came from: image offsets past the kernel's section
/// name a linked function's section and the offset in it.
fn in_own_section(e: TranslateError, linked: &crate::cubin::LinkedCode<'_>) -> TranslateError {
    if linked.sections.len() < 2 {
        return e;
    }
    let fix = |section: &mut String, offset: &mut u32| {
        if let Some((s, o)) = linked.place(*offset) {
            *section = s.to_string();
            *offset = o;
        }
    };
    let mut e = e;
    match &mut e {
        TranslateError::Undecodable { section, offset, .. }
        | TranslateError::FallsOffCode { section, offset }
        | TranslateError::BadTarget { section, offset, .. }
        | TranslateError::NotTranslated { section, offset, .. }
        | TranslateError::DeviceRuntime { section, offset, .. }
        | TranslateError::Relocation { section, offset, .. } => fix(section, offset),
        _ => {}
    }
    e
}

fn local_bytes(kernel: &Kernel<'_>, program: &Program) -> u32 {
    let r = &kernel.function.resources;
    let mut bytes = kernel.frame_size().max(r.max_stack_size.unwrap_or(0));
    if !program.return_points.is_empty() {
        // Calls keep return addresses and saved registers on the stack; recursion has no static bound.
        bytes = bytes.max(1024);
    }
    bytes.div_ceil(16) * 16
}

/// Translates a decoded program of `kernel`.
pub fn translate_program(kernel: &Kernel<'_>, program: &Program) -> Result<Translation, TranslateError> {
    let name = kernel.name();
    let local = local_bytes(kernel, program);
    let shared = shared_bytes(kernel)?;
    emit_module(&ModuleSource::plain(name, program, local, shared, ControlForm::default(), &kernel.info.indirect_branches), WarpPlan::default())
}

/// Translates a decoded program given its resources: `local` bytes of local memory per thread (also the
/// initial stack pointer) and `shared` bytes of static shared memory. The lowest-level entry, for callers
/// without a cubin (tests, fuzzing, emulators holding code in memory).
pub fn translate_decoded(name: &str, program: &Program, local: u32, shared: u32) -> Result<Translation, TranslateError> {
    emit_module(&ModuleSource::plain(name, program, local, shared, ControlForm::default(), &[]), WarpPlan::default())
}

/// [`translate_decoded`] for a target device: `options` choose the control form and, through the profile, the
/// float lowerings and whether warps run as subgroups.
pub fn translate_decoded_for(
    name: &str,
    program: &Program,
    local: u32,
    shared: u32,
    options: &Options,
) -> Result<Translation, TranslateError> {
    if options.stage != crate::graphics::Stage::Compute {
        return Err(TranslateError::StageNotTranslated { kernel: name.into(), stage: options.stage });
    }
    let mut source = ModuleSource::plain(name, program, local, shared, options.control, &[]);
    source.float = FloatSupport::for_profile(options.profile.as_ref());
    source.loops = crate::control::guard::LoopGuard::new(options.profile.as_ref());
    source.shared_in_window = shared_in_window(options.profile.as_ref(), shared);
    source.without = options.profile.as_ref().map(|p| p.without).unwrap_or_default();
    source.window_chunks = options.profile.as_ref().and_then(|p| p.window_chunks);
    emit_module(&source, WarpPlan::for_profile(options.profile.as_ref()))
}

/// [`translate_decoded`] in a chosen control form, with the kernel's jump tables (`BRX` targets).
pub fn translate_decoded_with(
    name: &str,
    program: &Program,
    local: u32,
    shared: u32,
    control: ControlForm,
    jump_tables: &[crate::cubin::IndirectBranch],
) -> Result<Translation, TranslateError> {
    emit_module(&ModuleSource::plain(name, program, local, shared, control, jump_tables), WarpPlan::default())
}

/// What a module is made from: the decoded program and its resources (`local` bytes of local memory per
/// thread, also the initial stack pointer; `shared` bytes of static shared memory), the control form asked
/// for, the kernel's jump tables, the device's float behaviour and the extern calls.
struct ModuleSource<'a> {
    name: &'a str,
    program: &'a Program,
    local: u32,
    shared: u32,
    control: ControlForm,
    jump_tables: &'a [crate::cubin::IndirectBranch],
    float: FloatSupport,
    externs: crate::lower::externs::ExternCalls,
    /// The loop policy (abort polls; device loop-limit checks and unrolling).
    loops: crate::control::guard::LoopGuard,
    /// Features the profile lacks: a module declaring one of their capabilities is refused.
    without: abi::Features,
    /// The kernel's warp-sync points (`EIATTR_COOP_GROUP_INSTR_OFFSETS`, also the `__syncwarp()`s nvcc
    /// dropped; empty without a cubin), for [`crate::control::lockstep`].
    sync_points: &'a [u32],
    /// Binding 33's form (`DeviceProfile::window_chunks`).
    window_chunks: Option<abi::WindowChunks>,
    /// The kernel's shared memory goes to the window ([`abi::SPEC_ID_SHARED_IN_WINDOW`]): it does not fit
    /// the device's beside the module's own Workgroup words.
    shared_in_window: bool,
}

/// Whether `shared` bytes of static shared memory must live in the window on the profile's device (a profile
/// with no shared-memory limit, 0 as hand-made profiles leave it, states none).
fn shared_in_window(profile: Option<&abi::DeviceProfile>, shared: u32) -> bool {
    profile.is_some_and(|p| {
        shared > 0
            && p.max_shared_memory_bytes > 0
            && crate::state::shared_allocation_bytes(shared, 0) + u64::from(abi::WORKGROUP_RESERVE_BYTES)
                > u64::from(p.max_shared_memory_bytes)
    })
}

impl<'a> ModuleSource<'a> {
    /// A source without a device (default float support) and without extern calls.
    fn plain(
        name: &'a str,
        program: &'a Program,
        local: u32,
        shared: u32,
        control: ControlForm,
        jump_tables: &'a [crate::cubin::IndirectBranch],
    ) -> Self {
        ModuleSource { name, program, local, shared, control, jump_tables, float: FloatSupport::default(), externs: Default::default(), loops: Default::default(), without: Default::default(), sync_points: &[], window_chunks: None, shared_in_window: false }
    }
}

/// Refuses a module declaring a capability of a feature in `without` (the profile lacks it and nothing
/// emulated it), naming the feature and the instruction that first needed it.
fn check_capabilities(kernel: &str, m: &Module, without: abi::Features) -> Result<(), TranslateError> {
    let missing: Vec<crate::error::MissingFeatureUse> = m
        .capabilities()
        .iter()
        .filter_map(|&c| {
            let feature = without.lacking(c)?;
            Some(crate::error::MissingFeatureUse { feature, site: m.capability_site(c).map(str::to_string) })
        })
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    Err(TranslateError::MissingCapabilities { kernel: kernel.into(), missing })
}

/// Emits the module; a kernel with warp instructions, or whose lanes may exchange data through shared memory
/// within a barrier interval (`control::lockstep`: SM86 runs them in lockstep), gets the subgroup form where
/// the plan allows and it structures exactly (every `BSYNC` at a merge), else the turns form with the reason.
fn emit_module(source: &ModuleSource<'_>, warps: WarpPlan) -> Result<Translation, TranslateError> {
    let emit = |mode: WarpMode| emit_module_as(source, mode);
    let control = source.control;
    // Why the warps run together (prefixed to the reason they are not subgroups, in the form's report).
    let mut lockstep = String::new();
    if !crate::control::turns::needs_turns(source.program) {
        let exchanges = crate::control::lockstep::exchanges(source.program, source.sync_points);
        let Some(first) = exchanges.first() else { return emit(WarpMode::None) };
        lockstep = format!("lanes may exchange data through shared memory (at {first:#06x}); ");
    }
    let why = if !warps.subgroups {
        "no 32-wide subgroups on the target".to_string()
    } else if control != ControlForm::Structured {
        "the dispatch form was requested".to_string()
    } else {
        match emit(WarpMode::Subgroups { maximal_reconvergence: warps.maximal_reconvergence }) {
            Ok(t) => return Ok(t),
            Err(e) => format!("not as subgroups: {e}"),
        }
    };
    emit(WarpMode::Turns(lockstep + &why))
}

fn emit_module_as(source: &ModuleSource<'_>, warps: WarpMode) -> Result<Translation, TranslateError> {
    let ModuleSource { name, program, local, shared, control, jump_tables, float, .. } = *source;
    let externs = source.externs.clone();
    if local > 0x10_0000 || shared > 0x10_0000 {
        return Err(TranslateError::Limit { kernel: name.into(), reason: "local or shared memory too large".into() });
    }
    let mut m = Module::new();
    m.set_soft_float64(!float.float64);
    let t = Types::declare(&mut m);

    // Built-ins and the workgroup size.
    let in_ptr = m.t_ptr(StorageClass::Input, t.uvec3);
    let local_id = m.global_var(in_ptr, StorageClass::Input, None);
    m.decorate(local_id, Decoration::BuiltIn, &[BuiltIn::LocalInvocationId as u32]);
    let group_id = m.global_var(in_ptr, StorageClass::Input, None);
    m.decorate(group_id, Decoration::BuiltIn, &[BuiltIn::WorkgroupId as u32]);
    let sx = m.spec_u32(abi::SPEC_ID_BLOCK_DIM_X, 1);
    let sy = m.spec_u32(abi::SPEC_ID_BLOCK_DIM_Y, 1);
    let sz = m.spec_u32(abi::SPEC_ID_BLOCK_DIM_Z, 1);
    let wg = m.id();
    m.global_inst(Op::SpecConstantComposite, &[t.uvec3, wg, sx, sy, sz]);
    m.decorate(wg, Decoration::BuiltIn, &[BuiltIn::WorkgroupSize as u32]);

    let fn_ty = m.ty(Type::Function(t.void, [0; 4]));
    let main = m.begin_function(t.void, fn_ty, FunctionControl::NONE);
    let first = m.id();
    m.label(first);
    let zero = m.c_u32(0);
    let next_pc = m.local_var(t.fn_u32, Some(zero));

    let mut cx = Ctx {
        m,
        t,
        st: State::new(local, shared).with_window_chunks(source.window_chunks),
        section: &program.section,
        inst: match program.insts.first() {
            Some(i) => *i,
            None => return Err(TranslateError::FallsOffCode { section: program.section.clone(), offset: program.entry }),
        },
        next_pc,
        builtins: Builtins { local_id, group_id },
        clock: None,
        local_bytes: local,
        uniform: false,
        float,
        externs,
        warp: None,
        subgroup: None,
        loops: source.loops,
        graphics: None,
        shared_fma: None,
    };
    cx.st.shared_in_window = source.shared_in_window;
    // Warp-synchronous instructions need the threads of a warp to run together: as one subgroup in the
    // structured form, or in turns.
    use crate::control::structured::Form;
    let form = match &warps {
        WarpMode::Turns(why) => {
            let blocks = crate::control::turns::emit_turns(&mut cx, program, [sx, sy, sz])?;
            Form::Turns { blocks, why: why.clone() }
        }
        WarpMode::Subgroups { .. } => {
            crate::lower::subgroup::setup(&mut cx, [sx, sy, sz], program);
            match crate::control::structured::emit(&mut cx, program, jump_tables)? {
                Form::Structured { report, reconvergence, inlined, shared, .. }
                    if reconvergence.moved.is_empty() && reconvergence.moved_in_recursion.is_empty() =>
                {
                    Form::Structured { report, reconvergence, inlined, shared, warps_as_subgroups: true }
                }
                other => {
                    return Err(TranslateError::Limit {
                        kernel: name.into(),
                        reason: format!("threads would not rejoin where SM86 reconverges them ({other})"),
                    })
                }
            }
        }
        WarpMode::None => match control {
            ControlForm::Structured => crate::control::structured::emit(&mut cx, program, jump_tables)?,
            ControlForm::Dispatch => {
                crate::control::emit_dispatch(&mut cx, program)?;
                Form::Dispatch("requested".into())
            }
        },
    };
    let Ctx { mut m, st, float, .. } = cx;
    m.end_function();
    st.declare_uniforms(&mut m, &t);
    // SM86 arithmetic keeps zero signs, infinities and NaNs (`0 * inf` is NaN, `x + +0` turns -0 into +0);
    // without these modes a driver may fold such operations (Mesa folds `x * 0.0` to 0 and `x + 0.0` to x),
    // as precise_math's sinf(inf) and sinf(-0) showed against the silicon goldens. Every desktop Vulkan
    // driver reports `shaderSignedZeroInfNanPreserveFloat32/64`; [`FloatSupport`] says which widths the device allows.
    let mut modes: Vec<(ExecutionMode, &[u32])> = Vec::new();
    if float.signed_zero_inf_nan_preserve[0] {
        modes.push((ExecutionMode::SignedZeroInfNanPreserve, &[32]));
    }
    if float.signed_zero_inf_nan_preserve[1] && float.float64 {
        modes.push((ExecutionMode::SignedZeroInfNanPreserve, &[64]));
    }
    if !modes.is_empty() {
        m.capability(Capability::SignedZeroInfNanPreserve);
    }
    if let WarpMode::Subgroups { maximal_reconvergence: true } = warps {
        // Threads rejoin where the structured program merges (the BSYNCs), as SM86 reconverges them.
        m.extension("SPV_KHR_maximal_reconvergence");
        modes.push((ExecutionMode::MaximallyReconvergesKHR, &[]));
    }
    m.entry_point(main, abi::ENTRY_POINT, &modes);
    // The runtime reads this to dispatch the blocks one at a time in ascending order (docs/block-order.md).
    let polls_other_blocks = crate::program::polling::first_polling_instruction(program);
    if let Some(pc) = polls_other_blocks {
        m.spec_u32(abi::SPEC_ID_POLLS_OTHER_BLOCKS, pc);
    }
    check_capabilities(name, &m, source.without)?;
    let words = m.finish();
    Ok(Translation {
        kernel: name.to_string(),
        report: Report {
            instructions: program.len(),
            blocks: program.blocks.len(),
            words: words.len(),
            local_bytes: local,
            shared_bytes: shared,
            form: Some(form),
            polls_other_blocks,
        },
        words,
    })
}

//! The structurizer on every corpus kernel (real nvcc CFGs): each graph structures (or falls back with a
//! named reason), passes the static checks, and runs the same block sequence as the CFG under many branch
//! decision sequences. Every kernel whose instructions all lower is then emitted in the structured form and
//! must pass `spirv-val --target-env vulkan1.3`.
//!
//! Mnemonics come from nvdisasm's listing (independent of our decoder) when the pinned tool is installed.

mod support;

use sassport_translator::control::structured::{emit, kernel_cfg, Form};
use sassport_translator::lower::{Builtins, Ctx};
use sassport_translator::program::{Disassembler, Program, TableDecoder};
use sassport_translator::spirv::{BuiltIn, Decoration, FunctionControl, Module, Op, StorageClass, Type};
use sassport_translator::state::{State, Types};
use sassport_translator::structure::{check, simulate, structure, walk_cfg, Limits};
use sassport_translator::translate::{translate_kernel_with, Options};
use sassport_translator::{abi, Cubin};

fn decide(seed: u64) -> impl FnMut(u32, u32) -> u32 {
    let mut visits = std::collections::HashMap::<u32, u64>::new();
    move |v, arms| {
        let k = visits.entry(v).or_insert(0);
        *k += 1;
        let mut x = seed.wrapping_mul(0x9e3779b97f4a7c15) ^ (u64::from(v) << 32) ^ *k;
        x ^= x >> 31;
        x = x.wrapping_mul(0xbf58476d1ce4e5b9);
        x ^= x >> 29;
        (x % u64::from(arms.max(1))) as u32
    }
}

/// The module of `program` in the structured form (the same module layout as `translate_decoded`).
fn structured_module(
    program: &Program,
    local: u32,
    shared: u32,
    cubin_info: &[sassport_translator::cubin::IndirectBranch],
) -> Result<(Vec<u32>, Form), String> {
    let mut m = Module::new();
    let t = Types::declare(&mut m);
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
        st: State::new(local, shared),
        section: &program.section,
        inst: program.insts[0],
        next_pc,
        builtins: Builtins { local_id, group_id },
        clock: None,
        local_bytes: local,
        uniform: false,
    };
    let form = emit(&mut cx, program, cubin_info).map_err(|e| e.to_string())?;
    let Ctx { mut m, st, .. } = cx;
    m.end_function();
    st.declare_uniforms(&mut m, &t);
    m.entry_point(main, abi::ENTRY_POINT, &[]);
    Ok((m.finish(), form))
}

#[test]
fn corpus_kernels_structure() {
    let (mut structured, mut fallback, mut valid, mut lower_refused, mut undecoded) = (0, 0, 0, 0, 0);
    let mut failures = Vec::new();
    let (mut sizes, mut points) = ((0usize, 0usize), 0usize);
    for path in sassport_corpus::cubins() {
        let bytes = std::fs::read(&path).unwrap();
        let cubin = Cubin::parse(&bytes).unwrap();
        for k in &cubin.kernels {
            let name = format!("{}:{}", path.file_stem().unwrap().to_string_lossy(), k.name());
            let code = cubin.code_section(k.function.section_name).unwrap().bytes;
            let listing;
            let dis: &dyn Disassembler = if support::nvdisasm().is_some() {
                listing = support::Listing::of(code);
                &listing
            } else {
                &TableDecoder
            };
            let indirect = &k.info.indirect_branches;
            let targets: Vec<u32> = indirect.iter().flat_map(|b| b.targets.iter().copied()).collect();
            let entry = k.function.offset as u32;
            let Ok(program) = Program::build_with_targets(k.function.section_name, code, entry, &targets, dis) else {
                undecoded += 1;
                continue;
            };
            let kcfg = match kernel_cfg(&program, indirect) {
                Ok(c) => c,
                Err(why) => {
                    println!("  dispatch {name}: {why}");
                    fallback += 1;
                    continue;
                }
            };
            let s = structure(&kcfg.cfg, &Limits::default()).unwrap_or_else(|e| panic!("{name}: {e}"));
            check(&kcfg.cfg, &s).unwrap_or_else(|e| panic!("{name}: {e}"));
            for seed in 0..64 {
                let want = walk_cfg(&kcfg.cfg, decide(seed), 2000);
                let got = simulate(&s, decide(seed), 2000).unwrap_or_else(|e| panic!("{name}: {e}"));
                assert_eq!(got, want, "{name}: seed {seed}");
            }
            structured += 1;
            let local = k.frame_size().max(1024).div_ceil(16) * 16;
            match structured_module(&program, local, k.shared_size.min(0x10_0000) as u32, indirect) {
                Ok((words, form)) => {
                    let dispatch_words = translate_kernel_with(&cubin, k.name(), &Options::default(), dis)
                        .map(|t| t.words.len())
                        .unwrap_or(0);
                    println!("  {name}: {form}; {} words (dispatch form: {dispatch_words})", words.len());
                    if dispatch_words > 0 {
                        sizes.0 += words.len();
                        sizes.1 += dispatch_words;
                    }
                    if let Form::Structured { reconvergence, .. } = &form {
                        points += reconvergence.points;
                        if !reconvergence.moved.is_empty() {
                            failures.push(format!("{name}: BSYNC not at a merge: {:x?}", reconvergence.moved));
                        }
                    }
                    match support::spirv_val(&words) {
                        Ok(()) => valid += 1,
                        Err(e) => failures.push(format!("{name}: {e}")),
                    }
                }
                Err(e) => {
                    println!("  lowering refused {name}: {e}");
                    lower_refused += 1;
                }
            }
        }
    }
    println!("words: structured {} vs dispatch {} over the same kernels; {points} BSYNC points", sizes.0, sizes.1);
    println!(
        "structured {structured}, dispatch fallback {fallback}, undecoded {undecoded}; emitted and valid {valid}, \
         lowering refused {lower_refused}, invalid {}",
        failures.len()
    );
    assert!(failures.is_empty(), "structured modules rejected:\n{}", failures.join("\n"));
    assert!(structured > 0);
}

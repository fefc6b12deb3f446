//! The exact-arithmetic helpers as SPIR-V: every helper validates with `spirv-val --target-env vulkan1.3`,
//! is emitted once per module however often it is called, and the same calls give byte-identical modules.
//! (Their arithmetic is checked on lavapipe against an exact reference in `cli/tests/exact_helpers.rs`.)

mod support;

use sassport_translator::exact::{self, B};
use sassport_translator::spirv::{BuiltIn, Decoration, FunctionControl, Module, Op, StorageClass, Type};
use sassport_translator::state::{State, Types};

/// A compute module whose entry calls every helper `calls` times on values loaded from the window, storing
/// each result.
fn module(calls: usize) -> Vec<u32> {
    let mut m = Module::new();
    let t = Types::declare(&mut m);
    let mut st = State::new(0, 0);
    let in_ptr = m.t_ptr(StorageClass::Input, t.uvec3);
    let gid = m.global_var(in_ptr, StorageClass::Input, None);
    m.decorate(gid, Decoration::BuiltIn, &[BuiltIn::GlobalInvocationId as u32]);
    let fn_ty = m.ty(Type::Function(t.void, [0; 4]));
    let main = m.begin_function(t.void, fn_ty, FunctionControl::NONE);
    let l = m.id();
    m.label(l);
    let g = m.load(t.uvec3, gid);
    let x = m.op(Op::CompositeExtract, t.u32, &[g, 0]);
    let win = st.window(&mut m, &t);
    let zero = m.c_u32(0);
    let mut results = Vec::new();
    for k in 0..calls {
        let md = m.c_u32((k % 4) as u32);
        results.push(exact::fma32::ffma(&mut m, x, x, x, md));
        results.push(exact::fma32::fadd(&mut m, x, x, md));
        results.push(exact::fma32::fmul(&mut m, x, x, md));
        let w = B::new(&mut m).pack(x, x);
        let r = exact::fma64::dfma(&mut m, w, w, w, md);
        results.push(B::new(&mut m).u32_of(r));
        let r = exact::fma32::f64_to_f32(&mut m, w, md);
        results.push(r);
        let cfg = m.c_u32(exact::convert::f2i_cfg((k % 4) as u32, 3, true, false, false));
        let r = exact::convert::float_to_int(&mut m, exact::round::F32, w, cfg);
        results.push(B::new(&mut m).u32_of(r));
        let r = exact::half::hfma(&mut m, exact::round::F16, x, x, x, md);
        results.push(r);
        let r = exact::half::hfma(&mut m, exact::round::BF16, x, x, x, md);
        results.push(r);
        let mut b = B::new(&mut m);
        let neg = b.neg64(w);
        let r = exact::convert::int_to_float(&mut b, exact::round::F64, w, neg, md);
        let r = b.u32_of(r);
        results.push(r);
        let r = exact::convert::float_to_float(&mut b, exact::round::F64, exact::round::F16, w, md, true);
        results.push(b.u32_of(r));
    }
    for (i, r) in results.into_iter().enumerate() {
        let idx = m.c_u32(i as u32);
        let p = m.access(t.storage_u32, win, &[zero, idx]);
        m.store(p, r);
    }
    m.op_void(Op::Return, &[]);
    m.end_function();
    st.declare_uniforms(&mut m, &t);
    m.entry_point(main, "main", &[(rspirv::spirv::ExecutionMode::LocalSize, &[1, 1, 1])]);
    m.finish()
}

fn count_functions(words: &[u32]) -> usize {
    let mut i = 5;
    let mut n = 0;
    while i < words.len() {
        let len = (words[i] >> 16) as usize;
        if words[i] & 0xffff == Op::Function as u32 {
            n += 1;
        }
        i += len.max(1);
    }
    n
}

#[test]
fn helpers_validate_and_are_emitted_once() {
    let once = module(1);
    let many = module(6);
    support::spirv_val(&once).unwrap_or_else(|e| panic!("{e}"));
    support::spirv_val(&many).unwrap_or_else(|e| panic!("{e}"));
    // Entry + helpers: the count does not grow with the number of call sites.
    assert_eq!(count_functions(&once), count_functions(&many));
    assert!(count_functions(&once) >= 10, "{} functions", count_functions(&once));
}

#[test]
fn helper_emission_is_deterministic() {
    assert_eq!(module(3), module(3));
}

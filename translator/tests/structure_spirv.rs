//! Structured programs of hand-built and random CFGs emitted as SPIR-V (node code: register updates;
//! conditions and switch selectors: register tests) and checked by `spirv-val --target-env vulkan1.3`. This
//! covers what the corpus does not reach: multi-level breaks through the route variable, dispatch headers of
//! irreducible regions, switches inside loops.

mod support;

use proptest::prelude::*;
use sassport_gen::Word;
use sassport_translator::control::structured::{emit_with, NodeCode};
use sassport_translator::error::TranslateError;
use sassport_translator::lower::{Builtins, Ctx};
use sassport_translator::program::Inst;
use sassport_translator::spirv::{ExecutionMode, FunctionControl, Id, Module, Op, Type};
use sassport_translator::state::{State, Types};
use sassport_translator::structure::{structure, Cfg, Limits, Stmt, Term};
use Term::*;

struct Synthetic<'a>(&'a Cfg);

impl NodeCode for Synthetic<'_> {
    fn code(&mut self, cx: &mut Ctx<'_>, node: u32) -> Result<(), TranslateError> {
        let r = (node % 8) as u8;
        let v = cx.reg(r);
        let k = cx.u32c(node + 1);
        let sum = cx.op2(Op::IAdd, v, k);
        cx.set_reg(r, sum);
        Ok(())
    }
    fn condition(&mut self, cx: &mut Ctx<'_>, node: u32) -> Result<Id, TranslateError> {
        let v = cx.reg((8 + node % 8) as u8);
        let zero = cx.u32c(0);
        Ok(cx.m.bin(Op::INotEqual, cx.t.bool, v, zero))
    }
    fn selector(&mut self, cx: &mut Ctx<'_>, node: u32) -> Result<(Id, Vec<u32>), TranslateError> {
        let arms = match &self.0.terms[node as usize] {
            Switch(t) => t.len() as u32,
            _ => 0,
        };
        Ok((cx.reg(16), (0..arms).map(|i| i * 3).collect()))
    }
}

/// The structured form of `g` as a compute module.
fn module(g: &Cfg, limits: &Limits) -> (Vec<u32>, Vec<Stmt>) {
    let s = structure(g, limits).expect("structures");
    let mut m = Module::new();
    let t = Types::declare(&mut m);
    let fn_ty = m.ty(Type::Function(t.void, [0; 4]));
    let main = m.begin_function(t.void, fn_ty, FunctionControl::NONE);
    let first = m.id();
    m.label(first);
    let next_pc = m.local_var(t.fn_u32, None);
    let mut cx = Ctx {
        m,
        t,
        st: State::new(16, 0),
        section: ".text.synthetic",
        inst: Inst { offset: 0, word: Word(0), mnemonic: "NOP" },
        next_pc,
        builtins: Builtins { local_id: 0, group_id: 0 },
        clock: None,
        local_bytes: 16,
        uniform: false,
        float: Default::default(),
        externs: Default::default(),
        warp: None,
        subgroup: None,
        loops: Default::default(),
        graphics: None,
        shared_fma: None,
    };
    emit_with(&mut cx, &s, &mut Synthetic(g)).expect("emits");
    let Ctx { mut m, st, .. } = cx;
    m.end_function();
    st.declare_uniforms(&mut m, &t);
    m.entry_point(main, "main", &[(ExecutionMode::LocalSize, &[1, 1, 1])]);
    (m.finish(), s.body)
}

fn valid(g: &Cfg, limits: &Limits) {
    let (words, body) = module(g, limits);
    if let Err(e) = support::spirv_val(&words) {
        panic!("spirv-val: {e}\n{g:?}\n{body:#?}\n{}", support::spirv_dis(&words));
    }
}

fn cfg(terms: Vec<Term>) -> Cfg {
    let weights = vec![10; terms.len()];
    Cfg { entry: 0, terms, weights }
}

fn hand_built() -> Vec<(&'static str, Cfg)> {
    vec![
        ("straight", cfg(vec![Goto(1), Goto(2), Exit])),
        ("diamond", cfg(vec![Cond(1, 2), Goto(3), Goto(3), Exit])),
        ("triangle_exit", cfg(vec![Cond(1, 2), Goto(2), CondExit(3), Exit])),
        ("nested_loops", cfg(vec![Goto(1), Goto(2), Goto(3), Cond(2, 4), Cond(1, 5), Exit])),
        ("loop_several_exits", cfg(vec![Goto(1), Cond(2, 6), Cond(3, 4), Cond(1, 5), Goto(6), Goto(6), Exit])),
        ("break_in_if", cfg(vec![Goto(1), Cond(2, 3), Goto(4), Goto(1), Exit])),
        (
            "multi_level_break",
            cfg(vec![Goto(1), Goto(2), Goto(3), Switch(vec![6, 2, 4]), Cond(1, 5), Goto(7), Goto(7), Exit]),
        ),
        ("shared_return_tail", cfg(vec![Cond(1, 2), Cond(3, 4), Cond(4, 5), Goto(6), Goto(6), Goto(6), Exit])),
        (
            "early_return_in_loops",
            cfg(vec![Goto(1), CondExit(3), Goto(4), Goto(4), CondExit(5), Cond(4, 6), Cond(1, 7), Exit]),
        ),
        ("switch_fallthrough", cfg(vec![Switch(vec![1, 2, 3, 4]), Goto(2), Goto(4), Goto(4), Exit])),
        ("switch_in_loop", cfg(vec![Goto(1), Switch(vec![2, 3, 1, 4]), Goto(1), Cond(1, 4), Exit])),
        ("two_entry_loop", cfg(vec![Cond(1, 2), Goto(2), Cond(1, 3), Exit])),
        ("three_entry_region", cfg(vec![Switch(vec![1, 2, 3]), Cond(2, 4), Cond(3, 4), Cond(1, 4), Exit])),
        ("calls_inlined", cfg(vec![Goto(4), Goto(6), Exit, Exit, Cond(5, 1), Goto(1), Cond(7, 2), Goto(2)])),
        ("self_loop", cfg(vec![Goto(1), Cond(1, 2), Exit])),
    ]
}

#[test]
fn hand_built_graphs_emit_valid_spirv() {
    for (name, g) in hand_built() {
        eprintln!("{name}");
        valid(&g, &Limits::default());
        // Irreducible ones once more through dispatch headers instead of copies.
        valid(&g, &Limits { split_words: 0, ..Limits::default() });
    }
}

#[test]
fn multi_level_break_uses_the_route_variable() {
    let g = &hand_built()[6].1;
    let (words, _) = module(g, &Limits::default());
    let text = support::spirv_dis(&words);
    // The route check after the inner construct: the variable compared with an outer label (OpIEqual is
    // used by nothing else here), then a break onward.
    assert!(text.matches("OpLoopMerge").count() >= 3, "{text}");
    assert!(text.contains("OpIEqual"), "{text}");
}

type RawNode = (u8, [u32; 4], u8);

fn any_cfg(raw: &[RawNode]) -> Cfg {
    let n = raw.len() as u32;
    let terms = raw
        .iter()
        .map(|(k, t, a)| match k % 8 {
            0 => Exit,
            1 | 2 => Goto(t[0] % n),
            3..=5 => Cond(t[0] % n, t[1] % n),
            6 => CondExit(t[0] % n),
            _ => Switch((0..2 + u32::from(a % 3)).map(|i| t[i as usize] % n).collect()),
        })
        .collect();
    Cfg { entry: 0, terms, weights: raw.iter().map(|r| 1 + u32::from(r.2 % 16)).collect() }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn random_graphs_emit_valid_spirv(
        raw in prop::collection::vec((any::<u8>(), any::<[u32; 4]>(), any::<u8>()), 1..16),
        budget in prop_oneof![Just(0u64), Just(4096u64)],
    ) {
        let g = any_cfg(&raw);
        let limits = Limits { split_words: budget, ..Limits::default() };
        let (words, body) = module(&g, &limits);
        if let Err(e) = support::spirv_val(&words) {
            return Err(TestCaseError::fail(format!("spirv-val: {e}\n{g:?}\n{body:#?}")));
        }
    }
}

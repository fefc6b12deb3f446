//! Device-function calls in the corpus (`corpus/src/calls.cu`): direct, recursive and register-indirect calls
//! translate in both control forms, every module passes spirv-val, and the structured form is what each kernel
//! gets (recursion through one shared copy per recursive function, indirect calls through a switch over the
//! address-taken functions). Running them on lavapipe against the silicon goldens is `cli/tests/calls_run.rs`.

mod support;

use sassport_translator::control::structured::Form;
use sassport_translator::translate::{translate_kernel, ControlForm, Options};
use sassport_translator::Cubin;

fn calls_cubin() -> Vec<u8> {
    let path = sassport_corpus::cubins().into_iter().find(|p| p.file_stem().is_some_and(|s| s == "calls")).unwrap();
    std::fs::read(path).unwrap()
}

fn translate(cubin: &Cubin<'_>, kernel: &str, control: ControlForm) -> sassport_translator::translate::Translation {
    let t = translate_kernel(cubin, kernel, &Options { control, ..Options::default() })
        .unwrap_or_else(|e| panic!("{kernel} ({control:?}): {e}"));
    if let Err(e) = support::spirv_val(&t.words) {
        panic!("{kernel} ({control:?}): spirv-val rejected the module:\n{e}");
    }
    t
}

#[test]
fn address_taken_functions_are_the_op_table() {
    let bytes = calls_cubin();
    let cubin = Cubin::parse(&bytes).unwrap();
    // .nv.constant2.calls_indirect holds descriptors 0x2e0 (op_rotl), 0x280 (op_mul), 0x2a0 (op_not),
    // 0x2c0 (op_sqr): `cuobjdump -elf corpus/sm86/calls.cubin` (corpus/sm86/calls.elf.txt).
    assert_eq!(cubin.address_taken_functions(".text.calls_indirect"), vec![0x280, 0x2a0, 0x2c0, 0x2e0]);
    // Functions called only directly have no address taken.
    assert!(cubin.address_taken_functions(".text.calls_recursive").is_empty());
    assert!(cubin.address_taken_functions(".text.calls_direct").is_empty());
}

#[test]
fn every_call_kernel_is_structured_and_valid_in_both_forms() {
    let bytes = calls_cubin();
    let cubin = Cubin::parse(&bytes).unwrap();
    for k in ["calls_direct", "calls_recursive", "calls_indirect"] {
        let s = translate(&cubin, k, ControlForm::Structured);
        let d = translate(&cubin, k, ControlForm::Dispatch);
        let form = s.report.form.clone().unwrap();
        println!("{k}: {form}; {} words structured, {} dispatch", s.words.len(), d.words.len());
        let Form::Structured { shared, inlined, .. } = &form else { panic!("{k}: {form}") };
        match k {
            "calls_recursive" => {
                // fib is recursive and kept as one copy returning to its three call sites (0x100 in the
                // kernel, 0x2a0 and 0x2f0 in itself); gcd_rec and the 64-bit remainder are inlined.
                assert_eq!(shared.len(), 1, "{form}");
                assert_eq!((shared[0].entry, shared[0].recursive, shared[0].return_points), (0x1b0, true, 3));
                assert_eq!(inlined.call_sites, 2, "{form}");
            }
            "calls_indirect" => {
                // Two indirect call sites, each a switch over the four op_* functions inlined per site.
                assert!(shared.is_empty(), "{form}");
                assert_eq!(inlined.call_sites, 8, "{form}");
            }
            _ => assert!(shared.is_empty(), "{form}"),
        }
        assert!(!format!("{form}").contains("dispatch"), "{k}: {form}");
    }
}

/// Random call graphs (recursion, mutual recursion, indirect calls, branches inside functions), assembled as
/// real SM86 control words: translation gives a module or a typed error in both forms, never a panic; every
/// module passes spirv-val; and where the structured form applies, the structured program runs the same block
/// sequences as the kernel's graph.
#[test]
fn random_call_graphs_translate_in_both_forms() {
    use sassport_gen::Word;
    use sassport_translator::control::structured::kernel_cfg;
    use sassport_translator::program::{Disassembler, Program, Targets};
    use sassport_translator::structure::{simulate, structure, walk_cfg, Limits};
    use sassport_translator::translate::translate_decoded_with;

    struct Mnemonics;
    impl Disassembler for Mnemonics {
        fn mnemonic(&self, _offset: u64, word: Word) -> Result<&'static str, String> {
            Ok(match word.opcode_key() {
                0x0944 | 0x0344 => "CALL",
                0x0950 => "RET",
                0x0947 => "BRA",
                0x094d => "EXIT",
                _ => "NOP",
            })
        }
    }
    // A control word: opcode, guard (7 = PT), register operand, and a target relative to the next word.
    fn word(opcode: u128, guard: u128, reg: u128, at: u32, target: u32) -> [u8; 16] {
        let rel = ((i64::from(target) - i64::from(at) - 16) >> 2) as u64 as u128 & ((1u128 << 48) - 1);
        let w = opcode | (guard << 12) | (reg << 24) | (rel << 34) | (7u128 << 87);
        w.to_le_bytes()
    }
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut rnd = |n: u32| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed >> 32) as u32 % n.max(1)
    };
    let (mut structured, mut shared_seen, mut modules) = (0, 0, 0);
    for case in 0..150 {
        let functions = 1 + rnd(5);
        let slots = 6u32;
        let base = |f: u32| f * slots * 16;
        let mut code = Vec::new();
        for f in 0..functions {
            for s in 0..slots {
                let at = base(f) + s * 16;
                let w = if s == slots - 1 {
                    if f == 0 { word(0x094d, 7, 0, at, 0) } else { word(0x0950, 7, 20, at, 0) }
                } else {
                    match rnd(6) {
                        0 if functions > 1 => word(0x0944, 7, 0, at, base(1 + rnd(functions - 1))),
                        1 if functions > 1 => word(0x0344, 7, 6, at, 0),
                        2 => word(0x0947, u128::from(rnd(2) * 7), 0, at, base(f) + 16 * (s + 1 + rnd(slots - s - 1))),
                        3 if s > 0 => word(0x0947, 0, 0, at, base(f) + 16 * rnd(s)),
                        _ => [0u8; 16],
                    }
                };
                code.extend_from_slice(&w);
            }
        }
        let calls: Vec<u32> = (1..functions).filter(|_| rnd(2) == 0).map(base).collect();
        let t = Targets { branches: &[], calls: &calls, code_section: 1 };
        let Ok(program) = Program::build_with(".text.random", &code, 0, &t, &Mnemonics) else { continue };
        let kc = kernel_cfg(&program, &[]);
        if let Err(why) = &kc {
            println!("case {case}: dispatch: {why}");
        }
        if let Ok(kcfg) = kc {
            let s = structure(&kcfg.cfg, &Limits::default()).unwrap_or_else(|e| panic!("case {case}: {e}"));
            for seed in 0..8u64 {
                let mut visits = std::collections::HashMap::<u32, u64>::new();
                let mut decide = move |v: u32, arms: u32| {
                    let k = visits.entry(v).or_insert(0);
                    *k += 1;
                    ((seed.wrapping_mul(0x9e37_79b9) ^ u64::from(v) ^ (*k << 7)) % u64::from(arms.max(1))) as u32
                };
                let want = walk_cfg(&kcfg.cfg, &mut decide, 500);
                let mut visits2 = std::collections::HashMap::<u32, u64>::new();
                let decide2 = move |v: u32, arms: u32| {
                    let k = visits2.entry(v).or_insert(0);
                    *k += 1;
                    ((seed.wrapping_mul(0x9e37_79b9) ^ u64::from(v) ^ (*k << 7)) % u64::from(arms.max(1))) as u32
                };
                let got = simulate(&s, decide2, 500).unwrap_or_else(|e| panic!("case {case}: {e}"));
                assert_eq!(got, want, "case {case}: seed {seed}");
            }
            structured += 1;
            shared_seen += usize::from(!kcfg.shared.is_empty());
        }
        for form in [ControlForm::Structured, ControlForm::Dispatch] {
            if let Ok(t) = translate_decoded_with("random", &program, 1024, 0, form, &[]) {
                support::spirv_val(&t.words).unwrap_or_else(|e| panic!("case {case} ({form:?}): {e}"));
                modules += 1;
            }
        }
    }
    println!("{structured} structured graphs ({shared_seen} with recursion), {modules} modules valid");
    assert!(structured > 50 && shared_seen > 10 && modules > 100, "{structured} {shared_seen} {modules}");
}

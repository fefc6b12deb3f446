//! The structurizer on every corpus kernel (real nvcc CFGs): each graph structures (or falls back with a
//! named reason), passes the static checks, and runs the same block sequence as the CFG under many branch
//! decision sequences. Every kernel whose instructions all lower is then emitted in the structured form and
//! must pass `spirv-val --target-env vulkan1.3`.
//!
//! Mnemonics come from the product decoder; modules come from the public entry in both control forms.

mod support;

use sassport_translator::control::structured::{kernel_cfg, Form};
use sassport_translator::program::{Program, TableDecoder, Targets};
use sassport_translator::structure::{check, simulate, structure, walk_cfg, Limits};
use sassport_translator::translate::{translate_decoded_with, ControlForm};
use sassport_translator::Cubin;

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
            let indirect = &k.info.indirect_branches;
            let targets: Vec<u32> = indirect.iter().flat_map(|b| b.targets.iter().copied()).collect();
            let calls = cubin.address_taken_functions(k.function.section_name);
            let entry = k.function.offset as u32;
            let t = Targets { branches: &targets, calls: &calls, code_section: k.function.section as u16 };
            let Ok(program) = Program::build_with(k.function.section_name, code, entry, &t, &TableDecoder) else {
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
            let shared = k.shared_size.min(0x10_0000) as u32;
            let module = |form| translate_decoded_with(k.name(), &program, local, shared, form, indirect);
            match module(ControlForm::Structured) {
                Ok(t) => {
                    let (words, form) = (t.words, t.report.form.expect("a translation reports its form"));
                    let dispatch_words = module(ControlForm::Dispatch).map(|t| t.words.len()).unwrap_or(0);
                    println!("  {name}: {form}; {} words (dispatch form: {dispatch_words})", words.len());
                    if dispatch_words > 0 {
                        sizes.0 += words.len();
                        sizes.1 += dispatch_words;
                    }
                    if let Form::Structured { reconvergence, .. } = &form {
                        // BSYNCs inside recursive functions are reported (moved_in_recursion) and allowed:
                        // with one invocation per thread and warp instructions refused they are unobservable.
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

//! `control::lockstep` on every corpus kernel without warp instructions: exactly the kernels of
//! `warp_shared_exchange.cu` that exchange through shared memory need lockstep, so the rule moves no other
//! kernel out of the cheap form (a new corpus kernel that it moves must be named here, with its reason).

use sassport_translator::control::{lockstep, turns};
use sassport_translator::program::{Program, TableDecoder, Targets};
use sassport_translator::Cubin;

/// Kernels that need lockstep and have no warp instruction (`xchg_partial_mask` has `BRA.CONV`: turns anyway).
const EXPECTED: [&str; 4] = [
    "warp_shared_exchange:xchg_divergent",
    "warp_shared_exchange:xchg_read_then_write",
    "warp_shared_exchange:xchg_syncwarp",
    "warp_shared_exchange:xchg_volatile_reduce",
];

#[test]
fn only_the_exchange_kernels_need_lockstep() {
    let mut found = Vec::new();
    let mut cheap = 0;
    for path in sassport_corpus::cubins() {
        let bytes = std::fs::read(&path).unwrap();
        let cubin = Cubin::parse(&bytes).unwrap();
        for k in &cubin.kernels {
            let name = format!("{}:{}", path.file_stem().unwrap().to_string_lossy(), k.name());
            let Some(code) = cubin.code_section(k.function.section_name) else { continue };
            let targets: Vec<u32> = k.info.indirect_branches.iter().flat_map(|b| b.targets.iter().copied()).collect();
            let calls = cubin.address_taken_functions(k.function.section_name);
            let t = Targets { branches: &targets, calls: &calls, code_section: k.function.section as u16 };
            let entry = k.function.offset as u32;
            let Ok(program) = Program::build_with(k.function.section_name, code.bytes, entry, &t, &TableDecoder) else {
                continue;
            };
            if turns::needs_turns(&program) {
                continue;
            }
            match lockstep::exchanges(&program, &k.info.coop_group_offsets).first() {
                Some(&at) => found.push((name, at)),
                None => cheap += 1,
            }
        }
    }
    found.sort();
    let names: Vec<&str> = found.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, EXPECTED, "kernels without warp instructions that need lockstep: {found:x?}");
    assert!(cheap >= 60, "only {cheap} kernels keep the cheap form");
}

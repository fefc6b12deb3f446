//! Arbitrary code through the translator: each 17-byte record is a mnemonic selector and a 128-bit word, so
//! every lowering handler sees arbitrary operand bits. Translation must return Ok or a typed error, never
//! panic. Programs with warp instructions go through both warp forms: turns (no device) and 32-wide subgroups
//! (an NVIDIA-like profile).
#![no_main]

use libfuzzer_sys::fuzz_target;
use sassport_gen::Word;
use sassport_translator::program::{Disassembler, Program};
use sassport_translator::abi::DeviceProfile;
use sassport_translator::translate::{translate_decoded, translate_decoded_for, Options};

const MNEMONICS: &[&str] = &[
    "IMAD", "IADD3", "LEA", "LOP3", "PLOP3", "SHF", "PRMT", "SEL", "ISETP", "IMNMX", "IABS", "POPC", "FLO", "BREV",
    "MOV", "BMSK", "SGXT", "UIADD3", "UIMAD", "ULOP3", "USHF", "UMOV", "USEL", "UISETP", "ULDC", "R2UR", "S2UR",
    "LDG", "STG", "LD", "ST", "LDS", "STS", "LDL", "STL", "LDC", "ATOMG", "ATOM", "ATOMS", "RED", "MEMBAR", "FADD",
    "FMUL", "FFMA", "FSETP", "FSEL", "FMNMX", "MUFU", "I2F", "I2FP", "F2I", "FRND", "F2F", "S2R", "CS2R", "NOP",
    "BSSY", "BSYNC", "BREAK", "WARPSYNC", "YIELD", "BAR", "BRA", "EXIT", "CALL", "RET", "SHFL", "VOTE", "VOTEU",
    "MATCH", "REDUX", "B2R", "LDSM", "MOVM", "HMMA", "IMMA", "DMMA",
];

struct Labels(Vec<&'static str>);

impl Disassembler for Labels {
    fn mnemonic(&self, offset: u64, word: Word) -> Result<&'static str, String> {
        // Fall back to the generated decoder for words the selectors do not cover.
        match self.0.get((offset / 16) as usize) {
            Some(m) => Ok(m),
            None => sassport_gen::decode(word).map(|i| i.mnemonic()).map_err(|e| e.to_string()),
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let mut labels = Vec::new();
    let mut code = Vec::new();
    for rec in data.chunks_exact(17) {
        labels.push(MNEMONICS[usize::from(rec[0]) % MNEMONICS.len()]);
        code.extend_from_slice(&rec[1..]);
    }
    let labels = Labels(labels);
    if let Ok(program) = Program::build(".text.fuzz", &code, 0, &labels) {
        let _ = translate_decoded("fuzz", &program, 512, 1024);
        let profile = DeviceProfile {
            maximal_reconvergence: true,
            ..sassport_translator::lower::subgroup::warp_subgroup_profile()
        };
        let options = Options { profile: Some(profile), ..Options::default() };
        let _ = translate_decoded_for("fuzz", &program, 512, 1024, &options);
        // lavapipe's loop quirk: canaries after loops, unrolled innermost loops, written-out lane loops.
        let lavapipe = DeviceProfile {
            subgroup_size: 8,
            min_subgroup_size: 8,
            max_subgroup_size: 8,
            loop_iteration_limit: Some(sassport_translator::abi::LAVAPIPE_LOOP_ITERATION_LIMIT),
            ..DeviceProfile::default()
        };
        let options = Options { profile: Some(lavapipe), ..Options::default() };
        let _ = translate_decoded_for("fuzz", &program, 512, 1024, &options);
    }
});

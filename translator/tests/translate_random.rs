//! No input panics the translator: random code words, labelled with random mnemonics from every family the
//! lowering handles (so every handler sees arbitrary operand bits), either translate or are refused with a
//! typed error; a sample of the translated modules must pass spirv-val.

mod support;

use proptest::prelude::*;
use sassport_gen::Word;
use sassport_translator::program::{Disassembler, Program};
use sassport_translator::translate::translate_decoded;

const MNEMONICS: &[&str] = &[
    "IMAD", "IADD3", "LEA", "LOP3", "PLOP3", "SHF", "PRMT", "SEL", "ISETP", "IMNMX", "IABS", "POPC", "FLO", "BREV",
    "MOV", "BMSK", "SGXT", "UIADD3", "UIMAD", "ULOP3", "USHF", "UMOV", "USEL", "UISETP", "ULDC", "R2UR", "S2UR",
    "LDG", "STG", "LD", "ST", "LDS", "STS", "LDL", "STL", "LDC", "ATOMG", "ATOM", "ATOMS", "RED", "MEMBAR", "FADD",
    "FMUL", "FFMA", "FSETP", "FSEL", "FMNMX", "MUFU", "I2F", "I2FP", "F2I", "FRND", "F2F", "S2R", "CS2R", "NOP",
    "BSSY", "BSYNC", "BREAK", "WARPSYNC", "YIELD", "BAR", "BRA", "EXIT", "CALL", "RET", "SHFL", "VOTE",
];

/// Mnemonic i of the program is `names[i]`.
struct Labels(Vec<&'static str>);

impl Disassembler for Labels {
    fn mnemonic(&self, offset: u64, _word: Word) -> Result<&'static str, String> {
        self.0.get((offset / 16) as usize).copied().ok_or_else(|| "outside".into())
    }
}

fn run(words: &[u128], names: &[usize], local: u32, shared: u32) -> Option<Vec<u32>> {
    let code: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let labels = Labels(names.iter().map(|i| MNEMONICS[*i % MNEMONICS.len()]).collect());
    let program = Program::build(".text.fuzz", &code, 0, &labels).ok()?;
    translate_decoded("fuzz", &program, local, shared).ok().map(|t| t.words)
}

/// Random words whose branch-like instructions mostly stay inside the code: small offsets.
fn word() -> impl Strategy<Value = u128> {
    (any::<u64>(), any::<u64>(), 0u32..3).prop_map(|(lo, hi, kind)| {
        let w = (u128::from(hi) << 64) | u128::from(lo);
        match kind {
            // Branch target field (bits 81:34) small and aligned: relative offsets of a few words.
            0 => (w & !(((1u128 << 48) - 1) << 34)) | ((u128::from(lo % 8) << 2) << 34),
            _ => w,
        }
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, .. ProptestConfig::default() })]
    #[test]
    fn random_code_never_panics(
        words in prop::collection::vec(word(), 1..24),
        names in prop::collection::vec(any::<usize>(), 24),
        local in 0u32..4096,
        shared in 0u32..4096,
    ) {
        let _ = run(&words, &names, local, shared);
    }
}

#[test]
fn translated_random_code_validates() {
    // A deterministic sample: every module that translates must be valid SPIR-V.
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut validated = 0;
    for _ in 0..3000 {
        let n = (next() % 12 + 1) as usize;
        let mut words: Vec<u128> = (0..n).map(|_| (u128::from(next()) << 64) | u128::from(next())).collect();
        // Guards and predicates all PT half the time, so more instructions reach the lowering.
        for w in &mut words {
            if next() % 2 == 0 {
                *w = (*w & !(0xf << 12)) | (0x7 << 12);
            }
        }
        // End with EXIT so that control does not run off the code.
        let names: Vec<usize> = (0..n).map(|i| if i + 1 == n { MNEMONICS.iter().position(|m| *m == "EXIT").unwrap() } else { next() as usize }).collect();
        if let Some(w) = words.last_mut() {
            *w = (*w & !(0xf << 12)) | (0x7 << 12);
            *w &= !(0xfu128 << 87);
            *w |= 0x7u128 << 87;
        }
        if let Some(spv) = run(&words, &names, 256, 1024) {
            support::spirv_val(&spv).unwrap_or_else(|e| panic!("invalid module for {words:x?} / {names:?}:\n{e}"));
            validated += 1;
        }
    }
    println!("validated {validated} random modules");
    assert!(validated > 100, "too few random programs translated ({validated}) to mean anything");
}

//! Register accesses: every golden listing of the table (the registers `nvdisasm -plr` marked on a golden
//! word's row) is what the generated rules give, and the generated rules agree with the table
//! interpreter on arbitrary words.

mod common;

use common::generated_accesses as generated;
use proptest::prelude::*;
use sassport_gen::{decode, Word};
use sassport_isa::eval;
use std::sync::LazyLock;

static TABLE: LazyLock<sassport_isa::Table> = LazyLock::new(|| sassport_isa::sm86().expect("isa/sm86.txt parses"));

#[test]
fn every_golden_listing_is_what_the_rules_give() {
    let mut listings = 0;
    let mut failures = Vec::new();
    for class in &TABLE.classes {
        for u in &class.uses {
            listings += 1;
            let Some(accesses) = generated(u.word) else {
                failures.push(format!("{} {:#034x}: no accesses, nvdisasm lists `{}`", class.name, u.word, sassport_isa::register_listing(&u.registers)));
                continue;
            };
            let listed = eval::listed_uses(&accesses);
            if listed != u.registers {
                failures.push(format!(
                    "{} {:#034x}: rules `{}`, nvdisasm `{}`",
                    class.name,
                    u.word,
                    sassport_isa::register_listing(&listed),
                    sassport_isa::register_listing(&u.registers)
                ));
            }
        }
    }
    assert!(listings > 5000, "only {listings} golden listings: the table lost its `uses` lines");
    // The probe records every listing, including the few its rules get wrong (texture operands whose
    // widths depend on many modifiers at once); they are counted in the table's header and must stay few.
    let allowed = listings / 50;
    assert!(failures.len() <= allowed, "{} of {listings} golden listings differ (at most {allowed}):\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn classes_without_known_accesses_report_none() {
    let mut unknown = 0;
    for class in &TABLE.classes {
        let Some(g) = class.golden.first() else { continue };
        let Ok(inst) = decode(Word(g.word)) else { continue };
        assert_eq!(inst.accesses().is_none(), class.accesses.known().is_none(), "{}", class.name);
        unknown += usize::from(class.accesses.known().is_none());
    }
    assert!(unknown < 60, "{unknown} classes without accesses");
}

#[test]
fn pairs_are_one_access_and_the_zero_register_none() {
    // `IMAD.WIDE R2, R6, R7, c[0x0][0x168]` from nvcc's saxpy: the pair R2:R3 is written.
    let inst = decode(Word::from_halves(0x00005a0006027625, 0x000fc800078e0207)).expect("decodes");
    let got: Vec<String> = inst.accesses().expect("known").map(|a| a.to_string()).collect();
    assert_eq!(got, ["R2:2^", "R6v", "R7v"]);
    // `IMAD.MOV.U32 R1, RZ, RZ, c[0x0][0x28]`: RZ is no register.
    let inst = decode(Word::from_halves(0x00000a00ff017624, 0x000fe400078e00ff)).expect("decodes");
    let got: Vec<String> = inst.accesses().expect("known").map(|a| a.to_string()).collect();
    assert_eq!(got, ["R1^"]);
}

/// Words near the golden ones (random bits flipped outside the opcode).
fn near_golden() -> impl Strategy<Value = u128> {
    let goldens: Vec<u128> = TABLE.classes.iter().flat_map(|c| c.golden.iter().map(|g| g.word)).collect();
    (0..goldens.len(), any::<u128>(), 0u32..4).prop_map(move |(i, noise, density)| {
        let mut flip = noise;
        for k in 0..density {
            flip &= noise.rotate_left(13 * (k + 1));
        }
        goldens[i] ^ (flip & !0xfff)
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(20_000))]

    /// The generated rules and the table interpreter give the same accesses, in the same order.
    #[test]
    fn generated_accesses_agree_with_the_interpreter(w in near_golden()) {
        let Some(class) = eval::classify(&TABLE, w) else { return Ok(()) };
        if decode(Word(w)).is_err() {
            return Ok(());
        }
        prop_assert_eq!(generated(w), eval::accesses(class, w), "class {}", class.name);
    }

    /// Registers an instruction accesses lie below the zero register, and no access is empty.
    #[test]
    fn accesses_stay_in_their_file(w in near_golden()) {
        let Ok(inst) = decode(Word(w)) else { return Ok(()) };
        let Some(list) = inst.accesses() else { return Ok(()) };
        for a in list {
            prop_assert!(a.count >= 1);
            prop_assert!(u16::from(a.first) + u16::from(a.count) <= sassport_gen::zero_register(a.file));
        }
    }
}

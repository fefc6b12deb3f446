//! Every golden pair of the table (a word nvdisasm printed, at the address it printed it) decodes to its
//! class and prints exactly nvdisasm's text.

use sassport_gen::{decode, ClassId, TargetStyle, Word};

#[test]
fn every_golden_pair_round_trips() {
    let table = sassport_isa::sm86().expect("isa/sm86.txt parses");
    assert_eq!(table.classes.len(), sassport_gen::CLASS_COUNT, "the generated decoder is stale: run `cargo xtask regen`");
    let mut pairs = 0;
    let mut failures = Vec::new();
    for class in &table.classes {
        let expected_class = ClassId::from_name(&class.name).expect("every table class has an id");
        for g in &class.golden {
            pairs += 1;
            match decode(Word(g.word)) {
                Err(e) => failures.push(format!("{} {:#034x}: {e}; nvdisasm: {}", class.name, g.word, g.text)),
                Ok(inst) => {
                    let text = inst.text(g.address, TargetStyle::Absolute);
                    if inst.class() != expected_class || text != g.text {
                        failures.push(format!(
                            "{} {:#034x} at {:#x}: decoded as {} `{text}`, nvdisasm `{}`",
                            class.name,
                            g.word,
                            g.address,
                            inst.class().name(),
                            g.text
                        ));
                    }
                }
            }
        }
    }
    assert!(pairs > 0, "the table has no golden pairs");
    assert!(
        failures.is_empty(),
        "{} of {pairs} golden pairs fail:\n{}",
        failures.len(),
        failures.iter().take(50).cloned().collect::<Vec<_>>().join("\n")
    );
}

/// Classes the probe found no golden pair for yet (a ratchet: a class missing a pair that is not listed fails,
/// and so does a listed class that now has one).
const WITHOUT_GOLDEN: &str = include_str!("known-gaps/classes-without-golden.txt");

#[test]
fn every_class_has_a_golden_pair() {
    let table = sassport_isa::sm86().expect("isa/sm86.txt parses");
    let missing: Vec<&str> = table.classes.iter().filter(|c| c.golden.is_empty()).map(|c| c.name.as_str()).collect();
    let known: Vec<&str> =
        WITHOUT_GOLDEN.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')).collect();
    let unlisted: Vec<&&str> = missing.iter().filter(|c| !known.contains(c)).collect();
    let now_covered: Vec<&&str> = known.iter().filter(|c| !missing.contains(c)).collect();
    assert!(unlisted.is_empty(), "classes without golden pairs: {unlisted:?}");
    assert!(now_covered.is_empty(), "these classes have golden pairs now; remove them from the list: {now_covered:?}");
}

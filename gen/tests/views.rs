//! The typed views agree with nvdisasm's text for every instruction of every corpus cubin.
//!
//! For each instruction of the committed listings (`corpus/sm86/*.sass`, nvdisasm 13.5.37 output), the
//! operands after the mnemonic are split at `, ` and each is compared with the view's operand of the same
//! position (`SLOTS` gives the class's operand names in syntax order): registers, uniform registers and
//! predicates by name, with the negate, absolute-value and not flags; hex immediates by value; constant
//! operands by bank and offset (and index register); memory operands by base register and offset. Float
//! immediates and branch targets are not judged; a line whose operand count differs from the view's fails
//! unless its class is a known gap of `tests/view_slots.rs` (`tests/known-gaps/view-slots.txt`). The
//! parsing here is the test's own, from nvdisasm's syntax.

mod common;

use common::operands::{agrees, omitted, operand_texts};
use common::{listing, text_sections};
use sassport_gen::{decode, Operand, Src, Word, SLOTS, WORD_BYTES};

#[test]
fn views_agree_with_the_disassembly_of_every_corpus_instruction() {
    let cubins = sassport_corpus::cubins();
    assert!(!cubins.is_empty());
    let (mut instructions, mut compared, mut unjudged, mut count_differs) = (0usize, 0usize, 0usize, 0usize);
    let gaps = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/known-gaps/view-slots.txt"))
        .expect("known-gaps/view-slots.txt readable");
    let gaps: Vec<&str> = gaps.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')).collect();
    let mut mismatches = Vec::new();
    for cubin in &cubins {
        let sections = text_sections(&std::fs::read(cubin).expect("cubin readable"));
        let sass = std::fs::read_to_string(sassport_corpus::companion(cubin, ".sass")).expect("listing");
        for section in listing::parse(&sass).expect("listing parses") {
            let bytes = &sections[&section.name];
            for listed in &section.instructions {
                let at = listed.offset as usize;
                let word = Word::from_le_bytes(bytes[at..at + WORD_BYTES].try_into().expect("16 bytes"));
                let inst = decode(word).expect("corpus words decode");
                instructions += 1;
                // Relocated operands and notes print symbols: not operand syntax.
                if listed.text.contains("(*") || listed.text.contains("@lo(") || listed.text.contains("@hi(") || listed.text.contains("@srel") {
                    continue;
                }
                let view = inst.view();
                // Optional operands (`?`) at their default print nothing.
                let names: Vec<&str> = SLOTS[inst.class().index()]
                    .iter()
                    .copied()
                    .filter(|n| !n.starts_with('?') || view.operand(n).is_some_and(|o| !omitted(&o)))
                    .collect();
                let texts = operand_texts(&listed.text);
                if texts.len() != names.len() {
                    // Only classes the generator does not model yet (tests/view_slots.rs) may differ in count.
                    if !gaps.iter().any(|g| *g == inst.class().name()) {
                        mismatches.push(format!(
                            "{} {:04x} `{}`: view operands {names:?}, nvdisasm prints {}",
                            section.name,
                            listed.offset,
                            listed.text,
                            texts.len()
                        ));
                    }
                    count_differs += 1;
                    continue;
                }
                for (name, text) in names.iter().zip(&texts) {
                    let Some(o) = view.operand(name) else {
                        mismatches.push(format!("{} {:04x} `{}`: view has no operand {name}", section.name, listed.offset, listed.text));
                        continue;
                    };
                    match agrees(&o, text) {
                        Some(true) => compared += 1,
                        Some(false) => mismatches.push(format!(
                            "{} {} {:04x} `{}`: operand {name} = {o:?} is not `{text}`",
                            cubin.display(),
                            section.name,
                            listed.offset,
                            listed.text
                        )),
                        None => unjudged += 1,
                    }
                }
            }
        }
    }
    eprintln!(
        "{instructions} instructions: {compared} operands agree, {} disagree, {unjudged} not judged (targets, floats, others), {count_differs} lines of known-gap classes with another operand count",
        mismatches.len()
    );
    assert!(compared > 10_000);
    assert!(mismatches.is_empty(), "{} operands disagree:\n{}", mismatches.len(), mismatches.iter().take(25).cloned().collect::<Vec<_>>().join("\n"));
}

/// The view encoder writes every corpus word's view back into the same word, and an edited operand
/// lands in its field (the formatter, checked against nvdisasm by `tests/corpus.rs`, prints the edit).
#[test]
fn views_encode_back_to_their_words() {
    let mut words = 0usize;
    for cubin in sassport_corpus::cubins() {
        for bytes in text_sections(&std::fs::read(&cubin).expect("cubin readable")).values() {
            for chunk in bytes.chunks_exact(WORD_BYTES) {
                let word = Word::from_le_bytes(chunk.try_into().expect("16 bytes"));
                let inst = decode(word).expect("corpus words decode");
                assert_eq!(sassport_gen::encode(&inst.view()), Ok(word), "{}", inst.text(0, sassport_gen::TargetStyle::Absolute));
                words += 1;
            }
        }
    }
    assert!(words > 10_000);
    // `IMAD.MOV.U32 R1, RZ, RZ, c[0x0][0x28]` as nvcc writes it; R7 and c[0x0][0x160] instead.
    let inst = decode(Word(0x000fe400078e00ff00000a00ff017624)).unwrap();
    let sassport_gen::View::Imad(mut imad) = inst.view() else { panic!("not an IMAD view") };
    imad.dst = imad.dst.map(|o| Operand { src: Src::Reg(sassport_gen::Reg(7)), ..o });
    imad.c = imad.c.map(|o| Operand { src: Src::Cbuf { bank: 0, ubank: None, offset: 0x160, index: None }, ..o });
    let edited = decode(sassport_gen::encode(&sassport_gen::View::Imad(imad)).unwrap()).unwrap();
    assert_eq!(edited.text(0, sassport_gen::TargetStyle::Absolute), "IMAD.MOV.U32 R7, RZ, RZ, c[0x0][0x160] ;");
    // A register where the class holds a constant is refused by name.
    imad.c = imad.c.map(|o| Operand { src: Src::Reg(sassport_gen::Reg(3)), ..o });
    let err = sassport_gen::encode(&sassport_gen::View::Imad(imad)).unwrap_err();
    assert_eq!(err.operand, "c");
}

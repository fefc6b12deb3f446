//! Every golden pair of the table (a word and the text nvdisasm 13.5.37 printed for it at an address)
//! encodes back: nvdisasm's text and the word's control bits give a word that prints that text again, and
//! the word's control line (residue included) assembles back to the word bit for bit.

use sassport_gen::{assemble, decode, encode_text, write_control_line, Control, TargetStyle, Word};

#[test]
fn every_golden_pair_re_encodes() {
    let table = sassport_isa::sm86().expect("isa/sm86.txt parses");
    let (mut pairs, mut silent, mut exact) = (0usize, 0usize, 0usize);
    let mut failures = Vec::new();
    for class in &table.classes {
        for g in &class.golden {
            pairs += 1;
            if g.text.is_empty() {
                // Classes that print nothing have no text to encode (`dis --control` prints `.word`).
                silent += 1;
                continue;
            }
            match encode_text(&g.text, g.address, Control::of(g.word)) {
                Ok(w) => {
                    let again = decode(w).map(|i| i.text(g.address, TargetStyle::Absolute));
                    if again.as_deref() != Ok(g.text.as_str()) {
                        failures.push(format!("{}: {:#034x} → {w} prints {again:?}, not {:?}", class.name, g.word, g.text));
                    }
                    exact += usize::from(w.0 == g.word);
                }
                Err(e) => failures.push(format!("{}: {e}", class.name)),
            }
            let mut line = String::new();
            write_control_line(&mut line, Word(g.word), g.address);
            assert_eq!(assemble(&line).ok(), Some(vec![Word(g.word)]), "{}: {line}", class.name);
        }
    }
    eprintln!("{pairs} golden pairs: {silent} print nothing, {exact} re-encode to the same bits, {} fail", failures.len());
    assert!(failures.is_empty(), "{} golden pairs do not re-encode:\n{}", failures.len(), failures[..failures.len().min(20)].join("\n"));
}

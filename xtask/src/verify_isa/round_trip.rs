//! `cargo xtask verify-isa --round-trip`: the encoder against nvdisasm on random legal words.
//!
//! The words are verify-isa's (`random_word`: per class, fixed bits kept, the rest random, legal-value
//! lists favoured), and nvdisasm decides which are legal and what each prints. For every legal word:
//! 1. nvdisasm's text and the word's control bits go through the encoder (`sassport_gen::encode_text`);
//! 2. the encoded words are disassembled by nvdisasm again, at the same addresses: each must print
//!    exactly the original text (the oracle, not our decoder, judges the encoder);
//! 3. the word's `dis --control` line (`write_control_line`, residue included) assembles back to the word
//!    bit for bit.
//!
//! Reported: words, encoder refusals, nvdisasm agreement on the encoded words, words that needed a
//! residue (bits the text does not show: random words set them at random), and exact round trips.

use anyhow::{bail, Result};
use sassport_gen::{assemble, encode_text, write_control_line, Control};
use std::time::Instant;

use super::compare::{legal_value_lists, random_word, Rng};
use super::{nvdisasm, Args};
use crate::regen;
use crate::tools::{self, repo_root};

#[derive(Default)]
struct Figures {
    words: u64,
    /// Words of the classes that print nothing: no text to encode (`dis --control` prints them `.word`).
    silent: u64,
    refused: u64,
    agreed: u64,
    residue: u64,
    exact: u64,
    refusal_example: Option<String>,
    disagreement_example: Option<String>,
}

pub fn run(args: &Args) -> Result<()> {
    let root = repo_root();
    let table = regen::load_table(&root.join(regen::TABLE))?;
    let exe = tools::nvidia_tool("nvdisasm")?;
    let d = nvdisasm::Nvdisasm::new(exe, nvdisasm::scratch_dir(&root))?;
    let legal: Vec<_> = table.classes.iter().map(legal_value_lists).collect();
    let mut rng = Rng(args.seed);
    let started = Instant::now();
    let mut f = Figures::default();
    let (mut next_class, mut batch_no) = (0usize, 0u64);
    while f.words < args.words {
        let words: Vec<u128> = (0..args.batch)
            .map(|_| {
                let c = next_class % table.classes.len();
                next_class += 1;
                random_word(&table.classes[c], &legal[c], &mut rng)
            })
            .collect();
        let base = (batch_no % 4096) * 0x10_0000;
        let first = d.disassemble(&words, base, &format!("rt{batch_no}"))?;
        let mut encoded = vec![nvdisasm::NOP; words.len()];
        let mut asked = vec![None; words.len()];
        for (i, (text, &word)) in first.texts.iter().zip(&words).enumerate() {
            let Some(text) = text else { continue };
            f.words += 1;
            let address = base + 16 * i as u64;
            if text.is_empty() {
                f.silent += 1;
            } else {
                match encode_text(text, address, Control::of(word)) {
                    Ok(w) => {
                        encoded[i] = w.0;
                        asked[i] = Some(text.clone());
                        f.residue += u64::from(w.0 != word);
                    }
                    Err(e) => {
                        f.refused += 1;
                        f.refusal_example
                            .get_or_insert_with(|| format!("{word:#034x} at {address:#x}: {e}"));
                    }
                }
            }
            let mut line = String::new();
            write_control_line(&mut line, sassport_gen::Word(word), address);
            if assemble(&line).is_ok_and(|back| back == [sassport_gen::Word(word)]) {
                f.exact += 1;
            }
        }
        let second = d.disassemble(&encoded, base, &format!("rt{batch_no}e"))?;
        for (i, want) in asked.iter().enumerate() {
            let Some(want) = want else { continue };
            match second.texts.get(i).cloned().flatten() {
                Some(got) if &got == want => f.agreed += 1,
                got => {
                    f.disagreement_example.get_or_insert_with(|| {
                        format!(
                            "{:#034x} (from {:#034x}) at {:#x}: nvdisasm {got:?}, wanted {want:?}",
                            encoded[i],
                            words[i],
                            base + 16 * i as u64
                        )
                    });
                }
            }
        }
        batch_no += 1;
        println!(
            "round trip: {} legal words ({} print nothing); {} refused by the encoder; {} of {} encoded words printed alike by nvdisasm; {} needed a residue; {} dis --control lines assembled back exactly; {:.0} s",
            f.words, f.silent, f.refused, f.agreed, f.words - f.silent - f.refused, f.residue, f.exact, started.elapsed().as_secs_f64()
        );
    }
    if let Some(e) = &f.refusal_example {
        println!("  first refusal: {e}");
    }
    if let Some(e) = &f.disagreement_example {
        println!("  first disagreement: {e}");
    }
    if f.exact != f.words {
        bail!(
            "{} of {} words did not round-trip exactly",
            f.words - f.exact,
            f.words
        );
    }
    let percent = 100.0 * f.agreed as f64 / (f.words - f.silent - f.refused).max(1) as f64;
    if percent < args.min_agreement {
        bail!(
            "nvdisasm printed {percent:.3}% of the encoded words alike, below {}%",
            args.min_agreement
        );
    }
    Ok(())
}

//! Decoder and formatter throughput in CPU time (the thread's own run time from
//! `/proc/thread-self/schedstat`), for comparing builds on a machine other jobs share: wall-clock
//! benchmarks (`cargo bench --bench decode`) count the time other processes hold the core.
//!
//! `cargo run --release -p sassport-gen --example throughput [passes]`

use object::{Object, ObjectSection};
use sassport_gen::{decode, TargetStyle, Word, WORD_BYTES};
use std::fmt::Write as _;
use std::hint::black_box;

fn cpu_ns() -> u64 {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").unwrap_or_default();
    s.split_whitespace().next().and_then(|v| v.parse().ok()).unwrap_or(0)
}

fn corpus_words() -> Vec<Word> {
    let mut words = Vec::new();
    for path in sassport_corpus::cubins() {
        let data = std::fs::read(&path).expect("corpus cubin readable");
        let file = object::File::parse(&*data).expect("corpus cubin parses");
        for section in file.sections() {
            if !section.name().is_ok_and(|n| n.starts_with(".text.")) {
                continue;
            }
            for chunk in section.data().expect("section data").chunks_exact(WORD_BYTES) {
                words.push(Word::from_le_bytes(chunk.try_into().expect("16 bytes")));
            }
        }
    }
    words
}

fn golden_words() -> Vec<Word> {
    let table = sassport_isa::sm86().expect("isa/sm86.txt parses");
    table.classes.iter().flat_map(|c| c.golden.iter().map(|g| Word(g.word))).collect()
}

/// Shortest round that counts: the thread's CPU time as `schedstat` shows it only advances at scheduler
/// ticks (a few milliseconds) while the loop makes no system calls, so a short round is mostly rounding
/// (at 20 passes a golden decode round lasted two to four 4 ms ticks, and came out at 146, 98 or 73 M/s).
const MIN_ROUND_NS: u64 = 400_000_000;

/// CPU nanoseconds for `passes` passes of `f` over `words`.
fn round(words: &[Word], passes: usize, f: &mut dyn FnMut(&[Word]) -> usize) -> u64 {
    let t = cpu_ns();
    let mut sink = 0;
    for _ in 0..passes {
        sink += f(words);
    }
    black_box(sink);
    cpu_ns() - t
}

/// Best of `rounds` (the least disturbed), in million words per CPU second. Each round makes at least
/// `passes` passes, more if that takes less than [`MIN_ROUND_NS`].
fn measure(words: &[Word], passes: usize, rounds: usize, f: &mut dyn FnMut(&[Word]) -> usize) -> f64 {
    let mut passes = passes.max(1);
    while round(words, passes, f) < MIN_ROUND_NS {
        passes *= 2;
    }
    let best = (0..rounds).map(|_| round(words, passes, f)).min().unwrap_or(u64::MAX).max(1);
    (words.len() * passes) as f64 / best as f64 * 1e3
}

fn main() {
    let passes: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(20);
    for (name, words) in [("corpus", corpus_words()), ("golden", golden_words())] {
        let decode_rate = measure(&words, passes * 10, 7, &mut |words| {
            let mut known = 0usize;
            for &w in words {
                if let Ok(inst) = decode(black_box(w)) {
                    known = known.wrapping_add(inst.class() as usize);
                }
            }
            known
        });
        let mut text = String::with_capacity(256);
        let format_rate = measure(&words, passes, 7, &mut |words| {
            let mut bytes = 0usize;
            for (i, &w) in words.iter().enumerate() {
                text.clear();
                if let Ok(inst) = decode(black_box(w)) {
                    let _ = inst.write_text(&mut text, (i * WORD_BYTES) as u64, TargetStyle::Absolute);
                } else {
                    let _ = write!(text, "<unknown {w}>");
                }
                bytes += text.len();
            }
            bytes
        });
        let access_rate = measure(&words, passes * 4, 7, &mut |words| {
            let mut registers = 0usize;
            for &w in words {
                if let Some(list) = decode(black_box(w)).ok().and_then(|inst| inst.accesses()) {
                    registers += list.map(|a| usize::from(a.count)).sum::<usize>();
                }
            }
            registers
        });
        println!(
            "{name:7} {:6} words: decode {decode_rate:7.1} M/s, decode+accesses {access_rate:6.1} M/s, decode+format {format_rate:6.2} M/s (CPU time)",
            words.len()
        );
    }
}

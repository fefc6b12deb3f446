//! Structurizer speed on a synthetic kernel of 100 000 SASS instructions (12 500 blocks of 8): sequences
//! of diamonds, switches, conditional exits and loops nested six deep with breaks out of several levels,
//! plus irreducible two-entry loops (split) — the shapes nvcc emits, at a size no corpus kernel reaches.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use sassport_translator::structure::{structure, Cfg, Limits, Term};

const INSTRUCTIONS_PER_BLOCK: u32 = 8;

struct Gen {
    terms: Vec<Term>,
    rng: u64,
    /// Loop exits open at each depth (for breaks out of several levels).
    exits: Vec<u32>,
}

impl Gen {
    fn rand(&mut self, n: u64) -> u64 {
        self.rng ^= self.rng << 13;
        self.rng ^= self.rng >> 7;
        self.rng ^= self.rng << 17;
        self.rng % n
    }
    fn node(&mut self, t: Term) -> u32 {
        self.terms.push(t);
        self.terms.len() as u32 - 1
    }
    /// A sequence of `len` constructs continuing at `next`, built backwards; returns its first node.
    fn seq(&mut self, depth: u32, len: u32, mut next: u32) -> u32 {
        for _ in 0..len {
            let kind = if depth >= 6 { self.rand(2) } else { self.rand(8) };
            next = match kind {
                0 => self.node(Term::Goto(next)),
                1 => self.node(Term::CondExit(next)),
                2 | 3 => {
                    let la = 1 + self.rand(3) as u32;
                    let a = self.seq(depth + 1, la, next);
                    let lb = 1 + self.rand(2) as u32;
                    let b = self.seq(depth + 1, lb, next);
                    self.node(Term::Cond(a, b))
                }
                4 => {
                    let arms: Vec<u32> = (0..4).map(|_| self.seq(depth + 1, 1, next)).collect();
                    self.node(Term::Switch(arms))
                }
                5 => {
                    // two-entry loop: x <-> y, entered at both, leaving to next
                    let x = self.node(Term::Exit);
                    let y = self.node(Term::Cond(x, next));
                    self.terms[x as usize] = Term::Cond(y, next);
                    self.node(Term::Cond(x, y))
                }
                _ => {
                    let header = self.node(Term::Exit);
                    let pick = self.rand(self.exits.len() as u64 + 1) as usize;
                    let far = self.exits.get(pick).copied().unwrap_or(next);
                    let latch = self.node(Term::Cond(header, next));
                    let brk = self.node(Term::Cond(far, latch));
                    self.exits.push(next);
                    let len = 2 + self.rand(4) as u32;
                    let body = self.seq(depth + 1, len, brk);
                    self.exits.pop();
                    self.terms[header as usize] = Term::Goto(body);
                    header
                }
            };
        }
        next
    }
}

fn synthetic(instructions: u32) -> Cfg {
    let blocks = instructions / INSTRUCTIONS_PER_BLOCK;
    let mut g = Gen { terms: Vec::new(), rng: 0x2545_f491_4f6c_dd1d, exits: Vec::new() };
    let mut next = g.node(Term::Exit);
    while (g.terms.len() as u32) < blocks {
        next = g.seq(0, 4, next);
    }
    let n = g.terms.len();
    Cfg { entry: next, terms: g.terms, weights: vec![INSTRUCTIONS_PER_BLOCK * 6; n] }
}

fn bench(c: &mut Criterion) {
    let g = synthetic(100_000);
    let limits = Limits { split_words: 1 << 20, ..Limits::default() };
    let s = structure(&g, &limits).expect("the synthetic kernel structures");
    eprintln!("synthetic kernel: {} blocks; {}", g.len(), s.report);
    let mut group = c.benchmark_group("structure");
    group.throughput(Throughput::Elements(u64::from(g.len() as u32 * INSTRUCTIONS_PER_BLOCK)));
    group.sample_size(10);
    group.bench_function("synthetic_100k_instructions", |b| b.iter(|| structure(&g, &limits).unwrap().labels));
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);

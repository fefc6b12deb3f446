//! Reading one listing row as outcomes of a class's register locations.

use sassport_isa::{Direction, Location, RegFile, RegisterUse};
use std::collections::BTreeSet;

/// The four register files the listing has columns for, in its order.
pub const FILES: [RegFile; 4] = [RegFile::Gpr, RegFile::Pred, RegFile::Uniform, RegFile::UniformPred];

pub fn file_slot(f: RegFile) -> Option<usize> {
    FILES.iter().position(|&x| x == f)
}

/// Whether the listing can show register `reg` of `file`: not the zero register, and not `UR0`..`UR3`,
/// which nvdisasm 13.5's life-range columns never mark (`UMOV UR0, 0x1` lists nothing).
pub fn listed(file: RegFile, reg: u64) -> bool {
    reg < file.zero_register() && !(file == RegFile::Uniform && reg < 4)
}

/// The registers one listing row reads and writes, per file (reads and writes apart: a register
/// marked `x` is in both).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Observed {
    pub read: [BTreeSet<u64>; 4],
    pub write: [BTreeSet<u64>; 4],
}

impl Observed {
    pub fn of(uses: &[RegisterUse]) -> Observed {
        let mut o = Observed::default();
        for u in uses {
            o.add(u.file, u64::from(u.index), u.direction);
        }
        o
    }

    pub fn add(&mut self, file: RegFile, reg: u64, d: Direction) {
        let Some(s) = file_slot(file) else { return };
        if matches!(d, Direction::Read | Direction::ReadWrite) {
            self.read[s].insert(reg);
        }
        if matches!(d, Direction::Write | Direction::ReadWrite) {
            self.write[s].insert(reg);
        }
    }

    /// `self` without the marks of `other`.
    pub fn minus(&self, other: &Observed) -> Observed {
        let mut o = self.clone();
        for s in 0..4 {
            o.read[s].retain(|r| !other.read[s].contains(r));
            o.write[s].retain(|r| !other.write[s].contains(r));
        }
        o
    }

    /// The direction of register `reg` of `file`.
    pub fn direction(&self, file: RegFile, reg: u64) -> Direction {
        let Some(s) = file_slot(file) else { return Direction::None };
        match (self.read[s].contains(&reg), self.write[s].contains(&reg)) {
            (false, false) => Direction::None,
            (true, false) => Direction::Read,
            (false, true) => Direction::Write,
            (true, true) => Direction::ReadWrite,
        }
    }

    /// Every marked register: (file, register, direction), in column order.
    pub fn registers(&self) -> Vec<(RegFile, u64, Direction)> {
        let mut out = Vec::new();
        for f in FILES {
            let Some(s) = file_slot(f) else { continue };
            let all: BTreeSet<u64> = self.read[s].union(&self.write[s]).copied().collect();
            out.extend(all.into_iter().map(|r| (f, r, self.direction(f, r))));
        }
        out
    }

    pub fn is_empty(&self) -> bool {
        self.read.iter().chain(&self.write).all(BTreeSet::is_empty)
    }
}

/// How one location is accessed in one word.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Outcome {
    pub direction: Direction,
    pub width: u8,
}

pub const NONE: Outcome = Outcome { direction: Direction::None, width: 0 };

/// A register location of a class.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Site {
    pub file: RegFile,
    pub location: Location,
}

impl Site {
    /// The guard predicate (bits 14:12) is only ever read: a write the row shows on its register is a
    /// call's clobber, not the guard's.
    fn read_only(&self) -> bool {
        matches!(&self.location, Location::Bits { ranges, .. } if ranges.len() == 1 && ranges[0].lo == 12 && ranges[0].hi == 14)
    }
}

/// A class's locations: those in word bits, then fixed registers, with the marks the fixed ones
/// made on the base word (taken off before the operands are read, so that an operand on a register
/// a call also clobbers is seen alone).
#[derive(Clone, Debug, Default)]
pub struct Sites {
    pub bits: Vec<Site>,
    pub fixed: Vec<Site>,
    pub fixed_marks: Observed,
}

impl Sites {
    pub fn all(&self) -> impl Iterator<Item = &Site> {
        self.bits.iter().chain(&self.fixed)
    }

    /// Outcomes of every site (bits sites, then fixed) in word `w` with row `obs`; `None` for a bits
    /// site on the zero register or on the register of another site (the word says nothing of it).
    /// `odd` collects sites whose reads and writes differ in width.
    pub fn outcomes(&self, w: u128, obs: &Observed, odd: &mut Vec<String>) -> Vec<Option<Outcome>> {
        let operands = obs.minus(&self.fixed_marks);
        let mut out = read_sites(&self.bits, w, &operands, true, odd);
        let mut rest = obs.clone();
        for (s, o) in self.bits.iter().zip(&out) {
            if let Some(o) = o {
                rest = rest.minus(&marks(s, w, *o));
            }
        }
        out.extend(read_sites(&self.fixed, w, &rest, false, odd));
        out
    }

    /// Marks of `obs` outside the base's fixed marks that no bits site explains, and the marks outside
    /// the fixed ones (operands only: what a search for a further operand looks at).
    pub fn unexplained_operands(&self, w: u128, obs: &Observed) -> (Observed, Observed) {
        let operands = obs.minus(&self.fixed_marks);
        let mut scratch = Vec::new();
        let mut rest = operands.clone();
        for (s, o) in self.bits.iter().zip(read_sites(&self.bits, w, &operands, true, &mut scratch)) {
            if let Some(o) = o {
                rest = rest.minus(&marks(s, w, o));
            }
        }
        (rest, operands)
    }

    /// Marks of `obs` that no site explains.
    pub fn unexplained(&self, w: u128, obs: &Observed) -> Observed {
        let mut scratch = Vec::new();
        let mut rest = obs.clone();
        for (s, o) in self.all().zip(self.outcomes(w, obs, &mut scratch)) {
            if let Some(o) = o {
                rest = rest.minus(&marks(s, w, o));
            }
        }
        rest
    }
}

/// The marks site `s` makes in word `w` with outcome `o`.
pub fn marks(s: &Site, w: u128, o: Outcome) -> Observed {
    let mut m = Observed::default();
    let reg = s.location.register(w);
    for r in reg..(reg + u64::from(o.width)).min(s.file.zero_register()) {
        m.add(s.file, r, o.direction);
    }
    m
}

/// Outcomes of `sites` in `obs`: consecutive registers from each site's register, in the read and the
/// write set, stopping before the next site of the file (predicate operands are single registers).
fn read_sites(sites: &[Site], w: u128, obs: &Observed, operands: bool, odd: &mut Vec<String>) -> Vec<Option<Outcome>> {
    let regs: Vec<u64> = sites.iter().map(|s| s.location.register(w)).collect();
    sites
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let (reg, zero) = (regs[i], s.file.zero_register());
            if !listed(s.file, reg) {
                return None;
            }
            if sites.iter().enumerate().any(|(j, t)| j != i && t.file == s.file && regs[j] == reg) {
                return None;
            }
            let single = operands && matches!(s.file, RegFile::Pred | RegFile::UniformPred);
            let next = sites
                .iter()
                .enumerate()
                .filter(|&(j, t)| j != i && t.file == s.file && regs[j] > reg)
                .map(|(j, _)| regs[j])
                .min()
                .unwrap_or(zero);
            let limit = if single { reg + 1 } else { next.min(zero) };
            if s.read_only() {
                let mut reads = obs.clone();
                reads.write = Default::default();
                return Some(outcome_at(&reads, s.file, reg, limit, odd));
            }
            Some(outcome_at(obs, s.file, reg, limit, odd))
        })
        .collect()
}

fn outcome_at(obs: &Observed, file: RegFile, reg: u64, limit: u64, odd: &mut Vec<String>) -> Outcome {
    let Some(s) = file_slot(file) else { return NONE };
    let run = |set: &BTreeSet<u64>| (reg..limit).take_while(|r| set.contains(r)).count() as u8;
    match (run(&obs.read[s]), run(&obs.write[s])) {
        (0, 0) => NONE,
        (r, 0) => Outcome { direction: Direction::Read, width: r },
        (0, w) => Outcome { direction: Direction::Write, width: w },
        (r, w) => {
            if r != w {
                odd.push(format!("{}{reg} read as {r} but written as {w} registers", file.prefix()));
            }
            Outcome { direction: Direction::ReadWrite, width: r.max(w) }
        }
    }
}

//! From observed outcomes to access rules.
//!
//! Per site, every observed word is reduced to its deciding bits (the bits of the fields that change
//! some site's outcome). The most common outcome becomes the site's default rule (none is written when
//! the default is "not accessed"); each other outcome gets `when` patterns, each grown from one of its
//! words by dropping deciding bits, highest first, for as long as the pattern covers no observed word
//! with a different outcome. Combinations never observed (illegal ones, or ones the sampling missed)
//! fall where the growing puts them.

use super::observe::{Outcome, Site, NONE};
use sassport_isa::{Access, Pattern};
use std::collections::BTreeMap;

/// Rules for every site, in site order. `care[i]` holds the bits seen to decide site `i` (0 past its
/// end), extended from `all` and pared down by [`deciding_care`].
pub fn fit(sites: &[&Site], care: &[u128], all: u128, seen: &[(u128, Vec<Option<Outcome>>)], notes: &mut Vec<String>) -> Vec<Access> {
    let mut rules = Vec::new();
    for (i, site) in sites.iter().enumerate() {
        let observed: Vec<(u128, Outcome)> = seen.iter().filter_map(|(w, out)| out.get(i).copied().flatten().map(|o| (*w, o))).collect();
        let (care, conflicts) = deciding_care(&observed, care.get(i).copied().unwrap_or(0), all);
        let mut tally: BTreeMap<u128, BTreeMap<Outcome, usize>> = BTreeMap::new();
        for (w, o) in &observed {
            *tally.entry(w & care).or_default().entry(*o).or_default() += 1;
        }
        if conflicts > 0 {
            notes.push(format!("{} {:?}: {conflicts} words disagree with the others of their deciding bits", site.file.prefix(), site.location));
        }
        let by_combo: BTreeMap<u128, Outcome> = tally
            .into_iter()
            .filter_map(|(c, t)| t.into_iter().max_by_key(|(o, n)| (*n, *o)).map(|(o, _)| (c, o)))
            .collect();
        if by_combo.is_empty() {
            continue;
        }
        let mut counts: BTreeMap<Outcome, usize> = BTreeMap::new();
        for o in by_combo.values() {
            *counts.entry(*o).or_default() += 1;
        }
        let default = counts.iter().max_by_key(|(o, n)| (**n, **o != NONE)).map_or(NONE, |(o, _)| *o);
        for (&outcome, _) in counts.iter().filter(|(o, _)| **o != default) {
            for when in cover(&by_combo, outcome, care) {
                rules.push(rule(site, outcome, when));
            }
        }
        if default != NONE {
            rules.push(rule(site, default, Pattern::ANY));
        }
    }
    rules
}

/// The bits that decide a site: from `care` (the bits seen to change its outcome), while words with equal
/// bits still disagree, the bit of `all` that reduces the disagreement most is added (or the pair of
/// bits where no one bit helps, as for an outcome that depends on two bits at once); then every bit whose
/// removal keeps the words apart is dropped. Fewer bits generalise better: the patterns grown over
/// them cover the combinations nobody listed, and with few bits every combination was listed.
/// Returns the bits and the disagreement left.
fn deciding_care(observed: &[(u128, Outcome)], care: u128, all: u128) -> (u128, usize) {
    let mut care = care;
    let mut conflicts = disagreement(observed, care);
    let bits = |care: u128| (0..128).map(|b| 1u128 << b).filter(move |bit| all & bit != 0 && care & bit == 0);
    while conflicts > 0 {
        let single = bits(care).map(|bit| (disagreement(observed, care | bit), bit)).min();
        if let Some((c, bit)) = single.filter(|(c, _)| *c < conflicts) {
            care |= bit;
            conflicts = c;
            continue;
        }
        let pair = bits(care)
            .flat_map(|a| bits(care).filter(move |&b| b > a).map(move |b| a | b))
            .map(|two| (disagreement(observed, care | two), two))
            .min();
        match pair.filter(|(c, _)| *c < conflicts) {
            Some((c, two)) => {
                care |= two;
                conflicts = c;
            }
            // Nor two: all of them, if that does (the removal below drops what does not count).
            None => {
                let c = disagreement(observed, care | all);
                if c < conflicts {
                    care |= all;
                    conflicts = c;
                }
                break;
            }
        }
    }
    let kept = care;
    for bit in (0..128).rev().map(|b| 1u128 << b).filter(|bit| kept & bit != 0) {
        if disagreement(observed, care & !bit) <= conflicts {
            care &= !bit;
        }
    }
    (care, conflicts)
}

/// Words whose outcome is not the most frequent one among the words with the same `care` bits.
fn disagreement(observed: &[(u128, Outcome)], care: u128) -> usize {
    let mut tally: BTreeMap<u128, BTreeMap<Outcome, usize>> = BTreeMap::new();
    for (w, o) in observed {
        *tally.entry(w & care).or_default().entry(*o).or_default() += 1;
    }
    tally.values().filter(|t| t.len() > 1).map(|t| t.values().sum::<usize>() - t.values().max().copied().unwrap_or(0)).sum()
}

fn rule(site: &Site, o: Outcome, when: Pattern) -> Access {
    Access { file: site.file, location: site.location.clone(), direction: o.direction, width: o.width, when }
}

/// Patterns covering every combination with outcome `want` and none with another.
pub fn cover(by_combo: &BTreeMap<u128, Outcome>, want: Outcome, care: u128) -> Vec<Pattern> {
    let others: Vec<u128> = by_combo.iter().filter(|(_, o)| **o != want).map(|(c, _)| *c).collect();
    let mut cubes: Vec<Pattern> = Vec::new();
    for (&combo, _) in by_combo.iter().filter(|(_, o)| **o == want) {
        if cubes.iter().any(|p| p.matches(combo)) {
            continue;
        }
        let mut p = Pattern { mask: care, value: combo & care };
        for b in (0..128).rev() {
            let bit = 1u128 << b;
            if p.mask & bit == 0 {
                continue;
            }
            let grown = Pattern { mask: p.mask & !bit, value: p.value & !bit };
            if !others.iter().any(|&c| grown.matches(c)) {
                p = grown;
            }
        }
        cubes.push(p);
    }
    // Drop patterns that another one contains.
    let all = cubes.clone();
    cubes.retain(|p| !all.iter().any(|q| q != p && q.mask & !p.mask == 0 && p.value & q.mask == q.value));
    cubes
}

#[cfg(test)]
mod tests {
    use super::*;
    use sassport_isa::Direction;

    const PAIR: Outcome = Outcome { direction: Direction::Read, width: 2 };
    const ONE: Outcome = Outcome { direction: Direction::Read, width: 1 };

    #[test]
    fn patterns_cover_their_outcome_and_nothing_else() {
        // Bits 1:0 decide: 0b11 reads a pair, everything else one register; 0b10 never observed.
        let by: BTreeMap<u128, Outcome> = [(0b00, ONE), (0b01, ONE), (0b11, PAIR)].into_iter().collect();
        let cubes = cover(&by, PAIR, 0b11);
        assert_eq!(cubes.len(), 1);
        let p = cubes[0];
        assert!(p.matches(0b11) && !p.matches(0b00) && !p.matches(0b01), "{p:?}");
    }

    #[test]
    fn deciding_bits_take_pairs_and_drop_what_does_not_count() {
        // The outcome is bit 2 XOR bit 5 (no one of them helps alone); bit 0 was thought to decide and
        // does not; bits 1, 3 and 4 vary and mean nothing.
        let observed: Vec<(u128, Outcome)> =
            (0u128..64).map(|w| (w, if (w >> 2 ^ w >> 5) & 1 == 1 { PAIR } else { ONE })).collect();
        let (care, conflicts) = deciding_care(&observed, 0b1, 0b11_1111);
        assert_eq!((care, conflicts), (0b10_0100, 0));
    }
}

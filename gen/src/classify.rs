//! The table-driven decoder behind [`crate::decode`]: the generated `decode` module holds the data, this
//! module walks it.
//!
//! Each opcode key has its candidates, one per class with that key: the first whose fixed bits match names
//! the word's class, and its legality checks decide between `Ok` and an illegal-field error. A long run of
//! candidates testing the same bits has a gate before it that lets most words skip the run. `FIRST[key]`
//! gives the key's first candidate, and the word nearly always matches it, so decoding is two dependent
//! loads (`FIRST`, the candidate), one masked compare and one bit test of a legality word, with branches
//! that go the same way for almost every word. (A generated `match` over the 637 keys compiled to an
//! indirect jump that mispredicted on real code and ran at half this speed. Comparing the word with four
//! candidates at once, without branches, and taking the first that matched ran at three quarters of it:
//! the candidate that compare finds is a data dependency of the legality check, where a well-predicted
//! branch is none. Choosing between just the first two that way, for the few words that miss the first,
//! made every word a sixth slower.)
//!
//! The candidates are not in the table's order but in one that decodes every word the same: a class may
//! go before an earlier one that shares no word with it. Each key's general form, the class testing the
//! fewest bits, goes as early as that allows, and it is what real code mostly holds: `LDG R0, [R2.64]`
//! was the last of LDG's four classes, after the `[RZ+UR]` forms the table lists first, and now is the
//! first. 92% of the corpus's words match their key's first candidate, against 84% in table order (and a
//! word tries 1.12 candidates on average, against 1.36).
//!
//! Decoding does not choose the print variant. The generator gives a class one candidate when every variant
//! it can print checks the same fields against the same values, so that the class alone decides legality;
//! [`variant`] then chooses the variant from the class's own list of conditions ([`CHOICES`]) when the
//! instruction is printed or asked for it. (Only `MOV_0x0202` has variants checking different fields; it
//! keeps a candidate per variant.) Candidates per (class, variant) made IMAD's 64 `RRI` variants (`MOV`
//! when Ra is RZ, `IADD` for 1, `SHL` for each power of two, ...) 64 candidates on the path of every IMAD.
//!
//! Field extraction for the checks shifts one 64-bit half of the word: shifting the whole 128-bit word by a
//! variable amount costs several instructions more. The field nearly every class checks (the one most
//! quick checks test, `COMMON_QUICK`: the opex bits in today's table) is extracted once per word with
//! constant shifts, off the chain of dependent loads; extracting it per candidate from the candidate's
//! own description was half of the decoder's time. The legal-value bitmaps are kept by value (`LEGAL[v]`
//! has bit `b` set when bitmap `b` allows `v`), so that the word's opex value alone selects the legality
//! word, loaded alongside `FIRST` rather than after the candidate as a third dependent load (words that
//! decode at their first candidate go about 8% faster for it).

use crate::generated::classes::ClassId;
use crate::generated::decode::{CANDIDATES, CHOICES, COMMON_QUICK, FIRST, LEGAL, MORE_CHECKS, VARIANTS};
use crate::render::{in_ranges, Bits};
use crate::word::Word;

/// One class a word with a given opcode key can decode as (or, for a class whose variants check different
/// fields, one variant of it).
///
/// Exactly one cache line, aligned to one: a candidate straddling two lines costs a second miss.
#[derive(Debug)]
#[repr(align(64))]
pub(crate) struct Candidate {
    /// The bits outside the opcode key that select this candidate: the class's fixed bits (and the
    /// variant's `when` bits).
    pub mask: u128,
    pub value: u128,
    pub class: ClassId,
    /// Whether this is the key's last candidate (for a gate: whether its run ends the key).
    pub last: bool,
    /// For a gate, the length of the run it guards (0 for a candidate): a word that does not match the
    /// gate's `mask`/`value` (the bits every candidate of the run wants the same way) skips the run.
    pub gate: u16,
    /// The first legality test, when it fits a [`QuickCheck`] (else one that accepts all).
    pub quick: QuickCheck,
    /// The other legality tests (rare), in `MORE_CHECKS`.
    pub more: Checks,
}

// One line each: a field added to `Candidate` must keep it there.
const _: () = assert!(std::mem::size_of::<Candidate>() == 64);

/// `Candidate::last` for a key's last candidate.
pub(crate) const END: bool = true;
/// `Candidate::last` for a candidate with more after it.
pub(crate) const NEXT: bool = false;

impl Candidate {
    pub(crate) const fn new(
        mask: u128,
        value: u128,
        class: ClassId,
        last: bool,
        quick: QuickCheck,
        more: Checks,
    ) -> Candidate {
        Candidate { mask, value, class, last, gate: 0, quick, more }
    }

    /// A gate before a run of `run` candidates: words without `value` under `mask` skip them.
    pub(crate) const fn gate(mask: u128, value: u128, run: u16, last: bool) -> Candidate {
        // The class is never read: a gate is never returned.
        Candidate { mask, value, class: ClassId::ALL[0], last, gate: run, quick: QuickCheck::ALL, more: Checks::NONE }
    }

    /// `common_legal`: `LEGAL` at the word's value of the field most quick checks test ([`COMMON_QUICK`]).
    #[inline(always)]
    fn accepts(&self, w: Word, common_legal: u64) -> bool {
        self.quick.accepts(w, common_legal) && (self.more.len == 0 || self.more.accept(w))
    }
}

/// A run of `MORE_CHECKS`: an index and a length rather than a slice, which would make a candidate more
/// than one cache line.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Checks {
    start: u16,
    len: u8,
}

impl Checks {
    pub(crate) const NONE: Checks = Checks { start: 0, len: 0 };

    pub(crate) const fn at(start: u16, len: u8) -> Checks {
        Checks { start, len }
    }

    #[inline(never)]
    fn accept(self, w: Word) -> bool {
        let start = usize::from(self.start);
        // A run outside the table (never generated) accepts nothing.
        MORE_CHECKS.get(start..start + usize::from(self.len)).is_some_and(|checks| checks.iter().all(|c| c.accepts(w)))
    }
}

/// A field of at most 16 bits in at most two bit ranges (`(lo, width)`, least significant first; an
/// unused range has width 0; neither crosses bit 64), gathered into a number.
#[derive(Debug, Clone, Copy)]
pub(crate) struct SmallField {
    /// Per range: which 64-bit half of the word holds it (bit 6) and its lowest bit there (bits 5:0).
    /// Shifting a half is much cheaper than shifting the whole 128-bit word by a variable amount.
    at: [u8; 2],
    mask: [u16; 2],
    /// Where the second range's bits go in the value: the first range's width.
    shift: u8,
}

impl SmallField {
    const fn new(ranges: [(u8, u8); 2]) -> SmallField {
        let [(lo0, w0), (lo1, w1)] = ranges;
        SmallField { at: [lo0 & 0x7f, lo1 & 0x7f], mask: [low_bits(w0), low_bits(w1)], shift: w0 }
    }

    #[inline(always)]
    fn value(&self, w: Word) -> usize {
        let part = |i: usize| {
            let at = self.at[i];
            // A select, not an index into `[low, high]`: indexing spills the halves to the stack.
            let half = if at & 0x40 != 0 { w.high() } else { w.low() };
            ((half >> (at & 63)) as u16 & self.mask[i]) as usize
        };
        part(0) | part(1).wrapping_shl(u32::from(self.shift))
    }
}

const fn low_bits(width: u8) -> u16 {
    if width >= 16 {
        u16::MAX
    } else {
        (1u16 << width) - 1
    }
}

/// A legality test on a field of at most 8 bits against one of the legal-value bitmaps: bit `legal` of
/// `LEGAL[value]`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct QuickCheck {
    field: SmallField,
    legal: u8,
    /// Whether `field` is [`COMMON_QUICK`], whose value [`classify`] takes from the word once, up front,
    /// with constant shifts (nearly every class tests the same opex field).
    common: bool,
}

/// The field most quick checks test, with its shifts and masks known at compile time.
const COMMON_FIELD: SmallField = SmallField::new(COMMON_QUICK);

/// Legal-value bitmaps (`[u64; 4]`, bit `v` set: value `v` is legal) turned into a table by value: bit `b`
/// of entry `v` set when bitmap `b` holds `v`. With the value known, one load gives it for every bitmap.
pub(crate) const fn by_value<const N: usize>(bitmaps: &[[u64; 4]; N]) -> [u64; 256] {
    assert!(N <= 64, "more than 64 legal-value bitmaps");
    let mut out = [0u64; 256];
    let mut v = 0;
    while v < 256 {
        let mut b = 0;
        while b < N {
            out[v] |= (bitmaps[b][v / 64] >> (v % 64) & 1) << b;
            b += 1;
        }
        v += 1;
    }
    out
}

impl QuickCheck {
    /// Accepts every word (bitmap 0 is all ones).
    pub(crate) const ALL: QuickCheck = QuickCheck::new([(0, 0), (0, 0)], 0);

    /// The test of the field made of `ranges` (at most 8 bits) against bitmap `legal`.
    pub(crate) const fn new(ranges: [(u8, u8); 2], legal: u8) -> QuickCheck {
        QuickCheck { field: SmallField::new(ranges), legal, common: false }
    }

    /// The test of [`COMMON_QUICK`] against bitmap `legal`.
    pub(crate) const fn common(legal: u8) -> QuickCheck {
        QuickCheck { field: COMMON_FIELD, legal, common: true }
    }

    /// `common_legal`: `LEGAL` at the word's value of [`COMMON_QUICK`].
    #[inline(always)]
    fn accepts(&self, w: Word, common_legal: u64) -> bool {
        // Field values are below 256 for the fields the generator emits; masked so that none indexes out
        // of bounds.
        let legal = if self.common { common_legal } else { LEGAL[self.field.value(w) & 0xff] };
        (legal >> (self.legal & 63)) & 1 != 0
    }
}

/// A legality test of any field: its value must lie in one of the sorted inclusive `legal` ranges.
#[derive(Debug)]
pub(crate) struct FieldCheck {
    pub bits: Bits,
    pub legal: &'static [(u64, u64)],
}

impl FieldCheck {
    fn accepts(&self, w: Word) -> bool {
        in_ranges(self.legal, self.bits.extract(w))
    }
}

/// The class of `w`; `Err(Some(class))` when the fixed bits name a class but a field
/// holds a value nvdisasm refuses, `Err(None)` when no class matches.
#[inline(always)]
pub(crate) fn classify(w: Word) -> Result<ClassId, Option<ClassId>> {
    let i = FIRST.get(usize::from(w.opcode_key())).map_or(0, |&i| usize::from(i));
    // Taken from the word alone, off the chain of dependent loads: ready by the time the candidate is.
    let common_legal = LEGAL[COMMON_FIELD.value(w) & 0xff];
    // Nearly every word decodes at its key's first candidate: that path is kept short and straight, the
    // walk over the rest is a call away.
    match CANDIDATES.get(i) {
        Some(c) if c.gate == 0 && w.0 & c.mask == c.value => {
            if c.accepts(w, common_legal) {
                Ok(c.class)
            } else {
                Err(Some(c.class))
            }
        }
        Some(c) if c.gate == 0 && c.last => Err(None),
        _ => classify_walk(w, i, common_legal),
    }
}

/// The rest of [`classify`]: the candidates from `i` on, gates skipping the runs a word cannot match.
#[inline(never)]
fn classify_walk(w: Word, mut i: usize, common_legal: u64) -> Result<ClassId, Option<ClassId>> {
    while let Some(c) = CANDIDATES.get(i) {
        let hit = w.0 & c.mask == c.value;
        if c.gate == 0 {
            if hit {
                return if c.accepts(w, common_legal) { Ok(c.class) } else { Err(Some(c.class)) };
            }
        } else if !hit {
            if c.last {
                break;
            }
            i += usize::from(c.gate);
        }
        if c.last && c.gate == 0 {
            break;
        }
        i += 1;
    }
    Err(None)
}

/// A class's run of [`CHOICES`], and the variant that prints a word matching none of them (the last).
#[derive(Debug)]
pub(crate) struct Variants {
    start: u16,
    len: u16,
    last: u8,
}

impl Variants {
    pub(crate) const fn new(start: u16, len: u16, last: u8) -> Variants {
        Variants { start, len, last }
    }
}

/// A variant's condition beyond its class's fixed bits, or a gate before a run of conditions.
#[derive(Debug)]
pub(crate) struct Choice {
    mask: u128,
    value: u128,
    variant: u8,
    /// For a gate, the length of the run it guards (0 for a condition): a word that does not match the
    /// gate's `mask`/`value` (the bits every condition of the run wants the same way) skips the run.
    gate: u16,
}

impl Choice {
    pub(crate) const fn new(mask: u128, value: u128, variant: u8) -> Choice {
        Choice { mask, value, variant, gate: 0 }
    }

    pub(crate) const fn gate(mask: u128, value: u128, run: u16) -> Choice {
        Choice { mask, value, variant: 0, gate: run }
    }
}

/// The conditions (mask, value) under which `class` prints with variant `variant` (the encoder's
/// starting bits for it): those listed for it, or for the last variant none (it prints what no
/// condition claims).
pub(crate) fn variant_conditions(class: ClassId, variant: u8) -> Vec<(u128, u128)> {
    let Some(v) = VARIANTS.get(class as usize) else { return vec![(0, 0)] };
    let start = usize::from(v.start);
    let choices = CHOICES.get(start..start + usize::from(v.len)).unwrap_or(&[]);
    let listed: Vec<(u128, u128)> = choices.iter().filter(|c| c.gate == 0 && c.variant == variant).map(|c| (c.mask, c.value)).collect();
    if listed.is_empty() {
        vec![(0, 0)]
    } else {
        listed
    }
}

/// The print variant of `w`, a word of `class`: the first whose condition it matches, else the last.
pub(crate) fn variant(class: ClassId, w: Word) -> u8 {
    let Some(v) = VARIANTS.get(class as usize) else {
        return 0;
    };
    let start = usize::from(v.start);
    let choices = CHOICES.get(start..start + usize::from(v.len)).unwrap_or(&[]);
    let mut i = 0;
    while let Some(c) = choices.get(i) {
        let hit = w.0 & c.mask == c.value;
        if c.gate == 0 {
            if hit {
                return c.variant;
            }
        } else if !hit {
            i += usize::from(c.gate);
        }
        i += 1;
    }
    v.last
}

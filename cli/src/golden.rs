//! Comparing a kernel's output buffers with silicon goldens, as the corpus manifest's `cmp=` says: bit for
//! bit, or within an ulp bound for MUFU-based results (same class — zero, infinity of a sign, NaN, finite —
//! and, for finite values, at most N representable values apart).

use sassport_corpus::Comparison;

/// The result of comparing one buffer.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct BufferDiff {
    /// Elements compared.
    pub checked: usize,
    /// Elements outside the bound.
    pub mismatches: usize,
    /// The first few mismatches, readable.
    pub examples: Vec<String>,
}

const EXAMPLES: usize = 8;

/// Compares `got` with `want` element by element.
pub fn compare(cmp: Comparison, got: &[u8], want: &[u8]) -> BufferDiff {
    let mut diff = BufferDiff::default();
    if got.len() != want.len() {
        diff.mismatches = 1;
        diff.examples.push(format!("length {} where the golden has {}", got.len(), want.len()));
        return diff;
    }
    match cmp {
        Comparison::Exact => {
            for (i, (g, w)) in words32(got).zip(words32(want)).enumerate() {
                note(&mut diff, g == w, || format!("word {i}: {g:#010x}, silicon {w:#010x}"));
            }
            let tail = got.len() % 4;
            if tail != 0 {
                let at = got.len() - tail;
                note(&mut diff, got[at..] == want[at..], || format!("trailing bytes at {at} differ"));
            }
        }
        Comparison::F32Ulp(n) => {
            for (i, (g, w)) in words32(got).zip(words32(want)).enumerate() {
                let ok = within_f32(g, w, n);
                note(&mut diff, ok, || format!("word {i}: {g:#010x}, silicon {w:#010x} (bound {n} ulp)"));
            }
        }
        Comparison::F64Ulp(n) => {
            for (i, (g, w)) in words64(got).zip(words64(want)).enumerate() {
                let ok = within_f64(g, w, n);
                note(&mut diff, ok, || format!("dword {i}: {g:#018x}, silicon {w:#018x} (bound {n} ulp)"));
            }
        }
    }
    diff
}

fn note(diff: &mut BufferDiff, ok: bool, describe: impl FnOnce() -> String) {
    diff.checked += 1;
    if !ok {
        diff.mismatches += 1;
        if diff.examples.len() < EXAMPLES {
            diff.examples.push(describe());
        }
    }
}

fn words32(b: &[u8]) -> impl Iterator<Item = u32> + '_ {
    b.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
}

fn words64(b: &[u8]) -> impl Iterator<Item = u64> + '_ {
    b.chunks_exact(8).map(|c| u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]))
}

/// Whether two f32 bit patterns agree within `n` ulp (class first, then distance on the ordered line).
pub fn within_f32(a: u32, b: u32, n: u32) -> bool {
    let class = |x: u32| match x & 0x7fff_ffff {
        0 => 0u8,
        0x7f80_0000 => 1 + (x >> 31) as u8,
        m if m > 0x7f80_0000 => 3,
        _ => 4,
    };
    let ordered = |x: u32| if x >> 31 == 1 { -i64::from(x & 0x7fff_ffff) } else { i64::from(x) };
    class(a) == class(b) && (class(a) != 4 || (ordered(a) - ordered(b)).unsigned_abs() <= u64::from(n))
}

/// Whether two f64 bit patterns agree within `n` ulp.
pub fn within_f64(a: u64, b: u64, n: u32) -> bool {
    let class = |x: u64| match x & (u64::MAX >> 1) {
        0 => 0u8,
        0x7ff0_0000_0000_0000 => 1 + (x >> 63) as u8,
        m if m > 0x7ff0_0000_0000_0000 => 3,
        _ => 4,
    };
    let ordered = |x: u64| if x >> 63 == 1 { -i128::from(x & (u64::MAX >> 1)) } else { i128::from(x) };
    class(a) == class(b) && (class(a) != 4 || (ordered(a) - ordered(b)).unsigned_abs() <= u128::from(n))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ulp_bounds() {
        let one = 1.0f32.to_bits();
        assert!(within_f32(one, one + 4, 4));
        assert!(!within_f32(one, one + 5, 4));
        // Across zero: the smallest denormals of both signs are 2 apart; +0 and -0 share a class.
        assert!(within_f32(0x0000_0001, 0x8000_0001, 2));
        assert!(!within_f32(0x0000_0001, 0x8000_0001, 1));
        assert!(within_f32(0x0000_0000, 0x8000_0000, 0));
        // Infinities never match finite neighbours; NaNs match NaNs.
        assert!(!within_f32(0x7f7f_ffff, 0x7f80_0000, 4));
        assert!(!within_f32(0x7f80_0000, 0xff80_0000, 4));
        assert!(within_f32(0x7fc0_0000, 0x7fff_ffff, 0));
        assert!(within_f64(2.0f64.to_bits(), 2.0f64.to_bits() + 3, 3));
        assert!(!within_f64(2.0f64.to_bits(), 2.0f64.to_bits() + 4, 3));
    }

    #[test]
    fn exact_reports_first_mismatches() {
        let want = [1u8, 0, 0, 0, 2, 0, 0, 0];
        let got = [1u8, 0, 0, 0, 3, 0, 0, 0];
        let d = compare(Comparison::Exact, &got, &want);
        assert_eq!((d.checked, d.mismatches), (2, 1));
        assert!(d.examples[0].starts_with("word 1"));
        assert_eq!(compare(Comparison::Exact, &want, &want).mismatches, 0);
        assert_eq!(compare(Comparison::Exact, &want[..4], &want).mismatches, 1);
    }
}

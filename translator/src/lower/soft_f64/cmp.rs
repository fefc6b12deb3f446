//! FP64 comparisons on the bits (DSETP/DSET without `Float64`): SM86's comparison codes 1..14.

use crate::exact::B;
use crate::spirv::{Id, Op};

/// Unsigned-order key of f64 bits (both zeros map to the same key) and whether the value is a NaN.
fn key(b: &mut B<'_>, x: Id) -> (Id, Id) {
    let mag_mask = b.c64(u64::MAX >> 1);
    let inf = b.c64(0x7ff0_0000_0000_0000);
    let z = b.c64(0);
    let top = b.c64(1 << 63);
    let mag = b.i64(Op::BitwiseAnd, x, mag_mask);
    let nan = b.b(Op::UGreaterThan, mag, inf);
    let is_zero = b.b(Op::IEqual, mag, z);
    // Negative values: all bits flipped (larger magnitude, smaller key); positive: the top bit set.
    let neg = b.neg64(x);
    let flipped = b.m.un(Op::Not, b.t.u64, x);
    let positive = b.i64(Op::BitwiseOr, x, top);
    let k = b.sel64(neg, flipped, positive);
    (b.sel64(is_zero, top, k), nan)
}

/// `a <cmp> b` for comparison code `cmp` (1 LT, 2 EQ, 3 LE, 4 GT, 5 NE, 6 GE, 7 NUM, 8 NAN, 9..14 the
/// unordered forms): ordered forms are false with a NaN operand, unordered ones true.
pub fn compare(b: &mut B<'_>, cmp: u32, x: Id, y: Id) -> Id {
    if cmp == 0 || cmp == 15 {
        return b.cb(cmp == 15);
    }
    let (kx, nx) = key(b, x);
    let (ky, ny) = key(b, y);
    let any_nan = b.or(nx, ny);
    let rel = match cmp & 7 {
        1 => Op::ULessThan,
        2 => Op::IEqual,
        3 => Op::ULessThanEqual,
        4 => Op::UGreaterThan,
        5 => Op::INotEqual,
        6 => Op::UGreaterThanEqual,
        // 7 NUM, 8 NAN (cmp & 7 == 0).
        _ => return if cmp == 8 { any_nan } else { b.not(any_nan) },
    };
    let r = b.b(rel, kx, ky);
    if cmp < 8 {
        let ordered = b.not(any_nan);
        b.and(ordered, r)
    } else {
        b.or(any_nan, r)
    }
}

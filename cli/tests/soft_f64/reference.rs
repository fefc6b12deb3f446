//! An exact reference for IEEE 754 binary arithmetic: the exact value of `a * b + c` as a big integer times a
//! power of two, rounded by integer reasoning in each of the four modes (no float arithmetic). The same
//! reasoning as `cli/tests/exact_helpers.rs`'s reference (copied, so the two test binaries stay separate);
//! checked against the host's IEEE doubles for round-to-nearest in `soft_f64_reference.rs`.
#![allow(dead_code)]

use std::cmp::Ordering;

/// Unsigned big integer, little-endian 64-bit limbs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Big(Vec<u64>);

impl Big {
    fn from_u128(v: u128) -> Big {
        Big(vec![v as u64, (v >> 64) as u64])
    }
    fn is_zero(&self) -> bool {
        self.0.iter().all(|&l| l == 0)
    }
    fn bitlen(&self) -> u32 {
        for (i, &l) in self.0.iter().enumerate().rev() {
            if l != 0 {
                return i as u32 * 64 + 64 - l.leading_zeros();
            }
        }
        0
    }
    fn bit(&self, i: u32) -> bool {
        self.0.get((i / 64) as usize).is_some_and(|l| (l >> (i % 64)) & 1 == 1)
    }
    fn any_below(&self, i: u32) -> bool {
        (0..i).any(|k| self.bit(k))
    }
    fn shl(&self, k: u32) -> Big {
        let limbs = (k / 64) as usize;
        let bits = k % 64;
        let mut out = vec![0u64; self.0.len() + limbs + 1];
        for (i, &l) in self.0.iter().enumerate() {
            out[i + limbs] |= l << bits;
            if bits > 0 {
                out[i + limbs + 1] |= l >> (64 - bits);
            }
        }
        Big(out)
    }
    fn shr_u64(&self, k: u32) -> u64 {
        // Low 64 bits of self >> k (callers keep the result below 2^64).
        (0..64).fold(0u64, |acc, i| acc | (u64::from(self.bit(k + i)) << i))
    }
    fn cmp(&self, o: &Big) -> Ordering {
        let n = self.0.len().max(o.0.len());
        for i in (0..n).rev() {
            let a = self.0.get(i).copied().unwrap_or(0);
            let b = o.0.get(i).copied().unwrap_or(0);
            if a != b {
                return a.cmp(&b);
            }
        }
        Ordering::Equal
    }
    fn add(&self, o: &Big) -> Big {
        let n = self.0.len().max(o.0.len()) + 1;
        let mut out = vec![0u64; n];
        let mut carry = 0u128;
        for (i, slot) in out.iter_mut().enumerate() {
            let s =
                u128::from(self.0.get(i).copied().unwrap_or(0)) + u128::from(o.0.get(i).copied().unwrap_or(0)) + carry;
            *slot = s as u64;
            carry = s >> 64;
        }
        Big(out)
    }
    /// self - o, requires self >= o.
    fn sub(&self, o: &Big) -> Big {
        let mut out = self.0.clone();
        let mut borrow = 0i128;
        for (i, slot) in out.iter_mut().enumerate() {
            let d = i128::from(*slot) - i128::from(o.0.get(i).copied().unwrap_or(0)) - borrow;
            borrow = i128::from(d < 0);
            *slot = d.rem_euclid(1 << 64) as u64;
        }
        Big(out)
    }
}

#[derive(Clone, Copy)]
pub struct Fmt {
    p: u32,
    bias: i32,
    width: u32,
}
pub const F32: Fmt = Fmt { p: 24, bias: 127, width: 32 };
pub const F64: Fmt = Fmt { p: 53, bias: 1023, width: 64 };
pub const F16: Fmt = Fmt { p: 11, bias: 15, width: 16 };
pub const BF16: Fmt = Fmt { p: 8, bias: 127, width: 16 };

impl Fmt {
    fn ebits(&self) -> u32 {
        self.width - self.p
    }
    fn inf(&self) -> u64 {
        ((1u64 << self.ebits()) - 1) << (self.p - 1)
    }
}

/// An exact value: (-1)^neg * mag * 2^exp, or a special.
#[derive(Clone, Debug)]
enum Val {
    Nan,
    Inf(bool),
    Num { neg: bool, mag: Big, exp: i32 },
}

fn decode(f: Fmt, bits: u64) -> Val {
    let neg = (bits >> (f.width - 1)) & 1 == 1;
    let e = ((bits >> (f.p - 1)) & ((1 << f.ebits()) - 1)) as i32;
    let frac = bits & ((1u64 << (f.p - 1)) - 1);
    if e == (1 << f.ebits()) - 1 {
        return if frac == 0 { Val::Inf(neg) } else { Val::Nan };
    }
    let (m, ex) = if e == 0 {
        (frac, 1 - f.bias - (f.p as i32 - 1))
    } else {
        (frac | 1 << (f.p - 1), e - f.bias - (f.p as i32 - 1))
    };
    Val::Num { neg, mag: Big::from_u128(u128::from(m)), exp: ex }
}

/// Rounds a nonzero exact value to `f` in `mode` (0 RN, 1 RM, 2 RP, 3 RZ); bits with sign.
pub fn round(f: Fmt, neg: bool, mag: &Big, exp: i32, mode: u32) -> u64 {
    let n = mag.bitlen() as i32;
    let e = exp + n - 1; // exponent of the leading bit
    let emin = 1 - f.bias;
    let q = if e < emin { emin - (f.p as i32 - 1) } else { e - (f.p as i32 - 1) }; // quantum exponent
    let s = q - exp; // bits to drop
    let (mut m, above, tie, inexact) = if s <= 0 {
        (mag.shl((-s) as u32).shr_u64(0), false, false, false)
    } else {
        let s = s as u32;
        let m = if s >= mag.bitlen() { 0 } else { mag.shr_u64(s) };
        let half = mag.bit(s - 1);
        let rest = mag.any_below(s - 1);
        (m, half && rest, half && !rest, half || rest)
    };
    let up = match mode {
        0 => above || (tie && m & 1 == 1),
        1 => inexact && neg,
        2 => inexact && !neg,
        _ => false,
    };
    m += u64::from(up);
    // Encode: m < 2^p at quantum q; m == 2^p moves up one binade.
    let mut qe = q;
    if m == 1 << f.p {
        m >>= 1;
        qe += 1;
    }
    let sign = u64::from(neg) << (f.width - 1);
    let top_e = qe + f.p as i32 - 1;
    if m >= 1 << (f.p - 1) && top_e > f.bias {
        let to_inf = mode == 0 || (mode == 1 && neg) || (mode == 2 && !neg);
        return sign | if to_inf { f.inf() } else { f.inf() - 1 };
    }
    if m < 1 << (f.p - 1) {
        return sign | m; // denormal or zero
    }
    let field = (top_e + f.bias) as u64;
    sign | field << (f.p - 1) | (m & ((1 << (f.p - 1)) - 1))
}

/// Exact a*b + c (c = None: a*b alone) rounded to `f`; None for NaN results.
pub fn fma_ref(f: Fmt, a: u64, b: u64, c: Option<u64>, mode: u32) -> Option<u64> {
    let sign = |neg: bool| u64::from(neg) << (f.width - 1);
    let (va, vb) = (decode(f, a), decode(f, b));
    let vc = c.map(|c| decode(f, c));
    if matches!(va, Val::Nan) || matches!(vb, Val::Nan) || matches!(vc, Some(Val::Nan)) {
        return None;
    }
    let zero = |v: &Val| matches!(v, Val::Num { mag, .. } if mag.is_zero());
    let neg_of = |v: &Val| match v {
        Val::Inf(n) => *n,
        Val::Num { neg, .. } => *neg,
        Val::Nan => false,
    };
    let pneg = neg_of(&va) != neg_of(&vb);
    let p_inf = matches!(va, Val::Inf(_)) || matches!(vb, Val::Inf(_));
    if p_inf && (zero(&va) || zero(&vb)) {
        return None;
    }
    if p_inf {
        if let Some(Val::Inf(cn)) = vc {
            if cn != pneg {
                return None;
            }
        }
        return Some(sign(pneg) | f.inf());
    }
    if let Some(Val::Inf(cn)) = vc {
        return Some(sign(cn) | f.inf());
    }
    let (Val::Num { mag: ma, exp: ea, .. }, Val::Num { mag: mb, exp: eb, .. }) = (&va, &vb) else { unreachable!() };
    let pm = Big::from_u128(u128::from(ma.shr_u64(0)) * u128::from(mb.shr_u64(0)));
    let pe = ea + eb;
    let Some(Val::Num { neg: cneg, mag: cm, exp: ce }) = vc else {
        if pm.is_zero() {
            return Some(sign(pneg));
        }
        return Some(round(f, pneg, &pm, pe, mode));
    };
    let e = pe.min(ce);
    let pw = pm.shl((pe - e) as u32);
    let cw = cm.shl((ce - e) as u32);
    let (neg, mag) = if pneg == cneg {
        (pneg, pw.add(&cw))
    } else {
        match pw.cmp(&cw) {
            Ordering::Less => (cneg, cw.sub(&pw)),
            _ => (pneg, pw.sub(&cw)),
        }
    };
    if mag.is_zero() {
        let z = if pm.is_zero() && cm.is_zero() {
            if mode == 1 {
                pneg || cneg
            } else {
                pneg && cneg
            }
        } else {
            mode == 1
        };
        return Some(sign(z));
    }
    Some(round(f, neg, &mag, e, mode))
}


//! A 32-byte pool entry (TIC or TSC) as eight little-endian words, read by absolute bit position the way the
//! class headers number fields (`MW(hi:lo)` over the whole 256-bit entry).

/// One TIC or TSC entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Entry(pub [u32; 8]);

impl Entry {
    /// Bytes of one entry in its pool.
    pub const BYTES: usize = 32;

    /// The entry in `bytes` (exactly 32 bytes, little-endian words).
    pub fn from_bytes(bytes: &[u8; 32]) -> Entry {
        let mut w = [0u32; 8];
        for (i, word) in w.iter_mut().enumerate() {
            let b = [bytes[4 * i], bytes[4 * i + 1], bytes[4 * i + 2], bytes[4 * i + 3]];
            *word = u32::from_le_bytes(b);
        }
        Entry(w)
    }

    /// The entry's bytes.
    pub fn to_bytes(&self) -> [u8; 32] {
        let mut out = [0u8; 32];
        for (i, word) in self.0.iter().enumerate() {
            out[4 * i..4 * i + 4].copy_from_slice(&word.to_le_bytes());
        }
        out
    }

    /// Bits `lo..=hi` of the entry (a field never crosses a word in these layouts; `hi - lo < 32`).
    pub fn field(&self, hi: u32, lo: u32) -> u32 {
        debug_assert!(hi >= lo && hi / 32 == lo / 32 && hi < 256);
        let word = self.0[(lo / 32) as usize & 7];
        let width = hi - lo + 1;
        let shifted = word >> (lo % 32);
        if width == 32 {
            shifted
        } else {
            shifted & ((1u32 << width) - 1)
        }
    }

    /// Bit `bit` of the entry.
    pub fn bit(&self, bit: u32) -> bool {
        self.field(bit, bit) != 0
    }

    /// Sets bits `lo..=hi` to `value` (truncated to the field); for building entries in tests and tools.
    pub fn set(&mut self, hi: u32, lo: u32, value: u32) {
        let width = hi - lo + 1;
        let mask = if width == 32 {
            u32::MAX
        } else {
            (1u32 << width) - 1
        };
        let word = &mut self.0[(lo / 32) as usize & 7];
        *word = (*word & !(mask << (lo % 32))) | ((value & mask) << (lo % 32));
    }
}

/// Sign-extends the low `bits` bits of `v`.
pub fn sign_extend(v: u32, bits: u32) -> i32 {
    let shift = 32 - bits;
    ((v << shift) as i32) >> shift
}

//! The deterministic input generator behind `buf:in:<BYTES>:<SEED>` arguments of `launches.txt`.
//!
//! Specified exactly in `corpus/README.md` (section "Input generator") so that the Python silicon recorder
//! (`corpus/record_silicon.py`) produces the same bytes: a xorshift64* stream of 32-bit words whose first
//! [`SPECIAL_WORDS`]`.len()` words are replaced by a fixed table of special bit patterns.

/// Mixed into the seed so that small seeds (1, 2, 3, ...) start far apart; also the fallback state, because
/// xorshift never leaves the all-zero state.
pub const SEED_MIX: u64 = 0x9E37_79B9_7F4A_7C15;

/// The xorshift64* output multiplier.
pub const MULTIPLIER: u64 = 0x2545_F491_4F6C_DD1D;

/// The special words that open every generated buffer (rotated per seed, see [`special_word`]).
/// Entries 0-39 are FP32 edge cases (they double as integer edge cases: 0, INT_MIN, INT_MAX, -1, 1);
/// entries 40-63 are twelve FP64 edge cases as (low word, high word) pairs. The first eight are ordered so
/// that entries two apart make useful operand pairs (+0/-0, +inf/-inf, 1/-1, NaN/NaN): two buffers whose
/// seeds differ by one are rotated two words apart.
pub const SPECIAL_WORDS: [u32; 64] = [
    // FP32
    0x0000_0000, // +0
    0x7F80_0000, // +inf
    0x8000_0000, // -0 (INT_MIN)
    0xFF80_0000, // -inf
    0x3F80_0000, // 1.0
    0x7FC0_0000, // canonical quiet NaN
    0xBF80_0000, // -1.0
    0xFFC0_0001, // negative quiet NaN with payload
    0x7F80_0001, // signalling NaN
    0x7FFF_FFFF, // NaN with all payload bits (INT_MAX)
    0x0000_0001, // smallest denormal
    0x807F_FFFF, // largest negative denormal
    0x0080_0000, // smallest normal
    0x7F7F_FFFF, // largest finite
    0xFF7F_FFFF, // most negative finite
    0x3F00_0000, // 0.5 (ties)
    0x3FC0_0000, // 1.5
    0x4020_0000, // 2.5
    0xC020_0000, // -2.5
    0x3EFF_FFFF, // largest float below 0.5
    0x4B00_0001, // 2^23 + 1
    0x4F00_0000, // 2^31 (int overflow)
    0xCF00_0000, // -2^31 (INT_MIN exactly)
    0x4F80_0000, // 2^32 (uint overflow)
    0x5F00_0000, // 2^63 (int64 overflow)
    0xDF00_0001, // just below -2^63
    0x477F_E000, // 65504, largest half
    0x477F_F000, // 65520, rounds to half infinity
    0x3380_0000, // 2^-24, smallest half denormal
    0x387F_C000, // largest half denormal
    0x4049_0FDB, // pi
    0xC049_0FDB, // -pi
    0x3DCC_CCCD, // 0.1
    0x4974_2400, // 1e6
    0x42B1_7218, // 88.72: expf overflow threshold
    0xC2CE_8ED0, // -103.28: expf underflow
    0xFFFF_FFFF, // negative NaN (-1)
    0x4EFF_FFFF, // largest float below 2^31
    0x3F7F_FFFF, // largest float below 1.0
    0x0040_0000, // denormal, half the smallest normal
    // FP64 as (low, high)
    0x0000_0000,
    0x0000_0000, // +0
    0x0000_0000,
    0x7FF0_0000, // +inf
    0x0000_0000,
    0xFFF0_0000, // -inf
    0x0000_0000,
    0x7FF8_0000, // quiet NaN
    0x0000_0001,
    0x0000_0000, // smallest denormal
    0x0000_0000,
    0x0010_0000, // smallest normal
    0xFFFF_FFFF,
    0x7FEF_FFFF, // largest finite
    0x0000_0000,
    0x3FF8_0000, // 1.5
    0x0000_0000,
    0xC004_0000, // -2.5
    0x0000_0000,
    0x41E0_0000, // 2^31
    0x0000_0000,
    0x43E0_0000, // 2^63
    0x5555_5555,
    0x3FD5_5555, // 1/3
];

/// The xorshift64* stream of 32-bit words for one seed (the high half of each 64-bit output).
#[derive(Clone, Debug)]
pub struct WordStream {
    state: u64,
}

impl WordStream {
    pub fn new(seed: u64) -> WordStream {
        let state = seed ^ SEED_MIX;
        WordStream {
            state: if state == 0 { SEED_MIX } else { state },
        }
    }
}

impl Iterator for WordStream {
    type Item = u32;

    fn next(&mut self) -> Option<u32> {
        let mut x = self.state;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.state = x;
        Some((x.wrapping_mul(MULTIPLIER) >> 32) as u32)
    }
}

/// Word `k` (< 64) of a buffer with this seed: the table rotated by `2 * (seed mod 32)` entries. The
/// rotation is even, so FP64 (low, high) pairs stay together; it differs between seeds, so two input
/// buffers of one launch pair different special values.
pub fn special_word(k: usize, seed: u64) -> u32 {
    let rotation = 2 * (seed % 32) as usize;
    SPECIAL_WORDS[(k + rotation) % SPECIAL_WORDS.len()]
}

/// The contents of a `buf:in:<bytes>:<seed>` buffer: word k is [`special_word`]`(k, seed)` for k < 64 and
/// the k-th stream word otherwise (the stream advances for every word, special or not), stored
/// little-endian and truncated to `bytes`.
pub fn generate(bytes: usize, seed: u64) -> Vec<u8> {
    let words = bytes.div_ceil(4);
    let mut out = Vec::with_capacity(words * 4);
    for (k, word) in WordStream::new(seed).take(words).enumerate() {
        let word = if k < SPECIAL_WORDS.len() {
            special_word(k, seed)
        } else {
            word
        };
        out.extend_from_slice(&word.to_le_bytes());
    }
    out.truncate(bytes);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The first stream words for seeds 1 and 0, computed independently with Python's arbitrary-precision
    /// integers (`python3 corpus/record_silicon.py --print-words 1 4`) and pinned so neither side can drift.
    #[test]
    fn stream_words_are_pinned() {
        let first: Vec<u32> = WordStream::new(1).take(4).collect();
        assert_eq!(first, [0x102A_CEB9, 0x24B8_9D23, 0xB584_971A, 0x1DF7_614B]);
        let seed0: Vec<u32> = WordStream::new(0).take(2).collect();
        assert_eq!(seed0, [0x0D83_B3E2, 0x54C4_4C79]);
    }

    fn words(buf: &[u8]) -> Vec<u32> {
        buf.chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect()
    }

    #[test]
    fn buffer_starts_with_rotated_special_table_then_stream() {
        let words7 = words(&generate(4 * 70, 7));
        assert_eq!(&words7[..50], &SPECIAL_WORDS[14..]);
        assert_eq!(&words7[50..64], &SPECIAL_WORDS[..14]);
        let stream: Vec<u32> = WordStream::new(7).take(70).collect();
        assert_eq!(&words7[64..], &stream[64..]);
        // Seeds 0 and 32 are not rotated; seeds one apart are two entries apart.
        assert_eq!(&words(&generate(256, 32))[..], &SPECIAL_WORDS[..]);
        assert_eq!(special_word(0, 0), 0x0000_0000);
        assert_eq!(special_word(0, 1), 0x8000_0000);
        assert_eq!(special_word(1, 1), 0xFF80_0000);
    }

    /// Generated buffers for seed 1, pinned against the Python recorder's generator
    /// (`python3 corpus/record_silicon.py --print-words 1 66`).
    #[test]
    fn generated_words_are_pinned() {
        let w = words(&generate(66 * 4, 1));
        assert_eq!(
            &w[..4],
            &[0x8000_0000, 0xFF80_0000, 0x3F80_0000, 0x7FC0_0000]
        );
        assert_eq!(
            &w[62..],
            &[0x0000_0000, 0x7F80_0000, 0xFDA2_3A54, 0x098A_9EB0]
        );
    }

    #[test]
    fn length_is_exact_and_truncation_keeps_prefix() {
        assert!(generate(0, 3).is_empty());
        let full = generate(1024, 3);
        assert_eq!(full.len(), 1024);
        let odd = generate(1023, 3);
        assert_eq!(odd, full[..1023]);
        assert_eq!(generate(6, 3), full[..6]);
    }

    #[test]
    fn seeds_differ_and_are_reproducible() {
        assert_eq!(generate(512, 5), generate(512, 5));
        assert_ne!(generate(512, 5)[256..], generate(512, 6)[256..]);
    }

    #[test]
    fn zero_state_is_avoided() {
        let mut stream = WordStream::new(SEED_MIX);
        assert!(stream.by_ref().take(8).any(|w| w != 0));
    }

    #[test]
    fn special_table_has_the_documented_doubles() {
        let double = |k: usize| {
            f64::from_bits(((SPECIAL_WORDS[2 * k + 1] as u64) << 32) | SPECIAL_WORDS[2 * k] as u64)
        };
        assert_eq!(double(20), 0.0);
        assert_eq!(double(21), f64::INFINITY);
        assert_eq!(double(22), f64::NEG_INFINITY);
        assert!(double(23).is_nan());
        assert_eq!(double(24), f64::from_bits(1));
        assert_eq!(double(25), f64::MIN_POSITIVE);
        assert_eq!(double(26), f64::MAX);
        assert_eq!(double(27), 1.5);
        assert_eq!(double(28), -2.5);
        assert_eq!(double(29), 2147483648.0);
        assert_eq!(double(30), 9223372036854775808.0);
        assert_eq!(double(31), 1.0 / 3.0);
        let float = |k: usize| f32::from_bits(SPECIAL_WORDS[k]);
        assert_eq!(float(26), 65504.0);
        assert_eq!(float(28), 2.0f32.powi(-24));
        assert_eq!(float(32), 0.1);
        assert_eq!(float(33), 1.0e6);
    }
}

//! The sealed form every on-disk cache entry takes: what kind of entry it is, the key it was stored under,
//! the payload, and a SHA-256 of all of that.
//!
//! A reader names the kind and the key it looks for; an entry is used only when its hash, kind and key all
//! match, so a flipped bit, a truncated write or an entry copied to another key's file is refused (and the
//! caller rebuilds it) instead of reaching the translator, the driver or the lowering choices.
//!
//! Layout (little-endian): magic (the kind, one text line), u32 key length, key bytes, u64 payload length,
//! payload bytes, 32-byte SHA-256 of everything before it.

use sha2::{Digest, Sha256};

/// The kind line of a translated-module entry ([`crate::SpirvCache`]).
pub const SPIRV_MAGIC: &[u8] = b"sassport-spirv-cache v2\n";
/// The kind line of a float self-test record ([`crate::float_record_file`]).
pub const FLOAT_RECORD_MAGIC: &[u8] = b"sassport-float-selftest v2\n";
/// The kind line of a persisted `VkPipelineCache` ([`crate::cache_file`]).
pub const PIPELINE_CACHE_MAGIC: &[u8] = b"sassport-pipeline-cache v2\n";

/// Bytes of the trailing hash.
pub const HASH_BYTES: usize = 32;

/// Why an on-disk cache entry was not used.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CacheEntryError {
    /// The file ends before the layout says it does.
    #[error("truncated: {needed} bytes needed for the {part}, {available} present")]
    Truncated {
        /// Which part was cut.
        part: &'static str,
        /// Bytes the part needs.
        needed: u64,
        /// Bytes left in the file.
        available: u64,
    },
    /// Bytes follow the hash.
    #[error("{extra} bytes after the end of the entry")]
    TrailingBytes {
        /// How many.
        extra: usize,
    },
    /// The stored hash is not the hash of the contents: the file was damaged after it was written.
    #[error("content hash mismatch (stored {stored}, computed {computed})")]
    HashMismatch {
        /// The hash in the file, hex.
        stored: String,
        /// The hash of the contents, hex.
        computed: String,
    },
    /// A whole, undamaged entry of another kind or format version.
    #[error("not a {expected:?} entry")]
    WrongKind {
        /// The magic line looked for.
        expected: String,
    },
    /// A whole, undamaged entry stored under another key (for example copied to this key's file name).
    #[error("stored under another key ({stored:?})")]
    WrongKey {
        /// The key the entry names, lossily decoded.
        stored: String,
    },
    /// The payload is not what this kind of entry holds, or not a value the producer could have written.
    #[error("bad payload: {0}")]
    Payload(String),
}

/// SHA-256 of `bytes`.
pub fn sha256(bytes: &[u8]) -> [u8; HASH_BYTES] {
    Sha256::digest(bytes).into()
}

/// Lower-case hex of `bytes`.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The entry holding `payload` under `key`, for entries of kind `magic`.
pub fn seal(magic: &[u8], key: &[u8], payload: &[u8]) -> Vec<u8> {
    let mut data = Vec::with_capacity(magic.len() + 12 + key.len() + payload.len() + HASH_BYTES);
    data.extend_from_slice(magic);
    data.extend_from_slice(&(key.len() as u32).to_le_bytes());
    data.extend_from_slice(key);
    data.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    data.extend_from_slice(payload);
    let hash = sha256(&data);
    data.extend_from_slice(&hash);
    data
}

/// The payload of `data` if it is a whole, undamaged entry of kind `magic` stored under `key`.
pub fn open<'a>(data: &'a [u8], magic: &[u8], key: &[u8]) -> Result<&'a [u8], CacheEntryError> {
    let mut rest = data;
    let stored_magic = take(&mut rest, "magic", magic.len() as u64)?;
    let key_len = u32::from_le_bytes(le_bytes(take(&mut rest, "key length", 4)?));
    let stored_key = take(&mut rest, "key", u64::from(key_len))?;
    let payload_len = u64::from_le_bytes(le_bytes(take(&mut rest, "payload length", 8)?));
    let payload = take(&mut rest, "payload", payload_len)?;
    let body_len = data.len() - rest.len();
    let stored_hash = take(&mut rest, "hash", HASH_BYTES as u64)?;
    if !rest.is_empty() {
        return Err(CacheEntryError::TrailingBytes { extra: rest.len() });
    }
    let computed = sha256(&data[..body_len]);
    if stored_hash != computed {
        return Err(CacheEntryError::HashMismatch {
            stored: hex(stored_hash),
            computed: hex(&computed),
        });
    }
    if stored_magic != magic {
        return Err(CacheEntryError::WrongKind {
            expected: String::from_utf8_lossy(magic).trim_end().to_string(),
        });
    }
    if stored_key != key {
        return Err(CacheEntryError::WrongKey {
            stored: String::from_utf8_lossy(stored_key).into_owned(),
        });
    }
    Ok(payload)
}

/// The next `n` bytes of `rest` (which moves past them), or which part is cut short.
fn take<'a>(rest: &mut &'a [u8], part: &'static str, n: u64) -> Result<&'a [u8], CacheEntryError> {
    let available = rest.len() as u64;
    if n > available {
        return Err(CacheEntryError::Truncated {
            part,
            needed: n,
            available,
        });
    }
    let (piece, after) = rest.split_at(n as usize);
    *rest = after;
    Ok(piece)
}

fn le_bytes<const N: usize>(b: &[u8]) -> [u8; N] {
    let mut out = [0u8; N];
    out.copy_from_slice(b);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn sha256_matches_the_published_vectors() {
        // FIPS 180-2 appendix B.1 and the empty message.
        assert_eq!(
            hex(&sha256(b"abc")),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert_eq!(
            hex(&sha256(b"")),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
    }

    #[test]
    fn an_entry_opens_only_with_its_kind_and_key() {
        let e = seal(b"kind v1\n", b"key", b"payload");
        assert_eq!(open(&e, b"kind v1\n", b"key"), Ok(&b"payload"[..]));
        assert!(matches!(
            open(&e, b"kind v2\n", b"key"),
            Err(CacheEntryError::WrongKind { .. })
        ));
        assert!(matches!(
            open(&e, b"kind v1\n", b"kez"),
            Err(CacheEntryError::WrongKey { .. })
        ));
        let mut longer = e.clone();
        longer.push(0);
        assert_eq!(
            open(&longer, b"kind v1\n", b"key"),
            Err(CacheEntryError::TrailingBytes { extra: 1 })
        );
    }

    proptest! {
        /// Every truncation and every single flipped bit is refused.
        #[test]
        fn damage_is_always_refused(
            key in prop::collection::vec(any::<u8>(), 0..40),
            payload in prop::collection::vec(any::<u8>(), 0..200),
            cut in any::<prop::sample::Index>(),
            flip in any::<prop::sample::Index>(),
            bit in 0u8..8,
        ) {
            let e = seal(b"m\n", &key, &payload);
            prop_assert_eq!(open(&e, b"m\n", &key), Ok(&payload[..]));
            prop_assert!(open(&e[..cut.index(e.len())], b"m\n", &key).is_err());
            let mut bad = e.clone();
            bad[flip.index(e.len())] ^= 1 << bit;
            prop_assert!(open(&bad, b"m\n", &key).is_err());
        }
    }
}

//! Translated SPIR-V kept on disk, content-addressed by cubin, kernel, device profile and translator version,
//! so a second run skips translation.
//!
//! A file name is a 128-bit FNV-1a hash of the key text. The file is a sealed entry ([`crate::cache_entry`]):
//! it repeats the full key (with the cubin as its SHA-256 and length) and ends with a SHA-256 of key and
//! module, and it is used only when both match. A hash collision of the name, a file from another version,
//! an entry copied under another kernel's name, a truncated write or a flipped bit is a miss — reported
//! once, then translated again and overwritten — never a wrong module. Files are written atomically (a
//! unique temporary file, synced, then renamed), so concurrent writers of one key never leave a torn entry.
//! A directory that cannot be written costs one warning and the caching, never the translation.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use sassport_translator::abi::DeviceProfile;

use crate::cache_entry::{self, CacheEntryError};
use crate::disk_cache;
use crate::error::Result;

/// The kind line of a translated-module entry (the version counts the entry format, not the translator).
const MAGIC: &[u8] = cache_entry::SPIRV_MAGIC;

/// What a translation depends on.
#[derive(Clone, Copy, Debug)]
pub struct TranslationKey<'a> {
    /// The whole cubin file.
    pub cubin: &'a [u8],
    /// Kernel name.
    pub kernel: &'a str,
    /// The profile the translator was given.
    pub profile: &'a DeviceProfile,
    /// The translator's version string (change it whenever generated code changes).
    pub translator_version: &'a str,
}

impl TranslationKey<'_> {
    /// The key as text: one `name=value` line per part, the cubin as `sha256:length`.
    pub fn text(&self) -> String {
        format!(
            "kernel={}\ncubin={}:{}\nprofile={:?}\ntranslator={}\n",
            self.kernel.escape_debug(),
            cache_entry::hex(&cache_entry::sha256(self.cubin)),
            self.cubin.len(),
            self.profile,
            self.translator_version.escape_debug()
        )
    }
}

/// FNV-1a, 128-bit: stable across Rust versions and platforms, unlike `std`'s hashers. Names files only;
/// what a file holds is checked by SHA-256.
pub fn fnv1a_128(bytes: &[u8]) -> u128 {
    const OFFSET: u128 = 0x6c62_272e_07bb_0142_62b8_2175_6295_c58d;
    const PRIME: u128 = 0x0000_0000_0100_0000_0000_0000_0000_013b;
    bytes
        .iter()
        .fold(OFFSET, |h, &b| (h ^ u128::from(b)).wrapping_mul(PRIME))
}

/// A directory of translated modules.
#[derive(Clone, Debug)]
pub struct SpirvCache {
    dir: PathBuf,
    /// Set once a store failed: later stores are skipped (the failure was reported once).
    unwritable: Arc<AtomicBool>,
}

impl SpirvCache {
    /// A cache in `dir` (created on the first store).
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        SpirvCache {
            dir: dir.into(),
            unwritable: Arc::new(AtomicBool::new(false)),
        }
    }

    /// The file a key maps to.
    pub fn path(&self, key: &TranslationKey<'_>) -> PathBuf {
        self.dir.join(format!(
            "spirv-v2-{:032x}.bin",
            fnv1a_128(key.text().as_bytes())
        ))
    }

    /// The cached module for `key`, or `None`: absent, or present but refused by [`parse_entry`] (reported
    /// once per file, see [`crate::cache_warnings`]; the next [`SpirvCache::put`] overwrites it).
    pub fn get(&self, key: &TranslationKey<'_>) -> Option<Vec<u32>> {
        let path = self.path(key);
        let data = disk_cache::read_entry(&path)?;
        match parse_entry(&data, &key.text()) {
            Ok(words) => Some(words),
            Err(e) => {
                disk_cache::rejected(&path, &data, &e);
                None
            }
        }
    }

    /// Stores `words` for `key`, replacing whatever the file held. `None` when the directory cannot be
    /// written: reported once, and this cache (and its clones) stops trying.
    pub fn put(&self, key: &TranslationKey<'_>, words: &[u32]) -> Option<PathBuf> {
        if self.unwritable.load(Ordering::Relaxed) {
            return None;
        }
        let path = self.path(key);
        match disk_cache::write_cache_file(&path, &entry_bytes(&key.text(), words)) {
            Ok(()) => Some(path),
            Err(e) => {
                self.unwritable.store(true, Ordering::Relaxed);
                disk_cache::warn_unwritable(&path, &e);
                None
            }
        }
    }

    /// The module for `key`: the verified cached one (`true`), else `build`'s, which is then stored
    /// (`false`). A damaged or misplaced entry is rebuilt and overwritten; a failed store only loses the
    /// caching.
    pub fn get_or_build<E>(
        &self,
        key: &TranslationKey<'_>,
        build: impl FnOnce() -> std::result::Result<Vec<u32>, E>,
    ) -> std::result::Result<(Vec<u32>, bool), E> {
        if let Some(words) = self.get(key) {
            return Ok((words, true));
        }
        let words = build()?;
        self.put(key, &words);
        Ok((words, false))
    }

    /// Stores `words` for `key`, failing with the I/O error instead of degrading (for callers that must
    /// know).
    pub fn try_put(&self, key: &TranslationKey<'_>, words: &[u32]) -> Result<PathBuf> {
        let path = self.path(key);
        disk_cache::store(&path, &entry_bytes(&key.text(), words))?;
        Ok(path)
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }
}

/// The file contents for module `words` under the key text `key_text` ([`TranslationKey::text`]).
pub fn entry_bytes(key_text: &str, words: &[u32]) -> Vec<u8> {
    let payload: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    cache_entry::seal(MAGIC, key_text.as_bytes(), &payload)
}

/// The module in a cache file, if it is a whole, undamaged entry stored under `key_text` whose payload is
/// a SPIR-V module (whole words, the SPIR-V magic number first).
pub fn parse_entry(data: &[u8], key_text: &str) -> std::result::Result<Vec<u32>, CacheEntryError> {
    let payload = cache_entry::open(data, MAGIC, key_text.as_bytes())?;
    if payload.len() % 4 != 0 {
        return Err(CacheEntryError::Payload(format!(
            "{} bytes is not a whole number of SPIR-V words",
            payload.len()
        )));
    }
    let words: Vec<u32> = payload
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    match words.first() {
        Some(&rspirv::spirv::MAGIC_NUMBER) => Ok(words),
        first => Err(CacheEntryError::Payload(format!(
            "not a SPIR-V module (first word {first:#x?})"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn dir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("sassport-spirv-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        d
    }

    #[test]
    fn fnv1a_128_matches_the_published_vectors() {
        // Reference values of the FNV-1a 128-bit hash (IETF draft-eastlake-fnv test vectors).
        assert_eq!(fnv1a_128(b""), 0x6c62272e07bb014262b821756295c58d);
        assert_eq!(fnv1a_128(b"a"), 0xd228cb696f1a8caf78912b704e4a8964);
        assert_eq!(fnv1a_128(b"foobar"), 0x343e1662793c64bf6f0d3597ba446f18);
    }

    #[test]
    fn stores_and_finds_by_the_whole_key() {
        let d = dir("roundtrip");
        let cache = SpirvCache::new(&d);
        let profile = DeviceProfile {
            subgroup_size: 8,
            ..Default::default()
        };
        let key = TranslationKey {
            cubin: b"cubin bytes",
            kernel: "saxpy",
            profile: &profile,
            translator_version: "t1",
        };
        assert_eq!(cache.get(&key), None);
        let words = vec![0x0723_0203, 1, 2, 3];
        cache.put(&key, &words).unwrap();
        assert_eq!(cache.get(&key), Some(words.clone()));
        // Any part of the key changing is a miss.
        let other = DeviceProfile {
            subgroup_size: 32,
            ..Default::default()
        };
        for k in [
            TranslationKey {
                cubin: b"cubin bytez",
                ..key
            },
            TranslationKey {
                kernel: "saxpy2",
                ..key
            },
            TranslationKey {
                profile: &other,
                ..key
            },
            TranslationKey {
                translator_version: "t2",
                ..key
            },
        ] {
            assert_eq!(cache.get(&k), None);
        }
        // A file whose stored key differs (a collision, or tampering) is a miss.
        let path = cache.path(&key);
        let data = std::fs::read(&path).unwrap();
        let tampered: Vec<u8> = String::from_utf8_lossy(&data)
            .replace("saxpy", "saxpz")
            .into_bytes();
        std::fs::write(&path, tampered).unwrap();
        assert_eq!(cache.get(&key), None);
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn a_payload_that_is_not_spirv_is_refused() {
        let e = cache_entry::seal(MAGIC, b"k", &[1, 2, 3, 4]);
        assert!(matches!(parse_entry(&e, "k"), Err(CacheEntryError::Payload(_))));
        let e = cache_entry::seal(MAGIC, b"k", &[3, 2, 0x23, 7, 1]);
        assert!(matches!(parse_entry(&e, "k"), Err(CacheEntryError::Payload(_))));
        assert!(matches!(
            parse_entry(&cache_entry::seal(MAGIC, b"k", &[]), "k"),
            Err(CacheEntryError::Payload(_))
        ));
    }

    proptest! {
        /// Truncated or corrupted files are refused, never panics or wrong modules.
        #[test]
        fn damaged_files_are_refused(cut in any::<prop::sample::Index>(), flip in any::<prop::sample::Index>(), bit in 0u8..8) {
            let text = "kernel=k\n";
            let data = entry_bytes(text, &[0x0723_0203, 2]);
            prop_assert_eq!(parse_entry(&data, text), Ok(vec![0x0723_0203, 2]));
            let n = cut.index(data.len());
            prop_assert!(parse_entry(&data[..n], text).is_err());
            let i = flip.index(data.len());
            let mut bad = data.clone();
            bad[i] ^= 1 << bit;
            prop_assert!(parse_entry(&bad, text).is_err());
        }
    }
}

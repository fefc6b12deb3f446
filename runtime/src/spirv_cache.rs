//! Translated SPIR-V kept on disk, content-addressed by cubin, kernel, device profile and translator version,
//! so a second run skips translation.
//!
//! A file name is a 128-bit FNV-1a hash of the key; the file repeats the full key (with the cubin as its own
//! 128-bit hash and length) and is used only when that matches, so a hash collision or a file from another
//! version is a miss, never a wrong module. Files are written atomically (temporary file, then rename).

use std::path::{Path, PathBuf};

use sassport_translator::abi::DeviceProfile;

use crate::error::Result;

const MAGIC: &[u8; 24] = b"sassport-spirv-cache v1\n";

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
    /// The key as text: one `name=value` line per part, the cubin as `fnv1a128:length`.
    pub fn text(&self) -> String {
        format!(
            "kernel={}\ncubin={:032x}:{}\nprofile={:?}\ntranslator={}\n",
            self.kernel.escape_debug(),
            fnv1a_128(self.cubin),
            self.cubin.len(),
            self.profile,
            self.translator_version.escape_debug()
        )
    }
}

/// FNV-1a, 128-bit: stable across Rust versions and platforms, unlike `std`'s hashers.
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
}

impl SpirvCache {
    /// A cache in `dir` (created on the first store).
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        SpirvCache { dir: dir.into() }
    }

    /// The file a key maps to.
    pub fn path(&self, key: &TranslationKey<'_>) -> PathBuf {
        self.dir.join(format!(
            "spirv-{:032x}.bin",
            fnv1a_128(key.text().as_bytes())
        ))
    }

    /// The cached module for `key`, or `None` (absent, unreadable, from another key, or damaged).
    pub fn get(&self, key: &TranslationKey<'_>) -> Option<Vec<u32>> {
        let data = std::fs::read(self.path(key)).ok()?;
        parse(&data, &key.text())
    }

    /// Stores `words` for `key`.
    pub fn put(&self, key: &TranslationKey<'_>, words: &[u32]) -> Result<PathBuf> {
        let path = self.path(key);
        let text = key.text();
        let mut data = Vec::with_capacity(MAGIC.len() + 8 + text.len() + 4 * words.len());
        data.extend_from_slice(MAGIC);
        data.extend_from_slice(&(text.len() as u32).to_le_bytes());
        data.extend_from_slice(text.as_bytes());
        data.extend_from_slice(&(words.len() as u32).to_le_bytes());
        data.extend(words.iter().flat_map(|w| w.to_le_bytes()));
        crate::disk_cache::store(&path, &data)?;
        Ok(path)
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }
}

/// Layout: magic, u32 key length, key text, u32 word count, words (all little-endian).
fn parse(data: &[u8], key_text: &str) -> Option<Vec<u32>> {
    let rest = data.strip_prefix(MAGIC.as_slice())?;
    let (len, rest) = split_u32(rest)?;
    let (text, rest) = (rest.get(..len as usize)?, rest.get(len as usize..)?);
    if text != key_text.as_bytes() {
        return None;
    }
    let (count, rest) = split_u32(rest)?;
    if rest.len() != 4 * count as usize {
        return None;
    }
    Some(
        rest.chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect(),
    )
}

fn split_u32(b: &[u8]) -> Option<(u32, &[u8])> {
    let (head, rest) = (b.get(..4)?, b.get(4..)?);
    Some((
        u32::from_le_bytes([head[0], head[1], head[2], head[3]]),
        rest,
    ))
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

    proptest! {
        /// Truncated or corrupted files are misses, never panics or wrong modules.
        #[test]
        fn damaged_files_are_misses(cut in any::<prop::sample::Index>(), flip in any::<prop::sample::Index>(), bit in 0u8..8) {
            let text = "kernel=k\n";
            let mut data = MAGIC.to_vec();
            data.extend_from_slice(&(text.len() as u32).to_le_bytes());
            data.extend_from_slice(text.as_bytes());
            data.extend_from_slice(&2u32.to_le_bytes());
            data.extend_from_slice(&[1, 0, 0, 0, 2, 0, 0, 0]);
            prop_assert_eq!(parse(&data, text), Some(vec![1, 2]));
            let n = cut.index(data.len());
            prop_assert_eq!(parse(&data[..n], text), None);
            let i = flip.index(data.len());
            let mut bad = data.clone();
            bad[i] ^= 1 << bit;
            let got = parse(&bad, text);
            // Only a flip inside the module words can still parse, and then it shows in the words.
            if i < data.len() - 8 {
                prop_assert_eq!(got, None);
            } else {
                prop_assert_ne!(got, Some(vec![1, 2]));
            }
        }
    }
}

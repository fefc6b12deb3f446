//! The on-disk caches verify themselves (issue 24, item 3): a flipped bit in each kind of entry, an entry
//! copied to another key, a truncated entry, an unwritable directory and concurrent writers. Each case checks
//! that the right module or measurement is used (launched on lavapipe and checked against values computed
//! here) and that the entry is rebuilt.

mod support;

use std::path::{Path, PathBuf};
use std::time::Duration;

use sassport_runtime::abi::DeviceProfile;
use sassport_runtime::cache_entry::{
    open, seal, CacheEntryError, FLOAT_RECORD_MAGIC, PIPELINE_CACHE_MAGIC, SPIRV_MAGIC,
};
use sassport_runtime::{
    cache_warnings, entry_bytes, float_record_bytes, float_record_file, float_record_identity,
    open_pipeline_cache, parse_entry, parse_float_record, pipeline_cache_key, DeviceSelector,
    FloatSamples, Launch, PipelineCacheLocation, Runtime, RuntimeOptions, SpirvCache,
    TranslationKey,
};

fn options(cache: PipelineCacheLocation) -> RuntimeOptions {
    support::test_env();
    let device = std::env::var("SASSPORT_TEST_DEVICE").unwrap_or_else(|_| "llvmpipe".into());
    RuntimeOptions {
        device: device.parse().unwrap_or(DeviceSelector::Default),
        window_bytes: Some(16 << 20),
        pipeline_cache: cache,
        cache_version: "caches test".into(),
        pipeline_timeout: Some(Duration::from_secs(60)),
        ..Default::default()
    }
}

fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("sassport-caches-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Warnings issued so far that name `path`.
fn warnings_about(path: &Path) -> usize {
    let p = path.display().to_string();
    cache_warnings().iter().filter(|w| w.contains(&p)).count()
}

/// Files in `d` whose names mark them as temporary files of an atomic write.
fn temporaries(d: &Path) -> Vec<String> {
    std::fs::read_dir(d)
        .map(|r| {
            r.filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.contains(".tmp-"))
                .collect()
        })
        .unwrap_or_default()
}

/// Module A stores `gid * 3 + param` at `ptr + 4 * gid`; module B stores `dynamic_shared_bytes + gid`.
fn module_a() -> Vec<u32> {
    support::store_gid_kernel()
}

fn module_b() -> Vec<u32> {
    support::dynamic_shared_kernel()
}

/// Launches `words` over 2 x 64 threads with param 5 and returns the 128 stored words.
fn launch(rt: &mut Runtime, words: &[u32]) -> Vec<u32> {
    let k = rt.load_kernel("cached", words).unwrap();
    let (grid, block) = ([2, 1, 1], [64, 1, 1]);
    let buf = rt.alloc(4 * 128).unwrap();
    rt.upload(buf, &[0xee; 4 * 128]).unwrap();
    let b0 = support::bank0(grid, block, buf, 5);
    rt.launch(&Launch {
        kernel: k,
        grid,
        block,
        dynamic_shared_bytes: 0,
        banks: &[(0, &b0)],
    })
    .unwrap();
    let mut out = vec![0u8; 4 * 128];
    rt.download(buf, &mut out).unwrap();
    rt.free(buf).unwrap();
    out.chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

fn results_of_a() -> Vec<u32> {
    (0..128).map(|g| g * 3 + 5).collect()
}

fn results_of_b() -> Vec<u32> {
    (0..128).collect()
}

fn profile() -> DeviceProfile {
    DeviceProfile {
        subgroup_size: 32,
        ..Default::default()
    }
}

fn key<'a>(kernel: &'a str, profile: &'a DeviceProfile) -> TranslationKey<'a> {
    TranslationKey {
        cubin: b"the cubin",
        kernel,
        profile,
        translator_version: "caches test",
    }
}

/// `get_or_build` with a build that must run: it returns `words` and counts the call.
fn rebuild(cache: &SpirvCache, k: &TranslationKey<'_>, words: &[u32]) -> Vec<u32> {
    let mut built = 0;
    let (got, cached) = cache
        .get_or_build(k, || {
            built += 1;
            Ok::<_, ()>(words.to_vec())
        })
        .unwrap();
    assert!(!cached && built == 1, "the damaged entry must not be used");
    got
}

#[test]
fn damaged_and_misplaced_module_entries_are_rebuilt() {
    let d = dir("spirv");
    let cache = SpirvCache::new(&d);
    let profile = profile();
    let (ka, kb) = (key("a", &profile), key("b", &profile));
    let (a, b) = (module_a(), module_b());
    let mut rt = Runtime::new(options(PipelineCacheLocation::Disabled)).unwrap();
    assert_eq!(rebuild(&cache, &ka, &a), a);
    let path = cache.path(&ka);
    let clean = std::fs::read(&path).unwrap();
    assert_eq!(clean, entry_bytes(&ka.text(), &a));
    // A whole entry is used without building.
    let (got, cached) = cache
        .get_or_build(&ka, || Err::<Vec<u32>, _>("must not build"))
        .unwrap();
    assert!(cached && got == a);

    // A flipped bit in every part: the kind line, the key, the lengths, the module, the hash.
    let module_at = SPIRV_MAGIC.len() + 4 + ka.text().len() + 8;
    let spots = [
        3,
        SPIRV_MAGIC.len() + 1,
        SPIRV_MAGIC.len() + 4 + 7,
        module_at - 3,
        module_at + 1,
        module_at + 4 * 40 + 2,
        clean.len() - 40,
        clean.len() - 1,
    ];
    for (n, &at) in spots.iter().enumerate() {
        let mut bad = clean.clone();
        bad[at] ^= 1 << (n % 8);
        std::fs::write(&path, &bad).unwrap();
        assert!(parse_entry(&bad, &ka.text()).is_err(), "byte {at}");
        let before = warnings_about(&path);
        let got = rebuild(&cache, &ka, &a);
        assert_eq!(launch(&mut rt, &got), results_of_a(), "byte {at}");
        assert_eq!(std::fs::read(&path).unwrap(), clean, "rewritten after byte {at}");
        assert_eq!(warnings_about(&path), before + 1, "reported once");
    }
    // The same damaged file met twice (nothing rewrote it) is reported once.
    let mut bad = clean.clone();
    bad[module_at + 8] ^= 0x10;
    std::fs::write(&path, &bad).unwrap();
    let before = warnings_about(&path);
    assert_eq!(cache.get(&ka), None);
    assert_eq!(cache.get(&ka), None);
    assert_eq!(warnings_about(&path), before + 1);

    // Truncated: empty, inside the header, inside the module, without the hash's last byte.
    for len in [0, 10, module_at + 6, clean.len() - 1] {
        std::fs::write(&path, &clean[..len]).unwrap();
        let got = rebuild(&cache, &ka, &a);
        assert_eq!(launch(&mut rt, &got), results_of_a(), "cut at {len}");
        assert_eq!(std::fs::read(&path).unwrap(), clean);
    }

    // Kernel a's entry copied to kernel b's file: b's own module is built and stored there.
    assert_ne!(cache.path(&kb), path);
    std::fs::copy(&path, cache.path(&kb)).unwrap();
    assert!(matches!(
        parse_entry(&clean, &kb.text()),
        Err(CacheEntryError::WrongKey { .. })
    ));
    let got = rebuild(&cache, &kb, &b);
    assert_eq!(got, b);
    assert_eq!(launch(&mut rt, &got), results_of_b());
    assert_eq!(
        std::fs::read(cache.path(&kb)).unwrap(),
        entry_bytes(&kb.text(), &b)
    );
    // And a's entry is untouched and still used.
    assert_eq!(cache.get(&ka), Some(a));
    assert_eq!(temporaries(&d), Vec::<String>::new());
    let _ = std::fs::remove_dir_all(&d);
}

/// A runtime with its caches in `d`; its pipeline-cache file.
fn runtime_in(d: &Path, version: &str) -> (Runtime, PathBuf) {
    let rt = Runtime::new(RuntimeOptions {
        cache_version: version.into(),
        ..options(PipelineCacheLocation::Dir(d.to_owned()))
    })
    .unwrap();
    let path = rt.pipeline_cache_path().unwrap().to_owned();
    (rt, path)
}

/// Whether the pipeline-cache file is a whole entry for this device and version.
fn pipeline_file_is_valid(rt: &Runtime, path: &Path, version: &str) -> bool {
    let file = std::fs::read(path).unwrap();
    open_pipeline_cache(&file, &pipeline_cache_key(rt.device(), version), rt.device()).is_ok()
}

#[test]
fn damaged_and_misplaced_pipeline_caches_are_not_handed_to_the_driver() {
    let d = dir("pipelines");
    let a = module_a();
    let (mut rt, path) = runtime_in(&d, "v1");
    assert_eq!(launch(&mut rt, &a), results_of_a());
    drop(rt);
    let clean = std::fs::read(&path).unwrap();
    let (rt, _) = runtime_in(&d, "v1");
    assert!(pipeline_file_is_valid(&rt, &path, "v1"));
    let key = pipeline_cache_key(rt.device(), "v1");
    let raw = open(&clean, PIPELINE_CACHE_MAGIC, key.as_bytes()).unwrap().to_vec();
    drop(rt);

    let mut cases: Vec<(&str, Vec<u8>)> = Vec::new();
    // A bit flipped in the kind line, the key, the driver's header (the UUID), the driver's data, the hash.
    let data_at = clean.len() - 32 - (clean.len() - 32 - 16).min(64);
    for (n, at) in [2, 40, data_at + 20, clean.len() - 33, clean.len() - 2]
        .into_iter()
        .enumerate()
    {
        let mut bad = clean.clone();
        bad[at] ^= 1 << n;
        cases.push(("flipped", bad));
    }
    cases.push(("truncated", clean[..clean.len() / 2].to_vec()));
    // The driver's data as the file held it before it was sealed: only a header check stood behind it.
    cases.push(("raw driver data", raw));
    for (what, bad) in cases {
        std::fs::write(&path, &bad).unwrap();
        let before = warnings_about(&path);
        let (mut rt, _) = runtime_in(&d, "v1");
        assert_eq!(warnings_about(&path), before + 1, "{what}: reported once");
        assert_eq!(launch(&mut rt, &a), results_of_a(), "{what}");
        assert!(rt.save_pipeline_cache().unwrap().is_some());
        assert!(pipeline_file_is_valid(&rt, &path, "v1"), "{what}: rebuilt");
    }

    // Version v1's file copied to version v2's name: refused as another key, then rebuilt for v2.
    let (rt2, path2) = runtime_in(&d, "v2");
    drop(rt2);
    std::fs::copy(&path, &path2).unwrap();
    let before = warnings_about(&path2);
    let (mut rt2, _) = runtime_in(&d, "v2");
    assert_eq!(warnings_about(&path2), before + 1);
    assert_eq!(launch(&mut rt2, &a), results_of_a());
    assert!(rt2.save_pipeline_cache().unwrap().is_some());
    assert!(pipeline_file_is_valid(&rt2, &path2, "v2"));
    assert!(!pipeline_file_is_valid(&rt2, &path2, "v1"));
    drop(rt2);
    assert_eq!(temporaries(&d), Vec::<String>::new());
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn damaged_implausible_and_foreign_float_records_are_measured_again() {
    let d = dir("float");
    let (mut rt, _) = runtime_in(&d, "f");
    let measured = rt.measure_float().unwrap();
    let file = float_record_file(&d, rt.device());
    let identity = float_record_identity(rt.device());
    let float64 = rt.device().features.float64;
    let clean = std::fs::read(&file).unwrap();
    let samples = parse_float_record(&clean, &identity, float64).unwrap();
    assert_eq!(samples.measured(), measured);
    drop(rt);
    // The opposite of what this device does, as a plausible (IEEE-possible) value.
    let opposite = FloatSamples {
        fma_f32: if measured.fma_f32_fused == Some(true) { 0 } else { 0x337f_fffe },
        ..samples
    };
    let mut cases: Vec<(&str, Vec<u8>)> = Vec::new();
    // The probe's edit: one value changed by hand, so the hash no longer matches.
    let edited = float_record_bytes(&identity, &opposite);
    let payload = open(&clean, FLOAT_RECORD_MAGIC, identity.as_bytes()).unwrap().len();
    let (from, to) = (clean.len() - 32 - payload, clean.len() - 32);
    let mut spliced = clean.clone();
    spliced[from..to].copy_from_slice(&edited[from..to]);
    assert_ne!(spliced, clean);
    cases.push(("edited value", spliced));
    for at in [1, 30, clean.len() - 50, clean.len() - 5] {
        let mut bad = clean.clone();
        bad[at] ^= 4;
        cases.push(("flipped bit", bad));
    }
    cases.push(("truncated", clean[..clean.len() - 7].to_vec()));
    // Sealed correctly, but for another driver: the opposite behaviour must not be taken for this one.
    let foreign = identity.replacen("driver_info=", "driver_info=another ", 1);
    cases.push(("another device's record", float_record_bytes(&foreign, &opposite)));
    // Sealed correctly for this device, but values the self-test cannot produce.
    let odd = [
        FloatSamples { fma_f32: 0x3380_0000, ..samples },
        FloatSamples { denorm_sum_f32: 1, ..samples },
        FloatSamples { fma_f64: if float64 { None } else { Some(0) }, ..samples },
        FloatSamples { denorm_sum_f64: if float64 { Some(1) } else { Some(0) }, ..samples },
    ];
    for s in odd {
        cases.push(("implausible", float_record_bytes(&identity, &s)));
    }
    for (what, bad) in cases {
        std::fs::write(&file, &bad).unwrap();
        let before = warnings_about(&file);
        let (mut rt, _) = runtime_in(&d, "f");
        assert_eq!(rt.measure_float().unwrap(), measured, "{what}: measured again");
        assert_eq!(warnings_about(&file), before + 1, "{what}: reported once");
        assert_eq!(std::fs::read(&file).unwrap(), clean, "{what}: rewritten");
    }
    assert_eq!(temporaries(&d), Vec::<String>::new());
    let _ = std::fs::remove_dir_all(&d);
}

/// Every cache in a directory that cannot be written: the launch goes on, one warning for the directory.
fn caches_degrade_in(unwritable: &Path) {
    let profile = profile();
    let ka = key("a", &profile);
    let cache = SpirvCache::new(unwritable);
    let before = cache_warnings().len();
    for _ in 0..3 {
        assert_eq!(cache.put(&ka, &module_a()), None);
        assert_eq!(rebuild(&cache, &ka, &module_a()), module_a());
    }
    assert!(cache.try_put(&ka, &module_a()).is_err(), "the typed error for callers that ask");
    let mut rt = Runtime::new(RuntimeOptions {
        cache_version: "ro".into(),
        ..options(PipelineCacheLocation::Dir(unwritable.to_owned()))
    })
    .unwrap();
    let measured = rt.measure_float().unwrap();
    assert!(measured.fma_f32_fused.is_some());
    assert_eq!(launch(&mut rt, &module_a()), results_of_a());
    assert_eq!(rt.save_pipeline_cache().unwrap(), None);
    drop(rt);
    let new: Vec<String> = cache_warnings()[before..].to_vec();
    let about = new
        .iter()
        .filter(|w| w.contains(&unwritable.display().to_string()) && w.contains("cannot be written"))
        .count();
    assert_eq!(about, 1, "one warning for the directory: {new:#?}");
    assert!(!cache.path(&ka).exists());
}

#[test]
fn an_unwritable_cache_directory_degrades_to_no_cache_with_one_warning() {
    // A directory that cannot be made (its parent is a file): fails for root too.
    let d = dir("unwritable");
    std::fs::write(d.join("file"), b"").unwrap();
    caches_degrade_in(&d.join("file").join("cache"));

    // A read-only file system and a full one, where a private mount namespace can be had.
    if std::env::var_os("SASSPORT_CACHES_MOUNTED").is_some() {
        return;
    }
    let exe = std::env::current_exe().unwrap();
    let script = r#"set -e
mount -t tmpfs -o ro,size=64k tmpfs "$1/ro"
mount -t tmpfs -o size=64k tmpfs "$1/full"
dd if=/dev/zero of="$1/full/filler" bs=4k 2>/dev/null || true
exec "$2" --exact mounted_read_only_and_full_file_systems --nocapture"#;
    for sub in ["ro", "full"] {
        std::fs::create_dir_all(d.join(sub)).unwrap();
    }
    let out = std::process::Command::new("unshare")
        .args(["--user", "--map-root-user", "--mount", "sh", "-c", script, "sh"])
        .arg(&d)
        .arg(&exe)
        .env("SASSPORT_CACHES_MOUNTED", &d)
        .output();
    match out {
        Ok(o) if o.status.success() => {
            let text = String::from_utf8_lossy(&o.stdout);
            assert!(text.contains("1 passed"), "{text}");
        }
        Ok(o) if String::from_utf8_lossy(&o.stderr).contains("unshare failed")
            || String::from_utf8_lossy(&o.stderr).contains("Operation not permitted") =>
        {
            eprintln!("no private mount namespace here: the read-only and full file systems were not tried");
        }
        Ok(o) => panic!(
            "{}\n{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        ),
        Err(e) => eprintln!("no unshare here ({e}): the read-only and full file systems were not tried"),
    }
    let _ = std::fs::remove_dir_all(&d);
}

/// Runs inside the mount namespace of the test above (and does nothing elsewhere).
#[test]
fn mounted_read_only_and_full_file_systems() {
    let Some(d) = std::env::var_os("SASSPORT_CACHES_MOUNTED").map(PathBuf::from) else {
        return;
    };
    caches_degrade_in(&d.join("ro"));
    caches_degrade_in(&d.join("full"));
    assert_eq!(temporaries(&d.join("full")), Vec::<String>::new());
}

/// Child process of the concurrency test: writes the entry many times.
#[test]
fn concurrent_writer_process() {
    let Some(d) = std::env::var_os("SASSPORT_CACHES_WRITER").map(PathBuf::from) else {
        return;
    };
    let profile = profile();
    let cache = SpirvCache::new(&d);
    for _ in 0..200 {
        cache.try_put(&key("a", &profile), &module_a()).unwrap();
    }
}

#[test]
fn concurrent_writers_never_leave_a_torn_entry() {
    let d = dir("concurrent");
    let profile = profile();
    let ka = key("a", &profile);
    let cache = SpirvCache::new(&d);
    let a = module_a();
    let path = cache.path(&ka);
    let exe = std::env::current_exe().unwrap();
    let children: Vec<std::process::Child> = (0..3)
        .map(|_| {
            std::process::Command::new(&exe)
                .args(["--exact", "concurrent_writer_process", "--nocapture"])
                .env("SASSPORT_CACHES_WRITER", &d)
                .stdout(std::process::Stdio::null())
                .spawn()
                .unwrap()
        })
        .collect();
    let done = std::sync::atomic::AtomicBool::new(false);
    let seen = std::thread::scope(|s| {
        let writers: Vec<_> = (0..3)
            .map(|_| {
                s.spawn(|| {
                    for _ in 0..200 {
                        cache.try_put(&ka, &a).unwrap();
                    }
                })
            })
            .collect();
        let readers: Vec<_> = (0..2)
            .map(|_| {
                s.spawn(|| {
                    let mut hits = 0;
                    // Until every writer is done: each read finds no file yet or the whole entry, never part.
                    loop {
                        let last = done.load(std::sync::atomic::Ordering::Relaxed);
                        if let Ok(data) = std::fs::read(&path) {
                            assert_eq!(parse_entry(&data, &ka.text()), Ok(a.clone()));
                            hits += 1;
                        }
                        if last {
                            break;
                        }
                    }
                    hits
                })
            })
            .collect();
        for w in writers {
            w.join().unwrap();
        }
        for c in children {
            assert!(c.wait_with_output().unwrap().status.success());
        }
        done.store(true, std::sync::atomic::Ordering::Relaxed);
        readers.into_iter().map(|r| r.join().unwrap()).sum::<usize>()
    });
    assert!(seen > 0);
    assert_eq!(cache.get(&ka), Some(a));
    assert_eq!(warnings_about(&path), 0);
    assert_eq!(temporaries(&d), Vec::<String>::new());
    let _ = std::fs::remove_dir_all(&d);
}

/// Every crash input of the cache_entries fuzz target (found here and in the 16-core run: a float record in
/// another spelling than the writer's — upper-case hex digits, a `+` sign, no last newline — was accepted),
/// read as the target reads it: the first byte picks the key (bits 0-1) and f64 (bit 2); with bit 4 set
/// the rest is a payload sealed under that key. Whatever is accepted must be exactly the writer's bytes.
#[test]
fn fuzz_found_entries_in_another_form_are_refused() {
    const KEYS: [&str; 4] = [
        "kernel=k\ncubin=00:0\nprofile=p\ntranslator=t\n",
        "kernel=other\n",
        "",
        "device=10de-2335-00000000-00\n",
    ];
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/cache-entries");
    let mut count = 0;
    for f in std::fs::read_dir(&dir).unwrap() {
        let input = std::fs::read(f.unwrap().path()).unwrap();
        let (head, rest) = input.split_first().unwrap();
        let (key, float64) = (KEYS[(head & 3) as usize], head & 4 != 0);
        let record = if head & 0x10 != 0 {
            seal(FLOAT_RECORD_MAGIC, key.as_bytes(), rest)
        } else {
            rest.to_vec()
        };
        if let Ok(samples) = parse_float_record(&record, key, float64) {
            assert_eq!(float_record_bytes(key, &samples), record, "{input:?}");
        }
        let module = if head & 0x10 != 0 { seal(SPIRV_MAGIC, key.as_bytes(), rest) } else { rest.to_vec() };
        if let Ok(words) = parse_entry(&module, key) {
            assert_eq!(entry_bytes(key, &words), module);
        }
        count += 1;
    }
    assert!(count >= 34, "{count} inputs");
    // And the writer's own form of such a record is accepted.
    let text = "fma_f32=0x337ffffe\ndenorm_sum_f32=0x00000002\nfma_f64=none\ndenorm_sum_f64=none\n";
    let sealed = seal(FLOAT_RECORD_MAGIC, KEYS[0].as_bytes(), text.as_bytes());
    let samples = parse_float_record(&sealed, KEYS[0], false).unwrap();
    assert_eq!(float_record_bytes(KEYS[0], &samples), sealed);
}

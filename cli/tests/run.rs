//! `sassport run` end to end on the default device (lavapipe in CI): saxpy from the corpus, outputs checked
//! against values computed here, the on-disk caches used by a second run, and typed refusals of bad input.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("sassport-run-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn sassport(cache: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_sassport"))
        .arg("run")
        .args(args)
        .env("XDG_CACHE_HOME", cache)
        .env("XDG_RUNTIME_DIR", cache)
        .output()
        .unwrap()
}

fn floats(path: &Path) -> Vec<f32> {
    std::fs::read(path).unwrap().chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

#[test]
fn saxpy_runs_writes_buffers_and_uses_the_cache_the_second_time() {
    let d = dir("saxpy");
    let n = 1000usize;
    let x: Vec<f32> = (0..n).map(|i| i as f32 * 0.5).collect();
    let y: Vec<f32> = (0..n).map(|i| 3.0 - i as f32).collect();
    let bytes = |v: &[f32]| v.iter().flat_map(|f| f.to_le_bytes()).collect::<Vec<u8>>();
    std::fs::write(d.join("x.bin"), bytes(&x)).unwrap();
    std::fs::write(d.join("y.bin"), bytes(&y)).unwrap();
    std::fs::write(d.join("out.bin"), vec![0u8; 4 * n]).unwrap();
    let cubin = sassport_corpus::root().join("sm86/saxpy.cubin");
    let arg = |p: &str| format!("buf:{}", d.join(p).display());
    let (ax, ay, aout, outdir) = (arg("x.bin"), arg("y.bin"), arg("out.bin"), d.join("results"));
    // saxpy(float a, const float *x, const float *y, float *out, int n)
    let args = [
        cubin.to_str().unwrap(),
        "--kernel",
        "saxpy",
        "--grid",
        "4",
        "--block",
        "256",
        "--arg",
        "f32:2.5",
        "--arg",
        &ax,
        "--arg",
        &ay,
        "--arg",
        &aout,
        "--arg",
        "i32:1000",
        "--out",
        outdir.to_str().unwrap(),
    ];
    let cache = d.join("cache");
    let first = sassport(&cache, &args);
    let text = String::from_utf8_lossy(&first.stdout);
    assert!(first.status.success(), "{text}{}", String::from_utf8_lossy(&first.stderr));
    assert!(text.starts_with("device: "), "{text}");
    assert!(text.contains("SASS instructions translated"), "{text}");
    // Every value is exact in f32 (multiples of 1/4 below 2^24), so the fused and unfused results agree.
    let want: Vec<f32> = x.iter().zip(&y).map(|(x, y)| 2.5 * x + y).collect();
    assert_eq!(floats(&outdir.join("arg3.bin")), want);
    // Inputs come back unchanged; scalar arguments write no file.
    assert_eq!(floats(&outdir.join("arg1.bin")), x);
    assert!(!outdir.join("arg0.bin").exists() && !outdir.join("arg4.bin").exists());

    let second = sassport(&cache, &args);
    let text = String::from_utf8_lossy(&second.stdout);
    assert!(second.status.success(), "{text}");
    assert!(text.contains("from the cache"), "{text}");
    assert_eq!(floats(&outdir.join("arg3.bin")), want);
}

#[test]
fn bad_arguments_are_refused_with_a_reason() {
    let d = dir("bad");
    let cubin = sassport_corpus::root().join("sm86/saxpy.cubin");
    let c = cubin.to_str().unwrap();
    let cases: [(&[&str], &str); 4] = [
        (&[c, "--kernel", "saxpy", "--arg", "f16:1"], "unknown kind"),
        (&[c, "--kernel", "saxpy", "--grid", "0"], "dimension of 0"),
        (&[c, "--kernel", "nope"], "no kernel `nope`"),
        (&[c, "--kernel", "saxpy", "--arg", "f32:1"], "takes 5 parameters, 1 given"),
    ];
    for (args, want) in cases {
        let out = sassport(&d, args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{args:?}");
        assert!(err.contains(want), "{args:?}: {err}");
    }
    // A parameter of the wrong size at an offset is named.
    let out = sassport(&d, &[c, "--kernel", "saxpy", "--arg", "f64:1", "--arg", "u64:0", "--arg", "u64:0", "--arg", "u64:0", "--arg", "i32:0"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("argument 0"), "{}", String::from_utf8_lossy(&out.stderr));
}

/// Issue 24, item 3, from the probe's reproducer: a bit flipped in the cached translated module used to give a
/// wrong result (or an LLVM abort) on every run until the file was deleted by hand. Now the damaged entry is
/// reported once, translated again and overwritten, and the next run uses the cache again.
#[test]
fn a_damaged_cached_module_is_translated_again_and_rewritten() {
    let d = dir("damaged");
    let n = 256usize;
    let x: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let bytes = |v: &[f32]| v.iter().flat_map(|f| f.to_le_bytes()).collect::<Vec<u8>>();
    std::fs::write(d.join("x.bin"), bytes(&x)).unwrap();
    std::fs::write(d.join("y.bin"), bytes(&vec![1.0; n])).unwrap();
    std::fs::write(d.join("out.bin"), vec![0u8; 4 * n]).unwrap();
    let cubin = sassport_corpus::root().join("sm86/saxpy.cubin");
    let arg = |p: &str| format!("buf:{}", d.join(p).display());
    let (ax, ay, aout, outdir) = (arg("x.bin"), arg("y.bin"), arg("out.bin"), d.join("results"));
    let args = [
        cubin.to_str().unwrap(), "--kernel", "saxpy", "--grid", "1", "--block", "256", "--arg", "f32:2",
        "--arg", &ax, "--arg", &ay, "--arg", &aout, "--arg", "i32:256", "--out", outdir.to_str().unwrap(),
    ];
    let want: Vec<f32> = x.iter().map(|x| 2.0 * x + 1.0).collect();
    let cache = d.join("cache");
    assert!(sassport(&cache, &args).status.success());
    let spirv_dir = cache.join("sassport/spirv");
    let entries: Vec<PathBuf> = std::fs::read_dir(&spirv_dir).unwrap().map(|e| e.unwrap().path()).collect();
    assert_eq!(entries.len(), 1, "{entries:?}");
    let clean = std::fs::read(&entries[0]).unwrap();
    // Bits in the middle of the module (an operand word) and in the hash.
    for at in [clean.len() / 2, clean.len() - 3] {
        let mut bad = clean.clone();
        bad[at] ^= 0x04;
        std::fs::write(&entries[0], &bad).unwrap();
        let out = sassport(&cache, &args);
        let (text, err) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        assert!(out.status.success(), "{text}{err}");
        assert!(!text.contains("from the cache"), "{text}");
        assert_eq!(err.matches("warning: cache entry").count(), 1, "{err}");
        assert_eq!(floats(&outdir.join("arg3.bin")), want);
        assert_eq!(std::fs::read(&entries[0]).unwrap(), clean, "rewritten");
        let again = sassport(&cache, &args);
        assert!(String::from_utf8_lossy(&again.stdout).contains("from the cache"));
        assert!(again.stderr.is_empty() || !String::from_utf8_lossy(&again.stderr).contains("warning"));
    }
}

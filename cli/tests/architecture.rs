//! Cubins for other SMs (issue 24, item 2): code whose encoding is not SM86's is refused by name by every
//! command that decodes code, and code for an SM measured compatible (docs/architectures.md) runs.
//!
//! The inputs are `saxpy.cu` from the corpus, compiled by the pinned nvcc 13.5.37 in `corpus/src`:
//! `corpus/sm90/saxpy.cubin` (`cargo xtask corpus`) and, in `cli/tests/data/`, `saxpy.sm80.cubin`,
//! `saxpy.sm87.cubin` and `saxpy.sm88.cubin` (`cd corpus/src && nvcc -cubin -arch=sm_80 -O3 -o
//! ../../cli/tests/data/saxpy.sm80.cubin saxpy.cu`, the same with sm_87 and sm_88; byte-identical when
//! rebuilt). Before the fix an sm_90 cubin was read as
//! SM86: `dis` printed other instructions than nvdisasm's and `run` exited 0 with zeros.

#[path = "../../translator/tests/support/mod.rs"]
mod support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn sassport(args: &[&str], home: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_sassport"))
        .args(args)
        .env("XDG_CACHE_HOME", home)
        .env("XDG_RUNTIME_DIR", home)
        .output()
        .unwrap()
}

fn dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("sassport-arch-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn sm90() -> PathBuf {
    sassport_corpus::root().join("sm90/saxpy.cubin")
}

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

/// `run` arguments for `saxpy(float a, const float *x, const float *y, float *out, int n)` with n = 256.
fn saxpy_run_args(cubin: &Path, d: &Path) -> Vec<String> {
    let n = 256usize;
    let floats =
        |f: &dyn Fn(usize) -> f32| (0..n).flat_map(|i| f(i).to_le_bytes()).collect::<Vec<u8>>();
    std::fs::write(d.join("x.bin"), floats(&|i| i as f32 * 0.5)).unwrap();
    std::fs::write(d.join("y.bin"), floats(&|i| 3.0 - i as f32)).unwrap();
    std::fs::write(d.join("out.bin"), vec![0u8; 4 * n]).unwrap();
    let buf = |p: &str| format!("buf:{}", d.join(p).display());
    let mut args: Vec<String> = vec!["run".into(), cubin.display().to_string()];
    for a in [
        "--kernel", "saxpy", "--grid", "1", "--block", "256", "--arg", "f32:2.5", "--arg",
    ] {
        args.push(a.into());
    }
    args.extend([
        buf("x.bin"),
        "--arg".into(),
        buf("y.bin"),
        "--arg".into(),
        buf("out.bin"),
    ]);
    args.extend([
        "--arg".into(),
        format!("i32:{n}"),
        "--out".into(),
        d.join("results").display().to_string(),
    ]);
    args
}

fn strings(args: &[String]) -> Vec<&str> {
    args.iter().map(String::as_str).collect()
}

/// A refusal: non-zero exit status, the typed error's text on stderr, no panic.
fn assert_refused(out: &Output, sm: u32, what: &str) {
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{what}: exit status 0 for sm_{sm}");
    assert!(
        err.contains(&format!("unsupported architecture sm_{sm}")),
        "{what}: {err}"
    );
    assert!(!err.contains("panicked"), "{what}: {err}");
}

#[test]
fn translate_refuses_sm90_by_name_and_writes_nothing() {
    let d = dir("translate90");
    let out_dir = d.join("out");
    let out = sassport(
        &[
            "translate",
            sm90().to_str().unwrap(),
            "-o",
            out_dir.to_str().unwrap(),
        ],
        &d,
    );
    assert_refused(&out, 90, "translate");
    let written = std::fs::read_dir(&out_dir).map(|r| r.count()).unwrap_or(0);
    assert_eq!(written, 0, "translate wrote files for an sm_90 cubin");
}

#[test]
fn dis_refuses_sm90_by_name() {
    let d = dir("dis90");
    let out = sassport(&["dis", sm90().to_str().unwrap()], &d);
    assert_refused(&out, 90, "dis");
    assert!(
        out.stdout.is_empty(),
        "dis printed {} bytes of sm_90 code as SM86",
        out.stdout.len()
    );
}

#[test]
fn run_refuses_sm90_by_name_and_writes_no_results() {
    let d = dir("run90");
    let args = saxpy_run_args(&sm90(), &d);
    let out = sassport(&strings(&args), &d);
    assert_refused(&out, 90, "run");
    assert!(
        !d.join("results").exists(),
        "run wrote results for an sm_90 cubin"
    );
}

#[test]
fn info_describes_sm90_but_says_it_is_unsupported() {
    let d = dir("info90");
    let out = sassport(&["info", sm90().to_str().unwrap()], &d);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains(": sm_90, executable,"), "{text}");
    assert!(
        text.contains("architecture sm_90 is not SM86-compatible"),
        "{text}"
    );
    assert!(text.contains("kernel saxpy\n"), "{text}");
    assert_refused(&out, 90, "info");
}

#[test]
fn sm80_is_refused_too() {
    // Close to SM86, but docs/architectures.md shows words that sm_80 reads differently.
    let d = dir("translate80");
    let out = sassport(
        &[
            "translate",
            data("saxpy.sm80.cubin").to_str().unwrap(),
            "-o",
            d.to_str().unwrap(),
        ],
        &d,
    );
    assert_refused(&out, 80, "translate");
    let out = sassport(&["dis", data("saxpy.sm80.cubin").to_str().unwrap()], &d);
    assert_refused(&out, 80, "dis");
}

#[test]
fn sm88_translates_and_runs_like_sm86() {
    let cubin = data("saxpy.sm88.cubin");
    let d = dir("sm88");
    let out_dir = d.join("spv");
    let out = sassport(
        &[
            "translate",
            cubin.to_str().unwrap(),
            "-o",
            out_dir.to_str().unwrap(),
        ],
        &d,
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for kernel in ["saxpy", "daxpy", "saxpy_grid_stride", "saxpy_vec4"] {
        assert!(text.contains(&format!("{kernel}: translated: ")), "{text}");
        let spv = std::fs::read(out_dir.join(format!("{kernel}.spv"))).unwrap();
        let words: Vec<u32> = spv
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        support::spirv_val(&words).unwrap();
    }

    // Launched on the test device, its results are the host's (every value exact in f32).
    let args = saxpy_run_args(&cubin, &d);
    let out = sassport(&strings(&args), &d);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let got: Vec<f32> = std::fs::read(d.join("results/arg3.bin"))
        .unwrap()
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    let want: Vec<f32> = (0..256)
        .map(|i| 2.5 * (i as f32 * 0.5) + (3.0 - i as f32))
        .collect();
    assert_eq!(got, want);
}

/// sm_87 passes the architecture check, and every word decodes (`dis --strict`). nvcc's sm_87 kernels begin
/// with a prologue it writes for no other SM (`ISETP ... UR2`, then `BMOV.32.CLEAR` of every convergence
/// barrier), which the translator refuses by name: a translation gap, reported as such.
#[test]
fn sm87_is_accepted_and_its_prologue_refused_by_name() {
    let cubin = data("saxpy.sm87.cubin");
    let d = dir("sm87");
    let out = sassport(&["dis", "--strict", cubin.to_str().unwrap()], &d);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("BMOV.32.CLEAR B1, B0 ;"));
    let out = sassport(
        &[
            "translate",
            cubin.to_str().unwrap(),
            "--kernel",
            "saxpy",
            "-o",
            d.to_str().unwrap(),
        ],
        &d,
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(!out.status.success());
    assert!(
        text.starts_with("saxpy: refused: BMOV.32 at .text.saxpy+0x20"),
        "{text}"
    );
    assert!(!String::from_utf8_lossy(&out.stderr).contains("unsupported architecture"));
}

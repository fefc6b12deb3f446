//! `sassport translate`: one line per kernel, `<kernel>.spv` files that spirv-val accepts, non-zero exit
//! status exactly when a kernel is refused, and refusals naming instruction and place.

#[path = "../../translator/tests/support/mod.rs"]
mod support;

use std::process::Command;

fn sassport() -> Command {
    Command::new(env!("CARGO_BIN_EXE_sassport"))
}

fn out_dir(tag: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("sassport-translate-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

#[test]
fn every_kernel_gets_one_line_and_valid_modules() {
    let cubin = sassport_corpus::root().join("sm86/saxpy.cubin");
    let dir = out_dir("all");
    let out = sassport().arg("translate").arg(&cubin).arg("-o").arg(&dir).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = text.lines().collect();
    let bytes = std::fs::read(&cubin).unwrap();
    let parsed = sassport_translator::Cubin::parse(&bytes).unwrap();
    assert_eq!(lines.len(), parsed.kernels.len(), "{text}");
    let mut refused = 0;
    for (line, k) in lines.iter().zip(&parsed.kernels) {
        let name = k.name();
        assert!(line.starts_with(&format!("{name}: ")), "{line}");
        let spv = dir.join(format!("{name}.spv"));
        if line.contains(": translated: ") {
            let data = std::fs::read(&spv).unwrap();
            let words: Vec<u32> = data.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
            support::spirv_val(&words).unwrap();
        } else {
            assert!(line.contains(": refused: "), "{line}");
            // A refusal names its place in the code.
            assert!(line.contains(&format!(".text.{name}+0x")), "{line}");
            assert!(!spv.exists(), "a refused kernel must not leave a module behind");
            refused += 1;
        }
    }
    assert_eq!(out.status.success(), refused == 0, "exit status must be non-zero exactly when a kernel is refused");
}

#[test]
fn unknown_kernel_is_an_error() {
    let cubin = sassport_corpus::root().join("sm86/saxpy.cubin");
    let out = sassport().arg("translate").arg(&cubin).args(["--kernel", "no_such_kernel", "-o"]).arg(out_dir("none")).output().unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("no_such_kernel"));
}

#[test]
fn malformed_cubin_is_an_error_not_a_panic() {
    let dir = out_dir("bad");
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.cubin");
    std::fs::write(&bad, b"\x7fELF not really").unwrap();
    let out = sassport().arg("translate").arg(&bad).arg("-o").arg(&dir).output().unwrap();
    assert!(!out.status.success());
    assert!(!String::from_utf8_lossy(&out.stderr).contains("panicked"));
}

//! `sassport info` as users run it: the built binary on corpus cubins, checked against cuobjdump's
//! `-elf` listing committed beside each cubin.

use std::collections::BTreeMap;
use std::process::Command;

fn sassport_info(path: &std::path::Path) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_sassport"))
        .arg("info")
        .arg(path)
        .output()
        .expect("sassport runs")
}

/// Kernel name -> sorted (ordinal, offset, size) from cuobjdump's `.nv.info.<kernel>` KPARAM_INFO lines.
fn cuobjdump_params(listing: &str) -> BTreeMap<String, Vec<(u64, u64, u64)>> {
    let mut out: BTreeMap<String, Vec<(u64, u64, u64)>> = BTreeMap::new();
    let mut current: Option<String> = None;
    for line in listing.lines() {
        if let Some(kernel) = line.strip_prefix(".nv.info.") {
            current = Some(kernel.to_owned());
            out.entry(kernel.to_owned()).or_default();
        } else if !line.starts_with('\t') && !line.is_empty() {
            current = None;
        } else if let (Some(kernel), true) = (&current, line.contains("Ordinal :")) {
            let field = |label: &str| {
                let rest = line
                    .split(label)
                    .nth(1)
                    .expect(label)
                    .trim_start_matches([' ', ':', '\t']);
                let hex = rest
                    .split_whitespace()
                    .next()
                    .expect("value")
                    .trim_start_matches("0x");
                u64::from_str_radix(hex, 16).expect("hex")
            };
            out.get_mut(kernel).expect("kernel").push((
                field("Ordinal"),
                field("Offset"),
                field("Size"),
            ));
        }
    }
    for params in out.values_mut() {
        params.sort();
    }
    // Relocatable (`-rdc`) cubins give device functions a `.nv.info.<function>` too: keep the entries, the
    // symbols cuobjdump marks `FUNC ... ENTRY`.
    let entries: Vec<&str> = listing
        .lines()
        .filter(|l| l.contains(" FUNC ") && l.contains(" ENTRY "))
        .filter_map(|l| l.split_whitespace().last())
        .collect();
    out.retain(|k, _| entries.contains(&k.as_str()));
    out
}

/// Kernel name -> (ordinal, offset, size) from `sassport info` output.
fn info_params(output: &str) -> BTreeMap<String, Vec<(u64, u64, u64)>> {
    let mut out: BTreeMap<String, Vec<(u64, u64, u64)>> = BTreeMap::new();
    let mut current = None;
    for line in output.lines() {
        if let Some(kernel) = line.strip_prefix("kernel ") {
            current = Some(kernel.to_owned());
            out.entry(kernel.to_owned()).or_default();
        } else if let (Some(kernel), Some(rest)) =
            (&current, line.trim_start().strip_prefix("param "))
        {
            let cols: Vec<&str> = rest.split_whitespace().collect();
            // "N offset 0x.. size 0x.."
            let hex = |s: &str| u64::from_str_radix(s.trim_start_matches("0x"), 16).expect("hex");
            let entry = (
                cols[0].parse().expect("ordinal"),
                hex(cols[2]),
                hex(cols[4]),
            );
            out.get_mut(kernel).expect("kernel").push(entry);
        }
    }
    out
}

#[test]
fn info_lists_every_kernel_and_parameter_like_cuobjdump() {
    let cubins = sassport_corpus::cubins();
    assert!(
        cubins.len() >= 5,
        "the corpus is missing (run `cargo xtask corpus`)"
    );
    let mut checked = 0;
    for cubin in &cubins {
        let output = sassport_info(cubin);
        let stdout = String::from_utf8(output.stdout).expect("UTF-8 output");
        assert!(
            output.status.success(),
            "{}: {}",
            cubin.display(),
            String::from_utf8_lossy(&output.stderr)
        );
        assert!(
            stdout.starts_with(&format!("cubin {}: sm_86, ", cubin.display())),
            "{stdout}"
        );
        let listing = std::fs::read_to_string(sassport_corpus::companion(cubin, ".elf.txt"))
            .expect("listing");
        let expected = cuobjdump_params(&listing);
        let ours = info_params(&stdout);
        assert_eq!(
            ours.keys().collect::<Vec<_>>(),
            expected.keys().collect::<Vec<_>>(),
            "{}: kernels",
            cubin.display()
        );
        assert_eq!(ours, expected, "{}: parameters", cubin.display());
        checked += ours.len();
        for kernel in ours.keys() {
            let block = stdout
                .split(&format!("kernel {kernel}\n"))
                .nth(1)
                .expect("kernel block");
            for label in [
                "registers",
                "shared",
                "frame",
                "max threads",
                "const bank 0",
                "exits",
            ] {
                assert!(
                    block.contains(&format!("\n  {label} ")),
                    "{}: {kernel} lacks {label}",
                    cubin.display()
                );
            }
        }
    }
    assert!(checked >= cubins.len(), "only {checked} kernels");
}

#[test]
fn info_refuses_a_file_that_is_not_a_cubin() {
    let path =
        std::env::temp_dir().join(format!("sassport-info-not-a-cubin-{}", std::process::id()));
    std::fs::write(&path, b"\x7fELF not really").expect("temp file");
    let output = sassport_info(&path);
    let _ = std::fs::remove_file(&path);
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("parsing") && stderr.contains("shorter than the 64-byte ELF header"),
        "{stderr}"
    );
}

//! The committed silicon goldens (`corpus/goldens/`, recorded by `record_silicon.py` on an NVIDIA H200)
//! against the manifest and the sm_90 cubins they were recorded from: every buffer argument of every launch
//! has a golden of the right size, the cubins are the ones recorded (FNV-1a fingerprints in RECORDED.txt),
//! and every input buffer a kernel does not write came back from the GPU exactly as the Rust generator
//! builds it — silicon's confirmation that the Python recorder and `inputs::generate` agree.

use sassport_corpus::{launches, Arg};
use std::collections::BTreeMap;

/// Input buffers that kernels update in place (atomics on thread-owned elements): (kernel, argument index).
const WRITTEN_INPUTS: [(&str, usize); 4] = [
    ("atomics_global_owned", 0),
    ("atomics_global_owned", 1),
    ("atomics_global_owned", 2),
    ("atomics_global_owned", 3),
];

const RECORD_HINT: &str =
    "record goldens on an NVIDIA GPU: python3 corpus/record_silicon.py (see corpus/README.md)";

fn fnv1a64(data: &[u8]) -> u64 {
    data.iter().fold(0xCBF2_9CE4_8422_2325u64, |h, &b| {
        (h ^ b as u64).wrapping_mul(0x0100_0000_01B3)
    })
}

/// `cubin sm90/<file>.cubin fnv1a64 <hex> ...` lines of RECORDED.txt.
fn recorded_fingerprints() -> BTreeMap<String, u64> {
    let path = sassport_corpus::root().join("goldens/RECORDED.txt");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e}; {RECORD_HINT}", path.display()));
    text.lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            match f.as_slice() {
                ["cubin", path, "fnv1a64", hash, ..] => {
                    Some((path.to_string(), u64::from_str_radix(hash, 16).ok()?))
                }
                _ => None,
            }
        })
        .collect()
}

#[test]
fn fingerprint_matches_the_python_definition() {
    // FNV-1a 64 reference values.
    assert_eq!(fnv1a64(b""), 0xCBF2_9CE4_8422_2325);
    assert_eq!(fnv1a64(b"a"), 0xAF63_DC4C_8601_EC8C);
}

#[test]
fn goldens_were_recorded_from_the_committed_sm90_cubins() {
    let recorded = recorded_fingerprints();
    let launches = launches().unwrap_or_else(|e| panic!("{e}"));
    for l in &launches {
        let rel = format!("sm90/{}.cubin", l.file);
        let bytes = std::fs::read(l.cubin_sm90()).expect("sm90 cubin");
        let Some(&hash) = recorded.get(&rel) else {
            panic!("{rel} has no recorded goldens; {RECORD_HINT}")
        };
        assert_eq!(
            hash,
            fnv1a64(&bytes),
            "{rel} changed since its goldens were recorded; {RECORD_HINT}"
        );
    }
}

#[test]
fn every_buffer_has_a_golden_and_untouched_inputs_match_the_generator() {
    let launches = launches().unwrap_or_else(|e| panic!("{e}"));
    let mut compared_inputs = 0;
    for l in &launches {
        for (index, arg) in l.args.iter().enumerate() {
            let Some(initial) = arg.initial_contents() else {
                continue;
            };
            let path = l.golden(index);
            let golden = std::fs::read(&path)
                .unwrap_or_else(|e| panic!("{}: {e}; {RECORD_HINT}", path.display()));
            assert_eq!(
                golden.len(),
                initial.len(),
                "{}: size differs from the manifest",
                path.display()
            );
            if matches!(arg, Arg::InBuffer { .. }) {
                let written = WRITTEN_INPUTS.contains(&(l.kernel.as_str(), index));
                assert_eq!(
                    golden != initial,
                    written,
                    "{}: input buffer {} by the kernel",
                    path.display(),
                    if written {
                        "expected to be written"
                    } else {
                        "unexpectedly changed"
                    }
                );
                compared_inputs += usize::from(!written);
            }
        }
    }
    assert!(
        compared_inputs > 100,
        "only {compared_inputs} input buffers compared"
    );
}

#[test]
fn outputs_are_not_all_zero() {
    // A launch that silently did nothing leaves its zero-filled outputs untouched.
    for l in launches().unwrap_or_else(|e| panic!("{e}")) {
        let any_written = l.args.iter().enumerate().any(|(index, arg)| {
            matches!(arg, Arg::OutBuffer { .. })
                && std::fs::read(l.golden(index)).is_ok_and(|g| g.iter().any(|&b| b != 0))
        });
        let has_out = l.args.iter().any(|a| matches!(a, Arg::OutBuffer { .. }));
        assert!(
            !has_out || any_written,
            "line {} ({}): every output golden is all zero",
            l.line,
            l.kernel
        );
    }
}

#[test]
fn no_stray_goldens() {
    // Uncommitted sources' goldens belong to their launches whether or not their cubins were built here.
    let launches = sassport_corpus::all_manifest_launches().unwrap_or_else(|e| panic!("{e}"));
    let expected: std::collections::BTreeSet<std::path::PathBuf> = launches
        .iter()
        .flat_map(|l| {
            (0..l.args.len())
                .filter(|&i| l.args[i].is_buffer())
                .map(|i| l.golden(i))
        })
        .collect();
    let dir = sassport_corpus::root().join("goldens");
    for entry in std::fs::read_dir(&dir).expect("goldens directory") {
        let path = entry.expect("entry").path();
        if path.file_name().is_some_and(|n| n == "RECORDED.txt") {
            continue;
        }
        assert!(
            expected.contains(&path),
            "{} belongs to no launch in launches.txt",
            path.display()
        );
    }
}

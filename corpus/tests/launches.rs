//! The launch manifest against the committed corpus: every kernel is launched exactly once, and each
//! launch's parameter layout is the one nvcc compiled (cuobjdump's EIATTR_KPARAM_INFO and
//! EIATTR_CBANK_PARAM_SIZE). Also checks that the Python silicon recorder parses the same manifest and
//! generates the same input bytes as the Rust side.

use sassport_corpus::{inputs, launches, Launch};
use std::collections::{BTreeMap, BTreeSet};
use std::process::Command;

/// Kernel names in a `nvdisasm` listing (entries carry `STO_CUDA_ENTRY`).
fn listed_kernels(sass: &str) -> BTreeSet<String> {
    sass.lines()
        .filter(|l| l.contains("STO_CUDA_ENTRY"))
        .filter_map(|l| {
            l.trim()
                .strip_prefix(".other")?
                .trim()
                .split(',')
                .next()
                .map(str::to_owned)
        })
        .collect()
}

/// Parameter info of one kernel from `cuobjdump -elf` text: ordinal -> (offset, size), and the bank size.
struct ElfParams {
    params: BTreeMap<u32, (u32, u32)>,
    cbank_param_size: Option<u32>,
}

fn hex(text: &str) -> u32 {
    u32::from_str_radix(text.trim().trim_start_matches("0x"), 16)
        .expect("hex number in cuobjdump output")
}

fn elf_params(elf: &str, kernel: &str) -> ElfParams {
    let header = format!(".nv.info.{kernel}");
    let mut lines = elf.lines().skip_while(|l| l.trim() != header).skip(1);
    let mut params = BTreeMap::new();
    let mut cbank_param_size = None;
    let mut attribute = String::new();
    for line in lines.by_ref() {
        let t = line.trim();
        if t.starts_with(".nv.info.") || t.starts_with(".section") || t.starts_with(".text.") {
            break;
        }
        if let Some(a) = t.strip_prefix("Attribute:") {
            attribute = a.trim().to_owned();
        } else if let Some(v) = t.strip_prefix("Value:") {
            if attribute == "EIATTR_CBANK_PARAM_SIZE" {
                cbank_param_size = Some(hex(v));
            } else if attribute == "EIATTR_KPARAM_INFO" {
                // "Index : 0x0	Ordinal : 0x3	Offset  : 0x28	Size    : 0x4"
                let field = |name: &str| {
                    let rest = &v[v.find(name).expect("KPARAM_INFO field") + name.len()..];
                    hex(rest
                        .trim_start()
                        .trim_start_matches(':')
                        .split_whitespace()
                        .next()
                        .expect("value"))
                };
                params.insert(field("Ordinal"), (field("Offset"), field("Size")));
            }
        }
    }
    ElfParams {
        params,
        cbank_param_size,
    }
}

fn manifest() -> Vec<Launch> {
    launches().unwrap_or_else(|e| panic!("{e}"))
}

/// The manifest and the launches still waiting for goldens (`launches.pending.txt`).
fn all_launches() -> Vec<Launch> {
    let mut all = manifest();
    all.extend(sassport_corpus::pending_launches().unwrap_or_else(|e| panic!("launches.pending.txt: {e}")));
    all
}

#[test]
fn every_corpus_kernel_is_launched_exactly_once() {
    let launches = all_launches();
    let mut launched: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for l in launches.iter().filter(|l| !sassport_corpus::is_unbuilt(&l.file)) {
        launched
            .entry(l.file.clone())
            .or_default()
            .insert(l.kernel.clone());
    }
    let cubins = sassport_corpus::cubins();
    assert!(
        cubins.len() >= 12,
        "expected the committed corpus, found {} cubins",
        cubins.len()
    );
    for cubin in &cubins {
        let stem = cubin.file_stem().unwrap().to_string_lossy().into_owned();
        let sass =
            std::fs::read_to_string(sassport_corpus::companion(cubin, ".sass")).expect("listing");
        let kernels = listed_kernels(&sass);
        assert!(!kernels.is_empty(), "{stem}: no kernels in the listing");
        assert_eq!(
            launched.remove(&stem).unwrap_or_default(),
            kernels,
            "{stem}: launched kernels differ from the cubin's"
        );
        let sm90 = sassport_corpus::root()
            .join("sm90")
            .join(format!("{stem}.cubin"));
        assert!(sm90.is_file(), "{} is missing", sm90.display());
    }
    assert!(
        launched.is_empty(),
        "launches of files with no cubin: {launched:?}"
    );
}

#[test]
fn parameter_layouts_match_what_nvcc_compiled() {
    for l in all_launches().into_iter().filter(|l| !sassport_corpus::is_unbuilt(&l.file)) {
        let elf = std::fs::read_to_string(sassport_corpus::companion(&l.cubin_sm86(), ".elf.txt"))
            .expect("elf dump");
        let info = elf_params(&elf, &l.kernel);
        let ours: BTreeMap<u32, (u32, u32)> = l
            .param_layout()
            .iter()
            .enumerate()
            .map(|(k, s)| (k as u32, (s.offset, s.size)))
            .collect();
        assert_eq!(
            ours, info.params,
            "line {} ({}): parameter layout differs from the cubin",
            l.line, l.kernel
        );
        assert_eq!(
            Some(l.param_size()),
            info.cbank_param_size,
            "line {} ({}): parameter size",
            l.line,
            l.kernel
        );
    }
}

#[test]
fn launch_shapes_are_sane() {
    for l in all_launches() {
        assert!(
            l.block.count() % 32 == 0,
            "line {}: block is not whole warps",
            l.line
        );
        assert!(
            l.args.iter().any(|a| a.is_buffer()),
            "line {}: no buffer to record",
            l.line
        );
        let total: usize = l
            .args
            .iter()
            .filter_map(|a| a.initial_contents())
            .map(|b| b.len())
            .sum();
        assert!(
            total <= 1 << 20,
            "line {}: buffers total {total} bytes; keep goldens small",
            l.line
        );
    }
}

fn python(args: &[&str]) -> String {
    let script = sassport_corpus::root().join("record_silicon.py");
    let out = Command::new("python3")
        .arg(&script)
        .args(args)
        .output()
        .expect(
            "python3 is needed (it is also what `cargo xtask tools` builds the NVIDIA venv with)",
        );
    assert!(
        out.status.success(),
        "record_silicon.py {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8")
}

#[test]
fn python_recorder_generates_the_same_inputs() {
    for seed in [0u64, 1, 2, 31, 32, 77, u64::MAX] {
        let count = 200;
        let printed = python(&["--print-words", &seed.to_string(), &count.to_string()]);
        let ours: Vec<String> = inputs::generate(4 * count, seed)
            .chunks_exact(4)
            .map(|c| format!("{:08x}", u32::from_le_bytes([c[0], c[1], c[2], c[3]])))
            .collect();
        assert_eq!(
            printed.split_whitespace().collect::<Vec<_>>(),
            ours,
            "seed {seed}"
        );
    }
}

#[test]
fn python_recorder_packs_the_same_parameters() {
    let printed = python(&["--parse-only"]);
    // The recorder lists every manifest line; the library leaves out launches of uncommitted sources whose
    // cubins were never built here (cuRAND's, `sassport_corpus::is_uncommitted`).
    let built = |stem: &str| {
        !sassport_corpus::is_uncommitted(stem) || sassport_corpus::root().join("sm86").join(format!("{stem}.cubin")).exists()
    };
    let theirs: Vec<&str> = printed.lines().filter(|l| built(l.split(' ').next().unwrap_or(""))).collect();
    let ours: Vec<String> = manifest()
        .iter()
        .map(|l| {
            let slots: Vec<String> = l
                .param_layout()
                .iter()
                .map(|s| format!("{}+{}", s.offset, s.size))
                .collect();
            format!("{} {} {}", l.file, l.kernel, slots.join(" "))
        })
        .collect();
    assert_eq!(theirs, ours);
}

//! The subgroup form (issues 6 and 7): for a device with 32-wide subgroups (NVIDIA's profile), every corpus
//! kernel with warp-synchronous instructions is translated in the structured form with its warps as
//! subgroups — no dispatch loop, no turns — and the module passes spirv-val; for lavapipe's 8-wide subgroups
//! the same kernels take the turns form and say why. Running the subgroup modules needs a 32-wide device (the
//! H200 run in docs/performance.md); lavapipe checks the turns form against the silicon goldens
//! (cli/tests/warp_goldens.rs).

mod support;

use sassport_translator::abi::DeviceProfile;
use sassport_translator::control::structured::Form;
use sassport_translator::translate::{translate_kernel, Options};
use sassport_translator::Cubin;

/// What an NVIDIA device reports: 32-wide subgroups with basic, vote, arithmetic, ballot, shuffle, shuffle
/// relative, clustered and quad operations, and maximal reconvergence.
fn nvidia() -> DeviceProfile {
    DeviceProfile {
        api_version: ash_version(1, 3),
        subgroup_size_control: true,
        subgroup_operations: 0xff,
        maximal_reconvergence: true,
        ..sassport_translator::lower::subgroup::warp_subgroup_profile()
    }
}

fn lavapipe() -> DeviceProfile {
    DeviceProfile { subgroup_size: 8, min_subgroup_size: 8, max_subgroup_size: 8, subgroup_operations: 0xff, ..nvidia() }
}

const fn ash_version(major: u32, minor: u32) -> u32 {
    (major << 22) | (minor << 12)
}

/// Kernels whose warp instructions the subgroup form does not take yet, with the reason they are in turns.
const IN_TURNS: &[&str] = &[];

#[test]
fn warp_kernels_structure_as_subgroups_on_32_wide_devices() {
    let mut subgroups = Vec::new();
    let mut failures = Vec::new();
    for path in sassport_corpus::cubins() {
        let bytes = std::fs::read(&path).unwrap();
        let cubin = Cubin::parse(&bytes).unwrap();
        for k in &cubin.kernels {
            let name = k.name();
            let on = |profile: DeviceProfile| {
                translate_kernel(&cubin, name, &Options { profile: Some(profile), ..Options::default() })
            };
            let Ok(narrow) = on(lavapipe()) else { continue };
            let Some(Form::Turns { why, .. }) = &narrow.report.form else { continue };
            assert!(why.contains("no 32-wide subgroups"), "{name}: in turns on lavapipe for another reason: {why}");
            let wide = match on(nvidia()) {
                Ok(t) => t,
                Err(e) => {
                    failures.push(format!("{name}: refused on a 32-wide device: {e}"));
                    continue;
                }
            };
            match &wide.report.form {
                Some(Form::Structured { warps_as_subgroups: true, report, .. }) => {
                    // The Debian spirv-tools (2023.1) predate SPV_KHR_maximal_reconvergence: validate the
                    // module made without it, and check that asking for it adds exactly its two instructions.
                    let plain = on(DeviceProfile { maximal_reconvergence: false, ..nvidia() }).unwrap();
                    if let Err(e) = support::spirv_val(&plain.words) {
                        failures.push(format!("{name}: spirv-val: {e}"));
                    }
                    let text = support::spirv_dis(&plain.words);
                    assert!(text.contains("SubgroupLocalInvocationId"), "{name}: no subgroup lanes in the module");
                    if let Err(e) = only_adds_maximal_reconvergence(&plain.words, &wide.words) {
                        failures.push(format!("{name}: {e}"));
                    }
                    subgroups.push(format!("{name}: {report}"));
                }
                other if IN_TURNS.contains(&name) => eprintln!("{name}: {other:?} (listed in IN_TURNS)"),
                other => failures.push(format!("{name}: not as subgroups: {}", other.as_ref().map_or("-".into(), |f| f.to_string()))),
            }
        }
    }
    eprintln!("{} warp kernels as subgroups:\n  {}", subgroups.len(), subgroups.join("\n  "));
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(subgroups.len() >= 16, "only {} warp kernels found", subgroups.len());
}

/// Splits a module after its header into instructions.
fn instructions(words: &[u32]) -> Vec<&[u32]> {
    let mut out = Vec::new();
    let mut at = 5;
    while at < words.len() {
        let n = (words[at] >> 16) as usize;
        assert!(n > 0 && at + n <= words.len(), "malformed module at word {at}");
        out.push(&words[at..at + n]);
        at += n;
    }
    out
}

/// `with` is `without` plus `OpExtension "SPV_KHR_maximal_reconvergence"` and
/// `OpExecutionMode %main MaximallyReconvergesKHR`.
fn only_adds_maximal_reconvergence(without: &[u32], with: &[u32]) -> Result<(), String> {
    const OP_EXTENSION: u32 = 10;
    const OP_EXECUTION_MODE: u32 = 16;
    const MAXIMALLY_RECONVERGES: u32 = 6023;
    let name: Vec<u8> = b"SPV_KHR_maximal_reconvergence".to_vec();
    let mut added = 0;
    let kept: Vec<&[u32]> = instructions(with)
        .into_iter()
        .filter(|i| {
            let op = i[0] & 0xffff;
            let ext = op == OP_EXTENSION && i[1..].iter().flat_map(|w| w.to_le_bytes()).take(name.len()).eq(name.iter().copied());
            let mode = op == OP_EXECUTION_MODE && i.get(2) == Some(&MAXIMALLY_RECONVERGES);
            added += usize::from(ext || mode);
            !(ext || mode)
        })
        .collect();
    if added != 2 {
        return Err(format!("{added} maximal-reconvergence instructions, expected 2"));
    }
    if kept != instructions(without) {
        return Err("the module with maximal reconvergence differs in more than its extension and mode".into());
    }
    Ok(())
}

//! Warp-synchronous kernels in the turns form (issue 7): every corpus kernel with SHFL, VOTE, VOTEU, MATCH,
//! REDUX, counted/named/reduction barriers, divergence branches, mbarrier waits or tensor-core instructions
//! (LDSM, MOVM, HMMA, IMMA, DMMA) is translated, validated
//! with spirv-val, run on the test device (lavapipe: 8-wide subgroups, so warps run in turns) and compared
//! with the outputs recorded on NVIDIA silicon (`corpus/goldens/`). A launch whose barrier counts can never
//! be met must end with a no-progress error naming kernel and pc instead of hanging.

mod common;
#[path = "../../translator/tests/support/mod.rs"]
mod support;

use sassport::golden::compare;
use sassport::kernel_run::{run_kernel, KernelArg, RunError};
use sassport_corpus::Launch;
use sassport_translator::control::structured::Form;
use sassport_translator::translate::{translate_kernel, Options};
use sassport_translator::Cubin;
use std::time::Duration;

const KERNELS: &[&str] = &[
    "shfl_modes",
    "shfl_partial",
    "shfl_reduce_broadcast",
    "warp_vote",
    "warp_match",
    "warp_reduce",
    "sync_predicates",
    "named_barriers",
    "syncwarp_exchange",
    "reduce_warp_shuffle",
    "scan_warp_exclusive",
    "histogram_bytes_aggregated",
    "atomics_system_scope",
    "atomics_global_contended",
    "atomics_shared",
    "mbarrier_handoff",
    "shfl_divergent_widths",
    "shfl_ptx_predicate",
    "vote_loop_break",
    "match_reduce_divergent",
    "barrier_counts_groups",
    "syncthreads_after_exit",
    "syncwarp_divergent",
    // Full-mask votes after early returns reach WARPSYNC 0xffffffff while the returning lanes wait at BSYNC
    // B0: silicon proceeds with the remaining lanes.
    "vote_after_return",
    "vote_uniform_modes",
    // Tensor cores (one 32-thread block each): LDSM, MOVM, HMMA, IMMA, DMMA.
    "wmma_f16_f32",
    "wmma_bf16_tf32",
    "wmma_s8_f64",
    "mma_ldmatrix_f16",
];

fn args(l: &Launch) -> Vec<KernelArg> {
    KernelArg::of_launch(l)
}

/// Translates `l`'s kernel, checks it is in the turns form and passes spirv-val.
fn translate_checked(l: &Launch) -> Result<Vec<u8>, String> {
    let bytes = std::fs::read(l.cubin_sm86()).map_err(|e| e.to_string())?;
    let cubin = Cubin::parse(&bytes).map_err(|e| e.to_string())?;
    let t = translate_kernel(&cubin, &l.kernel, &Options::default())
        .map_err(|e| format!("refused: {e}"))?;
    if !matches!(t.report.form, Some(Form::Turns { .. })) {
        return Err(format!("not in the turns form: {:?}", t.report.form));
    }
    support::spirv_val(&t.words).map_err(|e| format!("spirv-val: {e}"))?;
    Ok(bytes)
}

#[test]
fn warp_kernels_match_silicon_goldens() {
    let launches = sassport_corpus::launches().unwrap();
    let mut rt = common::runtime(Duration::from_secs(300));
    let mut failures = Vec::new();
    let mut summary = String::new();
    for name in KERNELS {
        let l = launches.iter().find(|l| l.kernel == *name).unwrap();
        let bytes = match translate_checked(l) {
            Ok(b) => b,
            Err(e) => {
                summary += &format!("{name}: {e}\n");
                failures.push(*name);
                continue;
            }
        };
        let grid = [l.grid.x, l.grid.y, l.grid.z];
        let block = [l.block.x, l.block.y, l.block.z];
        let run = match run_kernel(
            &mut rt,
            None,
            &bytes,
            name,
            grid,
            block,
            l.shared_bytes,
            &args(l),
        ) {
            Ok(r) => r,
            Err(e) => {
                summary += &format!("{name}: {e:#}\n");
                failures.push(*name);
                continue;
            }
        };
        let mut problems = String::new();
        let mut buffers = run.buffers.iter();
        for (index, a) in l.args.iter().enumerate() {
            if !a.is_buffer() {
                continue;
            }
            let got = buffers.next().unwrap();
            let want = std::fs::read(l.golden(index)).unwrap();
            let diff = compare(l.comparison, got, &want);
            if diff.mismatches > 0 {
                problems += &format!(
                    " arg{index}: {} differ ({})",
                    diff.mismatches,
                    diff.examples.join("; ")
                );
            }
        }
        if problems.is_empty() {
            summary += &format!("{name}: match\n");
        } else {
            summary += &format!("{name}: MISMATCH{problems}\n");
            failures.push(*name);
        }
    }
    eprintln!("{summary}");
    assert!(
        failures.is_empty(),
        "warp kernels not matching silicon: {failures:?}\n{summary}"
    );
}

/// `named_barriers` expects 128 threads at barrier 1 (warps 0-1 arrive, warps 2-3 wait). Launched with 96
/// threads per block, warp 2 waits at barrier 1 (`BAR.SYNC 0x1, 0x80` at 0xc0) for 32 threads that do not
/// exist, and warps 0-1 wait at `BAR.SYNC 0x0` (0x160) for warp 2: on silicon the block hangs; here the launch
/// must end with a no-progress error naming one of those barriers.
#[test]
fn unmeetable_barrier_reports_no_progress() {
    let launches = sassport_corpus::launches().unwrap();
    let l = launches
        .iter()
        .find(|l| l.kernel == "named_barriers")
        .unwrap();
    let bytes = translate_checked(l).unwrap();
    let mut rt = common::runtime(Duration::from_secs(300));
    let grid = [l.grid.x, l.grid.y, l.grid.z];
    let err = match run_kernel(
        &mut rt,
        None,
        &bytes,
        &l.kernel,
        grid,
        [96, 1, 1],
        l.shared_bytes,
        &args(l),
    ) {
        Ok(_) => panic!("a block whose barrier count cannot be met must not complete"),
        Err(RunError::Refused(r)) => panic!("refused: {r}"),
        Err(RunError::Other(e)) => format!("{e:#}"),
    };
    assert!(err.contains("no progress"), "a no-progress error: {err}");
    assert!(
        err.contains("pc 0xc0") || err.contains("pc 0x160"),
        "names a waiting barrier's pc: {err}"
    );
}

/// A module that runs warps as subgroups (translated for a 32-wide device) cannot load on lavapipe, whose
/// subgroups are 8 wide and cannot be made 32: the runtime refuses it by name instead of running lanes of a
/// warp in different subgroups.
#[test]
fn subgroup_module_is_refused_without_32_wide_subgroups() {
    let launches = sassport_corpus::launches().unwrap();
    let l = launches.iter().find(|l| l.kernel == "shfl_modes").unwrap();
    let bytes = std::fs::read(l.cubin_sm86()).unwrap();
    let cubin = Cubin::parse(&bytes).unwrap();
    let profile = sassport_translator::lower::subgroup::warp_subgroup_profile();
    let t = translate_kernel(&cubin, &l.kernel, &Options { profile: Some(profile), ..Options::default() }).unwrap();
    assert!(matches!(t.report.form, Some(Form::Structured { warps_as_subgroups: true, .. })), "{:?}", t.report.form);
    let mut rt = common::runtime(Duration::from_secs(60));
    assert!(rt.device().max_subgroup_size < 32, "the test device has 32-wide subgroups");
    match rt.load_kernel(&l.kernel, &t.words) {
        Err(sassport_runtime::RuntimeError::MissingFeature { missing, .. }) => {
            assert!(missing.contains("32-wide subgroups") && missing.contains("shfl_modes"), "{missing}");
        }
        other => panic!("expected a missing-feature error, got {:?}", other.map(|_| ())),
    }
}

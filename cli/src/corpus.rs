//! `sassport corpus`: the main job. Every launch of the shipped corpus (`corpus/launches.txt`) is translated,
//! run on the chosen Vulkan device and compared with the outputs recorded on NVIDIA silicon; one table row
//! per kernel. `compile` is the driver's pipeline creation (`Runtime::prepare`, wall time), `launch` the GPU
//! time of the kernel where the device has timestamp queries, else the host time of the launch. lavapipe
//! builds its LLVM code at the first dispatch, not at pipeline creation: there `launch` holds most of the
//! compile (math_f64_elementary: 26 s `compile`, 98 s `launch`; a second launch takes milliseconds).

use anyhow::{Context, Result};
use sassport::golden::compare;
use sassport::kernel_run::{default_spirv_cache, run_kernel, KernelArg, RunError};
use sassport_runtime::{DeviceSelector, Runtime, RuntimeOptions};

#[derive(clap::Args)]
pub struct Args {
    /// Vulkan device: an index from `sassport devices` or part of its name.
    #[arg(long, value_name = "N|NAME")]
    device: Option<String>,
    /// How kernels with warp instructions run their warps: as 32-wide subgroups where the device has them
    /// (auto), or in turns on any device.
    #[arg(long, value_enum, default_value_t = sassport::kernel_run::Warps::Auto)]
    warps: sassport::kernel_run::Warps,
    /// Translate even when the on-disk cache holds the module (and do not store it).
    #[arg(long)]
    no_cache: bool,
    /// Device features to do without, as if the device lacked them: float64 (soft double in integer
    /// arithmetic), int64-atomics, float16, int16, int8, subgroups-32 (warps in turns). Kernels needing a
    /// masked feature that has no emulation are refused by name.
    #[arg(long, value_name = "FEATURE,...", value_parser = sassport::kernel_run::parse_without)]
    without: Option<sassport_runtime::abi::Features>,
    /// Only kernels whose name contains this text.
    #[arg(long)]
    filter: Option<String>,
    /// Exit non-zero unless every kernel runs and matches silicon.
    #[arg(long)]
    strict: bool,
    /// Write the output buffers of kernels that differ from silicon to DIR (`<kernel>.arg<i>.bin`, named
    /// like the goldens in corpus/goldens) for a closer look.
    #[arg(long, value_name = "DIR")]
    keep_differing: Option<std::path::PathBuf>,
}

enum Verdict {
    Matches,
    /// Outputs match; the detail says what the kernel printed.
    MatchesPrinted(String),
    Differs(String),
    Refused(String),
    Failed(String),
}

pub fn run(args: Args) -> Result<()> {
    let launches = sassport_corpus::launches().context("reading the corpus manifest")?;
    let unbuilt = sassport_corpus::all_manifest_launches().context("reading the corpus manifest")?.len() - launches.len();
    if unbuilt > 0 {
        println!("{unbuilt} launches of uncommitted sources (cuRAND) skipped: not built here (`cargo xtask corpus`)");
    }
    let device = args.device.as_deref().map_or(DeviceSelector::Default, |d| d.parse().expect("infallible"));
    let mut rt = Runtime::new(RuntimeOptions {
        device,
        kernel_timing: true,
        warp_subgroups: args.warps == sassport::kernel_run::Warps::Auto,
        without: args.without.unwrap_or_default(),
        ..Default::default()
    })
        .context("opening the Vulkan device")?;
    println!("device: {}", rt.device().name);
    let cache = if args.no_cache { None } else { default_spirv_cache() };
    println!("{:<34} {:<16} {:>10} {:>10} {:>11}  detail", "kernel", "result", "translate", "compile", "launch");
    let (mut matched, mut differed, mut refused, mut failed, mut skipped) = (0, 0, 0, 0, 0);
    let cpu = rt.device().kind == sassport_runtime::DeviceKind::Cpu;
    for launch in launches.iter().filter(|l| args.filter.as_ref().is_none_or(|f| l.kernel.contains(f.as_str()))) {
        if cpu && launch.cpu_skip {
            skipped += 1;
            let why = "cpu=skip: too large for a CPU device's compiler or loop limit (corpus/launches.txt)";
            println!("{:<34} {:<16} {:>10} {:>10} {:>11}  {why}", launch.kernel, "not run", "-", "-", "-");
            continue;
        }
        let (verdict, times) = run_one(&mut rt, cache.as_ref(), launch, args.keep_differing.as_deref());
        let (label, detail) = match &verdict {
            Verdict::Matches => {
                matched += 1;
                ("matches silicon", String::new())
            }
            Verdict::MatchesPrinted(p) => {
                matched += 1;
                ("matches silicon", p.trim_start().to_string())
            }
            Verdict::Differs(d) => {
                differed += 1;
                ("DIFFERS", d.clone())
            }
            Verdict::Refused(r) => {
                refused += 1;
                ("refused", r.clone())
            }
            Verdict::Failed(e) => {
                failed += 1;
                ("FAILED", e.clone())
            }
        };
        let (t, c, k) = times.map_or(("-".into(), "-".into(), "-".into()), |(t, c, k)| {
            (format!("{:.1} ms", t * 1e3), format!("{:.2} s", c), format!("{:.3} ms", k * 1e3))
        });
        println!("{:<34} {:<16} {:>10} {:>10} {:>11}  {}", launch.kernel, label, t, c, k, first_line(&detail));
    }
    let total = matched + differed + refused + failed;
    let not_run = if skipped > 0 { format!("; {skipped} not run on this CPU device (cpu=skip)") } else { String::new() };
    println!(
        "\n{total} kernels: {matched} match silicon, {differed} differ, {refused} refused by the translator, {failed} failed{not_run}"
    );
    rt.save_pipeline_cache().ok();
    if args.strict && matched != total {
        anyhow::bail!("{} of {total} kernels did not match silicon", total - matched);
    }
    Ok(())
}

fn first_line(s: &str) -> &str {
    s.lines().next().unwrap_or("")
}

fn run_one(
    rt: &mut Runtime,
    cache: Option<&sassport_runtime::SpirvCache>,
    launch: &sassport_corpus::Launch,
    keep: Option<&std::path::Path>,
) -> (Verdict, Option<(f64, f64, f64)>) {
    let bytes = match std::fs::read(launch.cubin_sm86()) {
        Ok(b) => b,
        Err(e) => return (Verdict::Failed(format!("{}: {e}", launch.cubin_sm86().display())), None),
    };
    let args = KernelArg::of_launch(launch);
    let grid = [launch.grid.x, launch.grid.y, launch.grid.z];
    let block = [launch.block.x, launch.block.y, launch.block.z];
    let run = match run_kernel(rt, cache, &bytes, &launch.kernel, grid, block, launch.shared_bytes, &args) {
        Ok(run) => run,
        Err(RunError::Refused(r)) => return (Verdict::Refused(r), None),
        Err(RunError::Other(e)) => return (Verdict::Failed(format!("{e:#}")), None),
    };
    let times = Some((run.translate_time.as_secs_f64(), run.compile_time.as_secs_f64(), run.kernel_time.as_secs_f64()));
    // The silicon recording keeps output buffers only, not printf's text: report how much was printed.
    let printed = if run.printf.is_empty() {
        String::new()
    } else {
        format!(
            " (printf: {} records, {} lines{})",
            run.printf.records.len(),
            run.printf.text().lines().count(),
            if run.printf.dropped > 0 { format!(", {} lost", run.printf.dropped) } else { String::new() }
        )
    };
    let mut buffers = run.buffers.iter();
    let mut problems = Vec::new();
    for (index, arg) in launch.args.iter().enumerate() {
        if !arg.is_buffer() {
            continue;
        }
        let Some(got) = buffers.next() else { break };
        let golden = launch.golden(index);
        let want = match std::fs::read(&golden) {
            Ok(w) => w,
            Err(e) => return (Verdict::Failed(format!("{}: {e}", golden.display())), times),
        };
        let diff = compare(launch.comparison, got, &want);
        if diff.mismatches > 0 {
            if let Some(dir) = keep {
                let path = dir.join(format!("{}.arg{index}.bin", launch.kernel));
                if let Err(e) = std::fs::create_dir_all(dir).and_then(|()| std::fs::write(&path, got)) {
                    problems.push(format!("{}: {e}", path.display()));
                }
            }
            problems.push(format!(
                "arg{index}: {} of {} differ, e.g. {}",
                diff.mismatches,
                diff.checked,
                diff.examples.first().map_or("", String::as_str)
            ));
        }
    }
    if problems.is_empty() {
        (if printed.is_empty() { Verdict::Matches } else { Verdict::MatchesPrinted(printed) }, times)
    } else {
        (Verdict::Differs(problems.join("; ") + &printed), times)
    }
}

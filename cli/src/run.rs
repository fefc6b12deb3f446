//! `sassport run`: translate one kernel of a cubin and launch it on a Vulkan device.

use anyhow::{Context, Result};
use sassport::kernel_run::{default_spirv_cache, run_kernel, KernelArg, RunError};
use sassport::spec::{parse_arg, parse_dim3};
use sassport_runtime::{DeviceSelector, Runtime, RuntimeOptions};
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// The sm_86 cubin.
    cubin: PathBuf,
    /// The kernel to launch.
    #[arg(long)]
    kernel: String,
    /// Grid dimensions, X[,Y[,Z]].
    #[arg(long, default_value = "1")]
    grid: String,
    /// Block dimensions, X[,Y[,Z]].
    #[arg(long, default_value = "1")]
    block: String,
    /// Dynamic shared memory per block, in bytes.
    #[arg(long, default_value_t = 0)]
    shared: u32,
    /// A kernel argument, in order: i32:V, u32:V, i64:V, u64:V, f32:V, f64:V or buf:PATH.
    #[arg(long = "arg", value_name = "SPEC")]
    args: Vec<String>,
    /// Where buffer arguments are written after the launch, as `arg<i>.bin` (i: position among all --arg).
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
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
    /// Stop the launch and fail after this many seconds (0: never).
    #[arg(long, value_name = "SECONDS", default_value_t = 10.0)]
    timeout: f64,
}

pub fn run(args: Args) -> Result<()> {
    let grid = parse_dim3(&args.grid).context("--grid")?;
    let block = parse_dim3(&args.block).context("--block")?;
    let kernel_args: Vec<KernelArg> = args.args.iter().map(|s| parse_arg(s)).collect::<Result<_>>()?;
    let bytes = std::fs::read(&args.cubin).with_context(|| format!("reading {}", args.cubin.display()))?;
    let device = args.device.as_deref().map_or(DeviceSelector::Default, |d| d.parse().expect("infallible"));
    let mut rt = Runtime::new(RuntimeOptions {
        device,
        kernel_timing: true,
        warp_subgroups: args.warps == sassport::kernel_run::Warps::Auto,
        without: args.without.unwrap_or_default(),
        launch_timeout: (args.timeout > 0.0)
            .then(|| std::time::Duration::try_from_secs_f64(args.timeout))
            .transpose()
            .context("--timeout")?,
        ..Default::default()
    })
        .context("opening the Vulkan device")?;
    println!("device: {}", rt.device().name);
    let cache = if args.no_cache { None } else { default_spirv_cache() };
    let run = match run_kernel(&mut rt, cache.as_ref(), &bytes, &args.kernel, grid, block, args.shared, &kernel_args) {
        Ok(run) => run,
        Err(RunError::Refused(reason)) => anyhow::bail!("{}: {reason}", args.kernel),
        Err(RunError::Other(e)) => {
            // What the kernel printed before it failed, as CUDA still shows it.
            print_printf(&rt.take_failed_launch_printf());
            return Err(e.context(format!("running {}", args.kernel)));
        }
    };
    if run.cached {
        println!("{}: translated module from the cache ({} words)", args.kernel, run.translation.words.len());
    } else {
        let r = &run.translation.report;
        println!(
            "{}: {} SASS instructions translated in {:.2} ms ({} words; {})",
            args.kernel,
            r.instructions,
            run.translate_time.as_secs_f64() * 1e3,
            r.words,
            r.form.as_ref().map_or_else(|| "form unknown".to_string(), ToString::to_string)
        );
    }
    print_printf(&run.printf);
    println!("{}: kernel time {:.3} ms", args.kernel, run.kernel_time.as_secs_f64() * 1e3);
    if let Some(dir) = &args.out {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        let mut buffers = run.buffers.iter();
        for (i, arg) in kernel_args.iter().enumerate() {
            if matches!(arg, KernelArg::Buffer(_)) {
                let data = buffers.next().context("a buffer went missing")?;
                let path = dir.join(format!("arg{i}.bin"));
                std::fs::write(&path, data).with_context(|| format!("writing {}", path.display()))?;
                println!("wrote {}", path.display());
            }
        }
    }
    rt.save_pipeline_cache().ok();
    Ok(())
}

/// Device printf output to stdout, as the CUDA driver prints it; losses and malformed records to stderr.
fn print_printf(out: &sassport_runtime::PrintfOutput) {
    use std::io::Write;
    let mut stdout = std::io::stdout().lock();
    let _ = stdout.write_all(out.text().as_bytes());
    let _ = stdout.flush();
    if out.dropped > 0 {
        eprintln!("warning: {} printf records did not fit in the printf buffer and were lost", out.dropped);
    }
    if let Some(p) = &out.problem {
        eprintln!("warning: printf records after this one are unreadable: {p}");
    }
}

//! `sassport info`: each kernel of a cubin with its parameters and resources, then the device functions.
//! A cubin for an SM whose code sassport cannot decode is described all the same, with a line saying so,
//! and the command then fails with `UnsupportedArchitecture` (as `dis`, `translate` and `run` do at once).

use std::fmt::Write as _;

use anyhow::Context as _;
use sassport_translator::cubin::{Cubin, Function, Kernel, SM86_COMPATIBLE};

#[derive(clap::Args)]
pub struct Args {
    /// The cubin to describe.
    pub cubin: std::path::PathBuf,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let bytes =
        std::fs::read(&args.cubin).with_context(|| format!("reading {}", args.cubin.display()))?;
    let cubin = Cubin::parse_any_architecture(&bytes)
        .with_context(|| format!("parsing {}", args.cubin.display()))?;
    print!("{}", describe(&args.cubin.display().to_string(), &cubin));
    cubin
        .check_architecture()
        .with_context(|| format!("{} cannot be translated, run or disassembled", args.cubin.display()))?;
    Ok(())
}

/// The report, in a fixed line-oriented format: one `kernel` block per kernel, one `function` line per
/// device function.
fn describe(path: &str, cubin: &Cubin<'_>) -> String {
    let mut out = String::new();
    let kind = match cubin.elf_type {
        1 => "relocatable",
        2 => "executable",
        _ => "other",
    };
    let _ = writeln!(
        out,
        "cubin {path}: sm_{}, {kind}, {} kernel(s), {} device function(s)",
        cubin.sm,
        cubin.kernels.len(),
        cubin.device_functions.len()
    );
    if cubin.check_architecture().is_err() {
        let _ = writeln!(
            out,
            "architecture sm_{} is not SM86-compatible (sassport decodes {}): translate, run and dis refuse it",
            cubin.sm,
            compatible_list()
        );
    }
    for kernel in &cubin.kernels {
        out.push('\n');
        describe_kernel(&mut out, cubin, kernel);
    }
    if !cubin.device_functions.is_empty() {
        out.push('\n');
    }
    for function in &cubin.device_functions {
        describe_function(&mut out, function);
    }
    if !cubin.variables.is_empty() {
        out.push('\n');
    }
    for v in &cubin.variables {
        let init = if v.initial.is_some() {
            "initialised"
        } else {
            "zeroed"
        };
        let _ = writeln!(
            out,
            "variable {}  {} +{:#x}, {:#x} bytes, {init}",
            v.name, v.section_name, v.offset, v.size
        );
    }
    out
}

fn describe_kernel(out: &mut String, cubin: &Cubin<'_>, kernel: &Kernel<'_>) {
    let f = &kernel.function;
    let info = &kernel.info;
    let _ = writeln!(out, "kernel {}", f.name);
    let _ = writeln!(
        out,
        "  code          {} +{:#x}, {:#x} bytes",
        f.section_name, f.offset, f.size
    );
    let block = match (info.param_size, info.param_bank) {
        (Some(size), Some(bank)) => format!(", {size:#x} bytes at c[0x0][{:#x}]", bank.offset),
        (Some(size), None) => format!(", {size:#x} bytes"),
        _ => String::new(),
    };
    let _ = writeln!(out, "  params        {}{block}", info.params.len());
    for p in &info.params {
        let space = if p.in_shared_memory {
            "  (shared memory)"
        } else {
            ""
        };
        let _ = writeln!(
            out,
            "    param {:<3} offset {:#06x}  size {:#x}{space}",
            p.ordinal, p.offset, p.size
        );
    }
    let _ = writeln!(out, "  registers     {}", kernel.registers());
    let _ = writeln!(out, "  shared        {:#x} bytes", kernel.shared_size);
    let _ = writeln!(out, "  frame         {:#x} bytes", kernel.frame_size());
    let _ = writeln!(
        out,
        "  min stack     {}",
        opt_hex(f.resources.min_stack_size)
    );
    if let Some(max) = f.resources.max_stack_size {
        let _ = writeln!(out, "  max stack     {max:#x}");
    }
    let _ = writeln!(out, "  max threads   {}", opt_dim(info.max_threads));
    if let Some(req) = info.required_threads {
        let _ = writeln!(out, "  req threads   {}", opt_dim(Some(req)));
    }
    let _ = writeln!(
        out,
        "  max registers {}",
        info.max_reg_count.map_or("-".to_owned(), |r| r.to_string())
    );
    let _ = writeln!(out, "  barriers      {}", info.num_barriers.unwrap_or(0));
    if let Some(mbarriers) = info.num_mbarriers {
        let _ = writeln!(out, "  mbarriers     {mbarriers}");
    }
    let _ = writeln!(
        out,
        "  const bank 0  {}",
        kernel
            .constant0
            .map_or("-".to_owned(), |c| format!("{:#x} bytes", c.len()))
    );
    for bank in cubin
        .constant_banks
        .iter()
        .filter(|b| b.bank != 0 && b.function == Some(f.name))
    {
        let _ = writeln!(out, "  const bank {:<2} {:#x} bytes", bank.bank, bank.size);
    }
    let _ = writeln!(out, "  exits         {}", offsets(&info.exit_offsets));
    if !info.s2r_ctaid_offsets.is_empty() {
        let _ = writeln!(out, "  s2r ctaid     {}", offsets(&info.s2r_ctaid_offsets));
    }
    let _ = writeln!(
        out,
        "  ctaid.z used  {}",
        if info.ctaid_z_used { "yes" } else { "no" }
    );
    if info.wmma_used {
        let _ = writeln!(out, "  wmma used     yes");
    }
    for branch in &info.indirect_branches {
        let _ = writeln!(
            out,
            "  indirect      {:#x} -> {}",
            branch.offset,
            offsets(&branch.targets)
        );
    }
    let undecoded: Vec<String> = info
        .undecoded()
        .map(|a| {
            a.name()
                .map_or_else(|| format!("EIATTR_{:#04x}", a.id), str::to_owned)
        })
        .collect();
    if !undecoded.is_empty() {
        let _ = writeln!(out, "  other attrs   {}", undecoded.join(" "));
    }
}

fn describe_function(out: &mut String, f: &Function<'_>) {
    let _ = writeln!(
        out,
        "function {}  {} +{:#x}, {:#x} bytes, registers {}, frame {}",
        f.name,
        f.section_name,
        f.offset,
        f.size,
        f.resources
            .registers
            .map_or("-".to_owned(), |r| r.to_string()),
        opt_hex(f.resources.frame_size),
    );
}

fn compatible_list() -> String {
    SM86_COMPATIBLE.iter().map(|sm| format!("sm_{sm}")).collect::<Vec<_>>().join(", ")
}

fn opt_hex(value: Option<u32>) -> String {
    value.map_or("-".to_owned(), |v| format!("{v:#x}"))
}

fn opt_dim(value: Option<[u32; 3]>) -> String {
    value.map_or("-".to_owned(), |[x, y, z]| format!("{x}x{y}x{z}"))
}

fn offsets(list: &[u32]) -> String {
    let mut s = list.len().to_string();
    if !list.is_empty() {
        s.push_str(" at");
        for o in list {
            let _ = write!(s, " {o:#x}");
        }
    }
    s
}

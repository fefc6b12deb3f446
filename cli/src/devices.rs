//! `sassport devices`: the Vulkan devices sassport can use, what each can do, and which one it picks.

use anyhow::Context;
use sassport_runtime::{
    choose_device, enumerate_devices, format_api_version, DeviceInfo, DeviceSelector,
    PipelineCacheLocation, Runtime, RuntimeOptions,
};

#[derive(clap::Args)]
pub struct Args {
    /// Device to mark as selected (and to measure): an index from this list or part of a name.
    #[arg(long, value_name = "N|NAME")]
    device: Option<String>,
    /// Run the float self-test on the selected device (is Fma fused, are denormals preserved).
    #[arg(long)]
    measure: bool,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let devices = enumerate_devices().context("cannot list Vulkan devices")?;
    let selector: DeviceSelector = match &args.device {
        Some(d) => d.parse().expect("infallible"),
        None => DeviceSelector::Default,
    };
    let chosen = choose_device(&devices, &selector);
    if devices.is_empty() {
        anyhow::bail!("no Vulkan device found (is a Vulkan driver installed?)");
    }
    let chosen_index = chosen.as_ref().ok().map(|d| d.index);
    for d in &devices {
        print_device(d, chosen_index == Some(d.index), args.device.is_some());
    }
    let chosen = chosen.context("no usable device")?;
    if args.measure {
        let mut rt = Runtime::new(RuntimeOptions {
            device: DeviceSelector::Index(chosen.index),
            window_bytes: Some(1 << 20),
            pipeline_cache: PipelineCacheLocation::Disabled,
            ..Default::default()
        })?;
        let m = rt.measure_float()?;
        let show = |v: Option<bool>| match v {
            Some(true) => "yes",
            Some(false) => "no",
            None => "not measured",
        };
        println!("measured on [{}] {}:", chosen.index, chosen.name);
        println!("    Fma f32 fused: {}", show(m.fma_f32_fused));
        println!("    Fma f64 fused: {}", show(m.fma_f64_fused));
        println!(
            "    f32 denormals preserved without float controls: {}",
            show(m.denorm_f32_preserved)
        );
        println!(
            "    f64 denormals preserved without float controls: {}",
            show(m.denorm_f64_preserved)
        );
    }
    Ok(())
}

fn yes(b: bool) -> &'static str {
    if b {
        "yes"
    } else {
        "no"
    }
}

fn per_width(v: [bool; 3]) -> String {
    format!("{}/{}/{}", yes(v[0]), yes(v[1]), yes(v[2]))
}

fn print_device(d: &DeviceInfo, chosen: bool, explicit: bool) {
    let mark = match (chosen, explicit) {
        (true, true) => "  (selected)",
        (true, false) => "  (default)",
        _ => "",
    };
    println!("[{}] {}{mark}", d.index, d.name);
    println!(
        "    type {}, Vulkan {}, driver {} ({}), vendor 0x{:04x}, device 0x{:04x}",
        d.kind,
        format_api_version(d.api_version),
        if d.driver_name.is_empty() {
            "?"
        } else {
            &d.driver_name
        },
        d.driver_info,
        d.vendor_id,
        d.device_id
    );
    let p = d.profile();
    println!(
        "    subgroup size {} (selectable {}..{}, size control {}), operations 0x{:x}, maximal reconvergence {}; warps run {}",
        d.subgroup_size,
        p.min_subgroup_size,
        p.max_subgroup_size,
        yes(p.subgroup_size_control),
        p.subgroup_operations,
        yes(p.maximal_reconvergence),
        if sassport_translator::lower::subgroup::device_supports(&p) { "as 32-wide subgroups" } else { "in turns" }
    );
    let l = &d.limits;
    println!(
        "    shared memory {} B, storage buffer range {} B, uniform buffer range {} B, uniform buffers per stage {}",
        l.max_shared_memory_bytes, l.max_storage_buffer_range, l.max_uniform_buffer_range, l.max_per_stage_uniform_buffers
    );
    println!(
        "    workgroup size {}x{}x{}, {} invocations; workgroup count {}x{}x{}",
        l.max_workgroup_size[0],
        l.max_workgroup_size[1],
        l.max_workgroup_size[2],
        l.max_workgroup_invocations,
        l.max_workgroup_count[0],
        l.max_workgroup_count[1],
        l.max_workgroup_count[2]
    );
    let f = &d.features;
    println!(
        "    Int64 {}, Float64 {}, Int16 {}, Float16 {}, Int8 {}, Int64 atomics {}, Vulkan memory model {}",
        yes(f.int64),
        yes(f.float64),
        yes(f.int16),
        yes(f.float16),
        yes(f.int8),
        yes(f.int64_atomics),
        yes(f.vulkan_memory_model)
    );
    let fc = &d.float_controls;
    println!(
        "    float controls (f16/f32/f64): denorm preserve {}, denorm flush {}, signed-zero/inf/nan preserve {}, RTE {}, RTZ {}",
        per_width(fc.denorm_preserve),
        per_width(fc.denorm_flush_to_zero),
        per_width(fc.signed_zero_inf_nan_preserve),
        per_width(fc.rounding_rte),
        per_width(fc.rounding_rtz)
    );
    match d.check_requirements() {
        Ok(()) => println!("    usable: yes"),
        Err(e) => println!("    usable: no: {e}"),
    }
}

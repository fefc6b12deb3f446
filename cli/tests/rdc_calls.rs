//! Relocatable device code (`corpus/src/rdc_calls.cu`, compiled with `-rdc=true`) end to end on lavapipe,
//! against results computed here from the inputs: calls whose callee is a relocation (`CALL.ABS.NOINC` with
//! `R_CUDA_ABS47_34`), nested calls between functions in their own sections, relocated return addresses read
//! back by `RET.ABS.NODEC`, a constant-bank variable and shared variables (the kernel's and a device
//! function's) reached through relocated operands; a device function's fp64 constants in its own bank 2 and
//! `__device__` variables' relocated addresses (`rdc_data.cu`), through the bank the linker merges; cp.async
//! into a relocated shared array and a relocated operand with an addend (`rdc_shared.cu`). A call to
//! a function another file defines is refused by name (`cli/tests/data/rdc_cases.cu`), with the section
//! and offset of the instruction.

mod common;

use sassport::kernel_run::{run_kernel, KernelArg};
use sassport_corpus::inputs::generate;
use sassport_translator::error::TranslateError;
use sassport_translator::translate::{translate_kernel, Options};
use sassport_translator::Cubin;
use std::time::Duration;

fn cubin() -> Vec<u8> {
    std::fs::read(format!("{}/../corpus/sm86/rdc_calls.cubin", env!("CARGO_MANIFEST_DIR"))).expect("corpus cubin")
}

fn words(b: &[u8]) -> Vec<u32> {
    b.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

/// `rdc_table` of the source.
const TABLE: [u32; 16] = [
    0x9e3779b9, 0x7f4a7c15, 0x85ebca6b, 0xc2b2ae35, 0x27d4eb2f, 0x165667b1, 0xd3a2646c, 0xfd7046c5, 0xb55a4f09,
    0x94d049bb, 0xbf58476d, 0x1b873593, 0xcc9e2d51, 0xe6546b64, 0x5bd1e995, 0x68e31da4,
];

fn mix(x: u32, k: u32) -> u32 {
    ((x ^ (x >> 7)).wrapping_mul(0x2545_f491))
        .wrapping_add(k.wrapping_mul(0x0100_0193))
        .wrapping_add(TABLE[(x.wrapping_add(k) & 15) as usize])
}

fn mix_twice(x: u32) -> u32 {
    let a = mix(x, 1);
    let b = mix(a, 2);
    b ^ mix(x ^ b, 3)
}

fn gcd(a: u32, b: u32) -> u32 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// What thread `i` of the launch writes (`n` threads have inputs; the rest read 0 and write nothing).
fn expected(x: &[u32], n: usize) -> Vec<u32> {
    let value = |i: usize| if i < n { x[i] } else { 0 };
    let mut out = vec![0u32; 4 * x.len()];
    for i in 0..n {
        let (base, t) = (i / 128 * 128, i % 128);
        let xi = value(i);
        let a = mix_twice(xi);
        let b = if xi & 1 != 0 { mix(xi, 7) } else { 0 };
        let own = mix_twice(value(base + (t ^ 3)));
        let neighbours = value(base + (t ^ 1)).wrapping_add(3u32.wrapping_mul(value(base + ((t + 5) & 127))));
        let c = own.wrapping_add(neighbours);
        let d = gcd((xi & 0xffff) | 1, (a & 0xffff) | 1);
        out[4 * i..4 * i + 4].copy_from_slice(&[a, b, c, d]);
    }
    out
}

#[test]
fn relocated_calls_shared_and_constant_variables() {
    let mut rt = common::runtime(Duration::from_secs(300));
    let input = generate(1024, 1801);
    let x = words(&input);
    let args = [
        KernelArg::Buffer(input),
        KernelArg::Buffer(vec![0; 4096]),
        KernelArg::Value { bytes: 250i32.to_le_bytes().to_vec(), align: 4 },
    ];
    let r = run_kernel(&mut rt, None, &cubin(), "rdc_calls", [2, 1, 1], [128, 1, 1], 0, &args)
        .unwrap_or_else(|e| panic!("rdc_calls: {e:#}"));
    let out = words(&r.buffers[1]);
    let want = expected(&x, 250);
    for i in 0..256 {
        assert_eq!(&out[4 * i..4 * i + 4], &want[4 * i..4 * i + 4], "thread {i}");
    }
}

fn rdc_poly(x: f64) -> f64 {
    let p = x.mul_add(0.0123456789012345, -0.3183098861837907);
    let p = p.mul_add(x, 1.4142135623730951);
    let p = p.mul_add(x, -2.718281828459045);
    p.mul_add(x, 0.5772156649015329) * 1.2020569031595942
}

const WEIGHTS: [u32; 8] = [3, 1, 4, 1, 5, 9, 2, 6];

#[test]
fn linked_constants_and_device_variables() {
    let bytes = std::fs::read(format!("{}/../corpus/sm86/rdc_data.cubin", env!("CARGO_MANIFEST_DIR"))).expect("cubin");
    let mut rt = common::runtime(Duration::from_secs(300));
    let input = generate(1024, 1802);
    let x = words(&input);
    let args = [
        KernelArg::Buffer(input),
        KernelArg::Buffer(vec![0; 2048]),
        KernelArg::Buffer(vec![0; 2048]),
        KernelArg::Value { bytes: 250i32.to_le_bytes().to_vec(), align: 4 },
    ];
    // `.nv.global` of a relocatable cubin (type 0x70000007) has no bytes in the file: rdc_slots starts zeroed,
    // not as whatever bytes follow its file offset.
    let cubin = Cubin::parse(&bytes).expect("cubin");
    assert!(cubin.section(".nv.global").expect(".nv.global").data.is_empty());
    assert!(cubin.variables.iter().any(|v| v.name == "rdc_slots" && v.initial.is_none()));
    assert!(cubin.variables.iter().any(|v| v.name == "rdc_weights" && v.initial.is_some()));
    let r = run_kernel(&mut rt, None, &bytes, "rdc_data", [2, 1, 1], [128, 1, 1], 0, &args)
        .unwrap_or_else(|e| panic!("rdc_data: {e:#}"));
    let value = |i: usize| if i < 250 { x[i] } else { 0 };
    let y: Vec<u64> = r.buffers[1].chunks_exact(8).map(|c| u64::from_le_bytes(c.try_into().unwrap())).collect();
    let w = words(&r.buffers[2]);
    for i in 0..256 {
        if i >= 250 {
            assert_eq!((y[i], w[2 * i], w[2 * i + 1]), (0, 0, 0), "thread {i}");
            continue;
        }
        let xf = f64::from(value(i) & 0xfffff) * (1.0 / 1_048_576.0);
        assert_eq!(y[i], rdc_poly(xf).to_bits(), "rdc_poly, thread {i}");
        let j = i ^ 1;
        assert_eq!(w[2 * i], value(j).wrapping_mul(WEIGHTS[j & 7]), "rdc_slots, thread {i}");
        assert_eq!(w[2 * i + 1], WEIGHTS[(i + 3) & 7], "rdc_weights, thread {i}");
    }
}

#[test]
fn relocated_shared_operands_and_cp_async() {
    let bytes = std::fs::read(format!("{}/../corpus/sm86/rdc_shared.cubin", env!("CARGO_MANIFEST_DIR"))).expect("cubin");
    let mut rt = common::runtime(Duration::from_secs(300));
    let input = generate(1024, 1804);
    let x = words(&input);
    let args = [
        KernelArg::Buffer(input),
        KernelArg::Buffer(vec![0; 2048]),
        KernelArg::Value { bytes: 250i32.to_le_bytes().to_vec(), align: 4 },
    ];
    let r = run_kernel(&mut rt, None, &bytes, "rdc_shared", [2, 1, 1], [128, 1, 1], 0, &args)
        .unwrap_or_else(|e| panic!("rdc_shared: {e:#}"));
    let out = words(&r.buffers[1]);
    // later[t] = in[block * 128 + (t * 5) % 128] (cp.async), first[t] = 3t.
    let a = |block: usize, t: usize| {
        let s = (t + 7) & 127;
        x[block * 128 + ((s * 5) & 127)].wrapping_add(3 * ((t * 7) & 63) as u32)
    };
    for i in 0..256 {
        let (block, t) = (i / 128, i % 128);
        let want = if i >= 250 {
            [0, 0]
        } else if t == 0 {
            [a(block, 0), 0x5a5a_5a5a]
        } else {
            [a(block, t), a(block, t - 1) ^ (t as u32 - 1)]
        };
        assert_eq!(&out[2 * i..2 * i + 2], &want, "thread {i}");
    }
}

/// The linked words of `rdc_data` where relocations were, as the generated formatter prints them; each
/// expected line is what nvdisasm 13.5.37 (`nvdisasm -b SM86` on the linked image) printed for that word.
#[test]
fn linked_words_print_like_nvdisasm() {
    let bytes = std::fs::read(format!("{}/../corpus/sm86/rdc_data.cubin", env!("CARGO_MANIFEST_DIR"))).expect("cubin");
    let cubin = Cubin::parse(&bytes).expect("cubin");
    let linked = cubin.link_kernel(cubin.kernel("rdc_data").expect("kernel"));
    let text = |offset: usize| {
        let w = u128::from_le_bytes(linked.bytes[offset..offset + 16].try_into().unwrap());
        let i = sassport_gen::decode(sassport_gen::Word(w)).expect("decodes");
        i.text(offset as u64, sassport_gen::TargetStyle::Absolute)
    };
    let expect = [
        (0x0f0, "MOV R20, 0x130 ;"),
        (0x110, "MOV R21, 0xc0de0017 ;"),
        (0x120, "CALL.REL.NOINC 0x580 ;"),
        (0x1c0, "CALL.REL.NOINC 0x400 ;"),
        (0x1e0, "ULDC UR4, c[0x2][0x8] ;"),
        (0x250, "ULDC UR4, c[0x2][0xc] ;"),
        (0x420, "DFMA R6, R4, R6, c[0x2][0x10] ;"),
        (0x460, "DMUL R4, R4, c[0x2][0x30] ;"),
        (0x470, "RET.ABS.NODEC R20 0x0 ;"),
        (0x590, "ULDC UR4, c[0x2][0x0] ;"),
    ];
    for (offset, want) in expect {
        assert_eq!(text(offset).trim(), want, "at {offset:#x}");
    }
}

/// `rdc_shared`'s relocated shared operands, as nvdisasm 13.5.37 printed the linked image: `later` after
/// `first` (64 words), the device function's `win` after both, `+ 0x4` its addend.
#[test]
fn linked_shared_operands_print_like_nvdisasm() {
    let bytes = std::fs::read(format!("{}/../corpus/sm86/rdc_shared.cubin", env!("CARGO_MANIFEST_DIR"))).expect("cubin");
    let cubin = Cubin::parse(&bytes).expect("cubin");
    let linked = cubin.link_kernel(cubin.kernel("rdc_shared").expect("kernel"));
    assert_eq!(linked.shared_bytes, 0x300 + 129 * 4 + 12);
    for (offset, want) in [
        (0x150, "LDGSTS.E [R9+0x100], [R4.64] ;"),
        (0x1a0, "LDS R7, [R0+0x100] ;"),
        (0x380, "STS [R4.X4+0x304], R5 ;"),
        (0x3b0, "LDS R4, [R4.X4+0x300] ;"),
    ] {
        let w = u128::from_le_bytes(linked.bytes[offset..offset + 16].try_into().unwrap());
        let i = sassport_gen::decode(sassport_gen::Word(w)).expect("decodes");
        assert_eq!(i.text(offset as u64, sassport_gen::TargetStyle::Absolute).trim(), want, "at {offset:#x}");
    }
}

#[test]
fn relocated_calls_link_into_one_image() {
    let bytes = cubin();
    let cubin = Cubin::parse(&bytes).expect("cubin");
    let kernel = cubin.kernel("rdc_calls").expect("kernel");
    let linked = cubin.link_kernel(kernel);
    // The kernel's section first, then each function its relocated calls reach (each once).
    let names: Vec<&str> = linked.sections.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names.first(), Some(&".text.rdc_calls"));
    for f in ["_Z13rdc_mix_twicej", "_Z7rdc_mixjj", "_Z14rdc_neighboursj", "_Z7rdc_gcdjj"] {
        assert_eq!(names.iter().filter(|n| n.ends_with(f)).count(), 1, "{f} in {names:?}");
    }
    assert!(linked.refused.is_empty(), "{:?}", linked.refused);
    assert!(linked.extern_calls.is_empty());
    // Both shared arrays (the kernel's and rdc_neighbours') are laid out: 2 x 128 words.
    assert_eq!(linked.shared_bytes, 1024);
    translate_kernel(&cubin, "rdc_calls", &Options::default()).expect("rdc_calls translates");
}

/// `cli/tests/data/rdc_cases.cu`, built with `-rdc=true` (a `__device__` counter, a call to another file).
const CASES: &[u8] = include_bytes!("data/rdc_cases.cubin");

#[test]
fn device_variable_counters_count() {
    // Each module load places rdc_counter afresh, zeroed: one launch counts v & 3 over its 64 inputs.
    let mut rt = common::runtime(Duration::from_secs(300));
    let input = generate(256, 1803);
    let x = words(&input);
    let args = [KernelArg::Buffer(input), KernelArg::Buffer(vec![0; 16])];
    let r = run_kernel(&mut rt, None, CASES, "rdc_device_var", [1, 1, 1], [64, 1, 1], 0, &args)
        .unwrap_or_else(|e| panic!("rdc_device_var: {e:#}"));
    let mut want = [0u32; 4];
    for v in &x {
        want[(v & 3) as usize] += 1;
    }
    assert_eq!(words(&r.buffers[1]), want);
}

#[test]
fn call_to_a_function_of_another_file_is_refused_by_name() {
    let cubin = Cubin::parse(CASES).expect("cubin");
    let e = translate_kernel(&cubin, "rdc_extern_call", &Options::default()).expect_err("an unresolved extern");
    match &e {
        TranslateError::NotTranslated { name, section, reason, .. } => {
            assert_eq!(name, "CALL.ABS.NOINC");
            assert_eq!(section, ".text.rdc_extern_call");
            assert!(reason.contains("`_Z13rdc_elsewherej`"), "{reason}");
        }
        other => panic!("rdc_extern_call: {other:?}"),
    }
}

//! Device printf and assert end to end on lavapipe: the corpus kernels `printf_on_magic` and `assert_on_magic`
//! (corpus/src/externs_traps.cu) with inputs that contain their magic values, which the corpus manifest's
//! inputs (and so the silicon recording, which keeps output buffers only) never do.
//!
//! The expected printf text is computed here from the inputs with Rust's formatting of the source's format
//! `"thread %d saw %08x\n"` (`{}` and `{:08x}`), not by sassport; CUDA gives no order between threads' printf
//! calls, so lines are compared as sorted lists. The expected assertion is the one the source makes:
//! `assert(x != 0xdeadbeefu)` on line 27 of externs_traps.cu in `assert_on_magic`, failing first in the
//! thread with the lowest index only when that thread's record wins (any failing thread may be reported).

mod common;

use sassport::kernel_run::{run_kernel, KernelArg};
use sassport_runtime::{AssertionFailure, DeviceSelector, PipelineCacheLocation, Runtime, RuntimeError, RuntimeOptions};
use std::time::Duration;

const CUBIN: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../corpus/sm86/externs_traps.cubin");
const N: i32 = 250;

fn bytes(v: &[u32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn words(b: &[u8]) -> Vec<u32> {
    b.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

/// 256 inputs (a grid of 2 x 128 threads, n = 250) with `magic` at `at`.
fn inputs(magic: u32, at: &[usize]) -> Vec<u32> {
    let mut v: Vec<u32> = (0..256u32).map(|i| i.wrapping_mul(0x9e37_79b9) ^ 0x1234).collect();
    for &i in at {
        v[i] = magic;
    }
    v
}

fn args(input: &[u32]) -> Vec<KernelArg> {
    vec![
        KernelArg::Buffer(bytes(input)),
        KernelArg::Buffer(vec![0; 1024]),
        KernelArg::Value { bytes: N.to_le_bytes().to_vec(), align: 4 },
    ]
}

fn run(rt: &mut Runtime, kernel: &str, input: &[u32]) -> anyhow::Result<sassport::kernel_run::KernelRun> {
    let cubin = std::fs::read(CUBIN)?;
    run_kernel(rt, None, &cubin, kernel, [2, 1, 1], [128, 1, 1], 0, &args(input)).map_err(|e| anyhow::anyhow!("{e:#}"))
}

#[test]
fn printf_prints_what_c_formatting_gives() {
    let mut rt = common::runtime(Duration::from_secs(120));
    let magic = 0xc0ff_ee00u32;
    // Index 255 is past n: that thread returns before reading its input.
    let input = inputs(magic, &[0, 3, 77, 128, 200, 249, 255]);
    let r = run(&mut rt, "printf_on_magic", &input).expect("printf_on_magic runs");
    let mut want: Vec<String> = (0..N as usize)
        .filter(|&i| input[i] == magic)
        .map(|i| format!("thread {} saw {:08x}\n", i, input[i]))
        .collect();
    let text = r.printf.text();
    let mut got: Vec<String> = text.split_inclusive('\n').map(str::to_string).collect();
    want.sort();
    got.sort();
    assert_eq!(got, want, "printf output:\n{text}");
    assert_eq!(r.printf.records.len(), 6);
    assert_eq!(r.printf.dropped, 0);
    assert_eq!(r.printf.problem, None);
    for rec in &r.printf.records {
        let i = rec.block[0] * 128 + rec.thread[0];
        assert!(rec.text.starts_with(&format!("thread {i} ")), "record of thread {i}: {:?}", rec.text);
        assert_eq!(rec.pc, 0x1e0, "the CALL.ABS.NOINC to vprintf in the listing");
    }
    // The kernel's own results are unaffected: out[i] = in[i] + 3.
    let out = words(&r.buffers[1]);
    for i in 0..256 {
        let want = if i < N as usize { input[i].wrapping_add(3) } else { 0 };
        assert_eq!(out[i], want, "out[{i}]");
    }
}

#[test]
fn printf_without_the_magic_prints_nothing() {
    let mut rt = common::runtime(Duration::from_secs(120));
    let r = run(&mut rt, "printf_on_magic", &inputs(0, &[])).expect("runs");
    assert!(r.printf.is_empty(), "{:?}", r.printf);
}

#[test]
fn a_full_printf_buffer_drops_and_counts_records() {
    // The smallest buffer: the fault block's free words only (26 words after the counters: two records of
    // 12 header + 2 argument words fit, the rest do not).
    common::runtime(Duration::from_secs(1)); // sets XDG_RUNTIME_DIR
    let device = std::env::var("SASSPORT_TEST_DEVICE").unwrap_or_else(|_| "llvmpipe".into());
    let mut rt = Runtime::new(RuntimeOptions {
        device: device.parse().unwrap_or(DeviceSelector::Default),
        window_bytes: Some(16 << 20),
        pipeline_cache: PipelineCacheLocation::Disabled,
        printf_buffer_bytes: 0,
        ..Default::default()
    })
    .expect("Vulkan device");
    let magic = 0xc0ff_ee00u32;
    let at: Vec<usize> = (0..40).map(|k| k * 6).collect();
    let input = inputs(magic, &at);
    let r = run(&mut rt, "printf_on_magic", &input).expect("runs");
    let capacity_words = 64 - 24 - 2;
    let fit = capacity_words / 16;
    assert_eq!(r.printf.records.len(), fit, "{:?}", r.printf);
    assert_eq!(r.printf.dropped as usize, at.len() - fit);
    assert_eq!(r.printf.problem, None);
    for rec in &r.printf.records {
        let i = (rec.block[0] * 128 + rec.thread[0]) as usize;
        assert_eq!(rec.text, format!("thread {} saw {:08x}\n", i, input[i]));
    }
}

#[test]
fn a_failed_assert_fails_the_launch_with_cuda_s_message() {
    let mut rt = common::runtime(Duration::from_secs(120));
    let magic = 0xdead_beefu32;
    let input = inputs(magic, &[5, 130]);
    let err = run(&mut rt, "assert_on_magic", &input).expect_err("the assertion fails");
    let failing = [(0u32, 5u32), (1, 2)];
    // The typed error, through the runtime directly (kernel_run wraps it in anyhow).
    let text = err.to_string();
    assert!(text.contains("kernel \"assert_on_magic\" at pc 0x200"), "{text}");
    assert!(text.contains("externs_traps.cu:27: void assert_on_magic(const unsigned int *, unsigned int *, int)"), "{text}");
    assert!(text.contains("Assertion `x != 0xdeadbeefu` failed."), "{text}");
    assert!(
        failing.iter().any(|(b, t)| text.contains(&format!("block: [{b},0,0], thread: [{t},0,0]"))),
        "the reported thread is one that failed: {text}"
    );
}

#[test]
fn assertion_error_is_typed() {
    use sassport_runtime::{Bank0, Launch};
    use sassport_translator::translate::{translate_kernel, Options};
    let mut rt = common::runtime(Duration::from_secs(120));
    let cubin_bytes = std::fs::read(CUBIN).expect("cubin");
    let cubin = sassport_translator::Cubin::parse(&cubin_bytes).expect("parses");
    let t = translate_kernel(&cubin, "assert_on_magic", &Options::default()).expect("translates");
    let id = rt.load_kernel("assert_on_magic", &t.words).expect("loads");
    let module = rt.load_module_data(&cubin).expect("module data");
    let input = inputs(0xdead_beef, &[17]);
    let a = rt.alloc(1024).expect("alloc");
    rt.upload(a, &bytes(&input)).expect("upload");
    let b = rt.alloc(1024).expect("alloc");
    rt.upload(b, &[0; 1024]).expect("upload");
    let mut params = a.to_le_bytes().to_vec();
    params.extend(b.to_le_bytes());
    params.extend(N.to_le_bytes());
    let bank0 = Bank0::new([2, 1, 1], [128, 1, 1]).with_params(&params);
    let mut banks = vec![(0, bank0.as_bytes())];
    banks.extend(module.banks_for("assert_on_magic"));
    let e = rt
        .launch(&Launch { kernel: id, grid: [2, 1, 1], block: [128, 1, 1], dynamic_shared_bytes: 0, banks: &banks })
        .expect_err("fails");
    match e {
        RuntimeError::AssertionFailed(a) => {
            let AssertionFailure { kernel, pc, message, file, line, function, block, thread } = *a;
            assert_eq!(kernel, "assert_on_magic");
            assert_eq!(pc, 0x200);
            assert_eq!(message, "x != 0xdeadbeefu");
            assert!(file.ends_with("externs_traps.cu"), "{file}");
            assert_eq!(line, 27);
            assert_eq!(function, "void assert_on_magic(const unsigned int *, unsigned int *, int)");
            assert_eq!((block, thread), ([0, 0, 0], [17, 0, 0]));
        }
        other => panic!("not an assertion failure: {other}"),
    }
    drop(banks);
    module.free(&mut rt).expect("free");
    // The thread that failed stopped before its store; the others stored in[i] + 2.
    let mut out = vec![0u8; 1024];
    rt.download(b, &mut out).expect("download");
    let out = words(&out);
    assert_eq!(out[17], 0, "the failing thread stops");
    assert_eq!(out[16], input[16].wrapping_add(2));
}

#[test]
fn sassport_run_prints_printf_output_and_the_assertion() {
    let d = std::env::temp_dir().join(format!("sassport-externs-run-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    let run = |kernel: &str, input: &[u32]| {
        std::fs::write(d.join("in.bin"), bytes(input)).unwrap();
        std::fs::write(d.join("out.bin"), [0u8; 1024]).unwrap();
        std::process::Command::new(env!("CARGO_BIN_EXE_sassport"))
            .args(["run", CUBIN, "--kernel", kernel, "--grid", "2", "--block", "128", "--no-cache"])
            .arg(format!("--arg=buf:{}", d.join("in.bin").display()))
            .arg(format!("--arg=buf:{}", d.join("out.bin").display()))
            .arg(format!("--arg=i32:{N}"))
            .env("XDG_CACHE_HOME", &d)
            .env("XDG_RUNTIME_DIR", &d)
            .output()
            .unwrap()
    };
    let input = inputs(0xc0ff_ee00, &[9, 140]);
    let out = run("printf_on_magic", &input);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", String::from_utf8_lossy(&out.stderr));
    for i in [9usize, 140] {
        let line = format!("thread {} saw {:08x}\n", i, input[i]);
        assert!(stdout.contains(&line), "{line:?} missing from:\n{stdout}");
    }
    let out = run("assert_on_magic", &inputs(0xdead_beef, &[42]));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        stderr.contains("thread: [42,0,0] Assertion `x != 0xdeadbeefu` failed."),
        "stderr:\n{stderr}"
    );
    let _ = std::fs::remove_dir_all(&d);
}

extern "C" {
    fn snprintf(buf: *mut std::ffi::c_char, n: usize, fmt: *const std::ffi::c_char, ...) -> std::ffi::c_int;
}

/// glibc's formatting of one double (what the CUDA driver formats device printf with on Linux).
fn c_double(spec: &str, v: f64) -> String {
    let f = std::ffi::CString::new(spec).unwrap();
    let mut buf = vec![0u8; 256];
    let n = unsafe { snprintf(buf.as_mut_ptr().cast(), buf.len(), f.as_ptr(), v) };
    buf.truncate(n.max(0) as usize);
    String::from_utf8(buf).unwrap()
}

#[test]
fn every_argument_kind_nvcc_packs() {
    // cli/tests/data/printf_formats.cu, built by nvcc: two printf calls per thread (the second one's vprintf
    // address is loaded before the first call and kept in a callee-saved register across it).
    let cubin = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/printf_formats.cubin")).unwrap();
    let n = 16usize;
    let ip: Vec<i32> = (0..n as i32).map(|i| i.wrapping_mul(-123_456_789) ^ 0x55).collect();
    let dp: Vec<f64> = vec![
        1234.5678, -0.001, 1e-300, 3.0, f64::INFINITY, 0.5, -2.5e7, 1.0 / 3.0, 6.02214076e23, -0.0, 42.0, 1e-5,
        123456.789, -7.25, 2f64.powi(60), 0.1,
    ];
    let big = -9_000_000_000_000i64;
    let args = vec![
        KernelArg::Buffer(ip.iter().flat_map(|v| v.to_le_bytes()).collect()),
        KernelArg::Buffer(dp.iter().flat_map(|v| v.to_le_bytes()).collect()),
        KernelArg::Value { bytes: big.to_le_bytes().to_vec(), align: 8 },
        KernelArg::Value { bytes: (n as i32).to_le_bytes().to_vec(), align: 4 },
    ];
    let mut rt = common::runtime(Duration::from_secs(120));
    let r = run_kernel(&mut rt, None, &cubin, "printf_formats", [1, 1, 1], [n as u32, 1, 1], 0, &args)
        .unwrap_or_else(|e| panic!("{e:#}"));
    let mut want = Vec::new();
    for i in 0..n {
        let name = if i & 1 == 1 { "odd" } else { "even" };
        let (x, d) = (ip[i], dp[i]);
        want.push(format!(
            "{}|{:5}|{:<4}|{:x}|{:X}|{:o}|{}|{}|{}|{}|{}|{}|(nil)|%\n",
            x,
            i,
            i * 3,
            x as u32,
            x as u32,
            i,
            (b'a' + i as u8) as char,
            name,
            big + i as i64,
            if d.is_finite() { format!("{d:.6}") } else { "inf".into() },
            c_double("%.3e", d),
            c_double("%g", d * 1e10),
        ));
        let f = d as f32 as f64;
        want.push(format!(
            "float {} then int {} and {:<6}|\n",
            if f.is_finite() { format!("{f:.6}") } else { "inf".into() },
            -(i as i32),
            name
        ));
    }
    let text = r.printf.text();
    let mut got: Vec<&str> = text.split_inclusive('\n').collect();
    let mut want_sorted: Vec<&str> = want.iter().map(String::as_str).collect();
    got.sort_unstable();
    want_sorted.sort_unstable();
    assert_eq!(got, want_sorted, "printf output:\n{text}");
    assert_eq!(r.printf.records.len(), 2 * n);
}

#[test]
fn printf_and_assert_inside_control_flow() {
    // cli/tests/data/printf_control.cu: printf in an unrolled loop and in a device function called twice,
    // assert(n < 100) after the loop.
    let cubin = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/printf_control.cubin")).unwrap();
    let a: Vec<i32> = vec![3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5];
    let buf = KernelArg::Buffer(a.iter().flat_map(|v| v.to_le_bytes()).collect());
    let int = |v: i32| KernelArg::Value { bytes: v.to_le_bytes().to_vec(), align: 4 };
    let mut rt = common::runtime(Duration::from_secs(120));
    let threads = 12usize;
    let launch = |rt: &mut Runtime, kernel: &str, n: i32| {
        run_kernel(rt, None, &cubin, kernel, [1, 1, 1], [threads as u32, 1, 1], 0, &[buf.clone(), int(n)])
    };
    let sorted = |text: String| {
        let mut v: Vec<String> = text.split_inclusive('\n').map(str::to_string).collect();
        v.sort();
        v
    };

    let n = a.len() as i32;
    let r = launch(&mut rt, "printf_loop", n).unwrap_or_else(|e| panic!("{e:#}"));
    let mut want = Vec::new();
    for i in 0..threads as i32 {
        for (k, &v) in a.iter().enumerate() {
            if v == i {
                want.push(format!("thread {i} found {v} at {k}\n"));
            }
        }
    }
    want.sort();
    assert_eq!(sorted(r.printf.text()), want);

    let r = launch(&mut rt, "printf_in_function", 5).unwrap_or_else(|e| panic!("{e:#}"));
    let mut want: Vec<String> = a[..5].iter().map(|v| format!("report {v}\n")).collect();
    want.push("report -1\n".into());
    want.sort();
    assert_eq!(sorted(r.printf.text()), want);

    // n = 100 fails the assertion after the loop (reading past the buffer stays inside the window).
    let e = launch(&mut rt, "printf_loop", 100).expect_err("assert(n < 100) fails");
    let text = format!("{e:#}");
    assert!(text.contains("printf_control.cu:14: void printf_loop(const int *, int)"), "{text}");
    assert!(text.contains("Assertion `n < 100` failed."), "{text}");
    // What the loop printed before the assertion is kept.
    let printed = rt.take_failed_launch_printf();
    assert!(printed.text().contains("thread 3 found 3 at 0\n"), "{:?}", printed.text());
}

#[test]
fn printf_and_assert_through_a_staged_window() {
    // The window behind a staging buffer (as on discrete GPUs without host-visible device memory): the
    // fault block and the records are copied back.
    common::runtime(Duration::from_secs(1)); // sets XDG_RUNTIME_DIR
    let device = std::env::var("SASSPORT_TEST_DEVICE").unwrap_or_else(|_| "llvmpipe".into());
    let mut rt = Runtime::new(RuntimeOptions {
        device: device.parse().unwrap_or(DeviceSelector::Default),
        window_bytes: Some(16 << 20),
        pipeline_cache: PipelineCacheLocation::Disabled,
        memory: sassport_runtime::MemoryMode::Staged,
        ..Default::default()
    })
    .expect("Vulkan device");
    assert!(rt.is_staged());
    let magic = 0xc0ff_ee00u32;
    let input = inputs(magic, &[1, 130, 249]);
    let r = run(&mut rt, "printf_on_magic", &input).expect("runs");
    let mut got: Vec<String> = r.printf.text().split_inclusive('\n').map(str::to_string).collect();
    got.sort();
    let mut want: Vec<String> = [1usize, 130, 249].iter().map(|&i| format!("thread {i} saw {:08x}\n", input[i])).collect();
    want.sort();
    assert_eq!(got, want);
    let err = run(&mut rt, "assert_on_magic", &inputs(0xdead_beef, &[200])).expect_err("fails");
    assert!(err.to_string().contains("block: [1,0,0], thread: [72,0,0] Assertion `x != 0xdeadbeefu` failed."), "{err}");
}

#[test]
fn printf_returns_the_number_of_arguments() {
    // CUDA's documented result of device printf: the number of arguments parsed, 0 without arguments.
    let cubin = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/printf_result.cubin")).unwrap();
    let mut rt = common::runtime(Duration::from_secs(120));
    let threads = 4usize;
    let r = run_kernel(&mut rt, None, &cubin, "printf_result", [1, 1, 1], [threads as u32, 1, 1], 0, &[
        KernelArg::Buffer(vec![0xff; 12 * threads]),
    ])
    .unwrap_or_else(|e| panic!("{e:#}"));
    assert_eq!(words(&r.buffers[0]), [0, 2, 3].repeat(threads));
    let mut got: Vec<String> = r.printf.text().split_inclusive('\n').map(str::to_string).collect();
    got.sort();
    let mut want = Vec::new();
    for i in 0..threads {
        want.push("plain %d line\n".to_string());
        want.push(format!("{i} and {:5.1}%\n", 0.5 * i as f64));
        want.push("ok!\n".to_string());
    }
    want.sort();
    assert_eq!(got, want);
}

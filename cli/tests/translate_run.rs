//! Translated corpus kernels run on lavapipe through `sassport-runtime`, compared word for word with values
//! computed here independently (exact integer arithmetic, IEEE fused multiply-add from Rust's `mul_add`).
//! Silicon goldens come later; these tests need no NVIDIA hardware.

#[path = "../../translator/tests/support/mod.rs"]
mod support;
mod common;

use sassport_runtime::{Bank0, Launch, Runtime};
use sassport_translator::program::{Disassembler, TableDecoder};
use sassport_translator::translate::{translate_kernel_with, Options};
use sassport_translator::Cubin;
use std::time::Duration;

fn runtime() -> Runtime {
    common::runtime(Duration::from_secs(120))
}

/// Deterministic test inputs (xorshift).
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 16) as u32
    }
}

/// A loaded corpus kernel: translated with nvdisasm's mnemonics when the pinned tool is installed (an
/// independent decoder), else with the generated one.
struct Kernel {
    words: Vec<u32>,
    name: String,
    /// Constant banks other than 0 from the cubin (jump tables, `__constant__` data), as the driver loads them.
    banks: Vec<(u32, Vec<u8>)>,
}

fn translate(file: &str, kernel: &str) -> Kernel {
    let path = sassport_corpus::root().join("sm86").join(format!("{file}.cubin"));
    let bytes = std::fs::read(&path).unwrap();
    let cubin = Cubin::parse(&bytes).unwrap();
    assert!(cubin.kernel(kernel).is_some(), "no kernel {kernel}");
    // The product's own decoder: what users get.
    let dis: &dyn Disassembler = &TableDecoder;
    let t = translate_kernel_with(&cubin, kernel, &Options::default(), dis).unwrap_or_else(|e| panic!("{e}"));
    support::spirv_val(&t.words).unwrap_or_else(|e| panic!("{kernel}: {e}"));
    let banks = cubin
        .constant_banks
        .iter()
        .filter(|b| b.bank != 0 && b.function.is_none_or(|f| f == kernel))
        .map(|b| (b.bank, b.data.to_vec()))
        .collect();
    Kernel { words: t.words, name: kernel.to_string(), banks }
}

/// Launches with CUDA's bank-0 layout: blockDim at 0x0, gridDim at 0xc, parameters at 0x160.
fn launch(rt: &mut Runtime, k: &Kernel, grid: u32, block: u32, params: &[u8]) {
    let id = rt.load_kernel(&k.name, &k.words).unwrap();
    // Bank 0 as the CUDA driver fills it (the same builder the product uses).
    let bank0 = Bank0::new([grid, 1, 1], [block, 1, 1]).with_params(params);
    let mut banks: Vec<(u32, &[u8])> = vec![(0, bank0.as_bytes())];
    banks.extend(k.banks.iter().map(|(b, d)| (*b, d.as_slice())));
    rt.launch(&Launch { kernel: id, grid: [grid, 1, 1], block: [block, 1, 1], dynamic_shared_bytes: 0, banks: &banks })
        .unwrap_or_else(|e| panic!("{}: {e}", k.name));
}

fn upload_u32(rt: &mut Runtime, v: &[u32]) -> u64 {
    let a = rt.alloc(4 * v.len() as u64).unwrap();
    let bytes: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
    rt.upload(a, &bytes).unwrap();
    a
}

fn download_u32(rt: &mut Runtime, a: u64, n: usize) -> Vec<u32> {
    let mut bytes = vec![0u8; 4 * n];
    rt.download(a, &mut bytes).unwrap();
    bytes.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

/// SM86's result for an f32 computation: NaN is written as 0x7fffffff.
fn sm86_bits(x: f32) -> u32 {
    if x.is_nan() {
        0x7fff_ffff
    } else {
        x.to_bits()
    }
}

/// Interesting f32 bit patterns: random words (all classes) mixed with denormals, zeros, infinities.
fn f32_inputs(rng: &mut Rng, n: usize) -> Vec<u32> {
    (0..n)
        .map(|i| match i % 8 {
            0 => rng.next() & 0x807f_ffff,               // denormal or zero
            1 => (rng.next() & 0x8fff_ffff) | 0x0080_0000, // small normal
            2 => 0x3f80_0000 ^ (rng.next() & 0x8000_03ff), // near 1
            _ => {
                // Exponent in a range where products and sums interact.
                let e = 100 + rng.next() % 56;
                (rng.next() & 0x807f_ffff) | (e << 23)
            }
        })
        .collect()
}

#[test]
fn saxpy_is_fused_and_exact() {
    let mut rt = runtime();
    let k = translate("saxpy", "saxpy");
    let mut rng = Rng(0x5eed);
    let n = 250usize;
    let xs = f32_inputs(&mut rng, 256);
    let ys = f32_inputs(&mut rng, 256);
    let out_init = vec![0xdead_beefu32; 256];
    let x = upload_u32(&mut rt, &xs);
    let y = upload_u32(&mut rt, &ys);
    let out = upload_u32(&mut rt, &out_init);
    for a_bits in [0x4049_0fdbu32, 0x0000_0003, 0xbf80_0001, 0x7f80_0000] {
        let mut p = Vec::new();
        p.extend_from_slice(&a_bits.to_le_bytes());
        p.extend_from_slice(&[0; 4]);
        p.extend_from_slice(&x.to_le_bytes());
        p.extend_from_slice(&y.to_le_bytes());
        p.extend_from_slice(&out.to_le_bytes());
        p.extend_from_slice(&(n as u32).to_le_bytes());
        launch(&mut rt, &k, 2, 128, &p);
        let got = download_u32(&mut rt, out, 256);
        let a = f32::from_bits(a_bits);
        for i in 0..256 {
            let want = if i < n {
                sm86_bits(a.mul_add(f32::from_bits(xs[i]), f32::from_bits(ys[i])))
            } else {
                0xdead_beef
            };
            assert_eq!(got[i], want, "a={a_bits:#x} i={i} x={:#x} y={:#x}", xs[i], ys[i]);
        }
    }
}

#[test]
fn int32_const_divide_matches_integer_arithmetic() {
    let mut rt = runtime();
    let k = translate("int_arith", "int32_const_divide");
    let mut rng = Rng(d1v_u64_fix());
    let n = 250usize;
    let mut xs: Vec<u32> = (0..256).map(|_| rng.next()).collect();
    for (i, v) in [0u32, 1, 7, 0xffff_ffff, 0x8000_0000, 0x7fff_ffff, 0xffff_fff9, 641, 0x8000_0001].iter().enumerate() {
        xs[i] = *v;
    }
    let a = upload_u32(&mut rt, &xs);
    let out = upload_u32(&mut rt, &vec![0; 256 * 12]);
    let mut p = Vec::new();
    p.extend_from_slice(&a.to_le_bytes());
    p.extend_from_slice(&out.to_le_bytes());
    p.extend_from_slice(&(n as u32).to_le_bytes());
    launch(&mut rt, &k, 2, 128, &p);
    let got = download_u32(&mut rt, out, 256 * 12);
    for i in 0..n {
        let x = xs[i] as i32;
        let ux = xs[i];
        let want = [
            x.wrapping_div(7),
            x.wrapping_rem(7),
            x.wrapping_div(-3),
            x.wrapping_div(10),
            x.wrapping_div(1000),
            (ux / 3) as i32,
            (ux % 10) as i32,
            x.wrapping_div(16),
            x.wrapping_rem(16),
            (ux / 16) as i32,
            (ux / 0x8000_0001) as i32,
            x.wrapping_div(641),
        ];
        for (k, w) in want.iter().enumerate() {
            assert_eq!(got[i * 12 + k], *w as u32, "x={x} output {k}");
        }
    }
}

const fn d1v_u64_fix() -> u64 {
    0xd1f
}

/// PTX `bfe.u32`/`bfe.s32` with pos, len in 0..32.
fn bfe(x: u32, pos: u32, len: u32, signed: bool) -> u32 {
    let mut d = 0u32;
    let sbit = if signed && len != 0 { (x >> (pos + len - 1).min(31)) & 1 } else { 0 };
    for i in 0..32 {
        let bit = if i < len && pos + i <= 31 { (x >> (pos + i)) & 1 } else { sbit };
        d |= bit << i;
    }
    d
}

/// PTX `bfi.b32 d, f, b, pos, len`.
fn bfi(f: u32, b: u32, pos: u32, len: u32) -> u32 {
    let mut d = b;
    for i in 0..len {
        if pos + i <= 31 {
            d = (d & !(1 << (pos + i))) | (((f >> i) & 1) << (pos + i));
        }
    }
    d
}

/// CUDA `__byte_perm(x, y, s)`.
fn byte_perm(x: u32, y: u32, s: u32) -> u32 {
    let v = u64::from(x) | (u64::from(y) << 32);
    (0..4).map(|i| (((v >> (8 * ((s >> (4 * i)) & 7))) & 0xff) as u32) << (8 * i)).fold(0, |a, b| a | b)
}

#[test]
fn bit_ops32_matches_ptx_definitions() {
    let mut rt = runtime();
    let k = translate("bit_ops", "bit_ops32");
    let mut rng = Rng(0xb17);
    let n = 250usize;
    const K: usize = 22;
    let gen = |rng: &mut Rng| -> Vec<u32> { (0..256).map(|_| rng.next()).collect() };
    let mut xs = gen(&mut rng);
    let ys = gen(&mut rng);
    let zs = gen(&mut rng);
    xs[0] = 0;
    xs[1] = 0xffff_ffff;
    xs[2] = 0x8000_0000;
    let a = upload_u32(&mut rt, &xs);
    let b = upload_u32(&mut rt, &ys);
    let c = upload_u32(&mut rt, &zs);
    let out = upload_u32(&mut rt, &vec![0; 256 * K]);
    let mut p = Vec::new();
    for v in [a, b, c, out] {
        p.extend_from_slice(&v.to_le_bytes());
    }
    p.extend_from_slice(&(n as u32).to_le_bytes());
    launch(&mut rt, &k, 2, 128, &p);
    let got = download_u32(&mut rt, out, 256 * K);
    for i in 0..n {
        let (x, y, z) = (xs[i], ys[i], zs[i]);
        let s = z & 31;
        let (pos, len) = (z & 31, (z >> 8) & 31);
        let funnel_l = |sh: u32| ((u64::from(y) << 32 | u64::from(x)) << sh >> 32) as u32;
        let funnel_r = |sh: u32| ((u64::from(y) << 32 | u64::from(x)) >> sh) as u32;
        let want: [Option<u32>; K] = [
            Some(x.count_ones()),
            Some(x.leading_zeros()),
            Some(if x == 0 { 0 } else { x.trailing_zeros() + 1 }),
            Some(x.reverse_bits()),
            Some(byte_perm(x, y, 0x5140)),
            Some(byte_perm(x, y, z)),
            Some(funnel_l(z & 31)),
            Some(funnel_r(z & 31)),
            Some(if z >= 32 { x } else { funnel_l(z) }),
            Some(if z >= 32 { y } else { funnel_r(z) }),
            Some(x << s),
            Some(x >> s),
            Some(((x as i32) >> s) as u32),
            Some(bfe(x, pos, len, false)),
            Some(bfe(x, pos, len, true)),
            Some(bfi(x, y, pos, len)),
            Some((x & y) ^ (!x | z)),
            Some(x.rotate_left(7)),
            Some(if s == 0 { 0 } else { (1u32 << s) - 1 }),
            Some((((x << (31 - s)) as i32) >> (31 - s)) as u32),
            None, // __fns: not modelled here
            Some((x & 0xff00_ff00) | ((y >> 8) & 0x00ff_00ff)),
        ];
        for (k, w) in want.iter().enumerate() {
            if let Some(w) = w {
                assert_eq!(got[i * K + k], *w, "i={i} x={x:#x} y={y:#x} z={z:#x} output {k}");
            }
        }
    }
}

fn params(ptrs: &[u64], n: u32) -> Vec<u8> {
    let mut p: Vec<u8> = ptrs.iter().flat_map(|a| a.to_le_bytes()).collect();
    p.extend_from_slice(&n.to_le_bytes());
    p
}

#[test]
fn local_array_uses_the_stack() {
    let mut rt = runtime();
    let k = translate("memory", "local_array");
    let mut rng = Rng(0x10ca1);
    let n = 250usize;
    const K: usize = 4;
    let xs: Vec<u32> = (0..256).map(|_| rng.next()).collect();
    let a = upload_u32(&mut rt, &xs);
    let out = upload_u32(&mut rt, &vec![0; 256 * K]);
    launch(&mut rt, &k, 2, 128, &params(&[a, out], n as u32));
    let got = download_u32(&mut rt, out, 256 * K);
    for i in 0..n {
        let x = xs[i];
        let mut buf = [0u32; 32];
        for (k, b) in buf.iter_mut().enumerate() {
            *b = x.wrapping_mul(k as u32 + 1) ^ k as u32;
        }
        for k in 0..8 {
            let j = ((x >> (k * 4)) & 31) as usize;
            buf[j] = buf[j].wrapping_add(buf[(j + 13) & 31]);
        }
        let sum = (0..32).fold(0u32, |s, k| s.wrapping_add(buf[k].wrapping_mul(2 * k as u32 + 1)));
        let want = [buf[(x & 31) as usize], buf[((x >> 5) & 31) as usize], buf[((x >> 10) & 31) as usize] ^ buf[31], sum];
        assert_eq!(&got[i * K..i * K + K], &want, "i={i} x={x:#x}");
    }
}

#[test]
fn calls_direct_calls_and_returns() {
    let mut rt = runtime();
    let k = translate("calls", "calls_direct");
    let mut rng = Rng(0xca11);
    let n = 250usize;
    const K: usize = 5;
    let xs: Vec<u32> = (0..256).map(|_| rng.next()).collect();
    let ys = f32_inputs(&mut rng, 256);
    let a = upload_u32(&mut rt, &xs);
    let b = upload_u32(&mut rt, &ys);
    let out = upload_u32(&mut rt, &vec![0; 256 * K]);
    launch(&mut rt, &k, 2, 128, &params(&[a, b, out], n as u32));
    let got = download_u32(&mut rt, out, 256 * K);
    for i in 0..n {
        let x = xs[i] as i32;
        let y = f32::from_bits(ys[i]);
        // add_mix(x, x >> 3, x * 1000, y * 0, x & 0xffff): (int)(y * 0.0f) is 0 (NaN converts to 0 here).
        let d = y * 0.0;
        let d_int = if d.is_nan() { 0 } else { d as i32 };
        let add_mix = x
            .wrapping_add(((x as u32) >> 3) as i32)
            .wrapping_add(((x as i64 * 1000) >> 8) as i32)
            .wrapping_add(d_int)
            .wrapping_add(x & 0xffff);
        let div = if i == 0 { 1 } else { i as u32 };
        let want = [
            add_mix as u32,
            ys[i] ^ i as u32,
            (x as u32) & 0x3fff_ffff,
            (x as u32) / div,
            (x as u32) % div,
        ];
        assert_eq!(&got[i * K..i * K + K], &want, "i={i} x={x:#x} y={:#x}", ys[i]);
    }
}

fn ftz(b: u32) -> u32 {
    if b & 0x7f80_0000 == 0 {
        b & 0x8000_0000
    } else {
        b
    }
}

#[test]
fn atomics_on_owned_addresses() {
    let mut rt = runtime();
    let k = translate("atomics", "atomics_global_owned");
    let mut rng = Rng(0xa70);
    let n = 250usize;
    const K: usize = 16;
    let si0: Vec<u32> = (0..1024).map(|_| rng.next()).collect();
    let su0: Vec<u32> = (0..1024).map(|_| rng.next() % 300).collect();
    let su64_0: Vec<u32> = (0..2048).map(|_| rng.next()).collect();
    let sf0: Vec<u32> = f32_inputs(&mut rng, 1024);
    let args: Vec<u32> = (0..256).map(|i| if i % 3 == 0 { si0[4 * i] } else { rng.next() }).collect();
    let si = upload_u32(&mut rt, &si0);
    let su = upload_u32(&mut rt, &su0);
    let su64 = upload_u32(&mut rt, &su64_0);
    let sf = upload_u32(&mut rt, &sf0);
    let arg = upload_u32(&mut rt, &args);
    let old = upload_u32(&mut rt, &vec![0; 256 * K]);
    launch(&mut rt, &k, 2, 128, &params(&[si, su, su64, sf, arg, old], n as u32));
    let got_old = download_u32(&mut rt, old, 256 * K);
    let got_si = download_u32(&mut rt, si, 1024);
    let got_su = download_u32(&mut rt, su, 1024);
    let got_su64 = download_u32(&mut rt, su64, 2048);
    let got_sf = download_u32(&mut rt, sf, 1024);
    let (mut si_m, mut su_m, mut sf_m) = (si0.clone(), su0.clone(), sf0.clone());
    let mut su64_m: Vec<u64> = su64_0.chunks(2).map(|c| u64::from(c[0]) | (u64::from(c[1]) << 32)).collect();
    for i in 0..n {
        let v = args[i] as i32;
        let uv = args[i];
        let mut o = [0u32; K];
        let s = &mut si_m[4 * i..4 * i + 4];
        o[0] = s[0];
        s[0] = s[0].wrapping_add(uv);
        o[1] = s[1];
        s[1] = s[1].wrapping_sub(uv);
        o[2] = s[2];
        s[2] = uv;
        o[3] = s[3];
        s[3] = (s[3] as i32).min(v) as u32;
        o[4] = s[3];
        s[3] = (s[3] as i32).max(v >> 3) as u32;
        let u = &mut su_m[4 * i..4 * i + 4];
        o[5] = u[0];
        u[0] &= uv;
        o[6] = u[1];
        u[1] |= uv;
        o[7] = u[2];
        u[2] ^= uv;
        o[8] = u[3];
        u[3] = if u[3] >= (uv & 0xff) { 0 } else { u[3] + 1 };
        o[9] = u[3];
        u[3] = if u[3] == 0 || u[3] > (uv & 0xf) { uv & 0xf } else { u[3] - 1 };
        o[10] = s[0];
        if s[0] == uv {
            s[0] = uv ^ 0x5a5a_5a5a;
        }
        o[11] = u[0];
        u[0] = u[0].min(uv >> 1);
        let w = (u64::from(uv) << 32) | u64::from(uv.wrapping_mul(2654435761));
        let d = &mut su64_m[4 * i..4 * i + 4];
        o[12] = d[0] as u32;
        d[0] = d[0].wrapping_add(w);
        o[13] = (d[1] >> 32) as u32;
        d[1] = w;
        o[14] = (d[2] >> 16) as u32;
        d[2] = d[2].max(w);
        let f = &mut sf_m[4 * i];
        o[15] = *f;
        let r = ftz((f32::from_bits(ftz(*f)) + f32::from_bits(ftz(uv))).to_bits());
        *f = if f32::from_bits(r).is_nan() { 0x7fff_ffff } else { r };
        assert_eq!(&got_old[i * K..i * K + K], &o, "returned values, i={i} v={v:#x}");
    }
    assert_eq!(got_si, si_m);
    assert_eq!(got_su, su_m);
    let got64: Vec<u64> = got_su64.chunks(2).map(|c| u64::from(c[0]) | (u64::from(c[1]) << 32)).collect();
    assert_eq!(got64, su64_m);
    assert_eq!(got_sf, sf_m);
}

#[test]
fn out_of_window_store_is_dropped_and_reported() {
    let mut rt = runtime();
    let k = translate("saxpy", "saxpy");
    let xs = vec![0x3f80_0000u32; 256];
    let x = upload_u32(&mut rt, &xs);
    let y = upload_u32(&mut rt, &xs);
    // `out` points below the window: every store faults and is dropped; the runtime reports the first.
    let bad: u64 = 0x1000;
    let mut p = Vec::new();
    p.extend_from_slice(&1.0f32.to_bits().to_le_bytes());
    p.extend_from_slice(&[0; 4]);
    for a in [x, y, bad] {
        p.extend_from_slice(&a.to_le_bytes());
    }
    p.extend_from_slice(&250u32.to_le_bytes());
    let id = rt.load_kernel(&k.name, &k.words).unwrap();
    let mut bank0 = vec![0u8; 0x160 + p.len()];
    for (i, v) in [128u32, 1, 1, 2, 1, 1].iter().enumerate() {
        bank0[4 * i..4 * i + 4].copy_from_slice(&v.to_le_bytes());
    }
    bank0[0x160..].copy_from_slice(&p);
    let err = rt
        .launch(&Launch { kernel: id, grid: [2, 1, 1], block: [128, 1, 1], dynamic_shared_bytes: 0, banks: &[(0, &bank0)] })
        .expect_err("stores outside the window must fault");
    match err {
        sassport_runtime::RuntimeError::Fault { pc, address, kind, .. } => {
            // The STG of `saxpy` (nvdisasm listing) and an address of the bad array.
            assert_eq!(pc, 0xe0, "{kind}");
            assert!((bad..bad + 4 * 250).contains(&address), "{address:#x}");
            assert_eq!(address % 4, 0);
            assert!(kind.contains("store"), "{kind}");
        }
        other => panic!("expected a fault, got {other}"),
    }
    // The window is untouched: x and y still hold their values.
    assert_eq!(download_u32(&mut rt, x, 256), xs);
}

#[test]
fn recursive_calls_keep_their_frames() {
    let mut rt = runtime();
    let k = translate("calls", "calls_recursive");
    let mut rng = Rng(0xf1b);
    let n = 250usize;
    let xs: Vec<u32> = (0..256).map(|_| rng.next()).collect();
    let a = upload_u32(&mut rt, &xs);
    let out = upload_u32(&mut rt, &vec![0; 512]);
    launch(&mut rt, &k, 2, 128, &params(&[a, out], n as u32));
    let got = download_u32(&mut rt, out, 512);
    fn fib(k: u32) -> u32 {
        if k < 2 {
            k
        } else {
            fib(k - 1).wrapping_add(fib(k - 2))
        }
    }
    fn gcd(a: u64, b: u64) -> u64 {
        if b == 0 {
            a
        } else {
            gcd(b, a % b)
        }
    }
    for i in 0..n {
        let x = xs[i];
        let want = [fib(x & 15), gcd(u64::from(x) * 6, u64::from(x >> 7) * 4 + 2) as u32];
        assert_eq!(&got[2 * i..2 * i + 2], &want, "i={i} x={x:#x}");
    }
}

#[test]
fn switches_through_jump_tables_and_compare_chains() {
    let mut rt = runtime();
    let mut rng = Rng(fix_0x5w());
    let n = 250usize;
    let mut xs: Vec<u32> = (0..256).map(|_| rng.next()).collect();
    for (i, key) in [1u32, 17, 300, 301, 1024, 2047, 4000, 4095, 5, 0].iter().enumerate() {
        xs[i] = (xs[i] & !0xfff) | key;
    }
    let a = upload_u32(&mut rt, &xs);
    let out = upload_u32(&mut rt, &vec![0; 512]);

    let k = translate("switch", "switch_sparse");
    launch(&mut rt, &k, 2, 128, &params(&[a, out], n as u32));
    let got = download_u32(&mut rt, out, 512);
    for i in 0..n {
        let x = xs[i] as i32;
        let key = x & 0xfff;
        let r = match key {
            1 => 10,
            17 => 20,
            300 => 30 + 31,
            301 => 31,
            1024 => x >> 2,
            2047 => x.wrapping_neg(),
            4000 => x.wrapping_mul(7),
            4095 => 1,
            _ => key & 7,
        };
        let s = match x >> 28 {
            -8 => 1,
            -1 => 2,
            0 => 3,
            7 => 4,
            _ => 5,
        };
        assert_eq!(&got[2 * i..2 * i + 2], &[r as u32, s as u32], "i={i} x={x:#x}");
    }

    let k = translate("switch", "switch_brx_ptx");
    launch(&mut rt, &k, 2, 128, &params(&[a, out], n as u32));
    let got = download_u32(&mut rt, out, 256);
    for i in 0..n {
        let x = xs[i];
        let want = match x & 3 {
            0 => x.wrapping_mul(3),
            1 => x ^ 0x1234_5678,
            2 => x >> 9,
            _ => x.wrapping_add(77),
        };
        assert_eq!(got[i], want, "brx i={i} x={x:#x}");
    }
}

const fn fix_0x5w() -> u64 {
    0x5a17
}

#[test]
fn shared_memory_reductions_and_scans_with_barriers() {
    let mut rt = runtime();
    let mut rng = Rng(0x5ca7);
    let n = 1000usize;
    let xs: Vec<u32> = (0..1024).map(|_| rng.next() >> 8).collect();
    let a = upload_u32(&mut rt, &xs);
    let out = upload_u32(&mut rt, &vec![0; 1024]);

    let k = translate("reduce_scan", "reduce_shared_tree");
    launch(&mut rt, &k, 4, 256, &params(&[a, out], n as u32));
    let got = download_u32(&mut rt, out, 4);
    for b in 0..4 {
        let want = (b * 256..(b + 1) * 256).filter(|i| *i < n).fold(0u32, |s, i| s.wrapping_add(xs[i]));
        assert_eq!(got[b], want, "block {b}");
    }

    let k = translate("reduce_scan", "scan_shared_inclusive");
    launch(&mut rt, &k, 4, 256, &params(&[a, out], n as u32));
    let got = download_u32(&mut rt, out, 1024);
    for i in 0..n {
        let b = i / 256;
        let want = (b * 256..=i).fold(0u32, |s, j| s.wrapping_add(xs[j]));
        assert_eq!(got[i], want, "i={i}");
    }
}

#[test]
fn generic_pointers_reach_shared_and_global_memory() {
    let mut rt = runtime();
    let k = translate("memory", "generic_pointers");
    let mut rng = Rng(0x6e4);
    let n = 250usize;
    const K: usize = 3;
    let xs: Vec<u32> = (0..256).map(|_| rng.next()).collect();
    let a = upload_u32(&mut rt, &xs);
    let out = upload_u32(&mut rt, &vec![0; 256 * K]);
    launch(&mut rt, &k, 2, 128, &params(&[a, out], n as u32));
    let got = download_u32(&mut rt, out, 256 * K);
    let load = |v: u32| v.wrapping_mul(3).wrapping_add(1);
    for i in 0..n {
        let (b, t) = (i / 128, i % 128);
        // tile[t] = in[i] (0 past n), per block of 128 threads.
        let tile = |j: usize| if b * 128 + j < n { xs[b * 128 + j] } else { 0 };
        let src = |j: usize| if xs[i] & 1 != 0 { tile(j) } else { xs[b * 128 + j] };
        let want = [load(tile((t + 3) % 128)), load(xs[i]), load(src(t ^ 2))];
        assert_eq!(&got[i * K..i * K + K], &want, "i={i}");
    }
}

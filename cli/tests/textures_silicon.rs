//! Texture and surface objects against NVIDIA silicon: the kernels of `corpus/silicon/textures/textures.cu`
//! (sm_86 build) translated by sassport and run on lavapipe over the cases an H200 ran through CuPy texture
//! and surface objects (`textures/tests/silicon/textures.tgz`, written by `record_textures.py`), every output
//! buffer and every surface written compared bit for bit with the recording.
//!
//! The texture headers and samplers are written into pools in the window with `sassport_textures`'
//! encoders — arrays and surfaces block-linear (16-GOB blocks, clamped per level as the hardware does,
//! tiled by `sassport_engines::layout`), linear-memory textures as buffers — the way a driver would; the
//! handle is the TIC index with the TSC index in bits 31:20.

mod common;
#[path = "../../translator/tests/support/mod.rs"]
mod support;

use sassport_engines::layout::SectorLayout;
use sassport_runtime::{Bank0, KernelId, Launch, Runtime};
use sassport_textures::{
    AddressMode, Chain, DataType, Filter, Format, Layout, MemoryLayout, MipFilter, Reduction, Sampler, Source,
    TextureHeader, TextureType,
};
use sassport_translator::program::{Disassembler, TableDecoder};
use sassport_translator::translate::{translate_kernel_with, Options};
use sassport_translator::Cubin;
use serde_json::Value;
use std::collections::BTreeMap;
use std::io::Read;
use std::path::PathBuf;
use std::time::Duration;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Every file of the recording archive by its path inside it (ustar inside gzip).
fn archive() -> BTreeMap<String, Vec<u8>> {
    archive_named("textures.tgz")
}

/// Every file of `textures/tests/silicon/NAME` by its path inside it.
fn archive_named(name: &str) -> BTreeMap<String, Vec<u8>> {
    let gz = std::fs::read(root().join("textures/tests/silicon").join(name)).unwrap();
    let mut tar = Vec::new();
    flate2::read::GzDecoder::new(&gz[..]).read_to_end(&mut tar).unwrap();
    let mut out = BTreeMap::new();
    let mut at = 0;
    while at + 512 <= tar.len() && tar[at] != 0 {
        let h = &tar[at..at + 512];
        let name = String::from_utf8_lossy(&h[..100]).trim_end_matches('\0').to_string();
        let size = String::from_utf8_lossy(&h[124..136]).trim_matches(|c: char| c == '\0' || c == ' ').to_string();
        let size = usize::from_str_radix(&size, 8).unwrap();
        at += 512;
        if h[156] == b'0' || h[156] == 0 {
            out.insert(name.trim_start_matches("./").to_string(), tar[at..at + size].to_vec());
        }
        at += size.div_ceil(512) * 512;
    }
    out
}

fn u(v: &Value, key: &str, default: u64) -> u64 {
    v.get(key).and_then(Value::as_u64).unwrap_or(default)
}

/// The header's format for a CUDA channel description and read mode.
fn format(res: &Value, read_normalized: bool) -> Format {
    let (ch, bits, kind) = (u(res, "channels", 1), u(res, "bits", 32), u(res, "kind", 1));
    let layout = match (ch, bits) {
        (1, 8) => Layout::R8,
        (2, 8) => Layout::G8R8,
        (4, 8) => Layout::A8B8G8R8,
        (1, 16) => Layout::R16,
        (2, 16) => Layout::R16G16,
        (4, 16) => Layout::R16G16B16A16,
        (1, 32) => Layout::R32,
        (2, 32) => Layout::R32G32,
        (4, 32) => Layout::R32G32B32A32,
        other => panic!("channel layout {other:?}"),
    };
    let ty = match (kind, read_normalized && bits < 32) {
        (0, true) => DataType::Snorm,
        (1, true) => DataType::Unorm,
        (0, false) => DataType::Sint,
        (1, false) => DataType::Uint,
        (2, _) => DataType::Float,
        // Block-compressed kinds: a BC layout the lowering refuses by its fault.
        _ => DataType::Unorm,
    };
    let src = [Source::R, Source::G, Source::B, Source::A];
    // A float texture of fewer than four channels reads 0 in the missing ones, alpha too (the H200's float4
    // reads of a one-channel float mip chain in textures3.tgz); other kinds keep alpha 1 (not recorded).
    let float = kind == 2;
    let swizzle = std::array::from_fn(|k| {
        if (k as u64) < ch {
            src[k]
        } else if k == 3 && !float {
            Source::OneFloat
        } else {
            Source::Zero
        }
    });
    Format { layout, types: [ty; 4], swizzle, packed: false }
}

struct Placed {
    header: TextureHeader,
    chain: Option<Chain>,
}

/// The header of a case's resource at `address` (block-linear arrays and surfaces, buffers for linear
/// memory), and where its bytes go.
fn header(res: &Value, tex: &Value, address: u64) -> Placed {
    let kind = res["type"].as_str().unwrap_or_default();
    let read = u(tex, "read", 0) == 1;
    let mut format = format(res, read);
    if kind == "bc" {
        format.layout = match u(res, "kind", 0) {
            17 => Layout::Dxt1,
            21 => Layout::Dxt45,
            _ => Layout::Bc7,
        };
    }
    let (w, h, d) = (u(res, "width", 1) as u32, u(res, "height", 1).max(1) as u32, u(res, "depth", 1).max(1) as u32);
    let layered = u(res, "flags", 0) & 1 == 1;
    let texture_type = match (kind, h > 1 || res.get("height").is_some(), d > 1) {
        ("linear", ..) => TextureType::OneDBuffer,
        ("cube", ..) if layered => TextureType::CubeArray,
        ("cube", ..) => TextureType::Cube,
        (_, _, true) if layered => TextureType::TwoDArray,
        (_, _, true) => TextureType::ThreeD,
        (_, true, false) => TextureType::TwoD,
        _ => TextureType::OneD,
    };
    // Cubes: the depth field counts cubes (six faces each); the recording's depth counts faces.
    let d = if kind == "cube" { d / 6 } else { d };
    let levels = u(res, "levels", 1) as u32;
    let layered = layered || kind == "cube";
    let memory = if kind == "linear" {
        MemoryLayout::Buffer
    } else {
        MemoryLayout::BlockLinear { block_height_log2: 4, block_depth_log2: if layered { 0 } else { 4 } }
    };
    let header = TextureHeader {
        format,
        address,
        memory,
        texture_type,
        width: w,
        height: h,
        depth: d,
        max_mip_level: levels - 1,
        view_levels: (0, levels - 1),
        srgb: u(tex, "srgb", 0) == 1,
        normalized_coords: u(tex, "normalized", 0) == 1,
        depth_texture: false,
        lod_bias: 0,
        max_anisotropy: 0,
        min_lod_clamp: 0,
        msaa: 0,
        border_size: 0,
    };
    let chain = (kind != "linear").then(|| Chain::new(&header, SectorLayout::Turing2D).unwrap());
    Placed { header, chain }
}

fn sampler(tex: &Value) -> Sampler {
    let mode = |m: &Value| match m.as_str() {
        Some("wrap") => AddressMode::Wrap,
        Some("mirror") => AddressMode::Mirror,
        Some("border") => AddressMode::Border,
        _ => AddressMode::ClampToEdge,
    };
    let modes: Vec<AddressMode> = tex["modes"].as_array().map(|m| m.iter().map(mode).collect()).unwrap_or_default();
    let at = |k: usize| modes.get(k).copied().unwrap_or(AddressMode::ClampToEdge);
    let filter = if u(tex, "filter", 0) == 1 { Filter::Linear } else { Filter::Point };
    let fixed = |k: &str| (tex.get(k).and_then(Value::as_f64).unwrap_or(0.0) * 256.0) as i64;
    let mip_filter = match tex.get("mip_filter").and_then(Value::as_u64) {
        Some(0) => MipFilter::Point,
        Some(_) => MipFilter::Linear,
        None => MipFilter::None,
    };
    let border = match tex["border"].as_array() {
        Some(b) => std::array::from_fn(|k| (b[k].as_f64().unwrap_or(0.0) as f32).to_bits()),
        None => [0; 4],
    };
    Sampler {
        address: [at(0), at(1), at(2)],
        compare: None,
        srgb_border: false,
        max_anisotropy: 0,
        mag_filter: filter,
        min_filter: filter,
        mip_filter,
        seamless_cube: u(tex, "seamless", 0) == 1,
        reduction: Reduction::WeightedAverage,
        lod_bias: fixed("lod_bias") as i32,
        min_lod: fixed("min_lod") as u32,
        max_lod: fixed("max_lod").min(0xfff) as u32,
        border,
        srgb_border_rgb: [0; 3],
    }
}

/// The resource's bytes as the device holds them: block-linear through the engines' layout (every level, then
/// every layer or face; 3-D levels slice by slice), else as is.
fn place(p: &Placed, texels: &[u8], _res: &Value) -> Vec<u8> {
    let Some(chain) = &p.chain else { return texels.to_vec() };
    let mut out = vec![0u8; chain.guest_bytes() as usize];
    let three_d = p.header.texture_type == TextureType::ThreeD;
    let mut src = 0;
    for level in &chain.levels {
        let layout = level.block_linear.expect("block-linear level");
        let (layers, slices) = if three_d { (1, level.depth) } else { (chain.layers, 1) };
        for layer in 0..layers {
            for z in 0..slices {
                for y in 0..level.rows {
                    for x in 0..level.row_bytes {
                        let o = layer as u64 * chain.layer_stride + level.guest_offset + layout.offset(x, y, z);
                        out[o as usize] = texels[src];
                        src += 1;
                    }
                }
            }
        }
    }
    assert_eq!(src, texels.len(), "texels.bin holds the whole resource");
    out
}

/// The inverse of [`place`].
fn unplace(p: &Placed, guest: &[u8], res: &Value, len: usize) -> Vec<u8> {
    let Some(chain) = &p.chain else { return guest[..len].to_vec() };
    let level = &chain.levels[0];
    let layout = level.block_linear.expect("block-linear level 0");
    let layered = u(res, "flags", 0) & 1 == 1;
    let (layers, slices) = if layered { (p.header.depth, 1) } else { (1, level.depth) };
    let mut out = Vec::with_capacity(len);
    for layer in 0..layers {
        for z in 0..slices {
            for y in 0..level.rows {
                for x in 0..level.row_bytes {
                    out.push(guest[(layer as u64 * chain.layer_stride + layout.offset(x, y, z)) as usize]);
                }
            }
        }
    }
    out
}

/// Appends `v` at its natural alignment (the CUDA parameter layout).
fn push(params: &mut Vec<u8>, v: &[u8]) {
    while params.len() % v.len() != 0 {
        params.push(0);
    }
    params.extend_from_slice(v);
}

struct Pools {
    tic: u64,
    tsc: u64,
    next: u32,
}

impl Pools {
    /// TIC and TSC pools of `entries` entries each, allocated and given to `rt`.
    fn install(rt: &mut Runtime, entries: u64) -> Pools {
        let tic = rt.alloc(32 * entries).unwrap();
        let tsc = rt.alloc(32 * entries).unwrap();
        rt.set_texture_pools(tic, tsc);
        Pools { tic, tsc, next: 0 }
    }
}

/// The recording kernels' sm_86 cubin (`record_textures.py` runs their sm_90 build on the H200).
fn textures_cubin() -> Vec<u8> {
    std::fs::read(root().join("corpus/silicon/textures/textures.sm86.cubin")).unwrap()
}

/// Translates `kernel`, checks the module with spirv-val and loads it into `rt`.
fn load(rt: &mut Runtime, cubin: &Cubin<'_>, kernel: &str) -> KernelId {
    let dis: &dyn Disassembler = &TableDecoder;
    let t = translate_kernel_with(cubin, kernel, &Options::default(), dis).unwrap();
    support::spirv_val(&t.words).unwrap();
    rt.load_kernel(kernel, &t.words).unwrap()
}

/// Writes a header and sampler into the pools; returns the handle.
fn bind(rt: &mut Runtime, pools: &mut Pools, header: &TextureHeader, sampler: &Sampler) -> u64 {
    let i = pools.next;
    pools.next += 1;
    rt.upload(pools.tic + 32 * i as u64, &header.encode().to_bytes()).unwrap();
    rt.upload(pools.tsc + 32 * i as u64, &sampler.encode().to_bytes()).unwrap();
    (i | (i << 20)) as u64
}

/// Output bytes per thread of each kernel (the recorder's table).
fn out_width(kernel: &str) -> usize {
    match kernel {
        "tex1d_fetch_u32" | "tex2d_f1" | "tex3d_f1" | "tex2d_layered_f1" | "tex1d_f1" => 4,
        "surf2d_rw" => 12,
        "tex2d_gather" => 64,
        _ => 16,
    }
}

/// Runs one case; returns the mismatching buffers (empty: bit-exact).
fn run_case(rt: &mut Runtime, cubin: &Cubin<'_>, files: &BTreeMap<String, Vec<u8>>, case: &Value, pools: &mut Pools) -> Vec<String> {
    let name = case["name"].as_str().unwrap_or_default();
    let kernel = case["kernel"].as_str().unwrap_or_default();
    let (res, tex, launch) = (&case["res"], &case["tex"], &case["launch"]);
    let file = |what: &str| files.get(&format!("textures/{name}/{what}")).cloned();
    let texels = file("texels.bin").expect("texels.bin");
    let id = load(rt, cubin, kernel);
    let probe = header(res, tex, 0);
    let size = place(&probe, &texels, res).len().max(texels.len());
    let src = rt.alloc(size as u64).unwrap();
    let placed = header(res, tex, src);
    rt.upload(src, &place(&placed, &texels, res)).unwrap();
    let mut params = Vec::new();
    let mut dst = None;
    if kernel == "surf2d_red" {
        // One surface, reduced in place: its bytes afterwards are the recording's dst.bin.
        let hs = bind(rt, pools, &placed.header, &sampler(&Value::Null));
        push(&mut params, &hs.to_le_bytes());
        dst = Some((src, header(res, tex, src)));
    } else if res["type"] == "surface" {
        let d = rt.alloc(size as u64).unwrap();
        rt.upload(d, &place(&placed, &vec![0u8; texels.len()], res)).unwrap();
        let dh = header(res, tex, d);
        let s = sampler(&Value::Null);
        let hs = bind(rt, pools, &placed.header, &s);
        let hd = bind(rt, pools, &dh.header, &s);
        push(&mut params, &hs.to_le_bytes());
        push(&mut params, &hd.to_le_bytes());
        dst = Some((d, dh));
    } else {
        let h = bind(rt, pools, &placed.header, &sampler(tex));
        push(&mut params, &h.to_le_bytes());
    }
    let n = launch.get("n").and_then(Value::as_u64);
    let mut out = None;
    if let Some(n) = n {
        let bytes = n as usize * out_width(kernel);
        let o = rt.alloc(bytes as u64).unwrap();
        rt.upload(o, &vec![0xAB; bytes]).unwrap();
        push(&mut params, &o.to_le_bytes());
        push(&mut params, &(n as i32).to_le_bytes());
        if let Some(c) = launch.get("cols").and_then(Value::as_i64) {
            push(&mut params, &(c as i32).to_le_bytes());
        }
        out = Some((o, bytes));
    }
    for f in launch.get("floats").and_then(Value::as_array).into_iter().flatten() {
        push(&mut params, &(f.as_f64().unwrap_or(0.0) as f32).to_le_bytes());
    }
    let ints = ["ints", "ints_after"].iter().flat_map(|k| launch.get(*k).and_then(Value::as_array).cloned().unwrap_or_default());
    for i in ints {
        push(&mut params, &(i.as_i64().unwrap_or(0) as i32).to_le_bytes());
    }
    let dims = |k: &str, d: [u32; 3]| launch.get(k).and_then(Value::as_array).map_or(d, |a| std::array::from_fn(|i| a[i].as_u64().unwrap_or(1) as u32));
    let grid = dims("grid", [n.map_or(1, |n| (n as u32).div_ceil(256)), 1, 1]);
    let block = dims("block", [256, 1, 1]);
    let bank0 = Bank0::new(grid, block).with_params(&params);
    let banks: Vec<(u32, &[u8])> = vec![(0, bank0.as_bytes())];
    let report = rt.launch(&Launch { kernel: id, grid, block, dynamic_shared_bytes: 0, banks: &banks });
    let mut bad = Vec::new();
    if let Err(e) = report {
        bad.push(format!("launch: {e}"));
    }
    if let Some((o, bytes)) = out {
        let mut got = vec![0u8; bytes];
        rt.download(o, &mut got).unwrap();
        let want = file("out.bin").unwrap_or_default();
        let diff = got.chunks(4).zip(want.chunks(4)).filter(|(a, b)| a != b).count();
        if got != want {
            let w = |b: &[u8], i: usize| u32::from_le_bytes([b[4 * i], b[4 * i + 1], b[4 * i + 2], b[4 * i + 3]]);
            let first = (0..bytes / 4).find(|&i| w(&got, i) != w(&want, i)).unwrap_or(0);
            bad.push(format!(
                "out.bin: {diff} of {} words differ (first: word {first}, {:#x} where the H200 has {:#x})",
                bytes / 4,
                w(&got, first),
                w(&want, first)
            ));
        }
    }
    if let Some((d, dh)) = dst {
        let mut guest = vec![0u8; size];
        rt.download(d, &mut guest).unwrap();
        let got = unplace(&dh, &guest, res, texels.len());
        if Some(got) != file("dst.bin") {
            bad.push("dst.bin differs".into());
        }
    }
    bad
}

#[test]
fn texture_kernels_match_h200_recordings() {
    let files = archive();
    let cases: Vec<Value> = serde_json::from_slice(&files["textures/cases.json"]).unwrap();
    let bytes = textures_cubin();
    let cubin = Cubin::parse(&bytes).unwrap();
    let mut rt = common::runtime(Duration::from_secs(600));
    let mut pools = Pools::install(&mut rt, 256);
    let mut exact = Vec::new();
    let mut differ = BTreeMap::new();
    for case in &cases {
        let name = case["name"].as_str().unwrap_or_default().to_string();
        let bad = run_case(&mut rt, &cubin, &files, case, &mut pools);
        if bad.is_empty() {
            exact.push(name);
        } else {
            differ.insert(name, bad.join("; "));
        }
    }
    println!("bit-exact against the H200: {} of {}", exact.len(), cases.len());
    for (name, why) in &differ {
        println!("  differs: {name}: {why}");
    }
    // Cases the lowering does not claim: filtered sRGB and BC7 (texture faults). sRGB point sampling (silicon's
    // recorded table), BC1 (NVIDIA's decoder) and BC3 (its alpha weights fitted to textures2's recording) are.
    let unclaimed = ["rgba8_srgb_linear", "bc7_point"];
    let wrong: Vec<_> = differ.keys().filter(|k| !unclaimed.contains(&k.as_str())).collect();
    assert!(wrong.is_empty(), "claimed cases that differ from silicon: {wrong:?}");
    // The unclaimed ones are refused by name at run time (a texture fault), never silently wrong.
    for name in unclaimed {
        let why = differ.get(name).map(String::as_str).unwrap_or("bit-exact");
        assert!(why == "bit-exact" || why.contains("texture handle"), "{name}: {why}");
    }
}

/// The second H200 recording (`textures2.tgz`, 2026-12-02 12:46 UTC, driver 580.159.04): every one of the 256
/// sRGB codes point-sampled, and BC1 over 4096 random blocks, bit for bit.
#[test]
fn second_recording_every_srgb_code_and_random_bc1_blocks() {
    let files: BTreeMap<String, Vec<u8>> = archive_named("textures2.tgz")
        .into_iter()
        .map(|(k, v)| (k.replacen("textures2/", "textures/", 1), v))
        .collect();
    let cases: Vec<Value> = serde_json::from_slice(&files["textures/cases.json"]).unwrap();
    let bytes = textures_cubin();
    let cubin = Cubin::parse(&bytes).unwrap();
    let mut rt = common::runtime(Duration::from_secs(600));
    let mut pools = Pools::install(&mut rt, 256);
    for name in ["rgba8_srgb_point_all", "bc1_point_hash"] {
        let case = cases.iter().find(|c| c["name"] == name).expect("case recorded");
        let bad = run_case(&mut rt, &cubin, &files, case, &mut pools);
        assert!(bad.is_empty(), "{name}: {}", bad.join("; "));
    }
}

/// The third H200 recording (`textures3.tgz`, `record_tex3.cu`, 2026-12-02 15:09 UTC, driver 580.159.04):
/// cube maps (point, linear, directions off the faces' centres, cube arrays through plain `TEX ... ARRAY_CUBE`),
/// mipmapped arrays with a point mip filter at LOD steps of 1/64 and 1/256, and SURED add/min/max/and/or with
/// .trap/.zero/.clamp, bit for bit. Linear mip filtering, LOD from gradients, seamless cube filtering and TLD
/// with .AOFFI are recorded there too and refused by name (texture faults / a translation refusal).
#[test]
fn third_recording_cubes_point_mips_and_surface_reductions() {
    let files: BTreeMap<String, Vec<u8>> = archive_named("textures3.tgz")
        .into_iter()
        .map(|(k, v)| (k.replacen("textures3/", "textures/", 1), v))
        .collect();
    let cases: Vec<Value> = serde_json::from_slice(&files["textures/cases.json"]).unwrap();
    let bytes = textures_cubin();
    let cubin = Cubin::parse(&bytes).unwrap();
    let mut rt = common::runtime(Duration::from_secs(600));
    let mut pools = Pools::install(&mut rt, 64);
    let claimed = [
        "cube_rgba8_point",
        "cube_rgba8_linear",
        "cube_rgba8_point_edges",
        "cube_layered_point",
        "mip_rgba8_lod_point",
        "mip_f32_lod_point",
        "surf2d_red",
    ];
    let mut differ = Vec::new();
    for name in claimed {
        let case = cases.iter().find(|c| c["name"] == name).expect("case recorded");
        let bad = run_case(&mut rt, &cubin, &files, case, &mut pools);
        if !bad.is_empty() {
            differ.push(format!("{name}: {}", bad.join("; ")));
        }
    }
    assert!(differ.is_empty(), "differ from the H200: {differ:?}");
    // A linear mip filter between levels is refused at run time by name, never silently wrong.
    let case = cases.iter().find(|c| c["name"] == "mip_f32_lod_linear").unwrap();
    let bad = run_case(&mut rt, &cubin, &files, case, &mut pools);
    assert!(bad.iter().any(|b| b.contains("texture handle")), "mip_f32_lod_linear: {bad:?}");
}

/// BC3 against 1024 blocks of the H200's `bc3_point_alpha_all` (every alpha endpoint pair of the second
/// recording; `bc3_sample.tgz` holds 1024 of its blocks with their recorded texels, 256 values of each endpoint,
/// both alpha modes): the colour half in four-colour mode and the fitted alpha weights, bit for bit.
#[test]
fn bc3_blocks_decode_like_h200() {
    let files = archive_named("bc3_sample.tgz");
    let cases: Vec<Value> = serde_json::from_slice(&files["textures/cases.json"]).unwrap();
    let bytes = textures_cubin();
    let cubin = Cubin::parse(&bytes).unwrap();
    let mut rt = common::runtime(Duration::from_secs(120));
    let mut pools = Pools::install(&mut rt, 4);
    let bad = run_case(&mut rt, &cubin, &files, &cases[0], &mut pools);
    assert!(bad.is_empty(), "bc3_point_sample: {}", bad.join("; "));
}

/// TXQ TEX_HEADER_DIMENSION (`txq_dims`: width, height, depth at level 0, then at level `level` = 1) against
/// the extents the host wrote into each header, as the H200 answered for the same arrays (`record_textures.py`
/// cases `txq_*`, recorded 2026-12-02 12:46 UTC, in `textures2.tgz`).
#[test]
fn txq_reports_header_dimensions() {
    let bytes = textures_cubin();
    let cubin = Cubin::parse(&bytes).unwrap();
    let mut rt = common::runtime(Duration::from_secs(60));
    let id = load(&mut rt, &cubin, "txq_dims");
    let mut pools = Pools::install(&mut rt, 16);
    let tex = serde_json::json!({"filter": 0, "read": 0, "normalized": 0, "modes": ["clamp", "clamp", "clamp"]});
    let cases = [(8, 0, 0, 0), (7, 5, 0, 0), (9, 3, 4, 0), (5, 3, 2, 1)];
    for (w, h, d, flags) in cases {
        let mut res = serde_json::json!({"type": "array", "channels": 1, "bits": 32, "kind": 2, "width": w});
        if h > 0 {
            res["height"] = h.into();
        }
        if d > 0 {
            res["depth"] = d.into();
            res["flags"] = flags.into();
        }
        let placed = header(&res, &tex, rt.alloc(4096).unwrap());
        let handle = bind(&mut rt, &mut pools, &placed.header, &sampler(&tex));
        let out = rt.alloc(24).unwrap();
        rt.upload(out, &[0xAB; 24]).unwrap();
        let mut params = Vec::new();
        push(&mut params, &handle.to_le_bytes());
        push(&mut params, &out.to_le_bytes());
        push(&mut params, &1i32.to_le_bytes());
        let bank0 = Bank0::new([1, 1, 1], [1, 1, 1]).with_params(&params);
        let banks: Vec<(u32, &[u8])> = vec![(0, bank0.as_bytes())];
        rt.launch(&Launch { kernel: id, grid: [1, 1, 1], block: [1, 1, 1], dynamic_shared_bytes: 0, banks: &banks })
            .unwrap();
        let mut got = [0u8; 24];
        rt.download(out, &mut got).unwrap();
        let got: Vec<u32> = got.chunks(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
        // The H200's answers (`txq_*` of textures2.tgz, 12:46 UTC): depth 0 for 1-D/2-D, level 1
        // of a one-level array all 0.
        assert_eq!(got, [w, h.max(1), d, 0, 0, 0], "{res}");
    }
}

/// Runs `kernel` (its first parameter an array of two handles; odd threads take the second) over the textures
/// of recorded cases `pair` (launched with the first's parameters): the mismatching threads against each
/// half's recording (`width` output bytes a thread).
fn run_pick(rt: &mut Runtime, cubin: &Cubin<'_>, files: &BTreeMap<String, Vec<u8>>, kernel: &str, pair: [&Value; 2], width: usize) -> usize {
    let id = load(rt, cubin, kernel);
    let mut pools = Pools::install(rt, 16);
    let mut handles = Vec::new();
    for case in pair {
        let (res, tex) = (&case["res"], &case["tex"]);
        let texels = files[&format!("textures/{}/texels.bin", case["name"].as_str().unwrap())].clone();
        let size = place(&header(res, tex, 0), &texels, res).len();
        let src = rt.alloc(size as u64).unwrap();
        let placed = header(res, tex, src);
        rt.upload(src, &place(&placed, &texels, res)).unwrap();
        handles.extend_from_slice(&bind(rt, &mut pools, &placed.header, &sampler(tex)).to_le_bytes());
    }
    let ts = rt.alloc(16).unwrap();
    rt.upload(ts, &handles).unwrap();
    let launch = &pair[0]["launch"];
    let n = launch["n"].as_u64().unwrap() as usize;
    let out = rt.alloc((width * n) as u64).unwrap();
    rt.upload(out, &vec![0xAB; width * n]).unwrap();
    let mut params = Vec::new();
    push(&mut params, &ts.to_le_bytes());
    push(&mut params, &out.to_le_bytes());
    push(&mut params, &(n as i32).to_le_bytes());
    if let Some(c) = launch.get("cols").and_then(Value::as_i64) {
        push(&mut params, &(c as i32).to_le_bytes());
    }
    for f in launch.get("floats").and_then(Value::as_array).into_iter().flatten() {
        push(&mut params, &(f.as_f64().unwrap() as f32).to_le_bytes());
    }
    for i in launch.get("ints").and_then(Value::as_array).into_iter().flatten() {
        push(&mut params, &(i.as_i64().unwrap() as i32).to_le_bytes());
    }
    let grid = [(n as u32).div_ceil(256), 1, 1];
    let bank0 = Bank0::new(grid, [256, 1, 1]).with_params(&params);
    let banks: Vec<(u32, &[u8])> = vec![(0, bank0.as_bytes())];
    rt.launch(&Launch { kernel: id, grid, block: [256, 1, 1], dynamic_shared_bytes: 0, banks: &banks }).unwrap();
    let mut got = vec![0u8; width * n];
    rt.download(out, &mut got).unwrap();
    let want = pair.map(|c| &files[&format!("textures/{}/out.bin", c["name"].as_str().unwrap())]);
    (0..n).filter(|&i| got[width * i..width * (i + 1)] != want[i % 2][width * i..width * (i + 1)]).count()
}

/// Register handles (`.B`: the handle loaded from memory into a register) against the H200's recordings of the
/// same textures and coordinates through constant-bank handles: TEX.SCR.B.LL (`tex2d_pick`: linear-filtered
/// case for even threads, point-sampled for odd), TLD4.SCR.B (`tex2d_gather_pick`: normalized and element
/// reads), TXD.B (`tex2d_grad_pick`, whose handle is the first register of Ra) and TLD.SCR.B.LZ
/// (`tex1d_fetch_pick`; the second handle is a second pool entry for the same buffer).
#[test]
fn register_handles_match_h200_recordings() {
    let files = archive();
    let cases: Vec<Value> = serde_json::from_slice(&files["textures/cases.json"]).unwrap();
    let find = |n: &str| cases.iter().find(|c| c["name"] == n).unwrap().clone();
    let bytes = textures_cubin();
    let cubin = Cubin::parse(&bytes).unwrap();
    let mut rt = common::runtime(Duration::from_secs(120));
    let runs = [
        ("tex2d_pick", "rgba8_linear_clamp_unnorm", "rgba8_point_clamp_unnorm", 16),
        ("tex2d_gather_pick", "rgba8_gather_clamp", "u8x4_gather_elem_clamp", 64),
        ("tex2d_grad_pick", "rgba8_grad", "rgba8_grad", 16),
        ("tex1d_fetch_pick", "fetch_u32", "fetch_u32", 4),
    ];
    for (kernel, even, odd, width) in runs {
        let (a, b) = (find(even), find(odd));
        let bad = run_pick(&mut rt, &cubin, &files, kernel, [&a, &b], width);
        assert_eq!(bad, 0, "{kernel}: {bad} threads differ from the H200");
    }
}

/// One BC1 texel as NVIDIA's decoder gives it (NVIDIA Texture Tools' documented arithmetic; 1024 of 1024
/// words of the H200's `bc1_point`): the host side of [`bc1_wide_texture_decodes_like_nvidia`].
fn bc1_nv(block: &[u8], p: usize) -> [u8; 4] {
    let c = |i: usize| u32::from(u16::from_le_bytes([block[i], block[i + 1]]));
    let (c0, c1) = (c(0), c(2));
    let idx = (u32::from_le_bytes([block[4], block[5], block[6], block[7]]) >> (2 * p)) & 3;
    let five = |v: u32, lo: u32| (v >> lo) & 31;
    let g6 = |v: u32| (v >> 5) & 63;
    let (r0, r1, b0, b1) = (five(c0, 11), five(c1, 11), five(c0, 0), five(c1, 0));
    let x5 = |v: u32| (v << 3) | (v >> 2);
    let x6 = |v: u32| (v << 2) | (v >> 4);
    let (g0, g1) = (x6(g6(c0)) as i32, x6(g6(c1)) as i32);
    let gd = g1 - g0;
    let four = c0 > c1;
    let pick = match (idx, four) {
        (0, _) => [x5(r0), g0 as u32, x5(b0), 255],
        (1, _) => [x5(r1), g1 as u32, x5(b1), 255],
        (2, true) => [(2 * r0 + r1) * 22 / 8, ((256 * g0 + gd / 4 + 128 + gd * 80) / 256) as u32, (2 * b0 + b1) * 22 / 8, 255],
        (3, true) => [(2 * r1 + r0) * 22 / 8, ((256 * g1 - gd / 4 + 128 - gd * 80) / 256) as u32, (2 * b1 + b0) * 22 / 8, 255],
        (2, false) => [(r0 + r1) * 33 / 8, ((256 * g0 + gd / 4 + 128 + gd * 128) / 256) as u32, (b0 + b1) * 33 / 8, 255],
        _ => [0, 0, 0, 0],
    };
    pick.map(|v| v as u8)
}

/// A 256×256 BC1 texture (64×64 blocks over many GOBs and block rows, block-linear) point-sampled at every
/// texel centre through `tex2d_f4`, against the host decoder above: the shader's block addressing and decode.
#[test]
fn bc1_wide_texture_decodes_like_nvidia() {
    let bytes = textures_cubin();
    let cubin = Cubin::parse(&bytes).unwrap();
    let mut rt = common::runtime(Duration::from_secs(120));
    let id = load(&mut rt, &cubin, "tex2d_f4");
    let mut pools = Pools::install(&mut rt, 4);
    let side = 256usize;
    let res = serde_json::json!({"type": "bc", "channels": 4, "bits": 8, "kind": 17, "width": side, "height": side});
    let tex = serde_json::json!({"filter": 0, "read": 1, "normalized": 0, "modes": ["clamp", "clamp"]});
    let n_bytes = side / 4 * side / 4 * 8;
    let mut state = 0x1234_5678u32;
    let texels: Vec<u8> = (0..n_bytes)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            state as u8
        })
        .collect();
    let size = place(&header(&res, &tex, 0), &texels, &res).len();
    let src = rt.alloc(size as u64).unwrap();
    let placed = header(&res, &tex, src);
    rt.upload(src, &place(&placed, &texels, &res)).unwrap();
    let handle = bind(&mut rt, &mut pools, &placed.header, &sampler(&tex));
    let n = side * side;
    let out = rt.alloc(16 * n as u64).unwrap();
    let mut params = Vec::new();
    push(&mut params, &handle.to_le_bytes());
    push(&mut params, &out.to_le_bytes());
    push(&mut params, &(n as i32).to_le_bytes());
    push(&mut params, &(side as i32).to_le_bytes());
    for f in [0.5f32, 1.0, 1.0] {
        push(&mut params, &f.to_le_bytes());
    }
    let grid = [(n as u32).div_ceil(256), 1, 1];
    let bank0 = Bank0::new(grid, [256, 1, 1]).with_params(&params);
    let banks: Vec<(u32, &[u8])> = vec![(0, bank0.as_bytes())];
    rt.launch(&Launch { kernel: id, grid, block: [256, 1, 1], dynamic_shared_bytes: 0, banks: &banks }).unwrap();
    let mut got = vec![0u8; 16 * n];
    rt.download(out, &mut got).unwrap();
    let mut bad = 0;
    for y in 0..side {
        for x in 0..side {
            let b = (y / 4 * (side / 4) + x / 4) * 8;
            let want = bc1_nv(&texels[b..b + 8], (y % 4) * 4 + x % 4);
            let i = 16 * (y * side + x);
            for k in 0..4 {
                let g = f32::from_le_bytes([got[i + 4 * k], got[i + 4 * k + 1], got[i + 4 * k + 2], got[i + 4 * k + 3]]);
                if g.to_bits() != ((f64::from(want[k]) / 255.0) as f32).to_bits() {
                    bad += 1;
                }
            }
        }
    }
    assert_eq!(bad, 0, "{bad} of {} components differ from the host decoder", 4 * n);
}

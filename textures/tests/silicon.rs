//! The host model (`sassport_textures::sample`, texel conversions, BC decoding) against texture fetches
//! recorded on an NVIDIA H200 (`tests/silicon/textures.tgz`: CuPy texture and surface objects over our own
//! kernels, `corpus/silicon/textures/`). Every case the model claims is compared bit for bit.

mod support;

use std::collections::BTreeMap;

use sassport_textures::sample::{
    axis, blend_float, blend_unorm8, border_unorm8, snorm, taps_2d, unorm, Rounding,
};
use sassport_textures::{AddressMode, Filter};
use serde_json::Value;

struct Recording {
    cases: Vec<Value>,
    files: BTreeMap<String, Vec<u8>>,
}

fn recording() -> Recording {
    let files = support::archive::files();
    let cases = files
        .get("textures/cases.json")
        .expect("cases.json in the archive");
    let cases: Vec<Value> = serde_json::from_slice(cases).expect("cases.json");
    Recording { cases, files }
}

impl Recording {
    fn case(&self, name: &str) -> &Value {
        self.cases
            .iter()
            .find(|c| c["name"] == name)
            .unwrap_or_else(|| panic!("no case {name}"))
    }
    fn file(&self, name: &str, what: &str) -> &[u8] {
        let key = format!("textures/{name}/{what}");
        self.files
            .get(&key)
            .unwrap_or_else(|| panic!("{key} missing: see log.txt in the archive"))
    }
}

fn words(b: &[u8]) -> Vec<u32> {
    b.chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

fn num(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

/// Thread `i`'s coordinates as the kernel computes them: `fma(step, column, x0) * scale` (nvcc fuses it).
fn coords(i: u32, cols: u32, f: &[f32]) -> (f32, f32) {
    let (x0, step, scale) = (f[0], f[1], f[2]);
    let x = step.mul_add((i % cols) as f32, x0) * scale;
    let y = step.mul_add((i / cols) as f32, x0) * scale;
    (x, y)
}

fn mode(name: &Value) -> AddressMode {
    match name.as_str() {
        Some("wrap") => AddressMode::Wrap,
        Some("clamp") => AddressMode::ClampToEdge,
        Some("mirror") => AddressMode::Mirror,
        Some("border") => AddressMode::Border,
        other => panic!("address mode {other:?}"),
    }
}

/// Texels of a 2-D (or 1-D) float or normalized-read case as float4, row-major.
fn float_texels(rec: &Recording, c: &Value) -> Vec<[f32; 4]> {
    let res = &c["res"];
    let bytes = rec.file(c["name"].as_str().unwrap_or_default(), "texels.bin");
    let channels = res["channels"].as_u64().unwrap_or(1) as usize;
    let (bits, kind) = (
        res["bits"].as_u64().unwrap_or(0),
        res["kind"].as_u64().unwrap_or(9),
    );
    let values: Vec<f32> = match (bits, kind) {
        (32, 2) => words(bytes).into_iter().map(f32::from_bits).collect(),
        (8, 1) => bytes.iter().map(|&b| unorm(b as u32, 8)).collect(),
        (8, 0) => bytes.iter().map(|&b| snorm(b as i8 as i32, 8)).collect(),
        (16, 1) => bytes
            .chunks_exact(2)
            .map(|h| unorm(u16::from_le_bytes([h[0], h[1]]) as u32, 16))
            .collect(),
        other => panic!("texel kind {other:?}"),
    };
    values
        .chunks_exact(channels)
        .map(|t| {
            let mut v = [0f32; 4];
            v[..channels].copy_from_slice(t);
            v
        })
        .collect()
}

/// What the model predicts for a `tex2d_f4` / `tex2d_f1` / `tex1d_f1` case, one float4 per thread.
fn predict(rec: &Recording, c: &Value, rounding: Rounding) -> Vec<[f32; 4]> {
    let res = &c["res"];
    let tex = &c["tex"];
    let launch = &c["launch"];
    let texels = float_texels(rec, c);
    // UNORM8 textures read as floats are filtered in fixed point on the bytes (`blend_unorm8`).
    let bytes: Option<Vec<[u8; 4]>> = (res["bits"].as_u64() == Some(8) && res["kind"].as_u64() == Some(1))
        .then(|| {
            let raw = rec.file(c["name"].as_str().unwrap_or_default(), "texels.bin");
            let ch = res["channels"].as_u64().unwrap_or(4) as usize;
            raw.chunks_exact(ch)
                .map(|t| {
                    let mut v = [0u8; 4];
                    v[..ch].copy_from_slice(t);
                    v
                })
                .collect()
        });
    let w = res["width"].as_u64().unwrap_or(1) as u32;
    let h = res["height"].as_u64().unwrap_or(1).max(1) as u32;
    let normalized = tex["normalized"].as_u64() == Some(1);
    let filter = if tex["filter"].as_u64() == Some(1) {
        Filter::Linear
    } else {
        Filter::Point
    };
    let modes: Vec<AddressMode> = tex["modes"]
        .as_array()
        .map(|m| m.iter().map(mode).collect())
        .unwrap_or_default();
    let border = match tex["border"].as_array() {
        Some(b) => [
            num(&b[0]) as f32,
            num(&b[1]) as f32,
            num(&b[2]) as f32,
            num(&b[3]) as f32,
        ],
        None => [0.0; 4],
    };
    let floats: Vec<f32> = launch["floats"]
        .as_array()
        .map(|f| f.iter().map(|v| num(v) as f32).collect())
        .unwrap_or_default();
    let n = launch["n"].as_u64().unwrap_or(0) as u32;
    let one_d = c["kernel"] == "tex1d_f1";
    (0..n)
        .map(|i| {
            let (x, y) = if one_d {
                (floats[1].mul_add(i as f32, floats[0]) * floats[2], 0.5)
            } else {
                coords(i, launch["cols"].as_u64().unwrap_or(1) as u32, &floats)
            };
            let ax = axis(x, w, normalized, modes[0], filter, rounding);
            let ay = if one_d {
                axis(0.5, 1, false, AddressMode::ClampToEdge, Filter::Point, rounding)
            } else {
                axis(y, h, normalized, modes[1], filter, rounding)
            };
            let taps = taps_2d(&ax, &ay);
            match &bytes {
                Some(b) => {
                    let t: Vec<(Option<[u8; 4]>, u32)> = taps
                        .into_iter()
                        .map(|(idx, wt)| (idx.map(|(x, y)| b[(y * w + x) as usize]), wt))
                        .collect();
                    blend_unorm8(&t, border.map(border_unorm8))
                }
                None => {
                    let t: Vec<(Option<[f32; 4]>, u32)> = taps
                        .into_iter()
                        .map(|(idx, wt)| (idx.map(|(x, y)| texels[(y * w + x) as usize]), wt))
                        .collect();
                    blend_float(&t, border)
                }
            }
        })
        .collect()
}

/// Compares a float case bit for bit; returns the number of differing components.
fn mismatches(rec: &Recording, name: &str, rounding: Rounding) -> (usize, usize) {
    let c = rec.case(name);
    let got = words(rec.file(name, "out.bin"));
    let want = predict(rec, c, rounding);
    let per = if c["kernel"] == "tex2d_f4" { 4 } else { 1 };
    let mut bad = 0;
    for (i, t) in want.iter().enumerate() {
        for k in 0..per {
            if got[i * per + k] != t[k].to_bits() {
                if bad < 4 {
                    eprintln!(
                        "{name} thread {i} component {k}: silicon {:#010x}, model {:#010x}",
                        got[i * per + k],
                        t[k].to_bits()
                    );
                }
                bad += 1;
            }
        }
    }
    (bad, want.len() * per)
}

/// The cases the model reproduces exactly (the rest are listed in docs/textures.md with their figures).
const EXACT: &[&str] = &[
    "rgba8_point_clamp_unnorm",
    "rgba8_point_border_unnorm",
    "rgba8_point_wrap_norm",
    "rgba8_point_clamp_norm",
    "rgba8_point_mirror_norm",
    "rgba8_point_border_norm",
    "rgba8_linear_clamp_unnorm",
    "rgba8_linear_border_unnorm",
    "rgba8_linear_wrap_norm",
    "rgba8_linear_clamp_norm",
    "rgba8_linear_mirror_norm",
    "rgba8_linear_border_norm",
    "rgba8_linear_weights",
    "f32_linear_weights01",
    "f32_linear_weights_m3_5",
    "f32_point_subtexel",
    "f32_linear_subtexel",
    "f32_linear_2d",
    "f32_1d_point_clamp",
    "f32_1d_point_wrap",
    "f32_1d_point_mirror",
    "f32_1d_linear_clamp",
    "f32_1d_linear_wrap",
    "f32_1d_linear_mirror",
    "s8x4_snorm_point",
    "u16x4_unorm_point",
    "f32_linear_norm5",
    "f32_linear_weights_big",
];

#[test]
fn modelled_cases_match_silicon_bit_for_bit() {
    let rec = recording();
    let mut failed = Vec::new();
    for name in EXACT {
        let (bad, total) = mismatches(&rec, name, Rounding::Nearest);
        if bad != 0 {
            failed.push(format!("{name}: {bad} of {total} differ"));
        }
    }
    assert!(failed.is_empty(), "{failed:#?}");
}

/// tex1Dfetch on linear memory: in-range elements as stored (UNORM8 as `v / 255`), out-of-range indices 0.
#[test]
fn buffer_fetches_match_silicon() {
    let rec = recording();
    let t = words(rec.file("fetch_u32", "texels.bin"));
    let o = words(rec.file("fetch_u32", "out.bin"));
    for (i, got) in o.iter().enumerate() {
        let j = i as i64 - 16;
        let want = if (0..64).contains(&j) { t[j as usize] } else { 0 };
        assert_eq!(*got, want, "fetch_u32 thread {i}");
    }
    let t = rec.file("fetch_rgba8_unorm", "texels.bin");
    let o = words(rec.file("fetch_rgba8_unorm", "out.bin"));
    for (i, got) in o.iter().enumerate() {
        let j = i as i64 / 4 - 8;
        let want = if (0..64).contains(&j) {
            unorm(t[j as usize * 4 + i % 4] as u32, 8)
        } else {
            0.0
        };
        assert_eq!(*got, want.to_bits(), "fetch_rgba8_unorm word {i}");
    }
    let t = words(rec.file("fetch_f32x4", "texels.bin"));
    let o = words(rec.file("fetch_f32x4", "out.bin"));
    for (i, got) in o.iter().enumerate() {
        let j = i as i64 / 4 - 8;
        let want = if (0..64).contains(&j) {
            t[j as usize * 4 + i % 4]
        } else {
            0
        };
        assert_eq!(*got, want, "fetch_f32x4 word {i}");
    }
}

/// surf2Dread with cudaBoundaryModeZero (SULD .IGN: 0 outside) and cudaBoundaryModeClamp (no suffix: the
/// coordinates clamp to the edge), and surf2Dwrite to mirrored positions.
#[test]
fn surface_reads_and_writes_match_silicon() {
    let rec = recording();
    let (w, h) = (6i64, 4i64);
    let t = words(rec.file("surf2d_u32", "texels.bin"));
    let o = words(rec.file("surf2d_u32", "out.bin"));
    let d = words(rec.file("surf2d_u32", "dst.bin"));
    for i in 0..48i64 {
        let (x, y) = (i % (w + 2) - 1, i / (w + 2) - 1);
        let inside = (0..w).contains(&x) && (0..h).contains(&y);
        let zero = if inside { t[(y * w + x) as usize] } else { 0 };
        let clamp = t[(y.clamp(0, h - 1) * w + x.clamp(0, w - 1)) as usize];
        assert_eq!(
            (o[i as usize * 3], o[i as usize * 3 + 1]),
            (zero, clamp),
            "surf2d_u32 thread {i} ({x}, {y})"
        );
    }
    for y in 0..h {
        for x in 0..w {
            let want = t[(y * w + x) as usize].wrapping_mul(3).wrapping_add(1);
            assert_eq!(
                d[(y * w + (w - 1 - x)) as usize],
                want,
                "surf2d_u32 dst ({x}, {y})"
            );
        }
    }
    let t = rec.file("surf3d_u8", "texels.bin");
    let d = rec.file("surf3d_u8", "dst.bin");
    let (w, h, depth) = (9usize, 3usize, 4usize);
    for z in 0..depth {
        for i in 0..w * h {
            let want = t[z * w * h + i].wrapping_add((z * 16 + 1) as u8);
            assert_eq!(
                d[(depth - 1 - z) * w * h + i],
                want,
                "surf3d_u8 slice {z} texel {i}"
            );
        }
    }
}

/// tex2Dgather (TLD4 .R/.G/.B/.A): the bilinear footprint of `u − ½` (same rounding as filtering), texels in
/// the order (x0, y1), (x1, y1), (x1, y0), (x0, y0); UNORM8 as `v / 255`, element reads as the raw integers,
/// border taps 0.
#[test]
fn gathers_match_silicon() {
    let rec = recording();
    for name in [
        "rgba8_gather_clamp",
        "rgba8_gather_border",
        "u8x4_gather_elem_clamp",
        "u8x4_gather_elem_border",
    ] {
        let c = rec.case(name);
        let launch = &c["launch"];
        let floats: Vec<f32> = launch["floats"]
            .as_array()
            .map(|f| f.iter().map(|v| num(v) as f32).collect())
            .unwrap_or_default();
        let cols = launch["cols"].as_u64().unwrap_or(1) as u32;
        let m = mode(&c["tex"]["modes"][0]);
        let raw = c["tex"]["read"].as_u64() == Some(0);
        let t = rec.file(name, "texels.bin");
        let o = words(rec.file(name, "out.bin"));
        let (w, h) = (7u32, 5u32);
        for i in 0..launch["n"].as_u64().unwrap_or(0) as u32 {
            let (x, y) = coords(i, cols, &floats);
            let ax = axis(x, w, false, m, Filter::Linear, Rounding::Nearest);
            let ay = axis(y, h, false, m, Filter::Linear, Rounding::Nearest);
            let order = [(0, 1), (1, 1), (1, 0), (0, 0)];
            for comp in 0..4 {
                for (k, (a, b)) in order.iter().enumerate() {
                    let v = ax[*a]
                        .index
                        .zip(ay[*b].index)
                        .map_or(0, |(x, y)| t[((y * w + x) * 4) as usize + comp]);
                    let want = if raw {
                        v as u32
                    } else {
                        unorm(v as u32, 8).to_bits()
                    };
                    let got = o[(i as usize * 4 + comp) * 4 + k];
                    assert_eq!(got, want, "{name} thread {i} component {comp} texel {k}");
                }
            }
        }
    }
}

/// tex2DLayered and tex3D on float textures: the layer index is clamped as an unsigned integer (layer −1
/// reads the last layer); 3-D filtering with the 2-D corner rule per slice and the z weight (this probe's
/// weights are multiples of 1/4, so it cannot tell that rule from an exact product).
#[test]
fn layered_and_3d_match_silicon() {
    let rec = recording();
    let floats = |c: &Value| -> Vec<f32> {
        c["launch"]["floats"]
            .as_array()
            .map(|f| f.iter().map(|v| num(v) as f32).collect())
            .unwrap_or_default()
    };
    for name in [
        "f32_layered_point",
        "f32_layered_linear",
        "f32_3d_point",
        "f32_3d_linear",
    ] {
        let c = rec.case(name);
        let f = floats(c);
        let filter = if c["tex"]["filter"].as_u64() == Some(1) {
            Filter::Linear
        } else {
            Filter::Point
        };
        let t: Vec<f32> = words(rec.file(name, "texels.bin"))
            .into_iter()
            .map(f32::from_bits)
            .collect();
        let o = words(rec.file(name, "out.bin"));
        let layered = name.contains("layered");
        let (w, h, d) = if layered { (4u32, 4u32, 3u32) } else { (4, 3, 5) };
        for i in 0..c["launch"]["n"].as_u64().unwrap_or(0) as u32 {
            let (x, y) = coords(i % 64, 8, &f);
            let ax = axis(x, w, false, AddressMode::ClampToEdge, filter, Rounding::Nearest);
            let ay = axis(y, h, false, AddressMode::ClampToEdge, filter, Rounding::Nearest);
            let planar = taps_2d(&ax, &ay);
            let slices: Vec<(u32, u32)> = if layered {
                let layer = (i / 64) as i64 - 1;
                let layer = (layer.min(4) as u32).min(d - 1); // unsigned clamp
                vec![(layer, 256)]
            } else {
                let z = f[1].mul_add((i / 64) as f32, f[0]) * f[2];
                axis(z, d, false, AddressMode::ClampToEdge, filter, Rounding::Nearest)
                    .iter()
                    .map(|tap| (tap.index.unwrap_or(0), tap.weight))
                    .collect()
            };
            let mut taps = Vec::new();
            for (slice, wz) in &slices {
                for (idx, wxy) in &planar {
                    let v = idx.map(|(x, y)| [t[((slice * h + y) * w + x) as usize], 0.0, 0.0, 0.0]);
                    taps.push((v, (wxy * wz + 128) >> 8));
                }
            }
            let want = blend_float(&taps, [0.0; 4])[0];
            assert_eq!(o[i as usize], want.to_bits(), "{name} thread {i}");
        }
    }
}

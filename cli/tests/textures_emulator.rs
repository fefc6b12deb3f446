//! The emulator path of issue 20: texture headers and samplers written into pools in guest memory the way a
//! guest driver does, a block-linear mip chain (odd extents, 4 levels, clamped block heights) and a layered
//! chain tiled into guest memory, each level sampled by a translated shader (`tex2d_f4` of
//! `corpus/silicon/textures/textures.cu`, sm_86) through a header whose view selects that level — against
//! texels computed here from the formula that made them and the host model of H200 filtering
//! (`sassport_textures::sample`, fitted to the silicon recordings), not from the shader's own arithmetic.
//!
//! The pool entries are read back from guest memory and decoded on the host too (`TextureHeader::decode`,
//! `Sampler::decode`), the chain's placement comes from the decoded header (`Chain::new`) and the
//! engines' block-linear layout, and the host's upload side untiles the whole chain from guest memory
//! (`untile_chain`) into texels checked against the same formula.

mod common;

use sassport_engines::layout::SectorLayout;
use sassport_runtime::{Bank0, Launch, Runtime};
use sassport_textures::sample::{axis, blend_unorm8, taps_2d, Rounding};
use sassport_textures::untile::untile_chain;
use sassport_textures::{
    AddressMode, Chain, DataType, Entry, Filter, Format, Layout, MemoryLayout, MipFilter, Reduction, Sampler, Source,
    TextureHeader, TextureType,
};
use sassport_translator::program::{Disassembler, TableDecoder};
use sassport_translator::translate::{translate_kernel_with, Options};
use sassport_translator::Cubin;
use std::path::PathBuf;
use std::time::Duration;

const W: u32 = 37;
const H: u32 = 23;
const LEVELS: u32 = 4;

/// Texel (level, layer, x, y), RGBA8: a formula with every byte value range touched.
fn texel(l: u32, layer: u32, x: u32, y: u32) -> [u8; 4] {
    let v = |k: u32| ((x * 37 + y * 101 + l * 59 + layer * 83 + k * 71).wrapping_mul(2654435761) >> 24) as u8;
    [v(0), v(1), v(2), v(3)]
}

fn header(address: u64, layers: u32, view: u32, normalized: bool) -> TextureHeader {
    TextureHeader {
        format: Format {
            layout: Layout::A8B8G8R8,
            types: [DataType::Unorm; 4],
            swizzle: [Source::R, Source::G, Source::B, Source::A],
            packed: false,
        },
        address,
        memory: MemoryLayout::BlockLinear { block_height_log2: 4, block_depth_log2: 0 },
        texture_type: if layers > 1 { TextureType::TwoDArray } else { TextureType::TwoD },
        width: W,
        height: H,
        depth: layers,
        max_mip_level: LEVELS - 1,
        view_levels: (view, view),
        srgb: false,
        normalized_coords: normalized,
        depth_texture: false,
        lod_bias: 0,
        max_anisotropy: 0,
        min_lod_clamp: 0,
        msaa: 0,
        border_size: 0,
    }
}

fn sampler(filter: Filter, mode: AddressMode) -> Sampler {
    Sampler {
        address: [mode; 3],
        compare: None,
        srgb_border: false,
        max_anisotropy: 0,
        mag_filter: filter,
        min_filter: filter,
        mip_filter: MipFilter::None,
        seamless_cube: false,
        reduction: Reduction::WeightedAverage,
        lod_bias: 0,
        min_lod: 0,
        max_lod: 0,
        border: [0; 4],
        srgb_border_rgb: [0; 3],
    }
}

/// The chain tiled into guest bytes, every level and layer, from the decoded header's chain.
fn tiled(chain: &Chain, layers: u32) -> Vec<u8> {
    let mut out = vec![0u8; chain.guest_bytes() as usize];
    for layer in 0..layers {
        for (l, level) in chain.levels.iter().enumerate() {
            let bl = level.block_linear.expect("block-linear");
            for y in 0..level.height {
                for x in 0..level.width {
                    let t = texel(l as u32, layer, x, y);
                    for (k, b) in t.iter().enumerate() {
                        let o = layer as u64 * chain.layer_stride + level.guest_offset + bl.offset(x * 4 + k as u32, y, 0);
                        out[o as usize] = *b;
                    }
                }
            }
        }
    }
    out
}

/// What the H200 model returns for thread `i` of `tex2d_f4` on level `l` of layer 0.
fn expected(l: u32, i: u32, cols: u32, f: [f32; 3], filter: Filter, mode: AddressMode, normalized: bool) -> [f32; 4] {
    let (w, h) = ((W >> l).max(1), (H >> l).max(1));
    let x = f[1].mul_add((i % cols) as f32, f[0]) * f[2];
    let y = f[1].mul_add((i / cols) as f32, f[0]) * f[2];
    let ax = axis(x, w, normalized, mode, filter, Rounding::Nearest);
    let ay = axis(y, h, normalized, mode, filter, Rounding::Nearest);
    let taps: Vec<(Option<[u8; 4]>, u32)> =
        taps_2d(&ax, &ay).into_iter().map(|(at, wt)| (at.map(|(x, y)| texel(l, 0, x, y)), wt)).collect();
    match filter {
        Filter::Linear => blend_unorm8(&taps, [0; 4]),
        Filter::Point => {
            let t = taps[0].0.unwrap_or([0; 4]);
            t.map(|b| (b as f64 / 255.0) as f32)
        }
    }
}

/// The host's upload side: guest memory read back and untiled (`untile_chain`, the engines' block-linear loops)
/// into the packed order a buffer-to-image copy reads, against the formula — level by level, layer by layer.
fn untiled_matches_formula(rt: &mut Runtime, tex: u64, chain: &Chain, layers: u32) {
    let mut guest = vec![0u8; chain.guest_bytes() as usize];
    rt.download(tex, &mut guest).unwrap();
    let mut packed = vec![0u8; chain.packed_bytes() as usize];
    untile_chain(chain, &guest, &mut packed, 0).unwrap();
    let mut at = 0;
    for (l, level) in chain.levels.iter().enumerate() {
        for layer in 0..layers {
            for y in 0..level.height {
                for x in 0..level.width {
                    let want = texel(l as u32, layer, x, y);
                    assert_eq!(packed[at..at + 4], want, "untiled level {l} layer {layer} texel ({x}, {y})");
                    at += 4;
                }
            }
        }
    }
    assert_eq!(at, packed.len());
}

fn push(params: &mut Vec<u8>, v: &[u8]) {
    while params.len() % v.len() != 0 {
        params.push(0);
    }
    params.extend_from_slice(v);
}

#[test]
fn mip_chain_from_guest_pools_sampled_through_translated_shader() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let bytes = std::fs::read(root.join("corpus/silicon/textures/textures.sm86.cubin")).unwrap();
    let cubin = Cubin::parse(&bytes).unwrap();
    let dis: &dyn Disassembler = &TableDecoder;
    let t = translate_kernel_with(&cubin, "tex2d_f4", &Options::default(), dis).unwrap();
    let mut rt: Runtime = common::runtime(Duration::from_secs(600));
    let kernel = rt.load_kernel("tex2d_f4", &t.words).unwrap();
    let tic = rt.alloc(32 * 64).unwrap();
    let tsc = rt.alloc(32 * 64).unwrap();
    rt.set_texture_pools(tic, tsc);
    let (n, cols) = (1024u32, 32u32);
    let out = rt.alloc(16 * n as u64).unwrap();
    let mut checked = 0;
    for layers in [1u32, 3] {
        let probe = header(0, layers, 0, true);
        let size = Chain::new(&probe, SectorLayout::Turing2D).unwrap().guest_bytes();
        let tex = rt.alloc(size).unwrap();
        let mut slot = 0u32;
        for view in 0..LEVELS {
            for (filter, mode, normalized) in [
                (Filter::Point, AddressMode::ClampToEdge, false),
                (Filter::Linear, AddressMode::Wrap, true),
                (Filter::Linear, AddressMode::Mirror, true),
            ] {
                // The guest driver's side: entries into the pools, texels into guest memory.
                let hdr = header(tex, layers, view, normalized);
                let smp = sampler(filter, mode);
                rt.upload(tic + 32 * slot as u64, &hdr.encode().to_bytes()).unwrap();
                rt.upload(tsc + 32 * slot as u64, &smp.encode().to_bytes()).unwrap();
                // The host's side: decode what guest memory holds, place the chain from the decoded header.
                let mut e = [0u8; 32];
                rt.download(tic + 32 * slot as u64, &mut e).unwrap();
                let decoded = TextureHeader::decode(&Entry::from_bytes(&e)).unwrap();
                assert_eq!(decoded, hdr, "the pool's header decodes to what was written");
                rt.download(tsc + 32 * slot as u64, &mut e).unwrap();
                assert_eq!(Sampler::decode(&Entry::from_bytes(&e)).unwrap(), smp);
                let chain = Chain::new(&decoded, SectorLayout::Turing2D).unwrap();
                assert_eq!(chain.levels.len() as u32, LEVELS);
                rt.upload(tex, &tiled(&chain, layers)).unwrap();
                if view == 0 {
                    untiled_matches_formula(&mut rt, tex, &chain, layers);
                }
                let f = if normalized { [-0.6f32, 0.05, 1.0] } else { [-2.0f32, 0.8 / (1 << view) as f32, 1.0] };
                let handle = (slot | (slot << 20)) as u64;
                slot += 1;
                let mut params = Vec::new();
                push(&mut params, &handle.to_le_bytes());
                push(&mut params, &out.to_le_bytes());
                push(&mut params, &(n as i32).to_le_bytes());
                push(&mut params, &(cols as i32).to_le_bytes());
                for v in f {
                    push(&mut params, &v.to_le_bytes());
                }
                let bank0 = Bank0::new([n / 256, 1, 1], [256, 1, 1]).with_params(&params);
                let banks: Vec<(u32, &[u8])> = vec![(0, bank0.as_bytes())];
                rt.launch(&Launch { kernel, grid: [n / 256, 1, 1], block: [256, 1, 1], dynamic_shared_bytes: 0, banks: &banks })
                    .unwrap();
                let mut got = vec![0u8; 16 * n as usize];
                rt.download(out, &mut got).unwrap();
                for i in 0..n {
                    let want = expected(view, i, cols, f, filter, mode, normalized);
                    for k in 0..4 {
                        let at = 16 * i as usize + 4 * k;
                        let g = u32::from_le_bytes([got[at], got[at + 1], got[at + 2], got[at + 3]]);
                        assert_eq!(
                            g,
                            want[k].to_bits(),
                            "layers {layers} level {view} {filter:?} {mode:?} thread {i} component {k}"
                        );
                    }
                }
                checked += 1;
            }
        }
        rt.free(tex).unwrap();
    }
    assert_eq!(checked, 2 * LEVELS * 3);
}

//! Host images from decoded texture headers on the test device (lavapipe by default): block-linear chains
//! untiled by `sassport-textures`, uploaded, read back and compared byte for byte; formats and samplers
//! without a host counterpart refused by name.

mod support;

use std::time::Duration;

use sassport_runtime::{DeviceSelector, Runtime, RuntimeError, RuntimeOptions, TextureMemory};
use sassport_textures::{untile_chain, Chain, Entry, Sampler, SectorLayout, TextureHeader};

fn runtime() -> Runtime {
    support::test_env();
    let device = std::env::var("SASSPORT_TEST_DEVICE").unwrap_or_else(|_| "llvmpipe".into());
    Runtime::new(RuntimeOptions {
        device: device.parse().unwrap_or(DeviceSelector::Default),
        window_bytes: Some(1 << 20),
        pipeline_timeout: Some(Duration::from_secs(60)),
        ..Default::default()
    })
    .expect("runtime")
}

/// A block-linear header: `format` word 0, type, extents, levels, GOBs-per-block height.
fn header(word0: u32, ty: u32, extent: [u32; 3], levels: u32, block_h: u32) -> TextureHeader {
    let mut e = Entry::default();
    e.0[0] = word0;
    e.0[2] = 3 << 21;
    e.0[3] = block_h << 3 | (levels - 1) << 28;
    e.0[4] = (extent[0] - 1) | ty << 23;
    e.0[5] = (extent[1] - 1) | (extent[2] - 1) << 16 | 1 << 31;
    e.0[7] = (levels - 1) << 4;
    TextureHeader::decode(&e).expect("header")
}

const RGBA8_UNORM: u32 = 0x08 | 2 << 7 | 2 << 10 | 2 << 13 | 2 << 16 | 2 << 19 | 3 << 22 | 4 << 25 | 5 << 28;
const R32_FLOAT: u32 = 0x0f | 7 << 7 | 7 << 10 | 7 << 13 | 7 << 16 | 2 << 19 | 3 << 22 | 4 << 25 | 5 << 28;

fn sampler() -> Sampler {
    // Clamp to edge everywhere, linear filters, linear mips.
    let e = Entry([
        2 | 2 << 3 | 2 << 6,
        2 | 2 << 4 | 3 << 6,
        (13 * 256) << 12,
        0,
        0,
        0,
        0,
        0,
    ]);
    Sampler::decode(&e).expect("sampler")
}

/// Creates the texture from the packed chain, reads it back, then untiles other guest bytes straight
/// into it (in place where the device allows) and reads again: both reads against `untile_chain`'s
/// packed form, whose layout the tests in sassport-textures prove against the GOB bit order.
fn round_trip(rt: &mut Runtime, h: &TextureHeader, memory: TextureMemory) {
    let chain = Chain::new(h, SectorLayout::Turing2D).expect("chain");
    let guest = |seed: usize| -> Vec<u8> {
        (0..chain.guest_bytes() as usize)
            .map(|i| (i * 97 + i / 509 + seed) as u8)
            .collect()
    };
    let mut packed = vec![0u8; chain.packed_bytes() as usize];
    untile_chain(&chain, &guest(0), &mut packed, 0).expect("untile");
    let mut t = rt
        .create_texture_in(h, &sampler(), chain.clone(), &packed, memory)
        .expect("texture");
    let mut back = vec![0u8; packed.len()];
    rt.read_texture(&t, &mut back).expect("read back");
    let again = guest(31);
    rt.upload_texture_from_guest(&mut t, &again, 0).expect("upload from guest");
    let mut back2 = vec![0u8; packed.len()];
    rt.read_texture(&t, &mut back2).expect("read back");
    let direct = t.is_direct();
    rt.destroy_texture(t);
    assert!(
        back == packed,
        "image read back differs from what was uploaded ({:?}, in place {direct})",
        h.texture_type
    );
    untile_chain(&chain, &again, &mut packed, 0).expect("untile");
    assert!(
        back2 == packed,
        "image read back differs from the guest bytes untiled into it ({:?}, in place {direct})",
        h.texture_type
    );
}

#[test]
fn block_linear_chains_upload_exactly() {
    let mut rt = runtime();
    for memory in [TextureMemory::Staged, TextureMemory::Auto] {
        round_trip(&mut rt, &header(RGBA8_UNORM, 1, [300, 170, 1], 9, 4), memory);
        round_trip(&mut rt, &header(RGBA8_UNORM, 5, [64, 40, 3], 7, 2), memory); // 2-D array, 3 layers
        round_trip(&mut rt, &header(R32_FLOAT, 2, [20, 12, 9], 4, 1), memory); // 3-D
        round_trip(&mut rt, &header(RGBA8_UNORM, 3, [16, 16, 1], 5, 1), memory); // cube: 6 faces
    }
    // One level of a 2-D RGBA8 texture is what lavapipe takes linearly: it must be written in place.
    let h = header(RGBA8_UNORM, 1, [300, 170, 1], 1, 4);
    round_trip(&mut rt, &h, TextureMemory::Auto);
}

#[test]
fn unsupported_formats_and_samplers_are_refused_by_name() {
    let mut rt = runtime();
    // R32 UNORM has no Vulkan format.
    let h = header(0x0f | 2 << 7 | 2 << 19, 1, [8, 8, 1], 1, 0);
    let chain = Chain::new(&h, SectorLayout::Turing2D).expect("chain");
    let packed = vec![0u8; chain.packed_bytes() as usize];
    match rt.create_texture(&h, &sampler(), chain, &packed) {
        Err(RuntimeError::Texture(m)) => assert!(m.contains("R32"), "{m}"),
        other => panic!("expected a refusal, got {:?}", other.map(|_| ())),
    }
    // GL_CLAMP (address mode 4) has no Vulkan address mode.
    let s = Sampler::decode(&Entry([4, 2 | 2 << 4 | 1 << 6, 0, 0, 0, 0, 0, 0])).expect("sampler");
    let h = header(RGBA8_UNORM, 1, [8, 8, 1], 1, 0);
    let chain = Chain::new(&h, SectorLayout::Turing2D).expect("chain");
    let packed = vec![0u8; chain.packed_bytes() as usize];
    match rt.create_texture(&h, &s, chain, &packed) {
        Err(RuntimeError::Texture(m)) => assert!(m.contains("ClampOgl"), "{m}"),
        other => panic!("expected a refusal, got {:?}", other.map(|_| ())),
    }
}

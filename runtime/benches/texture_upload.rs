//! Untiling + upload of a 1080p RGBA8 block-linear texture against memcpy of its bytes (issue 20's target:
//! at least 0.8× memcpy). Untiling writes straight into the texture's mapped staging memory; the upload is
//! the device's buffer-to-image copy, waited for. On lavapipe that copy is a second CPU pass over the bytes;
//! the in-place path (a linear image in memory shared with the host, `TextureMemory::Auto`) untiles straight
//! into the image and has no copy.

use std::time::{Duration, Instant};

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use sassport_runtime::{DeviceSelector, Runtime, RuntimeError, RuntimeOptions, TextureMemory};
use sassport_textures::{untile_chain, Chain, Entry, Sampler, SectorLayout, TextureHeader};

fn header() -> TextureHeader {
    let mut e = Entry::default();
    e.0[0] = 0x08 | 2 << 7 | 2 << 10 | 2 << 13 | 2 << 16 | 2 << 19 | 3 << 22 | 4 << 25 | 5 << 28;
    e.0[2] = 3 << 21;
    e.0[3] = 4 << 3;
    e.0[4] = 1919 | 1 << 23;
    e.0[5] = 1079 | 1 << 31;
    TextureHeader::decode(&e).expect("header")
}

fn ratio(_c: &mut Criterion) {
    let device = std::env::var("SASSPORT_TEST_DEVICE").unwrap_or_else(|_| "llvmpipe".into());
    let mut rt = Runtime::new(RuntimeOptions {
        device: device.parse().unwrap_or(DeviceSelector::Default),
        window_bytes: Some(1 << 20),
        pipeline_timeout: Some(Duration::from_secs(60)),
        ..Default::default()
    })
    .expect("runtime");
    let h = header();
    let chain = Chain::new(&h, SectorLayout::Turing2D).expect("chain");
    let guest: Vec<u8> = (0..chain.guest_bytes()).map(|i| (i * 7 + 3) as u8).collect();
    let bytes = chain.packed_bytes() as usize;
    let mut packed = vec![0u8; bytes];
    let sampler = Sampler::decode(&Entry([
        2 | 2 << 3 | 2 << 6,
        1 | 1 << 4 | 1 << 6,
        0,
        0,
        0,
        0,
        0,
        0,
    ]))
    .expect("sampler");
    let mut t = rt
        .create_texture_in(&h, &sampler, chain.clone(), &packed, TextureMemory::Staged)
        .expect("texture");
    let mut direct = rt
        .create_texture(&h, &sampler, chain.clone(), &packed)
        .expect("texture");
    let src = vec![0x5Au8; bytes];
    let (mut copy, mut untile, mut both, mut placed) = (f64::MAX, f64::MAX, f64::MAX, f64::MAX);
    for _ in 0..40 {
        let s = Instant::now();
        packed.copy_from_slice(black_box(&src));
        copy = copy.min(s.elapsed().as_secs_f64());
        let s = Instant::now();
        untile_chain(&chain, black_box(&guest), &mut packed, 0).expect("untile");
        untile = untile.min(s.elapsed().as_secs_f64());
        let s = Instant::now();
        rt.upload_texture_with(&mut t, |staging| {
            untile_chain(&chain, &guest, staging, 0).map_err(|e| RuntimeError::Texture(e.to_string()))
        })
        .expect("upload");
        both = both.min(s.elapsed().as_secs_f64());
        let s = Instant::now();
        rt.upload_texture_from_guest(&mut direct, black_box(&guest), 0)
            .expect("upload in place");
        placed = placed.min(s.elapsed().as_secs_f64());
    }
    let in_place = direct.is_direct();
    rt.destroy_texture(t);
    rt.destroy_texture(direct);
    let gbs = |t: f64| bytes as f64 / t / 1e9;
    eprintln!(
        "ratio 1920x1080 rgba8 on {}: memcpy {:.1} GB/s, untile {:.1} GB/s ({:.2}x), untile+upload staged {:.1} GB/s ({:.2}x memcpy), untile+upload {} {:.1} GB/s ({:.2}x memcpy)",
        rt.device().name,
        gbs(copy),
        gbs(untile),
        copy / untile,
        gbs(both),
        copy / both,
        if in_place { "in place" } else { "auto (staged)" },
        gbs(placed),
        copy / placed
    );
}

criterion_group!(benches, ratio);
criterion_main!(benches);

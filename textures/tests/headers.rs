//! TIC and TSC decoding against entries written out by hand from the field positions in `tic.rs`/`tsc.rs`
//! (each word assembled here from its documented bit fields, not through `Entry::set`).

use sassport_textures::*;

/// A8B8G8R8 UNORM, swizzle R G B A, block-linear 2-D, 1920 × 1080, 11 levels, GOBs per block height 16.
fn rgba8_1080p_words() -> [u32; 8] {
    let types = 2 << 7 | 2 << 10 | 2 << 13 | 2 << 16; // UNORM everywhere
    let swizzle = 2 << 19 | 3 << 22 | 4 << 25 | 5 << 28; // R G B A
    [
        0x08 | types | swizzle,
        0x4000_0000,       // address bits 31:0
        0x12 | 3 << 21,    // address bits 47:32 = 0x12, header version 3 (block-linear)
        4 << 3 | 10 << 28, // GOBS_PER_BLOCK_HEIGHT = 16 GOBs, MAX_MIP_LEVEL 10
        1919 | 1 << 23,    // width - 1, TEXTURE_TYPE 2-D
        1079 | 1 << 31,    // height - 1, depth - 1 = 0, normalized coordinates
        0,
        10 << 4, // view levels 0..=10
    ]
}

#[test]
fn block_linear_rgba8_header() {
    let h = TextureHeader::decode(&Entry(rgba8_1080p_words())).expect("valid header");
    assert_eq!(h.format.layout, Layout::A8B8G8R8);
    assert_eq!(h.format.types, [DataType::Unorm; 4]);
    assert_eq!(h.format.swizzle, [Source::R, Source::G, Source::B, Source::A]);
    assert_eq!(h.address, 0x12_4000_0000);
    assert_eq!(
        h.memory,
        MemoryLayout::BlockLinear {
            block_height_log2: 4,
            block_depth_log2: 0
        }
    );
    assert_eq!(h.texture_type, TextureType::TwoD);
    assert_eq!(
        (h.width, h.height, h.depth, h.levels(), h.layers()),
        (1920, 1080, 1, 11, 1)
    );
    assert_eq!(h.view_levels, (0, 10));
    assert!(h.normalized_coords && !h.srgb);
}

#[test]
fn pitch_and_buffer_headers() {
    let mut w = rgba8_1080p_words();
    w[2] = 2 << 21; // pitch
    w[3] = (7680 >> 5) as u32;
    w[7] = 0;
    let h = TextureHeader::decode(&Entry(w)).expect("pitch header");
    assert_eq!(h.memory, MemoryLayout::Pitch { pitch: 7680 });
    // A one-D buffer of 0x12345 + 1 texels: width bits 31:16 in word 3, 15:0 in word 4.
    w[2] = 0;
    w[3] = 0x1;
    w[4] = 0x2345 | 6 << 23;
    let h = TextureHeader::decode(&Entry(w)).expect("buffer header");
    assert_eq!(
        (h.memory, h.width, h.texture_type),
        (MemoryLayout::Buffer, 0x12346, TextureType::OneDBuffer)
    );
}

fn refused(words: [u32; 8]) -> TicError {
    TextureHeader::decode(&Entry(words)).expect_err("must be refused")
}

#[test]
fn invalid_headers_are_refused_by_field() {
    let base = rgba8_1080p_words();
    let mut w = base;
    w[0] &= !0x7f;
    assert_eq!(
        refused(w),
        TicError::Reserved {
            field: "COMPONENTS",
            value: 0
        }
    );
    let mut w = base;
    w[0] = (w[0] & !(7 << 19)) | 1 << 19;
    assert_eq!(
        refused(w),
        TicError::Reserved {
            field: "X_SOURCE",
            value: 1
        }
    );
    let mut w = base;
    w[0] &= !(7 << 7);
    assert_eq!(
        refused(w),
        TicError::Reserved {
            field: "R_DATA_TYPE",
            value: 0
        }
    );
    let mut w = base;
    w[2] = 5 << 21;
    assert_eq!(
        refused(w),
        TicError::Reserved {
            field: "HEADER_VERSION",
            value: 5
        }
    );
    let mut w = base;
    w[2] = 4 << 21;
    assert!(matches!(
        refused(w),
        TicError::Unsupported {
            field: "HEADER_VERSION",
            value: 4,
            ..
        }
    ));
    let mut w = base;
    w[3] = 6 << 3 | 10 << 28;
    assert_eq!(
        refused(w),
        TicError::Reserved {
            field: "GOBS_PER_BLOCK_HEIGHT",
            value: 6
        }
    );
    let mut w = base;
    w[3] |= 1 << 10;
    assert!(matches!(
        refused(w),
        TicError::Unsupported {
            field: "TILE_WIDTH_IN_GOBS",
            ..
        }
    ));
    let mut w = base;
    w[4] = 1919 | 9 << 23;
    assert_eq!(
        refused(w),
        TicError::Reserved {
            field: "TEXTURE_TYPE",
            value: 9
        }
    );
    let mut w = base;
    w[7] = 11 << 4;
    assert!(matches!(refused(w), TicError::Inconsistent(_)));
    let mut w = base;
    w[7] |= 2 << 8;
    assert!(matches!(
        refused(w),
        TicError::Unsupported {
            field: "MULTI_SAMPLE_COUNT",
            ..
        }
    ));
    let mut w = base;
    w[3] |= 1 << 6; // depth blocks on a 2-D texture
    assert!(matches!(refused(w), TicError::Inconsistent(_)));
}

#[test]
fn sampler_fields() {
    // Wrap / mirror / border, compare LESS_EQUAL, linear mag, point min, linear mip, bias -1.5, lod 0.5..=12.
    let w0 = 1 << 3 | 3 << 6 | 1 << 9 | 3 << 10 | 2 << 20;
    let bias = (-384i32 as u32) & 0x1fff;
    let w1 = 2 | 1 << 4 | 3 << 6 | 1 << 9 | bias << 12;
    let w2 = 128 | (12 * 256) << 12;
    let s = Sampler::decode(&Entry([w0, w1, w2, 0, 0x3f80_0000, 0, 0, 0x3f00_0000])).expect("sampler");
    assert_eq!(
        s.address,
        [AddressMode::Wrap, AddressMode::Mirror, AddressMode::Border]
    );
    assert_eq!(s.compare, Some(CompareFunc::LessEqual));
    assert_eq!(
        (s.mag_filter, s.min_filter, s.mip_filter),
        (Filter::Linear, Filter::Point, MipFilter::Linear)
    );
    assert!(s.seamless_cube);
    assert_eq!(
        (s.lod_bias, s.min_lod, s.max_lod, s.max_anisotropy),
        (-384, 128, 3072, 2)
    );
    assert_eq!(s.border, [0x3f80_0000, 0, 0, 0x3f00_0000]);
    assert_eq!(s.reduction, Reduction::WeightedAverage);
    let err = Sampler::decode(&Entry([0, 0, 0, 0, 0, 0, 0, 0])).expect_err("filter 0 is reserved");
    assert_eq!(
        err,
        TscError::Reserved {
            field: "MAG_FILTER",
            value: 0
        }
    );
    let err = Sampler::decode(&Entry([0, 1 | 1 << 4 | 1 << 6 | 3 << 10, 0, 0, 0, 0, 0, 0]))
        .expect_err("reduction 3");
    assert_eq!(
        err,
        TscError::Reserved {
            field: "REDUCTION_FILTER",
            value: 3
        }
    );
}

#[test]
fn entry_bytes_round_trip() {
    let e = Entry(rgba8_1080p_words());
    assert_eq!(Entry::from_bytes(&e.to_bytes()), e);
    let mut f = Entry::default();
    f.set(154, 151, 5);
    f.set(101, 99, 3);
    assert_eq!((f.0[4], f.0[3]), (5 << 23, 3 << 3));
}

#[test]
fn bc1_and_bc3_blocks_decode_by_the_format_rules() {
    use sassport_textures::bc::{bc1, bc3, Interpolation};
    // c0 = pure red (0xf800) > c1 = pure blue (0x001f): four colours; indices 0,1,2,3 in the first row.
    let block = [0x00, 0xf8, 0x1f, 0x00, 0b1110_0100, 0, 0, 0];
    let t = bc1(&block, Interpolation::Nearest, false);
    assert_eq!(
        &t[..4],
        &[
            [255, 0, 0, 255],
            [0, 0, 255, 255],
            [170, 0, 85, 255],
            [85, 0, 170, 255]
        ]
    );
    // c0 < c1: three colours and transparent black at index 3.
    let block = [0x1f, 0x00, 0x00, 0xf8, 0b1110_0100, 0, 0, 0];
    let t = bc1(&block, Interpolation::Truncate, false);
    assert_eq!(
        &t[..4],
        &[
            [0, 0, 255, 255],
            [255, 0, 0, 255],
            [127, 0, 127, 255],
            [0, 0, 0, 0]
        ]
    );
    // BC3: alpha end points 255 and 0 (eight alphas), index 2 of texel 0 = (6·255 + 0) / 7 rounded.
    let mut b3 = [0u8; 16];
    b3[0] = 255;
    b3[2] = 2;
    b3[8..].copy_from_slice(&[0x00, 0xf8, 0x1f, 0x00, 0, 0, 0, 0]);
    assert_eq!(bc3(&b3, Interpolation::Nearest)[0], [255, 0, 0, 219]);
    assert_eq!(bc3(&b3, Interpolation::Truncate)[0][3], 218);
}

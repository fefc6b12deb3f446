//! Every entry the decoders accept survives encode → decode unchanged; random words exercise every field.

use proptest::prelude::*;
use sassport_textures::*;

/// Words biased towards valid headers: header version, texture type and filters drawn from small ranges.
fn tic_words() -> impl Strategy<Value = [u32; 8]> {
    (prop::array::uniform8(any::<u32>()), 0u32..5, 0u32..9, 0u32..6).prop_map(|(mut w, version, ty, bh)| {
        w[2] = (w[2] & !(7 << 21)) | version << 21;
        w[3] = (w[3] & !(0x3fff)) | bh << 3; // one-GOB-wide blocks, no sparse tiles, no GOB3D
        w[4] = (w[4] & !(0xf << 23)) | ty << 23;
        w[7] &= !0xfff; // one sample, view levels 0..=0
        w
    })
}

proptest! {
    #[test]
    fn texture_headers_round_trip(words in tic_words()) {
        if let Ok(h) = TextureHeader::decode(&Entry(words)) {
            prop_assert_eq!(TextureHeader::decode(&h.encode()), Ok(h));
        }
    }

    #[test]
    fn samplers_round_trip(words in prop::array::uniform8(any::<u32>())) {
        if let Ok(s) = Sampler::decode(&Entry(words)) {
            prop_assert_eq!(Sampler::decode(&s.encode()), Ok(s));
        }
    }

    #[test]
    fn decoding_never_panics(words in prop::array::uniform8(any::<u32>()), buffer in any::<bool>()) {
        let mut words = words;
        if buffer {
            words[2] &= !(7 << 21);
            words[4] = (words[4] & !(0xf << 23)) | 6 << 23;
        }
        let _ = TextureHeader::decode(&Entry(words));
        let _ = Sampler::decode(&Entry(words));
    }
}

#[test]
fn some_random_headers_are_accepted() {
    // Guards the round-trip property against testing nothing: a valid header built from a known one.
    let mut e = Entry::default();
    e.0[0] = 0x08 | 2 << 7 | 2 << 10 | 2 << 13 | 2 << 16 | 2 << 19 | 3 << 22 | 4 << 25 | 5 << 28;
    e.0[2] = 3 << 21;
    e.0[4] = 15 | 5 << 23;
    e.0[5] = 7 | 3 << 16;
    let h = TextureHeader::decode(&e).expect("valid");
    assert_eq!(h.encode(), e);
}

//! Graphics programs built at random from the attribute instructions, with random SPH maps: translating
//! never panics, every refusal is a typed error, and every module that translates passes spirv-val for its
//! stage. (Input-derived data reaches `translate_stage` as an emulator would hand it over.) Most maps hold
//! every address the programs use, so that most programs translate; the rest exercise the refusals.

#[path = "support/mod.rs"]
mod support;

use proptest::prelude::*;
use sassport_translator::error::TranslateError;
use sassport_translator::graphics::sph::{Interpolation, StageMaps, SPH_WORDS};
use sassport_translator::graphics::{ShaderProgramHeader, Stage};
use sassport_translator::translate::Options;
use sassport_translator::translate_graphics::translate_stage;

/// Vertex reads: generic 0..3 components, instance and vertex id, one address outside every map.
const VERTEX_IN: [u32; 9] = [0x80, 0x84, 0x8c, 0x90, 0xa8, 0xbc, 0x2f8, 0x2fc, 0x3a0];
/// Vertex writes: point size, position, generic 0, clip distances 0 and 1.
const VERTEX_OUT: [u32; 8] = [0x6c, 0x70, 0x7c, 0x80, 0x84, 0x8c, 0x2c0, 0x2c4];
/// Pixel reads: FragCoord x and w, generic 0..3 components, front facing.
const PIXEL_IN: [u32; 9] = [0x70, 0x7c, 0x80, 0x84, 0x8c, 0x90, 0xa8, 0xbc, 0x3fc];

fn header(stage: Stage, bits: u64, masks: u32, depth: bool) -> ShaderProgramHeader {
    let mut w = [0u32; SPH_WORDS];
    w[0] = if stage == Stage::Vertex {
        1 | 3 << 5 | 1 << 10
    } else {
        2 | 3 << 5 | 5 << 10
    };
    let mut sph = ShaderProgramHeader::from_words(&w).unwrap();
    // Three cases in four: maps hold everything; else the random bits decide.
    let full = bits & 3 != 0;
    let has = |i: usize| full || bits >> (i + 2) & 1 != 0;
    match &mut sph.maps {
        StageMaps::Vtg { inputs, outputs } => {
            for (i, a) in VERTEX_IN.iter().enumerate().filter(|(_, a)| **a < 0x3c0) {
                if has(i) {
                    inputs.insert(*a).unwrap();
                }
            }
            for (i, a) in VERTEX_OUT.iter().enumerate() {
                if has(i + 16) {
                    outputs.insert(*a).unwrap();
                }
            }
        }
        StageMaps::Pixel { inputs, outputs } => {
            let modes = [
                Interpolation::Constant,
                Interpolation::Perspective,
                Interpolation::ScreenLinear,
            ];
            for v in 0..4 {
                let m = (bits >> (32 + 2 * v) & 3) as usize;
                inputs.generic[v] = [if has(v) {
                    modes[m % 3]
                } else {
                    Interpolation::Unused
                }; 4];
            }
            outputs.targets[0] = (masks & 0xf) as u8;
            outputs.targets[1] = (masks >> 4 & 0xf) as u8;
            outputs.depth = depth;
        }
    }
    if stage == Stage::Fragment {
        sph.common.kills_pixels = bits >> 40 & 1 != 0;
    }
    sph
}

fn line(stage: Stage, kind: u8, pick: usize, r: u8) -> String {
    let r = r % 16;
    let arith = |k: u8| match k {
        0 => format!("FADD R{r}, R{}, R{} ;", (r + 1) % 16, (r + 5) % 16),
        _ => format!("FSETP.GT.AND P0, PT, R{r}, 0.5, PT ;"),
    };
    if stage == Stage::Vertex {
        let (a, o) = (
            VERTEX_IN[pick % VERTEX_IN.len()],
            VERTEX_OUT[pick % VERTEX_OUT.len()],
        );
        match kind % 5 {
            0 => format!("ALD R{r}, a[{a:#x}] ;"),
            1 => format!("ALD.64 R{}, a[{:#x}] ;", r & !1, a & !7),
            2 => format!("AST a[{o:#x}], R{r} ;"),
            k => arith(k - 3),
        }
    } else {
        let a = PIXEL_IN[pick % PIXEL_IN.len()];
        match kind % 5 {
            0 => format!("IPA.PASS R{r}, a[{a:#x}] ;"),
            1 => format!("IPA.CONSTANT R{r}, a[{a:#x}] ;"),
            2 => "@P0 KILL ;".to_string(),
            k => arith(k - 3),
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]
    #[test]
    fn random_graphics_programs_translate_or_are_refused_by_name(
        vertex in any::<bool>(),
        bits in any::<u64>(),
        masks in any::<u32>(),
        depth in any::<bool>(),
        body in proptest::collection::vec((any::<u8>(), any::<usize>(), any::<u8>()), 1..12),
    ) {
        let stage = if vertex { Stage::Vertex } else { Stage::Fragment };
        let sph = header(stage, bits, masks, depth);
        let mut text: String = body.iter().map(|(k, a, r)| line(stage, *k, *a, *r) + "\n").collect();
        text.push_str("EXIT ;\n");
        let words = sassport_gen::assemble(&text).unwrap();
        let mut bytes: Vec<u8> = sph.to_words().iter().flat_map(|w| w.to_le_bytes()).collect();
        bytes.extend(words.iter().flat_map(|w| w.to_le_bytes()));
        match translate_stage("p", &bytes, &Options { stage, ..Options::default() }) {
            Ok(t) => {
                let valid = support::spirv_val(&t.words);
                prop_assert!(valid.is_ok(), "{text}: {valid:?}");
            }
            Err(
                TranslateError::NotTranslated { .. }
                | TranslateError::AttributeOutsideMap { .. }
                | TranslateError::GraphicsHeader { .. },
            ) => {}
            Err(e) => prop_assert!(false, "{text}: unexpected error {e}"),
        }
    }
}

//! Headers written word by word from the field positions of NVIDIA's open-gpu-doc SPH page.

use super::*;

/// A vertex header: SphType 1, version 3, ShaderType 1; reads position and generic 0 (x, y),
/// vertex id; writes position and generic 1 (all four).
fn vertex_words() -> [u32; SPH_WORDS] {
    let mut w = [0u32; SPH_WORDS];
    w[0] = 1 | 3 << 5 | 1 << 10 | 1 << 26;
    // 64 bytes of local memory.
    w[1] = 0x40;
    // Input map at word 5: byte 3 = ImapSystemValuesB (position x..w = bits 4..7), byte 4 = generic 0/1.
    w[5] = 0xf0 << 24;
    w[6] = 0x03;
    // ImapSystemValuesC (bytes 22, 23 of the map = word 10 bytes 2, 3): vertex id is bit 15.
    w[10] = 0x8000 << 16;
    // Output map at byte 30 of the maps (word 12 byte 2): OmapSystemValuesB is map byte 33 (word 13 byte 1).
    w[13] = 0xf0 << 8 | 0xf0 << 16; // position; generic 1 in the high nibble of map byte 34
    w
}

#[test]
fn vertex_header_fields() {
    let sph = ShaderProgramHeader::from_words(&vertex_words()).unwrap();
    assert_eq!(sph.common.shader_type, ShaderType::Vertex);
    assert_eq!(sph.common.version, 3);
    assert!(sph.common.does_load_or_store);
    assert_eq!(sph.common.local_memory_bytes, 0x40);
    assert_eq!(sph.common.output_topology, None);
    let StageMaps::Vtg { inputs, outputs } = &sph.maps else { panic!("not VTG: {sph:?}") };
    let read: Vec<u32> = inputs.addresses().collect();
    assert_eq!(read, vec![0x70, 0x74, 0x78, 0x7c, 0x80, 0x84, 0x2fc]);
    assert_eq!(inputs.generic(0), [true, true, false, false]);
    let written: Vec<u32> = outputs.addresses().collect();
    assert_eq!(written, vec![0x70, 0x74, 0x78, 0x7c, 0x90, 0x94, 0x98, 0x9c]);
    assert_eq!(ShaderProgramHeader::from_words(&sph.to_words()).unwrap(), sph);
    assert_eq!(sph.to_words(), vertex_words());
}

#[test]
fn pixel_header_interpolation_and_outputs() {
    let mut w = [0u32; SPH_WORDS];
    w[0] = 2 | 3 << 5 | 5 << 10 | 1 << 14 | 1 << 15;
    // Generic 0: x perspective (2), y screen-linear (3), z constant (1), w unused; generic 1 x perspective.
    w[6] = (2 | 3 << 2 | 1 << 4) | 2 << 8;
    // Pixel: ImapSystemValuesB position x, y (bits 4, 5) in word 5 byte 3.
    w[5] = 0x30 << 24;
    // OmapTarget (word 18): target 0 rgba, target 1 r; word 19: sample mask and depth.
    w[18] = 0xf | 0x1 << 4;
    w[19] = 0b11;
    let sph = ShaderProgramHeader::from_words(&w).unwrap();
    assert!(sph.common.mrt_enable && sph.common.kills_pixels);
    let StageMaps::Pixel { inputs, outputs } = &sph.maps else { panic!("not PS: {sph:?}") };
    use Interpolation::*;
    assert_eq!(inputs.generic[0], [Perspective, ScreenLinear, Constant, Unused]);
    assert_eq!(inputs.generic[1], [Perspective, Unused, Unused, Unused]);
    assert_eq!(inputs.system_values.addresses().collect::<Vec<_>>(), vec![0x70, 0x74]);
    assert_eq!(outputs.targets[..3], [0xf, 0x1, 0]);
    assert!(outputs.sample_mask && outputs.depth);
    assert_eq!(sph.to_words(), w);
}

#[test]
fn geometry_topology_and_vertices() {
    let mut w = [0u32; SPH_WORDS];
    w[0] = 1 | 3 << 5 | 4 << 10 | 0b0101 << 28;
    w[2] = 3 << 24; // 3 invocations
    w[3] = 7 << 24; // triangle strip
    w[4] = 4;
    let sph = ShaderProgramHeader::from_words(&w).unwrap();
    assert_eq!(sph.common.output_topology, Some(OutputTopology::TriangleStrip));
    assert_eq!((sph.common.max_output_vertices, sph.common.threads_per_input_primitive), (4, 3));
    assert_eq!(sph.common.stream_out_mask, 0b0101);
    w[3] = 2 << 24;
    assert_eq!(ShaderProgramHeader::from_words(&w), Err(SphError::UnknownOutputTopology { value: 2 }));
    w[3] = 7 << 24;
    w[4] = 1025;
    assert_eq!(ShaderProgramHeader::from_words(&w), Err(SphError::TooManyOutputVertices { value: 1025 }));
}

#[test]
fn bad_headers_name_the_field() {
    assert_eq!(ShaderProgramHeader::parse(&[0; 0x4c]), Err(SphError::Truncated { len: 0x4c }));
    let mut w = vertex_words();
    w[0] = (w[0] & !0x1f) | 2; // a pixel SphType on a vertex program
    let err = ShaderProgramHeader::from_words(&w).unwrap_err();
    assert_eq!(err, SphError::TypeMismatch { sph_type: 2, shader_type: ShaderType::Vertex });
    assert!(err.to_string().contains("SphType/ShaderType"));
    w[0] = (w[0] & !0x1f) | 3;
    assert_eq!(ShaderProgramHeader::from_words(&w), Err(SphError::UnknownSphType { value: 3 }));
    let mut w = vertex_words();
    w[0] = (w[0] & !(0xf << 10)) | 6 << 10;
    assert_eq!(ShaderProgramHeader::from_words(&w), Err(SphError::UnknownShaderType { value: 6 }));
    let mut w = vertex_words();
    w[3] = 1 << 24; // an output topology on a vertex program
    let err = ShaderProgramHeader::from_words(&w).unwrap_err();
    assert_eq!(err, SphError::FieldOutsideStage { field: "OutputTopology", value: 1 });
    let mut w = vertex_words();
    w[4] = 0x20 << 12 | 0x10 << 24;
    assert_eq!(
        ShaderProgramHeader::from_words(&w),
        Err(SphError::StoreRangeInverted { start: 0x20, end: 0x10 })
    );
    let map = AttributeMap::default();
    assert_eq!(map.contains(0x3c0), Err(SphError::AddressOutsideMap { address: 0x3c0 }));
    assert_eq!(map.contains(0x71), Err(SphError::AddressOutsideMap { address: 0x71 }));
}

#[test]
fn parse_reads_little_endian_bytes() {
    let words = vertex_words();
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).chain([0xde, 0xad]).collect();
    assert_eq!(ShaderProgramHeader::parse(&bytes).unwrap().to_words(), words);
}

//! The Shader Program Header (SPH, version 3: 20 words, 0x50 bytes) in front of graphics programs.
//!
//! Layout from NVIDIA's public open-gpu-doc "Shader-Program-Header" page (facts also used by Mesa NAK and
//! yuzu). SPH type 1 heads vertex, tessellation and geometry programs (VTG); type 2 heads pixel programs.
//! Attribute maps are bit sets over attribute addresses: bit n stands for the 32-bit attribute at 4n, so
//! 0x070 (position x) is bit 28 and generic vector v component c (0x080 + 16v + 4c) is bit 32 + 4v + c.
//! A pixel header gives each input component two bits (its interpolation) instead of one.

use thiserror::Error;

/// Bytes in a version-3 header.
pub const SPH_BYTES: usize = 0x50;
/// 32-bit words in a version-3 header.
pub const SPH_WORDS: usize = SPH_BYTES / 4;
/// Attribute words an input or output map covers (addresses 0x000..0x3c0).
pub const MAP_ATTRIBUTES: u32 = 240;
/// First generic vector's address; vector n is at `GENERIC_BASE + 16 n`.
pub const GENERIC_BASE: u32 = 0x80;

/// A header that cannot be read: each variant names the field.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SphError {
    #[error("SPH truncated: {len} bytes, a header is {SPH_BYTES:#x}")]
    Truncated { len: usize },
    #[error("SPH field SphType: {value} is neither 1 (VTG) nor 2 (PS)")]
    UnknownSphType { value: u32 },
    #[error("SPH field ShaderType: {value} is not 1..=5 (vertex, tess init, tess, geometry, pixel)")]
    UnknownShaderType { value: u32 },
    #[error("SPH fields SphType/ShaderType disagree: SphType {sph_type} with ShaderType {shader_type:?}")]
    TypeMismatch { sph_type: u32, shader_type: ShaderType },
    #[error("SPH field OutputTopology: {value} is not 1 (point list), 6 (line strip) or 7 (triangle strip)")]
    UnknownOutputTopology { value: u32 },
    #[error("SPH field MaxOutputVertexCount: {value} is above the 1024 a geometry program may emit")]
    TooManyOutputVertices { value: u32 },
    #[error("SPH field StoreReqStart/StoreReqEnd: start {start:#x} is after end {end:#x}")]
    StoreRangeInverted { start: u32, end: u32 },
    #[error("SPH field {field}: {value} is not a stage of this header")]
    FieldOutsideStage { field: &'static str, value: u32 },
    #[error("SPH attribute address {address:#x}: outside the map (0x000..0x3c0, 4-byte aligned)")]
    AddressOutsideMap { address: u32 },
}

/// Which kind of program the header describes (the ShaderType field).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ShaderType {
    Vertex,
    /// The tessellation control stage.
    TessellationInit,
    /// The tessellation evaluation stage.
    Tessellation,
    Geometry,
    Pixel,
}

impl ShaderType {
    fn from_field(value: u32) -> Result<Self, SphError> {
        Ok(match value {
            1 => Self::Vertex,
            2 => Self::TessellationInit,
            3 => Self::Tessellation,
            4 => Self::Geometry,
            5 => Self::Pixel,
            _ => return Err(SphError::UnknownShaderType { value }),
        })
    }

    fn field(self) -> u32 {
        match self {
            Self::Vertex => 1,
            Self::TessellationInit => 2,
            Self::Tessellation => 3,
            Self::Geometry => 4,
            Self::Pixel => 5,
        }
    }
}

/// A geometry program's output primitive (the OutputTopology field).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OutputTopology {
    PointList,
    LineStrip,
    TriangleStrip,
}

impl OutputTopology {
    fn from_field(value: u32) -> Result<Self, SphError> {
        Ok(match value {
            1 => Self::PointList,
            6 => Self::LineStrip,
            7 => Self::TriangleStrip,
            _ => return Err(SphError::UnknownOutputTopology { value }),
        })
    }

    fn field(self) -> u32 {
        match self {
            Self::PointList => 1,
            Self::LineStrip => 6,
            Self::TriangleStrip => 7,
        }
    }
}

/// How a pixel program's input component is interpolated (two bits per component in a PS header).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Interpolation {
    /// Not read.
    #[default]
    Unused,
    /// Flat: the provoking vertex's value.
    Constant,
    /// Perspective-correct.
    Perspective,
    /// Linear in screen space (noperspective).
    ScreenLinear,
}

impl Interpolation {
    fn from_bits(bits: u32) -> Self {
        match bits & 3 {
            0 => Self::Unused,
            1 => Self::Constant,
            2 => Self::Perspective,
            _ => Self::ScreenLinear,
        }
    }

    fn bits(self) -> u32 {
        match self {
            Self::Unused => 0,
            Self::Constant => 1,
            Self::Perspective => 2,
            Self::ScreenLinear => 3,
        }
    }
}

/// The fields every header shares (words 0 to 4).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct CommonFields {
    pub version: u32,
    pub shader_type: ShaderType,
    /// Pixel programs: writes several render targets.
    pub mrt_enable: bool,
    /// Pixel programs: may discard (KIL); early depth tests cannot write depth before it runs.
    pub kills_pixels: bool,
    /// Writes global memory (side effects that forbid skipping invocations).
    pub does_global_store: bool,
    pub sass_version: u32,
    /// Geometry programs: a passthrough program (one output vertex per input vertex).
    pub geometry_passthrough: bool,
    pub does_load_or_store: bool,
    pub does_fp64: bool,
    /// Bit n: writes transform-feedback stream n.
    pub stream_out_mask: u32,
    /// Per-thread local memory bytes (ShaderLocalMemoryLowSize | HighSize << 24).
    pub local_memory_bytes: u64,
    /// Bytes of call/return stack (ShaderLocalMemoryCrsSize).
    pub crs_bytes: u32,
    /// Tessellation control programs: per-patch attribute words written.
    pub per_patch_attribute_count: u32,
    /// Tessellation control: output vertices per patch; geometry: invocations per input primitive.
    pub threads_per_input_primitive: u32,
    /// Geometry programs only (None elsewhere, where the field is zero).
    pub output_topology: Option<OutputTopology>,
    pub max_output_vertices: u32,
    /// Range of output attribute words the program stores (StoreReqStart..=StoreReqEnd).
    pub store_req_start: u32,
    pub store_req_end: u32,
}

/// One bit per attribute word (addresses 0x000..0x3c0): which attributes a program reads or writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct AttributeMap {
    bits: [u64; 4],
}

impl AttributeMap {
    /// Whether the attribute at byte `address` is in the map.
    pub fn contains(&self, address: u32) -> Result<bool, SphError> {
        let index = map_index(address)?;
        Ok(self.bits[index / 64] >> (index % 64) & 1 != 0)
    }

    /// Adds the attribute at byte `address`.
    pub fn insert(&mut self, address: u32) -> Result<(), SphError> {
        let index = map_index(address)?;
        self.bits[index / 64] |= 1 << (index % 64);
        Ok(())
    }

    /// The addresses in the map, ascending.
    pub fn addresses(&self) -> impl Iterator<Item = u32> + '_ {
        (0..MAP_ATTRIBUTES).filter(|i| self.bits[*i as usize / 64] >> (i % 64) & 1 != 0).map(|i| i * 4)
    }

    /// Components x, y, z, w of generic vector `vector` (0..32).
    pub fn generic(&self, vector: u32) -> [bool; 4] {
        let base = GENERIC_BASE + 16 * (vector % 32);
        [0, 1, 2, 3].map(|c| self.contains(base + 4 * c).unwrap_or(false))
    }

    fn from_bytes(bytes: &[u8]) -> Self {
        let mut map = Self::default();
        for (i, byte) in bytes.iter().enumerate() {
            map.bits[i / 8] |= u64::from(*byte) << (i % 8 * 8);
        }
        map
    }

    fn to_bytes(self) -> [u8; 30] {
        let mut out = [0u8; 30];
        for (i, byte) in out.iter_mut().enumerate() {
            *byte = (self.bits[i / 8] >> (i % 8 * 8)) as u8;
        }
        out
    }
}

fn map_index(address: u32) -> Result<usize, SphError> {
    if address % 4 != 0 || address >= MAP_ATTRIBUTES * 4 {
        return Err(SphError::AddressOutsideMap { address });
    }
    Ok(address as usize / 4)
}

/// A pixel program's input map: system values by bit, the rest with an interpolation per component.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct PixelInputs {
    /// ImapSystemValuesA/B (0x000..0x080) and ImapSystemValuesC (0x2c0..0x300): one bit each.
    pub system_values: AttributeMap,
    /// ImapGenericVector[32]: x, y, z, w of each vector.
    pub generic: [[Interpolation; 4]; 32],
    /// ImapColor: diffuse r, g, b, a then specular r, g, b, a.
    pub color: [Interpolation; 8],
    /// ImapFixedFncTexture[10]: s, t, r, q of each.
    pub fixed_function_texture: [[Interpolation; 4]; 10],
}

/// A pixel program's outputs: colour registers R0.. in target order, then depth, on EXIT.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct PixelOutputs {
    /// OmapTarget: bit c of entry t set when render target t's component c (r, g, b, a) is written.
    pub targets: [u8; 8],
    pub sample_mask: bool,
    pub depth: bool,
}

/// The stage-specific half of a header.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum StageMaps {
    /// Type 1: vertex, tessellation and geometry programs.
    Vtg { inputs: AttributeMap, outputs: AttributeMap },
    /// Type 2: pixel programs.
    Pixel { inputs: PixelInputs, outputs: PixelOutputs },
}

/// A parsed header: every field of NVIDIA's version-3 SPH.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ShaderProgramHeader {
    pub common: CommonFields,
    pub maps: StageMaps,
}

fn field(word: u32, low: u32, width: u32) -> u32 {
    (word >> low) & ((1u32 << width) - 1)
}

fn flag(word: u32, bit: u32) -> bool {
    word >> bit & 1 != 0
}

impl ShaderProgramHeader {
    /// Reads a header from the first 0x50 bytes of `bytes` (little-endian words).
    pub fn parse(bytes: &[u8]) -> Result<Self, SphError> {
        let head = bytes.get(..SPH_BYTES).ok_or(SphError::Truncated { len: bytes.len() })?;
        let mut words = [0u32; SPH_WORDS];
        for (word, chunk) in words.iter_mut().zip(head.chunks_exact(4)) {
            *word = u32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]);
        }
        Self::from_words(&words)
    }

    /// Reads a header from its 20 words.
    pub fn from_words(words: &[u32; SPH_WORDS]) -> Result<Self, SphError> {
        let common = parse_common(words)?;
        let sph_type = field(words[0], 0, 5);
        let bytes: Vec<u8> = words[5..].iter().flat_map(|w| w.to_le_bytes()).collect();
        let maps = match (sph_type, common.shader_type) {
            (2, ShaderType::Pixel) => parse_pixel_maps(&bytes),
            (1, shader_type) if shader_type != ShaderType::Pixel => StageMaps::Vtg {
                inputs: AttributeMap::from_bytes(&bytes[0..30]),
                outputs: AttributeMap::from_bytes(&bytes[30..60]),
            },
            (1 | 2, shader_type) => {
                return Err(SphError::TypeMismatch { sph_type, shader_type });
            }
            (value, _) => return Err(SphError::UnknownSphType { value }),
        };
        Ok(Self { common, maps })
    }

    /// The header's 20 words (the inverse of [`Self::from_words`] for the fields it reads).
    pub fn to_words(&self) -> [u32; SPH_WORDS] {
        let c = &self.common;
        let sph_type = match self.maps {
            StageMaps::Vtg { .. } => 1,
            StageMaps::Pixel { .. } => 2,
        };
        let mut words = [0u32; SPH_WORDS];
        words[0] = sph_type
            | (c.version & 0x1f) << 5
            | c.shader_type.field() << 10
            | u32::from(c.mrt_enable) << 14
            | u32::from(c.kills_pixels) << 15
            | u32::from(c.does_global_store) << 16
            | (c.sass_version & 0xf) << 17
            | u32::from(c.geometry_passthrough) << 24
            | u32::from(c.does_load_or_store) << 26
            | u32::from(c.does_fp64) << 27
            | (c.stream_out_mask & 0xf) << 28;
        words[1] = (c.local_memory_bytes as u32 & 0xff_ffff) | (c.per_patch_attribute_count & 0xff) << 24;
        words[2] =
            ((c.local_memory_bytes >> 24) as u32 & 0xff_ffff) | (c.threads_per_input_primitive & 0xff) << 24;
        words[3] = (c.crs_bytes & 0xff_ffff) | c.output_topology.map_or(0, OutputTopology::field) << 24;
        words[4] = (c.max_output_vertices & 0xfff)
            | (c.store_req_start & 0xff) << 12
            | (c.store_req_end & 0xff) << 24;
        let mut bytes = [0u8; SPH_BYTES - 20];
        match &self.maps {
            StageMaps::Vtg { inputs, outputs } => {
                bytes[0..30].copy_from_slice(&inputs.to_bytes());
                bytes[30..60].copy_from_slice(&outputs.to_bytes());
            }
            StageMaps::Pixel { inputs, outputs } => write_pixel_maps(inputs, outputs, &mut bytes),
        }
        for (word, chunk) in words[5..].iter_mut().zip(bytes.chunks_exact(4)) {
            *word = u32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]);
        }
        words
    }
}

fn parse_common(words: &[u32; SPH_WORDS]) -> Result<CommonFields, SphError> {
    let [w0, w1, w2, w3, w4] = [words[0], words[1], words[2], words[3], words[4]];
    let shader_type = ShaderType::from_field(field(w0, 10, 4))?;
    let topology = field(w3, 24, 4);
    let output_topology = match (shader_type, topology) {
        (ShaderType::Geometry, value) => Some(OutputTopology::from_field(value)?),
        (_, 0) => None,
        (_, value) => return Err(SphError::FieldOutsideStage { field: "OutputTopology", value }),
    };
    let max_output_vertices = field(w4, 0, 12);
    if shader_type == ShaderType::Geometry && max_output_vertices > 1024 {
        return Err(SphError::TooManyOutputVertices { value: max_output_vertices });
    }
    let (store_req_start, store_req_end) = (field(w4, 12, 8), field(w4, 24, 8));
    if store_req_start > store_req_end {
        return Err(SphError::StoreRangeInverted { start: store_req_start, end: store_req_end });
    }
    Ok(CommonFields {
        version: field(w0, 5, 5),
        shader_type,
        mrt_enable: flag(w0, 14),
        kills_pixels: flag(w0, 15),
        does_global_store: flag(w0, 16),
        sass_version: field(w0, 17, 4),
        geometry_passthrough: flag(w0, 24),
        does_load_or_store: flag(w0, 26),
        does_fp64: flag(w0, 27),
        stream_out_mask: field(w0, 28, 4),
        local_memory_bytes: u64::from(field(w1, 0, 24)) | u64::from(field(w2, 0, 24)) << 24,
        crs_bytes: field(w3, 0, 24),
        per_patch_attribute_count: field(w1, 24, 8),
        threads_per_input_primitive: field(w2, 24, 8),
        output_topology,
        max_output_vertices,
        store_req_start,
        store_req_end,
    })
}

/// Byte offsets (from word 5) of the pixel header's parts.
const PS_GENERIC: usize = 4;
const PS_COLOR: usize = 36;
const PS_SYSTEM_C: usize = 38;
const PS_TEXTURE: usize = 40;
const PS_OMAP: usize = 52;

fn interpolations<const N: usize>(bytes: &[u8]) -> [Interpolation; N] {
    std::array::from_fn(|i| Interpolation::from_bits(u32::from(bytes[i / 4]) >> (i % 4 * 2)))
}

fn parse_pixel_maps(bytes: &[u8]) -> StageMaps {
    let mut system = [0u8; 30];
    system[0..4].copy_from_slice(&bytes[0..4]);
    // ImapSystemValuesC covers addresses 0x2c0..0x300: map bits 176..192, bytes 22 and 23.
    system[22..24].copy_from_slice(&bytes[PS_SYSTEM_C..PS_SYSTEM_C + 2]);
    let generic = std::array::from_fn(|v| interpolations::<4>(&bytes[PS_GENERIC + v..]));
    let fixed_function_texture = std::array::from_fn(|t| interpolations::<4>(&bytes[PS_TEXTURE + t..]));
    let target =
        u32::from_le_bytes([bytes[PS_OMAP], bytes[PS_OMAP + 1], bytes[PS_OMAP + 2], bytes[PS_OMAP + 3]]);
    let extra = bytes[PS_OMAP + 4];
    StageMaps::Pixel {
        inputs: PixelInputs {
            system_values: AttributeMap::from_bytes(&system),
            generic,
            color: interpolations::<8>(&bytes[PS_COLOR..]),
            fixed_function_texture,
        },
        outputs: PixelOutputs {
            targets: std::array::from_fn(|t| (target >> (4 * t) & 0xf) as u8),
            sample_mask: extra & 1 != 0,
            depth: extra & 2 != 0,
        },
    }
}

fn pack(out: &mut [u8], values: &[Interpolation]) {
    for (i, value) in values.iter().enumerate() {
        out[i / 4] |= (value.bits() << (i % 4 * 2)) as u8;
    }
}

fn write_pixel_maps(inputs: &PixelInputs, outputs: &PixelOutputs, bytes: &mut [u8]) {
    let system = inputs.system_values.to_bytes();
    bytes[0..4].copy_from_slice(&system[0..4]);
    bytes[PS_SYSTEM_C..PS_SYSTEM_C + 2].copy_from_slice(&system[22..24]);
    for (v, vector) in inputs.generic.iter().enumerate() {
        pack(&mut bytes[PS_GENERIC + v..], vector);
    }
    pack(&mut bytes[PS_COLOR..], &inputs.color);
    for (t, texture) in inputs.fixed_function_texture.iter().enumerate() {
        pack(&mut bytes[PS_TEXTURE + t..], texture);
    }
    let target =
        outputs.targets.iter().enumerate().fold(0u32, |acc, (t, m)| acc | u32::from(m & 0xf) << (4 * t));
    bytes[PS_OMAP..PS_OMAP + 4].copy_from_slice(&target.to_le_bytes());
    bytes[PS_OMAP + 4] = u8::from(outputs.sample_mask) | u8::from(outputs.depth) << 1;
}

#[cfg(test)]
mod tests;

//! Samplers (TSC entries), 32 bytes each.
//!
//! Field positions as yuzu's `TSCEntry` and Ryujinx's `SamplerDescriptor` document them:
//! - word 0: ADDRESS_U/V/P 2:0, 5:3, 8:6, DEPTH_COMPARE 9, DEPTH_COMPARE_FUNC 12:10, SRGB_CONVERSION 13,
//!   MAX_ANISOTROPY 22:20;
//! - word 1: MAG_FILTER 33:32 (1 point, 2 linear), MIN_FILTER 37:36, MIP_FILTER 39:38 (1 none, 2 point,
//!   3 linear), CUBEMAP_INTERFACE_FILTERING (seamless cubes) 41, REDUCTION_FILTER 43:42 (0 weighted
//!   average, 1 min, 2 max), MIP_LOD_BIAS 56:44 (signed, 1/256);
//! - word 2: MIN_LOD_CLAMP 75:64, MAX_LOD_CLAMP 87:76 (unsigned 4.8), sRGB border red 95:88;
//! - word 3: sRGB border green 115:108, blue 123:116;
//! - words 4–7: the border colour, four f32.

use crate::bits::{sign_extend, Entry};

/// Why a sampler was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TscError {
    #[error("sampler field {field} holds reserved value {value:#x}")]
    Reserved { field: &'static str, value: u32 },
}

/// What happens to a coordinate outside the texture (ADDRESS_U/V/P).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AddressMode {
    Wrap,
    Mirror,
    ClampToEdge,
    Border,
    /// OpenGL's GL_CLAMP: half a texel of border blended in at the edge.
    ClampOgl,
    MirrorOnceClampToEdge,
    MirrorOnceBorder,
    MirrorOnceClampOgl,
}

impl AddressMode {
    fn from_code(code: u32) -> AddressMode {
        use AddressMode::*;
        [
            Wrap,
            Mirror,
            ClampToEdge,
            Border,
            ClampOgl,
            MirrorOnceClampToEdge,
            MirrorOnceBorder,
            MirrorOnceClampOgl,
        ][code as usize & 7]
    }
}

/// Depth comparison (OpenGL order).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CompareFunc {
    Never = 0,
    Less = 1,
    Equal = 2,
    LessEqual = 3,
    Greater = 4,
    NotEqual = 5,
    GreaterEqual = 6,
    Always = 7,
}

/// Texel filter.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Filter {
    Point,
    Linear,
}

/// Filter between mip levels.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MipFilter {
    /// Level `base` only.
    None,
    Point,
    Linear,
}

/// How filtered texels are combined.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Reduction {
    WeightedAverage,
    Min,
    Max,
}

/// A decoded sampler.
#[derive(Clone, Debug, PartialEq)]
pub struct Sampler {
    /// Address modes along u, v and p (the third coordinate).
    pub address: [AddressMode; 3],
    /// The depth comparison, if enabled.
    pub compare: Option<CompareFunc>,
    pub srgb_border: bool,
    /// MAX_ANISOTROPY code (2^code samples, 0 = isotropic).
    pub max_anisotropy: u32,
    pub mag_filter: Filter,
    pub min_filter: Filter,
    pub mip_filter: MipFilter,
    pub seamless_cube: bool,
    pub reduction: Reduction,
    /// MIP_LOD_BIAS in 1/256 units.
    pub lod_bias: i32,
    /// MIN/MAX_LOD_CLAMP in 1/256 units.
    pub min_lod: u32,
    pub max_lod: u32,
    /// Border colour as stored (f32 bits, x y z w).
    pub border: [u32; 4],
    /// The sRGB border's red, green and blue bytes (used when `srgb_border`).
    pub srgb_border_rgb: [u8; 3],
}

impl Sampler {
    /// Decodes `entry`, refusing reserved filter and reduction codes by field.
    pub fn decode(entry: &Entry) -> Result<Sampler, TscError> {
        let filter = |field: &'static str, hi: u32, lo: u32| match entry.field(hi, lo) {
            1 => Ok(Filter::Point),
            2 => Ok(Filter::Linear),
            value => Err(TscError::Reserved { field, value }),
        };
        // Fields are checked in bit order, so the first bad one is the one reported.
        let mag_filter = filter("MAG_FILTER", 33, 32)?;
        let min_filter = filter("MIN_FILTER", 37, 36)?;
        let mip = match entry.field(39, 38) {
            1 => MipFilter::None,
            2 => MipFilter::Point,
            3 => MipFilter::Linear,
            value => {
                return Err(TscError::Reserved {
                    field: "MIP_FILTER",
                    value,
                })
            }
        };
        let reduction = match entry.field(43, 42) {
            0 => Reduction::WeightedAverage,
            1 => Reduction::Min,
            2 => Reduction::Max,
            value => {
                return Err(TscError::Reserved {
                    field: "REDUCTION_FILTER",
                    value,
                })
            }
        };
        use CompareFunc::*;
        let funcs = [
            Never,
            Less,
            Equal,
            LessEqual,
            Greater,
            NotEqual,
            GreaterEqual,
            Always,
        ];
        Ok(Sampler {
            address: [
                AddressMode::from_code(entry.field(2, 0)),
                AddressMode::from_code(entry.field(5, 3)),
                AddressMode::from_code(entry.field(8, 6)),
            ],
            compare: entry.bit(9).then(|| funcs[entry.field(12, 10) as usize & 7]),
            srgb_border: entry.bit(13),
            max_anisotropy: entry.field(22, 20),
            mag_filter,
            min_filter,
            mip_filter: mip,
            seamless_cube: entry.bit(41),
            reduction,
            lod_bias: sign_extend(entry.field(56, 44), 13),
            min_lod: entry.field(75, 64),
            max_lod: entry.field(87, 76),
            border: [entry.0[4], entry.0[5], entry.0[6], entry.0[7]],
            srgb_border_rgb: [
                entry.field(95, 88) as u8,
                entry.field(115, 108) as u8,
                entry.field(123, 116) as u8,
            ],
        })
    }
}

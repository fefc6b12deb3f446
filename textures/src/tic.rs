//! Texture headers (TIC entries): the Maxwell-family 32-byte layout Ampere still uses.
//!
//! Field positions (absolute bits over the 8 words) as yuzu's `TICEntry` and Ryujinx's `TextureDescriptor`
//! document them, with the value names of NVIDIA's class headers:
//! - word 0: COMPONENTS 6:0, R/G/B/A data types 9:7, 12:10, 15:13, 18:16, X/Y/Z/W sources 21:19 … 30:28,
//!   PACK_COMPONENTS 31;
//! - words 1–2: address bits 31:0 and 47:32 (79:64), HEADER_VERSION 87:85 (0 one-D buffer, 1 pitch with
//!   colour key, 2 pitch, 3 block-linear, 4 block-linear with colour key);
//! - word 3: block-linear GOBS_PER_BLOCK_WIDTH/HEIGHT/DEPTH 98:96, 101:99, 104:102, TILE_WIDTH_IN_GOBS
//!   108:106, GOB3D 109; pitch: pitch bits 20:5 in 111:96; one-D buffer: width-minus-one bits 31:16 in
//!   111:96; DEPTH_TEXTURE 123, MAX_MIP_LEVEL 127:124;
//! - word 4: WIDTH_MINUS_ONE 143:128 (buffer: bits 15:0), S_R_G_B_CONVERSION 150, TEXTURE_TYPE 154:151,
//!   BORDER_SIZE 159:157;
//! - word 5: HEIGHT_MINUS_ONE 175:160, DEPTH_MINUS_ONE 189:176, NORMALIZED_COORDS 191;
//! - word 6: MIP_LOD_BIAS 210:198 (signed, 1/256), MAX_ANISOTROPY 221:219;
//! - word 7: RES_VIEW_MIN_MIP_LEVEL 227:224, RES_VIEW_MAX_MIP_LEVEL 231:228, MULTI_SAMPLE_COUNT 235:232,
//!   MIN_LOD_CLAMP 247:236 (unsigned 4.8).

use crate::bits::{sign_extend, Entry};
use crate::format::{DataType, Format, Layout, Source};

/// Why a texture header was refused: the field, its value and what is wrong with it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TicError {
    #[error("texture header field {field} holds reserved value {value:#x}")]
    Reserved { field: &'static str, value: u32 },
    #[error("texture header field {field} = {value:#x} is not supported: {why}")]
    Unsupported {
        field: &'static str,
        value: u32,
        why: &'static str,
    },
    #[error("texture header is inconsistent: {0}")]
    Inconsistent(String),
}

/// How the texels lie in memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemoryLayout {
    /// Block-linear: blocks of 2^h × 2^d GOBs at level 0 (before the per-level clamp).
    BlockLinear {
        block_height_log2: u32,
        block_depth_log2: u32,
    },
    /// Pitch-linear rows `pitch` bytes apart (one level only).
    Pitch { pitch: u32 },
    /// A one-dimensional texel buffer.
    Buffer,
}

/// The texture's dimensionality (TEXTURE_TYPE).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TextureType {
    OneD,
    TwoD,
    ThreeD,
    Cube,
    OneDArray,
    TwoDArray,
    OneDBuffer,
    TwoDNoMipmap,
    CubeArray,
}

impl TextureType {
    fn from_code(code: u32) -> Option<TextureType> {
        use TextureType::*;
        Some(match code {
            0 => OneD,
            1 => TwoD,
            2 => ThreeD,
            3 => Cube,
            4 => OneDArray,
            5 => TwoDArray,
            6 => OneDBuffer,
            7 => TwoDNoMipmap,
            8 => CubeArray,
            _ => return None,
        })
    }

    /// Whether the depth field counts layers (arrays) or cubes rather than 3-D slices.
    pub fn is_layered(self) -> bool {
        matches!(
            self,
            TextureType::OneDArray | TextureType::TwoDArray | TextureType::Cube | TextureType::CubeArray
        )
    }
}

/// A decoded texture header.
#[derive(Clone, Debug, PartialEq)]
pub struct TextureHeader {
    pub format: Format,
    /// GPU virtual address of level 0, layer 0.
    pub address: u64,
    pub memory: MemoryLayout,
    pub texture_type: TextureType,
    /// Level-0 width in texels.
    pub width: u32,
    /// Level-0 height in texels (1-D array textures: unused by the hardware; we keep the field).
    pub height: u32,
    /// 3-D: level-0 depth; arrays: layers; cubes and cube arrays: cubes (6 faces each).
    pub depth: u32,
    /// The last level stored in memory (MAX_MIP_LEVEL): the chain holds `max_mip_level + 1` levels.
    pub max_mip_level: u32,
    /// The view's first and last level (RES_VIEW_MIN/MAX_MIP_LEVEL).
    pub view_levels: (u32, u32),
    pub srgb: bool,
    pub normalized_coords: bool,
    pub depth_texture: bool,
    /// MIP_LOD_BIAS in 1/256 units.
    pub lod_bias: i32,
    /// MAX_ANISOTROPY code (0 = 1×, 1 = 2×, ... 4 = 16× ... 7 = 16× per the hardware's clamp).
    pub max_anisotropy: u32,
    /// MIN_LOD_CLAMP in 1/256 units.
    pub min_lod_clamp: u32,
    /// MULTI_SAMPLE_COUNT code (0 = one sample).
    pub msaa: u32,
    pub border_size: u32,
}

impl TextureHeader {
    /// Levels stored in memory.
    pub fn levels(&self) -> u32 {
        self.max_mip_level + 1
    }

    /// Array layers (faces count for cubes: 6 per cube); 1 for non-layered types.
    pub fn layers(&self) -> u32 {
        match self.texture_type {
            TextureType::Cube | TextureType::CubeArray => self.depth.saturating_mul(6),
            t if t.is_layered() => self.depth,
            _ => 1,
        }
    }

    /// Level-0 depth in slices (1 unless 3-D).
    pub fn slices(&self) -> u32 {
        if self.texture_type == TextureType::ThreeD {
            self.depth
        } else {
            1
        }
    }

    /// Decodes `entry`; every reserved or unsupported value is refused with its field.
    pub fn decode(entry: &Entry) -> Result<TextureHeader, TicError> {
        let format = decode_format(entry)?;
        let version = entry.field(87, 85);
        let address = entry.0[1] as u64 | (entry.field(79, 64) as u64) << 32;
        let memory = match version {
            0 => MemoryLayout::Buffer,
            2 => MemoryLayout::Pitch {
                pitch: entry.field(111, 96) << 5,
            },
            3 => decode_block_linear(entry)?,
            1 | 4 => {
                return Err(TicError::Unsupported {
                    field: "HEADER_VERSION",
                    value: version,
                    why: "colour-key headers",
                })
            }
            v => {
                return Err(TicError::Reserved {
                    field: "HEADER_VERSION",
                    value: v,
                })
            }
        };
        let type_code = entry.field(154, 151);
        let texture_type = TextureType::from_code(type_code).ok_or(TicError::Reserved {
            field: "TEXTURE_TYPE",
            value: type_code,
        })?;
        let buffer = memory == MemoryLayout::Buffer;
        if buffer != (texture_type == TextureType::OneDBuffer) {
            return Err(TicError::Inconsistent(format!(
                "HEADER_VERSION {version} with TEXTURE_TYPE {texture_type:?} (one-D buffers need both)"
            )));
        }
        let width = if buffer {
            ((entry.field(111, 96) << 16) | entry.field(143, 128))
                .checked_add(1)
                .ok_or(TicError::Unsupported {
                    field: "WIDTH_MINUS_ONE",
                    value: u32::MAX,
                    why: "one-D buffers of 2^32 texels",
                })?
        } else {
            entry.field(143, 128) + 1
        };
        let header = TextureHeader {
            format,
            address,
            memory,
            texture_type,
            width,
            height: entry.field(175, 160) + 1,
            depth: entry.field(189, 176) + 1,
            max_mip_level: if buffer { 0 } else { entry.field(127, 124) },
            view_levels: (entry.field(227, 224), entry.field(231, 228)),
            srgb: entry.bit(150),
            normalized_coords: entry.bit(191),
            depth_texture: !buffer && entry.bit(123),
            lod_bias: sign_extend(entry.field(210, 198), 13),
            max_anisotropy: entry.field(221, 219),
            min_lod_clamp: entry.field(247, 236),
            msaa: entry.field(235, 232),
            border_size: entry.field(159, 157),
        };
        header.check()?;
        Ok(header)
    }

    fn check(&self) -> Result<(), TicError> {
        let (lo, hi) = self.view_levels;
        if self.memory != MemoryLayout::Buffer && (lo > hi || hi > self.max_mip_level) {
            return Err(TicError::Inconsistent(format!(
                "view levels {lo}..={hi} outside the {} stored levels",
                self.levels()
            )));
        }
        if let MemoryLayout::Pitch { pitch } = self.memory {
            if self.max_mip_level != 0 {
                return Err(TicError::Unsupported {
                    field: "MAX_MIP_LEVEL",
                    value: self.max_mip_level,
                    why: "pitch-linear textures have one level",
                });
            }
            if pitch == 0 {
                return Err(TicError::Inconsistent("pitch-linear texture with pitch 0".into()));
            }
        }
        if let MemoryLayout::BlockLinear { block_depth_log2, .. } = self.memory {
            if block_depth_log2 != 0 && self.texture_type != TextureType::ThreeD {
                return Err(TicError::Inconsistent(format!(
                    "GOBS_PER_BLOCK_DEPTH {block_depth_log2} on a {:?} texture (only 3-D ones have depth blocks)",
                    self.texture_type
                )));
            }
        }
        if self.msaa != 0 {
            return Err(TicError::Unsupported {
                field: "MULTI_SAMPLE_COUNT",
                value: self.msaa,
                why: "multisampled textures",
            });
        }
        if self.format.layout.block().is_none() {
            return Err(TicError::Unsupported {
                field: "COMPONENTS",
                value: 0x1f,
                why: "R1 (one bit a texel) has no byte-addressable texel",
            });
        }
        Ok(())
    }
}

fn decode_format(entry: &Entry) -> Result<Format, TicError> {
    let code = entry.field(6, 0);
    let layout = Layout::from_code(code).ok_or(TicError::Reserved {
        field: "COMPONENTS",
        value: code,
    })?;
    const TYPE_FIELDS: [(&str, u32); 4] = [
        ("R_DATA_TYPE", 7),
        ("G_DATA_TYPE", 10),
        ("B_DATA_TYPE", 13),
        ("A_DATA_TYPE", 16),
    ];
    const SOURCE_FIELDS: [(&str, u32); 4] = [
        ("X_SOURCE", 19),
        ("Y_SOURCE", 22),
        ("Z_SOURCE", 25),
        ("W_SOURCE", 28),
    ];
    let mut types = [DataType::Unorm; 4];
    for (k, (name, lo)) in TYPE_FIELDS.iter().enumerate() {
        let v = entry.field(lo + 2, *lo);
        // Components past the layout's are often left 0 by drivers: they are never read.
        types[k] = match DataType::from_code(v) {
            Some(t) => t,
            None if k >= layout.components() as usize => types[0],
            None => {
                return Err(TicError::Reserved {
                    field: name,
                    value: v,
                })
            }
        };
    }
    let mut swizzle = [Source::Zero; 4];
    for (k, (name, lo)) in SOURCE_FIELDS.iter().enumerate() {
        let v = entry.field(lo + 2, *lo);
        swizzle[k] = Source::from_code(v).ok_or(TicError::Reserved {
            field: name,
            value: v,
        })?;
    }
    Ok(Format {
        layout,
        types,
        swizzle,
        packed: entry.bit(31),
    })
}

fn decode_block_linear(entry: &Entry) -> Result<MemoryLayout, TicError> {
    let width = entry.field(98, 96);
    if width != 0 {
        return Err(TicError::Unsupported {
            field: "GOBS_PER_BLOCK_WIDTH",
            value: width,
            why: "blocks are one GOB wide",
        });
    }
    let height = entry.field(101, 99);
    if height > 5 {
        return Err(TicError::Reserved {
            field: "GOBS_PER_BLOCK_HEIGHT",
            value: height,
        });
    }
    let depth = entry.field(104, 102);
    if depth > 5 {
        return Err(TicError::Reserved {
            field: "GOBS_PER_BLOCK_DEPTH",
            value: depth,
        });
    }
    let tile = entry.field(108, 106);
    if tile != 0 {
        return Err(TicError::Unsupported {
            field: "TILE_WIDTH_IN_GOBS",
            value: tile,
            why: "sparse tiles wider than one GOB",
        });
    }
    if entry.bit(109) {
        return Err(TicError::Unsupported {
            field: "GOB3D",
            value: 1,
            why: "3-D GOBs",
        });
    }
    Ok(MemoryLayout::BlockLinear {
        block_height_log2: height,
        block_depth_log2: depth,
    })
}

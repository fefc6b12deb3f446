//! Texel formats as a texture header names them: a component-size layout (7 bits), one data type per
//! component (3 bits each) and a source per output component (the swizzle, 3 bits each).
//!
//! Facts (codes and their meaning) from NVIDIA's public texture-header class headers (open-gpu-doc,
//! `TEXHEAD_*_COMPONENTS_SIZES_*`, `*_SOURCE_IN_*`) and the Maxwell-family header layout as yuzu and Ryujinx
//! describe it (data types SNORM 1 … FLOAT 7).

use std::fmt;

/// The component-size layout: how many bits each stored component has, or a compressed block format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Layout {
    R32G32B32A32,
    R32G32B32,
    R16G16B16A16,
    R32G32,
    R32B24G8,
    Etc2Rgb,
    X8B8G8R8,
    A8B8G8R8,
    A2B10G10R10,
    Etc2RgbPta,
    Etc2Rgba,
    R16G16,
    G8R24,
    G24R8,
    R32,
    Bc6hSf16,
    Bc6hUf16,
    A4B4G4R4,
    A5B5G5R1,
    A1B5G5R5,
    B5G6R5,
    B6G5R5,
    Bc7,
    G8R8,
    Eac,
    EacX2,
    R16,
    Y8Video,
    R8,
    G4R4,
    R1,
    E5B9G9R9,
    B10G11R11,
    G8B8G8R8,
    B8G8R8G8,
    /// BC1.
    Dxt1,
    /// BC2.
    Dxt23,
    /// BC3.
    Dxt45,
    /// BC4.
    Dxn1,
    /// BC5.
    Dxn2,
    S8Z24,
    X8Z24,
    Z24S8,
    Zf32,
    Zf32X24S8,
    Z16,
    /// ASTC 2-D with the given block width and height in texels.
    Astc(u8, u8),
}

/// One block of a layout: its size in bytes and the texels it covers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Block {
    pub bytes: u32,
    pub width: u32,
    pub height: u32,
}

impl Layout {
    /// The layout with code `code` (the header's 7-bit COMPONENTS field), or `None` for a reserved code.
    pub fn from_code(code: u32) -> Option<Layout> {
        use Layout::*;
        Some(match code {
            0x01 => R32G32B32A32,
            0x02 => R32G32B32,
            0x03 => R16G16B16A16,
            0x04 => R32G32,
            0x05 => R32B24G8,
            0x06 => Etc2Rgb,
            0x07 => X8B8G8R8,
            0x08 => A8B8G8R8,
            0x09 => A2B10G10R10,
            0x0a => Etc2RgbPta,
            0x0b => Etc2Rgba,
            0x0c => R16G16,
            0x0d => G8R24,
            0x0e => G24R8,
            0x0f => R32,
            0x10 => Bc6hSf16,
            0x11 => Bc6hUf16,
            0x12 => A4B4G4R4,
            0x13 => A5B5G5R1,
            0x14 => A1B5G5R5,
            0x15 => B5G6R5,
            0x16 => B6G5R5,
            0x17 => Bc7,
            0x18 => G8R8,
            0x19 => Eac,
            0x1a => EacX2,
            0x1b => R16,
            0x1c => Y8Video,
            0x1d => R8,
            0x1e => G4R4,
            0x1f => R1,
            0x20 => E5B9G9R9,
            0x21 => B10G11R11,
            0x22 => G8B8G8R8,
            0x23 => B8G8R8G8,
            0x24 => Dxt1,
            0x25 => Dxt23,
            0x26 => Dxt45,
            0x27 => Dxn1,
            0x28 => Dxn2,
            0x29 => S8Z24,
            0x2a => X8Z24,
            0x2b => Z24S8,
            0x2f => Zf32,
            0x30 => Zf32X24S8,
            0x3a => Z16,
            0x40 => Astc(4, 4),
            0x41 => Astc(5, 5),
            0x42 => Astc(6, 6),
            0x44 => Astc(8, 8),
            0x45 => Astc(10, 10),
            0x46 => Astc(12, 12),
            0x50 => Astc(5, 4),
            0x51 => Astc(6, 5),
            0x52 => Astc(8, 6),
            0x53 => Astc(10, 8),
            0x54 => Astc(12, 10),
            0x55 => Astc(8, 5),
            0x56 => Astc(10, 5),
            0x57 => Astc(10, 6),
            _ => return None,
        })
    }

    /// The header's COMPONENTS code of this layout.
    pub fn code(self) -> u32 {
        (1..0x58)
            .find(|&c| Layout::from_code(c) == Some(self))
            .unwrap_or(0)
    }

    /// Bytes per block and the block's extent in texels (1 × 1 for uncompressed layouts). `R1` (one bit a
    /// texel) has no whole-byte block and gives `None`.
    pub fn block(self) -> Option<Block> {
        use Layout::*;
        let texel = |bytes| Block {
            bytes,
            width: 1,
            height: 1,
        };
        let bc = |bytes| Block {
            bytes,
            width: 4,
            height: 4,
        };
        Some(match self {
            R32G32B32A32 => texel(16),
            R32G32B32 => texel(12),
            R16G16B16A16 | R32G32 | Zf32X24S8 => texel(8),
            R32B24G8 | X8B8G8R8 | A8B8G8R8 | A2B10G10R10 | R16G16 | G8R24 | G24R8 | R32 | E5B9G9R9
            | B10G11R11 | S8Z24 | X8Z24 | Z24S8 | Zf32 => texel(4),
            // Packed 4:2:2 layouts hold two texels in 4 bytes.
            G8B8G8R8 | B8G8R8G8 => Block {
                bytes: 4,
                width: 2,
                height: 1,
            },
            A4B4G4R4 | A5B5G5R1 | A1B5G5R5 | B5G6R5 | B6G5R5 | G8R8 | R16 | Z16 => texel(2),
            Y8Video | R8 | G4R4 => texel(1),
            R1 => return None,
            Dxt1 | Dxn1 | Etc2Rgb | Etc2RgbPta | Eac => bc(8),
            Dxt23 | Dxt45 | Dxn2 | Bc6hSf16 | Bc6hUf16 | Bc7 | Etc2Rgba | EacX2 => bc(16),
            Astc(w, h) => Block {
                bytes: 16,
                width: w as u32,
                height: h as u32,
            },
        })
    }

    /// Stored components, in the order the data-type fields name them (R, G, B, A).
    pub fn components(self) -> u32 {
        use Layout::*;
        match self {
            R32G32B32A32 | R16G16B16A16 | A8B8G8R8 | A2B10G10R10 | A4B4G4R4 | A5B5G5R1 | A1B5G5R5
            | Etc2RgbPta | Etc2Rgba | Dxt1 | Dxt23 | Dxt45 | Bc7 | Astc(..) => 4,
            R32G32B32 | X8B8G8R8 | B5G6R5 | B6G5R5 | E5B9G9R9 | B10G11R11 | Etc2Rgb | Bc6hSf16 | Bc6hUf16
            | G8B8G8R8 | B8G8R8G8 => 3,
            R32G32 | R32B24G8 | R16G16 | G8R24 | G24R8 | G8R8 | G4R4 | Dxn2 | EacX2 | S8Z24 | X8Z24
            | Z24S8 | Zf32X24S8 => 2,
            R32 | R16 | R8 | R1 | Y8Video | Dxn1 | Eac | Zf32 | Z16 => 1,
        }
    }

    /// Whether the layout is block-compressed (BC, ETC2/EAC, ASTC).
    pub fn is_compressed(self) -> bool {
        self.block().is_some_and(|b| b.width > 1 && b.height > 1)
    }
}

/// How a stored component is interpreted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DataType {
    Snorm = 1,
    Unorm = 2,
    Sint = 3,
    Uint = 4,
    /// SNORM filtered at fp16 precision.
    SnormForceFp16 = 5,
    /// UNORM filtered at fp16 precision.
    UnormForceFp16 = 6,
    Float = 7,
}

impl DataType {
    /// The data type with 3-bit code `code`; 0 is not a type.
    pub fn from_code(code: u32) -> Option<DataType> {
        Some(match code {
            1 => DataType::Snorm,
            2 => DataType::Unorm,
            3 => DataType::Sint,
            4 => DataType::Uint,
            5 => DataType::SnormForceFp16,
            6 => DataType::UnormForceFp16,
            7 => DataType::Float,
            _ => return None,
        })
    }

    /// The 3-bit code of this data type.
    pub fn code(self) -> u32 {
        self as u32
    }

    /// Whether reads return integers (no filtering, no normalisation).
    pub fn is_integer(self) -> bool {
        matches!(self, DataType::Sint | DataType::Uint)
    }
}

/// Where an output component (x, y, z, w of the sampled value) comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Source {
    Zero,
    R,
    G,
    B,
    A,
    /// Integer 1.
    OneInt,
    /// Float 1.0.
    OneFloat,
}

impl Source {
    /// The 3-bit code of this source.
    pub fn code(self) -> u32 {
        match self {
            Source::Zero => 0,
            Source::R => 2,
            Source::G => 3,
            Source::B => 4,
            Source::A => 5,
            Source::OneInt => 6,
            Source::OneFloat => 7,
        }
    }

    /// The source with 3-bit code `code`; 1 is reserved.
    pub fn from_code(code: u32) -> Option<Source> {
        Some(match code {
            0 => Source::Zero,
            2 => Source::R,
            3 => Source::G,
            4 => Source::B,
            5 => Source::A,
            6 => Source::OneInt,
            7 => Source::OneFloat,
            _ => return None,
        })
    }
}

/// A complete texel format: layout, the data type of each stored component and the swizzle.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Format {
    pub layout: Layout,
    /// Data types of R, G, B, A in storage order; entries past [`Layout::components`] are what the header
    /// holds (drivers usually repeat the first type).
    pub types: [DataType; 4],
    /// Sources of the output x, y, z, w.
    pub swizzle: [Source; 4],
    /// The header's PACK_COMPONENTS bit (components packed without padding).
    pub packed: bool,
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", self.layout)?;
        let n = self.layout.components() as usize;
        let first = self.types[0];
        if self.types[..n].iter().all(|t| *t == first) {
            write!(f, " {first:?}")?;
        } else {
            write!(f, " {:?}", &self.types[..n])?;
        }
        write!(f, " swizzle {:?}", self.swizzle)
    }
}

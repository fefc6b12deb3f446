//! Writing decoded headers and samplers back into 32-byte entries: what a driver (our CUDA library, or a
//! test building guest memory) puts in a pool. `decode(encode(x)) == x` for every value `decode` accepts.

use crate::bits::Entry;
use crate::tic::{MemoryLayout, TextureHeader, TextureType};
use crate::tsc::{AddressMode, Filter, MipFilter, Reduction, Sampler};

impl TextureHeader {
    /// The entry holding this header (fields the header does not model are 0).
    pub fn encode(&self) -> Entry {
        let mut e = Entry::default();
        let f = &self.format;
        e.set(6, 0, f.layout.code());
        for k in 0..4 {
            let lo = 7 + 3 * k as u32;
            e.set(lo + 2, lo, f.types[k].code());
            let lo = 19 + 3 * k as u32;
            e.set(lo + 2, lo, f.swizzle[k].code());
        }
        e.set(31, 31, f.packed as u32);
        e.0[1] = self.address as u32;
        e.set(79, 64, (self.address >> 32) as u32);
        let buffer = self.memory == MemoryLayout::Buffer;
        match self.memory {
            MemoryLayout::Buffer => {
                e.set(87, 85, 0);
                e.set(111, 96, (self.width - 1) >> 16);
            }
            MemoryLayout::Pitch { pitch } => {
                e.set(87, 85, 2);
                e.set(111, 96, pitch >> 5);
            }
            MemoryLayout::BlockLinear {
                block_height_log2,
                block_depth_log2,
            } => {
                e.set(87, 85, 3);
                e.set(101, 99, block_height_log2);
                e.set(104, 102, block_depth_log2);
            }
        }
        if !buffer {
            e.set(123, 123, self.depth_texture as u32);
            e.set(127, 124, self.max_mip_level);
        }
        e.set(143, 128, self.width - 1);
        e.set(150, 150, self.srgb as u32);
        e.set(154, 151, type_code(self.texture_type));
        e.set(159, 157, self.border_size);
        e.set(175, 160, self.height - 1);
        e.set(189, 176, self.depth - 1);
        e.set(191, 191, self.normalized_coords as u32);
        e.set(210, 198, self.lod_bias as u32);
        e.set(221, 219, self.max_anisotropy);
        e.set(227, 224, self.view_levels.0);
        e.set(231, 228, self.view_levels.1);
        e.set(235, 232, self.msaa);
        e.set(247, 236, self.min_lod_clamp);
        e
    }
}

fn type_code(t: TextureType) -> u32 {
    use TextureType::*;
    match t {
        OneD => 0,
        TwoD => 1,
        ThreeD => 2,
        Cube => 3,
        OneDArray => 4,
        TwoDArray => 5,
        OneDBuffer => 6,
        TwoDNoMipmap => 7,
        CubeArray => 8,
    }
}

impl Sampler {
    /// The entry holding this sampler.
    pub fn encode(&self) -> Entry {
        let mut e = Entry::default();
        for (k, mode) in self.address.iter().enumerate() {
            let lo = 3 * k as u32;
            e.set(lo + 2, lo, address_code(*mode));
        }
        if let Some(func) = self.compare {
            e.set(9, 9, 1);
            e.set(12, 10, func as u32);
        }
        e.set(13, 13, self.srgb_border as u32);
        e.set(22, 20, self.max_anisotropy);
        let filter = |f: Filter| match f {
            Filter::Point => 1,
            Filter::Linear => 2,
        };
        e.set(33, 32, filter(self.mag_filter));
        e.set(37, 36, filter(self.min_filter));
        e.set(
            39,
            38,
            match self.mip_filter {
                MipFilter::None => 1,
                MipFilter::Point => 2,
                MipFilter::Linear => 3,
            },
        );
        e.set(41, 41, self.seamless_cube as u32);
        e.set(
            43,
            42,
            match self.reduction {
                Reduction::WeightedAverage => 0,
                Reduction::Min => 1,
                Reduction::Max => 2,
            },
        );
        e.set(56, 44, self.lod_bias as u32);
        e.set(75, 64, self.min_lod);
        e.set(87, 76, self.max_lod);
        e.set(95, 88, self.srgb_border_rgb[0] as u32);
        e.set(115, 108, self.srgb_border_rgb[1] as u32);
        e.set(123, 116, self.srgb_border_rgb[2] as u32);
        e.0[4..8].copy_from_slice(&self.border);
        e
    }
}

fn address_code(mode: AddressMode) -> u32 {
    use AddressMode::*;
    match mode {
        Wrap => 0,
        Mirror => 1,
        ClampToEdge => 2,
        Border => 3,
        ClampOgl => 4,
        MirrorOnceClampToEdge => 5,
        MirrorOnceBorder => 6,
        MirrorOnceClampOgl => 7,
    }
}

//! Host Vulkan formats, component mappings and sampler settings for decoded texture headers and samplers
//! (`sassport-textures`). What has no exact Vulkan counterpart is refused by name, never approximated.

use ash::vk;
use sassport_textures::{AddressMode, CompareFunc, DataType, Filter, Format, Layout, MipFilter, Reduction};
use sassport_textures::{Sampler, Source, TextureHeader, TextureType};

/// Why a texture or sampler has no host counterpart.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TextureError {
    #[error("texture format {0} has no Vulkan format here")]
    Format(String),
    #[error("sampler {what} has no Vulkan counterpart here")]
    Sampler { what: String },
    #[error("texture: {0}")]
    Layout(String),
}

/// The Vulkan format of `format` (with the header's sRGB bit): stored component order is R first, so
/// NVIDIA's `A8B8G8R8` is Vulkan's `R8G8B8A8` (R in the lowest byte).
pub fn vk_format(format: &Format, srgb: bool) -> Result<vk::Format, TextureError> {
    use vk::Format as F;
    let n = format.layout.components() as usize;
    let ty = format.types[0];
    if format.types[..n].iter().any(|t| *t != ty) {
        return Err(TextureError::Format(format!("{format} (mixed component types)")));
    }
    let refuse = || TextureError::Format(format.to_string());
    let pick = |unorm, snorm, uint, sint, float| -> Result<vk::Format, TextureError> {
        let f = match ty {
            DataType::Unorm => unorm,
            DataType::Snorm => snorm,
            DataType::Uint => uint,
            DataType::Sint => sint,
            DataType::Float => float,
            DataType::SnormForceFp16 | DataType::UnormForceFp16 => F::UNDEFINED,
        };
        if f == F::UNDEFINED {
            Err(refuse())
        } else {
            Ok(f)
        }
    };
    let srgb_of = |f: vk::Format| match f {
        F::R8G8B8A8_UNORM => F::R8G8B8A8_SRGB,
        F::R8_UNORM => F::R8_SRGB,
        F::R8G8_UNORM => F::R8G8_SRGB,
        F::BC1_RGBA_UNORM_BLOCK => F::BC1_RGBA_SRGB_BLOCK,
        F::BC2_UNORM_BLOCK => F::BC2_SRGB_BLOCK,
        F::BC3_UNORM_BLOCK => F::BC3_SRGB_BLOCK,
        F::BC7_UNORM_BLOCK => F::BC7_SRGB_BLOCK,
        _ => F::UNDEFINED,
    };
    let u = F::UNDEFINED;
    let f = match format.layout {
        Layout::R8 => pick(F::R8_UNORM, F::R8_SNORM, F::R8_UINT, F::R8_SINT, u)?,
        Layout::G8R8 => pick(F::R8G8_UNORM, F::R8G8_SNORM, F::R8G8_UINT, F::R8G8_SINT, u)?,
        Layout::A8B8G8R8 => pick(
            F::R8G8B8A8_UNORM,
            F::R8G8B8A8_SNORM,
            F::R8G8B8A8_UINT,
            F::R8G8B8A8_SINT,
            u,
        )?,
        Layout::R16 => pick(
            F::R16_UNORM,
            F::R16_SNORM,
            F::R16_UINT,
            F::R16_SINT,
            F::R16_SFLOAT,
        )?,
        Layout::R16G16 => pick(
            F::R16G16_UNORM,
            F::R16G16_SNORM,
            F::R16G16_UINT,
            F::R16G16_SINT,
            F::R16G16_SFLOAT,
        )?,
        Layout::R16G16B16A16 => pick(
            F::R16G16B16A16_UNORM,
            F::R16G16B16A16_SNORM,
            F::R16G16B16A16_UINT,
            F::R16G16B16A16_SINT,
            F::R16G16B16A16_SFLOAT,
        )?,
        Layout::R32 => pick(u, u, F::R32_UINT, F::R32_SINT, F::R32_SFLOAT)?,
        Layout::R32G32 => pick(u, u, F::R32G32_UINT, F::R32G32_SINT, F::R32G32_SFLOAT)?,
        Layout::R32G32B32A32 => pick(
            u,
            u,
            F::R32G32B32A32_UINT,
            F::R32G32B32A32_SINT,
            F::R32G32B32A32_SFLOAT,
        )?,
        Layout::A2B10G10R10 => pick(F::A2B10G10R10_UNORM_PACK32, u, F::A2B10G10R10_UINT_PACK32, u, u)?,
        Layout::B5G6R5 => pick(F::B5G6R5_UNORM_PACK16, u, u, u, u)?,
        Layout::B10G11R11 => pick(u, u, u, u, F::B10G11R11_UFLOAT_PACK32)?,
        Layout::Dxt1 => pick(F::BC1_RGBA_UNORM_BLOCK, u, u, u, u)?,
        Layout::Dxt23 => pick(F::BC2_UNORM_BLOCK, u, u, u, u)?,
        Layout::Dxt45 => pick(F::BC3_UNORM_BLOCK, u, u, u, u)?,
        Layout::Dxn1 => pick(F::BC4_UNORM_BLOCK, F::BC4_SNORM_BLOCK, u, u, u)?,
        Layout::Dxn2 => pick(F::BC5_UNORM_BLOCK, F::BC5_SNORM_BLOCK, u, u, u)?,
        Layout::Bc7 => pick(F::BC7_UNORM_BLOCK, u, u, u, u)?,
        _ => return Err(refuse()),
    };
    if !srgb {
        return Ok(f);
    }
    match srgb_of(f) {
        F::UNDEFINED => Err(TextureError::Format(format!("{format} with sRGB conversion"))),
        s => Ok(s),
    }
}

/// The view's component mapping (the header's swizzle). Integer and float ones are both `ONE`: the view's
/// format decides which 1 the shader sees.
pub fn component_mapping(format: &Format) -> vk::ComponentMapping {
    let c = |s: Source| match s {
        Source::Zero => vk::ComponentSwizzle::ZERO,
        Source::R => vk::ComponentSwizzle::R,
        Source::G => vk::ComponentSwizzle::G,
        Source::B => vk::ComponentSwizzle::B,
        Source::A => vk::ComponentSwizzle::A,
        Source::OneInt | Source::OneFloat => vk::ComponentSwizzle::ONE,
    };
    let [r, g, b, a] = format.swizzle;
    vk::ComponentMapping {
        r: c(r),
        g: c(g),
        b: c(b),
        a: c(a),
    }
}

/// Image type, view type and whether the image is cube-compatible.
pub fn image_types(header: &TextureHeader) -> Result<(vk::ImageType, vk::ImageViewType, bool), TextureError> {
    use TextureType::*;
    Ok(match header.texture_type {
        OneD => (vk::ImageType::TYPE_1D, vk::ImageViewType::TYPE_1D, false),
        OneDArray => (vk::ImageType::TYPE_1D, vk::ImageViewType::TYPE_1D_ARRAY, false),
        TwoD | TwoDNoMipmap => (vk::ImageType::TYPE_2D, vk::ImageViewType::TYPE_2D, false),
        TwoDArray => (vk::ImageType::TYPE_2D, vk::ImageViewType::TYPE_2D_ARRAY, false),
        ThreeD => (vk::ImageType::TYPE_3D, vk::ImageViewType::TYPE_3D, false),
        Cube => (vk::ImageType::TYPE_2D, vk::ImageViewType::CUBE, true),
        CubeArray => (vk::ImageType::TYPE_2D, vk::ImageViewType::CUBE_ARRAY, true),
        OneDBuffer => {
            return Err(TextureError::Layout(
                "one-D buffers are texel buffers, not images".into(),
            ))
        }
    })
}

/// The Vulkan sampler for `sampler` on `header` (unnormalized coordinates come from the header).
pub fn sampler_info(
    sampler: &Sampler,
    header: &TextureHeader,
) -> Result<vk::SamplerCreateInfo<'static>, TextureError> {
    let refuse = |what: String| TextureError::Sampler { what };
    let mut address = [vk::SamplerAddressMode::REPEAT; 3];
    for (k, mode) in sampler.address.iter().enumerate() {
        address[k] = match mode {
            AddressMode::Wrap => vk::SamplerAddressMode::REPEAT,
            AddressMode::Mirror => vk::SamplerAddressMode::MIRRORED_REPEAT,
            AddressMode::ClampToEdge => vk::SamplerAddressMode::CLAMP_TO_EDGE,
            AddressMode::Border => vk::SamplerAddressMode::CLAMP_TO_BORDER,
            other => return Err(refuse(format!("address mode {other:?}"))),
        };
    }
    if sampler.reduction != Reduction::WeightedAverage {
        return Err(refuse(format!("reduction {:?}", sampler.reduction)));
    }
    if sampler.max_anisotropy != 0 {
        return Err(refuse(format!("anisotropy code {}", sampler.max_anisotropy)));
    }
    let filter = |f: Filter| match f {
        Filter::Point => vk::Filter::NEAREST,
        Filter::Linear => vk::Filter::LINEAR,
    };
    let (mipmap_mode, max_lod) = match sampler.mip_filter {
        // No mip filter: the base level only (Vulkan's recipe: NEAREST with max LOD 0.25).
        MipFilter::None => (vk::SamplerMipmapMode::NEAREST, 0.25),
        MipFilter::Point => (vk::SamplerMipmapMode::NEAREST, sampler.max_lod as f32 / 256.0),
        MipFilter::Linear => (vk::SamplerMipmapMode::LINEAR, sampler.max_lod as f32 / 256.0),
    };
    let border =
        border_color(sampler).ok_or_else(|| refuse(format!("border colour {:08x?}", sampler.border)))?;
    let compare = sampler.compare.map(|f| match f {
        CompareFunc::Never => vk::CompareOp::NEVER,
        CompareFunc::Less => vk::CompareOp::LESS,
        CompareFunc::Equal => vk::CompareOp::EQUAL,
        CompareFunc::LessEqual => vk::CompareOp::LESS_OR_EQUAL,
        CompareFunc::Greater => vk::CompareOp::GREATER,
        CompareFunc::NotEqual => vk::CompareOp::NOT_EQUAL,
        CompareFunc::GreaterEqual => vk::CompareOp::GREATER_OR_EQUAL,
        CompareFunc::Always => vk::CompareOp::ALWAYS,
    });
    let unnormalized = !header.normalized_coords;
    if unnormalized && (header.levels() > 1 || address.iter().any(|a| !is_clamp(*a))) {
        return Err(refuse(
            "unnormalized coordinates with mip levels or wrap/mirror modes".into(),
        ));
    }
    Ok(vk::SamplerCreateInfo::default()
        .mag_filter(filter(sampler.mag_filter))
        .min_filter(filter(sampler.min_filter))
        .mipmap_mode(mipmap_mode)
        .address_mode_u(address[0])
        .address_mode_v(address[1])
        .address_mode_w(address[2])
        .mip_lod_bias(sampler.lod_bias as f32 / 256.0)
        .compare_enable(compare.is_some())
        .compare_op(compare.unwrap_or(vk::CompareOp::NEVER))
        .min_lod(if unnormalized {
            0.0
        } else {
            sampler.min_lod as f32 / 256.0
        })
        .max_lod(if unnormalized { 0.0 } else { max_lod })
        .border_color(border)
        .unnormalized_coordinates(unnormalized))
}

fn is_clamp(a: vk::SamplerAddressMode) -> bool {
    a == vk::SamplerAddressMode::CLAMP_TO_EDGE || a == vk::SamplerAddressMode::CLAMP_TO_BORDER
}

/// The fixed Vulkan border colour equal to the sampler's, if there is one (custom colours need
/// VK_EXT_custom_border_color, not used yet).
fn border_color(sampler: &Sampler) -> Option<vk::BorderColor> {
    const ONE: u32 = 0x3f80_0000;
    match sampler.border {
        [0, 0, 0, 0] => Some(vk::BorderColor::FLOAT_TRANSPARENT_BLACK),
        [0, 0, 0, ONE] => Some(vk::BorderColor::FLOAT_OPAQUE_BLACK),
        [ONE, ONE, ONE, ONE] => Some(vk::BorderColor::FLOAT_OPAQUE_WHITE),
        _ => None,
    }
}

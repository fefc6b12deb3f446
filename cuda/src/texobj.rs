//! Texture and surface objects: `cuTexObjectCreate`/`Destroy`/`GetResourceDesc` and `cuSurfObjectCreate`/
//! `Destroy`. Like NVIDIA's driver, an object is an index into a texture-header (TIC) pool and a sampler (TSC)
//! pool in device memory — here one pool pair per device in the window, entries written with
//! `sassport_textures`' encoders — and the handle is the TIC index with the TSC index in bits 31:20, which
//! is what the translated TEX and SU families read the entries by (`Runtime::set_texture_pools`).

use crate::array::{self, component_bytes, Array};
use crate::error::{DriverError, Result};
use crate::ffi::out;
use crate::log::call;
use crate::result::CUresult;
use crate::state::{self, Driver};
use sassport_textures::{
    AddressMode, DataType, Filter, Format, Layout, MemoryLayout, MipFilter, Reduction, Sampler, Source,
    TextureHeader, TextureType,
};

/// Entries per pool (a handle's index has 20 bits for the header and 12 for the sampler).
pub const POOL_ENTRIES: u32 = 4096;

/// A device's pools: addresses and which slots are taken (slot 0 is never handed out: a 0 handle is null).
pub struct Pools {
    pub tic: u64,
    pub tsc: u64,
    pub used: Vec<bool>,
}

/// `CUDA_RESOURCE_DESC`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct ResourceDesc {
    kind: u32,
    res: [u64; 16],
    flags: u32,
}

/// `CUDA_TEXTURE_DESC`.
#[repr(C)]
pub struct TextureDesc {
    address: [u32; 3],
    filter: u32,
    flags: u32,
    max_anisotropy: u32,
    mip_filter: u32,
    mip_bias: f32,
    min_mip_clamp: f32,
    max_mip_clamp: f32,
    border: [f32; 4],
    reserved: [i32; 12],
}

/// `CU_TRSF_READ_AS_INTEGER`, `CU_TRSF_NORMALIZED_COORDINATES`, `CU_TRSF_SRGB`.
const READ_AS_INTEGER: u32 = 1;
const NORMALIZED: u32 = 2;
const SRGB: u32 = 0x10;

/// The texel format of `CUarray_format` `format` with `channels`, read as integers or normalized floats.
fn format(f: u32, channels: u32, integer: bool) -> Result<Format> {
    let bits = component_bytes(f)? * 8;
    let layout = match (channels, bits) {
        (1, 8) => Layout::R8,
        (2, 8) => Layout::G8R8,
        (4, 8) => Layout::A8B8G8R8,
        (1, 16) => Layout::R16,
        (2, 16) => Layout::R16G16,
        (4, 16) => Layout::R16G16B16A16,
        (1, 32) => Layout::R32,
        (2, 32) => Layout::R32G32,
        (4, 32) => Layout::R32G32B32A32,
        (c, _) => return Err(DriverError::InvalidValue(format!("{c} channels"))),
    };
    let signed = matches!(f, 0x08..=0x0a);
    let ty = match (f, integer || bits == 32) {
        (0x10 | 0x20, _) => DataType::Float,
        (_, true) if signed => DataType::Sint,
        (_, true) => DataType::Uint,
        _ if signed => DataType::Snorm,
        _ => DataType::Unorm,
    };
    let src = [Source::R, Source::G, Source::B, Source::A];
    let swizzle = std::array::from_fn(|k| match k {
        k if (k as u32) < channels => src[k],
        3 if ty == DataType::Sint || ty == DataType::Uint => Source::OneInt,
        3 => Source::OneFloat,
        _ => Source::Zero,
    });
    Ok(Format {
        layout,
        types: [ty; 4],
        swizzle,
        packed: false,
    })
}

fn header(
    format: Format,
    address: u64,
    memory: MemoryLayout,
    ty: TextureType,
    w: u64,
    h: u64,
    d: u64,
) -> TextureHeader {
    TextureHeader {
        format,
        address,
        memory,
        texture_type: ty,
        width: w as u32,
        height: h.max(1) as u32,
        depth: d.max(1) as u32,
        max_mip_level: 0,
        view_levels: (0, 0),
        srgb: false,
        normalized_coords: false,
        depth_texture: false,
        lod_bias: 0,
        max_anisotropy: 0,
        min_lod_clamp: 0,
        msaa: 0,
        border_size: 0,
    }
}

fn array_header(a: &Array, integer: bool) -> Result<TextureHeader> {
    let ty = match (a.height, a.depth, a.flags & array::LAYERED != 0) {
        (0, 0, _) => TextureType::OneD,
        (0, _, true) => TextureType::OneDArray,
        (_, 0, _) => TextureType::TwoD,
        (_, _, true) => TextureType::TwoDArray,
        _ => TextureType::ThreeD,
    };
    let f = format(a.format, a.channels, integer)?;
    Ok(header(
        f,
        a.base,
        MemoryLayout::Pitch {
            pitch: a.pitch as u32,
        },
        ty,
        a.width,
        a.height,
        a.depth,
    ))
}

/// The header a resource description names.
fn resource_header(d: &Driver, r: &ResourceDesc, integer: bool) -> Result<TextureHeader> {
    let u = |i: usize| r.res[i];
    match r.kind {
        0 => array_header(&array::get(d, u(0) as usize)?, integer),
        1 => Err(DriverError::NotSupported(
            "texture objects over mipmapped arrays".into(),
        )),
        2 => {
            let (fmt, ch) = (u(1) as u32, (u(1) >> 32) as u32);
            let f = format(fmt, ch, integer)?;
            let n = u(2) / (component_bytes(fmt)? * ch as u64);
            Ok(header(
                f,
                u(0),
                MemoryLayout::Buffer,
                TextureType::OneDBuffer,
                n,
                1,
                1,
            ))
        }
        3 => {
            let (fmt, ch) = (u(1) as u32, (u(1) >> 32) as u32);
            let f = format(fmt, ch, integer)?;
            if u(4) % 32 != 0 {
                return Err(DriverError::InvalidValue(format!(
                    "pitch {} is not a multiple of 32",
                    u(4)
                )));
            }
            Ok(header(
                f,
                u(0),
                MemoryLayout::Pitch { pitch: u(4) as u32 },
                TextureType::TwoD,
                u(2),
                u(3),
                1,
            ))
        }
        k => Err(DriverError::InvalidValue(format!("resource type {k}"))),
    }
}

fn sampler(t: Option<&TextureDesc>) -> Sampler {
    let mode = |m: u32| match m {
        0 => AddressMode::Wrap,
        2 => AddressMode::Mirror,
        3 => AddressMode::Border,
        _ => AddressMode::ClampToEdge,
    };
    let filter = if t.is_some_and(|t| t.filter == 1) {
        Filter::Linear
    } else {
        Filter::Point
    };
    Sampler {
        address: t.map_or([AddressMode::ClampToEdge; 3], |t| t.address.map(mode)),
        compare: None,
        srgb_border: false,
        max_anisotropy: 0,
        mag_filter: filter,
        min_filter: filter,
        mip_filter: MipFilter::None,
        seamless_cube: false,
        reduction: Reduction::WeightedAverage,
        lod_bias: 0,
        min_lod: 0,
        max_lod: 0,
        border: t.map_or([0; 4], |t| t.border.map(f32::to_bits)),
        srgb_border_rgb: [0; 3],
    }
}

/// Writes the entries into a free slot of the current device's pools; returns the handle.
fn bind(d: &mut Driver, h: &TextureHeader, s: &Sampler) -> Result<u64> {
    let device = d.current_device()?;
    if !d.texture_pools.contains_key(&device) {
        let bytes = 32 * POOL_ENTRIES as u64;
        let rt = &mut d.current_gpu()?.rt;
        let (tic, tsc) = (rt.alloc(bytes)?, rt.alloc(bytes)?);
        rt.set_texture_pools(tic, tsc);
        let mut used = vec![false; POOL_ENTRIES as usize];
        used[0] = true;
        d.texture_pools.insert(device, Pools { tic, tsc, used });
    }
    let pools = d.texture_pools.get_mut(&device).expect("inserted above");
    let slot = pools.used.iter().position(|u| !u).ok_or_else(|| {
        DriverError::NotSupported(format!(
            "more than {} live texture and surface objects",
            POOL_ENTRIES - 1
        ))
    })?;
    pools.used[slot] = true;
    let (tic, tsc) = (pools.tic + 32 * slot as u64, pools.tsc + 32 * slot as u64);
    let rt = &mut d.current_gpu()?.rt;
    rt.upload(tic, &h.encode().to_bytes())?;
    rt.upload(tsc, &s.encode().to_bytes())?;
    Ok(slot as u64 | (slot as u64) << 20)
}

fn unbind(d: &mut Driver, handle: u64) -> Result<()> {
    let device = d.current_device()?;
    let slot = (handle & 0xf_ffff) as usize;
    match d.texture_pools.get_mut(&device) {
        Some(p) if slot != 0 && p.used.get(slot) == Some(&true) => {
            p.used[slot] = false;
            d.texture_resources.remove(&handle);
            Ok(())
        }
        _ => Err(DriverError::InvalidValue(format!(
            "texture or surface object {handle:#x}"
        ))),
    }
}

#[no_mangle]
pub unsafe extern "C" fn cuTexObjectCreate(
    p: *mut u64,
    res: *const ResourceDesc,
    tex: *const TextureDesc,
    view: *const u8,
) -> CUresult {
    call(
        "cuTexObjectCreate",
        || format!("res={res:p}, tex={tex:p}, view={view:p}"),
        || {
            if !view.is_null() {
                return Err(DriverError::NotSupported(
                    "texture objects with a resource view".into(),
                ));
            }
            // SAFETY: the caller passes valid descriptors (null ones are refused).
            let r = *unsafe { res.as_ref() }
                .ok_or_else(|| DriverError::InvalidValue("pResDesc is null".into()))?;
            let t = unsafe { tex.as_ref() }
                .ok_or_else(|| DriverError::InvalidValue("pTexDesc is null".into()))?;
            let handle = state::with(|d| {
                let mut h = resource_header(d, &r, t.flags & READ_AS_INTEGER != 0)?;
                h.normalized_coords = t.flags & NORMALIZED != 0;
                h.srgb = t.flags & SRGB != 0;
                let handle = bind(d, &h, &sampler(Some(t)))?;
                d.texture_resources.insert(handle, r);
                Ok(handle)
            })?;
            unsafe { out(p, handle, "pTexObject") }
        },
    )
}

#[no_mangle]
pub extern "C" fn cuTexObjectDestroy(handle: u64) -> CUresult {
    call(
        "cuTexObjectDestroy",
        || format!("texObject={handle:#x}"),
        || state::with(|d| unbind(d, handle)),
    )
}

#[no_mangle]
pub unsafe extern "C" fn cuTexObjectGetResourceDesc(p: *mut ResourceDesc, handle: u64) -> CUresult {
    call(
        "cuTexObjectGetResourceDesc",
        || format!("texObject={handle:#x}"),
        || {
            let r = state::with(|d| {
                d.texture_resources
                    .get(&handle)
                    .copied()
                    .ok_or_else(|| DriverError::InvalidValue(format!("texture object {handle:#x}")))
            })?;
            unsafe { out(p, r, "pResDesc") }
        },
    )
}

#[no_mangle]
pub unsafe extern "C" fn cuSurfObjectCreate(p: *mut u64, res: *const ResourceDesc) -> CUresult {
    call(
        "cuSurfObjectCreate",
        || format!("res={res:p}"),
        || {
            // SAFETY: as above.
            let r = *unsafe { res.as_ref() }
                .ok_or_else(|| DriverError::InvalidValue("pResDesc is null".into()))?;
            if r.kind != 0 {
                return Err(DriverError::InvalidValue(
                    "surface objects need an array resource".into(),
                ));
            }
            let handle = state::with(|d| {
                let h = resource_header(d, &r, true)?;
                let handle = bind(d, &h, &sampler(None))?;
                d.texture_resources.insert(handle, r);
                Ok(handle)
            })?;
            unsafe { out(p, handle, "pSurfObject") }
        },
    )
}

#[no_mangle]
pub extern "C" fn cuSurfObjectDestroy(handle: u64) -> CUresult {
    call(
        "cuSurfObjectDestroy",
        || format!("surfObject={handle:#x}"),
        || state::with(|d| unbind(d, handle)),
    )
}

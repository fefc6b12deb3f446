//! `sassport surface OUT.png`: move a picture through the emulated DMA copy engine and write what came
//! out as PNG, so a person can look at it.
//!
//! The picture (a generated test card, `--input PNG`, or raw block-linear RGBA8 bytes with
//! `--from-tiled`) is placed in a memory image next to a pushbuffer that binds AMPERE_DMA_COPY_A and
//! launches the copies; the stream then runs through the same GPFIFO replay as `sassport replay`.
//! Round trip: pitch → block-linear (optionally swapping red and blue with the engine's remap) →
//! pitch. `--tiled-view` also writes the block-linear bytes as a picture: every GOB in its place with
//! its bytes in memory order, so the sector order inside GOBs shows.

use anyhow::{bail, Context};
use sassport_engines::copy::dma_method as m;
use sassport_engines::layout::BlockLinearLayout;
use sassport_engines::replay::{replay, ReplayOptions};
use sassport_engines::sector_layout::SectorLayout;
use sassport_engines::standard::EngineOptions;
use sassport_pushbuffer::{GpEntry, Level, Segment, Sync};
use std::io::BufWriter;
use std::path::{Path, PathBuf};

#[derive(clap::Args)]
pub struct Args {
    /// Where to write the picture that came out of the copy engine.
    pub out: PathBuf,
    /// A PNG to copy instead of the generated test card.
    #[arg(long, conflicts_with = "from_tiled")]
    pub input: Option<PathBuf>,
    /// Raw block-linear RGBA8 bytes (`--width` × `--height` pixels) to untile instead of a round trip.
    #[arg(long)]
    pub from_tiled: Option<PathBuf>,
    /// Width in pixels of the generated card or of the `--from-tiled` surface.
    #[arg(long, default_value_t = 640)]
    pub width: u32,
    /// Height in pixels of the generated card or of the `--from-tiled` surface.
    #[arg(long, default_value_t = 360)]
    pub height: u32,
    /// Sector order inside a GOB: 16bx2 (Tegra X1) or turing2d.
    /// Required: the order is a property of the target GPU, never guessed.
    #[arg(long)]
    pub sector_layout: SectorLayout,
    /// Block height as log2 GOBs (0..=5); by default what NVIDIA's driver picks for the height.
    #[arg(long)]
    pub block_height: Option<u32>,
    /// Swap red and blue on the way into block-linear memory (the engine's component remap).
    #[arg(long)]
    pub swap_red_blue: bool,
    /// Also write the block-linear bytes as a picture: each GOB where it belongs, its bytes in memory
    /// order, so the sector order shows.
    #[arg(long)]
    pub tiled_view: Option<PathBuf>,
}

/// The block height NVIDIA's driver picks for a 2-D surface of `height` rows (Mesa NIL, "matching the
/// proprietary driver").
fn default_block_height(height: u32) -> u32 {
    match height {
        86.. => 4,
        43.. => 3,
        22.. => 2,
        11.. => 1,
        _ => 0,
    }
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let (width, height, pixels, tiled_in) = match (&args.input, &args.from_tiled) {
        (Some(path), _) => {
            let (w, h, p) = read_png(path)?;
            (w, h, p, None)
        }
        (None, Some(path)) => {
            let raw = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
            (args.width, args.height, Vec::new(), Some(raw))
        }
        (None, None) => (
            args.width,
            args.height,
            test_card(args.width, args.height),
            None,
        ),
    };
    if width == 0 || height == 0 {
        bail!("the surface is empty ({width} × {height})");
    }
    let block_height = args
        .block_height
        .unwrap_or_else(|| default_block_height(height));
    let width_bytes = width.checked_mul(4).context("surface too wide")?;
    let layout =
        BlockLinearLayout::new(width_bytes, height, 1, block_height, 0, args.sector_layout)
            .context("block-linear layout")?;
    let plan = Plan::new(width, height, &layout)?;

    let mut image = vec![0u8; plan.image_len];
    match &tiled_in {
        Some(raw) => {
            let need = layout.size_bytes() as usize;
            if raw.len() < need {
                bail!("{} bytes of block-linear data given; a {width} × {height} RGBA8 surface with block height {} GOBs needs {need}", raw.len(), 1 << block_height);
            }
            image[plan.tiled as usize..][..need].copy_from_slice(&raw[..need]);
        }
        None => image[plan.src as usize..][..pixels.len()].copy_from_slice(&pixels),
    }
    let (push, gpfifo) = plan.stream(&layout, tiled_in.is_some(), args.swap_red_blue);
    for (i, w) in push.iter().enumerate() {
        image[4 * i..4 * i + 4].copy_from_slice(&w.to_le_bytes());
    }
    let options = ReplayOptions {
        engines: EngineOptions {
            sector_layout: args.sector_layout,
        },
        clock_step_ns: 1000,
    };
    let replayed = replay(image, &gpfifo, &options).context("running the copy stream")?;
    let memory = replayed.memory;

    let done = u32::from_le_bytes(
        memory[plan.semaphore as usize..][..4]
            .try_into()
            .unwrap_or_default(),
    );
    if done != SEMAPHORE_PAYLOAD {
        bail!("the copy engine did not release its completion semaphore");
    }
    let out = &memory[plan.dst as usize..][..plan.pitch_bytes];
    write_png(&args.out, width, height, out)?;
    if let Some(view) = &args.tiled_view {
        let tiled = &memory[plan.tiled as usize..][..layout.size_bytes() as usize];
        let (view_width, view_height, pixels) = gob_view(&layout, tiled);
        write_png(view, view_width, view_height, &pixels)?;
    }
    let what = if tiled_in.is_some() {
        "untiled"
    } else {
        "copied pitch → block-linear → pitch"
    };
    eprintln!(
        "{what} a {width} × {height} RGBA8 surface ({} sectors, block height {} GOBs, {} bytes block-linear); wrote {}",
        args.sector_layout,
        1 << block_height,
        layout.size_bytes(),
        args.out.display()
    );
    if tiled_in.is_none() {
        let expected = if args.swap_red_blue {
            swap_red_blue(&pixels)
        } else {
            pixels.clone()
        };
        if expected != out {
            bail!("the round trip changed the picture");
        }
        eprintln!(
            "round trip: identical{}",
            if args.swap_red_blue {
                " after the red/blue swap"
            } else {
                ""
            }
        );
    }
    Ok(())
}

const SEMAPHORE_PAYLOAD: u32 = 0x600D_C0DE;

/// Where everything lies in the memory image (GPU VA 0 = image byte 0).
struct Plan {
    width: u32,
    height: u32,
    pitch_bytes: usize,
    src: u64,
    tiled: u64,
    dst: u64,
    semaphore: u64,
    image_len: usize,
}

impl Plan {
    fn new(width: u32, height: u32, layout: &BlockLinearLayout) -> anyhow::Result<Plan> {
        let pitch_bytes = width as usize * 4 * height as usize;
        let align = |x: u64| x.next_multiple_of(1 << 16);
        let src = 1 << 16; // the pushbuffer fits in the first 64 KiB
        let tiled = align(src + pitch_bytes as u64);
        let dst = align(tiled + layout.size_bytes());
        let semaphore = align(dst + pitch_bytes as u64);
        let image_len = usize::try_from(semaphore + 16).context("surface too large")?;
        Ok(Plan {
            width,
            height,
            pitch_bytes,
            src,
            tiled,
            dst,
            semaphore,
            image_len,
        })
    }

    /// The pushbuffer words and the GPFIFO bytes: bind the DMA engine on subchannel 4, optionally tile
    /// the pitch source, untile into the pitch destination, release the semaphore.
    fn stream(
        &self,
        layout: &BlockLinearLayout,
        from_tiled: bool,
        swap: bool,
    ) -> (Vec<u32>, Vec<u8>) {
        const SUBC: u32 = 4;
        let mut push = Vec::new();
        let mut set = |method: u32, data: &[u32]| {
            push.push(0x2000_0000 | ((data.len() as u32) << 16) | (SUBC << 13) | (method >> 2));
            push.extend_from_slice(data);
        };
        let hi = |va: u64| (va >> 32) as u32;
        let lo = |va: u64| va as u32;
        let block = (layout.block_height_log2() << 4) | (1 << 12);
        let pitch = self.width * 4;
        set(0, &[0xC6B5]);
        // Both block-linear sides describe the same surface: width in elements of 4 bytes (remap on)
        // or in bytes (remap off), height, depth 1, layer 0, origin 0.
        let surface = |elements: bool| {
            [
                block,
                if elements { self.width } else { pitch },
                self.height,
                1,
                0,
                0,
            ]
        };
        if !from_tiled {
            set(
                m::OFFSET_IN_UPPER,
                &[
                    hi(self.src),
                    lo(self.src),
                    hi(self.tiled),
                    lo(self.tiled),
                    pitch,
                    0,
                ],
            );
            if swap {
                // DST_X = SRC_Z, DST_Y = SRC_Y, DST_Z = SRC_X, DST_W = SRC_W; 4 components of 1 byte.
                set(
                    m::SET_REMAP_COMPONENTS,
                    &[2 | (1 << 4) | (3 << 12) | (3 << 20) | (3 << 24)],
                );
                set(m::LINE_LENGTH_IN, &[self.width, self.height]);
            } else {
                set(m::LINE_LENGTH_IN, &[pitch, self.height]);
            }
            set(m::SET_DST_BLOCK_SIZE, &surface(swap));
            // NON_PIPELINED, SRC pitch, DST block-linear, multi-line, remap when swapping.
            set(
                m::LAUNCH_DMA,
                &[2 | (1 << 7) | (1 << 9) | if swap { 1 << 10 } else { 0 }],
            );
        }
        set(
            m::OFFSET_IN_UPPER,
            &[
                hi(self.tiled),
                lo(self.tiled),
                hi(self.dst),
                lo(self.dst),
                0,
                pitch,
            ],
        );
        set(m::LINE_LENGTH_IN, &[pitch, self.height]);
        set(m::SET_SRC_BLOCK_SIZE, &surface(false));
        set(
            m::SET_SEMAPHORE_A,
            &[hi(self.semaphore), lo(self.semaphore), SEMAPHORE_PAYLOAD],
        );
        // NON_PIPELINED, four-word semaphore, SRC block-linear, DST pitch, multi-line.
        set(m::LAUNCH_DMA, &[2 | (2 << 3) | (1 << 8) | (1 << 9)]);
        let entry = GpEntry::Segment(Segment {
            address: 0,
            length_words: push.len() as u32,
            level: Level::Main,
            sync: Sync::Proceed,
        });
        (push, entry.encode().to_le_bytes().to_vec())
    }
}

/// The block-linear bytes with every GOB at its place in the picture but its 512 bytes shown in memory
/// order (eight rows of 64 bytes), so the sector order inside each GOB is what the eye sees.
fn gob_view(layout: &BlockLinearLayout, tiled: &[u8]) -> (u32, u32, Vec<u8>) {
    let gobs_x = layout.gobs_per_row() as usize;
    let gobs_y = (layout.height() as usize).div_ceil(8);
    let pitch = gobs_x * 64;
    let mut out = vec![0u8; pitch * gobs_y * 8];
    for gy in 0..gobs_y {
        for gx in 0..gobs_x {
            let at = (layout.row_base(gy as u32 * 8, 0) + layout.gob_column_offset(gx as u32 * 64))
                as usize;
            for row in 0..8 {
                let src = &tiled[at + row * 64..at + row * 64 + 64];
                out[(gy * 8 + row) * pitch + gx * 64..][..64].copy_from_slice(src);
            }
        }
    }
    ((gobs_x * 16) as u32, (gobs_y * 8) as u32, out)
}

fn swap_red_blue(pixels: &[u8]) -> Vec<u8> {
    pixels
        .chunks_exact(4)
        .flat_map(|p| [p[2], p[1], p[0], p[3]])
        .collect()
}

/// A test card: colour ramps, a checkerboard of 8-pixel squares (GOB rows are 8 pixels high and, in
/// RGBA8, 16 pixels wide, so misplaced sectors show), concentric rings and a white border.
fn test_card(width: u32, height: u32) -> Vec<u8> {
    let mut out = Vec::with_capacity(width as usize * height as usize * 4);
    let (cx, cy) = (width as f32 / 2.0, height as f32 / 2.0);
    for y in 0..height {
        for x in 0..width {
            let border = x < 2 || y < 2 || x + 2 >= width || y + 2 >= height;
            let r = ((x as f32 - cx).powi(2) + (y as f32 - cy).powi(2)).sqrt();
            let ring = (r / 12.0) as u32 % 2 == 0 && r < cx.min(cy) * 0.8;
            let check = ((x / 8) + (y / 8)) % 2 == 0;
            let px = if border {
                [255, 255, 255, 255]
            } else if ring {
                [255, (255 * y / height.max(1)) as u8, 40, 255]
            } else if check {
                [
                    (255 * x / width.max(1)) as u8,
                    64,
                    (255 * y / height.max(1)) as u8,
                    255,
                ]
            } else {
                [20, (255 * x / width.max(1)) as u8, 120, 255]
            };
            out.extend_from_slice(&px);
        }
    }
    out
}

fn write_png(path: &Path, width: u32, height: u32, rgba: &[u8]) -> anyhow::Result<()> {
    let file =
        std::fs::File::create(path).with_context(|| format!("creating {}", path.display()))?;
    let mut encoder = png::Encoder::new(BufWriter::new(file), width, height);
    encoder.set_color(png::ColorType::Rgba);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder
        .write_header()
        .with_context(|| format!("writing {}", path.display()))?;
    writer
        .write_image_data(rgba)
        .with_context(|| format!("writing {}", path.display()))?;
    writer
        .finish()
        .with_context(|| format!("writing {}", path.display()))?;
    Ok(())
}

/// Reads a PNG as 8-bit RGBA.
fn read_png(path: &Path) -> anyhow::Result<(u32, u32, Vec<u8>)> {
    let file = std::fs::File::open(path).with_context(|| format!("opening {}", path.display()))?;
    let mut decoder = png::Decoder::new(std::io::BufReader::new(file));
    decoder.set_transformations(png::Transformations::normalize_to_color8());
    let mut reader = decoder
        .read_info()
        .with_context(|| format!("reading {}", path.display()))?;
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader
        .next_frame(&mut buf)
        .with_context(|| format!("decoding {}", path.display()))?;
    let data = &buf[..info.buffer_size()];
    let rgba = match info.color_type {
        png::ColorType::Rgba => data.to_vec(),
        png::ColorType::Rgb => data
            .chunks_exact(3)
            .flat_map(|p| [p[0], p[1], p[2], 255])
            .collect(),
        png::ColorType::GrayscaleAlpha => data
            .chunks_exact(2)
            .flat_map(|p| [p[0], p[0], p[0], p[1]])
            .collect(),
        png::ColorType::Grayscale => data.iter().flat_map(|&g| [g, g, g, 255]).collect(),
        png::ColorType::Indexed => bail!("{}: indexed colour was not expanded", path.display()),
    };
    Ok((info.width, info.height, rgba))
}

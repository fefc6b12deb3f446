//! `sassport render SCENE [-o OUT.png] [--raw OUT.bin] [--reference]`: one draw of a scene file
//! (`scene.rs` documents the format) on the default device: its guest programs translated, or with
//! `--reference` its GLSL references. `-o` writes colour target 0 as PNG (RGBA8 targets); `--raw` writes
//! every colour target's bytes, then the depth target's (f32), in that order. Files are written whole
//! (a temporary file renamed), so a failed run leaves none.

use anyhow::{bail, Context, Result};
use sassport::scene::{scene_draw, Scene};
use sassport_runtime::graphics::{ColorFormat, GraphicsDevice};
use sassport_runtime::DeviceSelector;
use std::path::{Path, PathBuf};

#[derive(clap::Args)]
pub struct Args {
    /// The scene file.
    scene: PathBuf,
    /// Write colour target 0 here as PNG.
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// Write every target's raw bytes here.
    #[arg(long)]
    raw: Option<PathBuf>,
    /// Draw with the scene's GLSL references instead of its guest programs.
    #[arg(long)]
    reference: bool,
}

fn write_whole(path: &Path, bytes: &[u8]) -> Result<()> {
    let tmp = path.with_extension("partial");
    std::fs::write(&tmp, bytes).with_context(|| format!("writing {}", tmp.display()))?;
    std::fs::rename(&tmp, path)
        .with_context(|| format!("renaming {} to {}", tmp.display(), path.display()))
}

pub fn run(args: Args) -> Result<()> {
    let scene = Scene::read(&args.scene)?;
    let gd = GraphicsDevice::new(&DeviceSelector::Default)?;
    let options = sassport_translator::translate::Options::default();
    let draw = scene_draw(&scene, args.reference, &options)?;
    let out = gd.render(&draw)?;
    eprintln!(
        "rendered {}x{} on {}",
        scene.width,
        scene.height,
        gd.info().name
    );
    if let Some(path) = &args.output {
        if scene.formats.first() != Some(&ColorFormat::Rgba8Unorm) {
            bail!("PNG output needs an rgba8 target 0 (use --raw)");
        }
        let mut png_bytes = Vec::new();
        {
            let mut enc = png::Encoder::new(&mut png_bytes, scene.width, scene.height);
            enc.set_color(png::ColorType::Rgba);
            enc.set_depth(png::BitDepth::Eight);
            let mut w = enc.write_header().context("PNG header")?;
            w.write_image_data(out.colors.first().map(Vec::as_slice).unwrap_or(&[]))
                .context("PNG data")?;
        }
        write_whole(path, &png_bytes)?;
    }
    if let Some(path) = &args.raw {
        let mut all: Vec<u8> = out.colors.concat();
        all.extend(out.depth.unwrap_or_default());
        write_whole(path, &all)?;
    }
    Ok(())
}

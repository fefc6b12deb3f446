//! `sassport surface`: the PNGs it writes, checked against pixels and block-linear addresses computed
//! here (GOB bit patterns from shared/notes/command-engines.md §5.2), not by the engines.

use std::path::{Path, PathBuf};
use std::process::Command;

fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("sassport-surface-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn pixels(w: u32, h: u32, seed: u32) -> Vec<u8> {
    (0..w * h * 4)
        .map(|i| (i.wrapping_mul(2654435761).wrapping_add(seed) >> 13) as u8)
        .collect()
}

fn write_png(path: &Path, w: u32, h: u32, rgba: &[u8]) {
    let mut enc = png::Encoder::new(std::fs::File::create(path).unwrap(), w, h);
    enc.set_color(png::ColorType::Rgba);
    enc.set_depth(png::BitDepth::Eight);
    enc.write_header().unwrap().write_image_data(rgba).unwrap();
}

fn read_png(path: &Path) -> (u32, u32, Vec<u8>) {
    let mut reader = png::Decoder::new(std::fs::File::open(path).unwrap())
        .read_info()
        .unwrap();
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).unwrap();
    assert_eq!(info.color_type, png::ColorType::Rgba);
    buf.truncate(info.buffer_size());
    (info.width, info.height, buf)
}

/// (x, y) inside a GOB of the byte at GOB offset `o`: Tegra b8..b0 = x5 y2 y1 x4 y0 x3..x0, Turing
/// b8..b0 = x5 y2 x4 y1 y0 x3..x0.
fn gob_xy(turing: bool, o: u64) -> (u64, u64) {
    let bit = |n: u32| (o >> n) & 1;
    if turing {
        (
            (o & 15) | bit(6) << 4 | bit(8) << 5,
            bit(4) | bit(5) << 1 | bit(7) << 2,
        )
    } else {
        (
            (o & 15) | bit(5) << 4 | bit(8) << 5,
            bit(4) | bit(6) << 1 | bit(7) << 2,
        )
    }
}

fn sassport(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_sassport"))
        .arg("surface")
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn round_trip_of_an_input_picture_and_the_gob_view() {
    let d = dir("round-trip");
    let (w, h) = (100u32, 37u32);
    let input = pixels(w, h, 1);
    write_png(&d.join("in.png"), w, h, &input);
    let (out, view) = (d.join("out.png"), d.join("view.png"));
    let o = sassport(&[
        out.to_str().unwrap(),
        "--input",
        d.join("in.png").to_str().unwrap(),
        "--sector-layout",
        "16bx2",
        "--block-height",
        "1",
        "--tiled-view",
        view.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(read_png(&out), (w, h, input.clone()));
    // The view: GOB (gx, gy) at pixel (16 gx, 8 gy), its bytes in memory order, 64 per row.
    let (vw, vh, view) = read_png(&view);
    let gobs_x = (w as u64 * 4).div_ceil(64);
    assert_eq!(
        (vw as u64, vh as u64),
        (gobs_x * 16, (h as u64).div_ceil(8) * 8)
    );
    let pitch = gobs_x * 64;
    for gy in 0..(h as u64).div_ceil(8) {
        for gx in 0..gobs_x {
            for o in 0..512u64 {
                let (x, y) = gob_xy(false, o);
                let (px, py) = (gx * 64 + x, gy * 8 + y);
                let shown = view[((gy * 8 + o / 64) * pitch + gx * 64 + o % 64) as usize];
                let expected = if px < w as u64 * 4 && py < h as u64 {
                    input[(py * w as u64 * 4 + px) as usize]
                } else {
                    0
                };
                assert_eq!(shown, expected, "GOB ({gx},{gy}) byte {o}");
            }
        }
    }
}

#[test]
fn untiling_a_raw_block_linear_dump() {
    let d = dir("from-tiled");
    let (w, h, bh) = (70u64, 50u64, 2u32);
    let picture = pixels(w as u32, h as u32, 7);
    // Build the block-linear bytes here: Turing sectors, blocks of 4 GOBs, rows of blocks.
    let gobs_x = (w * 4).div_ceil(64);
    let rows_of_blocks = h.div_ceil(8 << bh);
    let mut raw = vec![0u8; (gobs_x * rows_of_blocks * (512 << bh)) as usize];
    for y in 0..h {
        for x in 0..w * 4 {
            let block = (y / (8 << bh)) * gobs_x + x / 64;
            let gob = block * (1 << bh) + (y / 8) % (1 << bh);
            let mut offset = 0;
            for o in 0..512 {
                if gob_xy(true, o) == (x % 64, y % 8) {
                    offset = o;
                }
            }
            raw[(gob * 512 + offset) as usize] = picture[(y * w * 4 + x) as usize];
        }
    }
    std::fs::write(d.join("raw.bin"), &raw).unwrap();
    let out = d.join("out.png");
    let o = sassport(&[
        out.to_str().unwrap(),
        "--from-tiled",
        d.join("raw.bin").to_str().unwrap(),
        "--width",
        "70",
        "--height",
        "50",
        "--block-height",
        "2",
        "--sector-layout",
        "turing2d",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(read_png(&out), (w as u32, h as u32, picture));
    // Too short a dump is refused, naming what was needed, and writes no picture.
    std::fs::write(d.join("short.bin"), &raw[..raw.len() - 1]).unwrap();
    let bad = d.join("bad.png");
    let o = sassport(&[
        bad.to_str().unwrap(),
        "--from-tiled",
        d.join("short.bin").to_str().unwrap(),
        "--width",
        "70",
        "--height",
        "50",
        "--block-height",
        "2",
        "--sector-layout",
        "turing2d",
    ]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains(&raw.len().to_string()));
    assert!(!bad.exists());
}

#[test]
fn remap_swaps_red_and_blue_in_the_generated_card() {
    let d = dir("swap");
    let (plain, swapped) = (d.join("plain.png"), d.join("swapped.png"));
    for (path, extra) in [(&plain, None), (&swapped, Some("--swap-red-blue"))] {
        let mut args = vec![path.to_str().unwrap(), "--width", "48", "--height", "20", "--sector-layout", "16bx2"];
        args.extend(extra);
        let o = sassport(&args);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    let (_, _, a) = read_png(&plain);
    let (_, _, b) = read_png(&swapped);
    assert!(a
        .chunks(4)
        .zip(b.chunks(4))
        .all(|(p, q)| p[0] == q[2] && p[1] == q[1] && p[2] == q[0] && p[3] == q[3]));
    assert!(a != b);
}

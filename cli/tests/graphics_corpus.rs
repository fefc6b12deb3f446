//! corpus/graphics: every scene drawn with its hand-assembled programs and with its GLSL references
//! (glslangValidator) on the same device (lavapipe in CI); every byte of every target must agree. Every
//! translated module passes spirv-val for its stage, every assembled word prints as nvdisasm prints it,
//! and bad input gets the typed error naming it.

use sassport::scene::{parse_program, read_program, scene_draw, Scene};
use sassport_runtime::graphics::GraphicsDevice;
use sassport_runtime::DeviceSelector;
use sassport_translator::error::TranslateError;
use sassport_translator::graphics::{SphError, Stage};
use sassport_translator::translate::Options;
use sassport_translator::translate_graphics::translate_stage;
use std::path::{Path, PathBuf};
use std::process::Command;

fn as_stage(stage: Stage) -> Options {
    Options {
        stage,
        ..Options::default()
    }
}

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/graphics")
}

fn files(ext: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(corpus())
        .expect("corpus/graphics")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == ext))
        .collect();
    v.sort();
    v
}

#[test]
fn every_scene_renders_like_its_glsl_reference() {
    let gd = GraphicsDevice::new(&DeviceSelector::Default).expect("a Vulkan device");
    let scenes = files("scene");
    assert!(scenes.len() >= 10, "{} scenes", scenes.len());
    for path in scenes {
        let name = path
            .file_name()
            .and_then(|s| s.to_str())
            .unwrap_or("?")
            .to_string();
        let scene = Scene::read(&path).unwrap();
        let ours = gd
            .render(&scene_draw(&scene, false, &Options::default()).unwrap())
            .unwrap();
        let reference = gd
            .render(&scene_draw(&scene, true, &Options::default()).unwrap())
            .unwrap();
        for (t, (a, b)) in ours.colors.iter().zip(&reference.colors).enumerate() {
            let first = a.iter().zip(b.iter()).position(|(x, y)| x != y);
            assert!(
                first.is_none(),
                "{name}: colour target {t} differs first at byte {first:?}"
            );
            // The draw covered something: not every pixel is the clear colour.
            let pixel = a.len() / (scene.width * scene.height) as usize;
            assert!(
                a.chunks(pixel).any(|p| p != &a[..pixel]),
                "{name}: target {t} is one colour"
            );
        }
        assert_eq!(ours.depth, reference.depth, "{name}: depth targets differ");
    }
}

fn spirv_val(words: &[u32], what: &str) {
    let path = std::env::temp_dir().join(format!("sassport-gfx-{}-{what}.spv", std::process::id()));
    std::fs::write(
        &path,
        words
            .iter()
            .flat_map(|w| w.to_le_bytes())
            .collect::<Vec<u8>>(),
    )
    .unwrap();
    let out = Command::new("spirv-val")
        .args(["--target-env", "vulkan1.3"])
        .arg(&path)
        .output()
        .expect("spirv-val");
    let _ = std::fs::remove_file(&path);
    assert!(
        out.status.success(),
        "{what}: spirv-val: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn every_program_is_valid_spirv_for_its_stage() {
    let programs = files("sass");
    assert!(programs.len() >= 10, "{} programs", programs.len());
    for path in programs {
        let p = read_program(&path).unwrap();
        let name = path
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or("?")
            .to_string();
        let t = translate_stage(&name, &p.bytes, &as_stage(p.stage)).unwrap();
        spirv_val(&t.words, &name);
    }
}

fn nvdisasm() -> Option<PathBuf> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../.tools/venv/lib/python3.11/site-packages/nvidia/cu13/bin/nvdisasm");
    p.exists().then_some(p)
}

/// Whitespace collapsed and none before the `;` (nvdisasm omits that space after some control bits).
fn normalise(line: &str) -> String {
    line.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .replace(" ;", ";")
}

/// The source lines of a program (its instructions), normalised, with label targets `` `(NAME) `` replaced
/// by the address nvdisasm prints (labels are alone on their line; each instruction is 16 bytes).
fn instruction_lines(text: &str) -> Vec<String> {
    let lines: Vec<&str> = text
        .lines()
        .map(|l| l.split("//").next().unwrap_or("").trim())
        .filter(|l| !l.is_empty() && !l.starts_with(".sph"))
        .collect();
    let mut labels = std::collections::HashMap::new();
    let mut at = 0u32;
    for l in &lines {
        match l.strip_suffix(':') {
            Some(name) => {
                labels.insert(format!("`({name})"), format!("{at:#x}"));
            }
            None => at += 16,
        }
    }
    let resolve = |l: &str| {
        labels
            .iter()
            .fold(l.to_string(), |s, (k, v)| s.replace(k.as_str(), v))
    };
    lines
        .iter()
        .filter(|l| !l.ends_with(':'))
        .map(|l| normalise(&resolve(l)))
        .collect()
}

#[test]
fn every_assembled_word_prints_as_nvdisasm_prints_it() {
    let Some(tool) = nvdisasm() else {
        eprintln!("nvdisasm not installed (cargo xtask tools): words not checked");
        return;
    };
    for path in files("sass") {
        let text = std::fs::read_to_string(&path).unwrap();
        let p = parse_program(&text).unwrap();
        let bin = std::env::temp_dir().join(format!("sassport-gfx-{}.bin", std::process::id()));
        std::fs::write(
            &bin,
            p.words
                .iter()
                .flat_map(|w| w.to_le_bytes())
                .collect::<Vec<u8>>(),
        )
        .unwrap();
        let out = Command::new(&tool)
            .args(["-b", "SM86", "-raw"])
            .arg(&bin)
            .output()
            .unwrap();
        let _ = std::fs::remove_file(&bin);
        let listing: Vec<String> = String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter_map(|l| l.split_once("*/").map(|(_, t)| normalise(t)))
            .collect();
        assert_eq!(listing, instruction_lines(&text), "{}", path.display());
    }
}

const VERTEX: &str = ".sph vertex\n.sph in 0x80-0x8c\n.sph out 0x70-0x7c\n\
                      ALD.128 R0, a[0x80] ;\nAST.128 a[0x70], R0 ;\nEXIT ;\n";

#[test]
fn a_truncated_header_is_refused_by_name() {
    let p = parse_program(VERTEX).unwrap();
    let e = translate_stage("vs", &p.bytes[..0x40], &as_stage(Stage::Vertex)).unwrap_err();
    assert!(
        matches!(e, TranslateError::Sph(SphError::Truncated { len: 0x40 })),
        "{e}"
    );
    assert!(e.to_string().contains("truncated"), "{e}");
}

#[test]
fn a_vertex_header_given_as_a_pixel_program_is_a_stage_mismatch() {
    let p = parse_program(VERTEX).unwrap();
    let e = translate_stage("vs", &p.bytes, &as_stage(Stage::Fragment)).unwrap_err();
    assert!(matches!(e, TranslateError::StageMismatch(_)), "{e}");
    assert!(e.to_string().contains("ShaderType"), "{e}");
}

#[test]
fn an_attribute_outside_the_map_is_refused_naming_its_address() {
    let text = VERTEX.replace("ALD.128 R0, a[0x80]", "ALD.128 R0, a[0x90]");
    let p = parse_program(&text).unwrap();
    let e = translate_stage("vs", &p.bytes, &as_stage(Stage::Vertex)).unwrap_err();
    match &e {
        TranslateError::AttributeOutsideMap {
            address,
            map,
            offset,
            ..
        } => {
            assert_eq!((*address, *map, *offset), (0x90, "input", 0));
        }
        other => panic!("expected AttributeOutsideMap, got {other}"),
    }
    let text = VERTEX.replace("AST.128 a[0x70]", "AST.128 a[0x80]");
    let p = parse_program(&text).unwrap();
    let e = translate_stage("vs", &p.bytes, &as_stage(Stage::Vertex)).unwrap_err();
    assert!(
        matches!(
            e,
            TranslateError::AttributeOutsideMap {
                address: 0x80,
                map: "output",
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn geometry_instructions_are_refused_by_name() {
    let text = VERTEX.replace("EXIT ;", "OUT.EMIT R1, R2, R3 ;\nEXIT ;");
    let p = parse_program(&text).unwrap();
    let e = translate_stage("vs", &p.bytes, &as_stage(Stage::Vertex)).unwrap_err();
    assert!(
        matches!(&e, TranslateError::NotTranslated { name, .. } if name.starts_with("OUT")),
        "{e}"
    );
}

#[test]
fn a_pixel_input_no_vertex_output_writes_does_not_link() {
    use sassport_translator::translate_graphics::{check_link, LinkError};
    let vs = parse_program(VERTEX).unwrap();
    let fs_text = ".sph pixel\n.sph generic 2 flat x\n.sph target 0 0xf\n\
                   IPA.CONSTANT R0, a[0xa0] ;\nEXIT ;\n";
    let fs = parse_program(fs_text).unwrap();
    let v = translate_stage("vs", &vs.bytes, &as_stage(Stage::Vertex)).unwrap();
    let f = translate_stage("fs", &fs.bytes, &as_stage(Stage::Fragment)).unwrap();
    assert_eq!(
        check_link(&v.interface, &f.interface),
        Err(LinkError {
            location: 2,
            address: 0xa0
        })
    );
}

#[test]
fn a_loop_in_a_pixel_program_translates_without_the_abort_word() {
    // Four turns of a counted loop: graphics stages have no launch values, so the loop's polls read 0.
    let text = ".sph pixel\n.sph target 0 0xf\nMOV R0, RZ ;\nMOV R1, 0x4 ;\nloop:\nFADD R0, R0, 0.25 ;\n\
                IADD3 R1, R1, -0x1, RZ ;\nISETP.NE.AND P0, PT, R1, RZ, PT ;\n@P0 BRA `(loop) ;\nEXIT ;\n";
    let p = parse_program(text).unwrap();
    let t = translate_stage("fs", &p.bytes, &as_stage(Stage::Fragment)).unwrap();
    spirv_val(&t.words, "loop");
}

fn sassport() -> Command {
    Command::new(env!("CARGO_BIN_EXE_sassport"))
}

#[test]
fn render_writes_a_png_of_the_scene() {
    let out = std::env::temp_dir().join(format!("sassport-render-{}.png", std::process::id()));
    let scene = corpus().join("tri_perspective.scene");
    let run = sassport()
        .arg("render")
        .arg(&scene)
        .arg("-o")
        .arg(&out)
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let decoder = png::Decoder::new(std::fs::File::open(&out).unwrap());
    let reader = decoder.read_info().unwrap();
    assert_eq!((reader.info().width, reader.info().height), (32, 32));
    let _ = std::fs::remove_file(&out);
}

#[test]
fn a_bad_scene_line_is_named_and_nothing_is_written() {
    let dir = std::env::temp_dir().join(format!("sassport-badscene-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let scene = dir.join("bad.scene");
    std::fs::write(&scene, "target 32 32 rgba8\ndraw 3\ntopology fans\n").unwrap();
    let out = dir.join("out.png");
    let run = sassport()
        .arg("render")
        .arg(&scene)
        .arg("-o")
        .arg(&out)
        .output()
        .unwrap();
    assert!(!run.status.success());
    let err = String::from_utf8_lossy(&run.stderr);
    assert!(err.contains("line 3") && err.contains("fans"), "{err}");
    assert!(!out.exists());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_kill_under_a_header_that_kills_no_pixels_is_refused_naming_the_field() {
    let text = std::fs::read_to_string(corpus().join("fs_discard.sass"))
        .unwrap()
        .replace(".sph kills\n", "");
    let p = parse_program(&text).unwrap();
    let e = translate_stage("fs", &p.bytes, &as_stage(Stage::Fragment)).unwrap_err();
    assert!(
        matches!(&e, TranslateError::GraphicsHeader { field, .. } if field == "KillsPixels"),
        "{e}"
    );
}

//! Scene files for `sassport render`: one vertex + fragment draw, its programs, data and targets.
//!
//! A scene is lines of `KEYWORD VALUES...` (`#` starts a comment; paths are relative to the scene's file):
//!
//! ```text
//! target 32 32 rgba8 0xf      # one line per colour target, location order; rgba8 or rgba32f; the
//!                             # components the draw writes (optional hex mask, default 0xf)
//! clear 0 0 0 1               # the targets' clear colour
//! depth less 1.0              # optional depth target (D32): test less|always, clear value
//! topology triangles          # triangles | strip | points
//! draw 3 1                    # vertices [instances]
//! stride 16                   # bytes per vertex
//! attribute 0 4 0             # location, f32 components (1..=4), byte offset
//! vertex-data -1 -1 0 1 ...   # f32 values, appended (repeatable)
//! bank fragment 1 f32 0.5 ... # stage (vertex|fragment), bank, f32|u32, words appended (repeatable)
//! vertex tri.sass             # the guest programs: hand assembly with `.sph` lines
//! fragment color.sass
//! reference-vertex tri.vert   # GLSL of the same computation (glslangValidator), for --reference
//! reference-fragment color.frag
//! ```
//!
//! A program file is `sassport asm` text plus `.sph` lines giving its header's fields: `.sph vertex` or
//! `.sph pixel`; vertex `.sph in ADDR...` / `.sph out ADDR...` (hex addresses or inclusive ranges
//! `0x80-0x8c`); pixel `.sph generic N perspective|flat|linear xyzw`, `.sph target N MASK` (hex component
//! mask), `.sph depth`, `.sph kills`; or `.sph words W0 ... W19` for a raw header.

use anyhow::{bail, Context, Result};
use sassport_runtime::graphics::{
    BankBinding, ColorFormat, DepthTarget, Draw, Topology, VertexAttribute,
};
use sassport_translator::graphics::sph::{Interpolation, StageMaps, SPH_WORDS};
use sassport_translator::graphics::{ShaderProgramHeader, Stage};
use std::path::{Path, PathBuf};

/// A parsed scene (programs not yet read).
#[derive(Debug, Clone)]
pub struct Scene {
    pub dir: PathBuf,
    pub width: u32,
    pub height: u32,
    pub formats: Vec<ColorFormat>,
    /// Components each target keeps from the draw (`target ... MASK`, default 0xf).
    pub write_masks: Vec<u8>,
    pub clear: [f32; 4],
    pub depth: Option<DepthTarget>,
    pub topology: Topology,
    pub vertices: u32,
    pub instances: u32,
    pub stride: u32,
    pub attributes: Vec<VertexAttribute>,
    pub vertex_data: Vec<u8>,
    /// (set, bank, bytes)
    pub banks: Vec<(u32, u8, Vec<u8>)>,
    pub vertex: Option<PathBuf>,
    pub fragment: Option<PathBuf>,
    pub reference_vertex: Option<PathBuf>,
    pub reference_fragment: Option<PathBuf>,
}

fn num<T: std::str::FromStr>(s: &str, what: &str) -> Result<T> {
    s.parse::<T>()
        .map_err(|_| anyhow::anyhow!("{what}: {s:?} is not a number"))
}

fn hex(s: &str) -> Result<u32> {
    let t = s.trim_start_matches("0x");
    u32::from_str_radix(t, 16).map_err(|_| anyhow::anyhow!("{s:?} is not a hex number"))
}

impl Scene {
    /// Reads the scene file at `path`.
    pub fn read(path: &Path) -> Result<Scene> {
        let text =
            std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
        let dir = path.parent().unwrap_or(Path::new(".")).to_path_buf();
        Scene::parse(&text, dir).with_context(|| format!("scene {}", path.display()))
    }

    /// Parses scene text; relative paths are under `dir`.
    pub fn parse(text: &str, dir: PathBuf) -> Result<Scene> {
        let mut s = Scene {
            dir,
            width: 0,
            height: 0,
            formats: Vec::new(),
            write_masks: Vec::new(),
            clear: [0.0; 4],
            depth: None,
            topology: Topology::TriangleList,
            vertices: 0,
            instances: 1,
            stride: 0,
            attributes: Vec::new(),
            vertex_data: Vec::new(),
            banks: Vec::new(),
            vertex: None,
            fragment: None,
            reference_vertex: None,
            reference_fragment: None,
        };
        for (n, line) in text.lines().enumerate() {
            let line = line.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            s.line(line)
                .with_context(|| format!("line {}: {line:?}", n + 1))?;
        }
        if s.formats.is_empty() || s.vertices == 0 {
            bail!("a scene needs a `target` line and a `draw` line with at least one vertex");
        }
        Ok(s)
    }

    fn line(&mut self, line: &str) -> Result<()> {
        let words: Vec<&str> = line.split_whitespace().collect();
        let arg = |i: usize| {
            words
                .get(i)
                .copied()
                .ok_or_else(|| anyhow::anyhow!("missing value {i}"))
        };
        match words[0] {
            "target" => {
                let (w, h) = (
                    num::<u32>(arg(1)?, "width")?,
                    num::<u32>(arg(2)?, "height")?,
                );
                if !self.formats.is_empty() && (w, h) != (self.width, self.height) {
                    bail!("every target has the first target's size");
                }
                (self.width, self.height) = (w, h);
                self.formats.push(match arg(3)? {
                    "rgba8" => ColorFormat::Rgba8Unorm,
                    "rgba32f" => ColorFormat::Rgba32Float,
                    f => bail!("target format {f:?} (rgba8 or rgba32f)"),
                });
                self.write_masks.push(match words.get(4) {
                    Some(m) => hex(m)? as u8 & 0xf,
                    None => 0xf,
                });
            }
            "clear" => {
                for i in 0..4 {
                    self.clear[i] = num(arg(i + 1)?, "clear")?;
                }
            }
            "depth" => {
                let less = match arg(1)? {
                    "less" => true,
                    "always" => false,
                    t => bail!("depth test {t:?} (less or always)"),
                };
                self.depth = Some(DepthTarget {
                    less,
                    clear: num(arg(2)?, "depth clear")?,
                });
            }
            "topology" => {
                self.topology = match arg(1)? {
                    "triangles" => Topology::TriangleList,
                    "strip" => Topology::TriangleStrip,
                    "points" => Topology::PointList,
                    t => bail!("topology {t:?} (triangles, strip or points)"),
                }
            }
            "draw" => {
                self.vertices = num(arg(1)?, "vertices")?;
                if let Some(i) = words.get(2) {
                    self.instances = num(i, "instances")?;
                }
            }
            "stride" => self.stride = num(arg(1)?, "stride")?,
            "attribute" => self.attributes.push(VertexAttribute {
                location: num(arg(1)?, "location")?,
                components: num(arg(2)?, "components")?,
                offset: num(arg(3)?, "offset")?,
            }),
            "vertex-data" => {
                for w in &words[1..] {
                    self.vertex_data
                        .extend(num::<f32>(w, "vertex data")?.to_le_bytes());
                }
            }
            "bank" => self.bank(&words)?,
            "vertex" => self.vertex = Some(self.dir.join(arg(1)?)),
            "fragment" => self.fragment = Some(self.dir.join(arg(1)?)),
            "reference-vertex" => self.reference_vertex = Some(self.dir.join(arg(1)?)),
            "reference-fragment" => self.reference_fragment = Some(self.dir.join(arg(1)?)),
            k => bail!("unknown keyword {k:?}"),
        }
        Ok(())
    }

    fn bank(&mut self, words: &[&str]) -> Result<()> {
        let set = match words.get(1).copied() {
            Some("vertex") => 0,
            Some("fragment") => 1,
            s => bail!("bank stage {s:?} (vertex or fragment)"),
        };
        let bank: u8 = num(words.get(2).copied().unwrap_or(""), "bank")?;
        if bank >= 32 {
            bail!("bank {bank} (0..=31)");
        }
        let float = match words.get(3).copied() {
            Some("f32") => true,
            Some("u32") => false,
            t => bail!("bank word type {t:?} (f32 or u32)"),
        };
        let mut bytes = Vec::new();
        for w in words.get(4..).unwrap_or(&[]) {
            let v = if float {
                num::<f32>(w, "bank word")?.to_bits()
            } else {
                num::<u32>(w, "bank word")?
            };
            bytes.extend(v.to_le_bytes());
        }
        match self
            .banks
            .iter_mut()
            .find(|(s, b, _)| *s == set && *b == bank)
        {
            Some((_, _, data)) => data.extend(bytes),
            None => self.banks.push((set, bank, bytes)),
        }
        Ok(())
    }

    /// The draw of this scene with the given modules; `needs` adds the banks the modules read (set, bank,
    /// bytes), zero-filled where the scene gives no data.
    pub fn draw(&self, vertex: Vec<u32>, fragment: Vec<u32>, needs: &[(u32, u8, u32)]) -> Draw {
        let mut banks: Vec<BankBinding> = self
            .banks
            .iter()
            .map(|(set, bank, data)| BankBinding {
                set: *set,
                bank: *bank,
                bytes: data.len() as u32,
                data: data.clone(),
            })
            .collect();
        for &(set, bank, bytes) in needs {
            match banks.iter_mut().find(|b| b.set == set && b.bank == bank) {
                Some(b) => b.bytes = b.bytes.max(bytes),
                None => banks.push(BankBinding {
                    set,
                    bank,
                    bytes,
                    data: Vec::new(),
                }),
            }
        }
        Draw {
            vertex_spirv: vertex,
            fragment_spirv: fragment,
            banks,
            vertex_data: self.vertex_data.clone(),
            stride: self.stride,
            attributes: self.attributes.clone(),
            topology: self.topology,
            vertex_count: self.vertices,
            instance_count: self.instances,
            width: self.width,
            height: self.height,
            color_formats: self.formats.clone(),
            write_masks: self.write_masks.clone(),
            clear: self.clear,
            depth: self.depth,
        }
    }
}

/// A guest program read from its assembly file: the stage, the header and the bytes to translate (header,
/// then code).
#[derive(Debug, Clone)]
pub struct GuestProgram {
    pub stage: Stage,
    pub sph: ShaderProgramHeader,
    pub words: Vec<sassport_gen::Word>,
    pub bytes: Vec<u8>,
}

/// Reads a program file (`sassport asm` text with `.sph` lines).
pub fn read_program(path: &Path) -> Result<GuestProgram> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    parse_program(&text).with_context(|| format!("program {}", path.display()))
}

/// Parses program text.
pub fn parse_program(text: &str) -> Result<GuestProgram> {
    let mut header = SphBuilder::default();
    let mut code = String::new();
    for (n, line) in text.lines().enumerate() {
        match line.trim().strip_prefix(".sph") {
            Some(rest) => header
                .line(rest)
                .with_context(|| format!("line {}: {line:?}", n + 1))?,
            None => {
                code.push_str(line);
                code.push('\n');
            }
        }
    }
    let sph = header.finish()?;
    let stage = Stage::of_header(&sph);
    let words = sassport_gen::assemble(&code).context("assembling the program")?;
    let mut bytes: Vec<u8> = sph
        .to_words()
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .collect();
    bytes.extend(words.iter().flat_map(|w| w.to_le_bytes()));
    Ok(GuestProgram {
        stage,
        sph,
        words,
        bytes,
    })
}

#[derive(Default)]
struct SphBuilder {
    sph: Option<ShaderProgramHeader>,
}

fn addresses(words: &[&str]) -> Result<Vec<u32>> {
    let mut out = Vec::new();
    for w in words {
        match w.split_once('-') {
            Some((a, b)) => out.extend((hex(a)?..=hex(b)?).step_by(4)),
            None => out.push(hex(w)?),
        }
    }
    Ok(out)
}

impl SphBuilder {
    fn line(&mut self, rest: &str) -> Result<()> {
        let words: Vec<&str> = rest.split_whitespace().collect();
        let Some(&key) = words.first() else {
            bail!("empty .sph line")
        };
        let base = |sph_type: u32, shader_type: u32| -> Result<ShaderProgramHeader> {
            let mut w = [0u32; SPH_WORDS];
            w[0] = sph_type | 3 << 5 | shader_type << 10;
            Ok(ShaderProgramHeader::from_words(&w)?)
        };
        match key {
            "vertex" => self.sph = Some(base(1, 1)?),
            "pixel" => self.sph = Some(base(2, 5)?),
            "words" => {
                let mut w = [0u32; SPH_WORDS];
                if words.len() != SPH_WORDS + 1 {
                    bail!(".sph words takes {SPH_WORDS} words");
                }
                for (i, x) in words[1..].iter().enumerate() {
                    w[i] = hex(x)?;
                }
                self.sph = Some(ShaderProgramHeader::from_words(&w)?);
            }
            _ => {
                let Some(sph) = self.sph.as_mut() else {
                    bail!("`.sph vertex` or `.sph pixel` first")
                };
                Self::field(sph, key, &words[1..])?;
            }
        }
        Ok(())
    }

    fn field(sph: &mut ShaderProgramHeader, key: &str, args: &[&str]) -> Result<()> {
        match (&mut sph.maps, key) {
            (StageMaps::Vtg { inputs, .. }, "in") => addresses(args)?
                .into_iter()
                .try_for_each(|a| inputs.insert(a))?,
            (StageMaps::Vtg { outputs, .. }, "out") => addresses(args)?
                .into_iter()
                .try_for_each(|a| outputs.insert(a))?,
            (StageMaps::Pixel { inputs, .. }, "generic") => {
                let n: usize = num(args.first().copied().unwrap_or(""), "vector")?;
                let mode = match args.get(1).copied() {
                    Some("perspective") => Interpolation::Perspective,
                    Some("flat") => Interpolation::Constant,
                    Some("linear") => Interpolation::ScreenLinear,
                    m => bail!("interpolation {m:?} (perspective, flat or linear)"),
                };
                let comps = args.get(2).copied().unwrap_or("xyzw");
                let v = inputs
                    .generic
                    .get_mut(n)
                    .ok_or_else(|| anyhow::anyhow!("generic vector {n} (0..32)"))?;
                for (c, name) in "xyzw".chars().enumerate() {
                    if comps.contains(name) {
                        v[c] = mode;
                    }
                }
            }
            (StageMaps::Pixel { outputs, .. }, "target") => {
                let n: usize = num(args.first().copied().unwrap_or(""), "target")?;
                let mask = hex(args.get(1).copied().unwrap_or("0xf"))? as u8;
                *outputs
                    .targets
                    .get_mut(n)
                    .ok_or_else(|| anyhow::anyhow!("target {n} (0..8)"))? = mask;
            }
            (StageMaps::Pixel { outputs, .. }, "depth") => outputs.depth = true,
            (StageMaps::Pixel { .. }, "kills") => sph.common.kills_pixels = true,
            (_, k) => bail!(".sph {k} is not a field of this header"),
        }
        Ok(())
    }

    fn finish(self) -> Result<ShaderProgramHeader> {
        self.sph
            .ok_or_else(|| anyhow::anyhow!("no `.sph vertex` or `.sph pixel` line"))
    }
}

/// A stage's module: translated from the guest program, or compiled from the GLSL reference.
fn stage_module(
    path: Option<&PathBuf>,
    expect: Stage,
    profile: &sassport_translator::translate::Options,
    needs: &mut Vec<(u32, u8, u32)>,
    interfaces: &mut Vec<sassport_translator::translate_graphics::StageInterface>,
) -> Result<Vec<u32>> {
    let Some(path) = path else {
        bail!("the scene names no {expect:?} program")
    };
    if path.extension().is_some_and(|e| e == "sass") {
        let p = read_program(path)?;
        let name = path
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or("program");
        let options = sassport_translator::translate::Options {
            stage: expect,
            ..profile.clone()
        };
        let t = sassport_translator::translate_graphics::translate_stage(name, &p.bytes, &options)
            .with_context(|| format!("translating {}", path.display()))?;
        needs.extend(
            t.interface
                .banks
                .iter()
                .map(|(b, bytes)| (t.interface.descriptor_set, *b, *bytes)),
        );
        interfaces.push(t.interface);
        return Ok(t.words);
    }
    compile_glsl(path)
}

/// Compiles a GLSL file with glslangValidator (Debian's glslang-tools) for Vulkan 1.3. Where the
/// environment names `SASSPORT_GLSL_SPV_DIR`, `DIR/FILE.spv` (FILE the GLSL file's name), compiled by
/// the same tool elsewhere, is read instead: for machines without glslang (a device run).
pub fn compile_glsl(path: &Path) -> Result<Vec<u32>> {
    if let Some(dir) = std::env::var_os("SASSPORT_GLSL_SPV_DIR") {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let spv = Path::new(&dir).join(format!("{name}.spv"));
        let bytes = std::fs::read(&spv).with_context(|| format!("reading {}", spv.display()))?;
        return spirv_words(&spv, &bytes);
    }
    let out = std::env::temp_dir().join(format!(
        "sassport-glsl-{}-{}.spv",
        std::process::id(),
        path.file_name()
            .and_then(|s| s.to_str())
            .unwrap_or("shader")
    ));
    let status = std::process::Command::new("glslangValidator")
        .args(["-V", "--target-env", "vulkan1.3", "-o"])
        .arg(&out)
        .arg(path)
        .output()
        .context("running glslangValidator (install glslang-tools)")?;
    if !status.status.success() {
        bail!(
            "glslangValidator {}: {}",
            path.display(),
            String::from_utf8_lossy(&status.stdout)
        );
    }
    let bytes = std::fs::read(&out).with_context(|| format!("reading {}", out.display()))?;
    let _ = std::fs::remove_file(&out);
    spirv_words(&out, &bytes)
}

fn spirv_words(path: &Path, bytes: &[u8]) -> Result<Vec<u32>> {
    if bytes.len() % 4 != 0 || bytes.get(..4) != Some(&[0x03, 0x02, 0x23, 0x07]) {
        bail!(
            "{}: not a SPIR-V module ({} bytes)",
            path.display(),
            bytes.len()
        );
    }
    Ok(bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect())
}

/// The scene's draw with its guest programs translated (`reference`: with its GLSL references instead).
pub fn scene_draw(
    scene: &Scene,
    reference: bool,
    options: &sassport_translator::translate::Options,
) -> Result<Draw> {
    let (v, f) = if reference {
        (
            scene.reference_vertex.as_ref(),
            scene.reference_fragment.as_ref(),
        )
    } else {
        (scene.vertex.as_ref(), scene.fragment.as_ref())
    };
    let (mut needs, mut interfaces) = (Vec::new(), Vec::new());
    let vs = stage_module(v, Stage::Vertex, options, &mut needs, &mut interfaces)?;
    let fs = stage_module(f, Stage::Fragment, options, &mut needs, &mut interfaces)?;
    if let [vertex, fragment] = interfaces.as_slice() {
        sassport_translator::translate_graphics::check_link(vertex, fragment)?;
    }
    Ok(scene.draw(vs, fs, &needs))
}

//! The launch manifest `corpus/launches.txt`: one kernel launch per line, for tests and the silicon recorder.
//!
//! ```text
//! # FILE KERNEL GRID BLOCK [OPTION...] ARG...
//! int_arith int32_arith 2 128 buf:in:1024:1 buf:in:1024:2 buf:out:16384 i32:250
//! memory shared_dynamic 1 256 smem=1024 buf:in:1024:9 buf:out:1024 i32:256
//! ```
//! The full format is in `corpus/README.md`. Parameters are packed into the kernel parameter buffer in
//! order, each at the next multiple of its alignment ([`Launch::param_layout`]), as the CUDA ABI does.

use crate::inputs;
use std::collections::HashSet;
use std::fmt;
use std::path::PathBuf;

/// A launch dimension (`X[,Y[,Z]]`; missing components are 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dim3 {
    pub x: u32,
    pub y: u32,
    pub z: u32,
}

impl Dim3 {
    /// The number of elements (threads or blocks) it spans.
    pub fn count(&self) -> u64 {
        self.x as u64 * self.y as u64 * self.z as u64
    }
}

/// One kernel argument.
#[derive(Clone, Debug, PartialEq)]
pub enum Arg {
    I32(i32),
    U32(u32),
    I64(i64),
    U64(u64),
    F32(f32),
    F64(f64),
    /// A by-value parameter given as raw little-endian bytes (a struct) with its alignment.
    Raw {
        align: u32,
        bytes: Vec<u8>,
    },
    /// A device buffer filled by [`inputs::generate`].
    InBuffer {
        bytes: usize,
        seed: u64,
    },
    /// A zero-filled device buffer.
    OutBuffer {
        bytes: usize,
    },
}

impl Arg {
    /// Size and alignment of the parameter in the kernel parameter buffer (buffers pass 64-bit pointers).
    pub fn param_size_align(&self) -> (u32, u32) {
        match self {
            Arg::I32(_) | Arg::U32(_) | Arg::F32(_) => (4, 4),
            Arg::I64(_)
            | Arg::U64(_)
            | Arg::F64(_)
            | Arg::InBuffer { .. }
            | Arg::OutBuffer { .. } => (8, 8),
            Arg::Raw { align, bytes } => (bytes.len() as u32, *align),
        }
    }

    /// Whether the argument is a device buffer (recorded as a golden after the launch).
    pub fn is_buffer(&self) -> bool {
        matches!(self, Arg::InBuffer { .. } | Arg::OutBuffer { .. })
    }

    /// The initial contents of a buffer argument; `None` for scalars.
    /// The little-endian bytes of a by-value parameter; `None` for buffers (they pass an address).
    pub fn value_bytes(&self) -> Option<Vec<u8>> {
        Some(match self {
            Arg::I32(v) => v.to_le_bytes().to_vec(),
            Arg::U32(v) => v.to_le_bytes().to_vec(),
            Arg::I64(v) => v.to_le_bytes().to_vec(),
            Arg::U64(v) => v.to_le_bytes().to_vec(),
            Arg::F32(v) => v.to_le_bytes().to_vec(),
            Arg::F64(v) => v.to_le_bytes().to_vec(),
            Arg::Raw { bytes, .. } => bytes.clone(),
            Arg::InBuffer { .. } | Arg::OutBuffer { .. } => return None,
        })
    }

    pub fn initial_contents(&self) -> Option<Vec<u8>> {
        match *self {
            Arg::InBuffer { bytes, seed } => Some(inputs::generate(bytes, seed)),
            Arg::OutBuffer { bytes } => Some(vec![0; bytes]),
            _ => None,
        }
    }
}

/// How results of a launch are compared with its silicon goldens.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Comparison {
    /// Bit-exact: IEEE-exact arithmetic, integers, conversions.
    Exact,
    /// Buffers hold FP32 values; compare within this many units in the last place (MUFU approximations).
    F32Ulp(u32),
    /// Buffers hold FP64 values; compare within this many units in the last place.
    F64Ulp(u32),
}

/// One line of the manifest.
#[derive(Clone, Debug, PartialEq)]
pub struct Launch {
    /// 1-based line number in the manifest.
    pub line: usize,
    /// Source stem: `src/<file>.cu`, `sm86/<file>.cubin`, `sm90/<file>.cubin`.
    pub file: String,
    pub kernel: String,
    pub grid: Dim3,
    pub block: Dim3,
    /// Dynamic shared memory per block in bytes (`smem=`).
    pub shared_bytes: u32,
    /// `cmp=`; `Exact` unless stated.
    pub comparison: Comparison,
    /// `cpu=skip`: not run on CPU devices (lavapipe), whose compiler or loop limit it exceeds; the manifest's
    /// comment above the line says which.
    pub cpu_skip: bool,
    pub args: Vec<Arg>,
}

/// A parameter's place in the kernel parameter buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParamSlot {
    pub offset: u32,
    pub size: u32,
}

impl Launch {
    /// The sm_86 cubin this launch runs from.
    pub fn cubin_sm86(&self) -> PathBuf {
        crate::root()
            .join("sm86")
            .join(format!("{}.cubin", self.file))
    }

    /// The sm_90 cubin the silicon recorder launches.
    pub fn cubin_sm90(&self) -> PathBuf {
        crate::root()
            .join("sm90")
            .join(format!("{}.cubin", self.file))
    }

    /// Where the silicon golden of argument `index` (a buffer) lives.
    pub fn golden(&self, index: usize) -> PathBuf {
        crate::root()
            .join("goldens")
            .join(format!("{}.arg{index}.bin", self.kernel))
    }

    /// Offsets and sizes of the parameters, in argument order, each aligned to its natural alignment.
    pub fn param_layout(&self) -> Vec<ParamSlot> {
        let mut offset = 0u32;
        self.args
            .iter()
            .map(|arg| {
                let (size, align) = arg.param_size_align();
                offset = offset.next_multiple_of(align);
                let slot = ParamSlot { offset, size };
                offset += size;
                slot
            })
            .collect()
    }

    /// Total size of the parameter buffer (end of the last parameter).
    pub fn param_size(&self) -> u32 {
        self.param_layout().last().map_or(0, |s| s.offset + s.size)
    }

    /// The kernel parameter buffer, with `addresses[k]` as the device address of the k-th buffer argument
    /// (counting buffers only). Returns `None` when `addresses` has the wrong length.
    pub fn param_bytes(&self, addresses: &[u64]) -> Option<Vec<u8>> {
        if addresses.len() != self.args.iter().filter(|a| a.is_buffer()).count() {
            return None;
        }
        let mut out = vec![0u8; self.param_size() as usize];
        let mut next_buffer = addresses.iter();
        for (arg, slot) in self.args.iter().zip(self.param_layout()) {
            let bytes = match arg.value_bytes() {
                Some(bytes) => bytes,
                None => next_buffer.next()?.to_le_bytes().to_vec(),
            };
            let start = slot.offset as usize;
            out[start..start + bytes.len()].copy_from_slice(&bytes);
        }
        Some(out)
    }
}

/// A manifest line that does not parse, with its 1-based line number.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("launches.txt line {line}: {kind}")]
pub struct ManifestError {
    pub line: usize,
    pub kind: ManifestErrorKind,
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ManifestErrorKind {
    #[error("missing {0}")]
    Missing(&'static str),
    #[error("bad {what} `{text}`: {why}")]
    BadDim {
        what: &'static str,
        text: String,
        why: &'static str,
    },
    #[error("bad option `{text}`: {why}")]
    BadOption { text: String, why: &'static str },
    #[error("bad argument {index} `{text}`: {why}")]
    BadArg {
        index: usize,
        text: String,
        why: &'static str,
    },
    #[error("kernel `{0}` is already launched on line {1} (golden file names are per kernel)")]
    DuplicateKernel(String, usize),
    #[error("bad name `{0}`: use letters, digits and underscores")]
    BadName(String),
    /// The manifest file itself cannot be read (reported with line 0).
    #[error("cannot read the manifest: {0}")]
    Unreadable(String),
}

/// Parses the manifest text. Blank lines and lines starting with `#` are ignored.
pub fn parse(text: &str) -> Result<Vec<Launch>, ManifestError> {
    let mut launches: Vec<Launch> = Vec::new();
    let mut seen = HashSet::new();
    for (index, raw) in text.lines().enumerate() {
        let line = index + 1;
        let content = raw.trim();
        if content.is_empty() || content.starts_with('#') {
            continue;
        }
        let launch = parse_line(line, content).map_err(|kind| ManifestError { line, kind })?;
        if !seen.insert(launch.kernel.clone()) {
            let first = launches
                .iter()
                .find(|l| l.kernel == launch.kernel)
                .map_or(0, |l| l.line);
            return Err(ManifestError {
                line,
                kind: ManifestErrorKind::DuplicateKernel(launch.kernel, first),
            });
        }
        launches.push(launch);
    }
    Ok(launches)
}

fn parse_line(line: usize, content: &str) -> Result<Launch, ManifestErrorKind> {
    let mut tokens = content.split_whitespace().peekable();
    let file = name(tokens.next().ok_or(ManifestErrorKind::Missing("FILE"))?)?;
    let kernel = name(tokens.next().ok_or(ManifestErrorKind::Missing("KERNEL"))?)?;
    let grid = dim3(
        "GRID",
        tokens.next().ok_or(ManifestErrorKind::Missing("GRID"))?,
    )?;
    let block = dim3(
        "BLOCK",
        tokens.next().ok_or(ManifestErrorKind::Missing("BLOCK"))?,
    )?;
    if block.count() > 1024 {
        return Err(ManifestErrorKind::BadDim {
            what: "BLOCK",
            text: format!("{block:?}"),
            why: "more than 1024 threads",
        });
    }
    let mut shared_bytes = 0;
    let mut comparison = Comparison::Exact;
    let mut cpu_skip = false;
    while let Some(option) = tokens.next_if(|t| t.contains('=')) {
        let (key, value) = option.split_once('=').unwrap_or_default();
        let bad = |why| ManifestErrorKind::BadOption {
            text: option.to_owned(),
            why,
        };
        match key {
            "smem" => shared_bytes = number::<u32>(value).ok_or(bad("smem wants a byte count"))?,
            "cmp" => {
                comparison =
                    parse_comparison(value).ok_or(bad("cmp wants exact, f32ulp:N or f64ulp:N"))?
            }
            "cpu" if value == "skip" => cpu_skip = true,
            "cpu" => return Err(bad("cpu wants skip")),
            _ => return Err(bad("unknown option (known: smem, cmp, cpu)")),
        }
    }
    let args = tokens
        .enumerate()
        .map(|(index, text)| {
            parse_arg(text).map_err(|why| ManifestErrorKind::BadArg {
                index,
                text: text.to_owned(),
                why,
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Launch {
        line,
        file,
        kernel,
        grid,
        block,
        shared_bytes,
        comparison,
        cpu_skip,
        args,
    })
}

fn name(text: &str) -> Result<String, ManifestErrorKind> {
    let ok = text.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if ok {
        Ok(text.to_owned())
    } else {
        Err(ManifestErrorKind::BadName(text.to_owned()))
    }
}

fn dim3(what: &'static str, text: &str) -> Result<Dim3, ManifestErrorKind> {
    let bad = |why| ManifestErrorKind::BadDim {
        what,
        text: text.to_owned(),
        why,
    };
    let parts: Vec<&str> = text.split(',').collect();
    if parts.len() > 3 {
        return Err(bad("more than three components"));
    }
    let mut values = [1u32; 3];
    for (slot, part) in values.iter_mut().zip(&parts) {
        *slot = number::<u32>(part).ok_or(bad("components are positive integers"))?;
        if *slot == 0 {
            return Err(bad("a component is zero"));
        }
    }
    Ok(Dim3 {
        x: values[0],
        y: values[1],
        z: values[2],
    })
}

fn parse_comparison(text: &str) -> Option<Comparison> {
    if text == "exact" {
        return Some(Comparison::Exact);
    }
    let (kind, ulps) = text.split_once(':')?;
    let ulps = number::<u32>(ulps)?;
    match kind {
        "f32ulp" => Some(Comparison::F32Ulp(ulps)),
        "f64ulp" => Some(Comparison::F64Ulp(ulps)),
        _ => None,
    }
}

fn parse_arg(text: &str) -> Result<Arg, &'static str> {
    let (kind, value) = text.split_once(':').ok_or("expected KIND:VALUE")?;
    match kind {
        "i32" => signed(value)
            .and_then(|v| i32::try_from(v).ok())
            .map(Arg::I32)
            .ok_or("not an i32"),
        "u32" => number::<u32>(value).map(Arg::U32).ok_or("not a u32"),
        "i64" => signed(value).map(Arg::I64).ok_or("not an i64"),
        "u64" => number::<u64>(value).map(Arg::U64).ok_or("not a u64"),
        "f32" => {
            let wide: f64 = value.parse().map_err(|_| "not a decimal number")?;
            let narrow = wide as f32;
            // Both the Rust and the Python side must get the same bits: only exactly representable values.
            if narrow as f64 != wide || !wide.is_finite() {
                return Err("not exactly representable as f32");
            }
            Ok(Arg::F32(narrow))
        }
        "f64" => {
            let v: f64 = value.parse().map_err(|_| "not a decimal number")?;
            if !v.is_finite() {
                return Err("not finite");
            }
            Ok(Arg::F64(v))
        }
        "raw" => {
            let (align, hex) = value.split_once(':').ok_or("expected raw:ALIGN:HEXBYTES")?;
            let align = number::<u32>(align)
                .filter(|a| a.is_power_of_two() && *a <= 16)
                .ok_or("alignment must be 1, 2, 4, 8 or 16")?;
            if hex.is_empty() || hex.len() % 2 != 0 {
                return Err("raw bytes need an even, non-zero number of hex digits");
            }
            let bytes = (0..hex.len())
                .step_by(2)
                .map(|i| {
                    hex.get(i..i + 2)
                        .and_then(|h| u8::from_str_radix(h, 16).ok())
                })
                .collect::<Option<Vec<u8>>>()
                .ok_or("raw bytes must be hex digits")?;
            Ok(Arg::Raw { align, bytes })
        }
        "buf" => {
            let fields: Vec<&str> = value.split(':').collect();
            match fields.as_slice() {
                ["in", bytes, seed] => Ok(Arg::InBuffer {
                    bytes: number::<usize>(bytes)
                        .filter(|b| *b > 0)
                        .ok_or("buffer size must be a positive byte count")?,
                    seed: number::<u64>(seed).ok_or("seed must be a u64")?,
                }),
                ["out", bytes] => Ok(Arg::OutBuffer {
                    bytes: number::<usize>(bytes)
                        .filter(|b| *b > 0)
                        .ok_or("buffer size must be a positive byte count")?,
                }),
                _ => Err("expected buf:in:BYTES:SEED or buf:out:BYTES"),
            }
        }
        _ => Err("unknown kind (known: i32 u32 i64 u64 f32 f64 raw buf)"),
    }
}

/// An unsigned decimal or `0x` hexadecimal number.
fn number<T: TryFrom<u64>>(text: &str) -> Option<T> {
    let v = match text.strip_prefix("0x") {
        Some(hex) if !hex.is_empty() => u64::from_str_radix(hex, 16).ok()?,
        Some(_) => return None,
        None if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) => {
            text.parse().ok()?
        }
        None => return None,
    };
    T::try_from(v).ok()
}

/// A decimal or `0x` hexadecimal number with an optional leading `-`.
fn signed(text: &str) -> Option<i64> {
    match text.strip_prefix('-') {
        Some(rest) => {
            let magnitude = number::<u64>(rest)?;
            if magnitude == 1u64 << 63 {
                Some(i64::MIN)
            } else {
                i64::try_from(magnitude).ok().map(|m| -m)
            }
        }
        None => number::<i64>(text),
    }
}

impl fmt::Display for Dim3 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{},{},{}", self.x, self.y, self.z)
    }
}

/// The manifest spelling; [`parse`] reads it back to an equal value (non-finite floats excepted, which the
/// manifest cannot express).
impl fmt::Display for Arg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Arg::I32(v) => write!(f, "i32:{v}"),
            Arg::U32(v) => write!(f, "u32:{v}"),
            Arg::I64(v) => write!(f, "i64:{v}"),
            Arg::U64(v) => write!(f, "u64:{v}"),
            // The exact decimal of the f32 (via f64), so the exact-representability check passes.
            Arg::F32(v) => write!(f, "f32:{}", *v as f64),
            Arg::F64(v) => write!(f, "f64:{v}"),
            Arg::Raw { align, bytes } => {
                write!(f, "raw:{align}:")?;
                bytes.iter().try_for_each(|b| write!(f, "{b:02x}"))
            }
            Arg::InBuffer { bytes, seed } => write!(f, "buf:in:{bytes}:{seed}"),
            Arg::OutBuffer { bytes } => write!(f, "buf:out:{bytes}"),
        }
    }
}

impl fmt::Display for Comparison {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Comparison::Exact => write!(f, "exact"),
            Comparison::F32Ulp(n) => write!(f, "f32ulp:{n}"),
            Comparison::F64Ulp(n) => write!(f, "f64ulp:{n}"),
        }
    }
}

/// The launch as one manifest line (without the line number).
impl fmt::Display for Launch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} {} {} {}",
            self.file, self.kernel, self.grid, self.block
        )?;
        if self.shared_bytes != 0 {
            write!(f, " smem={}", self.shared_bytes)?;
        }
        if self.comparison != Comparison::Exact {
            write!(f, " cmp={}", self.comparison)?;
        }
        if self.cpu_skip {
            write!(f, " cpu=skip")?;
        }
        self.args.iter().try_for_each(|a| write!(f, " {a}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn arb_arg() -> impl Strategy<Value = Arg> {
        prop_oneof![
            any::<i32>().prop_map(Arg::I32),
            any::<u32>().prop_map(Arg::U32),
            any::<i64>().prop_map(Arg::I64),
            any::<u64>().prop_map(Arg::U64),
            any::<f32>()
                .prop_filter("finite", |v| v.is_finite())
                .prop_map(Arg::F32),
            any::<f64>()
                .prop_filter("finite", |v| v.is_finite())
                .prop_map(Arg::F64),
            (0u32..5, proptest::collection::vec(any::<u8>(), 1..32)).prop_map(|(a, bytes)| {
                Arg::Raw {
                    align: 1 << a,
                    bytes,
                }
            }),
            (1usize..1 << 20, any::<u64>()).prop_map(|(bytes, seed)| Arg::InBuffer { bytes, seed }),
            (1usize..1 << 20).prop_map(|bytes| Arg::OutBuffer { bytes }),
        ]
    }

    fn arb_dim3(max: u32) -> impl Strategy<Value = Dim3> {
        (1..=max, 1..=max, 1..=max).prop_map(|(x, y, z)| Dim3 { x, y, z })
    }

    prop_compose! {
        fn arb_launch()(
            file in "[a-z_][a-z0-9_]{0,12}",
            kernel in "[A-Za-z_][A-Za-z0-9_]{0,20}",
            grid in arb_dim3(70_000),
            block in arb_dim3(10),
            shared_bytes in prop_oneof![Just(0u32), any::<u32>()],
            comparison in prop_oneof![
                Just(Comparison::Exact),
                any::<u32>().prop_map(Comparison::F32Ulp),
                any::<u32>().prop_map(Comparison::F64Ulp)
            ],
            args in proptest::collection::vec(arb_arg(), 0..8),
        ) -> Launch {
            Launch { line: 1, file, kernel, grid, block, shared_bytes, comparison, cpu_skip: false, args }
        }
    }

    proptest! {
        #[test]
        fn display_parses_back(launch in arb_launch()) {
            let line = launch.to_string();
            let parsed = parse(&line).map_err(|e| TestCaseError::fail(format!("{line}: {e}")))?;
            prop_assert_eq!(parsed, vec![launch]);
        }

        #[test]
        fn param_slots_are_aligned_and_disjoint(launch in arb_launch()) {
            let slots = launch.param_layout();
            let mut end = 0;
            for (slot, arg) in slots.iter().zip(&launch.args) {
                let (size, align) = arg.param_size_align();
                prop_assert_eq!(slot.offset % align, 0);
                prop_assert_eq!(slot.size, size);
                prop_assert!(slot.offset >= end && slot.offset - end < align);
                end = slot.offset + slot.size;
            }
            prop_assert_eq!(launch.param_size(), end);
        }

        #[test]
        fn arbitrary_text_never_panics(text in "\\PC{0,200}") {
            let _ = parse(&text);
        }
    }

    fn one(line: &str) -> Launch {
        parse(line).expect("parses").remove(0)
    }

    fn error(text: &str) -> ManifestError {
        parse(text).expect_err("must not parse")
    }

    #[test]
    fn parses_a_full_line() {
        let l =
            one("int_arith int32_arith 2 128 buf:in:1024:1 buf:in:1024:0x2 buf:out:16384 i32:250");
        assert_eq!(l.line, 1);
        assert_eq!(l.file, "int_arith");
        assert_eq!(l.kernel, "int32_arith");
        assert_eq!(l.grid, Dim3 { x: 2, y: 1, z: 1 });
        assert_eq!(l.block, Dim3 { x: 128, y: 1, z: 1 });
        assert_eq!(l.shared_bytes, 0);
        assert_eq!(l.comparison, Comparison::Exact);
        assert_eq!(
            l.args,
            [
                Arg::InBuffer {
                    bytes: 1024,
                    seed: 1
                },
                Arg::InBuffer {
                    bytes: 1024,
                    seed: 2
                },
                Arg::OutBuffer { bytes: 16384 },
                Arg::I32(250)
            ]
        );
        assert!(l.cubin_sm86().ends_with("sm86/int_arith.cubin"));
        assert!(l.golden(2).ends_with("goldens/int32_arith.arg2.bin"));
    }

    #[test]
    fn parses_dims_options_and_scalars() {
        let text = "# comment\n\n  m k 2,3 8,4,2 smem=0x400 cmp=f32ulp:2 i32:-5 u32:0xffffffff i64:-9223372036854775808 \
                    u64:18446744073709551615 f32:-2.5 f64:0.1 raw:8:07000000\n";
        let l = one(text);
        assert_eq!(l.line, 3);
        assert_eq!(l.grid, Dim3 { x: 2, y: 3, z: 1 });
        assert_eq!(l.block, Dim3 { x: 8, y: 4, z: 2 });
        assert_eq!(l.shared_bytes, 1024);
        assert_eq!(l.comparison, Comparison::F32Ulp(2));
        assert_eq!(
            l.args,
            [
                Arg::I32(-5),
                Arg::U32(u32::MAX),
                Arg::I64(i64::MIN),
                Arg::U64(u64::MAX),
                Arg::F32(-2.5),
                Arg::F64(0.1),
                Arg::Raw {
                    align: 8,
                    bytes: vec![7, 0, 0, 0]
                }
            ]
        );
    }

    #[test]
    fn param_layout_aligns_like_the_cuda_abi() {
        let l = one(
            "f k 1 32 i32:1 buf:out:4 f32:1.5 raw:8:000102030405060708090a0b i32:2 f64:2 u32:3",
        );
        let slots: Vec<(u32, u32)> = l
            .param_layout()
            .iter()
            .map(|s| (s.offset, s.size))
            .collect();
        assert_eq!(
            slots,
            [(0, 4), (8, 8), (16, 4), (24, 12), (36, 4), (40, 8), (48, 4)]
        );
        assert_eq!(l.param_size(), 52);
        let bytes = l.param_bytes(&[0x1122_3344_5566_7788]).expect("one buffer");
        assert_eq!(&bytes[0..4], &1i32.to_le_bytes());
        assert_eq!(&bytes[4..8], &[0; 4]);
        assert_eq!(&bytes[8..16], &0x1122_3344_5566_7788u64.to_le_bytes());
        assert_eq!(&bytes[16..20], &1.5f32.to_le_bytes());
        assert_eq!(&bytes[24..36], &[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
        assert_eq!(&bytes[40..48], &2.0f64.to_le_bytes());
        assert_eq!(l.param_bytes(&[]), None);
    }

    #[test]
    fn buffers_get_generated_or_zero_contents() {
        let l = one("f k 1 32 buf:in:10:4 buf:out:6 i32:0");
        assert_eq!(l.args[0].initial_contents(), Some(inputs::generate(10, 4)));
        assert_eq!(l.args[1].initial_contents(), Some(vec![0; 6]));
        assert_eq!(l.args[2].initial_contents(), None);
    }

    #[test]
    fn bad_lines_name_their_line_and_problem() {
        assert_eq!(error("a").kind, ManifestErrorKind::Missing("KERNEL"));
        assert_eq!(error("a b").kind, ManifestErrorKind::Missing("GRID"));
        assert_eq!(error("a b 1").kind, ManifestErrorKind::Missing("BLOCK"));
        let e = error("# x\na b 1 32\na c 0 32");
        assert_eq!(e.line, 3);
        assert!(matches!(
            e.kind,
            ManifestErrorKind::BadDim { what: "GRID", .. }
        ));
        assert!(e
            .to_string()
            .starts_with("launches.txt line 3: bad GRID `0`"));
        assert!(matches!(
            error("a b 1 1,2,3,4").kind,
            ManifestErrorKind::BadDim { .. }
        ));
        assert!(matches!(
            error("a b 1 64,32").kind,
            ManifestErrorKind::BadDim {
                why: "more than 1024 threads",
                ..
            }
        ));
        assert!(matches!(
            error("a b 1 x").kind,
            ManifestErrorKind::BadDim { .. }
        ));
        assert!(matches!(
            error("a b 1 1 foo=3").kind,
            ManifestErrorKind::BadOption { .. }
        ));
        assert!(matches!(
            error("a b 1 1 cmp=f16ulp:1").kind,
            ManifestErrorKind::BadOption { .. }
        ));
        assert!(matches!(
            error("a-b k 1 1").kind,
            ManifestErrorKind::BadName(_)
        ));
        for bad in [
            "i32:2147483648",
            "i32:",
            "i32:1.5",
            "u32:-1",
            "u64:0x",
            "f32:0.1",
            "f32:nan",
            "f64:inf",
            "raw:3:00",
            "raw:4:0",
            "raw:4:zz",
            "buf:in:0:1",
            "buf:in:16",
            "buf:out:16:1",
            "buf:mid:16",
            "x:1",
            "plain",
        ] {
            let e = error(&format!("a b 1 1 i32:0 {bad}"));
            assert!(
                matches!(&e.kind, ManifestErrorKind::BadArg { index: 1, .. }),
                "{bad}: {e}"
            );
        }
        let e = error("a k 1 1\nb k 1 1");
        assert_eq!(
            e,
            ManifestError {
                line: 2,
                kind: ManifestErrorKind::DuplicateKernel("k".into(), 1)
            }
        );
    }
}

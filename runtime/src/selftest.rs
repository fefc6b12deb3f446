//! The one-time float self-test: what the device's plain SPIR-V float ops really do.
//!
//! Float-controls properties do not tell the whole story (lavapipe reports no denormal preservation yet
//! preserves; NVIDIA fuses `Fma` but flushes denormals), so the translator's choice between native and
//! emulated lowering rests on a measurement: one tiny ABI kernel, inputs read from the window so nothing
//! is constant-folded.

use rspirv::binary::Assemble;
use rspirv::dr::{Builder, Operand};
use rspirv::spirv::{
    self, AddressingModel, BuiltIn, Capability, Decoration, ExecutionModel, MemoryModel,
    StorageClass,
};
use sassport_translator::abi::{self, MeasuredFloat};

use crate::bank0::Bank0;
use crate::cache_entry::{self, CacheEntryError};
use crate::device::DeviceInfo;
use crate::disk_cache;
use crate::error::Result;
use crate::runtime::{Launch, Runtime};

/// Input words: f32 a, b, c for `fma(a, b, c)`; two f32 denormals; f64 a, b, c (low word first); an f64
/// denormal (added to itself).
const INPUTS: [u32; 13] = [
    0x3f80_0001, // 1 + 2^-23
    0x3f7f_ffff, // 1 - 2^-24
    0xbf80_0000, // -1
    0x0000_0001, // smallest denormal
    0x0000_0001,
    0x0000_0001,
    0x3ff0_0000, // 1 + 2^-52
    0xffff_ffff,
    0x3fef_ffff, // 1 - 2^-53
    0x0000_0000,
    0xbff0_0000, // -1
    0x0000_0001, // smallest f64 denormal, 2^-1074
    0x0000_0000,
];
/// Word index of the first output (after the inputs, 8-byte aligned).
const OUT: u32 = 14;
/// Words of the self-test buffer: the inputs, then fma f32, denormal sum f32, fma f64, denormal sum f64.
const BUFFER_WORDS: usize = OUT as usize + 6;
/// `fma(1 + 2^-23, 1 - 2^-24, -1)` rounded once: 2^-24 - 2^-47 (exact in f32), as bits. Rounded twice it is 0.
const FMA32_FUSED: u32 = 0x337f_fffe;
/// `fma(1 + 2^-52, 1 - 2^-53, -1)` rounded once: 2^-53 - 2^-105 (exact in f64), as bits. Rounded twice it is 0.
const FMA64_FUSED: u64 = 0x3c9f_ffff_ffff_fffe;

/// The self-test module (an ABI kernel: one thread, inputs and outputs at the pointer in bank 0); with `f64`,
/// it also measures the f64 `Fma`.
/// For a chunked window (`chunks`), the buffer is reached through its chunk's device address as translated
/// kernels reach guest memory (docs/abi.md), since binding 33 then holds only the chunk table and records.
pub fn float_selftest_module(f64: bool, chunks: Option<abi::WindowChunks>) -> Vec<u32> {
    let mut b = Builder::new();
    b.set_version(1, 6);
    b.capability(Capability::Shader);
    b.capability(Capability::Int64);
    if f64 {
        b.capability(Capability::Float64);
    }
    let glsl = b.ext_inst_import("GLSL.std.450");
    if chunks.is_some() {
        b.capability(Capability::PhysicalStorageBufferAddresses);
        b.memory_model(AddressingModel::PhysicalStorageBuffer64, MemoryModel::GLSL450);
    } else {
        b.memory_model(AddressingModel::Logical, MemoryModel::GLSL450);
    }
    let void = b.type_void();
    let u32t = b.type_int(32, 0);
    let u64t = b.type_int(64, 0);
    let f32t = b.type_float(32, None);
    let uvec2 = b.type_vector(u32t, 2);
    let uvec3 = b.type_vector(u32t, 3);
    let uvec4 = b.type_vector(u32t, 4);

    let len = b.constant_bit32(u32t, abi::bank0::PARAMS / 16 + 1);
    let arr = b.type_array(uvec4, len);
    b.decorate(
        arr,
        Decoration::ArrayStride,
        [Operand::LiteralBit32(abi::UNIFORM_ARRAY_STRIDE)],
    );
    let bank_st = b.type_struct([arr]);
    b.decorate(bank_st, Decoration::Block, []);
    b.member_decorate(bank_st, 0, Decoration::Offset, [Operand::LiteralBit32(0)]);
    let bank_ptr = b.type_pointer(None, StorageClass::Uniform, bank_st);
    let bank0 = b.variable(bank_ptr, None, StorageClass::Uniform, None);
    // The launch values give the window base; the parameter is a guest pointer.
    let lv_len = b.constant_bit32(u32t, abi::LAUNCH_VALUES_VEC4S);
    let lv_arr = b.type_array(uvec4, lv_len);
    b.decorate(
        lv_arr,
        Decoration::ArrayStride,
        [Operand::LiteralBit32(abi::UNIFORM_ARRAY_STRIDE)],
    );
    let lv_st = b.type_struct([lv_arr]);
    b.decorate(lv_st, Decoration::Block, []);
    b.member_decorate(lv_st, 0, Decoration::Offset, [Operand::LiteralBit32(0)]);
    let lv_ptr = b.type_pointer(None, StorageClass::Uniform, lv_st);
    let lv = b.variable(lv_ptr, None, StorageClass::Uniform, None);
    let rta = b.type_runtime_array(u32t);
    b.decorate(rta, Decoration::ArrayStride, [Operand::LiteralBit32(4)]);
    let wst = b.type_struct([rta]);
    b.decorate(wst, Decoration::Block, []);
    b.member_decorate(wst, 0, Decoration::Offset, [Operand::LiteralBit32(0)]);
    let wptr = b.type_pointer(None, StorageClass::StorageBuffer, wst);
    let window = b.variable(wptr, None, StorageClass::StorageBuffer, None);
    for (var, binding) in [
        (lv, abi::LAUNCH_VALUES_BINDING),
        (bank0, abi::FIRST_BANK_BINDING),
        (window, abi::GLOBAL_WINDOW_BINDING),
    ] {
        b.decorate(
            var,
            Decoration::DescriptorSet,
            [Operand::LiteralBit32(abi::DESCRIPTOR_SET)],
        );
        b.decorate(var, Decoration::Binding, [Operand::LiteralBit32(binding)]);
    }
    let one = b.constant_bit32(u32t, 1);
    let wg_size = b.constant_composite(uvec3, [one, one, one]);
    b.decorate(
        wg_size,
        Decoration::BuiltIn,
        [Operand::BuiltIn(BuiltIn::WorkgroupSize)],
    );

    let fn_ty = b.type_function(void, []);
    let main = b
        .begin_function(void, None, spirv::FunctionControl::NONE, fn_ty)
        .expect("fresh builder");
    b.begin_block(None).expect("in function");
    let ptr_u4 = b.type_pointer(None, StorageClass::Uniform, uvec4);
    let ptr_w = b.type_pointer(None, StorageClass::StorageBuffer, u32t);
    let zero = b.constant_bit32(u32t, 0);
    let build = |b: &mut Builder| -> std::result::Result<(), rspirv::dr::Error> {
        let uniform_pair =
            |b: &mut Builder, var: u32, word: u32| -> std::result::Result<u32, rspirv::dr::Error> {
                let i = b.constant_bit32(u32t, word / 4);
                let p = b.access_chain(ptr_u4, None, var, [zero, i])?;
                let v = b.load(uvec4, None, p, None, [])?;
                let pair = b.vector_shuffle(uvec2, None, v, v, [word % 4, word % 4 + 1])?;
                b.bitcast(u64t, None, pair)
            };
        let ptr = uniform_pair(b, bank0, abi::bank0::PARAMS / 4)?;
        let base = uniform_pair(b, lv, abi::launch_word::WINDOW_BASE)?;
        let off = b.i_sub(u64t, None, ptr, base)?;
        let two = b.constant_bit32(u32t, 2);
        let w0 = b.shift_right_logical(u64t, None, off, two)?;
        let w0 = b.u_convert(u32t, None, w0)?;
        let at = |b: &mut Builder, k: u32| -> std::result::Result<u32, rspirv::dr::Error> {
            let Some(c) = chunks else {
                let kc = b.constant_bit32(u32t, k);
                let i = b.i_add(u32t, None, w0, kc)?;
                return b.access_chain(ptr_w, None, window, [zero, i]);
            };
            // Byte offset of word k, its chunk's table entry (two words), then the physical pointer.
            let kc = b.constant_bit64(u64t, 4 * u64::from(k));
            let byte = b.i_add(u64t, None, off, kc)?;
            let sh = b.constant_bit32(u32t, c.log2_bytes);
            let chunk = b.shift_right_logical(u64t, None, byte, sh)?;
            let chunk = b.u_convert(u32t, None, chunk)?;
            let one = b.constant_bit32(u32t, 1);
            let first = b.constant_bit32(u32t, abi::WINDOW_CHUNK_TABLE_WORD);
            let i = b.shift_left_logical(u32t, None, chunk, one)?;
            let i = b.i_add(u32t, None, first, i)?;
            let plo = b.access_chain(ptr_w, None, window, [zero, i])?;
            let lo = b.load(u32t, None, plo, None, [])?;
            let i1 = b.i_add(u32t, None, i, one)?;
            let phi = b.access_chain(ptr_w, None, window, [zero, i1])?;
            let hi = b.load(u32t, None, phi, None, [])?;
            let pair = b.composite_construct(uvec2, None, [lo, hi])?;
            let base = b.bitcast(u64t, None, pair)?;
            let mask = b.constant_bit64(u64t, (1u64 << c.log2_bytes) - 1);
            let within = b.bitwise_and(u64t, None, byte, mask)?;
            let address = b.i_add(u64t, None, base, within)?;
            let phys = b.type_pointer(None, StorageClass::PhysicalStorageBuffer, u32t);
            b.convert_u_to_ptr(phys, None, address)
        };
        // Physical pointers need an alignment on every access.
        let access = || -> (Option<spirv::MemoryAccess>, Vec<Operand>) {
            match chunks {
                Some(_) => (Some(spirv::MemoryAccess::ALIGNED), vec![Operand::LiteralBit32(4)]),
                None => (None, Vec::new()),
            }
        };
        let load_at = |b: &mut Builder, k: u32| -> std::result::Result<u32, rspirv::dr::Error> {
            let p = at(b, k)?;
            let (ma, ops) = access();
            b.load(u32t, None, p, ma, ops)
        };
        let store_at = |b: &mut Builder, k: u32, v: u32| -> std::result::Result<(), rspirv::dr::Error> {
            let p = at(b, k)?;
            let (ma, ops) = access();
            b.store(p, v, ma, ops)
        };
        let f32_at = |b: &mut Builder, k: u32| -> std::result::Result<u32, rspirv::dr::Error> {
            let v = load_at(b, k)?;
            b.bitcast(f32t, None, v)
        };
        let (x, y, z) = (f32_at(b, 0)?, f32_at(b, 1)?, f32_at(b, 2)?);
        let fma = b.ext_inst(
            f32t,
            None,
            glsl,
            50,
            [Operand::IdRef(x), Operand::IdRef(y), Operand::IdRef(z)],
        )?;
        let (d1, d2) = (f32_at(b, 3)?, f32_at(b, 4)?);
        let sum = b.f_add(f32t, None, d1, d2)?;
        for (k, v) in [(OUT, fma), (OUT + 1, sum)] {
            let bits = b.bitcast(u32t, None, v)?;
            store_at(b, k, bits)?;
        }
        if f64 {
            let f64t = b.type_float(64, None);
            let f64_at = |b: &mut Builder, k: u32| -> std::result::Result<u32, rspirv::dr::Error> {
                let (lo, hi) = (load_at(b, k)?, load_at(b, k + 1)?);
                let pair = b.composite_construct(uvec2, None, [lo, hi])?;
                b.bitcast(f64t, None, pair)
            };
            let (x, y, z) = (f64_at(b, 5)?, f64_at(b, 7)?, f64_at(b, 9)?);
            let fma = b.ext_inst(
                f64t,
                None,
                glsl,
                50,
                [Operand::IdRef(x), Operand::IdRef(y), Operand::IdRef(z)],
            )?;
            let (d1, d2) = (f64_at(b, 11)?, f64_at(b, 11)?);
            let sum = b.f_add(f64t, None, d1, d2)?;
            for (k, v) in [(OUT + 2, fma), (OUT + 4, sum)] {
                let pair = b.bitcast(uvec2, None, v)?;
                for i in 0..2 {
                    let w = b.composite_extract(u32t, None, pair, [i])?;
                    store_at(b, k + i, w)?;
                }
            }
        }
        b.ret()?;
        b.end_function()
    };
    build(&mut b).expect("self-test module builds");
    b.entry_point(
        ExecutionModel::GLCompute,
        main,
        abi::ENTRY_POINT,
        [lv, bank0, window],
    );
    b.module().assemble()
}

impl Runtime {
    /// Runs the float self-test once (later calls return the stored result) and records it in
    /// [`Runtime::profile`]: whether `Fma` is fused (f32, and f64 where supported) and whether f32 denormals
    /// survive an add without any float-controls execution mode.
    ///
    /// With an on-disk cache ([`crate::PipelineCacheLocation`]), the raw results are kept in a sealed record
    /// ([`float_record_file`]: device and driver identity, SHA-256) and read back by later runtimes on the
    /// same device and driver instead of measuring again. A record that is damaged, for another device, or
    /// holds a value the measurement cannot produce ([`FloatSamples::check`]) is reported once, measured
    /// again and overwritten.
    pub fn measure_float(&mut self) -> Result<MeasuredFloat> {
        if self.measured().fma_f32_fused.is_some() {
            return Ok(self.measured());
        }
        let float64 = self.device().features.float64;
        let identity = float_record_identity(self.device());
        let file = self
            .cache_dir()
            .map(|d| float_record_file(&d, self.device()));
        if let Some(f) = &file {
            if let Some(data) = disk_cache::read_entry(f) {
                match parse_float_record(&data, &identity, float64) {
                    Ok(samples) => {
                        let m = samples.measured();
                        self.set_measured(m);
                        return Ok(m);
                    }
                    Err(e) => disk_cache::rejected(f, &data, &e),
                }
            }
        }
        let samples = self.run_float_selftest(float64)?;
        let measured = samples.measured();
        self.set_measured(measured);
        match (samples.check(float64), file) {
            (Ok(()), Some(f)) => {
                // A cache directory that cannot be written only costs a measurement next time.
                disk_cache::store_or_warn(&f, &float_record_bytes(&identity, &samples));
            }
            (Ok(()), None) => {}
            // Not kept: the next runtime measures again. The booleans above are still safe (anything but the
            // fused or preserved value chooses the exact lowering).
            (Err(why), _) => disk_cache::warn_once(
                format!("float-selftest:{identity}"),
                format!("the float self-test gave a value IEEE arithmetic cannot: {why}"),
            ),
        }
        Ok(measured)
    }

    /// One dispatch of the self-test module; its raw results.
    fn run_float_selftest(&mut self, f64: bool) -> Result<FloatSamples> {
        let module = float_selftest_module(f64, self.window_chunks());
        let kernel = self.load_kernel("sassport_float_selftest", &module)?;
        let buf = self.alloc(4 * BUFFER_WORDS as u64)?;
        let result = (|| {
            let mut input = [0u32; BUFFER_WORDS];
            input[..INPUTS.len()].copy_from_slice(&INPUTS);
            let bytes: Vec<u8> = input.iter().flat_map(|w| w.to_le_bytes()).collect();
            self.upload(buf, &bytes)?;
            let bank0 = Bank0::new([1; 3], [1; 3]).with_params(&buf.to_le_bytes());
            let banks = [(0, bank0.as_bytes())];
            self.launch(&Launch {
                kernel,
                grid: [1; 3],
                block: [1; 3],
                dynamic_shared_bytes: 0,
                banks: &banks,
            })?;
            let mut out = vec![0u8; 4 * BUFFER_WORDS];
            self.download(buf, &mut out)?;
            let word = |i: u32| {
                u32::from_le_bytes(out[4 * i as usize..][..4].try_into().expect("4 bytes"))
            };
            Ok(FloatSamples {
                fma_f32: word(OUT),
                denorm_sum_f32: word(OUT + 1),
                fma_f64: f64.then(|| u64::from(word(OUT + 3)) << 32 | u64::from(word(OUT + 2))),
                denorm_sum_f64: f64.then(|| u64::from(word(OUT + 5)) << 32 | u64::from(word(OUT + 4))),
            })
        })();
        self.free(buf)?;
        result
    }
}

/// What the self-test dispatch wrote: the raw result bits, from which [`MeasuredFloat`] follows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FloatSamples {
    /// `fma(1 + 2^-23, 1 - 2^-24, -1)` in f32.
    pub fma_f32: u32,
    /// The smallest f32 denormal added to itself.
    pub denorm_sum_f32: u32,
    /// `fma(1 + 2^-52, 1 - 2^-53, -1)` in f64, where the device has f64.
    pub fma_f64: Option<u64>,
    /// The smallest f64 denormal added to itself, where the device has f64.
    pub denorm_sum_f64: Option<u64>,
}

impl FloatSamples {
    /// The lowering choices these results mean: only the exact fused or preserved value counts as such.
    pub fn measured(&self) -> MeasuredFloat {
        MeasuredFloat {
            fma_f32_fused: Some(self.fma_f32 == FMA32_FUSED),
            denorm_f32_preserved: Some(self.denorm_sum_f32 == DENORM_SUM),
            fma_f64_fused: self.fma_f64.map(|v| v == FMA64_FUSED),
            denorm_f64_preserved: self.denorm_sum_f64.map(|v| v == DENORM_SUM_F64),
        }
    }

    /// Whether these are results the self-test can produce on a device with (or without) f64: each value is
    /// one of the two that IEEE arithmetic gives for its inputs (rounded once or twice; denormals kept or
    /// flushed to +0), and the f64 result is present exactly when the device has f64.
    pub fn check(&self, float64: bool) -> std::result::Result<(), String> {
        if ![FMA32_FUSED, 0].contains(&self.fma_f32) {
            return Err(format!("f32 fma gave {:#010x}, not {FMA32_FUSED:#010x} or 0", self.fma_f32));
        }
        if ![DENORM_SUM, 0].contains(&self.denorm_sum_f32) {
            return Err(format!(
                "f32 denormal sum gave {:#010x}, not {DENORM_SUM:#x} or 0",
                self.denorm_sum_f32
            ));
        }
        if let Some(v) = self.denorm_sum_f64.filter(|v| ![DENORM_SUM_F64, 0].contains(v)) {
            return Err(format!("f64 denormal sum gave {v:#018x}, not {DENORM_SUM_F64:#x} or 0"));
        }
        if self.fma_f64.is_some() != self.denorm_sum_f64.is_some() {
            return Err("one f64 result without the other".into());
        }
        match (self.fma_f64, float64) {
            (Some(v), true) if ![FMA64_FUSED, 0].contains(&v) => Err(format!(
                "f64 fma gave {v:#018x}, not {FMA64_FUSED:#018x} or 0"
            )),
            (Some(_), true) | (None, false) => Ok(()),
            (Some(_), false) => Err("an f64 result from a device without shaderFloat64".into()),
            (None, true) => Err("no f64 result from a device with shaderFloat64".into()),
        }
    }
}

/// The smallest f32 denormal doubled, kept: 2^-148.
const DENORM_SUM: u32 = 2;
/// The smallest f64 denormal doubled, kept: 2^-1073.
const DENORM_SUM_F64: u64 = 2;

/// The kind line of a float self-test record.
const RECORD_MAGIC: &[u8] = cache_entry::FLOAT_RECORD_MAGIC;

/// The record file for a device and driver in the cache directory `dir`. Opened with and without Float64
/// (`--without float64`) the same device measures different records, so each gets its own file: one file for
/// both was rebuilt on every switch (seen on the H200 alternating the two).
pub fn float_record_file(dir: &std::path::Path, device: &DeviceInfo) -> std::path::PathBuf {
    let f64_part = if device.features.float64 { "" } else { "-nof64" };
    // v3: the f64 denormal sum was added (a v2 record lacks it).
    dir.join(format!("float-v3-{}{f64_part}.bin", device.cache_key()))
}

/// What a record is stored under: the device and driver as the Vulkan loader names them.
pub fn float_record_identity(device: &DeviceInfo) -> String {
    format!(
        "device={}\nname={}\ndriver={}\ndriver_info={}\napi={:#x}\nfloat64={}\n",
        device.cache_key(),
        device.name.escape_debug(),
        device.driver_name.escape_debug(),
        device.driver_info.escape_debug(),
        device.api_version,
        device.features.float64
    )
}

/// The record file's contents for `samples` measured on the device `identity` names.
pub fn float_record_bytes(identity: &str, samples: &FloatSamples) -> Vec<u8> {
    cache_entry::seal(RECORD_MAGIC, identity.as_bytes(), record_text(samples).as_bytes())
}

/// The payload of a record: `name=value` lines in a fixed order, values as `0x` and fixed-width lower-case
/// hex (`none` for an absent f64 result), each line ending in a newline.
fn record_text(samples: &FloatSamples) -> String {
    let hex64 = |v: Option<u64>| v.map_or("none".to_string(), |v| format!("{v:#018x}"));
    format!(
        "fma_f32={:#010x}\ndenorm_sum_f32={:#010x}\nfma_f64={}\ndenorm_sum_f64={}\n",
        samples.fma_f32,
        samples.denorm_sum_f32,
        hex64(samples.fma_f64),
        hex64(samples.denorm_sum_f64)
    )
}

/// The samples in a record file, if it is a whole, undamaged record for the device `identity` names
/// ([`float_record_identity`]) whose values pass [`FloatSamples::check`].
pub fn parse_float_record(
    data: &[u8],
    identity: &str,
    float64: bool,
) -> std::result::Result<FloatSamples, CacheEntryError> {
    let payload = cache_entry::open(data, RECORD_MAGIC, identity.as_bytes())?;
    let bad = |what: &str| CacheEntryError::Payload(what.to_string());
    let text = std::str::from_utf8(payload).map_err(|_| bad("not UTF-8"))?;
    let mut lines = text.split_terminator('\n');
    let mut field = |name: &str| -> std::result::Result<&str, CacheEntryError> {
        lines
            .next()
            .and_then(|l| l.strip_prefix(name))
            .and_then(|l| l.strip_prefix('='))
            .ok_or_else(|| CacheEntryError::Payload(format!("no {name} line where expected")))
    };
    // Exactly the writer's form: `0x` and lower-case digits (from_str_radix alone also takes `+` and upper
    // case, which the writer never produces).
    let hex = |v: &str, digits: usize| {
        v.strip_prefix("0x")
            .filter(|h| h.len() == digits && h.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')))
            .and_then(|h| u64::from_str_radix(h, 16).ok())
    };
    let fma_f32 = hex(field("fma_f32")?, 8).ok_or_else(|| bad("fma_f32 is not 8 hex digits"))?;
    let denorm = hex(field("denorm_sum_f32")?, 8)
        .ok_or_else(|| bad("denorm_sum_f32 is not 8 hex digits"))?;
    let mut f64_field = |name: &str| -> std::result::Result<Option<u64>, CacheEntryError> {
        match field(name)? {
            "none" => Ok(None),
            v => Ok(Some(hex(v, 16).ok_or_else(|| bad(&format!("{name} is neither none nor 16 hex digits")))?)),
        }
    };
    let fma_f64 = f64_field("fma_f64")?;
    let denorm_sum_f64 = f64_field("denorm_sum_f64")?;
    if lines.next().is_some() {
        return Err(bad("lines after denorm_sum_f64"));
    }
    let samples = FloatSamples {
        fma_f32: fma_f32 as u32,
        denorm_sum_f32: denorm as u32,
        fma_f64,
        denorm_sum_f64,
    };
    // Only the writer's exact text: anything else (a missing last newline, other spellings) was not written
    // by this code, whatever it may mean.
    if record_text(&samples) != text {
        return Err(bad("not in the form the record is written in"));
    }
    samples.check(float64).map_err(CacheEntryError::Payload)?;
    Ok(samples)
}

#[cfg(test)]
mod tests {
    use super::*;

    const FUSED: FloatSamples = FloatSamples {
        fma_f32: FMA32_FUSED,
        denorm_sum_f32: 0,
        fma_f64: None,
        denorm_sum_f64: None,
    };

    #[test]
    fn record_round_trips_and_rejects_junk() {
        let r = float_record_bytes("dev A\n", &FUSED);
        assert_eq!(parse_float_record(&r, "dev A\n", false), Ok(FUSED));
        assert_eq!(
            FUSED.measured(),
            MeasuredFloat {
                fma_f32_fused: Some(true),
                denorm_f32_preserved: Some(false),
                fma_f64_fused: None,
                denorm_f64_preserved: None,
            }
        );
        // Another device's record, and this device's record where the device has f64.
        assert!(matches!(
            parse_float_record(&r, "dev B\n", false),
            Err(CacheEntryError::WrongKey { .. })
        ));
        assert!(matches!(
            parse_float_record(&r, "dev A\n", true),
            Err(CacheEntryError::Payload(_))
        ));
        // A well-sealed record of values the measurement cannot give.
        for odd in [
            FloatSamples { fma_f32: 0x3380_0000, ..FUSED },
            FloatSamples { denorm_sum_f32: 1, ..FUSED },
            FloatSamples { fma_f64: Some(1), ..FUSED },
            FloatSamples { fma_f64: Some(FMA64_FUSED), denorm_sum_f64: Some(1), ..FUSED },
            FloatSamples { fma_f64: Some(FMA64_FUSED), ..FUSED },
        ] {
            let r = float_record_bytes("dev A\n", &odd);
            assert!(parse_float_record(&r, "dev A\n", odd.fma_f64.is_some()).is_err(), "{odd:?}");
        }
        let ok64 = FloatSamples { fma_f64: Some(FMA64_FUSED), denorm_sum_f64: Some(DENORM_SUM_F64), ..FUSED };
        let r = float_record_bytes("dev A\n", &ok64);
        assert_eq!(parse_float_record(&r, "dev A\n", true), Ok(ok64));
        assert!(parse_float_record(b"", "dev A\n", true).is_err());
        // Payloads that are sealed correctly but not in the record's format.
        for text in [
            "",
            "fma_f32=0x337ffffe\n",
            "fma_f32=0x337ffffe\ndenorm_sum_f32=0x2\nfma_f64=none\n",
            // Found by the cache_entries fuzz target: upper case and signs are not the writer's form.
            "fma_f32=0x00000000\ndenorm_sum_f32=0x00000000\nfma_f64=0x3c9ffffffffFfffe\n",
            "fma_f32=0x337FFFFE\ndenorm_sum_f32=0x00000000\nfma_f64=none\n",
            "fma_f32=0x+0000000\ndenorm_sum_f32=0x00000000\nfma_f64=none\n",
            // Found on the device run of the same target: the last newline missing.
            "fma_f32=0x337ffffe\ndenorm_sum_f32=0x00000002\nfma_f64=none",
            // A v2 record (no f64 denormal line).
            "fma_f32=0x337ffffe\ndenorm_sum_f32=0x00000002\nfma_f64=none\n",
            "fma_f32=0x337ffffe\ndenorm_sum_f32=0x00000002\nfma_f64=none\ndenorm_sum_f64=none",
        ] {
            let r = cache_entry::seal(RECORD_MAGIC, b"dev A\n", text.as_bytes());
            assert!(matches!(
                parse_float_record(&r, "dev A\n", false),
                Err(CacheEntryError::Payload(_))
            ), "{text:?}");
        }
    }

    /// The expected fused results, by exact arithmetic on the inputs (not by running anything).
    #[test]
    fn expected_fused_results_are_exact() {
        // (1 + 2^-23)(1 - 2^-24) - 1 = 2^-23 - 2^-24 - 2^-47 = 2^-24 - 2^-47.
        let exact32 = 2f64.powi(-24) - 2f64.powi(-47);
        assert_eq!((exact32 as f32).to_bits(), super::FMA32_FUSED);
        assert_eq!(exact32 as f32 as f64, exact32, "exact in f32");
        assert_eq!(
            f32::from_bits(0x3f80_0001)
                .mul_add(f32::from_bits(0x3f7f_ffff), -1.0)
                .to_bits(),
            super::FMA32_FUSED
        );
        // Rounded product first: 1 + 2^-24 - 2^-47 rounds to 1, so the unfused result is +0.
        assert_eq!(
            (f32::from_bits(0x3f80_0001) * f32::from_bits(0x3f7f_ffff) - 1.0).to_bits(),
            0
        );
        let a = f64::from_bits(0x3ff0_0000_0000_0001);
        let b = f64::from_bits(0x3fef_ffff_ffff_ffff);
        // 2^-53 - 2^-105 = 2^-53 (1 - 2^-52): exponent -54, significand all ones but the last bit.
        assert_eq!(super::FMA64_FUSED, ((1023 - 54) << 52) | ((1u64 << 52) - 2));
        assert_eq!(a.mul_add(b, -1.0).to_bits(), super::FMA64_FUSED);
        assert_eq!((a * b - 1.0).to_bits(), 0);
        // The denormal sum, kept: 2^-149 + 2^-149 = 2^-148, bits 2.
        let tiny = f32::from_bits(1);
        assert_eq!((tiny + tiny).to_bits(), super::DENORM_SUM);
        let tiny = f64::from_bits(1);
        assert_eq!((tiny + tiny).to_bits(), super::DENORM_SUM_F64);
        assert_eq!(super::INPUTS[11..13], [1, 0], "the f64 denormal's words");
    }
}

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
use crate::error::Result;
use crate::runtime::{Launch, Runtime};

/// Input words: f32 a, b, c for `fma(a, b, c)`; two f32 denormals; f64 a, b, c (low word first).
const INPUTS: [u32; 11] = [
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
];
/// Word index of the first output (after the inputs, 8-byte aligned).
const OUT: u32 = 12;
/// `fma(1 + 2^-23, 1 - 2^-24, -1)` rounded once: 2^-24 - 2^-47 (exact in f32), as bits. Rounded twice it is 0.
const FMA32_FUSED: u32 = 0x337f_fffe;
/// `fma(1 + 2^-52, 1 - 2^-53, -1)` rounded once: 2^-53 - 2^-105 (exact in f64), as bits. Rounded twice it is 0.
const FMA64_FUSED: u64 = 0x3c9f_ffff_ffff_fffe;

/// The self-test module (an ABI kernel: one thread, inputs and outputs at the pointer in bank 0); with `f64`,
/// it also measures the f64 `Fma`.
pub fn float_selftest_module(f64: bool) -> Vec<u32> {
    let mut b = Builder::new();
    b.set_version(1, 6);
    b.capability(Capability::Shader);
    b.capability(Capability::Int64);
    if f64 {
        b.capability(Capability::Float64);
    }
    let glsl = b.ext_inst_import("GLSL.std.450");
    b.memory_model(AddressingModel::Logical, MemoryModel::GLSL450);
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
            let kc = b.constant_bit32(u32t, k);
            let i = b.i_add(u32t, None, w0, kc)?;
            b.access_chain(ptr_w, None, window, [zero, i])
        };
        let f32_at = |b: &mut Builder, k: u32| -> std::result::Result<u32, rspirv::dr::Error> {
            let p = at(b, k)?;
            let v = b.load(u32t, None, p, None, [])?;
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
            let p = at(b, k)?;
            b.store(p, bits, None, [])?;
        }
        if f64 {
            let f64t = b.type_float(64, None);
            let f64_at = |b: &mut Builder, k: u32| -> std::result::Result<u32, rspirv::dr::Error> {
                let (plo, phi) = (at(b, k)?, at(b, k + 1)?);
                let lo = b.load(u32t, None, plo, None, [])?;
                let hi = b.load(u32t, None, phi, None, [])?;
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
            let pair = b.bitcast(uvec2, None, fma)?;
            for i in 0..2 {
                let w = b.composite_extract(u32t, None, pair, [i])?;
                let p = at(b, OUT + 2 + i)?;
                b.store(p, w, None, [])?;
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
    /// With an on-disk cache ([`crate::PipelineCacheLocation`]), the result is kept in
    /// `float-<vendor>-<device>-<driver>-<uuid>.txt` next to the pipeline cache and read back by later runtimes
    /// on the same device and driver instead of measuring again.
    pub fn measure_float(&mut self) -> Result<MeasuredFloat> {
        if self.measured().fma_f32_fused.is_some() {
            return Ok(self.measured());
        }
        let file = self
            .cache_dir()
            .map(|d| d.join(format!("float-{}.txt", self.device().cache_key())));
        if let Some(m) = file
            .as_deref()
            .and_then(|f| std::fs::read_to_string(f).ok())
            .and_then(|t| parse_measured(&t))
        {
            self.set_measured(m);
            return Ok(m);
        }
        let f64 = self.device().features.float64;
        let kernel = self.load_kernel("sassport_float_selftest", &float_selftest_module(f64))?;
        let buf = self.alloc(4 * 16)?;
        let result = (|| {
            let mut input = [0u32; 16];
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
            let mut out = vec![0u8; 64];
            self.download(buf, &mut out)?;
            let word = |i: u32| {
                u32::from_le_bytes(out[4 * i as usize..][..4].try_into().expect("4 bytes"))
            };
            Ok(MeasuredFloat {
                fma_f32_fused: Some(word(OUT) == FMA32_FUSED),
                denorm_f32_preserved: Some(word(OUT + 1) == 2),
                fma_f64_fused: f64.then(|| {
                    (u64::from(word(OUT + 3)) << 32 | u64::from(word(OUT + 2))) == FMA64_FUSED
                }),
            })
        })();
        self.free(buf)?;
        let measured = result?;
        self.set_measured(measured);
        if let Some(f) = file {
            // Best effort: a read-only cache directory only costs a measurement next time.
            let _ = crate::disk_cache::store(&f, format_measured(&measured).as_bytes());
        }
        Ok(measured)
    }
}

const KEYS: [&str; 3] = ["fma_f32_fused", "denorm_f32_preserved", "fma_f64_fused"];

fn fields(m: &MeasuredFloat) -> [Option<bool>; 3] {
    [m.fma_f32_fused, m.denorm_f32_preserved, m.fma_f64_fused]
}

/// `key=yes|no|unknown` lines, in a fixed order.
fn format_measured(m: &MeasuredFloat) -> String {
    KEYS.iter()
        .zip(fields(m))
        .map(|(k, v)| {
            format!(
                "{k}={}\n",
                match v {
                    Some(true) => "yes",
                    Some(false) => "no",
                    None => "unknown",
                }
            )
        })
        .collect()
}

/// Reads what `format_measured` wrote; anything else (a torn or edited file) is `None`, so the device is
/// measured again.
fn parse_measured(text: &str) -> Option<MeasuredFloat> {
    let mut values = [None; 3];
    let mut seen = [false; 3];
    for line in text.lines() {
        let (k, v) = line.split_once('=')?;
        let i = KEYS.iter().position(|&key| key == k)?;
        values[i] = match v {
            "yes" => Some(true),
            "no" => Some(false),
            "unknown" => None,
            _ => return None,
        };
        seen[i] = true;
    }
    if !seen.iter().all(|&s| s) || values[0].is_none() || values[1].is_none() {
        return None;
    }
    Some(MeasuredFloat {
        fma_f32_fused: values[0],
        denorm_f32_preserved: values[1],
        fma_f64_fused: values[2],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn measured_file_round_trips_and_rejects_junk() {
        let m = MeasuredFloat {
            fma_f32_fused: Some(true),
            denorm_f32_preserved: Some(false),
            fma_f64_fused: None,
        };
        assert_eq!(
            format_measured(&m),
            "fma_f32_fused=yes\ndenorm_f32_preserved=no\nfma_f64_fused=unknown\n"
        );
        assert_eq!(parse_measured(&format_measured(&m)), Some(m));
        assert_eq!(parse_measured("fma_f32_fused=yes\n"), None);
        assert_eq!(
            parse_measured("fma_f32_fused=maybe\ndenorm_f32_preserved=no\nfma_f64_fused=no\n"),
            None
        );
        assert_eq!(
            parse_measured("fma_f32_fused=unknown\ndenorm_f32_preserved=no\nfma_f64_fused=no\n"),
            None
        );
        assert_eq!(parse_measured(""), None);
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
        // Rounded product first: 1 + 2^-24 - 2^-47 rounds to 1, so the unfused result is 0.
        assert_eq!(
            f32::from_bits(0x3f80_0001) * f32::from_bits(0x3f7f_ffff) - 1.0,
            0.0
        );
        let a = f64::from_bits(0x3ff0_0000_0000_0001);
        let b = f64::from_bits(0x3fef_ffff_ffff_ffff);
        // 2^-53 - 2^-105 = 2^-53 (1 - 2^-52): exponent -54, significand all ones but the last bit.
        assert_eq!(super::FMA64_FUSED, ((1023 - 54) << 52) | ((1u64 << 52) - 2));
        assert_eq!(a.mul_add(b, -1.0).to_bits(), super::FMA64_FUSED);
        assert_eq!(a * b - 1.0, 0.0);
    }
}

//! KEPLER_INLINE_TO_MEMORY_B (class 0xA140): data words from the pushbuffer written to a pitch or
//! block-linear destination, with an optional completion semaphore.
//!
//! Method offsets and fields are those of NVIDIA's public class header cla140.h as recorded in
//! `shared/notes/command-engines.md` §3. LAUNCH_DMA latches the destination; the LINE_LENGTH_IN ×
//! LINE_COUNT bytes then arrive as LOAD_INLINE_DATA words, possibly spread over many headers and GPFIFO
//! entries. Each line starts in a new data word (the bytes of a line's last word past its end are
//! dropped), as skyline and Ryujinx do. Each word is written as it arrives: a word whose destination
//! is not writable fails with nothing written and the transfer where it was, so the same word can be
//! delivered again once the mapping exists. The semaphore is checked before the last word is written
//! and released right after it.

use crate::channel::{Engine, EngineContext, EngineError, MethodOutcome};
use crate::layout::{BlockLinearLayout, LayoutError, Region, SectorLayout};
use crate::memory::{GpuMemory, VA_LIMIT};
use crate::semaphore::{Clock, ReductionFormat, ReductionOp};

use super::completion::{CheckedSemaphore, SemaphoreReduction, SemaphoreType};
use super::error::{CopyError, Side};

/// The class id.
pub const KEPLER_INLINE_TO_MEMORY_B: u32 = 0xA140;

/// Method byte offsets (cla140.h).
pub mod method {
    pub const NO_OPERATION: u32 = 0x100;
    pub const SET_NOTIFY_A: u32 = 0x104;
    pub const SET_NOTIFY_B: u32 = 0x108;
    pub const NOTIFY: u32 = 0x10C;
    pub const WAIT_FOR_IDLE: u32 = 0x110;
    pub const SET_GLOBAL_RENDER_ENABLE_A: u32 = 0x130;
    pub const SET_GLOBAL_RENDER_ENABLE_B: u32 = 0x134;
    pub const SET_GLOBAL_RENDER_ENABLE_C: u32 = 0x138;
    pub const SEND_GO_IDLE: u32 = 0x13C;
    pub const PM_TRIGGER: u32 = 0x140;
    pub const PM_TRIGGER_WFI: u32 = 0x144;
    pub const LINE_LENGTH_IN: u32 = 0x180;
    pub const LINE_COUNT: u32 = 0x184;
    pub const OFFSET_OUT_UPPER: u32 = 0x188;
    pub const OFFSET_OUT: u32 = 0x18C;
    pub const PITCH_OUT: u32 = 0x190;
    pub const SET_DST_BLOCK_SIZE: u32 = 0x194;
    pub const SET_DST_WIDTH: u32 = 0x198;
    pub const SET_DST_HEIGHT: u32 = 0x19C;
    pub const SET_DST_DEPTH: u32 = 0x1A0;
    pub const SET_DST_LAYER: u32 = 0x1A4;
    pub const SET_DST_ORIGIN_BYTES_X: u32 = 0x1A8;
    pub const SET_DST_ORIGIN_SAMPLES_Y: u32 = 0x1AC;
    pub const LAUNCH_DMA: u32 = 0x1B0;
    pub const LOAD_INLINE_DATA: u32 = 0x1B4;
    pub const SET_I2M_SEMAPHORE_A: u32 = 0x1DC;
    pub const SET_I2M_SEMAPHORE_B: u32 = 0x1E0;
    pub const SET_I2M_SEMAPHORE_C: u32 = 0x1E4;
    pub const SET_I2M_SPARE_NOOP00: u32 = 0x1F0;
    pub const SET_I2M_SPARE_NOOP03: u32 = 0x1FC;
    pub const SET_FALCON00: u32 = 0x200;
    pub const SET_FALCON31: u32 = 0x27C;
    pub const SET_RENDER_ENABLE_A: u32 = 0x1550;
    pub const SET_RENDER_ENABLE_B: u32 = 0x1554;
    pub const SET_RENDER_ENABLE_C: u32 = 0x1558;
    pub const SET_RENDER_ENABLE_OVERRIDE: u32 = 0x1944;
    pub const SET_MME_SHADOW_SCRATCH0: u32 = 0x3400;
    pub const SET_MME_SHADOW_SCRATCH255: u32 = 0x37FC;
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Registers {
    line_length_in: u32,
    line_count: u32,
    offset_out_upper: u32,
    offset_out: u32,
    pitch_out: u32,
    block_size: u32,
    width: u32,
    height: u32,
    depth: u32,
    layer: u32,
    origin_x: u32,
    origin_y: u32,
    semaphore_a: u32,
    semaphore_b: u32,
    semaphore_c: u32,
    global_render_enable_c: u32,
    render_enable_c: u32,
    render_enable_override: u32,
}

impl Default for Registers {
    fn default() -> Self {
        Registers {
            line_length_in: 0,
            line_count: 0,
            offset_out_upper: 0,
            offset_out: 0,
            pitch_out: 0,
            block_size: 0,
            width: 0,
            height: 0,
            depth: 0,
            layer: 0,
            origin_x: 0,
            origin_y: 0,
            semaphore_a: 0,
            semaphore_b: 0,
            semaphore_c: 0,
            // MODE_TRUE and USE_RENDER_ENABLE: transfers run unless the stream asks otherwise.
            global_render_enable_c: 1,
            render_enable_c: 1,
            render_enable_override: 0,
        }
    }
}

/// Where the latched transfer writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Destination {
    Pitch {
        base: u64,
        pitch: u64,
    },
    BlockLinear {
        base: u64,
        layout: BlockLinearLayout,
        region: Region,
    },
}

/// A launched transfer waiting for data words.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Transfer {
    destination: Destination,
    line_bytes: u64,
    words_per_line: u64,
    total_words: u64,
    next_word: u64,
    semaphore: SemaphoreSettings,
}

/// The completion semaphore as latched at launch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct SemaphoreSettings {
    kind: SemaphoreType,
    reduction: Option<SemaphoreReduction>,
    va: u64,
    payload: u32,
}

/// LAUNCH_DMA (0x1B0) of the I2M block, decoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InlineLaunch {
    pub dst_pitch: bool,
    pub semaphore: SemaphoreType,
    pub reduction: Option<SemaphoreReduction>,
}

impl InlineLaunch {
    /// Decodes the word; undefined values and interrupts are refused.
    pub fn decode(word: u32) -> Result<InlineLaunch, CopyError> {
        let bits = |lo: u32, n: u32| (word >> lo) & ((1 << n) - 1);
        let bad = |field, value| CopyError::BadField {
            method: "LAUNCH_DMA",
            field,
            value,
        };
        // COMPLETION_TYPE 5:4: FLUSH_DISABLE, FLUSH_ONLY (nothing to flush here), RELEASE_SEMAPHORE.
        let release = match bits(4, 2) {
            0 | 1 => false,
            2 => true,
            v => return Err(bad("COMPLETION_TYPE", v)),
        };
        match bits(8, 2) {
            0 => {}
            1 => {
                return Err(CopyError::Unsupported(
                    "I2M LAUNCH_DMA INTERRUPT_TYPE INTERRUPT",
                ))
            }
            v => return Err(bad("INTERRUPT_TYPE", v)),
        }
        let semaphore = match (release, bits(12, 1)) {
            (false, _) => SemaphoreType::None,
            (true, 0) => SemaphoreType::FourWord,
            (true, _) => SemaphoreType::OneWord,
        };
        let reduction = if bits(1, 1) != 0 {
            let format = match bits(2, 2) {
                0 => ReductionFormat::Unsigned,
                1 => ReductionFormat::Signed,
                v => return Err(bad("REDUCTION_FORMAT", v)),
            };
            // The I2M numbering differs from the host/copy-engine one.
            let op = match bits(13, 3) {
                0 => ReductionOp::Add,
                1 => ReductionOp::Min,
                2 => ReductionOp::Max,
                3 => ReductionOp::Inc,
                4 => ReductionOp::Dec,
                5 => ReductionOp::And,
                6 => ReductionOp::Or,
                _ => ReductionOp::Xor,
            };
            if !release {
                return Err(bad(
                    "REDUCTION_ENABLE without COMPLETION_TYPE RELEASE_SEMAPHORE",
                    1,
                ));
            }
            Some(SemaphoreReduction::Integer(op, format))
        } else {
            None
        };
        Ok(InlineLaunch {
            dst_pitch: bits(0, 1) != 0,
            semaphore,
            reduction,
        })
    }
}

/// The inline-to-memory engine. The same method block sits at the same offsets in the 3D and compute
/// classes; they can embed this type and forward those methods.
#[derive(Clone, Debug)]
pub struct InlineToMemory {
    regs: Registers,
    transfer: Option<Transfer>,
    sectors: SectorLayout,
}

impl InlineToMemory {
    /// An engine whose block-linear destinations use `sectors` inside each GOB.
    pub fn new(sectors: SectorLayout) -> Self {
        InlineToMemory {
            regs: Registers::default(),
            transfer: None,
            sectors,
        }
    }

    /// Data words the current transfer still expects (0 when none is pending).
    pub fn remaining_words(&self) -> u64 {
        self.transfer.map_or(0, |t| t.total_words - t.next_word)
    }

    /// Stores a method's data word; false for an offset the class does not define.
    fn store(&mut self, method: u32, data: u32) -> Result<bool, CopyError> {
        use method::*;
        let r = &mut self.regs;
        match method {
            NO_OPERATION | WAIT_FOR_IDLE | SEND_GO_IDLE | PM_TRIGGER | PM_TRIGGER_WFI => {}
            SET_NOTIFY_A
            | SET_NOTIFY_B
            | SET_GLOBAL_RENDER_ENABLE_A
            | SET_GLOBAL_RENDER_ENABLE_B => {}
            SET_RENDER_ENABLE_A | SET_RENDER_ENABLE_B => {}
            NOTIFY => return Err(CopyError::Unsupported("I2M NOTIFY (notifier writes)")),
            SET_GLOBAL_RENDER_ENABLE_C => r.global_render_enable_c = data,
            SET_RENDER_ENABLE_C => r.render_enable_c = data,
            SET_RENDER_ENABLE_OVERRIDE => r.render_enable_override = data,
            LINE_LENGTH_IN => r.line_length_in = data,
            LINE_COUNT => r.line_count = data,
            OFFSET_OUT_UPPER => r.offset_out_upper = data & 0x1FF_FFFF,
            OFFSET_OUT => r.offset_out = data,
            PITCH_OUT => r.pitch_out = data,
            SET_DST_BLOCK_SIZE => r.block_size = data,
            SET_DST_WIDTH => r.width = data,
            SET_DST_HEIGHT => r.height = data,
            SET_DST_DEPTH => r.depth = data,
            SET_DST_LAYER => r.layer = data,
            SET_DST_ORIGIN_BYTES_X => r.origin_x = data & 0x1F_FFFF,
            SET_DST_ORIGIN_SAMPLES_Y => r.origin_y = data & 0x1_FFFF,
            SET_I2M_SEMAPHORE_A => r.semaphore_a = data & 0x1FF_FFFF,
            SET_I2M_SEMAPHORE_B => r.semaphore_b = data,
            SET_I2M_SEMAPHORE_C => r.semaphore_c = data,
            SET_I2M_SPARE_NOOP00..=SET_I2M_SPARE_NOOP03 if method % 4 == 0 => {}
            SET_FALCON00..=SET_FALCON31 if method % 4 == 0 => {}
            SET_MME_SHADOW_SCRATCH0..=SET_MME_SHADOW_SCRATCH255 if method % 4 == 0 => {}
            _ => return Ok(false),
        }
        Ok(true)
    }

    fn check_render_enable(&self) -> Result<(), CopyError> {
        let r = &self.regs;
        let mode_true = |c: u32, name| match c & 7 {
            1 => Ok(()),
            0 => Err(CopyError::Unsupported(name)),
            2..=4 => Err(CopyError::Unsupported("I2M conditional render enable")),
            v => Err(CopyError::BadField {
                method: "SET_*RENDER_ENABLE_C",
                field: "MODE",
                value: v,
            }),
        };
        match r.render_enable_override & 3 {
            1 => return Ok(()), // ALWAYS_RENDER
            2 => {
                return Err(CopyError::Unsupported(
                    "I2M SET_RENDER_ENABLE_OVERRIDE NEVER_RENDER",
                ))
            }
            3 => {
                return Err(CopyError::BadField {
                    method: "SET_RENDER_ENABLE_OVERRIDE",
                    field: "MODE",
                    value: 3,
                })
            }
            _ => {}
        }
        mode_true(
            r.global_render_enable_c,
            "I2M SET_GLOBAL_RENDER_ENABLE_C MODE FALSE",
        )?;
        mode_true(r.render_enable_c, "I2M SET_RENDER_ENABLE_C MODE FALSE")
    }

    fn launch(
        &mut self,
        memory: &mut GpuMemory,
        clock: &mut dyn Clock,
        word: u32,
    ) -> Result<(), CopyError> {
        if let Some(t) = self.transfer {
            return Err(CopyError::TransferInProgress {
                remaining_words: t.total_words - t.next_word,
            });
        }
        let launch = InlineLaunch::decode(word)?;
        self.check_render_enable()?;
        let r = self.regs;
        let base = ((r.offset_out_upper as u64) << 32) | r.offset_out as u64;
        let destination = if launch.dst_pitch {
            Destination::Pitch {
                base,
                pitch: r.pitch_out as u64,
            }
        } else {
            let layout_error = |error| CopyError::Layout {
                side: Side::Destination,
                error,
            };
            if r.block_size & 0xF != 0 {
                return Err(layout_error(LayoutError::BlockWidth(r.block_size & 0xF)));
            }
            let layout = BlockLinearLayout::new(
                r.width,
                r.height,
                r.depth,
                (r.block_size >> 4) & 0xF,
                (r.block_size >> 8) & 0xF,
                self.sectors,
            )
            .map_err(layout_error)?;
            let region = Region {
                x: r.origin_x,
                y: r.origin_y,
                z: r.layer,
                width: r.line_length_in,
                height: r.line_count,
            };
            layout.check_region(&region).map_err(layout_error)?;
            Destination::BlockLinear {
                base,
                layout,
                region,
            }
        };
        let line_bytes = r.line_length_in as u64;
        let words_per_line = line_bytes.div_ceil(4);
        let transfer = Transfer {
            destination,
            line_bytes,
            words_per_line,
            total_words: words_per_line * r.line_count as u64,
            next_word: 0,
            semaphore: SemaphoreSettings {
                kind: launch.semaphore,
                reduction: launch.reduction,
                va: ((r.semaphore_a as u64) << 32) | r.semaphore_b as u64,
                payload: r.semaphore_c,
            },
        };
        if transfer.total_words == 0 {
            // Nothing to wait for: the transfer completes at launch.
            let s = transfer.semaphore;
            if let Some(release) =
                CheckedSemaphore::check(memory, s.va, s.payload, s.kind, s.reduction)?
            {
                release.perform(memory, clock)?;
            }
            return Ok(());
        }
        self.transfer = Some(transfer);
        Ok(())
    }

    fn load(
        &mut self,
        memory: &mut GpuMemory,
        clock: &mut dyn Clock,
        data: u32,
    ) -> Result<(), CopyError> {
        let Some(mut t) = self.transfer else {
            return Err(CopyError::NoTransferPending);
        };
        let line = t.next_word / t.words_per_line;
        let start = (t.next_word % t.words_per_line) * 4;
        let len = (t.line_bytes - start).min(4);
        let bytes = data.to_le_bytes();
        let mut pieces: [(u64, &[u8]); 2] = [(0, &[]), (0, &[])];
        match t.destination {
            Destination::Pitch { base, pitch } => {
                let va = (line as u128 * pitch as u128) + base as u128 + start as u128;
                if va + len as u128 > VA_LIMIT as u128 {
                    return Err(CopyError::AddressOverflow {
                        side: Side::Destination,
                        line,
                    });
                }
                pieces[0] = (va as u64, &bytes[..len as usize]);
            }
            Destination::BlockLinear {
                base,
                layout,
                region,
            } => {
                // Four bytes can cross a 16-byte piece boundary: at most two runs.
                let y = region.y + line as u32;
                let x = region.x + start as u32;
                let first = (16 - x % 16).min(len as u32) as usize;
                let at = |x: u32| {
                    base.checked_add(layout.offset(x, y, region.z)).ok_or(
                        CopyError::AddressOverflow {
                            side: Side::Destination,
                            line,
                        },
                    )
                };
                pieces[0] = (at(x)?, &bytes[..first]);
                if first < len as usize {
                    pieces[1] = (at(x + first as u32)?, &bytes[first..len as usize]);
                }
            }
        }
        let last = t.next_word + 1 == t.total_words;
        let release = if last {
            let s = t.semaphore;
            CheckedSemaphore::check(memory, s.va, s.payload, s.kind, s.reduction)?
        } else {
            None
        };
        if pieces[1].1.is_empty() {
            memory.write(pieces[0].0, pieces[0].1)?; // validates the whole piece before writing
        } else {
            memory.write_batch(&pieces)?;
        }
        t.next_word += 1;
        if last {
            self.transfer = None;
            if let Some(release) = release {
                release.perform(memory, clock)?;
            }
        } else {
            self.transfer = Some(t);
        }
        Ok(())
    }
}

impl Engine for InlineToMemory {
    fn class(&self) -> u32 {
        KEPLER_INLINE_TO_MEMORY_B
    }

    fn name(&self) -> &'static str {
        "KEPLER_INLINE_TO_MEMORY_B"
    }

    fn method(
        &mut self,
        ctx: &mut EngineContext<'_>,
        method: u32,
        data: u32,
    ) -> Result<MethodOutcome, EngineError> {
        match method {
            method::LAUNCH_DMA => self.launch(ctx.memory, ctx.clock, data)?,
            method::LOAD_INLINE_DATA => self.load(ctx.memory, ctx.clock, data)?,
            _ => {
                if !self.store(method, data)? {
                    return Err(EngineError::UnknownMethod);
                }
            }
        }
        Ok(MethodOutcome::Done)
    }

    fn unfinished(&self) -> Option<String> {
        self.transfer.map(|t| {
            format!(
                "LAUNCH_DMA of {} data words ({} line(s) of {} bytes) received {}; {} LOAD_INLINE_DATA word(s) missing",
                t.total_words,
                t.total_words / t.words_per_line,
                t.line_bytes,
                t.next_word,
                t.total_words - t.next_word
            )
        })
    }
}

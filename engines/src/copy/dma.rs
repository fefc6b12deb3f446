//! AMPERE_DMA_COPY_A (class 0xC6B5): pitch and block-linear copies, remapped copies and constant
//! fills, with an optional semaphore release or reduction when the copy completes.
//!
//! Method offsets and fields are those of NVIDIA's public class header clc6b5.h, as recorded in
//! `shared/notes/command-engines.md` §4. Behaviour that the header leaves open follows hardware tests
//! reported by emulator authors: pitch surfaces ignore the origin registers (Ryujinx #3121), PITCH_IN /
//! PITCH_OUT are signed (Ryujinx #2623), and with remap disabled X extents are bytes.

use crate::channel::{Engine, EngineContext, EngineError, MethodOutcome};
use crate::layout::{BlockLinearLayout, LayoutError, Region, SectorLayout};
use crate::memory::GpuMemory;
use crate::semaphore::{Clock, ReductionFormat, ReductionOp};

use super::completion::{CheckedSemaphore, SemaphoreReduction, SemaphoreType};
use super::error::{CopyError, Side};
use super::remap::Remap;
use super::surface::{Placement, RowSource, Shape};

/// The class id.
pub const AMPERE_DMA_COPY_A: u32 = 0xC6B5;

/// Most work one launch may take, counted as the bytes written plus [`LINE_COST`] per line: a little
/// over 4 GiB, the largest launch NVK emits (a 32768 × 32768 fill of 4-byte elements). Larger launches
/// are refused by name rather than keeping the channel busy for minutes.
pub const WRITE_LIMIT: u64 = (1 << 32) + (LINE_COST << 16);

/// The work of starting one line, in bytes, for [`WRITE_LIMIT`].
pub const LINE_COST: u64 = 64;

/// Most bytes one launch stages at once: a whole copy whose source and destination may share host
/// bytes, or one line. Larger ones are refused by name instead of exhausting host memory.
pub const STAGING_LIMIT: u64 = 256 << 20;

/// Staging per band of rows for copies whose source and destination share no host bytes.
const BAND_BYTES: u64 = 1 << 20;

/// Method byte offsets (clc6b5.h).
pub mod method {
    pub const NOP: u32 = 0x100;
    pub const PM_TRIGGER: u32 = 0x140;
    pub const SET_SEMAPHORE_A: u32 = 0x240;
    pub const SET_SEMAPHORE_B: u32 = 0x244;
    pub const SET_SEMAPHORE_PAYLOAD: u32 = 0x248;
    pub const SET_RENDER_ENABLE_A: u32 = 0x254;
    pub const SET_RENDER_ENABLE_B: u32 = 0x258;
    pub const SET_RENDER_ENABLE_C: u32 = 0x25C;
    pub const SET_SRC_PHYS_MODE: u32 = 0x260;
    pub const SET_DST_PHYS_MODE: u32 = 0x264;
    pub const LAUNCH_DMA: u32 = 0x300;
    pub const OFFSET_IN_UPPER: u32 = 0x400;
    pub const OFFSET_IN_LOWER: u32 = 0x404;
    pub const OFFSET_OUT_UPPER: u32 = 0x408;
    pub const OFFSET_OUT_LOWER: u32 = 0x40C;
    pub const PITCH_IN: u32 = 0x410;
    pub const PITCH_OUT: u32 = 0x414;
    pub const LINE_LENGTH_IN: u32 = 0x418;
    pub const LINE_COUNT: u32 = 0x41C;
    pub const SET_REMAP_CONST_A: u32 = 0x700;
    pub const SET_REMAP_CONST_B: u32 = 0x704;
    pub const SET_REMAP_COMPONENTS: u32 = 0x708;
    pub const SET_DST_BLOCK_SIZE: u32 = 0x70C;
    pub const SET_DST_WIDTH: u32 = 0x710;
    pub const SET_DST_HEIGHT: u32 = 0x714;
    pub const SET_DST_DEPTH: u32 = 0x718;
    pub const SET_DST_LAYER: u32 = 0x71C;
    pub const SET_DST_ORIGIN: u32 = 0x720;
    pub const SET_SRC_BLOCK_SIZE: u32 = 0x728;
    pub const SET_SRC_WIDTH: u32 = 0x72C;
    pub const SET_SRC_HEIGHT: u32 = 0x730;
    pub const SET_SRC_DEPTH: u32 = 0x734;
    pub const SET_SRC_LAYER: u32 = 0x738;
    pub const SET_SRC_ORIGIN: u32 = 0x73C;
    pub const SRC_ORIGIN_X: u32 = 0x744;
    pub const SRC_ORIGIN_Y: u32 = 0x748;
    pub const DST_ORIGIN_X: u32 = 0x74C;
    pub const DST_ORIGIN_Y: u32 = 0x750;
    pub const PM_TRIGGER_END: u32 = 0x1114;
}

/// The registers of one surface side.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct SurfaceRegs {
    offset_upper: u32,
    offset_lower: u32,
    pitch: u32,
    block_size: u32,
    width: u32,
    height: u32,
    depth: u32,
    layer: u32,
    origin_x: u32,
    origin_y: u32,
    phys_mode: u32,
}

impl SurfaceRegs {
    fn base(&self) -> u64 {
        ((self.offset_upper as u64 & 0x1_FFFF) << 32) | self.offset_lower as u64
    }
}

/// All method state of the engine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Registers {
    semaphore_a: u32,
    semaphore_b: u32,
    semaphore_payload: u32,
    render_enable_a: u32,
    render_enable_b: u32,
    render_enable_c: u32,
    src: SurfaceRegs,
    dst: SurfaceRegs,
    line_length_in: u32,
    line_count: u32,
    remap_const_a: u32,
    remap_const_b: u32,
    remap_components: u32,
}

impl Default for Registers {
    fn default() -> Self {
        Registers {
            semaphore_a: 0,
            semaphore_b: 0,
            semaphore_payload: 0,
            render_enable_a: 0,
            render_enable_b: 0,
            // MODE_TRUE: copies run unless the stream asks for conditional rendering.
            render_enable_c: 1,
            src: SurfaceRegs::default(),
            dst: SurfaceRegs::default(),
            line_length_in: 0,
            line_count: 0,
            remap_const_a: 0,
            remap_const_b: 0,
            remap_components: 0,
        }
    }
}

/// LAUNCH_DMA (0x300), decoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaunchDma {
    /// DATA_TRANSFER_TYPE != NONE.
    pub transfer: bool,
    pub semaphore: SemaphoreType,
    pub src_pitch: bool,
    pub dst_pitch: bool,
    pub multi_line: bool,
    pub remap: bool,
    pub reduction: Option<SemaphoreReduction>,
}

fn bad(field: &'static str, value: u32) -> CopyError {
    CopyError::BadField {
        method: "LAUNCH_DMA",
        field,
        value,
    }
}

impl LaunchDma {
    /// Decodes the word, refusing undefined values and features this emulator does not model.
    pub fn decode(word: u32) -> Result<LaunchDma, CopyError> {
        let bits = |lo: u32, n: u32| (word >> lo) & ((1 << n) - 1);
        let transfer = match bits(0, 2) {
            0 => false,
            1 | 2 => true, // PIPELINED / NON_PIPELINED: the same on an engine that finishes each launch
            v => return Err(bad("DATA_TRANSFER_TYPE", v)),
        };
        // FLUSH_ENABLE (2) and FLUSH_TYPE (25): every write is visible at once here.
        let semaphore = match bits(3, 2) {
            0 => SemaphoreType::None,
            1 => SemaphoreType::OneWord,
            2 => SemaphoreType::FourWord,
            _ => {
                return Err(CopyError::Unsupported(
                    "LAUNCH_DMA SEMAPHORE_TYPE RELEASE_CONDITIONAL_INTR_SEMAPHORE",
                ))
            }
        };
        match bits(5, 2) {
            0 => {}
            1 | 2 => {
                return Err(CopyError::Unsupported(
                    "LAUNCH_DMA INTERRUPT_TYPE BLOCKING/NON_BLOCKING",
                ))
            }
            v => return Err(bad("INTERRUPT_TYPE", v)),
        }
        if bits(12, 1) != 0 {
            return Err(CopyError::Unsupported("LAUNCH_DMA SRC_TYPE PHYSICAL"));
        }
        if bits(13, 1) != 0 {
            return Err(CopyError::Unsupported("LAUNCH_DMA DST_TYPE PHYSICAL"));
        }
        let reduction = if bits(19, 1) != 0 {
            let op = bits(14, 4);
            let r = match op {
                0xA => SemaphoreReduction::FloatAdd,
                _ => match ReductionOp::from_field(op) {
                    Some(op) => {
                        SemaphoreReduction::Integer(op, ReductionFormat::from_bit(bits(18, 1)))
                    }
                    None => return Err(bad("SEMAPHORE_REDUCTION", op)),
                },
            };
            if semaphore == SemaphoreType::None {
                return Err(CopyError::BadField {
                    method: "LAUNCH_DMA",
                    field: "SEMAPHORE_REDUCTION_ENABLE without SEMAPHORE_TYPE",
                    value: 1,
                });
            }
            Some(r)
        } else {
            None
        };
        match bits(22, 2) {
            0 => {}
            1 => return Err(CopyError::Unsupported("LAUNCH_DMA VPRMODE VID2VID")),
            v => return Err(bad("VPRMODE", v)),
        }
        // FORCE_RMWDISABLE (11), RESERVED_START_OF_COPY (24), DISABLE_PLC (26) and RESERVED_ERR_CODE
        // (31:28) change nothing an emulator can observe.
        Ok(LaunchDma {
            transfer,
            semaphore,
            src_pitch: bits(7, 1) != 0,
            dst_pitch: bits(8, 1) != 0,
            multi_line: bits(9, 1) != 0,
            remap: bits(10, 1) != 0,
            reduction,
        })
    }
}

/// The DMA copy engine.
#[derive(Clone, Debug)]
pub struct DmaCopy {
    regs: Registers,
    sectors: SectorLayout,
}

impl DmaCopy {
    /// An engine whose block-linear surfaces use `sectors` inside each GOB.
    pub fn new(sectors: SectorLayout) -> Self {
        DmaCopy {
            regs: Registers::default(),
            sectors,
        }
    }

    /// The sector order in use.
    pub fn sector_layout(&self) -> SectorLayout {
        self.sectors
    }

    /// Stores a method's data word; false for an offset the class does not define.
    fn store(&mut self, method: u32, data: u32) -> bool {
        use method::*;
        let r = &mut self.regs;
        match method {
            NOP | PM_TRIGGER | PM_TRIGGER_END => {}
            SET_SEMAPHORE_A => r.semaphore_a = data,
            SET_SEMAPHORE_B => r.semaphore_b = data,
            SET_SEMAPHORE_PAYLOAD => r.semaphore_payload = data,
            SET_RENDER_ENABLE_A => r.render_enable_a = data,
            SET_RENDER_ENABLE_B => r.render_enable_b = data,
            SET_RENDER_ENABLE_C => r.render_enable_c = data,
            SET_SRC_PHYS_MODE => r.src.phys_mode = data,
            SET_DST_PHYS_MODE => r.dst.phys_mode = data,
            OFFSET_IN_UPPER => r.src.offset_upper = data,
            OFFSET_IN_LOWER => r.src.offset_lower = data,
            OFFSET_OUT_UPPER => r.dst.offset_upper = data,
            OFFSET_OUT_LOWER => r.dst.offset_lower = data,
            PITCH_IN => r.src.pitch = data,
            PITCH_OUT => r.dst.pitch = data,
            LINE_LENGTH_IN => r.line_length_in = data,
            LINE_COUNT => r.line_count = data,
            SET_REMAP_CONST_A => r.remap_const_a = data,
            SET_REMAP_CONST_B => r.remap_const_b = data,
            SET_REMAP_COMPONENTS => r.remap_components = data,
            SET_DST_BLOCK_SIZE => r.dst.block_size = data,
            SET_DST_WIDTH => r.dst.width = data,
            SET_DST_HEIGHT => r.dst.height = data,
            SET_DST_DEPTH => r.dst.depth = data,
            SET_DST_LAYER => r.dst.layer = data,
            // The packed and the 32-bit origin registers set the same origin; the last write wins.
            SET_DST_ORIGIN => (r.dst.origin_x, r.dst.origin_y) = (data & 0xFFFF, data >> 16),
            DST_ORIGIN_X => r.dst.origin_x = data,
            DST_ORIGIN_Y => r.dst.origin_y = data,
            SET_SRC_BLOCK_SIZE => r.src.block_size = data,
            SET_SRC_WIDTH => r.src.width = data,
            SET_SRC_HEIGHT => r.src.height = data,
            SET_SRC_DEPTH => r.src.depth = data,
            SET_SRC_LAYER => r.src.layer = data,
            SET_SRC_ORIGIN => (r.src.origin_x, r.src.origin_y) = (data & 0xFFFF, data >> 16),
            SRC_ORIGIN_X => r.src.origin_x = data,
            SRC_ORIGIN_Y => r.src.origin_y = data,
            _ => return false,
        }
        true
    }

    /// One side of the copy: `elements` × `element_bytes` bytes per line, `rows` lines.
    fn placement(
        &self,
        side: Side,
        pitch_layout: bool,
        element_bytes: u32,
        elements: u32,
        rows: u32,
    ) -> Result<Placement, CopyError> {
        let s = match side {
            Side::Source => &self.regs.src,
            Side::Destination => &self.regs.dst,
        };
        let row_bytes = elements as u64 * element_bytes as u64;
        let shape = if pitch_layout {
            Shape::Pitch {
                pitch: s.pitch as i32 as i64,
            }
        } else {
            let layout_error = |error| CopyError::Layout { side, error };
            let width_field = s.block_size & 0xF;
            if width_field != 0 {
                return Err(layout_error(LayoutError::BlockWidth(width_field)));
            }
            let gob_height = (s.block_size >> 12) & 0xF;
            if gob_height != 1 {
                return Err(layout_error(LayoutError::GobHeight(gob_height)));
            }
            let width_bytes =
                u32::try_from(s.width as u64 * element_bytes as u64).map_err(|_| {
                    layout_error(LayoutError::ElementOverflow {
                        elements: s.width as u64,
                        element_bytes,
                    })
                })?;
            let layout = BlockLinearLayout::new(
                width_bytes,
                s.height,
                s.depth,
                (s.block_size >> 4) & 0xF,
                (s.block_size >> 8) & 0xF,
                self.sectors,
            )
            .map_err(layout_error)?;
            let region = Region::from_elements(
                s.origin_x,
                s.origin_y,
                s.layer,
                elements,
                rows,
                element_bytes,
            )
            .map_err(layout_error)?;
            layout.check_region(&region).map_err(layout_error)?;
            Shape::BlockLinear { layout, region }
        };
        Ok(Placement {
            side,
            base: s.base(),
            shape,
            row_bytes,
            rows: rows as u64,
        })
    }

    /// Carries out LAUNCH_DMA: everything is validated, then the copy is written, then the semaphore.
    fn launch(
        &mut self,
        memory: &mut GpuMemory,
        clock: &mut dyn Clock,
        word: u32,
    ) -> Result<(), CopyError> {
        let launch = LaunchDma::decode(word)?;
        match self.regs.render_enable_c & 7 {
            1 => {}
            0 => {
                return Err(CopyError::Unsupported(
                    "SET_RENDER_ENABLE_C MODE FALSE (launches skipped by render enable)",
                ))
            }
            2..=4 => {
                return Err(CopyError::Unsupported(
                    "SET_RENDER_ENABLE_C conditional modes",
                ))
            }
            v => {
                return Err(CopyError::BadField {
                    method: "SET_RENDER_ENABLE_C",
                    field: "MODE",
                    value: v,
                })
            }
        }
        let semaphore_va =
            ((self.regs.semaphore_a as u64 & 0x1_FFFF) << 32) | self.regs.semaphore_b as u64;
        let release = CheckedSemaphore::check(
            memory,
            semaphore_va,
            self.regs.semaphore_payload,
            launch.semaphore,
            launch.reduction,
        )?;
        if launch.transfer {
            self.copy(memory, &launch)?;
        }
        if let Some(release) = release {
            release.perform(memory, clock)?;
        }
        Ok(())
    }

    fn copy(&self, memory: &mut GpuMemory, launch: &LaunchDma) -> Result<(), CopyError> {
        let remap = if launch.remap {
            Some(Remap::decode(
                self.regs.remap_components,
                self.regs.remap_const_a,
                self.regs.remap_const_b,
            )?)
        } else {
            None
        };
        let (src_element, dst_element) = match &remap {
            Some(r) => (r.src_element_bytes(), r.dst_element_bytes()),
            None => (1, 1),
        };
        let elements = self.regs.line_length_in;
        // Without MULTI_LINE_ENABLE only the X extent is used: one line.
        let rows = if launch.multi_line {
            self.regs.line_count
        } else {
            1
        };
        if elements == 0 || rows == 0 {
            return Ok(());
        }
        let dst = self.placement(
            Side::Destination,
            launch.dst_pitch,
            dst_element,
            elements,
            rows,
        )?;
        let work = (dst.row_bytes + LINE_COST).saturating_mul(dst.rows);
        if work > WRITE_LIMIT {
            return Err(CopyError::TooLarge {
                bytes: work,
                limit: WRITE_LIMIT,
            });
        }
        // Lines that all land on the same bytes (pitch 0): only the last one's bytes remain.
        let last_line_only = matches!(dst.shape, Shape::Pitch { pitch: 0 }) && rows > 1;
        if let Some(fill) = remap.filter(|r| !r.reads_source()) {
            // A constant fill: the source registers are neither decoded nor read.
            if dst.row_bytes > STAGING_LIMIT {
                return Err(CopyError::TooLarge {
                    bytes: dst.row_bytes,
                    limit: STAGING_LIMIT,
                });
            }
            let (line, mask) = fill.fill_line(elements as usize);
            dst.check_writable(memory, mask.as_deref())?;
            let dst = if last_line_only {
                dst.band(rows as u64 - 1, 1)?
            } else {
                dst
            };
            return dst.scatter(memory, RowSource::Repeat(&line), mask.as_deref());
        }
        let src = self.placement(Side::Source, launch.src_pitch, src_element, elements, rows)?;
        // At least one line of each side is staged (and a byte mask of a destination line).
        let row_bytes = src.row_bytes.max(dst.row_bytes).max(1);
        if row_bytes > STAGING_LIMIT {
            return Err(CopyError::TooLarge {
                bytes: row_bytes,
                limit: STAGING_LIMIT,
            });
        }
        let remap = remap.filter(|r| !r.is_identity());
        let mask = remap.and_then(|r| r.line_mask(elements as usize));
        // Everything is validated before the first write: a later band cannot fail halfway.
        src.check_readable(memory)?;
        dst.check_writable(memory, mask.as_deref())?;
        // Bands of rows keep the staging buffer small and cache-resident. When the source and the
        // destination may share host bytes (overlapping or aliased), the whole source is staged first
        // so the copy behaves as if it were read before anything is written.
        let band_rows = if last_line_only {
            // Only the last line is moved, and nothing is written before it is read.
            1
        } else if src.may_share_bytes_with(&dst, memory) {
            let total = row_bytes.saturating_mul(rows as u64);
            if total > STAGING_LIMIT {
                return Err(CopyError::TooLarge {
                    bytes: total,
                    limit: STAGING_LIMIT,
                });
            }
            rows as u64
        } else {
            // Whole GOB rows (multiples of 8 lines) so block-linear bands keep the whole-GOB path.
            let fit = (BAND_BYTES / row_bytes).max(1);
            (if fit >= 8 { fit / 8 * 8 } else { fit }).min(rows as u64)
        };
        let mut staged = vec![0u8; (src.row_bytes * band_rows) as usize];
        let mut first = if last_line_only { rows as u64 - 1 } else { 0 };
        while first < rows as u64 {
            let n = band_rows.min(rows as u64 - first);
            let (src_band, dst_band) = (src.band(first, n)?, dst.band(first, n)?);
            let staged = &mut staged[..(src.row_bytes * n) as usize];
            src_band.gather(memory, staged)?;
            match remap {
                Some(r) => {
                    let (data, _) = r.apply(staged, n as usize, elements as usize);
                    dst_band.scatter(memory, RowSource::Rows(&data), mask.as_deref())?;
                }
                None => dst_band.scatter(memory, RowSource::Rows(staged), None)?,
            }
            first += n;
        }
        Ok(())
    }
}

impl Engine for DmaCopy {
    fn class(&self) -> u32 {
        AMPERE_DMA_COPY_A
    }

    fn name(&self) -> &'static str {
        "AMPERE_DMA_COPY_A"
    }

    fn method(
        &mut self,
        ctx: &mut EngineContext<'_>,
        method: u32,
        data: u32,
    ) -> Result<MethodOutcome, EngineError> {
        if method == method::LAUNCH_DMA {
            self.launch(ctx.memory, ctx.clock, data)?;
        } else if !self.store(method, data) {
            return Err(EngineError::UnknownMethod);
        }
        Ok(MethodOutcome::Done)
    }
}

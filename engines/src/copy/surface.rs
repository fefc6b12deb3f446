//! Where the lines of a copy lie in GPU memory: a pitch surface (line r at `base + r × pitch`, origins
//! ignored as on hardware) or a region of a block-linear surface. Reading gathers the lines into a
//! staging buffer; writing is validated in full before the first byte moves.
//!
//! When the bytes a surface touches lie inside one mapping, the loops run directly on the host storage
//! (the block-linear ones through [`crate::layout::tile`] / [`crate::layout::untile`]); otherwise every
//! contiguous run goes through the mapper.

use crate::layout::{self, BlockLinearLayout, Region};
use crate::memory::{Access, GpuMemory, MemoryError, VA_LIMIT};

use super::error::{CopyError, Side};

/// How the lines of one side are laid out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// Line r starts at `base + r × pitch` (pitch may be negative: a vertical flip).
    Pitch { pitch: i64 },
    /// The lines are the rows of `region` in `layout`, whose first byte is at `base`.
    BlockLinear {
        layout: BlockLinearLayout,
        region: Region,
    },
}

/// One side of a copy: `rows` lines of `row_bytes` bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Placement {
    pub side: Side,
    pub base: u64,
    pub shape: Shape,
    pub row_bytes: u64,
    pub rows: u64,
}

/// Where the bytes of each line come from when writing.
#[derive(Clone, Copy)]
pub enum RowSource<'a> {
    /// Line r is `data[r × row_bytes ..][.. row_bytes]`.
    Rows(&'a [u8]),
    /// Every line is this one (constant fills).
    Repeat(&'a [u8]),
}

impl RowSource<'_> {
    fn row(&self, r: u64, row_bytes: u64) -> &[u8] {
        match self {
            RowSource::Rows(d) => &d[(r * row_bytes) as usize..((r + 1) * row_bytes) as usize],
            RowSource::Repeat(d) => d,
        }
    }
    fn pitch(&self, row_bytes: u64) -> usize {
        match self {
            RowSource::Rows(_) => row_bytes as usize,
            RowSource::Repeat(_) => 0,
        }
    }
}

impl Placement {
    /// Start address of pitch line `r`, or an error when it leaves the address space.
    fn pitch_line(&self, pitch: i64, r: u64) -> Result<u64, CopyError> {
        let va = self.base as i128 + pitch as i128 * r as i128;
        if va < 0 || va + self.row_bytes as i128 > VA_LIMIT as i128 {
            return Err(CopyError::AddressOverflow {
                side: self.side,
                line: r,
            });
        }
        Ok(va as u64)
    }

    /// The lowest address and the length of the span holding every byte the placement touches.
    fn span(&self) -> Result<(u64, u64), CopyError> {
        match self.shape {
            Shape::Pitch { pitch } => {
                let first = self.pitch_line(pitch, 0)?;
                let last = self.pitch_line(pitch, self.rows - 1)?;
                let lo = first.min(last);
                Ok((lo, first.max(last) + self.row_bytes - lo))
            }
            Shape::BlockLinear { layout, region } => {
                let lo = layout::region_start(&layout, &region);
                let end = layout::tiled_extent(&layout, &region);
                let va_lo = self.base.checked_add(lo);
                let va_end = self.base.checked_add(end);
                match (va_lo, va_end) {
                    (Some(a), Some(b)) if b <= VA_LIMIT => Ok((a, b - a)),
                    _ => Err(CopyError::Memory(MemoryError::OutOfRange {
                        va: self.base,
                        len: end,
                    })),
                }
            }
        }
    }

    fn is_empty(&self) -> bool {
        self.rows == 0 || self.row_bytes == 0
    }

    /// Calls `f(va, line, offset_in_line, len)` for each contiguous run, line by line.
    fn runs(
        &self,
        mut f: impl FnMut(u64, u64, u64, u64) -> Result<(), CopyError>,
    ) -> Result<(), CopyError> {
        if self.is_empty() {
            return Ok(());
        }
        match self.shape {
            Shape::Pitch { pitch } => {
                for r in 0..self.rows {
                    f(self.pitch_line(pitch, r)?, r, 0, self.row_bytes)?;
                }
                Ok(())
            }
            Shape::BlockLinear { layout, region } => {
                self.span()?; // the whole region lies inside the address space
                let mut result = Ok(());
                layout::for_each_run(&layout, &region, self.row_bytes, |t, lin, n| {
                    if result.is_ok() {
                        result = f(
                            self.base + t,
                            lin / self.row_bytes,
                            lin % self.row_bytes,
                            n as u64,
                        );
                    }
                });
                result
            }
        }
    }

    /// Lines `first .. first + n` of this placement as a placement of their own.
    pub fn band(&self, first: u64, n: u64) -> Result<Placement, CopyError> {
        let (base, shape) = match self.shape {
            Shape::Pitch { pitch } => (self.pitch_line(pitch, first)?, self.shape),
            Shape::BlockLinear { layout, region } => {
                let y = region.y + first as u32; // first < rows = region.height: no overflow
                (
                    self.base,
                    Shape::BlockLinear {
                        layout,
                        region: Region {
                            y,
                            height: n as u32,
                            ..region
                        },
                    },
                )
            }
        };
        Ok(Placement {
            base,
            shape,
            rows: n,
            ..*self
        })
    }

    /// Validates that every byte the lines cover may be read.
    pub fn check_readable(&self, memory: &GpuMemory) -> Result<(), CopyError> {
        self.check_access(memory, Access::READ, None)
    }

    /// Whether some host byte behind this placement's span may also lie behind `other`'s span (the
    /// same GPU addresses, or two mappings of one storage). Conservative: many pieces count as "may".
    pub fn may_share_bytes_with(&self, other: &Placement, memory: &GpuMemory) -> bool {
        if self.is_empty() || other.is_empty() {
            return false;
        }
        let (Ok((a, an)), Ok((b, bn))) = (self.span(), other.span()) else {
            return true;
        };
        let (Ok(pa), Ok(pb)) = (
            memory.pieces(a, an, Access::NONE),
            memory.pieces(b, bn, Access::NONE),
        ) else {
            return true;
        };
        if pa.len() * pb.len() > 4096 {
            return true;
        }
        pa.iter().any(|x| {
            pb.iter().any(|y| {
                x.storage == y.storage && x.host.start < y.host.end && y.host.start < x.host.end
            })
        })
    }

    /// Reads every line into `out` (line r at `r × row_bytes`). Fails, having written nothing anywhere,
    /// if any byte is not readable.
    pub fn gather(&self, memory: &GpuMemory, out: &mut [u8]) -> Result<(), CopyError> {
        if self.is_empty() {
            return Ok(());
        }
        let (lo, len) = self.span()?;
        if let Some((storage, host)) = memory.contiguous(lo, len, Access::READ)? {
            let bytes = &memory.storage(storage)?[host];
            let at = |va: u64| (va - lo) as usize;
            match self.shape {
                Shape::Pitch { pitch } => {
                    let n = self.row_bytes as usize;
                    for r in 0..self.rows {
                        let src = at(self.pitch_line(pitch, r)?);
                        out[r as usize * n..][..n].copy_from_slice(&bytes[src..src + n]);
                    }
                }
                Shape::BlockLinear { layout, region } => {
                    // `bytes` starts at the region's first GOB (surface byte `lo - base`).
                    layout::untile_from(
                        &layout,
                        bytes,
                        lo - self.base,
                        &region,
                        out,
                        self.row_bytes as usize,
                    )
                    .map_err(|error| CopyError::Layout {
                        side: self.side,
                        error,
                    })?;
                }
            }
            return Ok(());
        }
        let row = self.row_bytes;
        self.runs(|va, r, off, n| {
            let start = (r * row + off) as usize;
            memory.read(va, &mut out[start..start + n as usize])?;
            Ok(())
        })
    }

    /// Validates that every byte the lines cover may be written (`mask`, when given, names the bytes
    /// of a line that are written at all).
    pub fn check_writable(
        &self,
        memory: &GpuMemory,
        mask: Option<&[bool]>,
    ) -> Result<(), CopyError> {
        self.check_access(memory, Access::WRITE, mask)
    }

    fn check_access(
        &self,
        memory: &GpuMemory,
        needed: Access,
        mask: Option<&[bool]>,
    ) -> Result<(), CopyError> {
        if self.is_empty() {
            return Ok(());
        }
        let (lo, len) = self.span()?;
        if memory.contiguous(lo, len, needed)?.is_some() {
            return Ok(());
        }
        // Merge runs that continue one another so adjacent 16-byte pieces cost one lookup.
        let mut pending: Option<(u64, u64)> = None;
        self.runs(|va, _, off, n| {
            for (a, b) in masked_subruns(mask, off, n) {
                let (va, n) = (va + (a - off), b - a);
                match pending {
                    Some((p, pn)) if p + pn == va => pending = Some((p, pn + n)),
                    Some((p, pn)) => {
                        memory.check(p, pn, needed)?;
                        pending = Some((va, n));
                    }
                    None => pending = Some((va, n)),
                }
            }
            Ok(())
        })?;
        if let Some((p, pn)) = pending {
            memory.check(p, pn, needed)?;
        }
        Ok(())
    }

    /// Writes every line from `source`; bytes whose `mask` entry is false are left alone. Call
    /// [`Self::check_writable`] first: this validates again but a failure midway is only possible if it
    /// was skipped.
    pub fn scatter(
        &self,
        memory: &mut GpuMemory,
        source: RowSource<'_>,
        mask: Option<&[bool]>,
    ) -> Result<(), CopyError> {
        if self.is_empty() {
            return Ok(());
        }
        let (lo, len) = self.span()?;
        if let Some((storage, host)) = memory.contiguous(lo, len, Access::WRITE)? {
            let bytes = &mut memory.storage_mut(storage)?[host];
            match (self.shape, mask) {
                (Shape::Pitch { pitch }, None) => {
                    let n = self.row_bytes as usize;
                    for r in 0..self.rows {
                        let dst = (self.pitch_line(pitch, r)? - lo) as usize;
                        bytes[dst..dst + n].copy_from_slice(source.row(r, self.row_bytes));
                    }
                }
                (Shape::BlockLinear { layout, region }, None) => {
                    let linear = match source {
                        RowSource::Rows(d) | RowSource::Repeat(d) => d,
                    };
                    let pitch = source.pitch(self.row_bytes);
                    layout::tile_into(&layout, linear, pitch, &region, bytes, lo - self.base)
                        .map_err(|error| CopyError::Layout {
                            side: self.side,
                            error,
                        })?;
                }
                (_, Some(mask)) => {
                    let row = self.row_bytes;
                    self.runs(|va, r, off, n| {
                        let line = source.row(r, row);
                        for (a, b) in masked_subruns(Some(mask), off, n) {
                            let dst = (va + (a - off) - lo) as usize;
                            bytes[dst..dst + (b - a) as usize]
                                .copy_from_slice(&line[a as usize..b as usize]);
                        }
                        Ok(())
                    })?;
                }
            }
            return Ok(());
        }
        let row = self.row_bytes;
        self.runs(|va, r, off, n| {
            let line = source.row(r, row);
            for (a, b) in masked_subruns(mask, off, n) {
                memory.write(va + (a - off), &line[a as usize..b as usize])?;
            }
            Ok(())
        })
    }
}

/// The sub-ranges of line bytes `off .. off + n` whose mask entry is true (all of it without a mask).
fn masked_subruns(
    mask: Option<&[bool]>,
    off: u64,
    n: u64,
) -> impl Iterator<Item = (u64, u64)> + '_ {
    let end = off + n;
    let mut at = off;
    std::iter::from_fn(move || {
        let Some(mask) = mask else {
            if at < end {
                at = end;
                return Some((off, end));
            }
            return None;
        };
        while at < end && !mask[at as usize] {
            at += 1;
        }
        if at >= end {
            return None;
        }
        let start = at;
        while at < end && mask[at as usize] {
            at += 1;
        }
        Some((start, at))
    })
}

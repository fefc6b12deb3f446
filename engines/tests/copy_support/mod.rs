//! Shared pieces of the copy-engine tests: an address space with a few windows, a deterministic clock,
//! and block-linear byte addresses computed here from the documented definition (not by the layout
//! module): GOB 64 B × 8 rows; sector grids as drawn in Mesa NIL (Turing 2D) and the DRM "16Bx2 in
//! Z-shape" text (Tegra); GOBs down a block column, then through depth; blocks row-major; slices of
//! blocks last.

#![allow(dead_code, clippy::manual_div_ceil)]

use sassport_engines::channel::{Engine, EngineContext, EngineError, MethodOutcome};
use sassport_engines::layout::SectorLayout;
use sassport_engines::memory::{Access, GpuMemory, StorageId};
use sassport_engines::semaphore::SteppingClock;

/// Window base addresses: bits above 32 set so the UPPER registers matter.
pub const SRC: u64 = 0x1_2340_0000;
pub const DST: u64 = 0x1_5670_0000;
pub const SEM: u64 = 0x1_9AB0_0000;
pub const WINDOW: u64 = 1 << 20;

const TEGRA_GRID: [[u64; 4]; 4] = [[0, 1, 8, 9], [2, 3, 10, 11], [4, 5, 12, 13], [6, 7, 14, 15]];
const TURING_GRID: [[u64; 4]; 4] = [[0, 2, 8, 10], [1, 3, 9, 11], [4, 6, 12, 14], [5, 7, 13, 15]];

/// A block-linear surface as the test understands it.
#[derive(Clone, Copy, Debug)]
pub struct BlSurface {
    pub width_bytes: u64,
    pub height: u64,
    pub depth: u64,
    pub block_h: u32,
    pub block_d: u32,
    pub sectors: SectorLayout,
}

impl BlSurface {
    /// Byte address of byte x of row y of slice z, from the surface's first byte.
    pub fn address(&self, x: u64, y: u64, z: u64) -> u64 {
        let grid = match self.sectors {
            SectorLayout::Tegra16Bx2 => TEGRA_GRID,
            SectorLayout::Turing2D => TURING_GRID,
        };
        let (gh, gd) = (1u64 << self.block_h, 1u64 << self.block_d);
        let gobs_wide = (self.width_bytes + 63) / 64;
        let blocks_high = ((self.height + 7) / 8 + gh - 1) / gh;
        let (gx, gy) = (x / 64, y / 8);
        let block = ((z / gd) * blocks_high + gy / gh) * gobs_wide + gx;
        let gob = block * gh * gd + (z % gd) * gh + gy % gh;
        let (ix, iy) = (x % 64, y % 8);
        gob * 512 + grid[(iy / 2) as usize][(ix / 16) as usize] * 32 + (iy % 2) * 16 + ix % 16
    }

    pub fn size(&self) -> u64 {
        let (gh, gd) = (1u64 << self.block_h, 1u64 << self.block_d);
        ((self.width_bytes + 63) / 64)
            * (((self.height + 7) / 8 + gh - 1) / gh)
            * ((self.depth + gd - 1) / gd)
            * 512
            * gh
            * gd
    }

    /// SET_*_BLOCK_SIZE word: WIDTH one GOB, HEIGHT, DEPTH, GOB_HEIGHT_FERMI_8.
    pub fn block_size_word(&self) -> u32 {
        (self.block_h << 4) | (self.block_d << 8) | (1 << 12)
    }
}

/// Bytes with a recognisable pattern, different for each seed.
pub fn pattern(len: usize, seed: u64) -> Vec<u8> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect()
}

/// An address space with source, destination and semaphore windows, each its own storage.
pub struct Rig {
    pub memory: GpuMemory,
    pub clock: SteppingClock,
    pub src: StorageId,
    pub dst: StorageId,
    pub sem: StorageId,
}

impl Rig {
    pub fn new() -> Self {
        let mut memory = GpuMemory::new();
        let src = memory.add_storage(pattern(WINDOW as usize, 1));
        let dst = memory.add_storage(pattern(WINDOW as usize, 2));
        let sem = memory.add_storage(vec![0xCD; 4096]);
        memory.map(SRC, WINDOW, src, 0, Access::READ_WRITE).unwrap();
        memory.map(DST, WINDOW, dst, 0, Access::READ_WRITE).unwrap();
        memory.map(SEM, 4096, sem, 0, Access::READ_WRITE).unwrap();
        Rig {
            memory,
            clock: SteppingClock::new(0x1111_2222_3333_0000, 0x100),
            src,
            dst,
            sem,
        }
    }

    pub fn call(
        &mut self,
        engine: &mut dyn Engine,
        method: u32,
        data: u32,
    ) -> Result<MethodOutcome, EngineError> {
        let mut ctx = EngineContext {
            memory: &mut self.memory,
            clock: &mut self.clock,
        };
        engine.method(&mut ctx, method, data)
    }

    /// Calls each (method, data) in order, panicking on the first failure.
    pub fn run(&mut self, engine: &mut dyn Engine, calls: &[(u32, u32)]) {
        for &(m, d) in calls {
            self.call(engine, m, d)
                .unwrap_or_else(|e| panic!("method {m:#x} data {d:#x}: {e}"));
        }
    }

    pub fn bytes(&self, id: StorageId) -> Vec<u8> {
        self.memory.storage(id).unwrap().to_vec()
    }
}

pub fn hi(va: u64) -> u32 {
    (va >> 32) as u32
}
pub fn lo(va: u64) -> u32 {
    va as u32
}

//! A channel on a small address space, and stream building from the header formulas of NVK's
//! nv_push.h (`shared/notes/command-engines.md` §1.2).

#![allow(dead_code)]

use sassport_engines::channel::{
    Channel, ChannelHalt, Engine, EngineContext, EngineError, MethodOutcome, WaitReason,
};
use sassport_engines::memory::{Access, GpuMemory};
use sassport_engines::semaphore::SteppingClock;
use sassport_pushbuffer::Fed;
use std::cell::RefCell;
use std::rc::Rc;

/// GPU VA of the semaphore page: bits 39:32 non-zero so the upper address fields matter.
pub const SEM: u64 = 0x12_0000_1000;

pub fn inc(subc: u32, mthd: u32, count: u32) -> u32 {
    0x2000_0000 + (count << 16) + (subc << 13) + (mthd >> 2)
}
pub fn imm(subc: u32, mthd: u32, data: u32) -> u32 {
    0x8000_0000 + (data << 16) + (subc << 13) + (mthd >> 2)
}
pub fn non_inc(subc: u32, mthd: u32, count: u32) -> u32 {
    0x6000_0000 + (count << 16) + (subc << 13) + (mthd >> 2)
}

/// `inc(0, m, 1), v` for each pair: one single-word header per method, as nvgpu emits.
pub fn methods(pairs: &[(u32, u32)]) -> Vec<u32> {
    pairs.iter().flat_map(|&(m, v)| [inc(0, m, 1), v]).collect()
}

pub fn bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// What a [`Recorder`] engine saw.
#[derive(Default, Debug)]
pub struct Log {
    pub calls: Vec<(u32, u32)>,
    /// Remaining number of times to answer Wait.
    pub waits: u32,
    /// Method that fails with Invalid.
    pub fail_method: Option<u32>,
    pub busy: bool,
}

/// A test engine class that records its methods.
pub struct Recorder {
    pub class: u32,
    pub log: Rc<RefCell<Log>>,
}

impl Engine for Recorder {
    fn class(&self) -> u32 {
        self.class
    }
    fn method(
        &mut self,
        _ctx: &mut EngineContext<'_>,
        method: u32,
        data: u32,
    ) -> Result<MethodOutcome, EngineError> {
        let mut log = self.log.borrow_mut();
        log.calls.push((method, data));
        if log.fail_method == Some(method) {
            return Err(EngineError::Invalid("test failure".into()));
        }
        if log.waits > 0 {
            log.waits -= 1;
            return Ok(MethodOutcome::Wait(WaitReason::EngineBusy {
                class: self.class,
            }));
        }
        Ok(MethodOutcome::Done)
    }
    fn is_idle(&self) -> bool {
        !self.log.borrow().busy
    }
}

pub struct Rig {
    pub memory: GpuMemory,
    pub channel: Channel,
    pub clock: SteppingClock,
    pub log: Rc<RefCell<Log>>,
}

impl Rig {
    /// Semaphore page at [`SEM`] (read/write, zeroed), and a recorder engine of class 0xC6B5.
    pub fn new() -> Self {
        let mut memory = GpuMemory::new();
        let s = memory.add_storage(vec![0; 0x1000]);
        memory.map(SEM, 0x1000, s, 0, Access::READ_WRITE).unwrap();
        let log = Rc::new(RefCell::new(Log::default()));
        let channel = Channel::new(vec![Box::new(Recorder {
            class: 0xC6B5,
            log: log.clone(),
        })]);
        Self {
            memory,
            channel,
            clock: SteppingClock::new(0x1111_2222_3333_0000, 0x10),
            log,
        }
    }

    pub fn feed(&mut self, words: &[u32]) -> Result<Fed, ChannelHalt> {
        let mut ctx = EngineContext {
            memory: &mut self.memory,
            clock: &mut self.clock,
        };
        self.channel.feed(&mut ctx, &bytes(words))
    }

    pub fn resume(&mut self) -> Result<Fed, ChannelHalt> {
        let mut ctx = EngineContext {
            memory: &mut self.memory,
            clock: &mut self.clock,
        };
        self.channel.feed(&mut ctx, &[])
    }

    pub fn bytes_at(&self, va: u64, n: usize) -> Vec<u8> {
        self.memory.read_vec(va, n).unwrap()
    }

    pub fn set(&mut self, va: u64, bytes: &[u8]) {
        self.memory.write(va, bytes).unwrap();
    }
}

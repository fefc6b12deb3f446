//! Host method byte offsets of AMPERE_CHANNEL_GPFIFO_A (0xC56F), from clc56f.h.

/// Class id of AMPERE_CHANNEL_GPFIFO_A.
pub const AMPERE_CHANNEL_GPFIFO_A: u32 = 0xC56F;
/// Methods below this byte offset are handled by Host; the rest go to the bound engine.
pub const FIRST_ENGINE_METHOD: u32 = 0x100;

pub const SET_OBJECT: u32 = 0x000;
pub const ILLEGAL: u32 = 0x004;
pub const NOP: u32 = 0x008;
pub const SEMAPHOREA: u32 = 0x010;
pub const SEMAPHOREB: u32 = 0x014;
pub const SEMAPHOREC: u32 = 0x018;
pub const SEMAPHORED: u32 = 0x01C;
pub const NON_STALL_INTERRUPT: u32 = 0x020;
pub const FB_FLUSH: u32 = 0x024;
pub const MEM_OP_A: u32 = 0x028;
pub const MEM_OP_B: u32 = 0x02C;
pub const MEM_OP_C: u32 = 0x030;
pub const MEM_OP_D: u32 = 0x034;
pub const SET_REFERENCE: u32 = 0x050;
pub const SEM_ADDR_LO: u32 = 0x05C;
pub const SEM_ADDR_HI: u32 = 0x060;
pub const SEM_PAYLOAD_LO: u32 = 0x064;
pub const SEM_PAYLOAD_HI: u32 = 0x068;
pub const SEM_EXECUTE: u32 = 0x06C;
pub const WFI: u32 = 0x078;
pub const YIELD: u32 = 0x080;
pub const CLEAR_FAULTED: u32 = 0x084;

/// The clc56f.h name of a host method, if `method` is one.
pub fn host_method_name(method: u32) -> Option<&'static str> {
    Some(match method {
        SET_OBJECT => "SET_OBJECT",
        ILLEGAL => "ILLEGAL",
        NOP => "NOP",
        SEMAPHOREA => "SEMAPHOREA",
        SEMAPHOREB => "SEMAPHOREB",
        SEMAPHOREC => "SEMAPHOREC",
        SEMAPHORED => "SEMAPHORED",
        NON_STALL_INTERRUPT => "NON_STALL_INTERRUPT",
        FB_FLUSH => "FB_FLUSH",
        MEM_OP_A => "MEM_OP_A",
        MEM_OP_B => "MEM_OP_B",
        MEM_OP_C => "MEM_OP_C",
        MEM_OP_D => "MEM_OP_D",
        SET_REFERENCE => "SET_REFERENCE",
        SEM_ADDR_LO => "SEM_ADDR_LO",
        SEM_ADDR_HI => "SEM_ADDR_HI",
        SEM_PAYLOAD_LO => "SEM_PAYLOAD_LO",
        SEM_PAYLOAD_HI => "SEM_PAYLOAD_HI",
        SEM_EXECUTE => "SEM_EXECUTE",
        WFI => "WFI",
        YIELD => "YIELD",
        CLEAR_FAULTED => "CLEAR_FAULTED",
        _ => return None,
    })
}

/// MEM_OP_D OPERATION (31:27) values.
pub mod mem_op {
    pub const MEMBAR: u32 = 0x05;
    pub const MMU_TLB_INVALIDATE: u32 = 0x09;
    pub const MMU_TLB_INVALIDATE_TARGETED: u32 = 0x0A;
    pub const L2_PEERMEM_INVALIDATE: u32 = 0x0D;
    pub const L2_SYSMEM_INVALIDATE: u32 = 0x0E;
    pub const L2_CLEAN_COMPTAGS: u32 = 0x0F;
    pub const L2_FLUSH_DIRTY: u32 = 0x10;
    pub const L2_WAIT_FOR_SYS_PENDING_READS: u32 = 0x15;
    pub const ACCESS_COUNTER_CLR: u32 = 0x16;
}

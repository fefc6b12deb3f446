//! Stream building for the tests: header words from the formulas NVK's nv_push.h uses
//! (`shared/notes/command-engines.md` §1.2), independent of `Header::encode`.

#![allow(dead_code)]

use sassport_pushbuffer::MethodCall;

/// PKHDR_SQ: incrementing.
pub fn inc(subc: u32, mthd_bytes: u32, count: u32) -> u32 {
    0x2000_0000 + (count << 16) + (subc << 13) + (mthd_bytes >> 2)
}
/// PKHDR_0I: non-incrementing.
pub fn non_inc(subc: u32, mthd_bytes: u32, count: u32) -> u32 {
    0x6000_0000 + (count << 16) + (subc << 13) + (mthd_bytes >> 2)
}
/// PKHDR_IL: immediate.
pub fn imm(subc: u32, mthd_bytes: u32, data: u32) -> u32 {
    0x8000_0000 + (data << 16) + (subc << 13) + (mthd_bytes >> 2)
}
/// PKHDR_1I: increment-once.
pub fn inc_once(subc: u32, mthd_bytes: u32, count: u32) -> u32 {
    0xA000_0000 + (count << 16) + (subc << 13) + (mthd_bytes >> 2)
}
/// END_PB_SEGMENT (SEC_OP 7).
pub const END_SEGMENT: u32 = 0xE000_0000;

pub fn bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// (subchannel, method, data) without offsets, for comparisons.
pub fn key(c: &MethodCall) -> (u8, u32, u32) {
    (c.subchannel, c.method, c.data)
}

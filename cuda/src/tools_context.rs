//! The private table 21318c60-9714-3248-8ca6-41ff7324c8f2 (the tools' context table: 94 slots after its size)
//! that the CUDA 13.5 runtime asks for when it first uses a context. Slots whose behaviour is known are
//! implemented; every other slot logs its number and arguments and returns CUDA_ERROR_NOT_SUPPORTED.

use crate::result::{CUresult, CUDA_ERROR_NOT_SUPPORTED};
use std::ffi::c_void;

extern "C" fn slot<const N: usize>(a0: usize, a1: usize, a2: usize, a3: usize) -> CUresult {
    crate::log::once(
        &format!("tools_context.{N}"),
        &format!("private table 21318c60 slot {N} is not provided"),
    );
    if crate::log::calls_enabled() {
        crate::log::line(&format!(
            "tools_context.{N}({a0:#x}, {a1:#x}, {a2:#x}, {a3:#x}) = CUDA_ERROR_NOT_SUPPORTED"
        ));
    }
    CUDA_ERROR_NOT_SUPPORTED
}

static TABLE: crate::export::Table<95> = crate::export::Table([
    (95 * 8) as *const c_void,
    slot::<1> as *const c_void,
    slot::<2> as *const c_void,
    slot::<3> as *const c_void,
    slot::<4> as *const c_void,
    slot::<5> as *const c_void,
    slot::<6> as *const c_void,
    slot::<7> as *const c_void,
    slot::<8> as *const c_void,
    slot::<9> as *const c_void,
    slot::<10> as *const c_void,
    slot::<11> as *const c_void,
    slot::<12> as *const c_void,
    slot::<13> as *const c_void,
    slot::<14> as *const c_void,
    slot::<15> as *const c_void,
    slot::<16> as *const c_void,
    slot::<17> as *const c_void,
    slot::<18> as *const c_void,
    slot::<19> as *const c_void,
    slot::<20> as *const c_void,
    slot::<21> as *const c_void,
    slot::<22> as *const c_void,
    slot::<23> as *const c_void,
    slot::<24> as *const c_void,
    slot::<25> as *const c_void,
    slot::<26> as *const c_void,
    slot::<27> as *const c_void,
    slot::<28> as *const c_void,
    slot::<29> as *const c_void,
    slot::<30> as *const c_void,
    slot::<31> as *const c_void,
    slot::<32> as *const c_void,
    slot::<33> as *const c_void,
    slot::<34> as *const c_void,
    slot::<35> as *const c_void,
    slot::<36> as *const c_void,
    slot::<37> as *const c_void,
    slot::<38> as *const c_void,
    slot::<39> as *const c_void,
    slot::<40> as *const c_void,
    slot::<41> as *const c_void,
    slot::<42> as *const c_void,
    slot::<43> as *const c_void,
    slot::<44> as *const c_void,
    slot::<45> as *const c_void,
    slot::<46> as *const c_void,
    slot::<47> as *const c_void,
    slot::<48> as *const c_void,
    slot::<49> as *const c_void,
    slot::<50> as *const c_void,
    slot::<51> as *const c_void,
    slot::<52> as *const c_void,
    slot::<53> as *const c_void,
    slot::<54> as *const c_void,
    slot::<55> as *const c_void,
    slot::<56> as *const c_void,
    slot::<57> as *const c_void,
    slot::<58> as *const c_void,
    slot::<59> as *const c_void,
    slot::<60> as *const c_void,
    slot::<61> as *const c_void,
    slot::<62> as *const c_void,
    slot::<63> as *const c_void,
    slot::<64> as *const c_void,
    slot::<65> as *const c_void,
    slot::<66> as *const c_void,
    slot::<67> as *const c_void,
    slot::<68> as *const c_void,
    slot::<69> as *const c_void,
    slot::<70> as *const c_void,
    slot::<71> as *const c_void,
    slot::<72> as *const c_void,
    slot::<73> as *const c_void,
    slot::<74> as *const c_void,
    slot::<75> as *const c_void,
    slot::<76> as *const c_void,
    slot::<77> as *const c_void,
    slot::<78> as *const c_void,
    slot::<79> as *const c_void,
    slot::<80> as *const c_void,
    slot::<81> as *const c_void,
    slot::<82> as *const c_void,
    slot::<83> as *const c_void,
    slot::<84> as *const c_void,
    slot::<85> as *const c_void,
    slot::<86> as *const c_void,
    slot::<87> as *const c_void,
    slot::<88> as *const c_void,
    slot::<89> as *const c_void,
    slot::<90> as *const c_void,
    slot::<91> as *const c_void,
    slot::<92> as *const c_void,
    slot::<93> as *const c_void,
    slot::<94> as *const c_void,
]);

pub fn table() -> *const c_void {
    TABLE.0.as_ptr().cast()
}

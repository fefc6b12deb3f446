//! Shared-memory accesses outside the block's shared memory are faults naming the instruction, the offset and
//! the size (SM86 raises an error there), not silent zeros and dropped stores: `shared_dynamic` (one float of
//! dynamic shared memory per thread, 256 threads) launched with 512 bytes instead of 1024 stores past the end
//! from thread 128 on.

mod common;

use sassport::kernel_run::{run_kernel, KernelArg, RunError};
use std::time::Duration;

#[test]
fn shared_store_past_the_end_is_a_fault() {
    let launches = sassport_corpus::launches().unwrap();
    let l = launches.iter().find(|l| l.kernel == "shared_dynamic").unwrap();
    assert_eq!(l.shared_bytes, 1024, "the manifest's launch changed");
    let bytes = std::fs::read(l.cubin_sm86()).unwrap();
    let args = KernelArg::of_launch(l);
    let mut rt = common::runtime(Duration::from_secs(120));
    let grid = [l.grid.x, l.grid.y, l.grid.z];
    let block = [l.block.x, l.block.y, l.block.z];
    // The full size runs; half of it faults.
    run_kernel(&mut rt, None, &bytes, &l.kernel, grid, block, 1024, &args).expect("the recorded launch runs");
    let err = match run_kernel(&mut rt, None, &bytes, &l.kernel, grid, block, 512, &args) {
        Ok(_) => panic!("a store past the dynamic shared memory must fault"),
        Err(RunError::Refused(r)) => panic!("refused: {r}"),
        Err(RunError::Other(e)) => format!("{e:#}"),
    };
    assert!(err.contains("store of 4 bytes at shared-memory offset 0x"), "a shared store fault: {err}");
    assert!(err.contains("outside the shared memory"), "{err}");
}

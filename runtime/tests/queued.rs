//! Queued launches (`Runtime::enqueue`) on lavapipe: each launch keeps its own parameters, launches run in
//! the order they were queued across batch boundaries, a fault in a batch is reported once it completed
//! (naming its kernel) and later batches run clean, serials and timestamps say what completed. Checked
//! against values computed here, under the validation layer where it is installed.

mod support;

use std::time::Duration;

use sassport_runtime::{
    DeviceSelector, Launch, MemoryMode, PipelineCacheLocation, Runtime, RuntimeError, RuntimeOptions,
};
use support::{bank0, store_gid_kernel, STORE_PC};

fn options(memory: MemoryMode) -> RuntimeOptions {
    support::test_env();
    let device = std::env::var("SASSPORT_TEST_DEVICE").unwrap_or_else(|_| "llvmpipe".into());
    RuntimeOptions {
        device: device.parse().unwrap_or(DeviceSelector::Default),
        window_bytes: Some(16 << 20),
        pipeline_cache: PipelineCacheLocation::Disabled,
        pipeline_timeout: Some(Duration::from_secs(60)),
        validation: true,
        memory,
        ..Default::default()
    }
}

fn assert_valid_usage(rt: &Runtime) {
    let messages = rt.validation_messages();
    assert!(messages.is_empty(), "validation layer:\n{}", messages.join("\n"));
}

const BLOCK: [u32; 3] = [32, 1, 1];

fn enqueue_store(rt: &mut Runtime, k: sassport_runtime::KernelId, ptr: u64, param: u32) -> u64 {
    let b0 = bank0([1, 1, 1], BLOCK, ptr, param);
    rt.enqueue(&Launch { kernel: k, grid: [1, 1, 1], block: BLOCK, dynamic_shared_bytes: 0, banks: &[(0, &b0)] })
        .unwrap()
        .serial
}

fn words(rt: &mut Runtime, buf: u64, n: usize) -> Vec<u32> {
    let mut out = vec![0u8; 4 * n];
    rt.download(buf, &mut out).unwrap();
    out.chunks_exact(4).map(|w| u32::from_le_bytes(w.try_into().unwrap())).collect()
}

#[test]
fn queued_launches_keep_their_parameters_and_order_across_batches() {
    for memory in [MemoryMode::Auto, MemoryMode::Staged] {
        let mut rt = Runtime::new(options(memory)).unwrap();
        let k = rt.load_kernel("store_gid", &store_gid_kernel()).unwrap();
        // 600 launches (more than two batches): launch i writes buffer i % 200 with parameter i, so each
        // buffer ends with the parameter of its last launch only if every launch ran, in order, with its own.
        let bufs: Vec<u64> = (0..200).map(|_| rt.alloc(4 * 32).unwrap()).collect();
        let mut serials = Vec::new();
        for i in 0..600u32 {
            serials.push(enqueue_store(&mut rt, k, bufs[i as usize % 200], i));
        }
        assert!(serials.windows(2).all(|w| w[0] <= w[1]), "serials never go back");
        rt.synchronize().unwrap();
        assert!(rt.is_complete(*serials.last().unwrap()).unwrap());
        let done = rt.take_completed();
        assert!(done.failure.is_none(), "{:?}", done.failure);
        for (j, &buf) in bufs.iter().enumerate() {
            let want: Vec<u32> = (0..32).map(|gid| gid * 3 + 400 + j as u32).collect();
            assert_eq!(words(&mut rt, buf, 32), want, "buffer {j} ({memory:?})");
        }
        assert_valid_usage(&rt);
    }
}

#[test]
fn a_fault_in_a_batch_is_reported_once_it_completed_and_the_next_batch_runs_clean() {
    for memory in [MemoryMode::Auto, MemoryMode::Staged] {
        let mut rt = Runtime::new(options(memory)).unwrap();
        let k = rt.load_kernel("store_gid", &store_gid_kernel()).unwrap();
        let buf = rt.alloc(4 * 32).unwrap();
        let below = rt.window_base() - 64;
        enqueue_store(&mut rt, k, buf, 1);
        enqueue_store(&mut rt, k, below, 2);
        enqueue_store(&mut rt, k, buf, 3);
        rt.synchronize().unwrap();
        match rt.take_completed().failure {
            Some(RuntimeError::Fault { kernel, pc, address, .. }) => {
                assert_eq!((kernel.as_str(), pc, address), ("store_gid", STORE_PC, below));
            }
            other => panic!("expected the queued fault, got {other:?}"),
        }
        // Taken: reported once. A clean batch afterwards has no failure.
        assert!(rt.take_completed().failure.is_none());
        enqueue_store(&mut rt, k, buf, 4);
        rt.synchronize().unwrap();
        assert!(rt.take_completed().failure.is_none());
        let want: Vec<u32> = (0..32).map(|gid| gid * 3 + 4).collect();
        assert_eq!(words(&mut rt, buf, 32), want);
        assert_valid_usage(&rt);
    }
}

#[test]
fn synchronous_calls_complete_queued_launches_first() {
    let mut rt = Runtime::new(options(MemoryMode::Auto)).unwrap();
    let k = rt.load_kernel("store_gid", &store_gid_kernel()).unwrap();
    let buf = rt.alloc(4 * 32).unwrap();
    let serial = enqueue_store(&mut rt, k, buf, 7);
    // download waits for the queued launch: no explicit synchronisation.
    let want: Vec<u32> = (0..32).map(|gid| gid * 3 + 7).collect();
    assert_eq!(words(&mut rt, buf, 32), want);
    assert!(rt.is_complete(serial).unwrap());
    // upload too: the queued launch's store comes before the upload's bytes.
    enqueue_store(&mut rt, k, buf, 8);
    rt.upload(buf, &[0u8; 4 * 32]).unwrap();
    assert_eq!(words(&mut rt, buf, 32), vec![0; 32]);
    assert_valid_usage(&rt);
}

#[test]
fn timestamps_follow_the_work_queued_before_them() {
    let mut rt = Runtime::new(options(MemoryMode::Auto)).unwrap();
    let k = rt.load_kernel("store_gid", &store_gid_kernel()).unwrap();
    let buf = rt.alloc(4 * 32).unwrap();
    let (_, first) = rt.enqueue_timestamp().unwrap();
    for i in 0..50 {
        enqueue_store(&mut rt, k, buf, i);
    }
    let (serial, second) = rt.enqueue_timestamp().unwrap();
    rt.wait_for(serial).unwrap();
    assert!(rt.is_complete(serial).unwrap());
    // lavapipe has timestamps; a device without them answers None for both.
    match (first, second) {
        (Some(a), Some(b)) => {
            let (a, b) = (rt.timestamp_ns(a).unwrap(), rt.timestamp_ns(b).unwrap());
            assert!(b >= a, "second timestamp {b} before the first {a}");
        }
        (None, None) => {}
        other => panic!("timestamps on one queue must agree: {other:?}"),
    }
    assert_valid_usage(&rt);
}

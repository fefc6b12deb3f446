//! Launch throughput through the driver API (issue 18): host time per launch for 10,000 back-to-back
//! `cuLaunchKernel`s of a kernel with no work (`bit_ops_const_shift` of the corpus with n = 0: every thread
//! returns at once) then one `cuCtxSynchronize`, on the default test device (lavapipe). The whole driver path
//! is measured: the lock, the parameter block, constant banks, the queued launch and the batch it joins.
//!
//! Issue 18's target: within 3x of native CUDA on the H200 (native: 3.5 us per empty launch, so about 10 us
//! through sassport on NVIDIA's Vulkan driver; corpus/programs/launch_throughput.cu measures the same in a
//! real program). On lavapipe the figure is bound by lavapipe's per-dispatch cost, not the driver's.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use cuda::context::{cuCtxSetCurrent, cuCtxSynchronize, cuDevicePrimaryCtxRetain};
use cuda::device::cuInit;
use cuda::launch::cuLaunchKernel;
use cuda::module::{cuModuleGetFunction, cuModuleLoadData};
use std::ffi::c_void;

const N: u64 = 10_000;

fn check(what: &str, code: i32) {
    assert_eq!(code, 0, "{what} failed with CUresult {code}");
}

fn bench_launches(c: &mut Criterion) {
    let device = std::env::var("SASSPORT_TEST_DEVICE").unwrap_or_else(|_| "llvmpipe".into());
    // SAFETY: set before the driver (or any other thread) reads the environment.
    unsafe { std::env::set_var(cuda::state::DEVICE_ENV, device) };
    let cubin = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/../corpus/sm86/bit_ops.cubin")).unwrap();
    let (mut ctx, mut module, mut func) = (0usize, 0usize, 0usize);
    unsafe {
        check("cuInit", cuInit(0));
        check("cuDevicePrimaryCtxRetain", cuDevicePrimaryCtxRetain(&mut ctx, 0));
        check("cuCtxSetCurrent", cuCtxSetCurrent(ctx));
        check("cuModuleLoadData", cuModuleLoadData(&mut module, cubin.as_ptr().cast()));
        check(
            "cuModuleGetFunction",
            cuModuleGetFunction(&mut func, module, c"bit_ops_const_shift".as_ptr()),
        );
    }
    let (mut a, mut out, mut n) = (0u64, 0u64, 0i32);
    let mut params: [*mut c_void; 3] =
        [(&mut a as *mut u64).cast(), (&mut out as *mut u64).cast(), (&mut n as *mut i32).cast()];
    let launch = |params: &mut [*mut c_void; 3]| unsafe {
        cuLaunchKernel(func, 1, 1, 1, 32, 1, 1, 0, 0, params.as_mut_ptr(), std::ptr::null_mut())
    };
    // The first launch translates the kernel and creates its pipeline: not a launch cost.
    check("cuLaunchKernel", launch(&mut params));
    check("cuCtxSynchronize", unsafe { cuCtxSynchronize() });
    let mut group = c.benchmark_group("cuda_launch_throughput");
    group.throughput(Throughput::Elements(N));
    group.sample_size(10);
    group.bench_function("empty_kernel_10000_then_synchronize", |b| {
        b.iter(|| {
            for _ in 0..N {
                check("cuLaunchKernel", launch(&mut params));
            }
            check("cuCtxSynchronize", unsafe { cuCtxSynchronize() });
        })
    });
    group.finish();
}

criterion_group!(benches, bench_launches);
criterion_main!(benches);

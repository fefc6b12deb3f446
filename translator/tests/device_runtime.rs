//! Calls into the CUDA device runtime are refused by name with their own error variant, so that reports can
//! count them apart: a device-side launch (`__cudaCDP2GetParameterBufferV2`, dynamic parallelism), a
//! device-side stream, a device graph's `cudaGraphSetConditional`, in `-rdc` cubins (immediate `CALL.ABS`
//! relocated against the symbol) and in a whole-program cubin (`CALL.ABS` through a register loaded from a
//! relocated constant-bank word). The cubins are built from `data/device_runtime.cu` (our own source).

use sassport_translator::error::{DeviceRuntimeCall, TranslateError};
use sassport_translator::translate::{translate_kernel, Options};
use sassport_translator::Cubin;

fn refusal(file: &str, kernel: &str) -> TranslateError {
    let bytes = std::fs::read(format!("{}/tests/data/{file}", env!("CARGO_MANIFEST_DIR"))).unwrap();
    let cubin = Cubin::parse(&bytes).unwrap();
    translate_kernel(&cubin, kernel, &Options::default()).expect_err("refused")
}

#[test]
fn device_runtime_calls_are_refused_by_name_and_kind() {
    let cases = [
        ("device_runtime.rdc.cubin", "parent", "__cudaCDP2GetParameterBufferV2", DeviceRuntimeCall::KernelLaunch),
        ("device_runtime.rdc.cubin", "parent_stream", "__cudaCDP2StreamCreateWithFlags", DeviceRuntimeCall::Other),
        ("device_runtime.rdc.cubin", "set_condition", "cudaGraphSetConditional", DeviceRuntimeCall::Graph),
        ("device_runtime.cubin", "set_condition", "cudaGraphSetConditional", DeviceRuntimeCall::Graph),
    ];
    for (file, kernel, want_symbol, want_what) in cases {
        let e = refusal(file, kernel);
        assert!(e.is_device_runtime(), "{file} {kernel}: {e}");
        match &e {
            TranslateError::DeviceRuntime { symbol, what, name, .. } => {
                assert_eq!(symbol, want_symbol, "{file} {kernel}");
                assert_eq!(*what, want_what, "{file} {kernel}");
                assert_eq!(name, "CALL.ABS.NOINC");
            }
            other => panic!("{file} {kernel}: {other}"),
        }
        assert!(e.kind().starts_with("device runtime: "), "{}", e.kind());
    }
    let launch = refusal("device_runtime.rdc.cubin", "parent").to_string();
    assert!(launch.contains("device-side kernel launch (dynamic parallelism) is not supported"), "{launch}");
}

#[test]
fn device_runtime_names_are_classified() {
    use DeviceRuntimeCall::*;
    for (name, want) in [
        ("__cudaCDP2LaunchDeviceV2", Some(KernelLaunch)),
        ("cudaLaunchDevice_ptsz", Some(KernelLaunch)),
        ("__cudaCDP2EventRecord", Some(Other)),
        ("__cuda_syscall_cnpv2StreamCreate", Some(Other)),
        ("cudaGraphLaunch", Some(Graph)),
        ("cudaCGSynchronizeGrid", Some(GridSync)),
        ("malloc", None),
        ("vprintf", None),
        ("__assertfail", None),
    ] {
        assert_eq!(DeviceRuntimeCall::of(name), want, "{name}");
    }
}

//! Device-function calls in the corpus (`corpus/src/calls.cu`): direct, recursive and register-indirect calls
//! translate in both control forms, every module passes spirv-val, and the structured form is what each kernel
//! gets (recursion through one shared copy per recursive function, indirect calls through a switch over the
//! address-taken functions). Running them on lavapipe against the silicon goldens is `cli/tests/calls_run.rs`.

mod support;

use sassport_translator::control::structured::Form;
use sassport_translator::translate::{translate_kernel, ControlForm, Options};
use sassport_translator::Cubin;

fn calls_cubin() -> Vec<u8> {
    let path = sassport_corpus::cubins().into_iter().find(|p| p.file_stem().is_some_and(|s| s == "calls")).unwrap();
    std::fs::read(path).unwrap()
}

fn translate(cubin: &Cubin<'_>, kernel: &str, control: ControlForm) -> sassport_translator::translate::Translation {
    let t = translate_kernel(cubin, kernel, &Options { control, ..Options::default() })
        .unwrap_or_else(|e| panic!("{kernel} ({control:?}): {e}"));
    if let Err(e) = support::spirv_val(&t.words) {
        panic!("{kernel} ({control:?}): spirv-val rejected the module:\n{e}");
    }
    t
}

#[test]
fn address_taken_functions_are_the_op_table() {
    let bytes = calls_cubin();
    let cubin = Cubin::parse(&bytes).unwrap();
    // .nv.constant2.calls_indirect holds descriptors 0x2e0 (op_rotl), 0x280 (op_mul), 0x2a0 (op_not),
    // 0x2c0 (op_sqr): `cuobjdump -elf corpus/sm86/calls.cubin` (corpus/sm86/calls.elf.txt).
    assert_eq!(cubin.address_taken_functions(".text.calls_indirect"), vec![0x280, 0x2a0, 0x2c0, 0x2e0]);
    // Functions called only directly have no address taken.
    assert!(cubin.address_taken_functions(".text.calls_recursive").is_empty());
    assert!(cubin.address_taken_functions(".text.calls_direct").is_empty());
}

#[test]
fn every_call_kernel_is_structured_and_valid_in_both_forms() {
    let bytes = calls_cubin();
    let cubin = Cubin::parse(&bytes).unwrap();
    for k in ["calls_direct", "calls_recursive", "calls_indirect"] {
        let s = translate(&cubin, k, ControlForm::Structured);
        let d = translate(&cubin, k, ControlForm::Dispatch);
        let form = s.report.form.clone().unwrap();
        println!("{k}: {form}; {} words structured, {} dispatch", s.words.len(), d.words.len());
        let Form::Structured { shared, inlined, .. } = &form else { panic!("{k}: {form}") };
        match k {
            "calls_recursive" => {
                // fib is recursive and kept as one copy returning to its three call sites (0x100 in the
                // kernel, 0x2a0 and 0x2f0 in itself); gcd_rec and the 64-bit remainder are inlined.
                assert_eq!(shared.len(), 1, "{form}");
                assert_eq!((shared[0].entry, shared[0].recursive, shared[0].return_points), (0x1b0, true, 3));
                assert_eq!(inlined.call_sites, 2, "{form}");
            }
            "calls_indirect" => {
                // Two indirect call sites, each a switch over the four op_* functions inlined per site.
                assert!(shared.is_empty(), "{form}");
                assert_eq!(inlined.call_sites, 8, "{form}");
            }
            _ => assert!(shared.is_empty(), "{form}"),
        }
        assert!(!format!("{form}").contains("dispatch"), "{k}: {form}");
    }
}

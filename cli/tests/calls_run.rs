//! Device-function calls on lavapipe: the call kernels of the corpus (`corpus/src/calls.cu`: direct calls,
//! recursion, calls through a `__device__` table of function pointers) run in both control forms, the cubin's
//! module data placed by the runtime (`op_table` in `.nv.global.init`, `&op_table` relocated into bank 4), and
//! match the outputs recorded on NVIDIA silicon (`corpus/goldens/`) and each other. A null function pointer is
//! a control fault naming the call and the value, in both forms.

mod common;

use sassport::golden::compare;
use sassport_runtime::{Bank0, Launch, Runtime, RuntimeError};
use sassport_translator::translate::{translate_kernel, ControlForm, Options};
use sassport_translator::Cubin;
use std::time::Duration;

fn runtime() -> Runtime {
    common::runtime(Duration::from_secs(120))
}

/// Runs `kernel`'s corpus launch in `form`; `patch` may change the placed module data first. Returns the
/// final contents of every buffer argument, or the launch's error.
fn run(
    rt: &mut Runtime,
    kernel: &str,
    form: ControlForm,
    patch: &dyn Fn(&mut Runtime, &Cubin<'_>, &sassport_runtime::ModuleData),
) -> Result<Vec<Vec<u8>>, RuntimeError> {
    let launches = sassport_corpus::launches().unwrap();
    let l = launches.iter().find(|l| l.kernel == kernel).unwrap();
    let bytes = std::fs::read(l.cubin_sm86()).unwrap();
    run_bytes(rt, &bytes, kernel, form, patch)
}

/// [`run`] with the cubin's bytes given (a patched corpus cubin).
fn run_bytes(
    rt: &mut Runtime,
    bytes: &[u8],
    kernel: &str,
    form: ControlForm,
    patch: &dyn Fn(&mut Runtime, &Cubin<'_>, &sassport_runtime::ModuleData),
) -> Result<Vec<Vec<u8>>, RuntimeError> {
    let launches = sassport_corpus::launches().unwrap();
    let l = launches.iter().find(|l| l.kernel == kernel).unwrap();
    let cubin = Cubin::parse(bytes).unwrap();
    let t = translate_kernel(&cubin, kernel, &Options { profile: Some(rt.profile()), control: form, ..Options::default() })
        .unwrap_or_else(|e| panic!("{kernel}: {e}"));
    let id = rt.load_kernel(kernel, &t.words).unwrap();
    let module = rt.load_module_data(&cubin).unwrap();
    patch(rt, &cubin, &module);
    let mut addresses = Vec::new();
    for a in &l.args {
        if let Some(init) = a.initial_contents() {
            let addr = rt.alloc(init.len().max(4) as u64).unwrap();
            rt.upload(addr, &init).unwrap();
            addresses.push((addr, init.len()));
        }
    }
    let params = l.param_bytes(&addresses.iter().map(|(a, _)| *a).collect::<Vec<_>>()).unwrap();
    let (grid, block) = ([l.grid.x, l.grid.y, l.grid.z], [l.block.x, l.block.y, l.block.z]);
    let bank0 = Bank0::new(grid, block).with_params(&params);
    let mut banks: Vec<(u32, &[u8])> = vec![(0, bank0.as_bytes())];
    banks.extend(module.banks_for(kernel));
    let launched = rt.launch(&Launch { kernel: id, grid, block, dynamic_shared_bytes: 0, banks: &banks });
    let mut out = Vec::new();
    for (addr, len) in addresses {
        let mut b = vec![0u8; len];
        rt.download(addr, &mut b).unwrap();
        rt.free(addr).unwrap();
        out.push(b);
    }
    module.free(rt).unwrap();
    launched.map(|_| out)
}

fn goldens(kernel: &str) -> Vec<(sassport_corpus::Comparison, Vec<u8>)> {
    let launches = sassport_corpus::launches().unwrap();
    let l = launches.iter().find(|l| l.kernel == kernel).unwrap();
    l.args
        .iter()
        .enumerate()
        .filter(|(_, a)| a.is_buffer())
        .map(|(i, _)| (l.comparison, std::fs::read(l.golden(i)).unwrap()))
        .collect()
}

#[test]
fn call_kernels_match_silicon_in_both_forms() {
    let mut rt = runtime();
    for kernel in ["calls_direct", "calls_recursive", "calls_indirect"] {
        let want = goldens(kernel);
        let structured = run(&mut rt, kernel, ControlForm::Structured, &|_, _, _| {}).unwrap();
        let dispatch = run(&mut rt, kernel, ControlForm::Dispatch, &|_, _, _| {}).unwrap();
        assert_eq!(structured, dispatch, "{kernel}: the two control forms differ");
        for (i, ((cmp, golden), got)) in want.iter().zip(&structured).enumerate() {
            let diff = compare(*cmp, got, golden);
            assert_eq!(diff.mismatches, 0, "{kernel} buffer {i}: {:?}", diff.examples);
        }
    }
}

/// The indirect branches next to the indirect calls: `BRX` through bank-2 jump tables, checked against the
/// tables in both forms (the dispatch form once took a target missing from the block's successors as a fault).
#[test]
fn switch_kernels_match_silicon_in_both_forms() {
    let mut rt = runtime();
    for kernel in ["switch_dense", "switch_sparse", "switch_brx_ptx"] {
        let want = goldens(kernel);
        let structured = run(&mut rt, kernel, ControlForm::Structured, &|_, _, _| {}).unwrap();
        let dispatch = run(&mut rt, kernel, ControlForm::Dispatch, &|_, _, _| {}).unwrap();
        assert_eq!(structured, dispatch, "{kernel}: the two control forms differ");
        for (i, ((cmp, golden), got)) in want.iter().zip(&structured).enumerate() {
            let diff = compare(*cmp, got, golden);
            assert_eq!(diff.mismatches, 0, "{kernel} buffer {i}: {:?}", diff.examples);
        }
    }
}

#[test]
fn null_function_pointer_is_a_control_fault() {
    let mut rt = runtime();
    // op_table[0] = 0: a null pointer, whose bank-2 descriptor (the word at c[0x2][0x0], 1) names no function.
    let null_first: &dyn Fn(&mut Runtime, &Cubin<'_>, &sassport_runtime::ModuleData) = &|rt, cubin, module| {
        let init = cubin.sections.iter().find(|s| s.name == ".nv.global.init").unwrap();
        let op_table = cubin.variables.iter().find(|v| v.name == "op_table").unwrap();
        let at = module.section_address(init.index).unwrap() + op_table.offset;
        rt.upload(at, &0u64.to_le_bytes()).unwrap();
    };
    for form in [ControlForm::Structured, ControlForm::Dispatch] {
        match run(&mut rt, "calls_indirect", form, null_first) {
            // Inputs with x & 3 == 0 call op_table[0] at the first indirect call (pc 0x190).
            Err(RuntimeError::ControlFault { kernel, pc, target, count }) => {
                assert_eq!((kernel.as_str(), pc, target), ("calls_indirect", 0x190, 1), "{form:?}");
                assert!(count > 0);
            }
            other => panic!("{form:?}: expected a control fault, got {other:?}"),
        }
    }
}

/// The module data of `calls.cubin`: `op_table` placed with its initial bytes, and bank 4's `R_CUDA_64`
/// against it (`.rel.nv.constant4`) resolved to its guest address.
#[test]
fn module_data_places_op_table_and_relocates_bank4() {
    let mut rt = runtime();
    let bytes = std::fs::read(sassport_corpus::root().join("sm86/calls.cubin")).unwrap();
    let cubin = Cubin::parse(&bytes).unwrap();
    let module = rt.load_module_data(&cubin).unwrap();
    let init = cubin.sections.iter().find(|s| s.name == ".nv.global.init").unwrap();
    let base = module.section_address(init.index).unwrap();
    assert!(base >= rt.window_base() && base < rt.window_base() + rt.window_size());
    let mut table = vec![0u8; 32];
    rt.download(base, &mut table).unwrap();
    assert_eq!(table, init.data, "op_table's initial descriptors (8, 0x10, 0x18, 0x20)");
    let banks = module.banks_for("calls_indirect");
    let bank4 = banks.iter().find(|(b, _)| *b == 4).unwrap().1;
    assert_eq!(u64::from_le_bytes(bank4[..8].try_into().unwrap()), base);
    // Bank 2 (function descriptors) is bound as stored; another kernel's banks are not.
    assert!(banks.iter().any(|(b, d)| *b == 2 && d[8..16] == 0x2e0u64.to_le_bytes()));
    assert!(module.banks_for("calls_direct").iter().all(|(b, _)| *b != 2));
    module.free(&mut rt).unwrap();
}

/// A relocation type the runtime does not apply is refused by section, offset and name, not left 0.
#[test]
fn unsupported_relocation_is_refused() {
    let mut rt = runtime();
    let mut bytes = std::fs::read(sassport_corpus::root().join("sm86/calls.cubin")).unwrap();
    let rel = Cubin::parse(&bytes).unwrap().sections.iter().find(|s| s.name == ".rel.nv.constant4").unwrap().offset;
    // Entry 0's type (low word of r_info, bytes 8..12): R_CUDA_64 (2) -> R_CUDA_G32 (3).
    bytes[rel as usize + 8] = 3;
    let cubin = Cubin::parse(&bytes).unwrap();
    match rt.load_module_data(&cubin) {
        Err(RuntimeError::Relocation { section, offset, reason }) => {
            assert_eq!((section.as_str(), offset), (".nv.constant4", 0));
            assert!(reason.contains("R_CUDA_G32") && reason.contains("op_table"), "{reason}");
        }
        other => panic!("expected a relocation error, got {other:?}"),
    }
    // Nothing stays allocated: the whole window can still be taken.
    let all = rt.alloc(rt.window_size() - 4096).unwrap();
    rt.free(all).unwrap();
}

/// A return address that names no return point is a control fault at the `RET`, in both forms: for an inlined
/// callee (calls_direct: the caller's `MOV R4, 0x170` patched to 0x180, add_mix's `RET.REL.NODEC R4` at 0x470)
/// and for a recursive one kept as one copy (calls_recursive: `MOV R20, 0x100` patched to 0x110, fib's outermost
/// `RET.REL.NODEC R20` at 0x390).
#[test]
fn wrong_return_address_is_a_control_fault() {
    let mut rt = runtime();
    let original = std::fs::read(sassport_corpus::root().join("sm86/calls.cubin")).unwrap();
    for (kernel, mov_at, was, now, ret_at) in
        [("calls_direct", 0xf0u64, 0x170u32, 0x180u32, 0x470u32), ("calls_recursive", 0xc0, 0x100, 0x110, 0x390)]
    {
        let mut bytes = original.clone();
        let section = format!(".text.{kernel}");
        let text = Cubin::parse(&original).unwrap().sections.iter().find(|s| s.name == section).unwrap().offset;
        // MOV Rd, imm32: the immediate is bytes 4..8 of the word.
        let at = (text + mov_at) as usize + 4;
        assert_eq!(bytes[at..at + 4], was.to_le_bytes(), "{kernel}: the MOV is where the listing says");
        bytes[at..at + 4].copy_from_slice(&now.to_le_bytes());
        for form in [ControlForm::Structured, ControlForm::Dispatch] {
            match run_bytes(&mut rt, &bytes, kernel, form, &|_, _, _| {}) {
                Err(RuntimeError::ControlFault { kernel: k, pc, target, .. }) => {
                    assert_eq!((k.as_str(), pc, target), (kernel, ret_at, u64::from(now)), "{form:?}");
                }
                other => panic!("{kernel} {form:?}: expected a control fault, got {other:?}"),
            }
        }
    }
}

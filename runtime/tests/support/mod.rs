//! Hand-built SPIR-V kernels that follow the sassport ABI, and checks on them (spirv-val, timeouts).
//! Shared by the integration tests and the launch benchmark.
#![allow(dead_code)]

use std::io::Write;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use rspirv::binary::Assemble;
use rspirv::dr::{Builder, Operand};
use rspirv::spirv::{
    self, AddressingModel, BuiltIn, Capability, Decoration, ExecutionMode, ExecutionModel,
    MemoryModel, StorageClass,
};
use sassport_runtime::abi;

/// The pc the test kernel reports for its store.
pub const STORE_PC: u32 = 0x70;
/// Byte offset in bank 0 of the pointer parameter; the u32 parameter follows it.
pub const PARAM_PTR: u32 = abi::bank0::PARAMS;
/// Byte offset in bank 0 of the u32 parameter.
pub const PARAM_ADD: u32 = abi::bank0::PARAMS + 8;

/// A kernel computing, for every CUDA thread,
/// `gid = ((ctaid.z * gridDim.y + ctaid.y) * gridDim.x + ctaid.x) * threadsPerBlock + linear tid`
/// and storing `gid * 3 + param` (u32) at `ptr + 4 * gid`, where `ptr` (u64) and `param` (u32) are kernel
/// parameters in constant bank 0. `ctaid = WorkgroupId + workgroup_base` and the dims come from the launch
/// values; the store is bounds-checked against the window and records a fault per the ABI.
pub fn store_gid_kernel() -> Vec<u32> {
    store_gid_kernel_with_pc(STORE_PC)
}

/// [`store_gid_kernel`] reporting `pc` for its store: a different module for each pc (driver caches miss).
pub fn store_gid_kernel_with_pc(pc: u32) -> Vec<u32> {
    let mut b = Builder::new();
    b.set_version(1, 6);
    b.capability(Capability::Shader);
    b.capability(Capability::Int64);
    b.memory_model(AddressingModel::Logical, MemoryModel::GLSL450);

    let void = b.type_void();
    let boolean = b.type_bool();
    let u32t = b.type_int(32, 0);
    let u64t = b.type_int(64, 0);
    let uvec3 = b.type_vector(u32t, 3);
    let uvec4 = b.type_vector(u32t, 4);
    let c = |b: &mut Builder, v: u32| b.constant_bit32(u32t, v);

    // Uniform block helper: struct { uvec4 data[n]; }.
    let uniform_block = |b: &mut Builder, n: u32| {
        let len = b.constant_bit32(u32t, n);
        let arr = b.type_array(uvec4, len);
        b.decorate(
            arr,
            Decoration::ArrayStride,
            [Operand::LiteralBit32(abi::UNIFORM_ARRAY_STRIDE)],
        );
        let st = b.type_struct([arr]);
        b.decorate(st, Decoration::Block, []);
        b.member_decorate(st, 0, Decoration::Offset, [Operand::LiteralBit32(0)]);
        let ptr = b.type_pointer(None, StorageClass::Uniform, st);
        b.variable(ptr, None, StorageClass::Uniform, None)
    };
    let bind = |b: &mut Builder, var: u32, binding: u32| {
        b.decorate(
            var,
            Decoration::DescriptorSet,
            [Operand::LiteralBit32(abi::DESCRIPTOR_SET)],
        );
        b.decorate(var, Decoration::Binding, [Operand::LiteralBit32(binding)]);
    };
    let lv = uniform_block(&mut b, abi::LAUNCH_VALUES_VEC4S);
    bind(&mut b, lv, abi::LAUNCH_VALUES_BINDING);
    let bank0_vec4s = (PARAM_ADD + 4).div_ceil(16);
    let bank0 = uniform_block(&mut b, bank0_vec4s);
    bind(&mut b, bank0, abi::FIRST_BANK_BINDING);

    let rta = b.type_runtime_array(u32t);
    b.decorate(rta, Decoration::ArrayStride, [Operand::LiteralBit32(4)]);
    let wst = b.type_struct([rta]);
    b.decorate(wst, Decoration::Block, []);
    b.member_decorate(wst, 0, Decoration::Offset, [Operand::LiteralBit32(0)]);
    let wptr = b.type_pointer(None, StorageClass::StorageBuffer, wst);
    let window = b.variable(wptr, None, StorageClass::StorageBuffer, None);
    bind(&mut b, window, abi::GLOBAL_WINDOW_BINDING);

    let in_uvec3 = b.type_pointer(None, StorageClass::Input, uvec3);
    let wg_id = b.variable(in_uvec3, None, StorageClass::Input, None);
    b.decorate(
        wg_id,
        Decoration::BuiltIn,
        [Operand::BuiltIn(BuiltIn::WorkgroupId)],
    );
    let local_id = b.variable(in_uvec3, None, StorageClass::Input, None);
    b.decorate(
        local_id,
        Decoration::BuiltIn,
        [Operand::BuiltIn(BuiltIn::LocalInvocationId)],
    );

    // Workgroup size = block size through specialisation constants 0..=2.
    let sx = b.spec_constant_bit32(u32t, 1);
    let sy = b.spec_constant_bit32(u32t, 1);
    let sz = b.spec_constant_bit32(u32t, 1);
    for (id, spec) in [
        (sx, abi::SPEC_ID_BLOCK_DIM_X),
        (sy, abi::SPEC_ID_BLOCK_DIM_Y),
        (sz, abi::SPEC_ID_BLOCK_DIM_Z),
    ] {
        b.decorate(id, Decoration::SpecId, [Operand::LiteralBit32(spec)]);
    }
    let wg_size = b.spec_constant_composite(uvec3, [sx, sy, sz]);
    b.decorate(
        wg_size,
        Decoration::BuiltIn,
        [Operand::BuiltIn(BuiltIn::WorkgroupSize)],
    );

    let fn_ty = b.type_function(void, []);
    let main = b
        .begin_function(void, None, spirv::FunctionControl::NONE, fn_ty)
        .unwrap();
    b.begin_block(None).unwrap();
    let ptr_u4 = b.type_pointer(None, StorageClass::Uniform, uvec4);
    let ptr_sb_u32 = b.type_pointer(None, StorageClass::StorageBuffer, u32t);
    let zero = c(&mut b, 0);

    // Reads word `w` of a uniform block.
    let word = |b: &mut Builder, var: u32, w: u32| {
        let i = b.constant_bit32(u32t, w / 4);
        let z = b.constant_bit32(u32t, 0);
        let p = b.access_chain(ptr_u4, None, var, [z, i]).unwrap();
        let v = b.load(uvec4, None, p, None, []).unwrap();
        b.composite_extract(u32t, None, v, [w % 4]).unwrap()
    };
    let wide = |b: &mut Builder, lo: u32, hi: u32| {
        let lo64 = b.u_convert(u64t, None, lo).unwrap();
        let hi64 = b.u_convert(u64t, None, hi).unwrap();
        let k32 = b.constant_bit32(u32t, 32);
        let sh = b.shift_left_logical(u64t, None, hi64, k32).unwrap();
        b.bitwise_or(u64t, None, sh, lo64).unwrap()
    };

    let wg = b.load(uvec3, None, wg_id, None, []).unwrap();
    let lid = b.load(uvec3, None, local_id, None, []).unwrap();
    let comp = |b: &mut Builder, v: u32, i: u32| b.composite_extract(u32t, None, v, [i]).unwrap();
    let mut ctaid = [0; 3];
    for i in 0..3 {
        let g = comp(&mut b, wg, i);
        let base = word(&mut b, lv, abi::launch_word::WORKGROUP_BASE + i);
        ctaid[i as usize] = b.i_add(u32t, None, g, base).unwrap();
    }
    let gx = word(&mut b, lv, abi::launch_word::GRID_DIM);
    let gy = word(&mut b, lv, abi::launch_word::GRID_DIM + 1);
    let bx = word(&mut b, lv, abi::launch_word::BLOCK_DIM);
    let by = word(&mut b, lv, abi::launch_word::BLOCK_DIM + 1);
    let bz = word(&mut b, lv, abi::launch_word::BLOCK_DIM + 2);
    let t = b.i_mul(u32t, None, ctaid[2], gy).unwrap();
    let t = b.i_add(u32t, None, t, ctaid[1]).unwrap();
    let t = b.i_mul(u32t, None, t, gx).unwrap();
    let block_linear = b.i_add(u32t, None, t, ctaid[0]).unwrap();
    let bxy = b.i_mul(u32t, None, bx, by).unwrap();
    let threads = b.i_mul(u32t, None, bxy, bz).unwrap();
    let (lx, ly, lz) = (
        comp(&mut b, lid, 0),
        comp(&mut b, lid, 1),
        comp(&mut b, lid, 2),
    );
    let t = b.i_mul(u32t, None, lz, by).unwrap();
    let t = b.i_add(u32t, None, t, ly).unwrap();
    let t = b.i_mul(u32t, None, t, bx).unwrap();
    let thread_linear = b.i_add(u32t, None, t, lx).unwrap();
    let t = b.i_mul(u32t, None, block_linear, threads).unwrap();
    let gid = b.i_add(u32t, None, t, thread_linear).unwrap();

    let p_lo = word(&mut b, bank0, PARAM_PTR / 4);
    let p_hi = word(&mut b, bank0, PARAM_PTR / 4 + 1);
    let param = word(&mut b, bank0, PARAM_ADD / 4);
    let ptr = wide(&mut b, p_lo, p_hi);
    let three = c(&mut b, 3);
    let t = b.i_mul(u32t, None, gid, three).unwrap();
    let value = b.i_add(u32t, None, t, param).unwrap();
    let gid64 = b.u_convert(u64t, None, gid).unwrap();
    let two = c(&mut b, 2);
    let byte_off = b.shift_left_logical(u64t, None, gid64, two).unwrap();
    let addr = b.i_add(u64t, None, ptr, byte_off).unwrap();

    // Bounds check: off = addr - base (wraps below base); in window iff off <= size - 4.
    let wb_lo = word(&mut b, lv, abi::launch_word::WINDOW_BASE);
    let wb_hi = word(&mut b, lv, abi::launch_word::WINDOW_BASE + 1);
    let ws_lo = word(&mut b, lv, abi::launch_word::WINDOW_SIZE);
    let ws_hi = word(&mut b, lv, abi::launch_word::WINDOW_SIZE + 1);
    let wbase = wide(&mut b, wb_lo, wb_hi);
    let wsize = wide(&mut b, ws_lo, ws_hi);
    let off = b.i_sub(u64t, None, addr, wbase).unwrap();
    let four64 = b.constant_bit64(u64t, 4);
    let limit = b.i_sub(u64t, None, wsize, four64).unwrap();
    let inside = b.u_less_than_equal(boolean, None, off, limit).unwrap();

    let then_l = b.id();
    let else_l = b.id();
    let merge_l = b.id();
    b.selection_merge(merge_l, spirv::SelectionControl::NONE)
        .unwrap();
    b.branch_conditional(inside, then_l, else_l, []).unwrap();

    b.begin_block(Some(then_l)).unwrap();
    let off_words = b.shift_right_logical(u64t, None, off, two).unwrap();
    let idx = b.u_convert(u32t, None, off_words).unwrap();
    let p = b
        .access_chain(ptr_sb_u32, None, window, [zero, idx])
        .unwrap();
    b.store(p, value, None, []).unwrap();
    b.branch(merge_l).unwrap();

    // Fault: count, claim the record with 0 -> 1, fill it if first.
    b.begin_block(Some(else_l)).unwrap();
    let rec = word(&mut b, lv, abi::launch_word::FAULT_RECORD_WORD);
    let field = |b: &mut Builder, f: u32| {
        let k = b.constant_bit32(u32t, f);
        let i = b.i_add(u32t, None, rec, k).unwrap();
        let z = b.constant_bit32(u32t, 0);
        b.access_chain(ptr_sb_u32, None, window, [z, i]).unwrap()
    };
    let scope = c(&mut b, spirv::Scope::Device as u32);
    let relaxed = c(&mut b, 0);
    let one = c(&mut b, 1);
    let count_p = field(&mut b, abi::fault_word::COUNT);
    b.atomic_i_add(u32t, None, count_p, scope, relaxed, one)
        .unwrap();
    let flag_p = field(&mut b, abi::fault_word::FLAG);
    let old = b
        .atomic_compare_exchange(u32t, None, flag_p, scope, relaxed, relaxed, one, zero)
        .unwrap();
    let first = b.i_equal(boolean, None, old, zero).unwrap();
    let fill_l = b.id();
    let fault_merge = b.id();
    b.selection_merge(fault_merge, spirv::SelectionControl::NONE)
        .unwrap();
    b.branch_conditional(first, fill_l, fault_merge, [])
        .unwrap();
    b.begin_block(Some(fill_l)).unwrap();
    let kernel_id = word(&mut b, lv, abi::launch_word::KERNEL_ID);
    let addr_lo = b.u_convert(u32t, None, addr).unwrap();
    let k32 = c(&mut b, 32);
    let addr_hi64 = b.shift_right_logical(u64t, None, addr, k32).unwrap();
    let addr_hi = b.u_convert(u32t, None, addr_hi64).unwrap();
    let kind = c(&mut b, abi::FAULT_KIND_STORE);
    let pc = c(&mut b, pc);
    let size = c(&mut b, 4);
    for (f, v) in [
        (abi::fault_word::KIND, kind),
        (abi::fault_word::KERNEL_ID, kernel_id),
        (abi::fault_word::PC, pc),
        (abi::fault_word::ADDRESS, addr_lo),
        (abi::fault_word::ADDRESS + 1, addr_hi),
        (abi::fault_word::SIZE, size),
    ] {
        let p = field(&mut b, f);
        b.store(p, v, None, []).unwrap();
    }
    b.branch(fault_merge).unwrap();
    b.begin_block(Some(fault_merge)).unwrap();
    b.branch(merge_l).unwrap();

    b.begin_block(Some(merge_l)).unwrap();
    b.ret().unwrap();
    b.end_function().unwrap();
    b.entry_point(
        ExecutionModel::GLCompute,
        main,
        abi::ENTRY_POINT,
        [lv, bank0, window, wg_id, local_id],
    );
    let _ = ExecutionMode::LocalSize;
    b.module().assemble()
}

/// Runs `spirv-val --target-env vulkan1.3` on `words`; panics with its message if the module is invalid.
pub fn spirv_val(words: &[u32]) {
    let mut child = Command::new("spirv-val")
        .args(["--target-env", "vulkan1.3", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spirv-val is installed (Debian spirv-tools)");
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    child.stdin.take().unwrap().write_all(&bytes).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "spirv-val rejected the module:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Runs `f` on a helper thread and panics if it takes longer than `limit` (pipeline creation can blow up).
pub fn with_timeout<T: Send + 'static>(
    limit: Duration,
    what: &str,
    f: impl FnOnce() -> T + Send + 'static,
) -> T {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    match rx.recv_timeout(limit) {
        Ok(v) => v,
        Err(_) => panic!("{what} took longer than {limit:?}"),
    }
}

/// Makes lavapipe and the loader quiet and deterministic in tests.
pub fn test_env() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let dir = std::env::temp_dir().join(format!("sassport-xdg-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        if std::env::var_os("XDG_RUNTIME_DIR").is_none() {
            // SAFETY: set once, before any thread of this test binary reads the environment.
            unsafe { std::env::set_var("XDG_RUNTIME_DIR", &dir) };
        }
    });
}

/// Bank 0 for the store kernel: blockDim, gridDim, pointer and parameter at their CUDA offsets.
pub fn bank0(grid: [u32; 3], block: [u32; 3], ptr: u64, param: u32) -> Vec<u8> {
    let mut bank = vec![0u8; (PARAM_ADD + 4) as usize];
    for (i, v) in block.iter().enumerate() {
        let at = (abi::bank0::BLOCK_DIM + 4 * i as u32) as usize;
        bank[at..at + 4].copy_from_slice(&v.to_le_bytes());
    }
    for (i, v) in grid.iter().enumerate() {
        let at = (abi::bank0::GRID_DIM + 4 * i as u32) as usize;
        bank[at..at + 4].copy_from_slice(&v.to_le_bytes());
    }
    bank[PARAM_PTR as usize..PARAM_PTR as usize + 8].copy_from_slice(&ptr.to_le_bytes());
    bank[PARAM_ADD as usize..PARAM_ADD as usize + 4].copy_from_slice(&param.to_le_bytes());
    bank
}

/// A kernel checking the dynamic-shared-memory specialisation constant: its Workgroup array has
/// `spec3 / 4 + 1` words (spec id 3 = dynamic shared bytes); thread 0 stores `spec3` in the array's last word,
/// all threads pass a workgroup barrier, read that word and store `word + gid` (u32) at `ptr + 4 * gid`
/// (ptr from bank 0 at 0x160; gid = ctaid.x * blockDim.x + tid.x). Addresses are not checked: tests pass
/// in-window pointers only.
pub fn dynamic_shared_kernel() -> Vec<u32> {
    let mut b = Builder::new();
    b.set_version(1, 6);
    b.capability(Capability::Shader);
    b.capability(Capability::Int64);
    b.memory_model(AddressingModel::Logical, MemoryModel::GLSL450);
    let void = b.type_void();
    let boolean = b.type_bool();
    let u32t = b.type_int(32, 0);
    let u64t = b.type_int(64, 0);
    let uvec2 = b.type_vector(u32t, 2);
    let uvec3 = b.type_vector(u32t, 3);
    let uvec4 = b.type_vector(u32t, 4);

    let block = |b: &mut Builder, n: u32, binding: u32| {
        let len = b.constant_bit32(u32t, n);
        let arr = b.type_array(uvec4, len);
        b.decorate(arr, Decoration::ArrayStride, [Operand::LiteralBit32(16)]);
        let st = b.type_struct([arr]);
        b.decorate(st, Decoration::Block, []);
        b.member_decorate(st, 0, Decoration::Offset, [Operand::LiteralBit32(0)]);
        let ptr = b.type_pointer(None, StorageClass::Uniform, st);
        let var = b.variable(ptr, None, StorageClass::Uniform, None);
        b.decorate(var, Decoration::DescriptorSet, [Operand::LiteralBit32(0)]);
        b.decorate(var, Decoration::Binding, [Operand::LiteralBit32(binding)]);
        var
    };
    let lv = block(&mut b, abi::LAUNCH_VALUES_VEC4S, abi::LAUNCH_VALUES_BINDING);
    let bank0 = block(&mut b, abi::bank0::PARAMS / 16 + 1, abi::FIRST_BANK_BINDING);
    let rta = b.type_runtime_array(u32t);
    b.decorate(rta, Decoration::ArrayStride, [Operand::LiteralBit32(4)]);
    let wst = b.type_struct([rta]);
    b.decorate(wst, Decoration::Block, []);
    b.member_decorate(wst, 0, Decoration::Offset, [Operand::LiteralBit32(0)]);
    let wptr = b.type_pointer(None, StorageClass::StorageBuffer, wst);
    let window = b.variable(wptr, None, StorageClass::StorageBuffer, None);
    b.decorate(
        window,
        Decoration::DescriptorSet,
        [Operand::LiteralBit32(0)],
    );
    b.decorate(
        window,
        Decoration::Binding,
        [Operand::LiteralBit32(abi::GLOBAL_WINDOW_BINDING)],
    );

    let sx = b.spec_constant_bit32(u32t, 1);
    let sy = b.spec_constant_bit32(u32t, 1);
    let sz = b.spec_constant_bit32(u32t, 1);
    let dynamic = b.spec_constant_bit32(u32t, 0);
    for (id, spec) in [
        (sx, abi::SPEC_ID_BLOCK_DIM_X),
        (sy, abi::SPEC_ID_BLOCK_DIM_Y),
        (sz, abi::SPEC_ID_BLOCK_DIM_Z),
        (dynamic, abi::SPEC_ID_DYNAMIC_SHARED_BYTES),
    ] {
        b.decorate(id, Decoration::SpecId, [Operand::LiteralBit32(spec)]);
    }
    let wg_size = b.spec_constant_composite(uvec3, [sx, sy, sz]);
    b.decorate(
        wg_size,
        Decoration::BuiltIn,
        [Operand::BuiltIn(BuiltIn::WorkgroupSize)],
    );
    let four = b.constant_bit32(u32t, 4);
    let one = b.constant_bit32(u32t, 1);
    let spec_op = |b: &mut Builder, op: spirv::Op, x: u32, y: u32| {
        let id = b.spec_constant_op(u32t, op);
        let inst = b.module_mut().types_global_values.last_mut().unwrap();
        inst.operands.extend([Operand::IdRef(x), Operand::IdRef(y)]);
        id
    };
    let words = spec_op(&mut b, spirv::Op::UDiv, dynamic, four);
    let len = spec_op(&mut b, spirv::Op::IAdd, words, one);
    let shared_ty = b.type_array(u32t, len);
    let shared_ptr = b.type_pointer(None, StorageClass::Workgroup, shared_ty);
    let shared = b.variable(shared_ptr, None, StorageClass::Workgroup, None);

    let in_uvec3 = b.type_pointer(None, StorageClass::Input, uvec3);
    let wg_id = b.variable(in_uvec3, None, StorageClass::Input, None);
    b.decorate(
        wg_id,
        Decoration::BuiltIn,
        [Operand::BuiltIn(BuiltIn::WorkgroupId)],
    );
    let local_id = b.variable(in_uvec3, None, StorageClass::Input, None);
    b.decorate(
        local_id,
        Decoration::BuiltIn,
        [Operand::BuiltIn(BuiltIn::LocalInvocationId)],
    );

    let fn_ty = b.type_function(void, []);
    let main = b
        .begin_function(void, None, spirv::FunctionControl::NONE, fn_ty)
        .unwrap();
    b.begin_block(None).unwrap();
    let ptr_u4 = b.type_pointer(None, StorageClass::Uniform, uvec4);
    let ptr_sb = b.type_pointer(None, StorageClass::StorageBuffer, u32t);
    let ptr_wg = b.type_pointer(None, StorageClass::Workgroup, u32t);
    let zero = b.constant_bit32(u32t, 0);
    let row = |b: &mut Builder, var: u32, w: u32| {
        let i = b.constant_bit32(u32t, w / 4);
        let p = b.access_chain(ptr_u4, None, var, [zero, i]).unwrap();
        b.load(uvec4, None, p, None, []).unwrap()
    };
    let lid = b.load(uvec3, None, local_id, None, []).unwrap();
    let lx = b.composite_extract(u32t, None, lid, [0]).unwrap();
    let wg = b.load(uvec3, None, wg_id, None, []).unwrap();
    let wx = b.composite_extract(u32t, None, wg, [0]).unwrap();
    let lv_base = row(&mut b, lv, abi::launch_word::WORKGROUP_BASE);
    let base_x = b.composite_extract(u32t, None, lv_base, [0]).unwrap();
    let lv_block = row(&mut b, lv, abi::launch_word::BLOCK_DIM);
    let bx = b.composite_extract(u32t, None, lv_block, [0]).unwrap();
    let ctaid = b.i_add(u32t, None, wx, base_x).unwrap();
    let t = b.i_mul(u32t, None, ctaid, bx).unwrap();
    let gid = b.i_add(u32t, None, t, lx).unwrap();
    let last = b.i_sub(u32t, None, len, one).unwrap();
    let slot = b.access_chain(ptr_wg, None, shared, [last]).unwrap();

    let is_first = b.i_equal(boolean, None, lx, zero).unwrap();
    let then_l = b.id();
    let merge_l = b.id();
    b.selection_merge(merge_l, spirv::SelectionControl::NONE)
        .unwrap();
    b.branch_conditional(is_first, then_l, merge_l, []).unwrap();
    b.begin_block(Some(then_l)).unwrap();
    b.store(slot, dynamic, None, []).unwrap();
    b.branch(merge_l).unwrap();
    b.begin_block(Some(merge_l)).unwrap();
    let workgroup = b.constant_bit32(u32t, spirv::Scope::Workgroup as u32);
    let semantics = b.constant_bit32(
        u32t,
        (spirv::MemorySemantics::ACQUIRE_RELEASE | spirv::MemorySemantics::WORKGROUP_MEMORY).bits(),
    );
    b.control_barrier(workgroup, workgroup, semantics).unwrap();
    let seen = b.load(u32t, None, slot, None, []).unwrap();
    let value = b.i_add(u32t, None, seen, gid).unwrap();

    // `row` takes a word index; PARAMS is a byte offset.
    let bank_row = row(&mut b, bank0, abi::bank0::PARAMS / 4);
    let pair = b
        .vector_shuffle(uvec2, None, bank_row, bank_row, [0, 1])
        .unwrap();
    let ptr = b.bitcast(u64t, None, pair).unwrap();
    let lv_row = row(&mut b, lv, abi::launch_word::WINDOW_BASE);
    let base_pair = b
        .vector_shuffle(uvec2, None, lv_row, lv_row, [0, 1])
        .unwrap();
    let base = b.bitcast(u64t, None, base_pair).unwrap();
    let off = b.i_sub(u64t, None, ptr, base).unwrap();
    let two = b.constant_bit32(u32t, 2);
    let word0 = b.shift_right_logical(u64t, None, off, two).unwrap();
    let word0 = b.u_convert(u32t, None, word0).unwrap();
    let idx = b.i_add(u32t, None, word0, gid).unwrap();
    let p = b.access_chain(ptr_sb, None, window, [zero, idx]).unwrap();
    b.store(p, value, None, []).unwrap();
    b.ret().unwrap();
    b.end_function().unwrap();
    b.entry_point(
        ExecutionModel::GLCompute,
        main,
        abi::ENTRY_POINT,
        [lv, bank0, window, shared, wg_id, local_id],
    );
    b.module().assemble()
}

/// A module whose only resource is a `Workgroup` array of `words` u32 plus a `uvec2` (static shared memory
/// of `4 * words + 8` bytes), written by thread 0.
pub fn static_shared_kernel(words: u32) -> Vec<u32> {
    let mut b = Builder::new();
    b.set_version(1, 6);
    b.capability(Capability::Shader);
    b.memory_model(AddressingModel::Logical, MemoryModel::GLSL450);
    let void = b.type_void();
    let u32t = b.type_int(32, 0);
    let uvec2 = b.type_vector(u32t, 2);
    let uvec3 = b.type_vector(u32t, 3);
    let len = b.constant_bit32(u32t, words);
    let arr = b.type_array(u32t, len);
    let st = b.type_struct([arr, uvec2]);
    let ptr = b.type_pointer(None, StorageClass::Workgroup, st);
    let shared = b.variable(ptr, None, StorageClass::Workgroup, None);
    let one = b.constant_bit32(u32t, 1);
    let wg_size = b.constant_composite(uvec3, [one, one, one]);
    b.decorate(
        wg_size,
        Decoration::BuiltIn,
        [Operand::BuiltIn(BuiltIn::WorkgroupSize)],
    );
    let fn_ty = b.type_function(void, []);
    let main = b
        .begin_function(void, None, spirv::FunctionControl::NONE, fn_ty)
        .unwrap();
    b.begin_block(None).unwrap();
    let zero = b.constant_bit32(u32t, 0);
    let elem = b.type_pointer(None, StorageClass::Workgroup, u32t);
    let p = b.access_chain(elem, None, shared, [zero, zero]).unwrap();
    b.store(p, one, None, []).unwrap();
    b.ret().unwrap();
    b.end_function().unwrap();
    b.entry_point(ExecutionModel::GLCompute, main, abi::ENTRY_POINT, [shared]);
    b.module().assemble()
}

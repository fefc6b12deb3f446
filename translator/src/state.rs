//! Guest state of one SM86 thread as SPIR-V variables, and the memory spaces it reaches.
//!
//! - Registers R0-R254, predicates P0-P6, uniform registers UR0-UR62 and uniform predicates UP0-UP6 are each a
//!   Function-storage variable of their own, created (zero-initialised) on first use: drivers promote such
//!   variables to SSA, which a run-time indexed register array would defeat. RZ/URZ read 0 and drop writes;
//!   PT/UPT read true and drop writes. Uniform registers are per-thread copies here; nvcc only writes them with
//!   warp-uniform values, so the copies agree.
//! - Constant banks are `uvec4` arrays in uniform blocks (bank `b` at binding `1 + b`); each block's length is
//!   fixed when the module is finished, from the highest offset read (whole 64 KiB when an offset is indexed).
//! - The global window is one storage buffer of `uint` (binding 33), addressed by guest address minus the
//!   window base from the launch values; every access is checked, see `lower::memory`.
//!   With `abi::WindowChunks` it is an array of chunk buffers ([`window`] does all the addressing).
//! - Local memory is a Function array of words; shared memory a Workgroup array of words.

pub mod window;

use crate::abi;
use crate::spirv::{Decoration, Id, Module, Op, StorageClass, Type};

/// Ids of the types every lowering uses, declared once per module.
#[derive(Debug, Clone, Copy)]
pub struct Types {
    pub void: Id,
    pub bool: Id,
    pub u32: Id,
    pub u64: Id,
    pub f32: Id,
    pub uvec3: Id,
    pub uvec4: Id,
    pub fn_u32: Id,
    pub fn_bool: Id,
    /// `Uniform` pointer to u32 (constant-bank and launch-value words).
    pub uniform_u32: Id,
    /// `StorageBuffer` pointer to u32 (window words).
    pub storage_u32: Id,
}

impl Types {
    pub fn declare(m: &mut Module) -> Types {
        let void = m.t_void();
        let bool = m.t_bool();
        let u32 = m.t_u32();
        let u64 = m.t_u64();
        let f32 = m.t_f32();
        let uvec3 = m.ty(Type::Vector(u32, 3));
        let uvec4 = m.ty(Type::Vector(u32, 4));
        let fn_u32 = m.t_ptr(StorageClass::Function, u32);
        let fn_bool = m.t_ptr(StorageClass::Function, bool);
        let uniform_u32 = m.t_ptr(StorageClass::Uniform, u32);
        let storage_u32 = m.t_ptr(StorageClass::StorageBuffer, u32);
        Types { void, bool, u32, u64, f32, uvec3, uvec4, fn_u32, fn_bool, uniform_u32, storage_u32 }
    }
}

/// One uniform block (launch values or a constant bank): its variable id, declared lazily with the length
/// it needs when the module is finished.
#[derive(Debug, Clone, Copy)]
pub struct UniformBlock {
    pub var: Id,
    pub binding: u32,
    /// Number of `uvec4`s the reads need.
    pub vec4s: u32,
}

/// Per-thread guest state and module-level resources.
#[derive(Debug)]
pub struct State {
    regs: Vec<Id>,
    preds: [Id; 8],
    uregs: Vec<Id>,
    upreds: [Id; 8],
    /// Launch values (binding 0) and banks 0..31 (bindings 1..=32), created on first read.
    pub uniforms: Vec<Option<UniformBlock>>,
    /// Global window (binding 33): variable id.
    pub window: Option<Id>,
    /// 64-bit view of the window (same binding), for 64-bit atomics.
    pub window64: Option<Id>,
    /// The window's form (`None`: one buffer; from `DeviceProfile::window_chunks`).
    pub window_chunks: Option<abi::WindowChunks>,
    /// Local memory: Function array variable and its length in words.
    pub local: Option<(Id, u32)>,
    /// Shared memory: Workgroup array variable and its static length in words.
    pub shared: Option<(Id, Id)>,
    /// Lock word (Workgroup u32, zero-initialised) serialising 64-bit compare-and-store on shared memory.
    pub shared_lock: Option<Id>,
    /// The kernel's shared memory lives in a per-block slot of the window instead of a Workgroup array
    /// (its static size exceeds the device's shared memory; `docs/block-order.md`).
    pub shared_in_window: bool,
    pub local_words: u32,
    pub shared_static_bytes: u32,
}

impl State {
    pub fn new(local_bytes: u32, shared_bytes: u32) -> State {
        State {
            regs: vec![0; 256],
            preds: [0; 8],
            uregs: vec![0; 64],
            upreds: [0; 8],
            uniforms: vec![None; 1 + abi::CONSTANT_BANK_COUNT as usize],
            window: None,
            window64: None,
            window_chunks: None,
            local: None,
            shared: None,
            shared_lock: None,
            shared_in_window: false,
            local_words: local_bytes.div_ceil(4),
            shared_static_bytes: shared_bytes,
        }
    }

    fn var(m: &mut Module, slot: &mut Id, ptr: Id, zero: Id) -> Id {
        if *slot == 0 {
            *slot = m.local_var(ptr, Some(zero));
        }
        *slot
    }

    /// Reads `R<r>` (RZ reads 0).
    pub fn reg(&mut self, m: &mut Module, t: &Types, r: u8) -> Id {
        if r == 255 {
            return m.c_u32(0);
        }
        let zero = m.c_u32(0);
        let v = Self::var(m, &mut self.regs[usize::from(r)], t.fn_u32, zero);
        m.load(t.u32, v)
    }

    /// Writes `R<r>` (writes to RZ are dropped).
    pub fn set_reg(&mut self, m: &mut Module, t: &Types, r: u8, value: Id) {
        if r == 255 {
            return;
        }
        let zero = m.c_u32(0);
        let v = Self::var(m, &mut self.regs[usize::from(r)], t.fn_u32, zero);
        m.store(v, value);
    }

    /// Reads `UR<r>` (URZ reads 0).
    pub fn ureg(&mut self, m: &mut Module, t: &Types, r: u8) -> Id {
        let r = r & 63;
        if r == 63 {
            return m.c_u32(0);
        }
        let zero = m.c_u32(0);
        let v = Self::var(m, &mut self.uregs[usize::from(r)], t.fn_u32, zero);
        m.load(t.u32, v)
    }

    pub fn set_ureg(&mut self, m: &mut Module, t: &Types, r: u8, value: Id) {
        let r = r & 63;
        if r == 63 {
            return;
        }
        let zero = m.c_u32(0);
        let v = Self::var(m, &mut self.uregs[usize::from(r)], t.fn_u32, zero);
        m.store(v, value);
    }

    /// Reads `P<p>` (PT reads true).
    pub fn pred(&mut self, m: &mut Module, t: &Types, p: u8) -> Id {
        let p = p & 7;
        if p == 7 {
            return m.c_bool(true);
        }
        let f = m.c_bool(false);
        let v = Self::var(m, &mut self.preds[usize::from(p)], t.fn_bool, f);
        m.load(t.bool, v)
    }

    pub fn set_pred(&mut self, m: &mut Module, t: &Types, p: u8, value: Id) {
        let p = p & 7;
        if p == 7 {
            return;
        }
        let f = m.c_bool(false);
        let v = Self::var(m, &mut self.preds[usize::from(p)], t.fn_bool, f);
        m.store(v, value);
    }

    /// Reads `UP<p>` (UPT reads true).
    pub fn upred(&mut self, m: &mut Module, t: &Types, p: u8) -> Id {
        let p = p & 7;
        if p == 7 {
            return m.c_bool(true);
        }
        let f = m.c_bool(false);
        let v = Self::var(m, &mut self.upreds[usize::from(p)], t.fn_bool, f);
        m.load(t.bool, v)
    }

    pub fn set_upred(&mut self, m: &mut Module, t: &Types, p: u8, value: Id) {
        let p = p & 7;
        if p == 7 {
            return;
        }
        let f = m.c_bool(false);
        let v = Self::var(m, &mut self.upreds[usize::from(p)], t.fn_bool, f);
        m.store(v, value);
    }

    /// The variable of uniform block `index` (0 = launch values, 1 + b = bank b), noting that `vec4s`
    /// `uvec4`s must be readable.
    pub fn uniform(&mut self, m: &mut Module, index: usize, vec4s: u32) -> Id {
        let Some(slot) = self.uniforms.get_mut(index) else { return 0 };
        match slot {
            Some(b) => {
                b.vec4s = b.vec4s.max(vec4s);
                b.var
            }
            None => {
                let var = m.id();
                m.add_interface(var);
                *slot = Some(UniformBlock { var, binding: index as u32, vec4s });
                var
            }
        }
    }

    /// Reads 32-bit word `word` of uniform block `index` at a constant position (a direct load).
    pub fn uniform_word(&mut self, m: &mut Module, t: &Types, index: usize, word: u32) -> Id {
        let var = self.uniform(m, index, word / 4 + 1);
        let zero = m.c_u32(0);
        let v = m.c_u32(word / 4);
        let c = m.c_u32(word % 4);
        let p = m.access(t.uniform_u32, var, &[zero, v, c]);
        m.load(t.u32, p)
    }

    /// Declares the uniform blocks (with their final lengths), in binding order. Called by `finish`.
    pub fn declare_uniforms(&self, m: &mut Module, t: &Types) {
        for b in self.uniforms.iter().flatten() {
            let len = m.c_u32(b.vec4s.max(1));
            let arr = m.ty(Type::Array(t.uvec4, len, Some(abi::UNIFORM_ARRAY_STRIDE)));
            let block = m.ty(Type::Block(arr));
            let ptr = m.t_ptr(StorageClass::Uniform, block);
            m.global_inst(crate::spirv::Op::Variable, &[ptr, b.var, StorageClass::Uniform as u32]);
            m.decorate(b.var, Decoration::DescriptorSet, &[abi::DESCRIPTOR_SET]);
            m.decorate(b.var, Decoration::Binding, &[b.binding]);
        }
    }

    /// This state with binding 33 in the form `chunks` says (`None`: one buffer).
    pub fn with_window_chunks(mut self, chunks: Option<abi::WindowChunks>) -> State {
        self.window_chunks = chunks;
        self
    }

    /// The global-window variable (binding 33, `struct { uint words[]; }`, or an array of them for chunks).
    pub fn window(&mut self, m: &mut Module, t: &Types) -> Id {
        self.window_form(m, t).var
    }

    /// The global window (32-bit view) with its form, for [`window::Window`]'s addressing.
    pub fn window_form(&mut self, m: &mut Module, t: &Types) -> window::Window {
        if let Some(var) = self.window {
            return window::Window { var, chunks: self.window_chunks, view_log2: 2 };
        }
        let w = window::Window::declare(m, t.u32, 4, self.window_chunks);
        self.window = Some(w.var);
        w
    }

    /// Local memory (Function array of `local_words` words, zero-initialised).
    pub fn local(&mut self, m: &mut Module, t: &Types) -> (Id, u32) {
        if let Some(l) = self.local {
            return l;
        }
        let words = self.local_words.max(1);
        let len = m.c_u32(words);
        let arr = m.ty(Type::Array(t.u32, len, None));
        let ptr = m.t_ptr(StorageClass::Function, arr);
        let null = m.c_null(arr);
        let var = m.local_var(ptr, Some(null));
        self.local = Some((var, words));
        (var, words)
    }

    /// Shared memory: a Workgroup array of the block's allocation as the hardware sizes it
    /// ([`shared_allocation_words`] of the static size, spec id
    /// [`abi::SPEC_ID_STATIC_SHARED_BYTES`], and the dynamic size, [`abi::SPEC_ID_DYNAMIC_SHARED_BYTES`]), or one
    /// word that no access reaches when that is 0 (an array is never empty). Returns the variable and the id of the
    /// allocation in words (a spec constant): the bound every shared access is checked against.
    pub fn shared(&mut self, m: &mut Module, t: &Types) -> (Id, Id) {
        if let Some(s) = self.shared {
            return s;
        }
        let dynamic = m.spec_u32(abi::SPEC_ID_DYNAMIC_SHARED_BYTES, 0);
        let fixed = m.spec_u32(abi::SPEC_ID_STATIC_SHARED_BYTES, self.shared_static_bytes);
        let bound = shared_allocation_words(m, t, fixed, dynamic);
        if self.shared_in_window {
            // The runtime reads this marker and gives each block a slot of `bound` words in the window.
            m.spec_u32(abi::SPEC_ID_SHARED_IN_WINDOW, 1);
            let var = self.window(m, t);
            self.shared = Some((var, bound));
            return (var, bound);
        }
        let (zero, one) = (m.c_u32(0), m.c_u32(1));
        let empty = m.id();
        m.global_inst(crate::spirv::Op::SpecConstantOp, &[t.bool, empty, crate::spirv::Op::IEqual as u32, bound, zero]);
        let len = m.id();
        m.global_inst(crate::spirv::Op::SpecConstantOp, &[t.u32, len, crate::spirv::Op::Select as u32, empty, one, bound]);
        let arr = m.ty(Type::Array(t.u32, len, None));
        let ptr = m.t_ptr(StorageClass::Workgroup, arr);
        let var = m.global_var(ptr, StorageClass::Workgroup, None);
        self.shared = Some((var, bound));
        (var, bound)
    }

    /// The shared-memory lock word: a Workgroup u32 starting at 0 (`OpConstantNull` initialiser;
    /// `shaderZeroInitializeWorkgroupMemory` is core in Vulkan 1.3, which the runtime requires).
    pub fn shared_lock(&mut self, m: &mut Module, t: &Types) -> Id {
        if let Some(v) = self.shared_lock {
            return v;
        }
        let ptr = m.t_ptr(StorageClass::Workgroup, t.u32);
        let null = m.c_null(t.u32);
        let var = m.global_var(ptr, StorageClass::Workgroup, Some(null));
        self.shared_lock = Some(var);
        var
    }
}

/// Granule, in bytes, to which the hardware rounds a block's shared-memory allocation (static + dynamic). An
/// access below the rounded size runs as on silicon; one at or past it is a fault (kinds 9, 10, 11).
/// Measured natively on an H200 (`corpus/silicon/limits.first_faults.txt`): for static arrays of 16 to 4112
/// bytes, dynamic parts of 0 to 4100 and both together, every store and load below static + dynamic rounded
/// up to 128 ran and every one at or past it faulted (`cudaErrorIllegalAddress`), which is also what the
/// hardware's own `%total_smem_size` reads. (The H200's 1 KiB of reserved shared memory lies before the
/// kernel's, so offsets just below 0 do not fault there; SM86 code addresses its shared memory from 0.)
pub const SHARED_ALLOCATION_GRANULE: u32 = 128;

/// Bytes of shared memory a block can access without a fault: its allocation as the hardware sizes it, the
/// static and dynamic parts together rounded up to [`SHARED_ALLOCATION_GRANULE`]. [`shared_allocation_words`]
/// is the module's form of the same function.
pub const fn shared_allocation_bytes(static_bytes: u32, dynamic_bytes: u32) -> u64 {
    let g = SHARED_ALLOCATION_GRANULE as u64;
    (static_bytes as u64 + dynamic_bytes as u64).div_ceil(g) * g
}

/// [`shared_allocation_bytes`] in words, as a specialisation-constant expression of the static and dynamic
/// sizes (spec ids 4 and 3), so one module serves every dynamic size.
pub(crate) fn shared_allocation_words(m: &mut Module, t: &Types, static_bytes: Id, dynamic_bytes: Id) -> Id {
    const { assert!(SHARED_ALLOCATION_GRANULE.is_power_of_two() && SHARED_ALLOCATION_GRANULE >= 4) };
    let spec_op = |m: &mut Module, op: Op, a: Id, b: Id| {
        let id = m.id();
        m.global_inst(Op::SpecConstantOp, &[t.u32, id, op as u32, a, b]);
        id
    };
    let sum = spec_op(m, Op::IAdd, static_bytes, dynamic_bytes);
    let up = m.c_u32(SHARED_ALLOCATION_GRANULE - 1);
    let sum = spec_op(m, Op::IAdd, sum, up);
    let mask = m.c_u32(!(SHARED_ALLOCATION_GRANULE - 1));
    let bytes = spec_op(m, Op::BitwiseAnd, sum, mask);
    let two = m.c_u32(2);
    spec_op(m, Op::ShiftRightLogical, bytes, two)
}

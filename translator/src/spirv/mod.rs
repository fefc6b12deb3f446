//! The SPIR-V module builder every lowering writes through.
//!
//! A [`Module`] emits SPIR-V words directly (no per-instruction allocation), with its own type and constant
//! caches so that each type and constant is declared once, and ids allocated in emission order — the same
//! calls give byte-identical modules. rspirv supplies the opcode and enum definitions (`rspirv::spirv`) and is
//! used to disassemble and check modules in tests; its `dr::Builder` is not used on the hot path (its type
//! lookup is a linear scan and it allocates per operand).
//!
//! Layout of a module as it is being built:
//! - global sections (capabilities, extensions, imports, entry point, execution modes, names, decorations,
//!   types/constants/global variables) are separate word buffers concatenated by [`Module::finish`];
//! - functions: the one being built has a body buffer and a separate buffer for its `OpVariable`s, which SPIR-V
//!   requires at the start of the first block; [`Module::end_function`] splices them in.
//!
//! Helper functions shared by many call sites (exact floating-point arithmetic, for example) are declared
//! through [`Module::helper`]: the first request emits the function into its own buffer, later ones return the
//! same id, so the emulation is emitted once per module, not once per use.

mod types;

pub use rspirv::spirv::{
    BuiltIn, Capability, Decoration, ExecutionMode, ExecutionModel, FunctionControl, LoopControl, MemorySemantics, Op, Scope,
    SelectionControl, StorageClass,
};
pub use types::Type;

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// A small multiplicative hasher for the id caches (keys are a few integers; SipHash dominated profiles).
#[derive(Default, Clone, Copy)]
pub struct IdHasher(u64);

impl Hasher for IdHasher {
    #[inline]
    fn finish(&self) -> u64 {
        // Fold the well-mixed high half into the low bits, which pick the bucket: a key's low bits only
        // reach the product's low bits, so f32 constants (low mantissa bits zero) all shared one probe chain.
        self.0 ^ (self.0 >> 32)
    }
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.write_u64(u64::from(*b));
        }
    }
    #[inline]
    fn write_u8(&mut self, i: u8) {
        self.write_u64(u64::from(i));
    }
    #[inline]
    fn write_u32(&mut self, i: u32) {
        self.write_u64(u64::from(i));
    }
    #[inline]
    fn write_u64(&mut self, i: u64) {
        self.0 = (self.0.rotate_left(5) ^ i).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
    #[inline]
    fn write_usize(&mut self, i: usize) {
        self.write_u64(i as u64);
    }
}

type IdMap<K, V> = HashMap<K, V, BuildHasherDefault<IdHasher>>;

/// A SPIR-V result id.
pub type Id = u32;

/// GLSL.std.450 extended-instruction numbers used by the lowerings.
pub mod glsl {
    pub const FABS: u32 = 4;
    pub const FLOOR: u32 = 8;
    pub const SQRT: u32 = 31;
    pub const FMIN: u32 = 37;
    pub const UMIN: u32 = 38;
    pub const SMIN: u32 = 39;
    pub const FMAX: u32 = 40;
    pub const UMAX: u32 = 41;
    pub const SMAX: u32 = 42;
    pub const FMA: u32 = 50;
    pub const NMIN: u32 = 79;
    pub const NMAX: u32 = 80;
    pub const FIND_UMSB: u32 = 75;
    pub const FIND_SMSB: u32 = 74;
}

/// Key of the constant cache: type id and the value's bits (zero-extended).
type ConstKey = (Id, u64);

/// A SPIR-V module being built. See the module documentation.
#[derive(Debug)]
pub struct Module {
    bound: Id,
    capabilities: Vec<Capability>,
    extensions: Vec<&'static str>,
    glsl: Option<Id>,
    header: Vec<u32>,
    names: Vec<u32>,
    annotations: Vec<u32>,
    globals: Vec<u32>,
    types: IdMap<Type, Id>,
    constants: IdMap<ConstKey, Id>,
    null_constants: IdMap<Id, Id>,
    /// u32 constants 0..256 by value (the hot path of every lowering).
    small_u32: Vec<Id>,
    /// Finished functions (helpers and the entry point), in completion order, each in its own buffer: the
    /// entry point of a big kernel is most of the module, and [`Module::finish`] reuses its buffer.
    functions: Vec<Function>,
    /// The function being built: body and its variables.
    body: Vec<u32>,
    fn_vars: Vec<u32>,
    /// Position in `body` after the first `OpLabel` of the current function (where variables go).
    var_insert: Option<usize>,
    /// Ids of `bool`, `u32`, `u64` and `f32` once declared (0 before): the lowerings ask for them for
    /// nearly every instruction they emit.
    scalars: [Id; 4],
    /// Saved outer function while a helper is emitted (helpers may be requested mid-function).
    saved: Vec<(Vec<u32>, Vec<u32>, Option<usize>, Option<Id>)>,
    helpers: IdMap<&'static str, Id>,
    /// The block being emitted into, if any (None after a terminator).
    current_block: Option<Id>,
    interface: Vec<Id>,
    /// Where each capability beyond the first ones came from (the instruction that first needed it), for
    /// refusals on devices that lack it ([`Module::note_capability_sites`]).
    capability_sites: Vec<(Capability, String)>,
    /// The target has no `Float64`: helpers compute every f64 step in integers (`lower::soft_f64`).
    soft_float64: bool,
    /// `PhysicalStorageBuffer` pointers and their alignment: [`Module::load`] and [`Module::store`] through
    /// them carry the `Aligned` operand SPIR-V requires ([`Module::physical_pointer`]).
    physical: IdMap<Id, u32>,
}

/// A finished function: its words with its `OpVariable`s still apart, to go in at `at` (after its first
/// `OpLabel`).
#[derive(Debug, Clone)]
struct Function {
    words: Vec<u32>,
    vars: Vec<u32>,
    at: usize,
}

impl Function {
    fn len(&self) -> usize {
        self.words.len() + self.vars.len()
    }

    fn write(&self, out: &mut Vec<u32>) {
        let at = self.at.min(self.words.len());
        out.extend_from_slice(&self.words[..at]);
        out.extend_from_slice(&self.vars);
        out.extend_from_slice(&self.words[at..]);
    }
}

impl Default for Module {
    fn default() -> Self {
        Self::new()
    }
}

#[inline]
fn string_words(s: &str, out: &mut Vec<u32>) {
    let bytes = s.as_bytes();
    let mut i = 0;
    loop {
        let mut w = [0u8; 4];
        for (k, slot) in w.iter_mut().enumerate() {
            if let Some(b) = bytes.get(i + k) {
                *slot = *b;
            }
        }
        out.push(u32::from_le_bytes(w));
        i += 4;
        if i > bytes.len() {
            break;
        }
    }
}

#[inline]
fn string_len_words(s: &str) -> usize {
    s.len() / 4 + 1
}

impl Module {
    pub fn new() -> Self {
        Module {
            bound: 1,
            capabilities: vec![Capability::Shader],
            extensions: Vec::new(),
            glsl: None,
            header: Vec::new(),
            names: Vec::new(),
            annotations: Vec::new(),
            globals: Vec::with_capacity(1024),
            types: IdMap::with_capacity_and_hasher(64, Default::default()),
            constants: IdMap::with_capacity_and_hasher(256, Default::default()),
            null_constants: IdMap::default(),
            small_u32: Vec::new(),
            functions: Vec::new(),
            scalars: [0; 4],
            body: Vec::with_capacity(4096),
            fn_vars: Vec::new(),
            var_insert: None,
            saved: Vec::new(),
            helpers: IdMap::default(),
            current_block: None,
            interface: Vec::new(),
            capability_sites: Vec::new(),
            soft_float64: false,
            physical: Default::default(),
        }
    }

    /// A fresh id.
    #[inline]
    pub fn id(&mut self) -> Id {
        let id = self.bound;
        self.bound += 1;
        id
    }

    /// Declares a capability (once).
    pub fn capability(&mut self, c: Capability) {
        if !self.capabilities.contains(&c) {
            self.capabilities.push(c);
        }
    }

    /// Chooses soft double for the whole module (the target lacks `Float64`); set before anything is emitted.
    pub fn set_soft_float64(&mut self, soft: bool) {
        self.soft_float64 = soft;
    }

    /// Whether f64 steps must be integer code (no `Float64` on the target).
    pub fn soft_float64(&self) -> bool {
        self.soft_float64
    }

    /// The capabilities declared so far, in declaration order.
    pub fn capabilities(&self) -> &[Capability] {
        &self.capabilities
    }

    /// Attributes the capabilities declared from index `from` on to `site` (an instruction and its offset).
    pub fn note_capability_sites(&mut self, from: usize, site: &str) {
        for c in self.capabilities.get(from..).unwrap_or(&[]) {
            self.capability_sites.push((*c, site.to_string()));
        }
    }

    /// The instruction that first needed capability `c`, if one was noted.
    pub fn capability_site(&self, c: Capability) -> Option<&str> {
        self.capability_sites.iter().find(|(k, _)| *k == c).map(|(_, s)| s.as_str())
    }

    /// Declares an extension (once).
    pub fn extension(&mut self, name: &'static str) {
        if !self.extensions.contains(&name) {
            self.extensions.push(name);
        }
    }

    /// The `GLSL.std.450` import.
    pub fn glsl(&mut self) -> Id {
        if let Some(id) = self.glsl {
            return id;
        }
        let id = self.id();
        self.glsl = Some(id);
        id
    }

    /// Adds a global variable to the entry point's interface (SPIR-V 1.4+ lists all globals).
    pub fn add_interface(&mut self, var: Id) {
        self.interface.push(var);
    }

    // ---- raw emission -------------------------------------------------------------------------------

    #[inline]
    fn emit_to(buf: &mut Vec<u32>, op: Op, words: &[u32]) {
        buf.push(((words.len() as u32 + 1) << 16) | op as u32);
        buf.extend_from_slice(words);
    }

    /// Emits a global-section instruction (types, constants, global variables).
    pub fn global_inst(&mut self, op: Op, words: &[u32]) {
        Self::emit_to(&mut self.globals, op, words);
    }

    /// `OpName` for debugging; kept out of hot paths.
    pub fn name(&mut self, id: Id, name: &str) {
        self.names.push(((2 + string_len_words(name) as u32) << 16) | Op::Name as u32);
        self.names.push(id);
        string_words(name, &mut self.names);
    }

    /// `OpDecorate id decoration literals...`.
    pub fn decorate(&mut self, id: Id, d: Decoration, literals: &[u32]) {
        self.annotations.push(((3 + literals.len() as u32) << 16) | Op::Decorate as u32);
        self.annotations.push(id);
        self.annotations.push(d as u32);
        self.annotations.extend_from_slice(literals);
    }

    /// `OpMemberDecorate`.
    pub fn member_decorate(&mut self, id: Id, member: u32, d: Decoration, literals: &[u32]) {
        self.annotations.push(((4 + literals.len() as u32) << 16) | Op::MemberDecorate as u32);
        self.annotations.push(id);
        self.annotations.push(member);
        self.annotations.push(d as u32);
        self.annotations.extend_from_slice(literals);
    }

    // ---- types and constants ------------------------------------------------------------------------

    /// The id of a type, declaring it (and the types it uses) on first request.
    pub fn ty(&mut self, t: Type) -> Id {
        if let Some(&id) = self.types.get(&t) {
            return id;
        }
        let id = types::declare(self, t);
        self.types.insert(t, id);
        id
    }

    pub fn t_void(&mut self) -> Id {
        self.ty(Type::Void)
    }
    #[inline]
    fn scalar(&mut self, k: usize, t: Type) -> Id {
        match self.scalars[k] {
            0 => {
                let id = self.ty(t);
                self.scalars[k] = id;
                id
            }
            id => id,
        }
    }
    #[inline]
    pub fn t_bool(&mut self) -> Id {
        self.scalar(0, Type::Bool)
    }
    #[inline]
    pub fn t_u32(&mut self) -> Id {
        self.scalar(1, Type::Int(32))
    }
    #[inline]
    pub fn t_u64(&mut self) -> Id {
        self.scalar(2, Type::Int(64))
    }
    #[inline]
    pub fn t_f32(&mut self) -> Id {
        self.scalar(3, Type::Float(32))
    }
    pub fn t_f64(&mut self) -> Id {
        self.ty(Type::Float(64))
    }
    /// Pointer to `pointee` in `class`.
    pub fn t_ptr(&mut self, class: StorageClass, pointee: Id) -> Id {
        self.ty(Type::Pointer(class, pointee))
    }

    /// A scalar constant of type `ty` with the given bits (for 64-bit types both words). Cached.
    pub fn constant(&mut self, ty: Id, bits: u64, wide: bool) -> Id {
        if let Some(&id) = self.constants.get(&(ty, bits)) {
            return id;
        }
        let id = self.id();
        if wide {
            Self::emit_to(&mut self.globals, Op::Constant, &[ty, id, bits as u32, (bits >> 32) as u32]);
        } else {
            Self::emit_to(&mut self.globals, Op::Constant, &[ty, id, bits as u32]);
        }
        self.constants.insert((ty, bits), id);
        id
    }

    #[inline]
    pub fn c_u32(&mut self, v: u32) -> Id {
        if let Some(&id) = self.small_u32.get(v as usize) {
            if id != 0 {
                return id;
            }
        }
        let t = self.t_u32();
        let id = self.constant(t, u64::from(v), false);
        if v < 256 {
            if self.small_u32.is_empty() {
                self.small_u32 = vec![0; 256];
            }
            self.small_u32[v as usize] = id;
        }
        id
    }
    pub fn c_u64(&mut self, v: u64) -> Id {
        let t = self.t_u64();
        self.constant(t, v, true)
    }
    pub fn c_f32_bits(&mut self, bits: u32) -> Id {
        let t = self.t_f32();
        self.constant(t, u64::from(bits), false)
    }
    pub fn c_bool(&mut self, v: bool) -> Id {
        let t = self.t_bool();
        // Bool constants are OpConstantTrue/False; cache under a distinct key (bits 2/3 never clash with a
        // numeric constant of type bool, which does not exist).
        if let Some(&id) = self.constants.get(&(t, u64::from(v))) {
            return id;
        }
        let id = self.id();
        let op = if v { Op::ConstantTrue } else { Op::ConstantFalse };
        Self::emit_to(&mut self.globals, op, &[t, id]);
        self.constants.insert((t, u64::from(v)), id);
        id
    }
    /// `OpConstantNull` of a type (zero-initialised arrays, for example). Cached.
    pub fn c_null(&mut self, ty: Id) -> Id {
        if let Some(&id) = self.null_constants.get(&ty) {
            return id;
        }
        let id = self.id();
        Self::emit_to(&mut self.globals, Op::ConstantNull, &[ty, id]);
        self.null_constants.insert(ty, id);
        id
    }

    /// A specialisation constant (u32) with a default value and a `SpecId`.
    pub fn spec_u32(&mut self, spec_id: u32, default: u32) -> Id {
        let t = self.t_u32();
        let id = self.id();
        Self::emit_to(&mut self.globals, Op::SpecConstant, &[t, id, default]);
        self.decorate(id, Decoration::SpecId, &[spec_id]);
        id
    }

    /// A module-scope variable; Private and Workgroup ones are added to the interface.
    pub fn global_var(&mut self, pointer_ty: Id, class: StorageClass, init: Option<Id>) -> Id {
        let id = self.id();
        match init {
            Some(i) => Self::emit_to(&mut self.globals, Op::Variable, &[pointer_ty, id, class as u32, i]),
            None => Self::emit_to(&mut self.globals, Op::Variable, &[pointer_ty, id, class as u32]),
        }
        self.interface.push(id);
        id
    }

    // ---- functions and blocks -----------------------------------------------------------------------

    /// Starts a function of type `fn_ty` returning `ret`; returns its id. Follow with [`Module::param`]s and a
    /// [`Module::label`].
    pub fn begin_function(&mut self, ret: Id, fn_ty: Id, control: FunctionControl) -> Id {
        let id = self.id();
        Self::emit_to(&mut self.body, Op::Function, &[ret, id, control.bits(), fn_ty]);
        self.var_insert = None;
        id
    }

    /// A function parameter.
    pub fn param(&mut self, ty: Id) -> Id {
        let id = self.id();
        Self::emit_to(&mut self.body, Op::FunctionParameter, &[ty, id]);
        id
    }

    /// Starts block `label` (an id from [`Module::id`]).
    #[inline]
    pub fn label(&mut self, label: Id) {
        Self::emit_to(&mut self.body, Op::Label, &[label]);
        if self.var_insert.is_none() {
            self.var_insert = Some(self.body.len());
        }
        self.current_block = Some(label);
    }

    /// The block being emitted into.
    pub fn current_block(&self) -> Option<Id> {
        self.current_block
    }

    /// A Function-storage variable of `pointer_ty`, placed at the start of the current function's first block.
    pub fn local_var(&mut self, pointer_ty: Id, init: Option<Id>) -> Id {
        let id = self.id();
        match init {
            Some(i) => Self::emit_to(&mut self.fn_vars, Op::Variable, &[pointer_ty, id, StorageClass::Function as u32, i]),
            None => Self::emit_to(&mut self.fn_vars, Op::Variable, &[pointer_ty, id, StorageClass::Function as u32]),
        }
        id
    }

    /// Ends the current function (`OpFunctionEnd`) and moves it to the finished functions.
    pub fn end_function(&mut self) {
        Self::emit_to(&mut self.body, Op::FunctionEnd, &[]);
        let at = self.var_insert.unwrap_or(self.body.len());
        // The buffers as they are: copying a body of millions of words (a 20k-instruction kernel) into a new
        // buffer cost more in page faults than emitting it; `finish` puts the variables in.
        let words = std::mem::take(&mut self.body);
        let vars = std::mem::take(&mut self.fn_vars);
        self.functions.push(Function { words, vars, at });
        self.var_insert = None;
        self.current_block = None;
    }

    /// Returns the id of helper function `key`, emitting it with `build` on first request. `build` receives
    /// the module with a fresh function context (the caller's function is saved and restored around it) and
    /// must emit one whole function (`begin_function` .. `end_function`) and return its id.
    pub fn helper(&mut self, key: &'static str, build: impl FnOnce(&mut Module) -> Id) -> Id {
        if let Some(&id) = self.helpers.get(key) {
            return id;
        }
        // Helpers are a few thousand words: start with room for most, rather than growing from nothing.
        let body = std::mem::replace(&mut self.body, Vec::with_capacity(2048));
        let vars = std::mem::take(&mut self.fn_vars);
        self.saved.push((body, vars, self.var_insert.take(), self.current_block.take()));
        let id = build(self);
        if let Some((body, vars, at, block)) = self.saved.pop() {
            self.body = body;
            self.fn_vars = vars;
            self.var_insert = at;
            self.current_block = block;
        }
        self.helpers.insert(key, id);
        id
    }

    // ---- instructions in the current block ----------------------------------------------------------

    /// Emits `op` with a result type and fresh result id; returns the id.
    #[inline]
    pub fn op(&mut self, op: Op, ty: Id, operands: &[Id]) -> Id {
        let id = self.id();
        self.body.push(((operands.len() as u32 + 3) << 16) | op as u32);
        self.body.push(ty);
        self.body.push(id);
        self.body.extend_from_slice(operands);
        id
    }

    /// Emits `op` without result (stores, branches, barriers...).
    #[inline]
    pub fn op_void(&mut self, op: Op, operands: &[u32]) {
        self.body.push(((operands.len() as u32 + 1) << 16) | op as u32);
        self.body.extend_from_slice(operands);
        if matches!(
            op,
            Op::Branch | Op::BranchConditional | Op::Switch | Op::Return | Op::ReturnValue | Op::Unreachable | Op::Kill
        ) {
            self.current_block = None;
        }
    }

    /// A `GLSL.std.450` extended instruction.
    pub fn ext(&mut self, ty: Id, inst: u32, args: &[Id]) -> Id {
        let set = self.glsl();
        let id = self.id();
        self.body.push(((args.len() as u32 + 5) << 16) | Op::ExtInst as u32);
        self.body.extend_from_slice(&[ty, id, set, inst]);
        self.body.extend_from_slice(args);
        id
    }

    #[inline]
    pub fn load(&mut self, ty: Id, ptr: Id) -> Id {
        match self.physical.get(&ptr) {
            None => self.op(Op::Load, ty, &[ptr]),
            Some(&align) => self.op(Op::Load, ty, &[ptr, rspirv::spirv::MemoryAccess::ALIGNED.bits(), align]),
        }
    }
    #[inline]
    pub fn store(&mut self, ptr: Id, value: Id) {
        match self.physical.get(&ptr) {
            None => self.op_void(Op::Store, &[ptr, value]),
            Some(&align) => self.op_void(Op::Store, &[ptr, value, rspirv::spirv::MemoryAccess::ALIGNED.bits(), align]),
        }
    }

    /// `OpConvertUToPtr` of `address` to `ptr_ty` (a `PhysicalStorageBuffer` pointer); loads and stores
    /// through the result are `Aligned` to `align` bytes.
    pub fn physical_pointer(&mut self, ptr_ty: Id, address: Id, align: u32) -> Id {
        let p = self.op(Op::ConvertUToPtr, ptr_ty, &[address]);
        self.physical.insert(p, align);
        p
    }
    #[inline]
    pub fn branch(&mut self, target: Id) {
        self.op_void(Op::Branch, &[target]);
    }
    #[inline]
    pub fn branch_cond(&mut self, cond: Id, t: Id, f: Id) {
        self.op_void(Op::BranchConditional, &[cond, t, f]);
    }
    #[inline]
    pub fn selection_merge(&mut self, merge: Id) {
        self.op_void(Op::SelectionMerge, &[merge, SelectionControl::NONE.bits()]);
    }
    pub fn loop_merge(&mut self, merge: Id, cont: Id, control: LoopControl) {
        self.op_void(Op::LoopMerge, &[merge, cont, control.bits()]);
    }
    /// `OpAccessChain` with the given indices.
    pub fn access(&mut self, ptr_ty: Id, base: Id, indices: &[Id]) -> Id {
        let id = self.id();
        self.body.push(((indices.len() as u32 + 4) << 16) | Op::AccessChain as u32);
        self.body.extend_from_slice(&[ptr_ty, id, base]);
        self.body.extend_from_slice(indices);
        id
    }
    /// [`Module::switch`] that returns where the instruction starts in the current function, for
    /// [`Module::add_switch_cases`] once the cases emitted later are known.
    pub fn switch_extensible(&mut self, selector: Id, default: Id, cases: &[(u32, Id)]) -> usize {
        let at = self.body.len();
        self.switch(selector, default, cases);
        at
    }

    /// Appends `cases` to the `OpSwitch` at `at` ([`Module::switch_extensible`]) of the current function (one
    /// move of the words after it). Returns false, changing nothing, when no `OpSwitch` starts there.
    pub fn add_switch_cases(&mut self, at: usize, cases: &[(u32, Id)]) -> bool {
        let Some(&head) = self.body.get(at) else { return false };
        if head & 0xffff != Op::Switch as u32 || self.var_insert.is_some_and(|v| v > at) {
            return false;
        }
        let count = (head >> 16) as usize + cases.len() * 2;
        let Ok(count) = u16::try_from(count) else { return false };
        let end = at + (head >> 16) as usize;
        let words: Vec<u32> = cases.iter().flat_map(|&(lit, label)| [lit, label]).collect();
        self.body.splice(end..end, words);
        self.body[at] = (u32::from(count) << 16) | Op::Switch as u32;
        true
    }

    /// `OpSwitch selector default (literal, label)*` (32-bit selector).
    pub fn switch(&mut self, selector: Id, default: Id, cases: &[(u32, Id)]) {
        self.body.push(((cases.len() as u32 * 2 + 3) << 16) | Op::Switch as u32);
        self.body.push(selector);
        self.body.push(default);
        for &(lit, label) in cases {
            self.body.push(lit);
            self.body.push(label);
        }
        self.current_block = None;
    }

    // Common arithmetic shorthands (result type first).
    #[inline]
    pub fn bin(&mut self, op: Op, ty: Id, a: Id, b: Id) -> Id {
        self.op(op, ty, &[a, b])
    }
    #[inline]
    pub fn un(&mut self, op: Op, ty: Id, a: Id) -> Id {
        self.op(op, ty, &[a])
    }
    #[inline]
    pub fn select(&mut self, ty: Id, cond: Id, a: Id, b: Id) -> Id {
        self.op(Op::Select, ty, &[cond, a, b])
    }

    // ---- finishing ----------------------------------------------------------------------------------

    /// Sets the entry point and local size; called once, after the entry function is complete.
    pub fn entry_point(&mut self, function: Id, name: &str, modes: &[(ExecutionMode, &[u32])]) {
        self.entry_point_as(ExecutionModel::GLCompute, function, name, modes);
    }

    /// [`Module::entry_point`] for another execution model (the graphics stages).
    pub fn entry_point_as(&mut self, model: ExecutionModel, function: Id, name: &str, modes: &[(ExecutionMode, &[u32])]) {
        let n = 3 + string_len_words(name) + self.interface.len();
        self.header.push(((n as u32) << 16) | Op::EntryPoint as u32);
        self.header.push(model as u32);
        self.header.push(function);
        string_words(name, &mut self.header);
        let mut iface = self.interface.clone();
        iface.sort_unstable();
        iface.dedup();
        self.header.extend_from_slice(&iface);
        for (mode, lits) in modes {
            self.header.push(((3 + lits.len() as u32) << 16) | Op::ExecutionMode as u32);
            self.header.push(function);
            self.header.push(*mode as u32);
            self.header.extend_from_slice(lits);
        }
    }

    /// Number of words emitted into function bodies so far (a size measure for reports).
    pub fn code_words(&self) -> usize {
        self.functions.len() + self.body.len()
    }

    /// The finished module (SPIR-V 1.6).
    pub fn finish(mut self) -> Vec<u32> {
        // Everything before the largest function is built in a small buffer and put in front of that
        // function's words in their own buffer: one move of the big one instead of a copy into a new one.
        let largest = (0..self.functions.len()).max_by_key(|&k| (self.functions[k].words.len(), usize::MAX - k));
        let mut out = Vec::with_capacity(
            5 + self.header.len() + self.names.len() + self.annotations.len() + self.globals.len() + 64,
        );
        out.extend_from_slice(&[0x0723_0203, 0x0001_0600, 0x0053_5350, self.bound, 0]);
        for c in &self.capabilities {
            Self::emit_to(&mut out, Op::Capability, &[*c as u32]);
        }
        for e in &self.extensions {
            out.push(((1 + string_len_words(e) as u32) << 16) | Op::Extension as u32);
            string_words(e, &mut out);
        }
        if let Some(id) = self.glsl {
            let name = "GLSL.std.450";
            out.push(((2 + string_len_words(name) as u32) << 16) | Op::ExtInstImport as u32);
            out.push(id);
            string_words(name, &mut out);
        }
        let uses_vmm = self.capabilities.contains(&Capability::VulkanMemoryModel);
        let model = if uses_vmm { rspirv::spirv::MemoryModel::Vulkan } else { rspirv::spirv::MemoryModel::GLSL450 };
        let addressing = if self.capabilities.contains(&Capability::PhysicalStorageBufferAddresses) {
            rspirv::spirv::AddressingModel::PhysicalStorageBuffer64
        } else {
            rspirv::spirv::AddressingModel::Logical
        };
        Self::emit_to(&mut out, Op::MemoryModel, &[addressing as u32, model as u32]);
        out.extend_from_slice(&self.header);
        out.extend_from_slice(&self.names);
        out.extend_from_slice(&self.annotations);
        out.extend_from_slice(&self.globals);
        out[3] = self.bound;
        let Some(largest) = largest else { return out };
        let after: Vec<Function> = self.functions.drain(largest + 1..).collect();
        let Some(mut big) = self.functions.pop() else { return out };
        out.reserve(self.functions.iter().map(Function::len).sum::<usize>() + big.vars.len() + 8);
        for f in &self.functions {
            f.write(&mut out);
        }
        if big.words.len() < out.len() {
            // A small module: plain concatenation.
            out.reserve_exact(big.len() + after.iter().map(Function::len).sum::<usize>());
            for f in std::iter::once(&big).chain(&after) {
                f.write(&mut out);
            }
            return out;
        }
        let at = big.at.min(big.words.len());
        out.extend_from_slice(&big.words[..at]);
        out.extend_from_slice(&big.vars);
        big.words.reserve_exact(out.len() - at + after.iter().map(Function::len).sum::<usize>());
        big.words.splice(0..at, out.iter().copied());
        for f in &after {
            f.write(&mut big.words);
        }
        big.words
    }
}

//! Calls to the functions the CUDA driver provides outside the cubin: `vprintf` (device `printf`),
//! `__assertfail` (a failed `assert`), `malloc` and `free` (the device heap, `super::heap`), and `LEPC`, which
//! makes their return address. Calls into the device runtime (dynamic parallelism, device graphs) are
//! refused by name as [`TranslateError::DeviceRuntime`].
//!
//! nvcc calls an extern through a register: `LDC.64 Rt, c[0x4][Rk]` reads a constant-bank-4 word that the
//! cubin relocates (`R_CUDA_64 vprintf`), then `CALL.ABS.NOINC Rt`, after `LEPC` and an `IADD3` pair that put
//! the return address in `R20:R21`. [`bind_extern_calls`] follows the target register back through every
//! path of blocks before the call (across earlier extern calls, whose builtins write only their result
//! registers R4 and R5; nvcc hoists the `LDC` of `free` out of branches and loops) to that `LDC` — every
//! definition reaching the call must be one, and all must load the same symbol — (and its index register to
//! a `MOV` of an immediate just before it), looks the bank word up
//! in the bank's relocations, and when the symbol is a known extern makes the call an ordinary instruction
//! of its block (it returns to the next instruction); an extern it does not know is refused by name. A
//! `CALL.ABS` with an immediate target relocated against the extern (`-rdc` code) is recognised the same way.
//! A target it cannot follow (another definition in between, a guarded `LDC`) is left to the indirect-call
//! machinery, which refuses or faults; resolution never guesses.
//!
//! The calls follow nvcc's ABI (`vprintf(const char *fmt, void *args)`: `R4:R5`, `R6:R7`, result in `R4`;
//! `__assertfail(message, file, line, function, charSize)`: `R4:R5`, `R6:R7`, `R8`, `R10:R11`, `R12:R13`):
//! - `vprintf` appends a record to the printf area (`abi::printf_word`): the format string's address, a copy
//!   of the argument bytes made at call time (they are on the thread's stack in local memory: up to
//!   [`abi::PRINTF_MAX_ARG_BYTES`], never past the end of local memory), pc, block and thread. A record that
//!   does not fit is counted, never written out of bounds. It returns what CUDA's returns: the number of
//!   conversions in the format (a scan of the string in the window, `%%` excluded), -1 for a null format.
//! - `__assertfail` writes the fault record (kind [`abi::FAULT_KIND_ASSERT`]) and the assert record, and the
//!   invocation stops, as `BPT.TRAP` does.
//! - `LEPC Rd` reads the code address of the `LEPC` itself (`abi::code_address` of the kernel's code section
//!   and the instruction's offset), all the return-address arithmetic before an extern call needs.

use super::memory::{space, Space, LOCAL_WINDOW};
use super::{Ctx, Src};
use crate::abi;
use crate::cubin::{Cubin, Kernel, SymbolKind};
use crate::error::{display_name, DeviceRuntimeCall, TranslateError};
use crate::program::{Exit, Inst, Program};
use crate::spirv::{FunctionControl, Id, LoopControl, Module, Op, Scope, Type};
use crate::state::Types;
use sassport_gen::RegFile;

/// A function outside the cubin that the translator provides.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ExternFunction {
    /// `int vprintf(const char *format, void *args)`: device `printf`.
    Vprintf,
    /// `void __assertfail(const char *message, const char *file, unsigned line, const char *function,
    /// size_t charSize)`: a failed `assert`.
    AssertFail,
    /// `void *malloc(size_t size)`: the device heap (also what `new` calls).
    Malloc,
    /// `void free(void *pointer)`: the device heap (also what `delete` calls).
    Free,
}

impl ExternFunction {
    /// The symbol name nvcc calls.
    pub fn name(self) -> &'static str {
        match self {
            ExternFunction::Vprintf => "vprintf",
            ExternFunction::AssertFail => "__assertfail",
            ExternFunction::Malloc => "malloc",
            ExternFunction::Free => "free",
        }
    }

    /// The extern with this symbol name.
    pub fn from_name(name: &str) -> Option<ExternFunction> {
        match name {
            "vprintf" => Some(ExternFunction::Vprintf),
            "__assertfail" => Some(ExternFunction::AssertFail),
            "malloc" => Some(ExternFunction::Malloc),
            "free" => Some(ExternFunction::Free),
            _ => None,
        }
    }
}

/// The extern calls of one program, for the lowering.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ExternCalls {
    /// ELF index of the kernel's code section (what `LEPC` reads in bits 47:32).
    pub code_section: u16,
    /// Offsets of `CALL`s that are extern calls, sorted, with the function each calls.
    pub sites: Vec<(u32, ExternFunction)>,
}

impl ExternCalls {
    /// The extern called at `offset`, if that is an extern call site.
    pub fn at(&self, offset: u32) -> Option<ExternFunction> {
        self.sites.binary_search_by_key(&offset, |s| s.0).ok().map(|i| self.sites[i].1)
    }
}

/// Finds the extern calls of `program` (a kernel of `cubin`) and makes each an ordinary instruction of its
/// block that continues at the next instruction. A call to an extern other than `vprintf` and
/// `__assertfail` is refused by name.
pub fn bind_extern_calls(
    cubin: &Cubin<'_>,
    kernel: &Kernel<'_>,
    program: &mut Program,
) -> Result<ExternCalls, TranslateError> {
    let relocated: Vec<(u32, &str)> = cubin
        .code_section(&program.section)
        .map(|c| c.relocations.iter().filter_map(|r| Some((u32::try_from(r.offset).ok()?, r.symbol_name))).collect())
        .unwrap_or_default();
    bind_linked_extern_calls(cubin, kernel, program, &relocated)
}

/// [`bind_extern_calls`] for a program decoded from linked code (`Cubin::link_kernel`): `relocated` lists the
/// `CALL.ABS` instructions with an immediate target that the linker left to externs, by offset, with the symbol.
pub fn bind_linked_extern_calls<'a>(
    cubin: &Cubin<'a>,
    kernel: &Kernel<'_>,
    program: &mut Program,
    relocated: &[(u32, &'a str)],
) -> Result<ExternCalls, TranslateError> {
    let mut calls = ExternCalls { code_section: u16::try_from(kernel.function.section).unwrap_or(0), sites: Vec::new() };
    let candidates: Vec<Inst> =
        program.insts.iter().filter(|i| i.mnemonic == "CALL" && matches!(i.opcode(), 0x0343 | 0x0943)).copied().collect();
    // In offset order, so that a call's resolution may look back across an earlier extern call.
    // Without address-taken functions a register call can only reach an extern: one whose target cannot
    // be followed is refused here, with the reason, rather than as a call to nowhere.
    let externs_only = cubin.address_taken_functions(&program.section).is_empty()
        && cubin.symbols.iter().any(|s| s.kind == SymbolKind::Function && s.section.is_none());
    // The blocks' predecessors, once (a scan of every block per block walked, per call, was quadratic),
    // kept up to date as calls become builtins (`make_builtin`).
    let mut flow = Flow::new(program);
    for call in candidates {
        let Some(symbol) = call_symbol(cubin, kernel, &mut flow, program, &calls, &call, relocated) else {
            if externs_only {
                let reason = if stored_function_pointers(cubin, kernel) {
                    // Seen: C++ virtual calls in -rdc code (the newdelete sample), the vtables in `.nv.global.init`.
                    "call through a register to a function whose address is stored in __device__ data of another \
                     code section (a C++ virtual call through a vtable in -rdc code); functions reached that way \
                     are not linked yet"
                } else {
                    "call target not traced back to a relocated extern (the LDC.64 from a constant bank that nvcc \
                     emits before calling vprintf or __assertfail); not translated yet"
                };
                return Err(TranslateError::NotTranslated {
                    name: display_name(call.word, call.mnemonic),
                    section: program.section.clone(),
                    offset: call.offset,
                    reason: reason.into(),
                });
            }
            continue;
        };
        // The device runtime is refused by name even where `-rdc` linking put libcudadevrt's code in the cubin.
        if let Some(what) = DeviceRuntimeCall::of(symbol) {
            return Err(TranslateError::DeviceRuntime {
                name: display_name(call.word, call.mnemonic),
                section: program.section.clone(),
                offset: call.offset,
                symbol: symbol.to_string(),
                what,
            });
        }
        let defined = cubin.symbols.iter().any(|s| s.name == symbol && s.section.is_some());
        if defined {
            continue; // a device function of the cubin: the indirect-call machinery's business
        }
        let Some(f) = ExternFunction::from_name(symbol) else {
            return Err(TranslateError::NotTranslated {
                name: display_name(call.word, call.mnemonic),
                section: program.section.clone(),
                offset: call.offset,
                reason: format!(
                    "call to the extern function `{symbol}` not translated yet (vprintf, __assertfail, malloc and \
                     free are)"
                ),
            });
        };
        calls.sites.push((call.offset, f));
        make_builtin(program, &mut flow, call.offset);
    }
    Ok(calls)
}

/// Whether data of the cubin (`__device__` variables, constant banks) holds relocated addresses of functions
/// defined in code sections other than `kernel`'s: the targets of C++ virtual calls in `-rdc` code.
fn stored_function_pointers(cubin: &Cubin<'_>, kernel: &Kernel<'_>) -> bool {
    cubin
        .relocation_sections
        .iter()
        .filter(|rs| rs.target_name.starts_with(".nv.global") || rs.target_name.starts_with(".nv.constant"))
        .flat_map(|rs| rs.entries.iter())
        .filter_map(|r| cubin.symbols.get(r.symbol as usize))
        .any(|s| s.kind == SymbolKind::Function && s.section.is_some_and(|sec| sec != kernel.function.section))
}

/// Makes the call at `offset` an ordinary instruction of its block that continues at the next one; the next
/// instruction is no longer a return point (only calls that come back through `RET` make those).
fn make_builtin(program: &mut Program, flow: &mut Flow, offset: u32) {
    let next = offset + 16;
    if let Some(k) = program.blocks.iter().position(|b| b.end == next && b.exit == Exit::Control) {
        let b = &mut program.blocks[k];
        b.exit = Exit::Fall;
        let before = std::mem::replace(&mut b.successors, vec![next]);
        flow.successors_changed(program, k, &before);
    }
    program.return_points.retain(|&r| r != next);
    flow.not_entered(program, next);
}

/// The symbol a `CALL.ABS` reaches, when its target can be followed to a relocation.
fn call_symbol<'a>(
    cubin: &Cubin<'a>,
    kernel: &Kernel<'_>,
    flow: &mut Flow,
    program: &Program,
    calls: &ExternCalls,
    call: &Inst,
    relocated: &[(u32, &'a str)],
) -> Option<&'a str> {
    if call.opcode() == 0x0943 {
        // Immediate target, patched by a relocation of the code at this instruction.
        return relocated.iter().find(|r| r.0 == call.offset).map(|r| r.1);
    }
    if call.word.signed_bits(34, 48) != 0 {
        return None;
    }
    let target = call.bits(24, 8) as u8;
    let regs = [target, target.wrapping_add(1)];
    reaching(flow, program, calls, call.offset, call.offset, &regs, &mut |flow, ldc| {
        ldc_symbol(cubin, kernel, flow, program, calls, call.offset, ldc, target)
    })
}

/// The program's blocks with their predecessors, for walks back from an instruction, and the walks' marks.
struct Flow {
    /// Indices of the blocks each block (by index) may continue from.
    preds: Vec<Vec<usize>>,
    /// Whether a block is the kernel's entry or a return point (entered from outside the straight flow).
    entered: Vec<bool>,
    /// `seen[b] == walk`: block `b` is already queued in the current walk.
    seen: Vec<u32>,
    walk: u32,
}

impl Flow {
    fn new(program: &Program) -> Flow {
        let n = program.blocks.len();
        let index = |off: u32| program.blocks.binary_search_by_key(&off, |b| b.start).ok();
        let mut preds: Vec<Vec<usize>> = vec![Vec::new(); n];
        for (p, pb) in program.blocks.iter().enumerate() {
            for &s in &pb.successors {
                // Each block once per predecessor, as a scan of the blocks' successor lists would find it.
                if let Some(list) = index(s).and_then(|b| preds.get_mut(b)) {
                    if list.last() != Some(&p) {
                        list.push(p);
                    }
                }
            }
        }
        let entered = program
            .blocks
            .iter()
            .map(|b| b.start == program.entry || program.return_points.binary_search(&b.start).is_ok())
            .collect();
        Flow { preds, entered, seen: vec![0; n], walk: 0 }
    }

    /// Block `k`'s successors changed from `before` to what the program says now.
    fn successors_changed(&mut self, program: &Program, k: usize, before: &[u32]) {
        let index = |off: u32| program.blocks.binary_search_by_key(&off, |b| b.start).ok();
        for &s in before {
            if let Some(list) = index(s).and_then(|b| self.preds.get_mut(b)) {
                list.retain(|&p| p != k);
            }
        }
        let Some(block) = program.blocks.get(k) else { return };
        for &s in &block.successors {
            if let Some(list) = index(s).and_then(|b| self.preds.get_mut(b)) {
                if let Err(at) = list.binary_search(&k) {
                    list.insert(at, k);
                }
            }
        }
    }

    /// A block no longer entered from a return (its call became a builtin, `make_builtin`).
    fn not_entered(&mut self, program: &Program, start: u32) {
        if let Ok(b) = program.blocks.binary_search_by_key(&start, |b| b.start) {
            if let Some(e) = self.entered.get_mut(b) {
                *e = start == program.entry;
            }
        }
    }
}

/// What every definition of `regs` that reaches the instruction at `at` says, through `accept`; `None`
/// unless there is one, all are accepted and all agree. `this_call` is the extern call being resolved.
fn reaching<T: PartialEq + Copy>(
    flow: &mut Flow,
    program: &Program,
    calls: &ExternCalls,
    this_call: u32,
    at: u32,
    regs: &[u8],
    accept: &mut dyn FnMut(&mut Flow, &Inst) -> Option<T>,
) -> Option<T> {
    let defs = definitions(flow, program, calls, this_call, at, regs)?;
    let mut found: Option<T> = None;
    for d in defs {
        let v = accept(flow, program.insts.get(d)?)?;
        if found.is_some_and(|f| f != v) {
            return None;
        }
        found = Some(v);
    }
    found
}

/// The instructions (indices into `program.insts`) whose definitions of `regs` reach the instruction at
/// `at`, back through every path of blocks before it (a builtin too when a loop leads back to it); `None`
/// when a path reaches the kernel's entry, a return point or an instruction whose writes are unknown. Each
/// block is walked at most twice (the block of `at` up to it, then whole as a predecessor), so a walk costs
/// at most the program's length.
fn definitions(
    flow: &mut Flow,
    program: &Program,
    calls: &ExternCalls,
    this_call: u32,
    at: u32,
    regs: &[u8],
) -> Option<Vec<usize>> {
    let block_index = |off: u32| program.blocks.partition_point(|b| b.start <= off).checked_sub(1);
    let mut work = vec![(block_index(at)?, at)];
    flow.walk = flow.walk.checked_add(1)?;
    let walk = flow.walk;
    let mut defs = Vec::new();
    while let Some((b, end)) = work.pop() {
        let block = program.blocks.get(b)?;
        let first = program.insts.partition_point(|i| i.offset < block.start);
        let last = program.insts.partition_point(|i| i.offset < end);
        let insts = program.insts.get(first..last)?;
        match last_write(insts, calls, this_call, regs) {
            LastWrite::At(k) => defs.push(first + k),
            LastWrite::Unknown => return None,
            LastWrite::None => {
                // Entered from outside the kernel's straight flow (its entry, or a return from a device
                // function, which may change any register): nothing to follow.
                if flow.entered.get(b).copied().unwrap_or(true) {
                    return None;
                }
                let preds = flow.preds.get(b)?;
                if preds.is_empty() {
                    return None;
                }
                for &p in preds {
                    let seen = flow.seen.get_mut(p)?;
                    if *seen != walk {
                        *seen = walk;
                        work.push((p, program.blocks.get(p)?.end));
                    }
                }
            }
        }
    }
    Some(defs)
}

/// What the last instruction of a run that may write some of `regs` is.
enum LastWrite {
    /// None writes them.
    None,
    /// The instruction at this index.
    At(usize),
    /// One whose writes cannot be told (or an extern call, when they include its result registers R4 and R5).
    Unknown,
}

/// `this_call`: the call being resolved, an extern call too when a loop leads back to it.
fn last_write(insts: &[Inst], calls: &ExternCalls, this_call: u32, regs: &[u8]) -> LastWrite {
    for (k, inst) in insts.iter().enumerate().rev() {
        if calls.at(inst.offset).is_some() || inst.offset == this_call {
            // The builtins write their result (R4, R5) and nothing else; ptxas relies on that too (it keeps
            // the bank index of free in R2 across calls to malloc).
            if regs.iter().any(|r| matches!(r, 4 | 5)) {
                return LastWrite::Unknown;
            }
            continue;
        }
        match writes_any(inst, regs) {
            Some(false) => {}
            Some(true) => return LastWrite::At(k),
            None => return LastWrite::Unknown,
        }
    }
    LastWrite::None
}

/// The symbol of the relocated bank word an `LDC.64 Rt, c[b][imm]` (or `c[b][Rk + imm]` with `Rk` a `MOV`
/// of an immediate just before it) loads into `target`.
#[allow(clippy::too_many_arguments)]
fn ldc_symbol<'a>(
    cubin: &Cubin<'a>,
    kernel: &Kernel<'_>,
    flow: &mut Flow,
    program: &Program,
    calls: &ExternCalls,
    this_call: u32,
    ldc: &Inst,
    target: u8,
) -> Option<&'a str> {
    if ldc.mnemonic != "LDC" || ldc.opcode() != 0x0b82 || ldc.guard().is_some() || ldc.bits(73, 3) != 5 {
        return None;
    }
    if ldc.bits(16, 8) as u8 != target || ldc.bits(78, 2) != 0 {
        return None;
    }
    let bank = ldc.bits(54, 5);
    let mut address = u64::from(ldc.bits(38, 16));
    let index = ldc.bits(24, 8) as u8;
    if index != 255 {
        // MOV Rk, imm32 (0x0802 with the full write mask), the same on every path.
        let k = reaching(flow, program, calls, this_call, ldc.offset, &[index], &mut |_, mov| {
            let plain = mov.mnemonic == "MOV" && mov.opcode() == 0x0802 && mov.guard().is_none();
            (plain && mov.bits(72, 4) == 0xf).then(|| mov.bits(32, 32))
        })?;
        address = address.checked_add(u64::from(k))?;
    }
    let module_bank = format!(".nv.constant{bank}");
    let kernel_bank = format!(".nv.constant{bank}.{}", kernel.name());
    cubin
        .relocation_sections
        .iter()
        .filter(|rs| rs.target_name == module_bank || rs.target_name == kernel_bank)
        .flat_map(|rs| rs.entries.iter())
        .find(|r| r.offset == address && r.addend.unwrap_or(0) == 0)
        .map(|r| r.symbol_name)
}

/// Whether an instruction may write any of the general registers `regs`, from the table's register
/// accesses (nvdisasm's life ranges, `sassport_gen::access`); `None` when they cannot be told: control
/// transfers (what a callee writes is not the instruction's) and classes without access rules.
fn writes_any(inst: &Inst, regs: &[u8]) -> Option<bool> {
    if matches!(inst.mnemonic, "CALL" | "RET" | "BRX" | "JMX" | "JMP") {
        return None;
    }
    let decoded = sassport_gen::decode(inst.word).ok()?;
    let mut accesses = decoded.accesses()?;
    Some(accesses.any(|a| {
        a.file == RegFile::Gpr && a.direction.writes() && regs.iter().any(|&r| r >= a.first && r - a.first < a.count)
    }))
}

pub(super) fn lower(cx: &mut Ctx<'_>, m: &str) -> Result<bool, TranslateError> {
    match m {
        "LEPC" => lepc(cx)?,
        "CALL" => match cx.externs.at(cx.inst.offset) {
            Some(f) => {
                let merge = match cx.inst.guard() {
                    Some((p, neg)) => {
                        let g = cx.pred(u32::from(p), neg);
                        Some(cx.begin_if(g))
                    }
                    None => None,
                };
                if cx.inst.bits(87, 3) != 7 || cx.inst.bit(90) {
                    return Err(cx.refuse("extern call with a predicate operand not translated yet"));
                }
                match f {
                    ExternFunction::Vprintf => vprintf(cx)?,
                    ExternFunction::AssertFail => assertfail(cx)?,
                    ExternFunction::Malloc => malloc(cx)?,
                    ExternFunction::Free => free(cx)?,
                }
                if let Some(merge) = merge {
                    cx.end_if(merge);
                }
            }
            None => return Ok(false),
        },
        _ => return Ok(false),
    }
    Ok(true)
}

/// `malloc(R4:R5)`: the heap block's address (or 0) in `R4:R5` (`super::heap`).
fn malloc(cx: &mut Ctx<'_>) -> Result<(), TranslateError> {
    let t = cx.t;
    let size = cx.read64(Src::Reg(4))?;
    let f = super::heap::malloc_fn(cx);
    let p = cx.m.op(Op::FunctionCall, t.u64, &[f, size]);
    cx.write64(4, p);
    Ok(())
}

/// `free(R4:R5)`; a pointer the heap did not hand out (or a second free) is a heap fault
/// ([`abi::FAULT_KIND_HEAP`]) and changes nothing.
fn free(cx: &mut Ctx<'_>) -> Result<(), TranslateError> {
    let t = cx.t;
    let ptr = cx.read64(Src::Reg(4))?;
    let f = super::heap::free_fn(cx);
    let ok = cx.m.op(Op::FunctionCall, t.bool, &[f, ptr]);
    let bad = cx.m.un(Op::LogicalNot, t.bool, ok);
    let merge = cx.begin_if(bad);
    let pc = cx.u32c(cx.inst.offset);
    let zero = cx.u32c(0);
    super::fault::record_fault(cx, abi::FAULT_KIND_HEAP, pc, ptr, zero);
    cx.end_if(merge);
    Ok(())
}

fn lepc(cx: &mut Ctx<'_>) -> Result<(), TranslateError> {
    if cx.inst.opcode() != 0x034e {
        return Err(cx.refuse("LEPC form not translated yet"));
    }
    let rd = cx.inst.bits(16, 8) as u8;
    let value = abi::code_address(cx.externs.code_section, cx.inst.offset);
    let v = cx.m.c_u64(value);
    cx.write64(rd, v);
    Ok(())
}

/// Pointer to word `base + k` of the runtime's records (printf area, assert record) in binding 33.
fn window_word(cx: &mut Ctx<'_>, base: Id, k: u32) -> Id {
    let t = cx.t;
    let win = cx.st.window_form(&mut cx.m, &t);
    let i = if k == 0 {
        base
    } else {
        let kc = cx.u32c(k);
        cx.op2(Op::IAdd, base, kc)
    };
    win.record(&mut cx.m, &t, i)
}

fn launch_word(cx: &mut Ctx<'_>, w: u32) -> Id {
    let t = cx.t;
    cx.st.uniform_word(&mut cx.m, &t, 0, w)
}

/// `blockIdx` and `threadIdx` of the invocation.
fn ids(cx: &mut Ctx<'_>) -> [Id; 6] {
    let t = cx.t;
    let g = cx.m.load(t.uvec3, cx.builtins.group_id);
    let l = cx.m.load(t.uvec3, cx.builtins.local_id);
    let mut out = [0; 6];
    for k in 0..3u32 {
        let gk = cx.m.op(Op::CompositeExtract, t.u32, &[g, k]);
        let base = launch_word(cx, abi::launch_word::WORKGROUP_BASE + k);
        out[k as usize] = cx.op2(Op::IAdd, gk, base);
        out[3 + k as usize] = cx.m.op(Op::CompositeExtract, t.u32, &[l, k]);
    }
    out
}

fn vprintf(cx: &mut Ctx<'_>) -> Result<(), TranslateError> {
    let t = cx.t;
    let fmt = cx.read64(Src::Reg(4))?;
    let args = cx.read64(Src::Reg(6))?;
    let (flo, fhi) = cx.split64(fmt);
    let (alo, ahi) = cx.split64(args);

    // Where the arguments are, and how many words to copy.
    let zero64 = cx.m.c_u64(0);
    let is_null = cx.m.bin(Op::IEqual, t.bool, args, zero64);
    let lw = cx.u32c((LOCAL_WINDOW >> 32) as u32);
    let in_local = cx.m.bin(Op::IEqual, t.bool, ahi, lw);
    let local_bytes = cx.u32c(cx.local_bytes);
    let inside = cx.m.bin(Op::ULessThanEqual, t.bool, alo, local_bytes);
    let three = cx.u32c(3);
    let low = cx.op2(Op::BitwiseAnd, alo, three);
    let zero = cx.u32c(0);
    let aligned = cx.m.bin(Op::IEqual, t.bool, low, zero);
    let ok = cx.m.bin(Op::LogicalAnd, t.bool, in_local, inside);
    let ok = cx.m.bin(Op::LogicalAnd, t.bool, ok, aligned);
    let room = cx.op2(Op::ISub, local_bytes, alo);
    let room = cx.sel(ok, room, zero);
    let two = cx.u32c(2);
    let room_words = cx.op2(Op::ShiftRightLogical, room, two);
    let most = cx.u32c(abi::PRINTF_MAX_ARG_BYTES / 4);
    let fewer = cx.m.bin(Op::ULessThan, t.bool, room_words, most);
    let words = cx.sel(fewer, room_words, most);
    let s_local = cx.u32c(abi::PRINTF_ARGS_LOCAL);
    let s_none = cx.u32c(abi::PRINTF_ARGS_NONE);
    let s_else = cx.u32c(abi::PRINTF_ARGS_ELSEWHERE);
    let s = cx.sel(ok, s_local, s_else);
    let source = cx.sel(is_null, s_none, s);
    let words = cx.sel(is_null, zero, words);

    // The result: conversions in the format.
    let count_fn = printf_count_fn(cx);
    let result = cx.m.op(Op::FunctionCall, t.u32, &[count_fn, fmt]);

    // Claim room in the printf area.
    let area = launch_word(cx, abi::launch_word::PRINTF_AREA_WORD);
    let cap = launch_word(cx, abi::launch_word::PRINTF_CAPACITY_WORDS);
    let header = cx.u32c(abi::printf_record::HEADER_WORDS);
    let len = cx.op2(Op::IAdd, header, words);
    let scope = cx.u32c(Scope::Device as u32);
    let relaxed = cx.u32c(0);
    let pused = window_word(cx, area, abi::printf_word::USED);
    let off = cx.m.op(Op::AtomicIAdd, t.u32, &[pused, scope, relaxed, len]);
    let starts_inside = cx.m.bin(Op::ULessThan, t.bool, off, cap);
    let left = cx.op2(Op::ISub, cap, off);
    let enough = cx.m.bin(Op::UGreaterThanEqual, t.bool, left, len);
    let fits = cx.m.bin(Op::LogicalAnd, t.bool, starts_inside, enough);

    let then = cx.m.id();
    let other = cx.m.id();
    let merge = cx.m.id();
    cx.m.selection_merge(merge);
    cx.m.branch_cond(fits, then, other);

    // The record.
    cx.m.label(then);
    let rk = cx.u32c(abi::printf_word::RECORDS);
    let base = cx.op2(Op::IAdd, area, rk);
    let base = cx.op2(Op::IAdd, base, off);
    let pc = cx.u32c(cx.inst.offset);
    let arg_bytes = cx.op2(Op::ShiftLeftLogical, words, two);
    let id = ids(cx);
    use abi::printf_record as r;
    let fields = [
        (r::LEN, len),
        (r::PC, pc),
        (r::FORMAT, flo),
        (r::FORMAT + 1, fhi),
        (r::ARG_BYTES, arg_bytes),
        (r::ARG_SOURCE, source),
        (r::CTAID, id[0]),
        (r::CTAID + 1, id[1]),
        (r::CTAID + 2, id[2]),
        (r::TID, id[3]),
        (r::TID + 1, id[4]),
        (r::TID + 2, id[5]),
    ];
    for (k, v) in fields {
        let p = window_word(cx, base, k);
        cx.m.store(p, v);
    }
    // Copy the argument words: for k in 0..words { record[HEADER + k] = local[alo / 4 + k] }.
    let (lptr, lvar, _, _) = space(cx, Space::Local);
    let first = cx.op2(Op::ShiftRightLogical, alo, two);
    let first = cx.sel(ok, first, zero);
    let data = cx.op2(Op::IAdd, base, header);
    let k_var = cx.m.local_var(t.fn_u32, None);
    cx.m.store(k_var, zero);
    let head = cx.m.id();
    let body = cx.m.id();
    let cont = cx.m.id();
    let done = cx.m.id();
    cx.m.branch(head);
    cx.m.label(head);
    let k = cx.m.load(t.u32, k_var);
    let more = cx.m.bin(Op::ULessThan, t.bool, k, words);
    cx.m.loop_merge(done, cont, LoopControl::NONE);
    cx.m.branch_cond(more, body, done);
    cx.m.label(body);
    let src_i = cx.op2(Op::IAdd, first, k);
    let sp = cx.m.access(lptr, lvar, &[src_i]);
    let v = cx.m.load(t.u32, sp);
    let dst_i = cx.op2(Op::IAdd, data, k);
    let dp = window_word(cx, dst_i, 0);
    cx.m.store(dp, v);
    cx.m.branch(cont);
    cx.m.label(cont);
    let one = cx.u32c(1);
    let k1 = cx.op2(Op::IAdd, k, one);
    cx.m.store(k_var, k1);
    cx.m.branch(head);
    cx.m.label(done);
    cx.m.branch(merge);

    // No room: count it; the record straddling the end marks the end of the list.
    cx.m.label(other);
    let pdropped = window_word(cx, area, abi::printf_word::DROPPED);
    let one = cx.u32c(1);
    cx.m.op(Op::AtomicIAdd, t.u32, &[pdropped, scope, relaxed, one]);
    let mark = cx.begin_if(starts_inside);
    let rk = cx.u32c(abi::printf_word::RECORDS);
    let at = cx.op2(Op::IAdd, area, rk);
    let at = cx.op2(Op::IAdd, at, off);
    let p = window_word(cx, at, 0);
    cx.m.store(p, zero);
    cx.end_if(mark);
    cx.m.branch(merge);
    cx.m.label(merge);

    cx.set_reg(4, result);
    Ok(())
}

/// Most format bytes the device scans to count conversions.
const MAX_FORMAT_SCAN: u32 = 4096;

/// Emits (once) `u32 printf_count(u64 format)`: the number of conversions in the NUL-terminated format
/// string at guest address `format` (a `%` not followed by `%`), `-1` for a null format, `-2` for a format
/// outside the window (CUDA's "internal error"). Scans at most [`MAX_FORMAT_SCAN`] bytes.
fn printf_count_fn(cx: &mut Ctx<'_>) -> Id {
    let t = cx.t;
    let lv = cx.st.uniform(&mut cx.m, 0, 2);
    let win = cx.st.window_form(&mut cx.m, &t);
    cx.m.helper("printf_count", move |m| build_printf_count(m, &t, lv, win))
}

fn build_printf_count(m: &mut Module, t: &Types, lv: Id, win: crate::state::window::Window) -> Id {
    let fty = m.ty(Type::Function(t.u32, [t.u64, 0, 0, 0]));
    let f = m.begin_function(t.u32, fty, FunctionControl::NONE);
    let fmt = m.param(t.u64);
    let entry = m.id();
    m.label(entry);
    let lvw = |m: &mut Module, w: u32| {
        let zero = m.c_u32(0);
        let v = m.c_u32(w / 4);
        let c = m.c_u32(w % 4);
        let p = m.access(t.uniform_u32, lv, &[zero, v, c]);
        m.load(t.u32, p)
    };
    let pack = |m: &mut Module, lo: Id, hi: Id| {
        let l = m.un(Op::UConvert, t.u64, lo);
        let h = m.un(Op::UConvert, t.u64, hi);
        let k = m.c_u32(32);
        let h = m.bin(Op::ShiftLeftLogical, t.u64, h, k);
        m.bin(Op::BitwiseOr, t.u64, l, h)
    };
    let b0 = lvw(m, abi::launch_word::WINDOW_BASE);
    let b1 = lvw(m, abi::launch_word::WINDOW_BASE + 1);
    let s0 = lvw(m, abi::launch_word::WINDOW_SIZE);
    let s1 = lvw(m, abi::launch_word::WINDOW_SIZE + 1);
    let base = pack(m, b0, b1);
    let size = pack(m, s0, s1);
    let zero64 = m.c_u64(0);
    let null = m.bin(Op::IEqual, t.bool, fmt, zero64);
    let above = m.bin(Op::UGreaterThanEqual, t.bool, fmt, base);
    let off = m.bin(Op::ISub, t.u64, fmt, base);
    let below_end = m.bin(Op::ULessThan, t.bool, off, size);
    let inside = m.bin(Op::LogicalAnd, t.bool, above, below_end);
    // Bytes that may be scanned: min(size - off, MAX_FORMAT_SCAN), 0 outside.
    let room = m.bin(Op::ISub, t.u64, size, off);
    let cap = m.c_u64(u64::from(MAX_FORMAT_SCAN));
    let small = m.bin(Op::ULessThan, t.bool, room, cap);
    let room = m.select(t.u64, small, room, cap);
    let room = m.select(t.u64, inside, room, zero64);
    let limit = m.un(Op::UConvert, t.u32, room);
    let zero = m.c_u32(0);
    let one = m.c_u32(1);
    let fls = m.c_bool(false);
    let i_var = m.local_var(t.fn_u32, Some(zero));
    let count_var = m.local_var(t.fn_u32, Some(zero));
    let bool_ptr = t.fn_bool;
    let pct_var = m.local_var(bool_ptr, Some(fls));
    let done_var = m.local_var(bool_ptr, Some(fls));
    let off32 = m.un(Op::UConvert, t.u32, off);
    let head = m.id();
    let body = m.id();
    let cont = m.id();
    let exit = m.id();
    m.branch(head);
    m.label(head);
    let i = m.load(t.u32, i_var);
    let d = m.load(t.bool, done_var);
    let in_range = m.bin(Op::ULessThan, t.bool, i, limit);
    let nd = m.un(Op::LogicalNot, t.bool, d);
    let go = m.bin(Op::LogicalAnd, t.bool, in_range, nd);
    m.loop_merge(exit, cont, LoopControl::NONE);
    m.branch_cond(go, body, exit);
    m.label(body);
    // The byte at off + i (the offset fits in 32 bits when the window is one storage buffer).
    let a = m.bin(Op::IAdd, t.u32, off32, i);
    let two = m.c_u32(2);
    let p = if win.chunks.is_some() {
        let i64 = m.un(Op::UConvert, t.u64, i);
        let a64 = m.bin(Op::IAdd, t.u64, off, i64);
        let wi = m.bin(Op::ShiftRightLogical, t.u64, a64, two);
        win.word(m, t, wi)
    } else {
        let wi = m.bin(Op::ShiftRightLogical, t.u32, a, two);
        m.access(t.storage_u32, win.var, &[zero, wi])
    };
    let w = m.load(t.u32, p);
    let three = m.c_u32(3);
    let sub = m.bin(Op::BitwiseAnd, t.u32, a, three);
    let sh = m.bin(Op::ShiftLeftLogical, t.u32, sub, three);
    let byte = m.bin(Op::ShiftRightLogical, t.u32, w, sh);
    let ff = m.c_u32(0xff);
    let byte = m.bin(Op::BitwiseAnd, t.u32, byte, ff);
    let is_nul = m.bin(Op::IEqual, t.bool, byte, zero);
    let percent = m.c_u32(u32::from(b'%'));
    let is_pct = m.bin(Op::IEqual, t.bool, byte, percent);
    let prev = m.load(t.bool, pct_var);
    // A conversion starts at a byte after a lone '%' that is neither '%' nor the end.
    let not_pct = m.un(Op::LogicalNot, t.bool, is_pct);
    let not_nul = m.un(Op::LogicalNot, t.bool, is_nul);
    let conv = m.bin(Op::LogicalAnd, t.bool, prev, not_pct);
    let conv = m.bin(Op::LogicalAnd, t.bool, conv, not_nul);
    let c = m.load(t.u32, count_var);
    let c1 = m.bin(Op::IAdd, t.u32, c, one);
    let c = m.select(t.u32, conv, c1, c);
    m.store(count_var, c);
    // '%' after a lone '%' is an escaped percent sign.
    let np = m.un(Op::LogicalNot, t.bool, prev);
    let starts = m.bin(Op::LogicalAnd, t.bool, is_pct, np);
    m.store(pct_var, starts);
    m.store(done_var, is_nul);
    m.branch(cont);
    m.label(cont);
    let i1 = m.bin(Op::IAdd, t.u32, i, one);
    m.store(i_var, i1);
    m.branch(head);
    m.label(exit);
    let count = m.load(t.u32, count_var);
    let minus_two = m.c_u32(-2i32 as u32);
    let minus_one = m.c_u32(u32::MAX);
    let r = m.select(t.u32, inside, count, minus_two);
    let r = m.select(t.u32, null, minus_one, r);
    m.op_void(Op::ReturnValue, &[r]);
    m.end_function();
    f
}

fn assertfail(cx: &mut Ctx<'_>) -> Result<(), TranslateError> {
    let t = cx.t;
    let message = cx.read64(Src::Reg(4))?;
    let file = cx.read64(Src::Reg(6))?;
    let line = cx.reg(8);
    let function = cx.read64(Src::Reg(10))?;
    let char_size = cx.reg(12);
    let (mlo, mhi) = cx.split64(message);
    let (filo, fihi) = cx.split64(file);
    let (fnlo, fnhi) = cx.split64(function);
    let id = ids(cx);
    let fw = launch_word(cx, abi::launch_word::FAULT_RECORD_WORD);
    let scope = cx.u32c(Scope::Device as u32);
    let relaxed = cx.u32c(0);
    let one = cx.u32c(1);
    let zero = cx.u32c(0);
    let pc = cx.u32c(cx.inst.offset);

    // The fault record, by its protocol; its address is the message.
    super::fault::record_fault(cx, abi::FAULT_KIND_ASSERT, pc, message, zero);

    // The assert record: the first failing invocation's call.
    let off = cx.u32c(abi::ASSERT_RECORD_OFFSET);
    let ar = cx.op2(Op::IAdd, fw, off);
    let aflag = window_word(cx, ar, abi::assert_word::FLAG);
    let prev = cx.m.op(Op::AtomicCompareExchange, t.u32, &[aflag, scope, relaxed, relaxed, one, zero]);
    let first = cx.m.bin(Op::IEqual, t.bool, prev, zero);
    let merge = cx.begin_if(first);
    use abi::assert_word as a;
    for (k, v) in [
        (a::PC, pc),
        (a::MESSAGE, mlo),
        (a::MESSAGE + 1, mhi),
        (a::FILE, filo),
        (a::FILE + 1, fihi),
        (a::LINE, line),
        (a::FUNCTION, fnlo),
        (a::FUNCTION + 1, fnhi),
        (a::CHAR_SIZE, char_size),
        (a::CTAID, id[0]),
        (a::CTAID + 1, id[1]),
        (a::CTAID + 2, id[2]),
        (a::TID, id[3]),
        (a::TID + 1, id[4]),
        (a::TID + 2, id[5]),
    ] {
        let p = window_word(cx, ar, k);
        cx.m.store(p, v);
    }
    cx.end_if(merge);
    // The invocation ends here; what follows in the block is unreachable.
    super::warp::end_invocation(cx);
    Ok(())
}

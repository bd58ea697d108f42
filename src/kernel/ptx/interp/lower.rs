//! From the reader's syntax tree to the interpreter's form: one kernel and
//! the functions it calls, its shared variables placed, registers and labels
//! numbered, each opcode decoded.
//!
//! An opcode the interpreter does not evaluate becomes [`Kind::Opaque`]: its
//! destinations (its first operand, by PTX's convention) become unknown. One
//! that touches shared memory in a way the model does not model (TMA copies,
//! `mbarrier`, distributed shared memory, a `wmma.load/store` form not
//! measured, sparse `wgmma`) becomes [`Kind::Unmodelled`], an event the
//! consumers count and name.

use std::collections::HashMap;

use crate::{AtomicKind, CpAsync, Error, Matrices};

use super::super::ast::{
    self, AddressBase, FunctionKind, Immediate, Instruction, Module, Operand, StateSpace, Type,
    Variable,
};
use super::super::ops::{BoolOp, Cmp, Half, IntType, PrmtMode};
use super::super::ParamKind;
use super::cfg::{self, Flow};
use super::ir::{
    Addr, BarKind, BarRed, BulkKind, Compare, FloatOp, FloatRel, FnParam, Function, Inst, IntBin,
    IntUn, Kind, MbarOp, Merge, ParamRef, Program, ReduxOp, Reg, RoundInt, SharedVar, ShflMode,
    Space, Special, Src, Ty, VoteMode,
};
use super::{merge, unroll};
use crate::kernel::Site;

/// Lowers kernel `name` (or the module's only kernel) and the functions it
/// calls.
pub(crate) fn lower(module: &Module<'_>, name: Option<&str>) -> Result<Program, Error> {
    let kernels: Vec<&ast::Function<'_>> = module.entries().collect();
    let list = || {
        let names: Vec<String> = kernels.iter().map(|k| k.name.to_owned()).collect();
        crate::kernel::ptx::launch::bounded_list(&names, 8)
    };
    let entry = match name {
        Some(name) => kernels
            .iter()
            .find(|k| k.name == name)
            .copied()
            .ok_or_else(|| Error::NoKernel {
                name: name.to_owned(),
                kernels: list(),
            })?,
        None => match kernels.as_slice() {
            [only] => only,
            _ => {
                return Err(Error::NoKernel {
                    name: String::new(),
                    kernels: list(),
                });
            }
        },
    };
    // The functions reachable by direct calls, entry first.
    let mut order: Vec<&ast::Function<'_>> = vec![entry];
    let mut index: HashMap<&str, u32> = HashMap::from([(entry.name, 0)]);
    let mut next = 0;
    while next < order.len() {
        let f = order[next];
        next += 1;
        for inst in &f.instructions {
            if inst.opcode() != "call" {
                continue;
            }
            if let Some(callee) = call_target(inst).and_then(|n| module.function(n)) {
                if callee.has_body && !index.contains_key(callee.name) {
                    index.insert(callee.name, order.len() as u32);
                    order.push(callee);
                }
            }
        }
    }
    let shared = place_shared(module, &order);
    // ptxas -v's "bytes smem": the static variables' end rounded up to 16
    // (tests/data/ptx/ptxas_merging_more: 16 for one 4-byte variable in
    // `p_dyn4_pad0`, 272 for 4 + 256 bytes in `p_s4_pad0`).
    let static_shared = shared
        .iter()
        .filter(|v| !v.dynamic)
        .map(|v| v.offset + v.bytes)
        .max()
        .unwrap_or(0)
        .div_ceil(16)
        .saturating_mul(16);
    let mut names: Vec<String> = Vec::new();
    let mut name_index: HashMap<String, u32> = HashMap::new();
    let mut functions = Vec::with_capacity(order.len());
    for f in &order {
        let lowering = Lowering {
            func: f,
            module_pragmas: &module.pragmas,
            shared: &shared,
            functions: &index,
            params: param_layout(f),
        };
        functions.push(lowering.function(&mut names, &mut name_index));
    }
    Ok(Program {
        functions,
        names,
        shared,
        static_shared,
        files: module
            .files
            .iter()
            .map(|f| (f.index, f.name.to_owned()))
            .collect(),
        reqntid: ntid(entry, ".reqntid"),
        reqnctapercluster: ntid(entry, ".reqnctapercluster"),
        maxntid: ntid(entry, ".maxntid"),
    })
}

/// A `.reqntid`/`.maxntid` directive's dimensions, the missing ones 1 (PTX
/// ISA, "Performance-Tuning Directives": `.reqntid nx{, ny{, nz}}`).
fn ntid(entry: &ast::Function<'_>, name: &str) -> Option<[u32; 3]> {
    let values = entry.tuning(name)?;
    let mut dims = [1u32; 3];
    for (d, &v) in dims.iter_mut().zip(values) {
        *d = v;
    }
    Some(dims)
}

fn call_target<'a>(inst: &Instruction<'a>) -> Option<&'a str> {
    inst.operands.iter().find_map(|o| match o {
        Operand::Symbol { name, .. } => Some(*name),
        _ => None,
    })
}

/// Every name a function's instructions mention (symbols and address bases).
fn mentioned<'a>(f: &ast::Function<'a>) -> impl Iterator<Item = &'a str> + use<'a> {
    fn walk<'a>(o: &Operand<'a>, out: &mut Vec<&'a str>) {
        match o {
            Operand::Symbol { name, .. } => out.push(name),
            Operand::Address(a) => {
                if let AddressBase::Symbol(name) = a.base {
                    out.push(name);
                }
            }
            Operand::Vector(v) | Operand::List(v) => v.iter().for_each(|o| walk(o, out)),
            _ => {}
        }
    }
    let mut out = Vec::new();
    for inst in &f.instructions {
        for o in &inst.operands {
            walk(o, &mut out);
        }
    }
    out.into_iter()
}

/// Places the shared variables the kernel uses: static ones in declaration
/// order (module scope first, then each function's), each at the next
/// multiple of its alignment; the dynamic region (every `.extern .shared`
/// array, all at one address) after them, at the largest alignment any of
/// them asks for and at least 16 (measured: `p_dyn4_pad0` in
/// tests/data/ptx/ptxas_merging_more, a `.align 4` dynamic array after a
/// 4-byte variable is 16-aligned: ptxas merges its loads into `LDS.128`). Modelling choice: ptxas's placement is not visible in PTX;
/// the offsets only matter modulo 128 bytes (the bank rows) and for the
/// alignment of vector accesses, which every declaration keeps.
fn place_shared(module: &Module<'_>, order: &[&ast::Function<'_>]) -> Vec<SharedVar> {
    let used: std::collections::HashSet<&str> = order.iter().flat_map(|f| mentioned(f)).collect();
    let mut decls: Vec<&Variable<'_>> = module
        .variables
        .iter()
        .filter(|v| v.space == StateSpace::Shared && used.contains(v.name))
        .collect();
    for f in order {
        decls.extend(f.variables.iter().filter(|v| v.space == StateSpace::Shared));
    }
    let mut out: Vec<SharedVar> = Vec::new();
    let mut end = 0u32;
    let align_of = |v: &Variable<'_>| v.align.unwrap_or(v.ty.size().max(1)).max(1);
    for v in decls.iter().filter(|v| !v.is_unsized()) {
        let align = align_of(v);
        let offset = end.div_ceil(align).saturating_mul(align);
        let bytes = u32::try_from(v.size().unwrap_or(0)).unwrap_or(u32::MAX);
        end = offset.saturating_add(bytes);
        out.push(SharedVar {
            name: v.name.to_owned(),
            offset,
            bytes,
            align,
            dynamic: false,
        });
    }
    let dynamic: Vec<&&Variable<'_>> = decls.iter().filter(|v| v.is_unsized()).collect();
    let align = dynamic
        .iter()
        .map(|v| align_of(v))
        .max()
        .unwrap_or(1)
        .max(16);
    let start = end.div_ceil(align).saturating_mul(align);
    for v in dynamic {
        out.push(SharedVar {
            name: v.name.to_owned(),
            offset: start,
            bytes: 0,
            align,
            dynamic: true,
        });
    }
    out
}

/// A function's param memory: its parameters, its return parameters, then
/// the `.param` variables of its body, each at the next multiple of its
/// alignment.
struct ParamLayout {
    offsets: HashMap<String, (u32, u32)>,
    bytes: u32,
    params: Vec<FnParam>,
    rets: Vec<ParamRef>,
}

fn param_layout(f: &ast::Function<'_>) -> ParamLayout {
    let mut offsets = HashMap::new();
    let mut end = 0u32;
    let mut place = |v: &Variable<'_>, offsets: &mut HashMap<String, (u32, u32)>| {
        let align = v.align.unwrap_or(v.ty.size().max(1)).max(1);
        let offset = end.div_ceil(align).saturating_mul(align);
        let bytes = u32::try_from(v.size().unwrap_or(0))
            .unwrap_or(0)
            .min(1 << 16);
        end = offset.saturating_add(bytes);
        offsets.insert(v.name.to_owned(), (offset, bytes));
        (offset, bytes)
    };
    let mut params = Vec::new();
    for v in &f.params {
        let (offset, bytes) = place(v, &mut offsets);
        params.push(FnParam {
            name: v.name.to_owned(),
            offset,
            bytes,
            kind: param_kind(f, v),
        });
    }
    let mut rets = Vec::new();
    for v in &f.returns {
        let (offset, bytes) = place(v, &mut offsets);
        rets.push(ParamRef { offset, bytes });
    }
    for v in f.variables.iter().filter(|v| v.space == StateSpace::Param) {
        place(v, &mut offsets);
    }
    ParamLayout {
        offsets,
        bytes: end,
        params,
        rets,
    }
}

/// What a kernel parameter holds: a 64-bit integer parameter is a pointer
/// when declared `.ptr` or when the kernel converts it with `cvta.to.global`
/// or uses it as an address (nvcc declares pointers as plain `.u64`).
fn param_kind(f: &ast::Function<'_>, v: &Variable<'_>) -> ParamKind {
    let scalar = v.dims.is_empty() && v.vector.is_none();
    if !scalar {
        return ParamKind::Bytes {
            bytes: u32::try_from(v.size().unwrap_or(0)).unwrap_or(0),
        };
    }
    match v.ty {
        Type::F16 | Type::BF16 => ParamKind::Float { bits: 16 },
        Type::F32 => ParamKind::Float { bits: 32 },
        Type::F64 => ParamKind::Float { bits: 64 },
        Type::S8 => ParamKind::Int {
            bits: 8,
            signed: true,
        },
        Type::S16 => ParamKind::Int {
            bits: 16,
            signed: true,
        },
        Type::S32 => ParamKind::Int {
            bits: 32,
            signed: true,
        },
        Type::S64 => ParamKind::Int {
            bits: 64,
            signed: true,
        },
        Type::B64 | Type::U64 if v.ptr.is_some() || used_as_pointer(f, v.name) => {
            ParamKind::Pointer
        }
        ty => ParamKind::Int {
            bits: (ty.size() * 8).max(8),
            signed: false,
        },
    }
}

fn used_as_pointer(f: &ast::Function<'_>, name: &str) -> bool {
    // The registers holding the parameter or an address derived from it
    // (moved, converted, or added to: `add.s64 %rd3, %rd4, %rd8`), then
    // whether one is converted to a global address or used as an address.
    let mut derived: Vec<ast::RegId> = Vec::new();
    for inst in &f.instructions {
        if inst.opcode() == "ld" && inst.has("param") {
            if let (Some(Operand::Reg { id, .. }), Some(Operand::Address(a))) =
                (inst.operands.first(), inst.operands.get(1))
            {
                if a.base == AddressBase::Symbol(name) {
                    derived.push(*id);
                }
            }
        }
    }
    if derived.is_empty() {
        return false;
    }
    for _ in 0..4 {
        let before = derived.len();
        for inst in &f.instructions {
            if !matches!(inst.opcode(), "add" | "sub" | "mov" | "cvta") {
                continue;
            }
            let reads_derived = inst
                .operands
                .iter()
                .skip(1)
                .any(|o| matches!(o, Operand::Reg { id, .. } if derived.contains(id)));
            if reads_derived {
                if let Some(Operand::Reg { id, .. }) = inst.operands.first() {
                    if !derived.contains(id) {
                        derived.push(*id);
                    }
                }
            }
        }
        if derived.len() == before {
            break;
        }
    }
    f.instructions.iter().any(|inst| {
        let cvta = inst.opcode() == "cvta" && inst.has("global");
        inst.operands.iter().enumerate().any(|(i, o)| match o {
            Operand::Reg { id, .. } => cvta && i == 1 && derived.contains(id),
            Operand::Address(a) => matches!(a.base, AddressBase::Reg(r) if derived.contains(&r)),
            _ => false,
        })
    })
}

struct Lowering<'m, 'a> {
    func: &'m ast::Function<'a>,
    /// The module's own `.pragma`s (which apply to every function).
    module_pragmas: &'m [&'a str],
    shared: &'m [SharedVar],
    functions: &'m HashMap<&'a str, u32>,
    params: ParamLayout,
}

/// The type modifiers of an instruction (`u32`, `f32`, `pred`, ...), in order.
fn types(inst: &Instruction<'_>) -> Vec<Type> {
    inst.modifiers()
        .filter_map(|m| Type::from_directive(&format!(".{m}")))
        .collect()
}

fn int_type(ty: Type) -> Option<IntType> {
    Some(match ty {
        Type::B8 | Type::U8 => IntType::U8,
        Type::B16 | Type::U16 => IntType::U16,
        Type::B32 | Type::U32 => IntType::U32,
        Type::B64 | Type::U64 => IntType::U64,
        Type::S8 => IntType::S8,
        Type::S16 => IntType::S16,
        Type::S32 => IntType::S32,
        Type::S64 => IntType::S64,
        _ => return None,
    })
}

fn float_bits(ty: Type) -> Option<u8> {
    match ty {
        Type::F32 => Some(32),
        Type::F64 => Some(64),
        _ => None,
    }
}

fn ty_of(ty: Type) -> Ty {
    if let Some(t) = int_type(ty) {
        return Ty::Int(t);
    }
    match ty {
        Type::F16 => Ty::Float(16),
        Type::F32 => Ty::Float(32),
        Type::F64 => Ty::Float(64),
        Type::BF16 => Ty::Bf16,
        Type::Pred => Ty::Pred,
        other => Ty::Bits((other.size() * 8).min(255) as u8),
    }
}

fn space_of(inst: &Instruction<'_>) -> Space {
    for m in inst.modifiers() {
        match m {
            "shared" | "shared::cta" => return Space::Shared,
            "shared::cluster" => return Space::SharedCluster,
            "global" => return Space::Global,
            "local" => return Space::Local,
            "const" => return Space::Const,
            "param" | "param::entry" | "param::func" => return Space::Param,
            _ => {}
        }
    }
    Space::Generic
}

/// Volatile and ordered accesses stay as written (`ld_volatile4` in
/// tests/data/ptx/ptxas_merging_more: four `ld.volatile.shared.b32` of one
/// 16-byte chunk are four `LDS`); the others may merge ([`Merge`]).
fn as_written(inst: &Instruction<'_>) -> Merge {
    let ordered = ["volatile", "relaxed", "acquire", "release", "mmio"];
    if inst.modifiers().any(|m| ordered.contains(&m)) {
        Merge::Never
    } else {
        Merge::None
    }
}

/// The registers an operand writes (a register, the registers of a vector,
/// both of a pair).
fn dests(o: &Operand<'_>) -> Vec<Reg> {
    match o {
        Operand::Reg {
            id,
            component: None,
            ..
        } => vec![id.0],
        Operand::RegPair(a, b) => vec![a.0, b.0],
        Operand::Vector(v) => v.iter().flat_map(dests).collect(),
        _ => Vec::new(),
    }
}

fn dest(o: Option<&Operand<'_>>) -> Option<Reg> {
    match o {
        Some(Operand::Reg {
            id,
            component: None,
            ..
        }) => Some(id.0),
        _ => None,
    }
}

impl Lowering<'_, '_> {
    fn function(&self, names: &mut Vec<String>, name_index: &mut HashMap<String, u32>) -> Function {
        let f = self.func;
        let mut insts: Vec<Inst> = Vec::with_capacity(f.instructions.len());
        for inst in &f.instructions {
            let name = *name_index
                .entry(inst.mnemonic.to_owned())
                .or_insert_with(|| {
                    names.push(inst.mnemonic.to_owned());
                    (names.len() - 1) as u32
                });
            let mut site = Site::pc(u64::from(inst.line));
            if let Some(loc) = inst.loc {
                site = site.with_file(loc.file).with_line(loc.line);
            }
            insts.push(Inst {
                guard: inst.guard.map(|g| (g.reg.0, g.negated)),
                kind: self.kind(inst),
                site,
                name,
            });
        }
        // `.pragma "nounroll"` (PTX ISA, `.pragma "nounroll"`): at module
        // scope or between the parameters and the body it keeps every loop
        // of the function; in the body, the loop whose header block it
        // opens, and nothing where that block is no loop header (measured:
        // tests/data/ptx/ptxas_pragmas).
        let nounroll = |p: &str| p == "nounroll";
        let in_body: Vec<usize> = f
            .body_pragmas
            .iter()
            .filter(|(_, p)| nounroll(p))
            .map(|&(at, _)| at as usize)
            .collect();
        let in_function = f.pragmas.iter().filter(|p| nounroll(p)).count();
        let keep = unroll::Keep {
            all: self.module_pragmas.iter().any(|p| nounroll(p)) || in_function > in_body.len(),
            heads: in_body,
        };
        // The loops ptxas unrolls first (their accesses marked per
        // iteration), then the straight-line code's merges.
        let facts = merge::known_low_bits(&insts, f.register_count as usize, self.shared);
        let loops = unroll::merge_loops(&mut insts, &facts, self.shared, &keep);
        merge::merge_accesses(&mut insts, &facts, self.shared);
        let flow: Vec<Flow> = insts
            .iter()
            .map(|i| match (&i.kind, i.guard.is_some()) {
                (Kind::Bra { target }, false) => Flow::Jump(*target),
                (Kind::Bra { target }, true) => Flow::Branch(*target),
                (Kind::Ret | Kind::Exit, false) => Flow::Leave,
                (Kind::Ret | Kind::Exit, true) => Flow::MaybeLeave,
                _ => Flow::Next,
            })
            .collect();
        let ipdom = cfg::post_dominators(&flow);
        Function {
            name: f.name.to_owned(),
            is_entry: f.kind == FunctionKind::Entry,
            regs: f.register_count,
            param_bytes: self.params.bytes,
            params: self.params.params.clone(),
            rets: self.params.rets.clone(),
            insts,
            loops,
            ipdom,
        }
    }

    fn symbol(&self, name: &str, offset: i64) -> Src {
        if let Some(v) = self.shared.iter().find(|v| v.name == name) {
            return Src::Shared((i64::from(v.offset) + offset) as u32);
        }
        if let Some(&(o, _)) = self.params.offsets.get(name) {
            return Src::Param((i64::from(o) + offset) as u32);
        }
        if let Some(o) = self.local_offset(name) {
            return Src::Imm((o as i64).wrapping_add(offset) as u64);
        }
        Src::Unknown
    }

    /// The offset of the function's `.local` variable `name` (nvcc's stack,
    /// `__local_depot0`, included) in the thread's local memory: the
    /// variables in declaration order, each aligned. A modelling choice (the
    /// placement is ptxas's); what matters is that the address is known, so
    /// that a generic access to it after `cvta.local` is known not to be
    /// shared.
    fn local_offset(&self, name: &str) -> Option<u64> {
        let mut end = 0u64;
        for v in self
            .func
            .variables
            .iter()
            .filter(|v| v.space == StateSpace::Local)
        {
            let align = u64::from(v.align.unwrap_or(v.ty.size().max(1)).max(1));
            let offset = end.div_ceil(align).saturating_mul(align);
            if v.name == name {
                return Some(offset);
            }
            end = offset.saturating_add(v.size().unwrap_or(0));
        }
        None
    }

    fn src(&self, o: Option<&Operand<'_>>) -> Src {
        match o {
            Some(Operand::Reg {
                id,
                component: None,
                negated: false,
            }) => Src::Reg(id.0),
            Some(Operand::Imm(Immediate::Int(x))) => Src::Imm(*x as u64),
            Some(Operand::Imm(Immediate::F32(x))) => Src::Imm(u64::from(*x)),
            Some(Operand::Imm(Immediate::F64(x))) => Src::Imm(*x),
            Some(Operand::Special(s, c)) => Src::Special(special(*s, c.unwrap_or(0))),
            Some(Operand::Symbol { name, offset }) => self.symbol(name, *offset),
            _ => Src::Unknown,
        }
    }

    /// A source operand read as `.f32` when the instruction is `.f32` but the
    /// immediate is written as a double (`0d...` or a decimal).
    fn fsrc(&self, o: Option<&Operand<'_>>, bits: u8) -> Src {
        match (o, bits) {
            (Some(Operand::Imm(Immediate::F64(x))), 32) => {
                Src::Imm(u64::from((f64::from_bits(*x) as f32).to_bits()))
            }
            _ => self.src(o),
        }
    }

    fn addr(&self, o: Option<&Operand<'_>>) -> Option<Addr> {
        let Some(Operand::Address(a)) = o else {
            return None;
        };
        let base = match a.base {
            AddressBase::Reg(r) => Src::Reg(r.0),
            AddressBase::Symbol(name) => self.symbol(name, 0),
            AddressBase::Absolute => Src::Imm(0),
        };
        Some(Addr {
            base,
            offset: a.offset,
        })
    }

    fn opaque(&self, inst: &Instruction<'_>) -> Kind {
        let opcode = inst.opcode();
        let warp = matches!(opcode, "mma" | "wmma" | "movmatrix" | "match");
        let srcs = (warp || PER_LANE.contains(&opcode))
            .then(|| self.value_operands(inst.operands.get(1..).unwrap_or_default()))
            .flatten()
            .filter(|srcs| !srcs.is_empty());
        Kind::Opaque {
            ds: inst.operands.first().map(dests).unwrap_or_default(),
            srcs,
            warp,
        }
    }

    /// The operands of an instruction as values, vectors flattened, or `None`
    /// where one is not a plain value (an address: the result depends on
    /// memory; a negated predicate or a vector register's component, which
    /// the operand would not tell apart from the plain register).
    fn value_operands(&self, operands: &[Operand<'_>]) -> Option<Vec<Src>> {
        let mut out = Vec::new();
        for o in operands {
            match o {
                Operand::Reg {
                    component: None,
                    negated: false,
                    ..
                }
                | Operand::Imm(_)
                | Operand::Special(..)
                | Operand::Symbol { .. } => out.push(self.src(Some(o))),
                Operand::Vector(v) => out.extend(self.value_operands(v)?),
                _ => return None,
            }
        }
        Some(out)
    }

    fn unmodelled(inst: &Instruction<'_>) -> Kind {
        // A store-like instruction (address first) writes no register.
        let ds = match inst.operands.first() {
            Some(Operand::Address(_)) | None => Vec::new(),
            Some(o) => dests(o),
        };
        Kind::Unmodelled { ds }
    }

    /// `wmma.load`/`wmma.store`: its measured lowering
    /// ([`wmma`](super::wmma)) where the table has it for the state space
    /// written (nvcc writes bf16, tf32 and f64 without one, ptxas then emits
    /// generic accesses; the others with `.shared`, and then `LDSM`/`LDS`/
    /// `STS`: a form the table does not hold would be a guess, so it is not
    /// modelled). On `.global`, no shared access: a load's fragment
    /// registers are unknown, a store writes global memory (opaque: it
    /// begins an epoch, [`may_write_global`](super::number::may_write_global)).
    fn wmma(&self, inst: &Instruction<'_>) -> Kind {
        let space = space_of(inst);
        let store = inst.has("store");
        let addr_op = usize::from(!store);
        let ds = if store {
            Vec::new()
        } else {
            inst.operands.first().map(dests).unwrap_or_default()
        };
        if !matches!(space, Space::Shared | Space::Generic) {
            return Kind::Opaque {
                ds,
                srcs: None,
                warp: true,
            };
        }
        let fragment = super::wmma::Fragment::of(inst.mnemonic);
        let rows = fragment.as_ref().and_then(super::wmma::Fragment::lowering);
        let (Some(fragment), Some(rows), Some(addr)) =
            (fragment, rows, self.addr(inst.operands.get(addr_op)))
        else {
            return Self::unmodelled(inst);
        };
        if rows
            .iter()
            .any(|r| r.piece.generic() != (space == Space::Generic))
        {
            return Self::unmodelled(inst);
        }
        let stride = match inst.operands.get(2) {
            Some(o) => self.src(Some(o)),
            None => Src::Imm(u64::from(fragment.default_stride)),
        };
        Kind::Wmma {
            rows,
            space,
            ds,
            addr,
            stride,
            bits: fragment.bits,
        }
    }

    /// `wgmma.mma_async.sync.aligned.m64nNkK.dtype.atype.btype d, a, b,
    /// scale-d, ...`: `a` a descriptor or a vector of registers; the
    /// transpose immediates (16-bit types only) last: `imm-trans-a,
    /// imm-trans-b` after a descriptor, `imm-trans-b` after registers (PTX
    /// ISA, wgmma.mma_async). The sparse form is not modelled.
    fn wgmma(&self, inst: &Instruction<'_>) -> Option<Kind> {
        if inst.has("sp") {
            return None;
        }
        let shape = inst.modifiers().find(|m| m.starts_with("m64n"))?;
        let n: u32 = shape[4..].split('k').next()?.parse().ok()?;
        let ops = &inst.operands;
        let a_regs = matches!(ops.get(1)?, Operand::Vector(_));
        // The input types are the last modifier (`.f16.f16`, `.e4m3.e4m3`):
        // the accumulator's `.f16` does not make them 16-bit.
        let sixteen = matches!(inst.modifiers().last(), Some("f16" | "bf16"));
        let imm = |i: usize| match ops.get(i) {
            Some(Operand::Imm(Immediate::Int(v))) => Some(*v != 0),
            _ => None,
        };
        let (a_mn_major, b_mn_major) = match (sixteen, a_regs) {
            (false, _) => (false, false),
            (true, false) => (imm(6)?, imm(7)?),
            (true, true) => (false, imm(6)?),
        };
        Some(Kind::Wgmma {
            a: (!a_regs).then(|| self.src(ops.get(1))),
            b: self.src(ops.get(2)),
            n,
            a_mn_major,
            b_mn_major,
            ds: ops.first().map(dests).unwrap_or_default(),
        })
    }

    /// `mbarrier`, bulk and tensor copies, `mapa` and `barrier.cluster`:
    /// `None` for the forms the model does not follow (they stay not
    /// modelled: `im2col` copies, multicast, reductions, remote arrivals).
    fn async_kind(&self, inst: &Instruction<'_>) -> Option<Kind> {
        let ops = &inst.operands;
        let op = |i: usize| ops.get(i);
        let m = |s: &str| inst.has(s);
        let mnemonic = inst.mnemonic;
        let opcode = inst.opcode();
        let indexed = |o: Option<&Operand<'_>>| match o {
            Some(Operand::Indexed { base, coords }) => {
                let map = match *base {
                    AddressBase::Reg(r) => Src::Reg(r.0),
                    AddressBase::Symbol(name) => self.symbol(name, 0),
                    AddressBase::Absolute => Src::Unknown,
                };
                Some((map, coords.iter().map(|c| self.src(Some(c))).collect()))
            }
            _ => None,
        };
        Some(match opcode {
            "mbarrier" => {
                // Remote arrivals (`.shared::cluster`) and the forms that
                // only read the state stay not modelled.
                if m("shared::cluster") || m("pending_count") {
                    return None;
                }
                let (mbop, d, bar, a, b) = if m("init") {
                    (MbarOp::Init, None, op(0), op(1), None)
                } else if m("inval") {
                    (MbarOp::Inval, None, op(0), None, None)
                } else if m("test_wait") || m("try_wait") {
                    (
                        MbarOp::Wait {
                            parity: m("parity"),
                        },
                        dest(op(0)),
                        op(1),
                        op(2),
                        None,
                    )
                } else if mnemonic.starts_with("mbarrier.arrive") {
                    let expect_tx = m("expect_tx");
                    // arrive{.expect_tx} state, [a]{, count or tx}; with
                    // expect_tx and a count, tx then count.
                    (
                        MbarOp::Arrive {
                            expect_tx,
                            drop: mnemonic.starts_with("mbarrier.arrive_drop"),
                        },
                        dest(op(0)),
                        op(1),
                        op(2),
                        op(3),
                    )
                } else if m("expect_tx") {
                    (MbarOp::ExpectTx, None, op(0), op(1), None)
                } else if m("complete_tx") {
                    (MbarOp::CompleteTx, None, op(0), op(1), None)
                } else {
                    return None;
                };
                Kind::Mbar {
                    op: mbop,
                    space: space_of(inst),
                    bar: self.addr(bar)?,
                    d,
                    a: a.map_or(Src::Imm(u64::MAX), |a| self.src(Some(a))),
                    b: b.map_or(Src::Imm(u64::MAX), |b| self.src(Some(b))),
                }
            }
            "cp" if mnemonic.starts_with("cp.async.bulk") => {
                if mnemonic.starts_with("cp.async.bulk.commit_group")
                    || mnemonic.starts_with("cp.async.bulk.wait_group")
                    || mnemonic.starts_with("cp.async.bulk.prefetch")
                {
                    return Some(Kind::Nop);
                }
                if m("multicast::cluster")
                    || m("im2col")
                    || m("im2col::w")
                    || m("im2col::w::128")
                    || m("tile::gather4")
                    || m("tile::scatter4")
                    || m("cta_group::1")
                    || m("cta_group::2")
                {
                    return None;
                }
                let tensor = mnemonic.starts_with("cp.async.bulk.tensor");
                // The destination space comes first: `.shared::cluster.global`
                // (or `.shared::cta.global`) loads, `.global.shared::cta`
                // stores; shared to shared (`.shared::cluster.shared::cta`)
                // is a copy to another block.
                let spaces: Vec<&str> = inst
                    .modifiers()
                    .filter(|x| x.starts_with("shared") || *x == "global")
                    .collect();
                match (spaces.first().copied(), spaces.get(1).copied(), tensor) {
                    (Some("shared::cluster" | "shared::cta"), Some("global"), false) => {
                        Kind::Bulk(BulkKind::Load {
                            dst: self.addr(op(0))?,
                            size: self.src(op(2)),
                            bar: self.addr(op(3))?,
                        })
                    }
                    (Some("global"), Some("shared::cta"), false) => Kind::Bulk(BulkKind::Store {
                        src: self.addr(op(1))?,
                        size: self.src(op(2)),
                    }),
                    (Some("shared::cluster" | "shared::cta"), Some("global"), true) => {
                        let (map, coords) = indexed(op(1))?;
                        Kind::Bulk(BulkKind::TensorLoad {
                            dst: self.addr(op(0))?,
                            map,
                            coords,
                            bar: self.addr(op(2))?,
                        })
                    }
                    (Some("global"), Some("shared::cta"), true) => {
                        let (map, coords) = indexed(op(0))?;
                        Kind::Bulk(BulkKind::TensorStore {
                            src: self.addr(op(1))?,
                            map,
                            coords,
                        })
                    }
                    _ => return None,
                }
            }
            "mapa" => Kind::Mapa {
                generic: !m("shared::cluster"),
                d: dest(op(0))?,
                a: self.src(op(1)),
                rank: self.src(op(2)),
            },
            // The cluster's other blocks are taken to arrive with this one
            // (a modelling choice: the model runs one block): for this
            // block's threads the wait is a barrier of the whole block, and
            // the arrival does nothing before it.
            "barrier" if m("cluster") => {
                if m("arrive") {
                    Kind::Nop
                } else if m("wait") {
                    Kind::Bar {
                        kind: BarKind::Sync,
                        id: Src::Imm(0),
                        count: None,
                    }
                } else {
                    return None;
                }
            }
            _ => return None,
        })
    }

    fn kind(&self, inst: &Instruction<'_>) -> Kind {
        self.try_kind(inst).unwrap_or_else(|| self.opaque(inst))
    }

    #[allow(clippy::too_many_lines)]
    fn try_kind(&self, inst: &Instruction<'_>) -> Option<Kind> {
        let ops = &inst.operands;
        let op = |i: usize| ops.get(i);
        let tys = types(inst);
        let last_ty = tys.last().copied();
        let opcode = inst.opcode();
        let m = |s: &str| inst.has(s);
        let mnemonic = inst.mnemonic;
        if opcode == "wmma" && (m("load") || m("store")) {
            return Some(self.wmma(inst));
        }
        if opcode == "wgmma" && m("mma_async") {
            return Some(self.wgmma(inst).unwrap_or_else(|| Self::unmodelled(inst)));
        }
        if let Some(kind) = self.async_kind(inst) {
            return Some(kind);
        }
        // Shared-memory instructions the model does not model, first.
        if mnemonic.starts_with("cp.async.bulk")
            || mnemonic.starts_with("cp.reduce.async.bulk")
            || opcode == "mbarrier"
            || opcode == "tcgen05"
            || opcode == "multimem"
            || mnemonic.starts_with("barrier.cluster")
            || mnemonic.starts_with("red.async")
            || mnemonic.starts_with("st.async")
        {
            return Some(Self::unmodelled(inst));
        }
        Some(match opcode {
            "mov" => {
                let ty = last_ty?;
                let bits = if ty == Type::Pred { 1 } else { ty.size() * 8 };
                match (op(0)?, op(1)?) {
                    (Operand::Vector(parts), a) => Kind::Unpack {
                        piece: bits / parts.len().max(1) as u32,
                        ds: parts.iter().map(|p| dest(Some(p))).collect(),
                        a: self.src(Some(a)),
                    },
                    (d, Operand::Vector(parts)) => Kind::Pack {
                        piece: bits / parts.len().max(1) as u32,
                        d: dest(Some(d))?,
                        parts: parts.iter().map(|p| self.src(Some(p))).collect(),
                    },
                    (d, a) => Kind::Mov {
                        bits,
                        d: dest(Some(d))?,
                        a: self.src(Some(a)),
                    },
                }
            }
            "add" | "sub" | "mul" | "mad" | "fma" | "div" | "rem" | "min" | "max" | "neg"
            | "abs" => return self.arith(inst, opcode),
            "mul24" | "mad24" => {
                let t = int_type(last_ty?)?;
                let half = if m("hi") { Half::Hi } else { Half::Lo };
                let d = dest(op(0))?;
                if opcode == "mul24" {
                    Kind::IntBin {
                        op: IntBin::Mul24(half),
                        t,
                        d,
                        a: self.src(op(1)),
                        b: self.src(op(2)),
                    }
                } else {
                    if m("sat") {
                        return None;
                    }
                    Kind::Mad24 {
                        t,
                        half,
                        d,
                        a: self.src(op(1)),
                        b: self.src(op(2)),
                        c: self.src(op(3)),
                    }
                }
            }
            "and" | "or" | "xor" => {
                let ty = last_ty?;
                let d = dest(op(0))?;
                let (a, b) = (self.src(op(1)), self.src(op(2)));
                if ty == Type::Pred {
                    let op = match opcode {
                        "and" => BoolOp::And,
                        "or" => BoolOp::Or,
                        _ => BoolOp::Xor,
                    };
                    return Some(Kind::PredBin { op, d, a, b });
                }
                let op = match opcode {
                    "and" => IntBin::And,
                    "or" => IntBin::Or,
                    _ => IntBin::Xor,
                };
                Kind::IntBin {
                    op,
                    t: int_type(ty)?,
                    d,
                    a,
                    b,
                }
            }
            "not" | "cnot" | "popc" | "clz" | "brev" | "bfind" => {
                let ty = last_ty?;
                let d = dest(op(0))?;
                if ty == Type::Pred && opcode == "not" {
                    return Some(Kind::PredNot {
                        d,
                        a: self.src(op(1)),
                    });
                }
                let un = match opcode {
                    "not" => IntUn::Not,
                    "cnot" => IntUn::Cnot,
                    "popc" => IntUn::Popc,
                    "clz" => IntUn::Clz,
                    "brev" => IntUn::Brev,
                    _ => IntUn::Bfind {
                        shiftamt: m("shiftamt"),
                    },
                };
                Kind::IntUn {
                    op: un,
                    t: int_type(ty)?,
                    d,
                    a: self.src(op(1)),
                }
            }
            "shl" | "shr" => Kind::IntBin {
                op: if opcode == "shl" {
                    IntBin::Shl
                } else {
                    IntBin::Shr
                },
                t: int_type(last_ty?)?,
                d: dest(op(0))?,
                a: self.src(op(1)),
                b: self.src(op(2)),
            },
            "bfe" => Kind::Bfe {
                t: int_type(last_ty?)?,
                d: dest(op(0))?,
                a: self.src(op(1)),
                b: self.src(op(2)),
                c: self.src(op(3)),
            },
            "bfi" => Kind::Bfi {
                t: int_type(last_ty?)?,
                d: dest(op(0))?,
                a: self.src(op(1)),
                b: self.src(op(2)),
                c: self.src(op(3)),
                e: self.src(op(4)),
            },
            "prmt" => {
                let mode = if m("f4e") {
                    PrmtMode::F4e
                } else if m("b4e") {
                    PrmtMode::B4e
                } else if m("rc8") {
                    PrmtMode::Rc8
                } else if m("ecl") {
                    PrmtMode::Ecl
                } else if m("ecr") {
                    PrmtMode::Ecr
                } else if m("rc16") {
                    PrmtMode::Rc16
                } else {
                    PrmtMode::Generic
                };
                Kind::Prmt {
                    mode,
                    d: dest(op(0))?,
                    a: self.src(op(1)),
                    b: self.src(op(2)),
                    c: self.src(op(3)),
                }
            }
            "lop3" => {
                if ops.len() != 5 {
                    return None;
                }
                let Some(Operand::Imm(Immediate::Int(lut))) = op(4) else {
                    return None;
                };
                Kind::Lop3 {
                    d: dest(op(0))?,
                    a: self.src(op(1)),
                    b: self.src(op(2)),
                    c: self.src(op(3)),
                    lut: *lut as u8,
                }
            }
            "setp" | "set" => return self.setp(inst),
            "selp" => {
                let ty = last_ty?;
                Kind::Selp {
                    bits: ty.size() * 8,
                    d: dest(op(0))?,
                    a: self.src(op(1)),
                    b: self.src(op(2)),
                    c: self.pred_src(op(3)),
                }
            }
            "cvt" => {
                if tys.len() != 2 || ops.len() != 2 || m("relu") || m("satfinite") {
                    return None;
                }
                let (dst, src) = (ty_of(tys[0]), ty_of(tys[1]));
                let round_int = if m("rni") || m("rn") {
                    Some(RoundInt::Nearest)
                } else if m("rzi") || m("rz") {
                    Some(RoundInt::Zero)
                } else if m("rmi") || m("rm") {
                    Some(RoundInt::Down)
                } else if m("rpi") || m("rp") {
                    Some(RoundInt::Up)
                } else {
                    None
                };
                // `.rn` etc. on a float result round the value, not to an
                // integer: keep them only where the interpreter rounds.
                let float_to_float = matches!((dst, src), (Ty::Float(_), Ty::Float(_)));
                let round_int = if float_to_float && !(m("rni") || m("rzi") || m("rmi") || m("rpi"))
                {
                    if matches!(round_int, Some(RoundInt::Nearest) | None) {
                        None
                    } else {
                        return None;
                    }
                } else {
                    round_int
                };
                if m("ftz") && !matches!((dst, src), (Ty::Int(_), Ty::Int(_))) {
                    return None;
                }
                Kind::Cvt {
                    dst,
                    src,
                    sat: m("sat"),
                    round_int,
                    d: dest(op(0))?,
                    a: self.src(op(1)),
                }
            }
            "cvta" => {
                let bits = last_ty?.size() * 8;
                let d = dest(op(0))?;
                let a = self.src(op(1));
                match space_of(inst) {
                    Space::Shared => Kind::CvtaWindow {
                        base: super::ir::SHARED_WINDOW_BASE,
                        to_generic: !m("to"),
                        bits,
                        d,
                        a,
                    },
                    Space::Local => Kind::CvtaWindow {
                        base: super::ir::LOCAL_WINDOW_BASE,
                        to_generic: !m("to"),
                        bits,
                        d,
                        a,
                    },
                    // Global addresses are their generic addresses here.
                    Space::Global => Kind::Mov { bits, d, a },
                    Space::Param => Kind::CvtaWindow {
                        base: super::ir::PARAM_WINDOW_BASE,
                        to_generic: !m("to"),
                        bits,
                        d,
                        a,
                    },
                    _ => return None,
                }
            }
            "ld" | "ldu" => {
                let ty = last_ty?;
                let piece = ty.size() * 8;
                let ds: Vec<Option<Reg>> = match op(0)? {
                    Operand::Vector(v) => v.iter().map(|o| dest(Some(o))).collect(),
                    o => vec![dest(Some(o))],
                };
                let space = if opcode == "ldu" {
                    Space::Global
                } else {
                    space_of(inst)
                };
                Kind::Ld {
                    space,
                    piece,
                    ds,
                    addr: self.addr(op(1))?,
                    merge: as_written(inst),
                }
            }
            "st" => {
                let ty = last_ty?;
                let piece = ty.size() * 8;
                let srcs: Vec<Src> = match op(1)? {
                    Operand::Vector(v) => v.iter().map(|o| self.src(Some(o))).collect(),
                    o => vec![self.src(Some(o))],
                };
                Kind::St {
                    space: space_of(inst),
                    piece,
                    srcs,
                    addr: self.addr(op(0))?,
                    merge: as_written(inst),
                }
            }
            "atom" | "red" => {
                let reduction = opcode == "red";
                let ty = last_ty?;
                let names = [
                    "add", "min", "max", "inc", "dec", "and", "or", "xor", "exch", "cas",
                ];
                let op_name = inst.modifiers().find(|m| names.contains(m))?;
                let type_name = inst
                    .modifiers()
                    .filter(|m| Type::from_directive(&format!(".{m}")).is_some())
                    .last()?;
                let space = space_of(inst);
                let Ok(kind) = format!("{op_name}.{type_name}").parse::<AtomicKind>() else {
                    return Some(match space {
                        Space::Shared | Space::Generic => Self::unmodelled(inst),
                        _ => self.opaque(inst),
                    });
                };
                if m("v2") || m("v4") || m("v8") {
                    return Some(Self::unmodelled(inst));
                }
                let (d, addr, val) = if reduction {
                    (None, self.addr(op(0))?, self.src(op(1)))
                } else {
                    (dest(op(0)), self.addr(op(1))?, self.src(op(2)))
                };
                Kind::Atom {
                    space,
                    kind,
                    reduction,
                    bytes: ty.size(),
                    d,
                    addr,
                    val,
                }
            }
            "ldmatrix" | "stmatrix" => {
                if !m("m8n8") {
                    return Some(Self::unmodelled(inst));
                }
                // `.trans` costs what the plain form does (DESIGN.md 2.1:
                // wavefronts are the rows' degree either way); it is kept
                // so that reports name the form written.
                let count = match (m("x4"), m("x2"), m("trans")) {
                    (true, _, false) => Matrices::X4,
                    (true, _, true) => Matrices::X4Trans,
                    (false, true, false) => Matrices::X2,
                    (false, true, true) => Matrices::X2Trans,
                    (false, false, false) => Matrices::X1,
                    (false, false, true) => Matrices::X1Trans,
                };
                if opcode == "ldmatrix" {
                    Kind::LdMatrix {
                        m: count,
                        ds: op(0).map(dests).unwrap_or_default(),
                        addr: self.addr(op(1))?,
                    }
                } else {
                    Kind::StMatrix {
                        m: count,
                        addr: self.addr(op(0))?,
                    }
                }
            }
            "cp" => {
                if mnemonic.starts_with("cp.async.commit_group") {
                    Kind::CpAsyncCommit
                } else if mnemonic.starts_with("cp.async.wait_group") {
                    let Some(Operand::Imm(Immediate::Int(n))) = op(0) else {
                        return None;
                    };
                    Kind::CpAsyncWait {
                        pending: u32::try_from(*n).ok()?,
                    }
                } else if mnemonic.starts_with("cp.async.wait_all") {
                    Kind::CpAsyncWait { pending: 0 }
                } else if mnemonic.starts_with("cp.async.mbarrier.arrive") {
                    Kind::CpAsyncArrive {
                        bar: self.addr(op(0)),
                        noinc: m("noinc"),
                    }
                } else if mnemonic.starts_with("cp.async.ca") || mnemonic.starts_with("cp.async.cg")
                {
                    let Some(Operand::Imm(Immediate::Int(bytes))) = op(2) else {
                        return None;
                    };
                    Kind::CpAsync {
                        kind: if m("cg") { CpAsync::Cg } else { CpAsync::Ca },
                        bytes: u32::try_from(*bytes).ok()?,
                        dst: self.addr(op(0))?,
                        src: self.addr(op(1))?,
                        src_size: op(3).map(|o| self.src(Some(o))),
                    }
                } else {
                    return None;
                }
            }
            "bar" | "barrier" => {
                if m("warp") {
                    return Some(Kind::BarWarp {
                        mask: self.src(op(0)),
                    });
                }
                if m("cta") && !m("sync") && !m("arrive") && !m("red") {
                    return None;
                }
                if m("red") {
                    let red = if m("popc") {
                        BarRed::Popc
                    } else if m("and") {
                        BarRed::And
                    } else {
                        BarRed::Or
                    };
                    // bar.red.op.type d, a{, b}, {!}c
                    let (id, count, pred) = if ops.len() == 4 {
                        (op(1), Some(op(2)), op(3))
                    } else {
                        (op(1), None, op(2))
                    };
                    let (pred_src, negate) = match pred {
                        Some(Operand::Reg { id, negated, .. }) => (Src::Reg(id.0), *negated),
                        other => (self.src(other), false),
                    };
                    return Some(Kind::Bar {
                        kind: BarKind::Red {
                            op: red,
                            dst: dest(op(0)),
                            pred: pred_src,
                            negate,
                        },
                        id: self.src(id),
                        count: count.map(|c| self.src(c)),
                    });
                }
                let kind = if m("arrive") {
                    BarKind::Arrive
                } else {
                    BarKind::Sync
                };
                Kind::Bar {
                    kind,
                    id: self.src(op(0)),
                    count: op(1).map(|c| self.src(Some(c))),
                }
            }
            "membar" | "fence" => Kind::Fence,
            "shfl" => {
                let mode = if m("up") {
                    ShflMode::Up
                } else if m("down") {
                    ShflMode::Down
                } else if m("bfly") {
                    ShflMode::Bfly
                } else {
                    ShflMode::Idx
                };
                let (d, p) = match op(0)? {
                    Operand::RegPair(d, p) => (d.0, Some(p.0)),
                    o => (dest(Some(o))?, None),
                };
                Kind::Shfl {
                    mode,
                    d,
                    p,
                    a: self.src(op(1)),
                    b: self.src(op(2)),
                    c: self.src(op(3)),
                }
            }
            "vote" => {
                let mode = if m("all") {
                    VoteMode::All
                } else if m("any") {
                    VoteMode::Any
                } else if m("uni") {
                    VoteMode::Uni
                } else if m("ballot") {
                    VoteMode::Ballot
                } else {
                    return None;
                };
                let (a, negate) = match op(1) {
                    Some(Operand::Reg { id, negated, .. }) => (Src::Reg(id.0), *negated),
                    other => (self.src(other), false),
                };
                Kind::Vote {
                    mode,
                    d: dest(op(0))?,
                    a,
                    negate,
                }
            }
            "activemask" => Kind::Activemask { d: dest(op(0))? },
            // match.any.sync.b32/b64 d, a, membermask (the .all form, with
            // its predicate, stays opaque).
            "match" if m("any") && ops.len() == 3 => Kind::MatchAny {
                d: dest(op(0))?,
                a: self.src(op(1)),
                bits: last_ty?.size() * 8,
            },
            "redux" => {
                let red = if m("add") {
                    ReduxOp::Add
                } else if m("min") {
                    ReduxOp::Min
                } else if m("max") {
                    ReduxOp::Max
                } else if m("and") {
                    ReduxOp::And
                } else if m("or") {
                    ReduxOp::Or
                } else if m("xor") {
                    ReduxOp::Xor
                } else {
                    return None;
                };
                Kind::Redux {
                    op: red,
                    t: int_type(last_ty?)?,
                    d: dest(op(0))?,
                    a: self.src(op(1)),
                }
            }
            "elect" => match op(0)? {
                Operand::RegPair(d, p) => Kind::Elect {
                    d: Some(d.0),
                    p: Some(p.0),
                },
                Operand::Sink => Kind::Elect { d: None, p: None },
                o => Kind::Elect {
                    d: dest(Some(o)),
                    p: None,
                },
            },
            "bra" => {
                let Some(Operand::Label(target)) = op(0) else {
                    return None;
                };
                Kind::Bra { target: *target }
            }
            "ret" => Kind::Ret,
            "exit" | "trap" => Kind::Exit,
            "call" => return self.call(inst),
            "prefetch" | "prefetchu" | "pmevent" | "nanosleep" | "setmaxnreg"
            | "griddepcontrol" | "discard" | "applypriority" => Kind::Nop,
            "wgmma" if m("commit_group") => Kind::WgmmaCommit,
            "wgmma" if m("wait_group") => {
                let Some(Operand::Imm(Immediate::Int(n))) = op(0) else {
                    return None;
                };
                Kind::WgmmaWait {
                    pending: u32::try_from(*n).ok()?,
                }
            }
            // `wgmma.fence`: orders register accesses, not shared memory.
            "wgmma" => Kind::Nop,
            _ => return None,
        })
    }

    fn pred_src(&self, o: Option<&Operand<'_>>) -> Src {
        match o {
            Some(Operand::Reg {
                id,
                component: None,
                negated: false,
            }) => Src::Reg(id.0),
            // A negated predicate operand: read through a PredNot by the
            // caller would need a temporary; unknown keeps it honest.
            Some(Operand::Reg { negated: true, .. }) => Src::Unknown,
            other => self.src(other),
        }
    }

    fn arith(&self, inst: &Instruction<'_>, opcode: &str) -> Option<Kind> {
        let ops = &inst.operands;
        let op = |i: usize| ops.get(i);
        let ty = *types(inst).last()?;
        let m = |s: &str| inst.has(s);
        let d = dest(op(0))?;
        if let Some(t) = int_type(ty) {
            if m("cc") || opcode == "fma" {
                return None;
            }
            let sat = m("sat");
            let half = if m("hi") {
                Half::Hi
            } else if m("wide") {
                Half::Wide
            } else {
                Half::Lo
            };
            let (a, b, c) = (self.src(op(1)), self.src(op(2)), self.src(op(3)));
            return Some(match opcode {
                "add" => Kind::IntBin {
                    op: IntBin::Add { sat },
                    t,
                    d,
                    a,
                    b,
                },
                "sub" => Kind::IntBin {
                    op: IntBin::Sub { sat },
                    t,
                    d,
                    a,
                    b,
                },
                "mul" => Kind::IntBin {
                    op: IntBin::Mul(half),
                    t,
                    d,
                    a,
                    b,
                },
                "mad" => Kind::Mad {
                    t,
                    half,
                    sat,
                    d,
                    a,
                    b,
                    c,
                },
                "div" => Kind::IntBin {
                    op: IntBin::Div,
                    t,
                    d,
                    a,
                    b,
                },
                "rem" => Kind::IntBin {
                    op: IntBin::Rem,
                    t,
                    d,
                    a,
                    b,
                },
                "min" if !m("relu") => Kind::IntBin {
                    op: IntBin::Min,
                    t,
                    d,
                    a,
                    b,
                },
                "max" if !m("relu") => Kind::IntBin {
                    op: IntBin::Max,
                    t,
                    d,
                    a,
                    b,
                },
                "neg" => Kind::IntUn {
                    op: IntUn::Neg,
                    t,
                    d,
                    a,
                },
                "abs" => Kind::IntUn {
                    op: IntUn::Abs,
                    t,
                    d,
                    a,
                },
                _ => return None,
            });
        }
        let bits = float_bits(ty)?;
        // Only round-to-nearest without flushing or saturation is evaluated
        // (Rust's float arithmetic); other modes give unknown values.
        let unusual = [
            "rz", "rm", "rp", "ftz", "sat", "approx", "full", "NaN", "xorsign", "abs", "relu",
            "oob",
        ];
        if unusual.iter().any(|u| m(u)) {
            return None;
        }
        let fop = match opcode {
            "add" => FloatOp::Add,
            "sub" => FloatOp::Sub,
            "mul" => FloatOp::Mul,
            "div" if m("rn") => FloatOp::Div,
            "fma" | "mad" => FloatOp::Fma,
            "min" => FloatOp::Min,
            "max" => FloatOp::Max,
            "neg" => FloatOp::Neg,
            "abs" => FloatOp::Abs,
            _ => return None,
        };
        if ops.len() > 4 {
            return None;
        }
        Some(Kind::Float {
            op: fop,
            bits,
            d,
            a: self.fsrc(op(1), bits),
            b: self.fsrc(op(2), bits),
            c: self.fsrc(op(3), bits),
        })
    }

    fn setp(&self, inst: &Instruction<'_>) -> Option<Kind> {
        let ops = &inst.operands;
        let op = |i: usize| ops.get(i);
        let tys = types(inst);
        let src_ty = *tys.last()?;
        let cmp_name = inst.modifiers().nth(0)?;
        let cmp = if let Some(t) = int_type(src_ty) {
            Compare::Int(t, Cmp::from_name(cmp_name)?)
        } else {
            let bits = float_bits(src_ty)?;
            if inst.has("ftz") {
                return None;
            }
            let (rel, unordered) = match cmp_name {
                "eq" => (FloatRel::Eq, false),
                "ne" => (FloatRel::Ne, false),
                "lt" => (FloatRel::Lt, false),
                "le" => (FloatRel::Le, false),
                "gt" => (FloatRel::Gt, false),
                "ge" => (FloatRel::Ge, false),
                "equ" => (FloatRel::Eq, true),
                "neu" => (FloatRel::Ne, true),
                "ltu" => (FloatRel::Lt, true),
                "leu" => (FloatRel::Le, true),
                "gtu" => (FloatRel::Gt, true),
                "geu" => (FloatRel::Ge, true),
                "num" => (FloatRel::Num, false),
                "nan" => (FloatRel::Nan, false),
                _ => return None,
            };
            Compare::Float {
                bits,
                rel,
                unordered,
            }
        };
        let fbits = match cmp {
            Compare::Float { bits, .. } => bits,
            Compare::Int(..) => 64,
        };
        let (a, b) = (self.fsrc(op(1), fbits), self.fsrc(op(2), fbits));
        let bop = if inst.has("and") {
            Some(BoolOp::And)
        } else if inst.has("or") {
            Some(BoolOp::Or)
        } else if inst.has("xor") {
            Some(BoolOp::Xor)
        } else {
            None
        };
        let combine = match bop {
            None => None,
            Some(bop) => match op(3) {
                Some(Operand::Reg { id, negated, .. }) => Some((bop, Src::Reg(id.0), *negated)),
                other => Some((bop, self.src(other), false)),
            },
        };
        if inst.opcode() == "set" {
            if combine.is_some() || tys.len() != 2 {
                return None;
            }
            return Some(Kind::Set {
                cmp,
                float_result: tys[0] == Type::F32,
                d: dest(op(0))?,
                a,
                b,
            });
        }
        let (p, q) = match op(0)? {
            Operand::RegPair(p, q) => (Some(p.0), Some(q.0)),
            Operand::Sink => (None, None),
            o => (Some(dest(Some(o))?), None),
        };
        Some(Kind::Setp {
            cmp,
            p,
            q,
            a,
            b,
            combine,
        })
    }

    fn call(&self, inst: &Instruction<'_>) -> Option<Kind> {
        // call{.uni} (rets), f, (args); call f, (args); call f;
        let ops = &inst.operands;
        let mut rets: Vec<ParamRef> = Vec::new();
        let mut args: Vec<ParamRef> = Vec::new();
        let mut callee = None;
        let param_ref = |o: &Operand<'_>| match o {
            Operand::Symbol { name, .. } => self
                .params
                .offsets
                .get(*name)
                .map(|&(offset, bytes)| ParamRef { offset, bytes }),
            _ => None,
        };
        for o in ops {
            match o {
                Operand::List(list) if callee.is_none() => {
                    rets = list.iter().filter_map(param_ref).collect();
                }
                Operand::List(list) => {
                    args = list.iter().filter_map(param_ref).collect();
                }
                Operand::Symbol { name, .. } if callee.is_none() => callee = Some(*name),
                _ => {}
            }
        }
        let func = callee.and_then(|n| self.functions.get(n).copied());
        match func {
            Some(func) => Some(Kind::Call { func, args, rets }),
            // An external function (vprintf, __assertfail) or an indirect
            // call: its return parameters become unknown.
            None => Some(Kind::Opaque {
                ds: Vec::new(),
                srcs: None,
                warp: false,
            }),
        }
    }
}

/// The opcodes whose result in a lane is a function of that lane's
/// operands alone (PTX ISA: integer, float, half, conversion, comparison and
/// logic instructions, and the approximate math functions), where the
/// interpreter does not evaluate a form of them (`ex2.approx`, `div.full`,
/// `fma.rn.f16x2`): the same opcode, with the same modifiers, of equal
/// operands gives equal results. Reads of memory or of other lanes, and
/// anything not listed, are not numbered.
const PER_LANE: [&str; 49] = [
    "abs", "add", "and", "bfe", "bfi", "bfind", "bmsk", "brev", "clz", "cnot", "copysign", "cos",
    "cvt", "div", "dp2a", "dp4a", "ex2", "fma", "fns", "lg2", "lop3", "mad", "mad24", "max", "min",
    "mov", "mul", "mul24", "neg", "not", "or", "popc", "prmt", "rcp", "rem", "rsqrt", "sad",
    "selp", "set", "setp", "shf", "shl", "shr", "sin", "slct", "sqrt", "sub", "tanh", "xor",
];

fn special(s: ast::Special, c: u8) -> Special {
    use ast::Special as S;
    match s {
        S::Tid => Special::Tid(c),
        S::Ntid => Special::Ntid(c),
        S::Ctaid => Special::Ctaid(c),
        S::Nctaid => Special::Nctaid(c),
        S::Laneid => Special::Laneid,
        S::Warpid => Special::Warpid,
        S::Nwarpid => Special::Nwarpid,
        S::DynamicSmemSize => Special::DynamicSmemSize,
        S::TotalSmemSize => Special::TotalSmemSize,
        S::LanemaskEq => Special::LanemaskEq,
        S::LanemaskLt => Special::LanemaskLt,
        S::LanemaskLe => Special::LanemaskLe,
        S::LanemaskGt => Special::LanemaskGt,
        S::LanemaskGe => Special::LanemaskGe,
        S::IsExplicitCluster => Special::ExplicitCluster,
        S::ClusterCtarank => Special::ClusterCtarank,
        S::ClusterCtaid => Special::ClusterCtaid(c),
        S::ClusterNctarank => Special::ClusterNctarank,
        S::ClusterNctaid => Special::ClusterNctaid(c),
        S::Clusterid => Special::ClusterId(c),
        S::Nclusterid => Special::NclusterId(c),
        S::WarpSz => Special::WarpSize,
        S::Envreg(1 | 2) => Special::GridWorkspace,
        _ => Special::Unknown,
    }
}

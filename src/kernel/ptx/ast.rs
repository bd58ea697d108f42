//! The syntax tree of a PTX module: what [`parse`](super::parse) returns.
//!
//! Every name and every piece of text borrows from the input; a register is a
//! dense [`RegId`] into its function's [`Function::registers`], resolved with
//! PTX's block scoping, and a branch target a [`Operand::Label`] holding the
//! index of the instruction it names.

use smallvec::SmallVec;

/// `.version major.minor` (PTX ISA version).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Version {
    /// The major version (`8` of `8.7`).
    pub major: u32,
    /// The minor version (`7` of `8.7`).
    pub minor: u32,
}

/// A whole PTX module (one `.ptx` file).
#[derive(Debug, Clone, PartialEq, Default)]
#[non_exhaustive]
pub struct Module<'a> {
    /// `.version`; 0.0 where the file has none.
    pub version: Version,
    /// `.target` entries in order (`sm_80`, `debug`, `texmode_independent`, ...).
    pub target: Vec<&'a str>,
    /// `.address_size` (32 or 64), where given.
    pub address_size: Option<u32>,
    /// `.file` entries, in order.
    pub files: Vec<SourceFile<'a>>,
    /// Module-scope variables: `.shared`, `.global`, `.const`, ... (not the
    /// contents of `.section`s, which are skipped).
    pub variables: Vec<Variable<'a>>,
    /// `.entry` and `.func` definitions and declarations, in order.
    pub functions: Vec<Function<'a>>,
    /// Module-scope `.pragma` strings (without quotes), in order: they apply
    /// to every function of the module (PTX ISA, `.pragma "nounroll"`).
    pub pragmas: Vec<&'a str>,
}

impl<'a> Module<'a> {
    /// The function (entry or `.func`) named `name` that has a body; failing
    /// that, its declaration.
    pub fn function(&self, name: &str) -> Option<&Function<'a>> {
        let mut declared = None;
        for function in &self.functions {
            if function.name == name {
                if function.has_body {
                    return Some(function);
                }
                declared = declared.or(Some(function));
            }
        }
        declared
    }

    /// The kernels: `.entry` functions that have a body.
    pub fn entries(&self) -> impl Iterator<Item = &Function<'a>> {
        self.functions
            .iter()
            .filter(|function| function.kind == FunctionKind::Entry && function.has_body)
    }

    /// The module-scope variable named `name`.
    pub fn variable(&self, name: &str) -> Option<&Variable<'a>> {
        self.variables.iter().find(|variable| variable.name == name)
    }

    /// The path of `.file` number `index`.
    pub fn file(&self, index: u32) -> Option<&'a str> {
        self.files
            .iter()
            .find(|file| file.index == index)
            .map(|file| file.name)
    }

    /// How many times each mnemonic (`ld.shared.v4.f32`) appears, over
    /// every function: what an interpreter must know to run the module.
    ///
    /// # Example
    ///
    /// ```
    /// let module = smem_model::kernel::ptx::parse(
    ///     ".version 8.0\n.entry k()\n{\n bar.sync 0;\n bar.sync 0;\n ret;\n}\n",
    /// )?;
    /// let counts: Vec<_> = module.mnemonic_counts().into_iter().collect();
    /// assert_eq!(counts, [("bar.sync", 2), ("ret", 1)]);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn mnemonic_counts(&self) -> std::collections::BTreeMap<&'a str, usize> {
        let mut counts = std::collections::BTreeMap::new();
        for instruction in self.instructions() {
            *counts.entry(instruction.mnemonic).or_insert(0) += 1;
        }
        counts
    }

    /// The instructions of every function, in order.
    pub fn instructions(&self) -> impl Iterator<Item = &Instruction<'a>> {
        self.functions.iter().flat_map(|f| f.instructions.iter())
    }
}

/// `.file N "name"` (a source file that `.loc` refers to by `N`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SourceFile<'a> {
    /// Its number.
    pub index: u32,
    /// Its path, without the quotes (escapes kept as written).
    pub name: &'a str,
}

/// `.entry` (a kernel) or `.func` (a device function).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FunctionKind {
    /// `.entry`: a kernel, launched from the host.
    Entry,
    /// `.func`: a device function, reached by `call`.
    Func,
}

/// Linkage directives in front of a function or variable (PTX ISA, "Linking
/// Directives").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Linkage {
    /// None given: visible in this module only.
    #[default]
    Internal,
    /// `.visible`.
    Visible,
    /// `.extern`: defined elsewhere (or, for `.extern .shared`, the dynamic
    /// shared memory).
    Extern,
    /// `.weak`.
    Weak,
    /// `.common`.
    Common,
}

/// A state space (PTX ISA, "State Spaces").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StateSpace {
    /// `.reg`.
    Reg,
    /// `.sreg` (special registers).
    SReg,
    /// `.const`.
    Const,
    /// `.global`.
    Global,
    /// `.local`.
    Local,
    /// `.param`.
    Param,
    /// `.shared`.
    Shared,
    /// `.tex`.
    Tex,
}

impl StateSpace {
    /// The space named by a directive (`".shared"`), if it is one.
    pub fn from_directive(directive: &str) -> Option<Self> {
        Some(match directive {
            ".reg" => StateSpace::Reg,
            ".sreg" => StateSpace::SReg,
            ".const" => StateSpace::Const,
            ".global" => StateSpace::Global,
            ".local" => StateSpace::Local,
            ".param" => StateSpace::Param,
            ".shared" => StateSpace::Shared,
            ".tex" => StateSpace::Tex,
            _ => return None,
        })
    }
}

/// A fundamental type of a variable or register (PTX ISA, "Fundamental
/// Types"), plus the opaque types of `.global` texture/sampler/surface
/// references.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
#[allow(missing_docs)] // Each variant is the PTX type of the same name.
pub enum Type {
    B8,
    B16,
    B32,
    B64,
    B128,
    U8,
    U16,
    U32,
    U64,
    S8,
    S16,
    S32,
    S64,
    F16,
    F16x2,
    BF16,
    BF16x2,
    TF32,
    F32,
    F64,
    /// `.pred`: a predicate register.
    Pred,
    /// `.texref`.
    TexRef,
    /// `.samplerref`.
    SamplerRef,
    /// `.surfref`.
    SurfRef,
}

impl Type {
    /// The type named by a directive (`".u32"`), if it is one.
    pub fn from_directive(directive: &str) -> Option<Self> {
        Some(match directive {
            ".b8" => Type::B8,
            ".b16" => Type::B16,
            ".b32" => Type::B32,
            ".b64" => Type::B64,
            ".b128" => Type::B128,
            ".u8" => Type::U8,
            ".u16" => Type::U16,
            ".u32" => Type::U32,
            ".u64" => Type::U64,
            ".s8" => Type::S8,
            ".s16" => Type::S16,
            ".s32" => Type::S32,
            ".s64" => Type::S64,
            ".f16" => Type::F16,
            ".f16x2" => Type::F16x2,
            ".bf16" => Type::BF16,
            ".bf16x2" => Type::BF16x2,
            ".tf32" => Type::TF32,
            ".f32" => Type::F32,
            ".f64" => Type::F64,
            ".pred" => Type::Pred,
            ".texref" => Type::TexRef,
            ".samplerref" => Type::SamplerRef,
            ".surfref" => Type::SurfRef,
            _ => return None,
        })
    }

    /// Its size in bytes (a predicate and the opaque reference types: 0, as
    /// they have no addressable storage).
    pub const fn size(self) -> u32 {
        match self {
            Type::B8 | Type::U8 | Type::S8 => 1,
            Type::B16 | Type::U16 | Type::S16 | Type::F16 | Type::BF16 => 2,
            Type::B32
            | Type::U32
            | Type::S32
            | Type::F32
            | Type::F16x2
            | Type::BF16x2
            | Type::TF32 => 4,
            Type::B64 | Type::U64 | Type::S64 | Type::F64 => 8,
            Type::B128 => 16,
            Type::Pred | Type::TexRef | Type::SamplerRef | Type::SurfRef => 0,
        }
    }
}

/// `.ptr` of a kernel parameter: the state space and alignment the pointer
/// is promised to have (PTX ISA, "Kernel Function Parameter Attributes").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Pointer {
    /// `.global`, `.shared`, `.const`, `.local` after `.ptr`; none: generic.
    pub space: Option<StateSpace>,
    /// `.align N` after `.ptr`.
    pub align: Option<u32>,
}

/// A declared variable: a module-scope or function-scope `.shared`,
/// `.global`, `.const`, `.local` or `.param`, or a parameter.
///
/// `.reg` declarations become [`Register`]s, not variables (except `.reg`
/// parameters of a `.func`, which are both).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Variable<'a> {
    /// Its name.
    pub name: &'a str,
    /// Its state space.
    pub space: StateSpace,
    /// Linkage given in front of it.
    pub linkage: Linkage,
    /// `.align N`, where given.
    pub align: Option<u32>,
    /// `.v2`/`.v4`/`.v8`: elements per vector, where given.
    pub vector: Option<u32>,
    /// Its element type.
    pub ty: Type,
    /// Array dimensions: `[4224]` is `[Some(4224)]`, `[]` is `[None]`
    /// (the dynamic shared memory, an unsized `.extern` array).
    pub dims: SmallVec<[Option<u64>; 2]>,
    /// `.ptr` (kernel parameters only).
    pub ptr: Option<Pointer>,
    /// The initialiser's text after `=`, trimmed, as written
    /// (`{1, 2, 3}`, `0f3F800000`, `{generic(s), 0}`).
    pub init: Option<&'a str>,
    /// The line (from 1) of the PTX file it is declared on.
    pub line: u32,
}

impl Variable<'_> {
    /// Its size in bytes: element size times vector length times every
    /// dimension; `None` for an unsized array (`name[]`) or on overflow.
    pub fn size(&self) -> Option<u64> {
        let mut bytes = u64::from(self.ty.size()) * u64::from(self.vector.unwrap_or(1));
        for dim in &self.dims {
            bytes = bytes.checked_mul((*dim)?)?;
        }
        Some(bytes)
    }

    /// Whether it is an unsized array (`.extern .shared .b8 smem[]`).
    pub fn is_unsized(&self) -> bool {
        self.dims.iter().any(Option::is_none)
    }
}

/// A register's number in its function: registers are numbered from 0 in
/// the order they are declared, ranges taking consecutive numbers, so an
/// interpreter can keep a function's registers in a vector of
/// [`Function::register_count`] entries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RegId(pub u32);

impl RegId {
    /// The number as a `usize`.
    pub const fn index(self) -> usize {
        self.0 as usize
    }
}

/// One `.reg` declarator: a single register (`%f`) or a range (`%r<623>`
/// declares `%r0` to `%r622`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RegisterDecl<'a> {
    /// The register's name, or a range's prefix (`%r`).
    pub name: &'a str,
    /// The number of its first (or only) register.
    pub first: RegId,
    /// A range's length; none for a single register.
    pub count: Option<u32>,
    /// Its type.
    pub ty: Type,
    /// `.v2`/`.v4`: vector registers, accessed by `.x`..`.w`.
    pub vector: Option<u32>,
}

/// One register: what [`Function::register`] says of a [`RegId`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Register<'a> {
    /// Its name, or for a register of a range the range's prefix (`%r`).
    pub name: &'a str,
    /// Its number within a range (`17` for `%r17`), none for a single one.
    pub index: Option<u32>,
    /// Its type.
    pub ty: Type,
    /// `.v2`/`.v4`: a vector register, accessed by `.x`..`.w`.
    pub vector: Option<u32>,
}

impl std::fmt::Display for Register<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.index {
            Some(index) => write!(f, "{}{index}", self.name),
            None => f.write_str(self.name),
        }
    }
}

/// A performance-tuning directive of an entry (`.maxntid 256, 1, 1`,
/// `.reqntid 128`, `.minnctapersm 2`, `.maxnreg 64`, `.reqnctapercluster`,
/// ...), or `.noreturn` with no values.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Tuning<'a> {
    /// The directive, with its dot (`.maxntid`).
    pub name: &'a str,
    /// Its values.
    pub values: SmallVec<[u32; 3]>,
}

/// A label, and the instruction it stands before.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Label<'a> {
    /// Its name (`$L__BB0_2`).
    pub name: &'a str,
    /// The index in [`Function::instructions`] of the instruction that follows
    /// it (the number of instructions, for a label at the end).
    pub target: u32,
}

/// A `.entry` or `.func`.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Function<'a> {
    /// Its name (mangled, as written).
    pub name: &'a str,
    /// Entry or device function.
    pub kind: FunctionKind,
    /// Its linkage.
    pub linkage: Linkage,
    /// Return parameters of a `.func` (`(.param .b32 func_retval0)`).
    pub returns: Vec<Variable<'a>>,
    /// Parameters, in order.
    pub params: Vec<Variable<'a>>,
    /// Performance-tuning directives and `.noreturn`, in order.
    pub tuning: Vec<Tuning<'a>>,
    /// `.pragma` strings (without quotes), in the header or body.
    pub pragmas: Vec<&'a str>,
    /// Of [`pragmas`](Self::pragmas), those in the body (statement-level),
    /// each with the index in [`instructions`](Self::instructions) of the
    /// instruction after it: such a pragma applies to the loop whose header
    /// block it opens (PTX ISA, `.pragma "nounroll"`); a pragma between the
    /// parameters and the body applies to the whole function.
    pub body_pragmas: Vec<(u32, &'a str)>,
    /// The `.reg` declarators (and `.reg` parameters), in order of their
    /// numbers, nested blocks' included.
    pub registers: Vec<RegisterDecl<'a>>,
    /// How many registers the declarators number: every [`RegId`] of the
    /// function is below it.
    pub register_count: u32,
    /// Variables declared in the body (`.shared`, `.local`, and the `.param`s of
    /// call sequences), in order, nested blocks included.
    pub variables: Vec<Variable<'a>>,
    /// The body's instructions in order, nested blocks flattened.
    pub instructions: Vec<Instruction<'a>>,
    /// The body's labels, in order (block-scoped labels may repeat a name).
    pub labels: Vec<Label<'a>>,
    /// Whether it has a body (false: a declaration ending in `;`).
    pub has_body: bool,
    /// The PTX line (from 1) of its `.entry`/`.func`.
    pub line: u32,
}

impl<'a> Function<'a> {
    /// The values of tuning directive `name` (`".reqntid"`), if present.
    pub fn tuning(&self, name: &str) -> Option<&[u32]> {
        self.tuning
            .iter()
            .find(|tuning| tuning.name == name)
            .map(|tuning| tuning.values.as_slice())
    }

    /// The parameter named `name`, with its index.
    pub fn param(&self, name: &str) -> Option<(usize, &Variable<'a>)> {
        self.params
            .iter()
            .enumerate()
            .find(|(_, param)| param.name == name)
    }

    /// The register `id`, if it is one of this function's (the ids in its
    /// operands all are).
    pub fn register(&self, id: RegId) -> Option<Register<'a>> {
        let at = self.registers.partition_point(|decl| decl.first <= id);
        let decl = self.registers.get(at.checked_sub(1)?)?;
        let offset = id.0 - decl.first.0;
        match decl.count {
            None if offset == 0 => Some(Register {
                name: decl.name,
                index: None,
                ty: decl.ty,
                vector: decl.vector,
            }),
            Some(count) if offset < count => Some(Register {
                name: decl.name,
                index: Some(offset),
                ty: decl.ty,
                vector: decl.vector,
            }),
            _ => None,
        }
    }

    /// The variable named `name` declared in this function's body (the last
    /// one, if nested blocks repeat it), failing that the parameter or return
    /// parameter of that name.
    pub fn variable(&self, name: &str) -> Option<&Variable<'a>> {
        self.variables
            .iter()
            .rev()
            .chain(self.params.iter())
            .chain(self.returns.iter())
            .find(|variable| variable.name == name)
    }
}

/// A PTX instruction: optional guard, opcode with its dotted modifiers, and
/// operands.
///
/// `ld.shared.v4.f32 {%f1, %f2, %f3, %f4}, [%r5+16];` reads as
///
/// ```text
/// mnemonic "ld.shared.v4.f32"   opcode() "ld"   modifiers() "shared", "v4", "f32"
/// operands [Vector([Reg %f1, Reg %f2, Reg %f3, Reg %f4]),
///           Address(Address { base: Reg(%r5), offset: 16 })]
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Instruction<'a> {
    /// `@%p` / `@!%p`, where present.
    pub guard: Option<Guard>,
    /// The opcode with all its modifiers, as written
    /// (`cp.async.cg.shared.global.L2::128B`).
    pub mnemonic: &'a str,
    /// Its operands, in order.
    pub operands: SmallVec<[Operand<'a>; 4]>,
    /// The whole instruction as written, guard included, without its `;`
    /// (comments inside kept): for messages.
    pub text: &'a str,
    /// The PTX line (from 1) it is on.
    pub line: u32,
    /// The source location of the latest `.loc` before it in its function.
    pub loc: Option<Loc>,
    /// Where that `.loc`'s code was inlined (`.loc 2 896 3, function_name
    /// $L__info_string1, inlined_at 1 11 3` is header line 896 inlined at
    /// line 11 of file 1): the call site in the caller, one level up.
    pub inlined_at: Option<Loc>,
}

impl<'a> Instruction<'a> {
    /// The opcode without modifiers (`ld` of `ld.shared.v4.f32`).
    pub fn opcode(&self) -> &'a str {
        match self.mnemonic.find('.') {
            Some(dot) => &self.mnemonic[..dot],
            None => self.mnemonic,
        }
    }

    /// The modifiers, without dots, in order (`shared`, `v4`, `f32`;
    /// `L2::128B` stays whole).
    pub fn modifiers(&self) -> impl Iterator<Item = &'a str> + 'a {
        let mnemonic: &'a str = self.mnemonic;
        mnemonic.split('.').skip(1)
    }

    /// Whether `modifier` (without its dot) is one of the modifiers.
    pub fn has(&self, modifier: &str) -> bool {
        self.modifiers().any(|m| m == modifier)
    }
}

/// `.loc file line column`: where an instruction comes from in the source.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Loc {
    /// The `.file` number.
    pub file: u32,
    /// The source line.
    pub line: u32,
    /// The source column.
    pub column: u32,
}

/// An instruction's guard predicate: `@%p` runs it where `%p` is true,
/// `@!%p` where it is false.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Guard {
    /// The predicate register.
    pub reg: RegId,
    /// `@!`: the instruction runs where the predicate is false.
    pub negated: bool,
}

/// A vector register's component: `.x`, `.y`, `.z`, `.w` (also written `.r`,
/// `.g`, `.b`, `.a`), as 0 to 3.
pub type Component = u8;

/// A special register (PTX ISA, "Special Registers"); those with `.x/.y/.z`
/// carry the component in [`Operand::Special`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
#[allow(missing_docs)] // Each variant is the special register of the same name.
pub enum Special {
    Tid,
    Ntid,
    Laneid,
    Warpid,
    Nwarpid,
    Ctaid,
    Nctaid,
    Smid,
    Nsmid,
    Gridid,
    IsExplicitCluster,
    Clusterid,
    Nclusterid,
    ClusterCtaid,
    ClusterNctaid,
    ClusterCtarank,
    ClusterNctarank,
    LanemaskEq,
    LanemaskLe,
    LanemaskLt,
    LanemaskGe,
    LanemaskGt,
    Clock,
    ClockHi,
    Clock64,
    Globaltimer,
    GlobaltimerLo,
    GlobaltimerHi,
    TotalSmemSize,
    AggrSmemSize,
    DynamicSmemSize,
    ReservedSmemOffsetBegin,
    ReservedSmemOffsetEnd,
    ReservedSmemOffsetCap,
    ReservedSmemOffset0,
    ReservedSmemOffset1,
    CurrentGraphExec,
    /// `WARP_SZ`: the predefined run-time constant, the warp size (32).
    WarpSz,
    /// `%pm0`..`%pm7`, and `%pm0_64`..`%pm7_64` with `wide`.
    Pm {
        index: u8,
        wide: bool,
    },
    /// `%envreg0`..`%envreg31`.
    Envreg(u8),
}

impl Special {
    /// The special register named `name` (with its `%`, without component;
    /// `WARP_SZ` as written).
    pub fn from_name(name: &str) -> Option<Self> {
        Some(match name {
            "%tid" => Special::Tid,
            "%ntid" => Special::Ntid,
            "%laneid" => Special::Laneid,
            "%warpid" => Special::Warpid,
            "%nwarpid" => Special::Nwarpid,
            "%ctaid" => Special::Ctaid,
            "%nctaid" => Special::Nctaid,
            "%smid" => Special::Smid,
            "%nsmid" => Special::Nsmid,
            "%gridid" => Special::Gridid,
            "%is_explicit_cluster" => Special::IsExplicitCluster,
            "%clusterid" => Special::Clusterid,
            "%nclusterid" => Special::Nclusterid,
            "%cluster_ctaid" => Special::ClusterCtaid,
            "%cluster_nctaid" => Special::ClusterNctaid,
            "%cluster_ctarank" => Special::ClusterCtarank,
            "%cluster_nctarank" => Special::ClusterNctarank,
            "%lanemask_eq" => Special::LanemaskEq,
            "%lanemask_le" => Special::LanemaskLe,
            "%lanemask_lt" => Special::LanemaskLt,
            "%lanemask_ge" => Special::LanemaskGe,
            "%lanemask_gt" => Special::LanemaskGt,
            "%clock" => Special::Clock,
            "%clock_hi" => Special::ClockHi,
            "%clock64" => Special::Clock64,
            "%globaltimer" => Special::Globaltimer,
            "%globaltimer_lo" => Special::GlobaltimerLo,
            "%globaltimer_hi" => Special::GlobaltimerHi,
            "%total_smem_size" => Special::TotalSmemSize,
            "%aggr_smem_size" => Special::AggrSmemSize,
            "%dynamic_smem_size" => Special::DynamicSmemSize,
            "%reserved_smem_offset_begin" => Special::ReservedSmemOffsetBegin,
            "%reserved_smem_offset_end" => Special::ReservedSmemOffsetEnd,
            "%reserved_smem_offset_cap" => Special::ReservedSmemOffsetCap,
            "%reserved_smem_offset_0" => Special::ReservedSmemOffset0,
            "%reserved_smem_offset_1" => Special::ReservedSmemOffset1,
            "%current_graph_exec" => Special::CurrentGraphExec,
            "WARP_SZ" => Special::WarpSz,
            _ => {
                if let Some(rest) = name.strip_prefix("%envreg") {
                    let index: u8 = small_index(rest)?;
                    return (index < 32).then_some(Special::Envreg(index));
                }
                let rest = name.strip_prefix("%pm")?;
                let (digits, wide) = match rest.strip_suffix("_64") {
                    Some(digits) => (digits, true),
                    None => (rest, false),
                };
                let index = small_index(digits)?;
                return (index < 8).then_some(Special::Pm { index, wide });
            }
        })
    }
}

/// A decimal number of one or two digits without a leading zero.
fn small_index(digits: &str) -> Option<u8> {
    let ok = matches!(digits.len(), 1 | 2)
        && digits.bytes().all(|b| b.is_ascii_digit())
        && !(digits.len() == 2 && digits.starts_with('0'));
    if ok {
        digits.parse().ok()
    } else {
        None
    }
}

/// An immediate value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Immediate {
    /// An integer (decimal, `0x` hex, `0b` binary, octal, with an optional
    /// `U`), negated where written with `-`; literals past `i64::MAX` keep
    /// their 64 bits (`0xFFFFFFFFFFFFFFFF` is `-1`).
    Int(i64),
    /// `0fXXXXXXXX`: the bits of an `f32`.
    F32(u32),
    /// `0dXXXXXXXXXXXXXXXX`, or a decimal literal such as `1.5`: the bits of
    /// an `f64` (PTX reads decimal floating-point literals as `.f64`).
    F64(u64),
}

/// What an address operand `[...]` is relative to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AddressBase<'a> {
    /// `[%rd1+16]`: a register.
    Reg(RegId),
    /// `[smem+4]`, `[kernel_param_0]`: a variable, parameter or function.
    Symbol(&'a str),
    /// `[16]`: an absolute address.
    Absolute,
}

/// An address operand `[base+offset]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Address<'a> {
    /// The base.
    pub base: AddressBase<'a>,
    /// The byte offset (`[%rd1+-4]` is -4; `[16]` is 16).
    pub offset: i64,
}

/// An instruction's operand.
///
/// # Example
///
/// ```
/// use smem_model::kernel::ptx::{self, AddressBase, Operand};
///
/// let module = ptx::parse(
///     ".version 8.0\n.target sm_80\n.address_size 64\n\
///      .visible .entry k() {\n .reg .b32 %r<3>;\n ld.shared.u32 %r2, [%r1+-4];\n ret;\n}\n",
/// )?;
/// let ld = &module.functions[0].instructions[0];
/// let Operand::Address(address) = ld.operands[1] else { panic!() };
/// let AddressBase::Reg(base) = address.base else { panic!() };
/// assert_eq!(module.functions[0].register(base).unwrap().to_string(), "%r1");
/// assert_eq!(address.offset, -4);
/// # Ok::<(), smem_model::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Operand<'a> {
    /// A declared register; `!%p` is `negated`; `%v.x` has a component.
    Reg {
        /// The register.
        id: RegId,
        /// `.x`..`.w` of a vector register, as 0 to 3.
        component: Option<Component>,
        /// `!%p` (a negated predicate operand).
        negated: bool,
    },
    /// `%p|%q`: the two destinations of `setp`/`set` with a second predicate.
    RegPair(RegId, RegId),
    /// A special register: `%tid.x` is `Special(Tid, Some(0))`.
    Special(Special, Option<Component>),
    /// An immediate.
    Imm(Immediate),
    /// `[...]` of the form `[reg]`, `[reg+N]`, `[sym]`, `[sym+N]`, `[N]`.
    Address(Address<'a>),
    /// `{a, b, ...}`: a vector of registers, immediates or sinks.
    Vector(Vec<Operand<'a>>),
    /// `(a, b, ...)`: a parameter list of `call`.
    List(Vec<Operand<'a>>),
    /// A label of the same function, as the index of the instruction it stands
    /// before (a branch target).
    Label(u32),
    /// A name that is neither a register nor a label in scope: a variable, a
    /// parameter or a function (`mov.u32 %r1, smem;`, `call f`); `sym+N` has
    /// an offset.
    Symbol {
        /// The name.
        name: &'a str,
        /// The offset added to its address.
        offset: i64,
    },
    /// `_`: a sink (no destination).
    Sink,
    /// `[base, {c0, c1, ...}]`: a tensor copy's tensor map and coordinates
    /// (`[%rd1, {%r1, %r2}]` of `cp.async.bulk.tensor.2d`), or a texture's.
    Indexed {
        /// The map (or texture): a register, a symbol or an absolute address.
        base: AddressBase<'a>,
        /// The coordinates, innermost first.
        coords: Vec<Operand<'a>>,
    },
    /// An operand this reader keeps as written without further structure
    /// (`[tex, sampler, {%f1, %f2}]`).
    Opaque(&'a str),
}

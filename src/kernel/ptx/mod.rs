//! PTX, read: the syntax tree of a module as nvcc (10.2 to 13.x), Triton
//! (3.x, through LLVM's NVPTX back end) and CUTLASS emit it, PTX ISA up to
//! 9.x (feature `ptx`).
//!
//! [`parse`] reads a whole `.ptx` file into a [`Module`]: its `.version`,
//! `.target` and `.address_size`, its `.file` table, its module-scope
//! variables (`.shared`, `.global`, `.const`, with alignment, array
//! dimensions and initialisers; `.extern .shared .b8 smem[]` is the dynamic
//! shared memory) and its [`Function`]s (`.entry` kernels and `.func`s, with
//! return parameters, parameters, `.ptr` attributes and tuning directives
//! such as `.reqntid`). A function's body becomes a flat list of
//! [`Instruction`]s: nested blocks `{ ... }` (call sequences, inline
//! assembly) only scope names, so they are flattened, and every name is
//! resolved as PTX scopes it:
//!
//! - a register is a [`RegId`], numbered densely per function in declaration
//!   order (`%r<623>` takes 623 consecutive numbers), so an interpreter keeps
//!   a thread's registers in a vector of [`Function::register_count`];
//!   [`Function::register`] gives its name and type back;
//! - a special register (`%tid.x`) is an [`Operand::Special`];
//! - a label of the block or an enclosing one is an [`Operand::Label`]
//!   holding the index of the instruction it stands before;
//! - any other name (a variable, a parameter, a function) is an
//!   [`Operand::Symbol`], as written.
//!
//! An instruction keeps its opcode with all its modifiers as written
//! ([`Instruction::mnemonic`], `ld.shared.v4.f32`), with
//! [`Instruction::opcode`] (`ld`), [`Instruction::modifiers`] and
//! [`Instruction::has`] to match on it. The reader knows nothing of what an
//! opcode means: every well-formed instruction reads, those an interpreter
//! does not know included. Operands keep the structure an interpreter needs
//! (registers, immediates with their bits, `[base+offset]` addresses,
//! `{...}` vectors, `(...)` call lists, `%p|%q` pairs, a tensor copy's
//! `[%rd1, {%r1, %r2}]` as [`Operand::Indexed`]); an address of another shape
//! (`[tex, sampler, {%f1, %f2}]`) is an [`Operand::Opaque`] holding its text.
//!
//! Each instruction carries its PTX line and the `.loc` (file, line, column)
//! in force before it. `.section`s (DWARF) are skipped whole; comments
//! (`//`, `/* */`) anywhere.
//!
//! Beside the reader, [`ops`] holds the exact integer semantics of PTX
//! instructions over values that may be unknown, [`KernelLaunch`] a
//! launch's grid, block, dynamic shared memory and arguments, and
//! [`Kernel`] the interpreter that runs a launch's blocks and gives their
//! shared-memory events to a [`Consumer`](crate::kernel::Consumer).
//!
//! Text that is not PTX is an [`Error::PtxSyntax`]
//! with the line and column (from 1) of the offending token, what was
//! expected there, and at most 32 characters of the text found.
//!
//! # Bounds
//!
//! Whatever a file or an argument claims, time and memory are bounded by
//! what runs, and each bound is a typed error (exit status 2 in `smem
//! kernel`), checked before anything is sized by the claim:
//!
//! - **Launch**: a grid of at most [`MAX_GRID`] blocks, a block of at most
//!   [`MAX_BLOCK`] and [`MAX_BLOCK_THREADS`] threads ([`KernelLaunch::new`],
//!   CUDA's limits), `.reqntid` and `.maxntid` as the driver applies them,
//!   static and dynamic shared memory within the capability's limits with
//!   the opt-in ([`Kernel::check_launch`], measured on an H200).
//! - **Arguments**: each parameter's value is exactly its bytes
//!   ([`KernelLaunch::bind`]; a struct's as one hex number of up to its
//!   size); a message lists at most 8 or 16 names, then "and N more".
//! - **Registers**: at most 4,194,304 declared in a function (the reader);
//!   a block's registers and param space at most 1 GiB in the interpreter
//!   ([`Error::InterpreterState`]), calls at most 64 deep.
//! - **Time**: a block stops after [`RunOptions::with_step_budget`] warp
//!   instructions ([`DEFAULT_STEP_BUDGET`]), a run after
//!   [`RunOptions::with_run_budget`] ([`DEFAULT_RUN_BUDGET`]).
//! - **Findings**: at most [`Block::MAX_HAZARDS`](crate::Block::MAX_HAZARDS)
//!   hazards listed a kernel by default
//!   ([`Racecheck::with_max_hazards`](crate::Racecheck::with_max_hazards)),
//!   the rest counted.
//!
//! Tests hold each: `KernelLaunch`'s own (`launch.rs`), the interpreter's
//! (`interp/tests.rs`: the state bound, the step budget, a 24-byte struct),
//! `tests/cli_kernel_launch.rs` (the driver's refusals),
//! `tests/block_consumer.rs` and `tests/cli_kernel.rs` (the hazard cap), and
//! the fuzz targets `ptx_run`, `launch_args` and `triton_meta`.
//!
//! # Reading the tree as an interpreter
//!
//! - **Control**: run [`Function::instructions`] by index; a branch's
//!   [`Operand::Label`] is the index to go to ([`Function::labels`] lists
//!   them by name). A [`Guard`] names a predicate register and whether it is
//!   negated (`@!%p`).
//! - **Registers**: a thread's registers fit a vector of
//!   [`Function::register_count`] values indexed by [`RegId::index`];
//!   [`Function::register`] gives a register's name and type (for messages).
//!   `%tid.x` and the other special registers are [`Operand::Special`] with a
//!   component, `WARP_SZ` included.
//! - **Names**: `ld.param.u32 %r1, [k_param_2]` has an
//!   [`Address`] whose [`AddressBase::Symbol`] is the parameter
//!   ([`Function::param`] gives its index and type); `mov.u32 %r1, smem;` has
//!   [`Operand::Symbol`] (a variable of the function or the module:
//!   [`Function::variable`], [`Module::variable`], with its state space,
//!   alignment and size). A call is `call[.uni] (returns), callee, (args)`:
//!   [`Operand::List`], [`Operand::Symbol`] (or a register for an indirect
//!   call), [`Operand::List`], then the prototype's name if any.
//! - **Sites**: an event's [`Site`](crate::kernel::Site) is the instruction's
//!   index as `pc`, with [`Loc`]'s file and line where `.loc` gave them.
//!
//! ```
//! use smem_model::kernel::ptx::{self, Operand};
//!
//! let text = ".version 8.0\n.target sm_80\n.entry k()\n{\n\
//!     .reg .b32 %r<3>;\n .shared .align 4 .b8 s[128];\n\
//!     mov.u32 %r1, s;\n st.shared.v2.u32 [%r1+8], {%r1, %r2};\n\
//!     ld.volatile.shared.u32 %r2, [s+4];\n ret;\n}\n";
//! let module = ptx::parse(text)?;
//! let k = &module.functions[0];
//! // The shared accesses, with their vector length.
//! let shared: Vec<(usize, &str, u32)> = k
//!     .instructions
//!     .iter()
//!     .enumerate()
//!     .filter(|(_, i)| matches!(i.opcode(), "ld" | "st") && i.has("shared"))
//!     .map(|(pc, i)| {
//!         let lanes = if i.has("v4") { 4 } else if i.has("v2") { 2 } else { 1 };
//!         (pc, i.opcode(), lanes)
//!     })
//!     .collect();
//! assert_eq!(shared, [(1, "st", 2), (2, "ld", 1)]);
//! // `mov.u32 %r1, s` takes the address of a shared variable of the function.
//! let Operand::Symbol { name, .. } = k.instructions[0].operands[1] else { panic!() };
//! assert_eq!(k.variable(name).unwrap().size(), Some(128));
//! # Ok::<(), smem_model::Error>(())
//! ```
//!
//! # Why a reader of our own
//!
//! The crates that read PTX were weighed: `ptx-90-parser` is deprecated,
//! `singe-ptx` is alpha, and ZLUDA's parser is not published on its own.
//! What this crate needs is small (the declarations, and each instruction as
//! opcode plus operands; the meaning of opcodes belongs to the interpreter),
//! the library takes no heavy dependency, and the reader must borrow from
//! its input and never fail on an instruction it does not know. So this is a
//! hand-written lexer and recursive-descent parser of about a thousand lines,
//! tested on every file of a corpus of public PTX (nvcc 10.2-13.1, Triton,
//! CUTLASS).
//!
//! # Example
//!
//! ```
//! use smem_model::kernel::ptx::{self, AddressBase, Immediate, Operand, Special};
//!
//! let text = r#"
//! .version 8.7
//! .target sm_90
//! .address_size 64
//!
//! .visible .entry reverse(.param .u64 .ptr .global .align 4 reverse_param_0)
//! .reqntid 64
//! {
//!     .reg .b32 %r<4>;
//!     .reg .b64 %rd<2>;
//!     .shared .align 4 .b8 s[256];
//!     .loc 1 7 5
//!     mov.u32 %r1, %tid.x;
//!     shl.b32 %r2, %r1, 2;
//!     mov.u32 %r3, s;
//!     st.shared.u32 [%r3+4], %r1;
//!     bar.sync 0;
//!     ret;
//! }
//! "#;
//! let module = ptx::parse(text)?;
//! assert_eq!((module.version.major, module.version.minor), (8, 7));
//! let kernel = module.function("reverse").unwrap();
//! assert_eq!(kernel.tuning(".reqntid"), Some(&[64][..]));
//! assert_eq!(kernel.register_count, 6);
//! assert_eq!(kernel.variable("s").unwrap().size(), Some(256));
//!
//! let mov = &kernel.instructions[0];
//! assert_eq!(mov.operands[1], Operand::Special(Special::Tid, Some(0)));
//! assert_eq!(mov.loc.map(|loc| loc.line), Some(7));
//!
//! let st = &kernel.instructions[3];
//! assert_eq!((st.opcode(), st.has("shared")), ("st", true));
//! let Operand::Address(address) = &st.operands[0] else { panic!() };
//! assert!(matches!(address.base, AddressBase::Reg(_)));
//! assert_eq!(address.offset, 4);
//! assert_eq!(kernel.instructions[1].operands[2], Operand::Imm(Immediate::Int(2)));
//! # Ok::<(), smem_model::Error>(())
//! ```
//!
//! Malformed text:
//!
//! ```
//! use smem_model::kernel::ptx;
//!
//! let err = ptx::parse(".version 8.0\n.entry k() {\n  add.s32 %r1, %r2, 1;\n}\n").unwrap_err();
//! assert_eq!(
//!     err.to_string(),
//!     "PTX line 3, column 11: expected a declared register or a special register, \
//!      found `%r1, %r2, 1;`"
//! );
//! ```

mod ast;
mod interp;
mod launch;
mod lex;
pub mod ops;
mod parse;
#[cfg(feature = "json")]
mod races;
#[cfg(feature = "resolve")]
pub mod resolve;
mod tensor_map;
#[cfg(test)]
mod tests;

pub use ast::{
    Address, AddressBase, Component, Function, FunctionKind, Guard, Immediate, Instruction, Label,
    Linkage, Loc, Module, Operand, Pointer, RegId, Register, RegisterDecl, SourceFile, Special,
    StateSpace, Tuning, Type, Variable, Version,
};

pub use interp::{
    Kernel, LaunchCheck, Note, NoteKind, RunOptions, RunSummary, SharedVariable,
    DEFAULT_RUN_BUDGET, DEFAULT_STEP_BUDGET, SHARED_WINDOW_BASE,
};
pub use launch::{
    parse_dims, Arg, ArgKey, KernelLaunch, ParamDecl, ParamKind, FAKE_POINTER_BASE,
    FAKE_POINTER_STRIDE, MAX_BLOCK, MAX_BLOCK_THREADS, MAX_CLUSTER_BLOCKS, MAX_GRID,
};
#[cfg(feature = "json")]
pub use races::{races_json, site_text, source_text};
pub use tensor_map::{Interleave, OobFill, Swizzle, TensorMap, MAX_BOX_DIM, MAX_TENSOR_RANK};

use crate::Error;

/// The most registers one function may declare (4,194,304, all its blocks
/// together): more is "not modelled", so that a short text cannot make an
/// interpreter allocate without bound.
pub const MAX_REGISTERS: u32 = 1 << 22;

/// Reads a PTX module.
///
/// # Errors
///
/// [`Error::PtxSyntax`] where the text is not PTX: a token that cannot start
/// what must come next (with its line, column and what was expected), an
/// unterminated comment or string, a register used but not declared in
/// scope, a number past 64 bits, more than [`MAX_REGISTERS`] registers in a
/// function, a `bra` to a label its function does not declare.
///
/// # Example
///
/// ```
/// let module = smem_model::kernel::ptx::parse(".version 7.0\n.target sm_75\n")?;
/// assert_eq!(module.target, ["sm_75"]);
/// assert!(module.functions.is_empty());
/// # Ok::<(), smem_model::Error>(())
/// ```
pub fn parse(text: &str) -> Result<Module<'_>, Error> {
    parse::module(text)
}

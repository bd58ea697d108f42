//! The PTX interpreter: a kernel's thread blocks run on the CPU, warp by warp,
//! and every shared-memory access, barrier and fence they make goes to a
//! [`Consumer`] as a kernel [`Event`](crate::kernel::Event).
//!
//! [`Kernel::new`] takes a kernel of a read module (and the `.func`s it
//! calls); [`Kernel::run`] runs the blocks of a [`KernelLaunch`] (all, or a
//! sample) through a consumer and returns a [`RunSummary`]: how many blocks
//! and warp instructions ran, and [`Note`]s naming what could not be followed
//! exactly (accesses whose addresses depend on data the interpreter does not
//! have, branches on such data, barriers that never completed).
//!
//! # The model
//!
//! - **SIMT.** A warp's lanes run in lockstep under an active mask; a
//!   divergent branch runs one side, then the other, and the lanes reconverge
//!   at the branch's immediate post-dominator: the SIMT reconvergence stack of
//!   GPGPU-Sim (Fung et al., MICRO 2007). ptxas on Volta and later emits
//!   `BSSY`/`BSYNC` at the same points in the common cases; under independent
//!   thread scheduling the hardware may interleave diverged lanes where this
//!   model runs one side to its end first (loops with `break` in
//!   warp-synchronous code, spin locks).
//! - **Values.** Registers hold exact values or *unknown*. Integer
//!   instructions follow the PTX ISA exactly ([`ops`](super::ops)); float
//!   `add/sub/mul/fma/div.rn/min/max` round to nearest even; `%tid`, `%ntid`,
//!   `%ctaid`, `%nctaid`, `%laneid`, `%warpid` (the warp's index in its
//!   block), `%dynamic_smem_size` and shared symbols are known; `ld.param`
//!   reads the launch's arguments; shared memory holds what was stored to
//!   it; global, local and constant loads, and everything computed from
//!   them, are unknown; `shfl.sync`, `vote.sync`, `redux.sync`, `activemask`
//!   and `elect.sync` are exact among the lanes that execute them.
//! - **Value numbers.** Unknown values still have identities: a global load
//!   is numbered by its address, width and the block's global-memory epoch
//!   (which every global write of the block advances, as the interpreter runs
//!   them: a modelling choice), arithmetic on numbered values is hash-consed,
//!   so is an instruction the interpreter does not evaluate (`ex2.approx`,
//!   `mma.sync`: the same opcode of equal operands is an equal value, over
//!   the whole warp for a warp-collective one), and `mov`, `selp`,
//!   `shfl.sync` and shared memory carry numbers. So a
//!   shared store knows, lane by lane, when it writes what memory already
//!   holds (known bits, or the same number at the same width), and says so to
//!   the consumer ([`Consumer::event_unchanged`](crate::kernel::Consumer::event_unchanged)):
//!   compute-sanitizer reports no write-after-write hazard for such a store
//!   ([`Block::access_unchanged`](crate::Block::access_unchanged), measured).
//!   Equal only when certain: an unknown value without a number equals
//!   nothing. The rules, the table's bound and the epoch's limits:
//!   `number.rs`.
//! - **Never guessed.** A shared access whose address is unknown in a lane
//!   that executes it is an
//!   [`Event::UnknownAddress`](crate::kernel::Event::UnknownAddress) (one
//!   request of its op and width, as ptxas issues it under the merge plan:
//!   counted as an instruction, its cost and races unknown) and a [`Note`] of
//!   kind [`NoteKind::DataDependentAddress`]. Where even the instruction count
//!   depends on the addresses (a float or 64-bit atomic's compare-and-swap
//!   loop) or the access may not be shared at all (a generic address), it is
//!   an [`Event::Unmodelled`](crate::kernel::Event::Unmodelled) named by its
//!   opcode. A branch on an unknown predicate is taken as not taken in those
//!   lanes and noted.
//! - **Warps and barriers.** Warps run one at a time until they wait at a
//!   barrier or end; a barrier completes when every warp still running waits
//!   at it (or, with a count, when that many threads arrived). Shared memory
//!   values written before a barrier are seen after it.
//! - **Addresses.** Shared variables are placed in declaration order, each
//!   at a multiple of its alignment, the dynamic region after them at a
//!   multiple of 16 at least (ptxas's placement, measured on the device:
//!   tests/data/ptx/shared_placement and ptxas_merging_more). A generic address is shared when it lies in the
//!   window that `cvta.shared` maps to ([`SHARED_WINDOW_BASE`]).
//! - **ptxas's merges.** Events are the SASS's: neighbouring shared loads
//!   and stores that ptxas merges into one `LDS.64/.128` or `STS.64/.128`
//!   are one event, where ptxas can prove the merged access aligned from
//!   the address expression (as it does: known low bits, not the run's
//!   addresses). The rules were measured on 105 probe kernels
//!   (tests/data/ptx/ptxas_merging*, README there), including loads across
//!   the short forward branches ptxas if-converts. Not modelled: the merges
//!   of consecutive iterations of a loop ptxas unrolls fully (a constant
//!   trip count).
//! - **A step budget** stops a block that runs more warp instructions than
//!   [`RunOptions::with_step_budget`] allows (default
//!   [`DEFAULT_STEP_BUDGET`]), with an error naming the instruction it
//!   stopped at: a loop that does not end on the launch's values.
//! - **Memory** is bounded by what runs: a block's registers and param space
//!   (allocated for each warp as a function is entered) at most 1 GiB, past
//!   which the run is [`Error::InterpreterState`] ("not modelled", with the
//!   bytes), calls at most 64 deep ([`Error::CallDepth`]), the launch's
//!   shared memory at most the capability's opt-in limit
//!   ([`Kernel::check_launch`]).
//!
//! Each event's [`Site`](crate::kernel::Site) has the instruction's line in
//! the PTX file as its `pc`, and the `.loc` source file and line where the
//! PTX has them.
//!
//! # Example
//!
//! ```
//! use smem_model::kernel::ptx::{self, Kernel, KernelLaunch, RunOptions};
//! use smem_model::kernel::{Consumer, Event};
//! use smem_model::Error;
//!
//! let text = r#"
//! .version 8.0
//! .target sm_90
//! .address_size 64
//! .visible .entry reverse(.param .u64 .ptr .global .align 4 out)
//! {
//!     .reg .b32 %r<6>;
//!     .shared .align 4 .b8 s[256];
//!     mov.u32 %r1, %tid.x;
//!     shl.b32 %r2, %r1, 2;
//!     mov.u32 %r3, s;
//!     add.s32 %r4, %r3, %r2;
//!     st.shared.u32 [%r4], %r1;
//!     bar.sync 0;
//!     sub.s32 %r5, 252, %r2;
//!     add.s32 %r5, %r3, %r5;
//!     ld.shared.u32 %r1, [%r5];
//!     ret;
//! }
//! "#;
//! struct Count(u32, u32);
//! impl Consumer for Count {
//!     fn event(&mut self, _warp: u32, event: &Event<'_>) -> Result<(), Error> {
//!         match event {
//!             Event::Access { .. } => self.0 += 1,
//!             Event::Barrier { .. } => self.1 += 1,
//!             _ => {}
//!         }
//!         Ok(())
//!     }
//! }
//! let module = ptx::parse(text)?;
//! let kernel = Kernel::new(&module, None)?;
//! let launch = KernelLaunch::new([1, 1, 1], [64, 1, 1])?;
//! let mut count = Count(0, 0);
//! let summary = kernel.run(&launch, &RunOptions::new(), &mut count)?;
//! // Two warps, each a store, a barrier and a load.
//! assert_eq!((count.0, count.1), (4, 2));
//! assert!(summary.notes.is_empty());
//! # Ok::<(), Error>(())
//! ```

// The modules in layers, each importing only those below it (so each can be
// changed, and read, without the ones above):
// - `ir` (the interpreter's program form, the address windows, what each
//   integer op computes), `cfg` (post-dominators), `wmma` (ptxas's measured
//   wmma lowerings, with their generated table as a child) and `wgmma`, at
//   the bottom; `prepared` (each instruction's facts for the hot loop) over
//   `ir`;
// - the ptxas model over the IR: `merge` (which accesses ptxas merges in
//   straight-line code), `unroll` (in the loops it unrolls, above `merge`);
//   value numbering's plan, `number`; over it, `classes` (which values can
//   differ between blocks, proved statically) and `slice` (what a block's
//   dynamic key needs run, using `classes`);
// - `lower`: the syntax tree to the IR, calling the ptxas model;
// - `exec`: running the IR, one block;
// - `tape` (a block's events kept) and `grid` (every block, on one thread or
//   several, reusing runs between blocks alike), on top.
mod cfg;
mod ir;
mod prepared;
mod wgmma;
mod wmma;

mod merge;
mod number;
mod unroll;

mod classes;
mod slice;

mod lower;

mod exec;

mod grid;
mod tape;

#[cfg(test)]
mod tests;

use std::sync::Arc;

use crate::kernel::{Consumer, KernelInfo};
use crate::{ComputeCapability, Error};

use super::ast::Module;
use super::{KernelLaunch, ParamDecl};

pub use exec::NoteKind;
pub use ir::SHARED_WINDOW_BASE;

/// The step budget of a block when none is given: 100 million warp
/// instructions (about ten seconds of interpretation).
pub const DEFAULT_STEP_BUDGET: u64 = 100_000_000;

/// A kernel of a PTX module, ready to interpret.
#[derive(Debug, Clone, PartialEq)]
pub struct Kernel {
    program: ir::Program,
}

/// A shared variable of a kernel, as the interpreter placed it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct SharedVariable<'k> {
    /// Its name in the PTX.
    pub name: &'k str,
    /// Its offset in the block's shared memory.
    pub offset: u32,
    /// Its size in bytes (0 for the dynamic region, whose size the launch
    /// gives).
    pub bytes: u32,
    /// Whether it is the dynamic region (`.extern .shared`).
    pub dynamic: bool,
}

impl Kernel {
    /// The kernel named `name` of `module`, or its only kernel when `name` is
    /// `None`, with the `.func`s it calls.
    ///
    /// # Errors
    ///
    /// [`Error::NoKernel`] when the module has no kernel of that name, or
    /// `name` is `None` and the module has several kernels (or none); the
    /// message lists them.
    pub fn new(module: &Module<'_>, name: Option<&str>) -> Result<Self, Error> {
        Ok(Kernel {
            program: lower::lower(module, name)?,
        })
    }

    /// Its name (mangled, as in the PTX).
    pub fn name(&self) -> &str {
        &self.program.functions[0].name
    }

    /// Its parameters in order, with what a launch binds to each.
    pub fn params(&self) -> Vec<ParamDecl<'_>> {
        self.program.functions[0]
            .params
            .iter()
            .map(|p| ParamDecl {
                name: &p.name,
                kind: p.kind,
            })
            .collect()
    }

    /// The parameters that are tensor maps (`CUtensorMap` by value, a
    /// `.b8[128]` parameter whose address the kernel takes, as nvcc and
    /// Triton pass one to `cp.async.bulk.tensor`), by index: a launch may
    /// leave them unset (their copies are then not modelled).
    pub fn tensor_map_params(&self) -> Vec<usize> {
        let entry = &self.program.functions[0];
        entry
            .params
            .iter()
            .enumerate()
            .filter(|(_, p)| p.kind == super::ParamKind::Bytes { bytes: 128 })
            .filter(|(_, p)| {
                entry.insts.iter().any(|inst| {
                    matches!(inst.kind, ir::Kind::Mov { a: ir::Src::Param(o), .. } if o == p.offset)
                })
            })
            .map(|(i, _)| i)
            .collect()
    }

    /// Bytes of static shared memory (where the dynamic region starts).
    pub fn static_shared(&self) -> u32 {
        self.program.static_shared
    }

    /// The block the kernel requires (`.reqntid`, missing dimensions 1): the
    /// only block a launch may have, so the block to use when none is given.
    pub fn reqntid(&self) -> Option<[u32; 3]> {
        self.program.reqntid
    }

    /// The cluster the kernel requires (`.reqnctapercluster`, missing
    /// dimensions 1; `__cluster_dims__` in CUDA C++): the cluster a launch
    /// runs in when it gives none.
    pub fn reqnctapercluster(&self) -> Option<[u32; 3]> {
        self.program.reqnctapercluster
    }

    /// The most threads the kernel allows a block (`.maxntid`, missing
    /// dimensions 1; their product bounds the block's threads).
    pub fn maxntid(&self) -> Option<[u32; 3]> {
        self.program.maxntid
    }

    /// Checks `launch` as the driver would before running it on
    /// `capability` (without one, against the largest limits of any
    /// architecture, sm_90's): the block against `.reqntid` and `.maxntid`,
    /// the shared memory against the architecture's limits.
    ///
    /// The rules, measured on an H200 (tests/data/ncu/probes.txt): a
    /// `.reqntid` block must be given exactly (`.reqntid 64` refuses 32x2x1
    /// as well as 128x1x1); `.maxntid` bounds only the threads in total
    /// (`.maxntid 64` accepts 32x2x1); static plus dynamic shared memory may
    /// reach [`ComputeCapability::default_shared_memory_per_block`] without
    /// the opt-in and
    /// [`ComputeCapability::max_shared_memory_per_block`] with it (sm_90:
    /// 49,152 and 232,448; one word more is refused). The driver's reserved
    /// kilobyte is not part of either.
    ///
    /// # Errors
    ///
    /// [`Error::LaunchReqntid`], [`Error::LaunchMaxntid`],
    /// [`Error::StaticTooLarge`] (a static size ptxas refuses) and
    /// [`Error::LaunchTooLarge`] (over the opt-in maximum).
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::kernel::ptx::{self, Kernel, KernelLaunch};
    /// use smem_model::{ComputeCapability, Error};
    ///
    /// let module = ptx::parse(
    ///     ".version 8.0\n.target sm_90\n.address_size 64\n\
    ///      .extern .shared .align 16 .b8 dyn[];\n\
    ///      .visible .entry k()\n.reqntid 64\n{\nret;\n}\n",
    /// )?;
    /// let kernel = Kernel::new(&module, None)?;
    /// assert_eq!(kernel.reqntid(), Some([64, 1, 1]));
    /// let sm90 = Some(ComputeCapability::Sm90);
    /// // 64 KiB of dynamic shared memory: runs, with the opt-in.
    /// let launch = KernelLaunch::new([1, 1, 1], [64, 1, 1])?.with_dynamic_shared(65_536);
    /// assert!(kernel.check_launch(&launch, sm90)?.needs_opt_in());
    /// // A block of 32x2 threads is not the .reqntid 64x1x1.
    /// let launch = KernelLaunch::new([1, 1, 1], [32, 2, 1])?;
    /// assert!(matches!(kernel.check_launch(&launch, sm90), Err(Error::LaunchReqntid { .. })));
    /// // Past 227 KiB, refused even with the opt-in.
    /// let launch = KernelLaunch::new([1, 1, 1], [64, 1, 1])?.with_dynamic_shared(232_452);
    /// assert_eq!(
    ///     kernel.check_launch(&launch, sm90).unwrap_err().to_string(),
    ///     "launch fails: 0 bytes of static and 232452 bytes of dynamic shared memory exceed \
    ///      the per-block limit of 232448 bytes on compute capability 9.0"
    /// );
    /// # Ok::<(), Error>(())
    /// ```
    pub fn check_launch(
        &self,
        launch: &KernelLaunch,
        capability: Option<ComputeCapability>,
    ) -> Result<LaunchCheck, Error> {
        let block = launch.block();
        if let Some(reqntid) = self.reqntid() {
            if block != reqntid {
                return Err(Error::LaunchReqntid { block, reqntid });
            }
        }
        if let Some(maxntid) = self.maxntid() {
            let max = maxntid.iter().map(|&d| u64::from(d)).product::<u64>();
            let threads = launch.threads_per_block();
            if u64::from(threads) > max {
                return Err(Error::LaunchMaxntid {
                    block,
                    threads,
                    maxntid,
                    max,
                });
            }
        }
        let cc = capability.unwrap_or(ComputeCapability::Sm90);
        let static_bytes = self.program.static_shared;
        if static_bytes > cc.default_shared_memory_per_block() {
            return Err(Error::StaticTooLarge {
                static_bytes,
                limit: cc.default_shared_memory_per_block(),
                capability: cc,
            });
        }
        // Where the dynamic region starts: past the static bytes, further
        // where a `.extern` asks for more alignment than 16.
        let shared_bytes = u64::from(self.dynamic_start()) + u64::from(launch.dynamic_shared());
        if shared_bytes > u64::from(cc.max_shared_memory_per_block()) {
            return Err(Error::LaunchTooLarge {
                static_bytes,
                dynamic_bytes: launch.dynamic_shared(),
                limit: cc.max_shared_memory_per_block(),
                capability: cc,
            });
        }
        Ok(LaunchCheck {
            shared_bytes: shared_bytes as u32,
            default_limit: cc.default_shared_memory_per_block(),
            opt_in_limit: cc.max_shared_memory_per_block(),
        })
    }

    /// Where the dynamic region starts in the block's shared memory.
    fn dynamic_start(&self) -> u32 {
        self.program
            .shared
            .iter()
            .filter(|v| v.dynamic)
            .map(|v| v.offset)
            .max()
            .unwrap_or(0)
            .max(self.program.static_shared)
    }

    /// Its shared variables, placed.
    pub fn shared_variables(&self) -> impl Iterator<Item = SharedVariable<'_>> {
        self.program.shared.iter().map(|v| SharedVariable {
            name: &v.name,
            offset: v.offset,
            bytes: v.bytes,
            dynamic: v.dynamic,
        })
    }

    /// The instructions the interpreter does not evaluate (opaque: their
    /// destinations become unknown), by opcode as written, with how many
    /// times each occurs in the kernel and the functions it calls. None of
    /// them touches shared memory: those it does not model are events
    /// ([`Event::Unmodelled`](crate::kernel::Event::Unmodelled)), not opaque.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::kernel::ptx::{self, Kernel};
    ///
    /// let module = ptx::parse(
    ///     ".version 8.0\n.target sm_90\n.address_size 64\n\
    ///      .visible .entry k()\n{\n.reg .b32 %r<2>;\n\
    ///      mov.u32 %r1, %clock;\n\
    ///      ret;\n}\n",
    /// )?;
    /// let kernel = Kernel::new(&module, None)?;
    /// assert!(kernel.opaque_instructions().is_empty());
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn opaque_instructions(&self) -> std::collections::BTreeMap<&str, usize> {
        let mut counts = std::collections::BTreeMap::new();
        for function in &self.program.functions {
            for inst in &function.insts {
                if let ir::Kind::Opaque { .. } = inst.kind {
                    *counts
                        .entry(self.program.names[inst.name as usize].as_str())
                        .or_insert(0) += 1;
                }
            }
        }
        counts
    }

    /// The source file named by `.file` number `index`, where the module has
    /// one.
    pub fn source_file(&self, index: u32) -> Option<&str> {
        self.program
            .files
            .iter()
            .find(|(i, _)| *i == index)
            .map(|(_, name)| name.as_str())
    }

    /// The source line of the instruction at PTX line `ptx_line` (the site
    /// of its events and of the races found in them), from the `.loc` before
    /// it: its file's name where the module's `.file` gives one, and the
    /// line. `None` when no instruction of the kernel (or a function it
    /// calls) sits on that line or the PTX has no `.loc` for it (compiled
    /// without `-lineinfo`).
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::kernel::ptx::{self, Kernel};
    ///
    /// let module = ptx::parse(
    ///     ".version 8.0\n.target sm_90\n.address_size 64\n\
    ///      .file 1 \"/src/k.cu\"\n\
    ///      .visible .entry k()\n{\n.shared .b32 s[32];\n\
    ///      .loc 1 12 3\n\
    ///      st.shared.u32 [s], 1;\n\
    ///      ret;\n}\n",
    /// )?;
    /// let kernel = Kernel::new(&module, None)?;
    /// assert_eq!(kernel.source_line(9), Some((Some("/src/k.cu"), 12)));
    /// assert_eq!(kernel.source_line(8), None); // `.loc` itself: no instruction
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn source_line(&self, ptx_line: u64) -> Option<(Option<&str>, u32)> {
        let site = self
            .program
            .functions
            .iter()
            .flat_map(|f| &f.insts)
            .map(|inst| inst.site)
            .find(|site| site.pc == ptx_line)?;
        let line = site.line?;
        Some((site.file.and_then(|f| self.program.file_name(f)), line))
    }

    /// Whether any of its instructions has a source line: the PTX has
    /// `.loc` directives (nvcc `-lineinfo`, `-G`; Triton always).
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::kernel::ptx::{self, Kernel};
    ///
    /// let module = ptx::parse(
    ///     ".version 8.0\n.target sm_90\n.address_size 64\n\
    ///      .visible .entry k()\n{\nret;\n}\n",
    /// )?;
    /// assert!(!Kernel::new(&module, None)?.has_source_lines());
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn has_source_lines(&self) -> bool {
        self.program
            .functions
            .iter()
            .flat_map(|f| &f.insts)
            .any(|inst| inst.site.line.is_some())
    }

    /// Runs the launch's blocks (all, or those `options` choose) through
    /// `consumer`: `begin_kernel`, then per block, in the order of their
    /// linear indices, `begin_block`, its events, `end_block`; then
    /// `end_kernel`.
    ///
    /// Blocks that cannot differ in what they tell the consumer (their
    /// index reaches no shared address, branch, barrier or value stored
    /// to shared memory; see [`RunOptions::with_reuse`]) are interpreted
    /// once and their events given again for the others; blocks may run on
    /// several threads ([`RunOptions::with_threads`]). Neither changes
    /// anything the consumer sees or the summary holds, errors included.
    ///
    /// # Errors
    ///
    /// - [`Error::EmptySample`]: a sample of 0 blocks.
    /// - Those of [`Kernel::check_launch`]: a launch the driver refuses
    ///   (`.reqntid`, `.maxntid`, shared memory over the architecture's
    ///   limit), before anything is allocated.
    /// - Those of [`KernelLaunch::bind`]: an argument for no parameter, a
    ///   value that does not fit, an unset scalar.
    /// - [`Error::StepBudget`]: a block ran past its step budget.
    /// - [`Error::RunBudget`]: the blocks together would run past the run's
    ///   budget ([`RunOptions::with_run_budget`]).
    /// - [`Error::PtxInstruction`]: a shared access the hardware would fault
    ///   on (a misaligned address), naming the instruction and its line.
    /// - [`Error::SharedOutOfBounds`]: a shared access past the block's
    ///   static plus dynamic bytes, reported as compute-sanitizer's memcheck
    ///   reports it (the address after the capability's reserved bytes, sm_90's
    ///   without a capability).
    /// - [`Error::CallDepth`]: calls nested deeper than 64.
    /// - [`Error::Interrupted`]: the progress callback asked to stop
    ///   ([`RunOptions::with_progress`]).
    /// - The consumer's own errors, unchanged.
    pub fn run<C: Consumer + ?Sized>(
        &self,
        launch: &KernelLaunch,
        options: &RunOptions,
        consumer: &mut C,
    ) -> Result<RunSummary, Error> {
        if options.sample == Some(0) {
            return Err(Error::EmptySample);
        }
        let check = self.check_launch(launch, options.capability)?;
        let params = self.params();
        let args = launch.bind_except(&params, &self.tensor_map_params())?;
        let entry_params = &self.program.functions[0].params;
        let tensor_maps: Vec<(u32, super::TensorMap)> = launch
            .tensor_maps()
            .iter()
            .map(|(key, map)| {
                KernelLaunch::param_index(key, &params)
                    .map(|i| (entry_params[i].offset, map.clone()))
            })
            .collect::<Result<_, _>>()?;
        let grid = launch.grid();
        let mut info = KernelInfo::named(self.name())
            .with_block_dim(launch.block())
            .with_grid_dim(grid);
        if let Some(cc) = options.capability {
            info = info.with_capability(cc);
        }
        consumer.begin_kernel(&info)?;
        let total = launch.blocks();
        let blocks = grid::Blocks::new(total, options.sample);
        let plan = number::Plan::new(&self.program);
        let run = grid::Launch {
            program: &self.program,
            plan: &plan,
            grid,
            block: launch.block(),
            dynamic_shared: launch.dynamic_shared(),
            shared_end: u64::from(self.dynamic_start()) + u64::from(launch.dynamic_shared()),
            args: &args,
            cluster: launch.cluster(),
            tensor_maps: &tensor_maps,
            options,
        };
        let totals = grid::run(&run, &blocks, consumer)?;
        consumer.end_kernel()?;
        let notes = totals
            .notes
            .into_iter()
            .map(|((func, pc), (kind, count))| {
                let f = &self.program.functions[func as usize];
                let inst = &f.insts[pc as usize];
                Note {
                    kind,
                    ptx_line: inst.site.pc as u32,
                    file: inst.site.file,
                    line: inst.site.line,
                    instruction: self.program.names[inst.name as usize].clone(),
                    count,
                }
            })
            .collect();
        Ok(RunSummary {
            blocks_run: blocks.len(),
            blocks_total: total,
            blocks_interpreted: totals.interpreted,
            warp_instructions: totals.steps,
            notes,
            needs_opt_in: check.needs_opt_in(),
        })
    }
}

/// The whole run's budget when none is given: 2^32 warp instructions (about
/// twice the largest public launch tried, cuda-samples' tensor-core GEMMs;
/// minutes of interpretation). A grid of 2^31 blocks of one warp each
/// needs more once its blocks run two instructions.
pub const DEFAULT_RUN_BUDGET: u64 = 1 << 32;

/// A callback told of a run's progress (see [`RunOptions::with_progress`]).
#[derive(Clone)]
pub(crate) struct Progress(pub(crate) Arc<dyn Fn(u64, u64) -> bool + Send + Sync>);

impl std::fmt::Debug for Progress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Progress")
    }
}

impl PartialEq for Progress {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for Progress {}

/// How [`Kernel::run`] runs a launch: which blocks, the budgets, the
/// compute capability announced to the consumer, whether blocks that run
/// alike are interpreted once, on how many threads, who is told of the
/// progress.
///
/// # Example
///
/// ```
/// use smem_model::kernel::ptx::RunOptions;
///
/// // 8 blocks spread over the grid, at most a million warp instructions each.
/// let options = RunOptions::new().with_sample(8).with_step_budget(1_000_000);
/// assert_eq!(options.step_budget(), 1_000_000);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunOptions {
    budget: u64,
    run_budget: u64,
    sample: Option<u64>,
    capability: Option<ComputeCapability>,
    reuse: bool,
    threads: usize,
    progress: Option<Progress>,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions::new()
    }
}

impl RunOptions {
    /// Every block, the default budgets, no capability, blocks that run
    /// alike interpreted once, on this thread, no progress told.
    pub const fn new() -> Self {
        RunOptions {
            budget: DEFAULT_STEP_BUDGET,
            run_budget: DEFAULT_RUN_BUDGET,
            sample: None,
            capability: None,
            reuse: true,
            threads: 1,
            progress: None,
        }
    }

    /// At most `budget` warp instructions per block.
    #[must_use]
    pub const fn with_step_budget(mut self, budget: u64) -> Self {
        self.budget = budget;
        self
    }

    /// At most `budget` warp instructions in the whole run: the sum of every
    /// block's steps (what [`RunSummary::warp_instructions`] counts), a
    /// block whose events are replayed counting as the block it repeats
    /// (so the budget ends a run at the same block with reuse or without,
    /// on any number of threads). The run stops with [`Error::RunBudget`]
    /// as soon as the steps so far and what the blocks left must cost
    /// exceed it: at least one instruction per warp each, or, where every
    /// block runs alike, the first block's steps each (a grid of 2^31 such
    /// blocks stops after its first). Default: [`DEFAULT_RUN_BUDGET`].
    ///
    /// ```
    /// use smem_model::kernel::ptx::{self, Kernel, KernelLaunch, RunOptions};
    /// use smem_model::kernel::{Consumer, Event};
    /// use smem_model::Error;
    ///
    /// struct Nothing;
    /// impl Consumer for Nothing {
    ///     fn event(&mut self, _: u32, _: &Event<'_>) -> Result<(), Error> {
    ///         Ok(())
    ///     }
    /// }
    /// let module = ptx::parse(".version 8.0\n.target sm_90\n.entry k()\n{\nret;\n}\n")?;
    /// let kernel = Kernel::new(&module, None)?;
    /// let launch = KernelLaunch::new([2_147_483_647, 1, 1], [64, 1, 1])?;
    /// let options = RunOptions::new().with_run_budget(1_000_000);
    /// let err = kernel.run(&launch, &options, &mut Nothing).unwrap_err();
    /// assert!(matches!(err, Error::RunBudget { blocks_done: 0, .. }));
    /// # Ok::<(), Error>(())
    /// ```
    #[must_use]
    pub const fn with_run_budget(mut self, budget: u64) -> Self {
        self.run_budget = budget;
        self
    }

    /// Only `blocks` blocks, spread evenly over the grid's linear block
    /// indices (the first and the last included; one block: the last); the
    /// whole grid when it has no more. 0 is refused by [`Kernel::run`].
    #[must_use]
    pub const fn with_sample(mut self, blocks: u64) -> Self {
        self.sample = Some(blocks);
        self
    }

    /// The compute capability announced in [`KernelInfo`].
    #[must_use]
    pub const fn with_capability(mut self, capability: ComputeCapability) -> Self {
        self.capability = Some(capability);
        self
    }

    /// Whether blocks that cannot differ are interpreted once (default:
    /// yes). A taint analysis of the kernel finds the components of the
    /// block index (`%ctaid`) that can reach a shared address, a branch or
    /// guard, a barrier, a value stored to shared memory or a value number;
    /// blocks that agree on those run alike, and each block after the
    /// first of its kind gets that block's recorded events (as long as the
    /// recordings fit in 256 MiB). The answer is the same either way; off,
    /// every block is interpreted (a check of the reuse, and of the
    /// analysis).
    #[must_use]
    pub const fn with_reuse(mut self, reuse: bool) -> Self {
        self.reuse = reuse;
        self
    }

    /// Interprets blocks on `threads` threads (0 or 1: this thread only,
    /// the default); this thread gives the consumer each block's events in
    /// block order, so the answer does not depend on it. Blocks on other
    /// threads are recorded first (at most 1 GiB of recordings in flight;
    /// a block with more events runs again on this thread).
    #[must_use]
    pub const fn with_threads(mut self, threads: usize) -> Self {
        self.threads = threads;
        self
    }

    /// Calls `progress(done, blocks)` before each block and after the last,
    /// on the thread that called [`Kernel::run`]: `done` of the run's
    /// `blocks` have been given to the consumer. Returning `false` stops the
    /// run with [`Error::Interrupted`] (Ctrl-C).
    #[must_use]
    pub fn with_progress(
        mut self,
        progress: impl Fn(u64, u64) -> bool + Send + Sync + 'static,
    ) -> Self {
        self.progress = Some(Progress(Arc::new(progress)));
        self
    }

    /// The step budget.
    pub const fn step_budget(&self) -> u64 {
        self.budget
    }

    /// The whole run's budget.
    pub const fn run_budget(&self) -> u64 {
        self.run_budget
    }
}

/// What [`Kernel::run`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct RunSummary {
    /// Blocks run.
    pub blocks_run: u64,
    /// Blocks in the grid: more than `blocks_run` when sampled.
    pub blocks_total: u64,
    /// Blocks interpreted: fewer than `blocks_run` where blocks that run
    /// alike were interpreted once ([`RunOptions::with_reuse`]). The only
    /// figure the reuse changes.
    pub blocks_interpreted: u64,
    /// Warp instructions interpreted.
    pub warp_instructions: u64,
    /// What could not be followed exactly, by instruction.
    pub notes: Vec<Note>,
    /// Whether the launch's shared memory is more than a block gets without
    /// the opt-in ([`LaunchCheck::needs_opt_in`]): it runs on the GPU only
    /// after `cudaFuncSetAttribute(kernel,
    /// cudaFuncAttributeMaxDynamicSharedMemorySize, bytes)`.
    pub needs_opt_in: bool,
}

/// What [`Kernel::check_launch`] found of a launch the driver accepts: its
/// shared memory and the architecture's limits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct LaunchCheck {
    /// Static plus dynamic shared memory, in bytes (the driver's reserved
    /// kilobyte not included).
    pub shared_bytes: u32,
    /// The most a block gets without the opt-in.
    pub default_limit: u32,
    /// The most a block gets with it.
    pub opt_in_limit: u32,
}

impl LaunchCheck {
    /// Whether the launch runs only after the opt-in
    /// (`cudaFuncAttributeMaxDynamicSharedMemorySize`): more shared memory
    /// than [`default_limit`](Self::default_limit).
    pub const fn needs_opt_in(&self) -> bool {
        self.shared_bytes > self.default_limit
    }
}

impl RunSummary {
    /// Whether only a sample of the grid ran (totals are the sample's).
    pub const fn sampled(&self) -> bool {
        self.blocks_run < self.blocks_total
    }

    /// A total of the blocks run, estimated for the whole grid: scaled by
    /// `blocks_total / blocks_run` and rounded to nearest (in 128 bits,
    /// saturating at `u64::MAX`); the total itself when every block ran. An
    /// estimate: it assumes the blocks not run behave as the sample's do.
    ///
    /// ```
    /// use smem_model::kernel::ptx::{self, Kernel, KernelLaunch, RunOptions};
    /// use smem_model::kernel::{Consumer, Event};
    ///
    /// struct Nothing;
    /// impl Consumer for Nothing {
    ///     fn event(&mut self, _: u32, _: &Event<'_>) -> Result<(), smem_model::Error> {
    ///         Ok(())
    ///     }
    /// }
    /// let module = ptx::parse(".version 8.0\n.target sm_90\n.entry k()\n{\nret;\n}\n")?;
    /// let kernel = Kernel::new(&module, None)?;
    /// let launch = KernelLaunch::new([64, 1, 1], [32, 1, 1])?;
    /// let summary = kernel.run(&launch, &RunOptions::new().with_sample(3), &mut Nothing)?;
    /// assert_eq!((summary.blocks_run, summary.blocks_total), (3, 64));
    /// assert_eq!(summary.estimate(10), 213); // 10 x 64 / 3 = 213.3
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn estimate(&self, total: u64) -> u64 {
        if !self.sampled() || self.blocks_run == 0 {
            return total;
        }
        let run = u128::from(self.blocks_run);
        let scaled = (u128::from(total) * u128::from(self.blocks_total) + run / 2) / run;
        u64::try_from(scaled).unwrap_or(u64::MAX)
    }

    /// The notes of `kind`, as one line: `"data-dependent: 3 instructions, lines 41, 57, 60"`
    /// (PTX lines), or `None` without any.
    pub fn summary(&self, kind: NoteKind) -> Option<String> {
        let lines: Vec<String> = self
            .notes
            .iter()
            .filter(|n| n.kind == kind)
            .map(|n| n.ptx_line.to_string())
            .collect();
        if lines.is_empty() {
            return None;
        }
        let what = match kind {
            NoteKind::DataDependentAddress => "data-dependent address",
            NoteKind::DataDependentBranch => "data-dependent branch",
            NoteKind::DataDependentGuard => "data-dependent guard",
            NoteKind::ForcedBarrier => "barrier never completed",
            NoteKind::Unmodelled => "not modelled",
            NoteKind::MbarrierHang => "mbarrier phase never completes",
            NoteKind::NoTensorMap => "tensor map not given",
        };
        let plural = if lines.len() == 1 { "" } else { "s" };
        Some(format!(
            "{what}: {} instruction{plural}, PTX line{plural} {}",
            lines.len(),
            lines.join(", ")
        ))
    }
}

/// One instruction the interpreter could not follow exactly, and how often.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Note {
    /// What happened.
    pub kind: NoteKind,
    /// The instruction's line in the PTX file.
    pub ptx_line: u32,
    /// Its `.loc` source file number, where known.
    pub file: Option<u32>,
    /// Its `.loc` source line, where known.
    pub line: Option<u32>,
    /// Its opcode as written (`atom.shared.add.u32`).
    pub instruction: String,
    /// How many warp executions it concerned.
    pub count: u64,
}

//! Accel-Sim / NVBit traces as a source of [`Event`](super::Event)s (feature
//! `trace`).
//!
//! A [`Trace`] reads a trace's files (a kernel's `kernel-N.traceg`, the raw
//! `kernel-N.trace`, Accel-Sim's `kernelslist.g` and the files it lists, any
//! of them xz-compressed, standard input or any [`Read`](std::io::Read)) and
//! drives a [`Consumer`](super::Consumer): each kernel, each of its thread
//! blocks, and each warp's shared-memory events in program order.
//!
//! # Example: a simulator reads a trace
//!
//! ```no_run
//! use smem_model::kernel::{accelsim::Trace, tally::Tally};
//!
//! let mut tally = Tally::default();
//! Trace::open("traces/kernelslist.g").read(&mut tally)?;
//! println!("{} wavefronts", tally.totals().wavefronts);
//! # Ok::<(), smem_model::Error>(())
//! ```
//!
//! Any [`Consumer`](super::Consumer) takes the events: the
//! [`Tally`](super::tally::Tally) above (what `smem trace` prints), a
//! [`Block`](crate::Block) (races, as `smem racecheck`), a simulator's own.
//!
//! # What becomes which event
//!
//! | SASS in the trace | event |
//! |---|---|
//! | `LDS`, `STS`, `ATOMS`, `LDSM`, `STSM`; `LD`, `ST`, `ATOM`, `RED` in the shared window | [`Event::Access`](super::Event::Access) (also with mask 0: no lane) |
//! | `ATOMS.CAST.SPIN` (one round of nvcc's compare-and-swap loop) | [`Event::CasRound`](super::Event::CasRound) |
//! | `BAR.SYNC`, `BAR.ARV`, `BAR.RED` with their immediates (id, count) | [`Event::Barrier`](super::Event::Barrier) |
//! | `WARPSYNC` (its mask), `NOP` (its active lanes: [`line::Class::Nop`]) | [`Event::SyncWarp`](super::Event::SyncWarp) |
//! | `MEMBAR` | [`Event::Fence`](super::Event::Fence) |
//! | `LDGDEPBAR`, `DEPBAR` (its immediate), `ARRIVES.LDGSTSBAR` | [`Event::CpAsyncCommit`](super::Event::CpAsyncCommit), [`Event::CpAsyncWait`](super::Event::CpAsyncWait), [`Event::CpAsyncArrive`](super::Event::CpAsyncArrive) |
//! | `LDC`, `ULDC` | [`Event::ConstantLoad`](super::Event::ConstantLoad) |
//! | `LDGSTS` (the trace holds its global addresses, not the shared ones), TMA (`UTMALDG`, ...), GMMA operands, `SYNCS` (mbarrier) | [`Event::Unmodelled`](super::Event::Unmodelled), named |
//! | anything else | none (counted in [`Summary::other_instructions`]) |
//!
//! # Bounded memory
//!
//! Whatever the input, a [`Trace`] holds at most: a line of
//! [`input::MAX_LINE_BYTES`] and the chunks being read; each kernel name once;
//! for the raw form, the events of unfinished thread blocks
//! ([`MAX_GATHERED`], counting each warp's exit as one) in at most
//! [`MAX_OPEN_BLOCKS`] blocks; and the ids of the blocks already read in the
//! kernel (for the checks that none appears twice or runs on after its end),
//! as runs of consecutive ids, at most [`MAX_ENDED_RUNS`] (blocks in order
//! are one run however many), then as a bit a block of the kernel's grid
//! (its `-grid dim`, at most [`MAX_GRID_BITMAP`] blocks: 16 MiB). Past each
//! limit, the line is an error naming it; past the last (no `-grid dim`, a
//! larger grid, or blocks outside it beyond the runs), reading goes on and
//! only repeats go uncaught. A
//! `.traceg` block's events are passed on as they are read, never held.
//!
//! The line format and its source are in [`line`](mod@line); reading files into
//! chunks of lines, for readers on several threads, in [`input`]; tallying a
//! trace on several threads (what `smem trace` does) in [`parallel`].

mod ended;
pub mod input;
pub mod line;
pub mod parallel;
mod trace;

pub use ended::{MAX_ENDED_RUNS, MAX_GRID_BITMAP};
pub use trace::{read_chunk, Summary, Trace, MAX_GATHERED, MAX_OPEN_BLOCKS, WARP_LIMIT};

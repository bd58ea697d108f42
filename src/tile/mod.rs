//! Tiles in shared memory: layouts (row pitch, padding, XOR swizzles), the
//! warp accesses kernels make on them, the textbook access patterns, and an
//! advisor that finds the padding or swizzle that removes a tile's conflicts.
//!
//! - `swizzle`: CuTe's `Swizzle<B, M, S>` and the TMA swizzle modes.
//! - `layout`: [`TileLayout`], `(row, col)` to address.
//! - `access`: [`TileAccess`], a warp's elements of a tile, layout-free.
//! - `pattern`: [`WarpRequest`](crate::WarpRequest) constructors for strided,
//!   broadcast, shuffled and `(row, bank)` patterns.
//! - `padding`: the classic padding advice (one element per row) for column accesses.
//! - `advisor`: [`TileLayout::advise`] and its report.
//! - `named`: the layouts Triton names ([`TritonShared`]: its swizzled and
//!   NVMMA shared encodings) as swizzles of a [`TileLayout`].

mod access;
mod advisor;
mod layout;
mod named;
mod padding;
mod pattern;
mod swizzle;

pub use access::TileAccess;
pub use advisor::{Advice, BankConflict, Candidate, Fix};
pub use layout::TileLayout;
pub use named::TritonShared;
pub use swizzle::{Swizzle, TmaSwizzle};

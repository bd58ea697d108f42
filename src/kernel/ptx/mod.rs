//! Kernels from their PTX (feature `ptx`).
//!
//! [`ops`] holds the exact integer semantics of PTX instructions over values
//! that may be unknown; [`KernelLaunch`] a launch's grid, block, dynamic
//! shared memory and arguments.

mod launch;
pub mod ops;

pub use launch::{
    parse_dims, Arg, ArgKey, KernelLaunch, ParamDecl, ParamKind, FAKE_POINTER_BASE,
    FAKE_POINTER_STRIDE, MAX_BLOCK_THREADS,
};

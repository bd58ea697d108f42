//! The benchmarks of `smem-model` (see `partition.rs`); this library is empty.
//! Run them with `cargo bench -p smem-bench` from the repository root.

//! [`proptest`](mod@proptest) strategies for property tests of code built on this crate.
//!
//! A simulator that calls [`BankConfig::partition`] on every shared-memory
//! instruction can check its own invariants against every compute capability with
//! these strategies instead of writing generators of its own. Every request they
//! produce is valid for the configuration it was made for: the op exists on the
//! capability, every address is aligned to the access width and the access lies in
//! the capability's [`shared_window_size`](ComputeCapability::shared_window_size),
//! so [`BankConfig::partition`] never fails on it.
//!
//! Addresses follow a mix of patterns chosen to reach every rule of the model:
//! random addresses in a few bank rows (conflicts and broadcasts), random addresses
//! anywhere in the window, strided and two-dimensional (tile) accesses with and
//! without padding, XOR-permuted strides, uniform addresses, and addresses shared by
//! the lane pairs `(n, n ^ 1)` or `(n, n ^ 2)` (the sm_90 load merge). Active masks
//! are mostly full, sometimes random, a range, a single lane or empty.
//!
//! Enabled by the `proptest` feature.
//!
//! # Example
//!
//! ```
//! use proptest::prelude::*;
//! use proptest::test_runner::TestRunner;
//! use smem_model::strategy;
//!
//! let mut runner = TestRunner::deterministic();
//! runner
//!     .run(&strategy::config_and_request(), |(config, request)| {
//!         let partition = config.partition(&request).expect("strategies make valid requests");
//!         prop_assert!(partition.wavefronts() >= partition.ideal_wavefronts());
//!         Ok(())
//!     })
//!     .unwrap();
//! ```

use proptest::array::uniform32;
use proptest::prelude::*;
use proptest::sample::select;

use crate::{
    AccessWidth, BankConfig, ComputeCapability, LaneSet, Op, SharedMemConfig, WarpRequest,
};

/// Any compute capability, uniformly from [`ComputeCapability::ALL`].
///
/// # Example
///
/// ```
/// use proptest::prelude::*;
/// use proptest::test_runner::TestRunner;
/// use smem_model::strategy;
///
/// let mut runner = TestRunner::deterministic();
/// runner
///     .run(&strategy::capability(), |cc| {
///         prop_assert!((1..=12).contains(&cc.major()));
///         Ok(())
///     })
///     .unwrap();
/// ```
pub fn capability() -> impl Strategy<Value = ComputeCapability> {
    select(ComputeCapability::ALL.to_vec())
}

/// The configurations of `capability`: its default one, and on 3.x (the only
/// capabilities with a choice) the four-byte and eight-byte bank modes as well.
///
/// # Example
///
/// ```
/// use proptest::prelude::*;
/// use proptest::strategy::ValueTree;
/// use proptest::test_runner::TestRunner;
/// use smem_model::{strategy, BankWidth, ComputeCapability};
///
/// let mut runner = TestRunner::deterministic();
/// // Hopper has one bank width; Kepler has two.
/// let hopper = strategy::config_for(ComputeCapability::Sm90);
/// let config = hopper.new_tree(&mut runner).unwrap().current();
/// assert_eq!(config.bank_width(), BankWidth::FourBytes);
///
/// let kepler = strategy::config_for(ComputeCapability::Sm35);
/// let widths: Vec<BankWidth> = (0..64)
///     .map(|_| kepler.new_tree(&mut runner).unwrap().current().bank_width())
///     .collect();
/// assert!(widths.contains(&BankWidth::FourBytes));
/// assert!(widths.contains(&BankWidth::EightBytes));
/// ```
pub fn config_for(capability: ComputeCapability) -> impl Strategy<Value = BankConfig> {
    select(vec![
        SharedMemConfig::Default,
        SharedMemConfig::FourByte,
        SharedMemConfig::EightByte,
    ])
    .prop_map(move |mode| BankConfig::new(capability).with_shared_mem_config(mode))
}

/// Any configuration: any capability, and on 3.x either bank mode.
///
/// # Example
///
/// ```
/// use proptest::prelude::*;
/// use proptest::test_runner::TestRunner;
/// use smem_model::{strategy, BankWidth};
///
/// let mut runner = TestRunner::deterministic();
/// runner
///     .run(&strategy::config(), |config| {
///         // Only Kepler (3.x) has an eight-byte mode.
///         if config.bank_width() == BankWidth::EightBytes {
///             prop_assert_eq!(config.capability().major(), 3);
///         }
///         Ok(())
///     })
///     .unwrap();
/// ```
pub fn config() -> impl Strategy<Value = BankConfig> {
    capability().prop_flat_map(config_for)
}

/// The ops `config` supports ([`BankConfig::check_op`] accepts them), each with
/// an access width it has: loads and stores of 1, 2, 4, 8 and 16 bytes; 4-byte
/// atomics from 1.2 on; `ldmatrix` (16-byte rows, `.x1`, `.x2`, `.x4`) from 7.5
/// on and `stmatrix` from 9.0 on.
///
/// # Example
///
/// ```
/// use proptest::prelude::*;
/// use proptest::test_runner::TestRunner;
/// use smem_model::{strategy, BankConfig, ComputeCapability};
///
/// let config = BankConfig::new(ComputeCapability::Sm80);
/// let mut runner = TestRunner::deterministic();
/// runner
///     .run(&strategy::op_and_width_for(config), |(op, width)| {
///         prop_assert!(config.check_op(op).is_ok());
///         if let Some(fixed) = op.fixed_width() {
///             prop_assert_eq!(fixed, width);
///         }
///         Ok(())
///     })
///     .unwrap();
/// ```
pub fn op_and_width_for(config: BankConfig) -> impl Strategy<Value = (Op, AccessWidth)> {
    let mut choices = Vec::new();
    for op in Op::ALL {
        for &width in op.widths() {
            if config.check_access(op, width).is_ok() {
                choices.push((op, width));
            }
        }
    }
    select(choices)
}

/// An active mask: all 32 lanes half of the time, otherwise random lanes, a
/// range of lanes, a single lane or (rarely) no lane.
///
/// # Example
///
/// ```
/// use proptest::prelude::*;
/// use proptest::test_runner::TestRunner;
/// use smem_model::strategy;
///
/// let mut runner = TestRunner::deterministic();
/// runner
///     .run(&strategy::active_mask(), |mask| {
///         prop_assert!(mask.len() <= 32);
///         Ok(())
///     })
///     .unwrap();
/// ```
pub fn active_mask() -> impl Strategy<Value = LaneSet> {
    prop_oneof![
        8 => Just(LaneSet::FULL),
        3 => any::<u32>().prop_map(LaneSet::from_bits),
        1 => (any::<u32>(), any::<u32>()).prop_map(|(a, b)| LaneSet::from_bits(a & b)),
        2 => (0u32..=32, 0u32..=32).prop_map(|(a, b)| LaneSet::range(a.min(b), a.max(b))),
        1 => (0u32..32).prop_map(|lane| LaneSet::from_bits(1 << lane)),
        1 => Just(LaneSet::EMPTY),
    ]
}

/// A base element index: zero, small, or anywhere.
fn base() -> BoxedStrategy<u64> {
    prop_oneof![
        2 => Just(0u64),
        2 => 0u64..1024,
        1 => any::<u32>().prop_map(u64::from),
    ]
    .boxed()
}

/// 32 element indices (multiples of the access width once scaled) in one of the
/// unpaired patterns. Indices may exceed the window: [`request_with`] reduces them.
fn unpaired_elements() -> BoxedStrategy<[u64; 32]> {
    // Random elements in a span of a few bank rows: conflicts and broadcasts.
    let clustered = (base(), select(vec![1u64, 2, 4, 8, 16, 32, 64, 128, 512]))
        .prop_flat_map(|(base, span)| uniform32(0..span).prop_map(move |o| o.map(|x| base + x)));
    // Random elements anywhere in the window.
    let scattered = uniform32(any::<u32>().prop_map(u64::from));
    // s[base + stride * lane].
    let strided = (base(), 0u64..=66)
        .prop_map(|(base, stride)| core::array::from_fn(|l| base + stride * l as u64));
    // s[base + stride * (lane ^ m)]: a swizzled stride.
    let swizzled = (base(), 0u64..=66, 0usize..32)
        .prop_map(|(base, stride, m)| core::array::from_fn(|l| base + stride * (l ^ m) as u64));
    // A tile: lane -> (lane / cols, lane % cols), with any row pitch (padding).
    let tiled = (
        base(),
        select(vec![1u64, 2, 4, 8, 16, 32]),
        0u64..=8,
        0u64..=70,
    )
        .prop_map(|(base, cols, column_stride, pitch)| {
            core::array::from_fn(|l| {
                let l = l as u64;
                base + (l % cols) * column_stride + (l / cols) * pitch
            })
        });
    // Every lane on one element, except perhaps one lane elsewhere.
    let uniform = (base(), 0usize..64, any::<u32>()).prop_map(|(base, odd, other)| {
        core::array::from_fn(|l| if l == odd { u64::from(other) } else { base })
    });
    prop_oneof![
        3 => clustered,
        2 => scattered,
        3 => strided,
        1 => swizzled,
        2 => tiled,
        1 => uniform,
    ]
    .boxed()
}

/// 32 element indices: an unpaired pattern, or one whose lanes `(n, n ^ 1)` or
/// `(n, n ^ 2)` share elements.
fn element_indices() -> impl Strategy<Value = [u64; 32]> {
    let paired = (unpaired_elements(), select(vec![1usize, 2]))
        .prop_map(|(e, x)| core::array::from_fn(|n| e[n & !x]));
    prop_oneof![4 => unpaired_elements(), 1 => paired]
}

/// Requests of `op` at `width` whose addresses are aligned to `width` and lie in
/// the shared window of `config`'s capability, with an [`active_mask`].
///
/// The op is not checked against the capability: pair this with
/// [`op_and_width_for`], or filter with [`BankConfig::check_op`], when the
/// requests are to be partitioned.
///
/// # Panics
///
/// When `op` does not have `width` ([`Op::check_width`]).
///
/// # Example
///
/// ```
/// use proptest::prelude::*;
/// use proptest::test_runner::TestRunner;
/// use smem_model::{strategy, AccessWidth, BankConfig, ComputeCapability, Op};
///
/// // float4 loads on a Fermi: every quarter-warp costs one step more than its degree.
/// let config = BankConfig::new(ComputeCapability::Sm20);
/// let mut runner = TestRunner::deterministic();
/// runner
///     .run(&strategy::request_with(config, Op::Load, AccessWidth::B16), |request| {
///         let partition = config.partition(&request).unwrap();
///         prop_assert!(partition.wavefronts() >= 2 * partition.ideal_wavefronts());
///         Ok(())
///     })
///     .unwrap();
/// ```
pub fn request_with(
    config: BankConfig,
    op: Op,
    width: AccessWidth,
) -> impl Strategy<Value = WarpRequest> {
    if let Err(err) = op.check_width(width) {
        panic!("{err}");
    }
    let bytes = width.bytes();
    // Element `e < elements` is the access at `e * bytes`: aligned, and ending at
    // or before the end of the window.
    let elements = u64::from(config.capability().shared_window_size() / bytes);
    (element_indices(), active_mask()).prop_map(move |(indices, mask)| {
        WarpRequest::from_fn(op, bytes, |lane| {
            let element = indices[lane.index()] % elements;
            // `element * bytes` is below the window, so it fits in a u32.
            mask.contains(lane)
                .then(|| (element * u64::from(bytes)) as u32)
        })
        .expect("aligned addresses inside the window")
    })
}

/// Requests `config` can partition: any op it supports at any width that op has
/// ([`op_and_width_for`]), with addresses made by [`request_with`].
///
/// # Example
///
/// ```
/// use proptest::prelude::*;
/// use proptest::test_runner::TestRunner;
/// use smem_model::{strategy, BankConfig, ComputeCapability, SharedMemConfig};
///
/// let kepler = BankConfig::new(ComputeCapability::Sm35)
///     .with_shared_mem_config(SharedMemConfig::EightByte);
/// let mut runner = TestRunner::deterministic();
/// runner
///     .run(&strategy::request_for(kepler), |request| {
///         prop_assert_eq!(
///             kepler.wavefronts(&request)?,
///             kepler.partition(&request)?.transactions().len() as u32
///         );
///         Ok(())
///     })
///     .unwrap();
/// ```
pub fn request_for(config: BankConfig) -> impl Strategy<Value = WarpRequest> {
    op_and_width_for(config).prop_flat_map(move |(op, width)| request_with(config, op, width))
}

/// Requests for sm_90 (Hopper), the capability the hardware corpus was measured
/// on: `request_for(BankConfig::new(ComputeCapability::Sm90))`.
///
/// # Example
///
/// ```
/// use proptest::prelude::*;
/// use proptest::test_runner::TestRunner;
/// use smem_model::{strategy, BankConfig, ComputeCapability};
///
/// let sm90 = BankConfig::new(ComputeCapability::Sm90);
/// let mut runner = TestRunner::deterministic();
/// runner
///     .run(&strategy::request(), |request| {
///         let partition = sm90.partition(&request)?;
///         prop_assert_eq!(
///             partition.bank_conflicts(),
///             partition.wavefronts() - partition.ideal_wavefronts()
///         );
///         Ok(())
///     })
///     .unwrap();
/// ```
pub fn request() -> impl Strategy<Value = WarpRequest> {
    request_for(BankConfig::new(ComputeCapability::Sm90))
}

/// A configuration from [`config`] with a request from [`request_for`] it.
///
/// # Example
///
/// ```
/// use proptest::prelude::*;
/// use proptest::test_runner::TestRunner;
/// use smem_model::strategy;
///
/// let mut runner = TestRunner::deterministic();
/// runner
///     .run(&strategy::config_and_request(), |(config, request)| {
///         let partition = config.partition(&request)?;
///         let served = partition.transactions().map(|t| t.lanes().len()).sum::<usize>();
///         // Every active lane is served at least once.
///         prop_assert!(served >= request.active().len());
///         Ok(())
///     })
///     .unwrap();
/// ```
pub fn config_and_request() -> impl Strategy<Value = (BankConfig, WarpRequest)> {
    config().prop_flat_map(|config| (Just(config), request_for(config)))
}

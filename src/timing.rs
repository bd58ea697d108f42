//! Cycles: a timing model of shared-memory instructions, measured on sm_90
//! only (tests/data/hw-corpus/sm90-timing.jsonl: H100 SXM, one block on one SM, cycles per
//! warp instruction for 1, 4 and 16 warps; sm90-throughput-streams.jsonl: the
//! throughput patterns again, 1 to 16 warps, in 9 instruction streams).
//!
//! What was measured, and what the model takes from it:
//!
//! - The SM's shared pipe retires one wavefront per cycle, whichever warp it
//!   serves: [`Timing::pipe_cycles`].
//! - A dependent chain of loads (the address of each the value of the one
//!   before, two integer operations a step) takes, per load,
//!   `L + 2 x (wavefronts - 1)` cycles for one warp, `L` = 29.26 (4 bytes),
//!   30.17 (8 bytes), 32.85 (16 bytes) cycles; a load whose phases merge
//!   (tests/data/hw-corpus/README.md) is one cycle cheaper per phase saved:
//!   [`Timing::latency`].
//! - With `w` warps each running such a chain, the cycles per instruction are
//!   the larger of the pipe's `wavefronts` and the chain's latency shared by
//!   `w` warps; from 4 warps on, the warps that share a scheduler (4 per SM)
//!   also delay each other by a constant per wavefront, fitted to the
//!   measurements (0.2 cycles at 4 bytes, 0.73 at 8, 0.93 at 16; a fit, not a
//!   derived mechanism): [`Timing::latency_cycles_per_instruction`].
//! - Independent loads and stores by 12 or more warps (3 a scheduler) are
//!   bound by the pipe: [`Timing::throughput_cycles_per_instruction`] gives
//!   `wavefronts` there, and `None` (not claimed) for fewer warps.
//!
//! Checked by `smem verify` within 2% against the 63 patterns of
//! `sm90-timing.jsonl`: every latency figure (1, 4 and 16 warps), and the
//! throughput figures for 16 warps except 8-byte loads whose half-warps merge
//! (measured 1.044 cycles for 1 wavefront); and against the 378 records of
//! `sm90-throughput-streams.jsonl` (tools/measure/throughput.cu: the 42
//! throughput patterns, each in 9 instruction streams, 1 to 16 warps): every
//! figure at 12 and 16 warps, within 1.6%.
//!
//! Not claimed: throughput below 12 warps. One warp is bound by its own issue
//! (4.48 cycles for a 4-byte load, about 2 cycles a wavefront beyond). From 2
//! to 8 warps the figure is not a function of the access pattern: the same
//! pattern, on the same SM, measures differently with the instructions around
//! the loads (how many are in flight, how the compiler interleaves the ALU
//! work), although each stream repeats to 0.5% across launches and machines.
//! At 4 warps, 8-byte loads of 2 wavefronts take 2.025 to 2.588 cycles over 9
//! streams, 16-byte loads of 4 wavefronts 4.004 to 4.239, and the corpus's own
//! harness measured 2.234 and 4.269; 23 of the 42 patterns leave the 2% band
//! in some stream at 4 warps, 3 at 8 warps (all with dependent blocks), none at
//! 12 or 16 (sm90-throughput-streams.jsonl, tests/data/hw-corpus/README.md).
//! No rule of the pattern alone predicts them to 2%; the model gives the bound
//! ([`Timing::pipe_cycles`]) and claims nothing there. Loads of 1 and 2 bytes
//! take the 4-byte constants, a modelling choice.

use crate::{AccessWidth, BankConfig, ComputeCapability, Error, Op, Partition, WarpRequest};

/// Cycles of one dependent load at each width, one warp, one wavefront:
/// 4, 8 and 16 bytes (measured on sm_90, tests/data/hw-corpus/sm90-timing.jsonl).
const BASE_LATENCY: [f64; 3] = [29.261, 30.167, 32.854];

/// Cycles one more wavefront adds to a dependent load (measured: exactly 2).
const CYCLES_PER_WAVEFRONT: f64 = 2.0;

/// Per wavefront, how much each other warp of one scheduler delays a chain,
/// at 4, 8 and 16 bytes: fitted to the 16-warp latency measurements.
const SCHEDULER_DELAY: [f64; 3] = [0.2, 0.73, 0.93];

/// The fewest warps whose independent accesses the pipe bounds within 2%
/// whatever the instruction stream: 12 (3 a scheduler), measured on sm_90
/// (tests/data/hw-corpus/sm90-throughput-streams.jsonl).
const CLAIMED_THROUGHPUT_WARPS: u32 = 12;

/// Warps per scheduler (SM sub-partition) with 4 or more warps: an SM has 4.
const SCHEDULERS: u32 = 4;

/// The most warps one sm_90 SM holds (Programming Guide: 64 resident warps
/// per SM), the most a timing can be asked for.
const MAX_WARPS: u32 = ComputeCapability::Sm90.max_warps_per_sm();

/// What one shared-memory instruction costs in cycles on sm_90.
///
/// Built by [`BankConfig::timing`]. Only sm_90 was measured: other
/// capabilities are [`Error::NotMeasured`], and the figures not measured for
/// an op are `None`, never a guess.
///
/// # Example
///
/// ```
/// use smem_model::{BankConfig, ComputeCapability, Op, WarpRequest};
///
/// let sm90 = BankConfig::new(ComputeCapability::Sm90);
/// // A 4-way conflicted float load in a pointer-chasing loop.
/// let load = WarpRequest::from_fn(Op::Load, 4, |lane| Some(lane.get() % 8 * 4 + lane.get() / 8 * 128))?;
/// let timing = sm90.timing(&load)?;
/// assert_eq!(timing.pipe_cycles(), 4);
/// assert_eq!(timing.latency().map(|c| c.round()), Some(35.0));
/// // Sixteen warps each chasing pointers: the pipe is the bound.
/// assert_eq!(timing.latency_cycles_per_instruction(16), Some(4.0));
/// assert_eq!(timing.throughput_cycles_per_instruction(16), Some(4.0));
/// # Ok::<(), smem_model::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Timing {
    wavefronts: u32,
    latency: Option<f64>,
    delay: Option<f64>,
    /// An 8-byte load whose half-warps merge: its throughput is not claimed.
    merged_wide: bool,
}

impl Timing {
    /// Cycles the SM's shared pipe is busy with the instruction: one per
    /// wavefront (measured on sm_90 for loads and stores). For a
    /// compare-and-swap loop, its LDS and ATOMS wavefronts together, and for
    /// atomics and `cp.async` the wavefronts, a modelling choice: only loads
    /// and stores were timed.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{BankConfig, ComputeCapability, Op, WarpRequest};
    ///
    /// let sm90 = BankConfig::new(ComputeCapability::Sm90);
    /// // s[2 * lane]: 2 wavefronts.
    /// let load = WarpRequest::from_fn(Op::Load, 4, |lane| Some(8 * lane.get()))?;
    /// let timing = sm90.timing(&load)?;
    /// assert_eq!(timing.pipe_cycles(), 2);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn pipe_cycles(&self) -> u32 {
        self.wavefronts
    }

    /// Cycles from issue to the loaded value for one warp alone, as a
    /// dependent chain measures it; `None` for ops other than loads, which
    /// were not timed.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{BankConfig, ComputeCapability, Op, WarpRequest};
    ///
    /// let sm90 = BankConfig::new(ComputeCapability::Sm90);
    /// // s[2 * lane]: 2 wavefronts.
    /// let load = WarpRequest::from_fn(Op::Load, 4, |lane| Some(8 * lane.get()))?;
    /// let timing = sm90.timing(&load)?;
    /// assert!(timing.latency().is_some());
    /// // Stores were not timed for latency.
    /// let store = WarpRequest::from_fn(Op::Store, 4, |lane| Some(8 * lane.get()))?;
    /// assert_eq!(sm90.timing(&store)?.latency(), None);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn latency(&self) -> Option<f64> {
        self.latency
    }

    /// Cycles per instruction when `warps` warps of one SM each run a
    /// dependent chain of this load: `max(wavefronts, (latency + delay) /
    /// warps)`, the delay being the other warps of a scheduler's (fitted,
    /// see the module docs). `None` where [`latency`](Self::latency) is, and
    /// for a number of warps an SM cannot hold: none, or more than 64
    /// ([`check_warps`](Self::check_warps) says why as an error).
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{BankConfig, ComputeCapability, Op, WarpRequest};
    ///
    /// let sm90 = BankConfig::new(ComputeCapability::Sm90);
    /// let load = WarpRequest::from_fn(Op::Load, 4, |lane| Some(4 * lane.get()))?;
    /// let timing = sm90.timing(&load)?;
    /// // Measured: 29.261, 7.317 and 1.867 cycles.
    /// let cycles: Vec<f64> = [1, 4, 16]
    ///     .iter()
    ///     .map(|&w| (timing.latency_cycles_per_instruction(w).unwrap() * 1000.0).round() / 1000.0)
    ///     .collect();
    /// assert_eq!(cycles, [29.261, 7.315, 1.866]);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn latency_cycles_per_instruction(&self, warps: u32) -> Option<f64> {
        let (latency, delay) = (self.latency?, self.delay?);
        Timing::check_warps(warps).ok()?;
        let sharing = f64::from(warps.div_ceil(SCHEDULERS).saturating_sub(1));
        let round = latency + sharing * delay * f64::from(self.wavefronts);
        Some((round / f64::from(warps)).max(f64::from(self.wavefronts)))
    }

    /// Cycles per instruction when `warps` warps of one SM issue this
    /// instruction independently: the pipe's bound,
    /// [`pipe_cycles`](Self::pipe_cycles), for 12 warps or more (3 a
    /// scheduler), measured within 2% on sm_90 at 12 and 16 warps for every
    /// throughput pattern of tests/data/hw-corpus in 9 instruction streams
    /// (sm90-throughput-streams.jsonl) and by the corpus's own harness at 16
    /// (sm90-timing.jsonl); more warps only keep the pipe busier (a modelling
    /// choice beyond 16). `None`, not a guess, where the model claims nothing:
    /// fewer than 12 warps, where the measured figure depends on the
    /// instructions around the access, not only on its pattern (see the
    /// module docs: up to 78% above the bound at 4 warps, by stream), 8-byte loads
    /// whose half-warps merge (the corpus's harness measured 4% above the
    /// bound at 16 warps), and more warps than an SM holds (64; see
    /// [`check_warps`](Self::check_warps)).
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{BankConfig, ComputeCapability, Op, WarpRequest};
    ///
    /// let sm90 = BankConfig::new(ComputeCapability::Sm90);
    /// // s[2 * lane]: 2 wavefronts.
    /// let load = WarpRequest::from_fn(Op::Load, 4, |lane| Some(8 * lane.get()))?;
    /// let timing = sm90.timing(&load)?;
    /// assert_eq!(timing.throughput_cycles_per_instruction(12), Some(2.0));
    /// assert_eq!(timing.throughput_cycles_per_instruction(16), Some(2.0));
    /// assert_eq!(timing.throughput_cycles_per_instruction(4), None);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn throughput_cycles_per_instruction(&self, warps: u32) -> Option<f64> {
        (Timing::check_warps(warps).is_ok()
            && warps >= CLAIMED_THROUGHPUT_WARPS
            && !self.merged_wide)
            .then(|| f64::from(self.wavefronts))
    }

    /// Checks a number of warps for the per-warp figures: an sm_90 SM holds
    /// 1 to 64 (Programming Guide, "Maximum number of resident warps per SM";
    /// [`ComputeCapability::max_warps_per_sm`]).
    ///
    /// # Errors
    ///
    /// [`Error::WarpsPerSm`] for 0 or more than 64.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{BankConfig, ComputeCapability, Error, Op, Timing, WarpRequest};
    ///
    /// assert_eq!(Timing::check_warps(16), Ok(()));
    /// // The per-warp figures are None for those, not a number.
    /// let load = WarpRequest::from_fn(Op::Load, 4, |lane| Some(4 * lane.get()))?;
    /// let timing = BankConfig::new(ComputeCapability::Sm90).timing(&load)?;
    /// assert_eq!(timing.latency_cycles_per_instruction(64).map(f64::round), Some(1.0));
    /// assert_eq!(timing.latency_cycles_per_instruction(65), None);
    /// assert_eq!(timing.throughput_cycles_per_instruction(1_000_000), None);
    /// assert_eq!(Timing::check_warps(0), Err(Error::WarpsPerSm { warps: 0, limit: 64 }));
    /// assert_eq!(
    ///     Timing::check_warps(1_000_000).unwrap_err().to_string(),
    ///     "1000000 warps on one SM: an SM of compute capability 9.0 holds 1 to 64"
    /// );
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub const fn check_warps(warps: u32) -> Result<(), Error> {
        if warps == 0 || warps > MAX_WARPS {
            return Err(Error::WarpsPerSm {
                warps,
                limit: MAX_WARPS,
            });
        }
        Ok(())
    }
}

impl BankConfig {
    /// The cycles `request` costs: [`Timing`].
    ///
    /// # Errors
    ///
    /// [`Error::NotMeasured`] on every capability but 9.0; the errors of
    /// [`partition`](Self::partition).
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{BankConfig, ComputeCapability, Error, Op, WarpRequest};
    ///
    /// let load = WarpRequest::from_fn(Op::Load, 8, |lane| Some(8 * lane.get()))?;
    /// let hopper = BankConfig::new(ComputeCapability::Sm90).timing(&load)?;
    /// assert_eq!(hopper.latency().map(|c| c.round()), Some(32.0));
    /// let ampere = BankConfig::new(ComputeCapability::Sm80).timing(&load);
    /// assert_eq!(ampere, Err(Error::NotMeasured { capability: ComputeCapability::Sm80 }));
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn timing(&self, request: &WarpRequest) -> Result<Timing, Error> {
        if self.capability() != ComputeCapability::Sm90 {
            return Err(Error::NotMeasured {
                capability: self.capability(),
            });
        }
        let partition = self.partition(request)?;
        Ok(Timing::of(*self, &partition))
    }
}

impl Timing {
    fn of(config: BankConfig, partition: &Partition) -> Timing {
        let request = partition.request();
        let wavefronts = partition.wavefronts() + partition.load_wavefronts();
        let index = match request.width() {
            AccessWidth::B8 => 1,
            AccessWidth::B16 => 2,
            _ => 0,
        };
        let (latency, delay) = if request.op() == Op::Load && wavefronts > 0 {
            // Phases the merge saved: the active unmerged phases less the
            // phases served (one ideal wavefront each).
            let size = config.phase_lanes(request.op(), request.width());
            let active = request.active().bits();
            let phases = (0..32 / size)
                .filter(|p| active >> (p * size) & (u32::MAX >> (32 - size)) != 0)
                .count() as u32;
            let saved = phases.saturating_sub(partition.ideal_wavefronts());
            let latency = BASE_LATENCY[index] + CYCLES_PER_WAVEFRONT * f64::from(wavefronts - 1)
                - f64::from(saved);
            (Some(latency), Some(SCHEDULER_DELAY[index]))
        } else {
            (None, None)
        };
        let merged_wide = request.op() == Op::Load
            && request.width() == AccessWidth::B8
            && partition.ideal_wavefronts() < 2
            && request.active().len() > 16;
        Timing {
            wavefronts,
            latency,
            delay,
            merged_wide,
        }
    }
}

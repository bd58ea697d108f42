//! Hardware corpora: measured warp accesses, one JSON object a line.
//!
//! The format:
//!
//! | field | meaning |
//! |---|---|
//! | `arch` | the capability measured, e.g. `"sm_90"` |
//! | `gpu` | the board, e.g. `"H100 80GB HBM3"` (optional) |
//! | `group` | how the pattern was generated (optional) |
//! | `label` | an instruction label (optional) |
//! | `op` | `ld`, `st`, `atom`, `ldsm` or `stsm` |
//! | `width` | bytes per lane for `ld`/`st`/`atom`; number of 8x8 matrices for `ldsm`/`stsm` |
//! | `offsets` | 32 byte offsets from the start of the dynamic shared window, `-1` for an inactive lane |
//! | `wavefronts` | measured `l1tex__data_pipe_lsu_wavefronts_mem_shared_op_*` (optional) |
//! | `ncu_bank_conflicts` | Nsight Compute's own bank-conflict figure (optional, `null` when not measured) |
//!
//! Offsets are relative to the dynamic window, which starts after the bytes the
//! driver reserves per block ([`ComputeCapability::reserved_shared_memory_per_block`]:
//! the window started at `0x400` on sm_90, where the corpus was measured);
//! [`Record::request`] adds that base.
//!
//! # Example
//!
//! ```
//! use smem_model::corpus::{self, Summary};
//!
//! let text = r#"{"arch":"sm_90","op":"ld","width":4,"offsets":[0,4,8,12,16,20,24,28,32,36,40,44,48,52,56,60,64,68,72,76,80,84,88,92,96,100,104,108,112,116,120,-1],"wavefronts":1,"ncu_bank_conflicts":0}"#;
//! let mut summary = Summary::default();
//! for record in corpus::read(text.as_bytes(), "inline") {
//!     let record = record?;
//!     let check = record.check(None)?;
//!     summary.add(&record, &check);
//! }
//! assert_eq!((summary.exact(), summary.total()), (1, 1));
//! # Ok::<(), smem_model::Error>(())
//! ```

use std::collections::BTreeMap;
use std::io::{BufRead, Read};

use serde::{Deserialize, Serialize};

use crate::error::bounded;
use crate::{
    AtomicKind, BankConfig, ComputeCapability, CpAsync, Error, Matrices, Op, StoreOrder,
    WarpRequest, WARP_SIZE,
};

/// One measured (or merely described) warp access.
///
/// The fields are the corpus format's, as written; [`operation`](Self::operation),
/// [`request`](Self::request) and [`check`](Self::check) interpret them. A record
/// with no `wavefronts` describes a pattern still to be measured.
///
/// # Example
///
/// ```
/// use smem_model::corpus::Record;
/// use smem_model::{Matrices, Op};
///
/// // A line of tests/data/hw-corpus/sm90-calib.jsonl: ldmatrix.x1 whose eight
/// // rows put two rows in each of banks 8-11, 12-15 and 24-27.
/// let line = r#"{"arch":"sm_90","gpu":"H100 80GB HBM3","group":"rand256","op":"ldsm","width":1,"offsets":[224,176,48,0,160,96,192,32,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1],"wavefronts":2,"ncu_bank_conflicts":1}"#;
/// let record = Record::from_json(line)?;
/// assert_eq!(record.operation()?, Op::LdMatrix(Matrices::X1));
/// assert_eq!(record.wavefronts, Some(2));
/// assert!(record.check(None)?.is_exact());
///
/// // Writing a corpus: a float2 store s2[2 * lane], to be measured.
/// let todo = Record {
///     arch: "sm_90".into(),
///     gpu: None,
///     group: Some("stride2".into()),
///     label: None,
///     op: "st".into(),
///     width: 8,
///     offsets: (0..32).map(|lane| 16 * lane).collect(),
///     wavefronts: None,
///     ncu_bank_conflicts: None,
///     ..Record::default()
/// };
/// let json = serde_json::to_string(&todo)?;
/// assert_eq!(Record::from_json(&json)?, todo);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Record {
    /// The capability measured, e.g. `"sm_90"`.
    pub arch: String,
    /// The board measured on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gpu: Option<String>,
    /// How the pattern was generated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
    /// An instruction label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// `ld`, `st`, `atom`, `ldsm` or `stsm`.
    pub op: String,
    /// Bytes per lane, or the number of matrices for `ldsm`/`stsm`.
    pub width: u32,
    /// Byte offsets from the dynamic window's start, `-1` for inactive lanes.
    pub offsets: Vec<i64>,
    /// Measured wavefronts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wavefronts: Option<u32>,
    /// Nsight Compute's bank-conflict figure.
    #[serde(default)]
    pub ncu_bank_conflicts: Option<u32>,
    /// Atomics: the operation in PTX (`add`, `add.f32`, `cas`, ...; absent:
    /// `add`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub atom: Option<String>,
    /// Atomics: `red` (no return value) rather than `atom`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub red: Option<bool>,
    /// Atomics: measured LDS wavefronts of the same kernel (a CAS loop's loads).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ld_wavefronts: Option<u32>,
    /// Atomics: measured ATOMS instructions executed (a CAS loop's rounds).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<u32>,
    /// `cp.async`: `ca` or `cg`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache: Option<String>,
    /// `cp.async`: the raw `l1tex__data_pipe_lsu_wavefronts_mem_shared`, which
    /// counts 4 more per instruction whatever the addresses.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ncu_shared_wavefronts: Option<u32>,
    /// Store winners: for each lane, the lane whose value was read back at its
    /// address (`-1` inactive).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub winners: Option<Vec<i64>>,
    /// Store winners: how many runs gave these winners.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runs: Option<u32>,
    /// Timing: `latency` (a dependent chain) or `throughput` (independent
    /// instructions).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub measure: Option<String>,
    /// Timing: measured cycles per warp instruction, keyed `warps_N` for N
    /// warps of one block (1 to 32), e.g. `warps_1`, `warps_4`, `warps_16`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cycles_per_instruction: Option<BTreeMap<String, f64>>,
}

/// What a corpus record measures, which decides how it is checked.
///
/// # Example
///
/// ```
/// use smem_model::corpus::{Record, RecordKind};
///
/// let record = Record::from_json(r#"{"arch":"sm_90","op":"atom","atom":"cas","width":8,"offsets":[]}"#)?;
/// assert_eq!(record.kind()?, RecordKind::Atomic);
/// assert_eq!(RecordKind::Atomic.to_string(), "atomics");
/// # Ok::<(), smem_model::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum RecordKind {
    /// Loads, stores, `ldmatrix`, `stmatrix` (and 32-bit atomic add records of
    /// the first corpus): wavefronts and bank conflicts, as Nsight Compute counts them.
    Access,
    /// Atomics of every kind: ATOMS wavefronts, LDS wavefronts, instructions (2.2).
    Atomic,
    /// `cp.async`: the shared-side wavefronts Nsight sees (2.3).
    CpAsync,
    /// Which lane's store lands (2.4).
    Winners,
    /// Cycles per instruction (2.5).
    Timing,
}

impl core::fmt::Display for RecordKind {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(match self {
            RecordKind::Access => "access",
            RecordKind::Atomic => "atomics",
            RecordKind::CpAsync => "cp.async",
            RecordKind::Winners => "winners",
            RecordKind::Timing => "timing",
        })
    }
}

/// One figure of a record compared with the model's: exact when `tolerance`
/// is 0, else within that fraction of the measurement.
///
/// # Example
///
/// ```
/// use smem_model::corpus::Comparison;
///
/// let c = Comparison { figure: "latency warps_16".into(), predicted: 1.867, measured: 1.9, tolerance: 0.02 };
/// assert!(c.holds());
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Comparison {
    /// What is compared, e.g. `ld_wavefronts` or `latency warps_4`.
    pub figure: String,
    /// The model's figure.
    pub predicted: f64,
    /// The record's.
    pub measured: f64,
    /// 0 for an exact comparison, else the largest relative difference allowed.
    pub tolerance: f64,
}

impl Comparison {
    /// Whether the prediction agrees with the measurement.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::corpus::Comparison;
    ///
    /// let exact = Comparison { figure: "ld_wavefronts".into(), predicted: 2.0, measured: 3.0, tolerance: 0.0 };
    /// assert!(!exact.holds());
    /// ```
    pub fn holds(&self) -> bool {
        if self.tolerance == 0.0 {
            self.predicted == self.measured
        } else {
            (self.predicted - self.measured).abs() <= self.tolerance * self.measured.abs()
        }
    }

    fn exact(figure: impl Into<String>, predicted: u32, measured: u32) -> Comparison {
        Comparison {
            figure: figure.into(),
            predicted: f64::from(predicted),
            measured: f64::from(measured),
            tolerance: 0.0,
        }
    }
}

/// The largest relative difference a timing figure may have (2%).
///
/// # Example
///
/// ```
/// use smem_model::corpus::TIMING_TOLERANCE;
///
/// // 1.867 cycles predicted, 1.9 measured: within 2%.
/// assert!((1.867f64 - 1.9).abs() <= TIMING_TOLERANCE * 1.9);
/// ```
pub const TIMING_TOLERANCE: f64 = 0.02;

/// The longest line [`read`] accepts, in bytes: 1 MiB (a corpus line is about
/// 400 bytes). A longer line ends the reading of its source with an
/// [`Error::LineTooLong`], as soon as the limit is passed.
///
/// # Example
///
/// ```
/// use smem_model::corpus::{self, MAX_LINE_BYTES};
///
/// let long = "x".repeat(MAX_LINE_BYTES + 1);
/// let mut records = corpus::read(long.as_bytes(), "long.jsonl");
/// assert!(records.next().unwrap().is_err());
/// ```
pub const MAX_LINE_BYTES: usize = 1 << 20;

/// The model's prediction for a record, beside the measurement.
///
/// # Example
///
/// ```
/// use smem_model::corpus::{Record, RecordKind};
///
/// // s[2 * lane] on floats, measured on an H100: 2 wavefronts, 1 bank conflict.
/// let line = r#"{"arch":"sm_90","gpu":"H100 80GB HBM3","group":"stride2","op":"ld","width":4,"offsets":[0,8,16,24,32,40,48,56,64,72,80,88,96,104,112,120,128,136,144,152,160,168,176,184,192,200,208,216,224,232,240,248],"wavefronts":2,"ncu_bank_conflicts":1}"#;
/// let check = Record::from_json(line)?.check(None)?;
/// assert_eq!(
///     (check.kind, check.wavefronts, check.bank_conflicts),
///     (RecordKind::Access, 2, 1)
/// );
/// assert_eq!((check.measured_wavefronts, check.measured_bank_conflicts), (Some(2), Some(1)));
/// assert!(check.comparisons.is_empty());
/// assert!(check.is_exact());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Check {
    /// What the record measures.
    pub kind: RecordKind,
    /// Predicted wavefronts.
    pub wavefronts: u32,
    /// Predicted bank conflicts.
    pub bank_conflicts: u32,
    /// Measured wavefronts, if the record has them.
    pub measured_wavefronts: Option<u32>,
    /// Measured bank conflicts, if the record has them.
    pub measured_bank_conflicts: Option<u32>,
    /// Whether Nsight's counters see the request's wavefronts (false for
    /// `cp.async.cg`, whose `wavefronts` above are then the model's own
    /// shared-side figure and are compared with 0).
    pub visible_to_nsight: bool,
    /// The other figures compared: LDS wavefronts and instructions of
    /// atomics, the raw shared wavefronts of `cp.async`, each lane's winner,
    /// the cycles the timing model claims.
    pub comparisons: Vec<Comparison>,
}

impl Check {
    /// Whether every measured figure equals the prediction (`false` when nothing
    /// was measured).
    ///
    /// The wavefront count must have been measured; Nsight Compute's conflict
    /// figure is compared only when the record has it.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::corpus::Record;
    ///
    /// # // s[2 * lane] on floats, measured on an H100 (tests/data/hw-corpus/sm90-calib.jsonl).
    /// # let stride2 = r#"{"arch":"sm_90","gpu":"H100 80GB HBM3","group":"stride2","op":"ld","width":4,"offsets":[0,8,16,24,32,40,48,56,64,72,80,88,96,104,112,120,128,136,144,152,160,168,176,184,192,200,208,216,224,232,240,248],"wavefronts":2,"ncu_bank_conflicts":1}"#;
    /// let mut record = Record::from_json(stride2)?;
    /// assert!(record.check(None)?.is_exact());
    /// record.ncu_bank_conflicts = None; // not measured: not compared
    /// assert!(record.check(None)?.is_exact());
    /// record.wavefronts = Some(3); // a different measurement
    /// assert!(!record.check(None)?.is_exact());
    /// record.wavefronts = None; // nothing to agree with
    /// assert!(!record.check(None)?.is_exact());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn is_exact(&self) -> bool {
        let seen = if self.visible_to_nsight {
            self.wavefronts
        } else {
            0
        };
        let counted = match self.kind {
            RecordKind::Winners | RecordKind::Timing => self.compared(),
            _ => {
                self.measured_wavefronts == Some(seen)
                    && self
                        .measured_bank_conflicts
                        .is_none_or(|measured| measured == self.bank_conflicts)
            }
        };
        counted && self.comparisons.iter().all(Comparison::holds)
    }

    /// Whether any measured figure of the record was compared: for timing, a
    /// latency or throughput figure the model claims (a record measured only
    /// where the model claims nothing, such as merged 8-byte loads'
    /// throughput or fewer than 12 warps, is not); for winners, the winners;
    /// otherwise a measured wavefront or bank-conflict count. A record not
    /// compared is never [`is_exact`](Self::is_exact); [`Summary`] counts it
    /// apart.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::corpus::Record;
    ///
    /// let offsets: Vec<String> = (0..32).map(|lane| (8 * lane).to_string()).collect();
    /// let line = |cycles: &str| format!(
    ///     r#"{{"arch":"sm_90","op":"ld","width":8,"offsets":[{}],"measure":"throughput","cycles_per_instruction":{{{cycles}}}}}"#,
    ///     offsets.join(",")
    /// );
    /// // Throughput of 4 warps: the model claims nothing there.
    /// let check = Record::from_json(&line(r#""warps_4":2.5"#))?.check(None)?;
    /// assert!(!check.compared() && !check.is_exact());
    /// let check = Record::from_json(&line(r#""warps_16":2.0"#))?.check(None)?;
    /// assert!(check.compared() && check.is_exact());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn compared(&self) -> bool {
        match self.kind {
            RecordKind::Winners => !self.comparisons.is_empty(),
            RecordKind::Timing => self
                .comparisons
                .iter()
                .any(|c| c.figure.starts_with("latency ") || c.figure.starts_with("throughput ")),
            RecordKind::Access | RecordKind::Atomic | RecordKind::CpAsync => {
                self.measured_wavefronts.is_some()
                    || self.measured_bank_conflicts.is_some()
                    || !self.comparisons.is_empty()
            }
        }
    }
}

impl Record {
    /// Parses one line.
    ///
    /// Unknown fields are errors, so that a misspelt field is not silently
    /// dropped.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidRecord`] with `serde_json`'s description of what is wrong.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::corpus::Record;
    ///
    /// let record = Record::from_json(r#"{"arch":"sm_86","op":"st","width":16,"offsets":[]}"#)?;
    /// assert_eq!((record.op.as_str(), record.width), ("st", 16));
    ///
    /// let typo = Record::from_json(r#"{"arch":"sm_86","op":"st","width":16,"ofsets":[]}"#);
    /// assert!(typo.unwrap_err().to_string().starts_with("unknown field `ofsets`"));
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn from_json(line: &str) -> Result<Record, Error> {
        // One record is one line, so serde's "at line 1" only confuses.
        serde_json::from_str(line)
            .map_err(|err| bad(err.to_string().replace(" at line 1 column ", " at column ")))
    }

    /// The capability named by `arch`.
    ///
    /// # Errors
    ///
    /// [`Error::UnknownCapability`] when `arch` names no capability.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::corpus::Record;
    /// use smem_model::ComputeCapability;
    ///
    /// let record = Record::from_json(r#"{"arch":"sm_90a","op":"ld","width":4,"offsets":[]}"#)?;
    /// assert_eq!(record.capability()?, ComputeCapability::Sm90);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn capability(&self) -> Result<ComputeCapability, Error> {
        self.arch.parse()
    }

    /// The op named by `op` (with `width` for the matrix ops).
    ///
    /// # Errors
    ///
    /// [`Error::InvalidRecord`] when `op` is unknown or a matrix
    /// op has a matrix count other than 1, 2 or 4.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::corpus::Record;
    /// use smem_model::{Matrices, Op};
    ///
    /// // For ldsm and stsm, `width` counts matrices.
    /// let x4 = Record::from_json(r#"{"arch":"sm_90","op":"ldsm","width":4,"offsets":[]}"#)?;
    /// assert_eq!(x4.operation()?, Op::LdMatrix(Matrices::X4));
    /// let x3 = Record::from_json(r#"{"arch":"sm_90","op":"ldsm","width":3,"offsets":[]}"#)?;
    /// assert_eq!(x3.operation().unwrap_err().to_string(), "ldsm needs 1, 2 or 4 matrices, not 3");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn operation(&self) -> Result<Op, Error> {
        let matrices = || {
            Matrices::from_count(self.width).ok_or_else(|| {
                bad(format!(
                    "{} needs 1, 2 or 4 matrices, not {}",
                    self.op, self.width
                ))
            })
        };
        Ok(match self.op.as_str() {
            "ld" => Op::Load,
            "st" => Op::Store,
            "atom" => {
                let kind = match &self.atom {
                    None => AtomicKind::Add,
                    Some(atom) => atom.parse::<AtomicKind>().map_err(|_| {
                        bad(format!(
                            "field `atom`: unknown atomic operation {:?}: expected add, add.f32, add.f64, exch, cas, min, max, inc, dec, and, or or xor",
                            bounded(atom)
                        ))
                    })?,
                };
                if self.red == Some(true) {
                    Op::Reduction(kind)
                } else {
                    Op::Atomic(kind)
                }
            }
            "ldsm" => Op::LdMatrix(matrices()?),
            "stsm" => Op::StMatrix(matrices()?),
            // tests/data/hw-corpus/sm90-ldsm-trans.jsonl.
            "ldsm.trans" => Op::LdMatrix(matrices()?.transposed()),
            "stsm.trans" => Op::StMatrix(matrices()?.transposed()),
            "cp.async" => match self.cache.as_deref() {
                Some("ca") => Op::CpAsync(CpAsync::Ca),
                Some("cg") => Op::CpAsync(CpAsync::Cg),
                Some(other) => {
                    return Err(bad(format!(
                        "field `cache`: unknown cache {:?}: expected ca or cg",
                        bounded(other)
                    )))
                }
                None => {
                    return Err(bad(
                        "field `cache` is missing: cp.async needs ca or cg".into()
                    ))
                }
            },
            other => {
                return Err(bad(format!(
                    "field `op`: unknown op {:?}: expected ld, st, atom, ldsm, ldsm.trans, stsm, stsm.trans or cp.async",
                    bounded(other)
                )))
            }
        })
    }

    /// What the record measures: store winners when it has `winners`, cycles
    /// when it has `measure`, else by its op.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidRecord`] naming the field (`op`, `measure`) whose value
    /// is unknown.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::corpus::{self, Record, RecordKind, Summary};
    ///
    /// // A line of tests/data/hw-corpus/sm90-calib.jsonl: ldmatrix.x1, 2 wavefronts.
    /// let line = r#"{"arch":"sm_90","gpu":"H100 80GB HBM3","group":"rand256","op":"ldsm","width":1,"offsets":[224,176,48,0,160,96,192,32,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1],"wavefronts":2,"ncu_bank_conflicts":1}"#;
    /// let record = Record::from_json(line)?;
    /// assert_eq!(record.kind()?, RecordKind::Access);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn kind(&self) -> Result<RecordKind, Error> {
        if self.winners.is_some() {
            return Ok(RecordKind::Winners);
        }
        if let Some(measure) = &self.measure {
            return match measure.as_str() {
                "latency" | "throughput" => Ok(RecordKind::Timing),
                other => Err(bad(format!(
                    "field `measure`: unknown measure {:?}: expected latency or throughput",
                    bounded(other)
                ))),
            };
        }
        Ok(match self.operation()? {
            Op::CpAsync(_) => RecordKind::CpAsync,
            Op::Atomic(_) | Op::Reduction(_)
                if self.atom.is_some()
                    || self.ld_wavefronts.is_some()
                    || self.instructions.is_some() =>
            {
                RecordKind::Atomic
            }
            _ => RecordKind::Access,
        })
    }

    /// A short name for the record's op, for reports: `ld`, `atom.cas`,
    /// `red.add`, `cp.async.cg`, `ld latency`, ...
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::corpus::{self, Record, RecordKind, Summary};
    ///
    /// // A line of tests/data/hw-corpus/sm90-calib.jsonl: ldmatrix.x1, 2 wavefronts.
    /// let line = r#"{"arch":"sm_90","gpu":"H100 80GB HBM3","group":"rand256","op":"ldsm","width":1,"offsets":[224,176,48,0,160,96,192,32,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1],"wavefronts":2,"ncu_bank_conflicts":1}"#;
    /// let record = Record::from_json(line)?;
    /// assert_eq!(record.label(), "ldsm");
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn label(&self) -> String {
        let mut label = match (self.op.as_str(), &self.atom, &self.cache) {
            ("atom", atom, _) => {
                let name = if self.red == Some(true) {
                    "red"
                } else {
                    "atom"
                };
                format!("{name}.{}", atom.as_deref().unwrap_or("add"))
            }
            ("cp.async", _, Some(cache)) => format!("cp.async.{cache}"),
            (op, _, _) => op.to_owned(),
        };
        if let Some(measure) = &self.measure {
            label = format!("{label} {measure}");
        }
        label
    }

    /// The request the record describes on `capability`, addresses placed after
    /// the capability's reserved bytes.
    ///
    /// # Errors
    ///
    /// [`Error::LaneCount`] unless there are 32 offsets; [`Error::InvalidRecord`]
    /// for an offset below -1 or above `u32::MAX` and for a misaligned offset; and the errors of
    /// [`WarpRequest::new`].
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::corpus::Record;
    /// use smem_model::{ComputeCapability, Lane};
    ///
    /// # // s[2 * lane] on floats, measured on an H100 (tests/data/hw-corpus/sm90-calib.jsonl).
    /// # let stride2 = r#"{"arch":"sm_90","gpu":"H100 80GB HBM3","group":"stride2","op":"ld","width":4,"offsets":[0,8,16,24,32,40,48,56,64,72,80,88,96,104,112,120,128,136,144,152,160,168,176,184,192,200,208,216,224,232,240,248],"wavefronts":2,"ncu_bank_conflicts":1}"#;
    /// let record = Record::from_json(stride2)?;
    /// // Offset 8 is shared address 0x408 on an H100, after the reserved kilobyte,
    /// // and address 8 on a T4 (7.5), which reserves nothing.
    /// let h100 = record.request(ComputeCapability::Sm90)?;
    /// assert_eq!(h100.address(Lane::new(1)?), Some(0x408));
    /// let t4 = record.request(ComputeCapability::Sm75)?;
    /// assert_eq!(t4.address(Lane::new(1)?), Some(8));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn request(&self, capability: ComputeCapability) -> Result<WarpRequest, Error> {
        let op = self.operation()?;
        // `width` counts matrices for the matrix ops, whose rows are 16 bytes.
        let width = match op {
            Op::LdMatrix(_) | Op::StMatrix(_) => 16,
            _ => self.width,
        };
        if self.offsets.len() != WARP_SIZE {
            return Err(Error::LaneCount {
                given: self.offsets.len(),
            });
        }
        let base = i64::from(capability.reserved_shared_memory_per_block());
        let mut addresses = [None; WARP_SIZE];
        for (lane, &offset) in self.offsets.iter().enumerate() {
            addresses[lane] = match offset {
                -1 => None,
                offset if (0..=i64::from(u32::MAX) - base).contains(&offset) => {
                    Some((offset + base) as u32)
                }
                offset => {
                    return Err(bad(format!(
                        "lane {lane} has offset {offset}: expected -1 (inactive) or 0 to {}",
                        i64::from(u32::MAX) - base
                    )))
                }
            };
        }
        WarpRequest::new(op, width, addresses).map_err(|err| match err {
            // Name the offset as written in the record, beside the shared address.
            Error::Misaligned { lane, address, width } => bad(format!(
                "misaligned address: lane {lane} accesses {width} bytes at offset {} (shared address {address:#x}), which is not a multiple of {width}",
                i64::from(address) - base
            )),
            other => other,
        })
    }

    /// Predicts the record on `capability` (default: its own `arch`), in the
    /// capability's default bank mode.
    ///
    /// # Errors
    ///
    /// Those of [`capability`](Self::capability), [`request`](Self::request) and
    /// [`BankConfig::partition`]:
    ///
    /// - [`Error::UnknownCapability`] when `capability` is `None` and `arch` names
    ///   no capability.
    /// - [`Error::InvalidRecord`] for an unknown op, a bad matrix count, an offset
    ///   out of range or a misaligned offset.
    /// - [`Error::LaneCount`] unless there are 32 offsets.
    /// - [`Error::InvalidWidth`] and [`Error::WidthMismatch`] for a width the op
    ///   does not have.
    /// - [`Error::UnsupportedOp`] when the capability lacks the op.
    /// - [`Error::OutsideWindow`] when an offset lies past the capability's shared
    ///   window.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::corpus::Record;
    /// use smem_model::ComputeCapability;
    ///
    /// // A uniform 64-bit load, measured on an H200: the half-warps merge.
    /// let line = r#"{"arch":"sm_90","gpu":"H200","group":"uniform","op":"ld","width":8,"offsets":[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0],"wavefronts":1,"ncu_bank_conflicts":0}"#;
    /// let record = Record::from_json(line)?;
    /// let hopper = record.check(None)?;
    /// assert_eq!(hopper.wavefronts, 1);
    /// assert!(hopper.is_exact());
    /// // What the model predicts for the same pattern on Pascal, which it does
    /// // not merge: the measurement is carried along, though made on sm_90.
    /// let pascal = record.check(Some(ComputeCapability::Sm61))?;
    /// assert_eq!((pascal.wavefronts, pascal.measured_wavefronts), (2, Some(1)));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn check(&self, capability: Option<ComputeCapability>) -> Result<Check, Error> {
        let capability = match capability {
            Some(cc) => cc,
            None => self.capability()?,
        };
        let kind = self.kind()?;
        let request = self.request(capability)?;
        let config = BankConfig::new(capability);
        let partition = config.partition(&request)?;
        let op = request.op();
        let mut comparisons = Vec::new();
        // Nsight's bank conflicts are wavefronts - ideal for loads, stores,
        // the matrix ops, native atomics but cas (which it counts once per
        // pair) and cp.async.ca; it reports 0 for the CAS loops.
        let conflicts_comparable = match op {
            Op::Atomic(k) | Op::Reduction(k) => {
                k != AtomicKind::Cas && !op.is_cas_loop(request.width())
            }
            Op::CpAsync(cache) => cache == CpAsync::Ca,
            _ => true,
        };
        match kind {
            RecordKind::Access => {}
            RecordKind::Atomic => {
                if let Some(measured) = self.ld_wavefronts {
                    comparisons.push(Comparison::exact(
                        "ld_wavefronts",
                        partition.load_wavefronts(),
                        measured,
                    ));
                }
                if let Some(measured) = self.instructions {
                    comparisons.push(Comparison::exact(
                        "instructions",
                        partition.instructions(),
                        measured,
                    ));
                }
            }
            RecordKind::CpAsync => {
                if let Some(measured) = self.ncu_shared_wavefronts {
                    let seen = if partition.visible_to_nsight() {
                        partition.wavefronts()
                    } else {
                        0
                    };
                    comparisons.push(Comparison::exact(
                        "ncu_shared_wavefronts (4 per LDGSTS + the visible wavefronts)",
                        seen + CP_ASYNC_EXTRA_WAVEFRONTS,
                        measured,
                    ));
                }
            }
            RecordKind::Winners => {
                let winners = self.winners.as_deref().unwrap_or_default();
                if winners.len() != WARP_SIZE {
                    return Err(bad(format!(
                        "field `winners`: {} entries, expected 32",
                        winners.len()
                    )));
                }
                if let Some((lane, winner)) = winners
                    .iter()
                    .enumerate()
                    .find(|(_, w)| !(-1..=31).contains(*w))
                {
                    return Err(bad(format!(
                        "field `winners`: lane {lane}'s winner is {winner}, not a lane (0 to 31) or -1 (inactive)"
                    )));
                }
                if self.runs == Some(0) {
                    return Err(bad(
                        "field `runs`: 0 runs measured nothing; expected 1 or more".into(),
                    ));
                }
                let predicted = store_winners(&request, StoreOrder::LowestLaneOfLastPhase);
                for (lane, (&measured, predicted)) in winners.iter().zip(predicted).enumerate() {
                    let predicted = predicted.map_or(-1, i64::from);
                    comparisons.push(Comparison {
                        figure: format!("winner of lane {lane}"),
                        predicted: predicted as f64,
                        measured: measured as f64,
                        tolerance: 0.0,
                    });
                }
            }
            RecordKind::Timing => {
                let timing = config.timing(&request)?;
                let latency = self.measure.as_deref() == Some("latency");
                // Every `warps_N` figure, by warp count; any other key is an error.
                let mut figures = Vec::new();
                for (key, &measured) in self.cycles_per_instruction.iter().flatten() {
                    let warps = key
                        .strip_prefix("warps_")
                        .and_then(|n| n.parse::<u32>().ok())
                        .filter(|&n| (1..=32).contains(&n))
                        .ok_or_else(|| {
                            bad(format!(
                                "field `cycles_per_instruction`: key `{key}` is not `warps_N` with N from 1 to 32"
                            ))
                        })?;
                    if !(measured.is_finite() && measured > 0.0) {
                        return Err(bad(format!(
                            "field `cycles_per_instruction`: `{key}` is {measured} cycles; a measurement is a positive number"
                        )));
                    }
                    figures.push((warps, key, measured));
                }
                figures.sort_by_key(|&(warps, _, _)| warps);
                for (warps, key, measured) in figures {
                    let predicted = if latency {
                        timing.latency_cycles_per_instruction(warps)
                    } else {
                        timing.throughput_cycles_per_instruction(warps)
                    };
                    if let Some(predicted) = predicted {
                        comparisons.push(Comparison {
                            figure: format!(
                                "{} {key}",
                                if latency { "latency" } else { "throughput" }
                            ),
                            predicted,
                            measured,
                            tolerance: TIMING_TOLERANCE,
                        });
                    }
                }
                if let Some(measured) = self.wavefronts {
                    comparisons.push(Comparison::exact(
                        "wavefronts (the record's own count)",
                        partition.wavefronts(),
                        measured,
                    ));
                }
            }
        }
        let timing_or_winners = matches!(kind, RecordKind::Winners | RecordKind::Timing);
        Ok(Check {
            kind,
            wavefronts: partition.wavefronts(),
            bank_conflicts: partition.bank_conflicts(),
            measured_wavefronts: if timing_or_winners {
                None
            } else {
                self.wavefronts
            },
            measured_bank_conflicts: if conflicts_comparable {
                self.ncu_bank_conflicts
            } else {
                None
            },
            visible_to_nsight: partition.visible_to_nsight(),
            comparisons,
        })
    }
}

/// What `l1tex__data_pipe_lsu_wavefronts_mem_shared` counts per `LDGSTS`
/// whatever its addresses (measured on sm_90, tests/data/hw-corpus/sm90-cp-async.jsonl).
///
/// # Example
///
/// ```
/// use smem_model::corpus::CP_ASYNC_EXTRA_WAVEFRONTS;
///
/// assert_eq!(CP_ASYNC_EXTRA_WAVEFRONTS, 4);
/// ```
pub const CP_ASYNC_EXTRA_WAVEFRONTS: u32 = 4;

/// For each lane, the lane whose write lands at its address under `order`
/// (itself when no other lane writes there); `None` for inactive lanes, and
/// for colliding lanes under [`StoreOrder::Undefined`].
fn store_winners(request: &WarpRequest, order: StoreOrder) -> [Option<u32>; WARP_SIZE] {
    let collisions = request.write_collisions();
    core::array::from_fn(|i| {
        let lane = crate::Lane::new(i as u32).ok()?;
        let address = request.address(lane)?;
        match collisions.iter().find(|c| c.address() == address) {
            Some(c) => c.winner(order).map(|w| w.get()),
            None => Some(lane.get()),
        }
    })
}

fn bad(reason: String) -> Error {
    Error::InvalidRecord { reason }
}

/// Reads records from `reader`, one a line, skipping blank lines.
///
/// Each item is a record or an [`Error::MalformedRecord`] naming `source_name`
/// and the line; reading goes on after a malformed line, and stops after the
/// first error of the reader itself.
///
/// To read a file, pass `BufReader::new(File::open(path)?)` and the path as
/// `source_name`.
///
/// # Example
///
/// ```
/// use smem_model::corpus;
///
/// # // s[2 * lane] on floats, measured on an H100 (tests/data/hw-corpus/sm90-calib.jsonl).
/// # let stride2 = r#"{"arch":"sm_90","gpu":"H100 80GB HBM3","group":"stride2","op":"ld","width":4,"offsets":[0,8,16,24,32,40,48,56,64,72,80,88,96,104,112,120,128,136,144,152,160,168,176,184,192,200,208,216,224,232,240,248],"wavefronts":2,"ncu_bank_conflicts":1}"#;
/// let text = format!("{stride2}\n\n{{\"arch\":\"sm_90\"}}\n");
/// let mut records = corpus::read(text.as_bytes(), "demo.jsonl");
/// assert_eq!(records.next().unwrap()?.group.as_deref(), Some("stride2"));
/// // The blank line 2 is skipped; line 3 lacks fields.
/// let err = records.next().unwrap().unwrap_err();
/// assert_eq!(err.to_string(), "demo.jsonl:3: missing field `op` at column 16");
/// assert!(records.next().is_none());
/// # Ok::<(), smem_model::Error>(())
/// ```
pub fn read<R: BufRead>(reader: R, source_name: &str) -> Records<R> {
    Records {
        reader,
        source_name: source_name.to_owned(),
        line: 0,
        failed: false,
    }
}

/// The records of a corpus, from [`read`].
///
/// An iterator of records, which also knows where it is, so that errors found
/// after parsing can name their line too.
///
/// # Example
///
/// ```
/// use smem_model::corpus;
///
/// // Line 2 parses, but holds one offset instead of 32.
/// let text = "\n{\"arch\":\"sm_90\",\"op\":\"ld\",\"width\":4,\"offsets\":[0]}\n";
/// let mut records = corpus::read(text.as_bytes(), "demo.jsonl");
/// let mut errors = Vec::new();
/// while let Some(record) = records.next() {
///     assert_eq!(records.line(), 2);
///     if let Err(err) = record.and_then(|record| record.check(None)) {
///         errors.push(records.locate(err).to_string());
///     }
/// }
/// assert_eq!(errors, ["demo.jsonl:2: a warp has 32 lanes, but 1 addresses were given"]);
/// ```
#[derive(Debug)]
pub struct Records<R> {
    reader: R,
    source_name: String,
    line: usize,
    failed: bool,
}

impl<R> Records<R> {
    /// The line number of the record last returned, counting from 1.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::corpus;
    ///
    /// let text = "\n{not json}\n";
    /// let mut records = corpus::read(text.as_bytes(), "bad.jsonl");
    /// assert!(records.next().unwrap().is_err());
    /// // The blank first line is skipped; the error is on line 2.
    /// assert_eq!(records.line(), 2);
    /// ```
    pub fn line(&self) -> usize {
        self.line
    }

    /// Attaches this reader's source name and current line to an error about the
    /// current record (used for errors found after parsing, such as a misaligned
    /// address).
    ///
    /// An error that is already located is located again, at the current line.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::corpus;
    ///
    /// let text = "{\"arch\":\"sm_90\",\"op\":\"stsm\",\"width\":5,\"offsets\":[]}\n";
    /// let mut records = corpus::read(text.as_bytes(), "bad.jsonl");
    /// let record = records.next().unwrap()?;
    /// let err = records.locate(record.operation().unwrap_err());
    /// assert_eq!(err.to_string(), "bad.jsonl:1: stsm needs 1, 2 or 4 matrices, not 5");
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn locate(&self, err: Error) -> Error {
        let reason = match err {
            Error::InvalidRecord { reason } | Error::MalformedRecord { reason, .. } => reason,
            other => other.to_string(),
        };
        Error::MalformedRecord {
            source_name: self.source_name.clone(),
            line: self.line,
            reason,
        }
    }
}

impl<R: BufRead> Iterator for Records<R> {
    type Item = Result<Record, Error>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if self.failed {
                return None;
            }
            // At most the limit and one byte more: a longer line is an error
            // as soon as the limit is passed, never read whole.
            let mut bytes = Vec::new();
            let read = (&mut self.reader)
                .take(MAX_LINE_BYTES as u64 + 1)
                .read_until(b'\n', &mut bytes);
            self.line += 1;
            match read {
                Ok(0) => return None,
                Ok(_) => {}
                // Any failure of the reader tends to repeat forever: report
                // it once and stop.
                Err(err) => {
                    self.failed = true;
                    return Some(Err(self.locate(bad(format!("cannot read: {err}")))));
                }
            }
            if bytes.last() == Some(&b'\n') {
                bytes.pop();
            } else if bytes.len() > MAX_LINE_BYTES {
                // The rest of the line is not read, so neither is the source.
                self.failed = true;
                return Some(Err(Error::LineTooLong {
                    source_name: self.source_name.clone(),
                    line: self.line,
                    limit: MAX_LINE_BYTES,
                }));
            }
            // A line that is not UTF-8 has been consumed: report it and go on.
            let text = match String::from_utf8(bytes) {
                Ok(text) => text,
                Err(_) => {
                    return Some(Err(self.locate(bad(
                        "cannot read: stream did not contain valid UTF-8".into(),
                    ))))
                }
            };
            if text.trim().is_empty() {
                continue;
            }
            return Some(Record::from_json(&text).map_err(|err| self.locate(err)));
        }
    }
}

/// Exact predictions per (op, width), and the mismatches, over any number of records.
///
/// What `smem verify` prints: one row per kind of instruction, so that a rule
/// that is wrong for one width stands out.
///
/// # Example
///
/// ```
/// use smem_model::corpus::{Record, Summary};
///
/// # // s[2 * lane] on floats, measured on an H100 (tests/data/hw-corpus/sm90-calib.jsonl).
/// # let stride2 = r#"{"arch":"sm_90","gpu":"H100 80GB HBM3","group":"stride2","op":"ld","width":4,"offsets":[0,8,16,24,32,40,48,56,64,72,80,88,96,104,112,120,128,136,144,152,160,168,176,184,192,200,208,216,224,232,240,248],"wavefronts":2,"ncu_bank_conflicts":1}"#;
/// let measured = Record::from_json(stride2)?;
/// let mut misread = measured.clone();
/// misread.wavefronts = Some(3);
///
/// let mut summary = Summary::default();
/// for record in [&measured, &misread] {
///     let check = record.check(None)?;
///     summary.add(record, &check);
/// }
/// assert_eq!((summary.exact(), summary.total()), (1, 2));
/// let (record, check) = &summary.mismatches()[0];
/// assert_eq!((record.wavefronts, check.wavefronts), (Some(3), 2));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Default)]
pub struct Summary {
    rows: BTreeMap<(RecordKind, String, u32), (usize, usize)>,
    mismatches: Vec<(Record, Check)>,
    /// Records of which nothing was compared ([`Check::compared`]), by kind.
    not_compared: BTreeMap<RecordKind, usize>,
}

impl Summary {
    /// Counts one checked record.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::corpus::{self, Record, RecordKind, Summary};
    ///
    /// // A line of tests/data/hw-corpus/sm90-calib.jsonl: ldmatrix.x1, 2 wavefronts.
    /// let line = r#"{"arch":"sm_90","gpu":"H100 80GB HBM3","group":"rand256","op":"ldsm","width":1,"offsets":[224,176,48,0,160,96,192,32,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1],"wavefronts":2,"ncu_bank_conflicts":1}"#;
    /// let record = Record::from_json(line)?;
    /// let mut summary = Summary::default();
    /// summary.add(&record, &record.check(None)?);
    /// assert_eq!((summary.exact(), summary.total()), (1, 1));
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn add(&mut self, record: &Record, check: &Check) {
        // Nothing measured was compared: neither exact nor a mismatch.
        if !check.compared() {
            *self.not_compared.entry(check.kind).or_default() += 1;
            return;
        }
        let row = self
            .rows
            .entry((check.kind, record.label(), record.width))
            .or_default();
        row.1 += 1;
        if check.is_exact() {
            row.0 += 1;
        } else {
            self.mismatches.push((record.clone(), check.clone()));
        }
    }

    /// `(op, width, exact, total)` for each op and width seen, sorted.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::corpus::{Record, Summary};
    ///
    /// # // s[2 * lane] on floats, measured on an H100 (tests/data/hw-corpus/sm90-calib.jsonl).
    /// # let stride2 = r#"{"arch":"sm_90","gpu":"H100 80GB HBM3","group":"stride2","op":"ld","width":4,"offsets":[0,8,16,24,32,40,48,56,64,72,80,88,96,104,112,120,128,136,144,152,160,168,176,184,192,200,208,216,224,232,240,248],"wavefronts":2,"ncu_bank_conflicts":1}"#;
    /// # let uniform = r#"{"arch":"sm_90","gpu":"H200","group":"uniform","op":"ld","width":8,"offsets":[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0],"wavefronts":1,"ncu_bank_conflicts":0}"#;
    /// let mut summary = Summary::default();
    /// for line in [uniform, stride2, stride2] {
    ///     let record = Record::from_json(line)?;
    ///     summary.add(&record, &record.check(None)?);
    /// }
    /// let rows: Vec<_> = summary.rows().collect();
    /// assert_eq!(rows, [("ld", 4, 2, 2), ("ld", 8, 1, 1)]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn rows(&self) -> impl Iterator<Item = (&str, u32, usize, usize)> + '_ {
        self.rows
            .iter()
            .map(|((_, op, width), (exact, total))| (op.as_str(), *width, *exact, *total))
    }

    /// `(kind, op, width, exact, total)` for each kind, op ([`Record::label`])
    /// and width seen, sorted by kind.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::corpus::{self, Record, RecordKind, Summary};
    ///
    /// // A line of tests/data/hw-corpus/sm90-calib.jsonl: ldmatrix.x1, 2 wavefronts.
    /// let line = r#"{"arch":"sm_90","gpu":"H100 80GB HBM3","group":"rand256","op":"ldsm","width":1,"offsets":[224,176,48,0,160,96,192,32,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1],"wavefronts":2,"ncu_bank_conflicts":1}"#;
    /// let record = Record::from_json(line)?;
    /// let mut summary = Summary::default();
    /// summary.add(&record, &record.check(None)?);
    /// let rows: Vec<_> = summary.rows_by_kind().collect();
    /// assert_eq!(rows, [(RecordKind::Access, "ldsm", 1, 1, 1)]);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn rows_by_kind(&self) -> impl Iterator<Item = (RecordKind, &str, u32, usize, usize)> + '_ {
        self.rows
            .iter()
            .map(|((kind, op, width), (exact, total))| (*kind, op.as_str(), *width, *exact, *total))
    }

    /// `(kind, exact, total)` for each kind seen, in kind order.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::corpus::{Record, RecordKind, Summary};
    ///
    /// let line = r#"{"arch":"sm_90","op":"st","width":4,"offsets":[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0],"winners":[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0],"runs":8}"#;
    /// let record = Record::from_json(line)?;
    /// let mut summary = Summary::default();
    /// summary.add(&record, &record.check(None)?);
    /// assert_eq!(summary.kinds(), [(RecordKind::Winners, 1, 1)]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn kinds(&self) -> Vec<(RecordKind, usize, usize)> {
        let mut kinds: Vec<(RecordKind, usize, usize)> = Vec::new();
        for ((kind, _, _), (exact, total)) in &self.rows {
            match kinds.last_mut() {
                Some(last) if last.0 == *kind => {
                    last.1 += exact;
                    last.2 += total;
                }
                _ => kinds.push((*kind, *exact, *total)),
            }
        }
        kinds
    }

    /// The records whose prediction differs from the measurement, in input order.
    ///
    /// A record without measured wavefronts counts as a mismatch too (see
    /// [`Check::is_exact`]): it was not confirmed.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::corpus::{Record, Summary};
    ///
    /// # // s[2 * lane] on floats, measured on an H100 (tests/data/hw-corpus/sm90-calib.jsonl).
    /// # let stride2 = r#"{"arch":"sm_90","gpu":"H100 80GB HBM3","group":"stride2","op":"ld","width":4,"offsets":[0,8,16,24,32,40,48,56,64,72,80,88,96,104,112,120,128,136,144,152,160,168,176,184,192,200,208,216,224,232,240,248],"wavefronts":2,"ncu_bank_conflicts":1}"#;
    /// let mut unmeasured = Record::from_json(stride2)?;
    /// unmeasured.wavefronts = None;
    /// let mut summary = Summary::default();
    /// summary.add(&unmeasured, &unmeasured.check(None)?);
    /// assert_eq!(summary.mismatches().len(), 1);
    /// assert_eq!(summary.exact(), 0);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn mismatches(&self) -> &[(Record, Check)] {
        &self.mismatches
    }

    /// Records predicted exactly.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::corpus::{self, Record, RecordKind, Summary};
    ///
    /// // A line of tests/data/hw-corpus/sm90-calib.jsonl: ldmatrix.x1, 2 wavefronts.
    /// let line = r#"{"arch":"sm_90","gpu":"H100 80GB HBM3","group":"rand256","op":"ldsm","width":1,"offsets":[224,176,48,0,160,96,192,32,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1],"wavefronts":2,"ncu_bank_conflicts":1}"#;
    /// let record = Record::from_json(line)?;
    /// let mut summary = Summary::default();
    /// summary.add(&record, &record.check(None)?);
    /// assert_eq!(summary.exact(), 1);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn exact(&self) -> usize {
        self.rows.values().map(|row| row.0).sum()
    }

    /// Records checked.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::corpus::{self, Record, RecordKind, Summary};
    ///
    /// // A line of tests/data/hw-corpus/sm90-calib.jsonl: ldmatrix.x1, 2 wavefronts.
    /// let line = r#"{"arch":"sm_90","gpu":"H100 80GB HBM3","group":"rand256","op":"ldsm","width":1,"offsets":[224,176,48,0,160,96,192,32,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1],"wavefronts":2,"ncu_bank_conflicts":1}"#;
    /// let record = Record::from_json(line)?;
    /// let mut summary = Summary::default();
    /// summary.add(&record, &record.check(None)?);
    /// assert_eq!(summary.total(), 1);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn total(&self) -> usize {
        self.rows.values().map(|row| row.1).sum()
    }

    /// Records of which nothing was compared ([`Check::compared`]): counted
    /// neither in [`exact`](Self::exact) nor in [`total`](Self::total).
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::corpus::{Record, Summary};
    ///
    /// let offsets: Vec<String> = (0..32).map(|lane| (8 * lane).to_string()).collect();
    /// let line = format!(
    ///     r#"{{"arch":"sm_90","op":"ld","width":8,"offsets":[{}],"measure":"throughput","cycles_per_instruction":{{"warps_4":2.5}}}}"#,
    ///     offsets.join(",")
    /// );
    /// let record = Record::from_json(&line)?;
    /// let mut summary = Summary::default();
    /// summary.add(&record, &record.check(None)?);
    /// assert_eq!((summary.exact(), summary.total(), summary.not_compared()), (0, 0, 1));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn not_compared(&self) -> usize {
        self.not_compared.values().sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{self, BufReader, Read};

    /// A reader whose every read fails, as a dying disk would.
    struct Failing;

    impl Read for Failing {
        fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
            Err(io::Error::other("device error"))
        }
    }

    #[test]
    fn a_failing_reader_is_one_error_then_the_end() {
        let mut records = read(BufReader::new(Failing), "disk");
        let err = records.next().unwrap().unwrap_err();
        assert_eq!(err.to_string(), "disk:1: cannot read: device error");
        assert!(records.next().is_none());
    }

    #[test]
    fn a_timing_key_other_than_warps_n_names_the_field() {
        let offsets: Vec<String> = (0..32).map(|lane| (4 * lane).to_string()).collect();
        for (key, ok) in [
            ("warps_12", true),
            ("warps_0", false),
            ("warps_33", false),
            ("lanes_4", false),
        ] {
            let line = format!(
                r#"{{"arch":"sm_90","op":"ld","measure":"throughput","width":4,"offsets":[{}],"cycles_per_instruction":{{"{key}":1.0}}}}"#,
                offsets.join(",")
            );
            let check = Record::from_json(&line).unwrap().check(None);
            if ok {
                assert!(check.unwrap().is_exact(), "{key}");
            } else {
                assert_eq!(
                    check.unwrap_err().to_string(),
                    format!("field `cycles_per_instruction`: key `{key}` is not `warps_N` with N from 1 to 32")
                );
            }
        }
    }

    #[test]
    fn misaligned_offsets_are_named_as_written() {
        let mut offsets = vec![-1i64; 32];
        offsets[3] = 14;
        let record = Record {
            arch: "sm_90".into(),
            gpu: None,
            group: None,
            label: None,
            op: "ld".into(),
            width: 4,
            offsets,
            wavefronts: Some(1),
            ncu_bank_conflicts: None,
            ..Record::default()
        };
        let err = record.request(ComputeCapability::Sm90).unwrap_err();
        assert_eq!(
            err.to_string(),
            "misaligned address: lane 3 accesses 4 bytes at offset 14 (shared address 0x40e), which is not a multiple of 4"
        );
    }
}

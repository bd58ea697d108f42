//! Hardware corpora: measured warp accesses, one JSON object a line.
//!
//! The format (the design reference, section 6):
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
use std::io::BufRead;

use serde::{Deserialize, Serialize};

use crate::{BankConfig, ComputeCapability, Error, Matrices, Op, WarpRequest, WARP_SIZE};

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
/// };
/// let json = serde_json::to_string(&todo)?;
/// assert_eq!(Record::from_json(&json)?, todo);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
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
}

/// The model's prediction for a record, beside the measurement.
///
/// # Example
///
/// ```
/// use smem_model::corpus::{Check, Record};
///
/// // s[2 * lane] on floats, measured on an H100: 2 wavefronts, 1 bank conflict.
/// let line = r#"{"arch":"sm_90","gpu":"H100 80GB HBM3","group":"stride2","op":"ld","width":4,"offsets":[0,8,16,24,32,40,48,56,64,72,80,88,96,104,112,120,128,136,144,152,160,168,176,184,192,200,208,216,224,232,240,248],"wavefronts":2,"ncu_bank_conflicts":1}"#;
/// let check = Record::from_json(line)?.check(None)?;
/// assert_eq!(
///     check,
///     Check {
///         wavefronts: 2,
///         bank_conflicts: 1,
///         measured_wavefronts: Some(2),
///         measured_bank_conflicts: Some(1),
///     }
/// );
/// assert!(check.is_exact());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Check {
    /// Predicted wavefronts.
    pub wavefronts: u32,
    /// Predicted bank conflicts.
    pub bank_conflicts: u32,
    /// Measured wavefronts, if the record has them.
    pub measured_wavefronts: Option<u32>,
    /// Measured bank conflicts, if the record has them.
    pub measured_bank_conflicts: Option<u32>,
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
        self.measured_wavefronts == Some(self.wavefronts)
            && self
                .measured_bank_conflicts
                .is_none_or(|measured| measured == self.bank_conflicts)
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
            "atom" => Op::ATOMIC_ADD,
            "ldsm" => Op::LdMatrix(matrices()?),
            "stsm" => Op::StMatrix(matrices()?),
            other => {
                return Err(bad(format!(
                    "unknown op {other:?}: expected ld, st, atom, ldsm or stsm"
                )))
            }
        })
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
        let request = self.request(capability)?;
        let partition = BankConfig::new(capability).partition(&request)?;
        Ok(Check {
            wavefronts: partition.wavefronts(),
            bank_conflicts: partition.bank_conflicts(),
            measured_wavefronts: self.wavefronts,
            measured_bank_conflicts: self.ncu_bank_conflicts,
        })
    }
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
        lines: reader.lines(),
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
    lines: std::io::Lines<R>,
    source_name: String,
    line: usize,
    failed: bool,
}

impl<R> Records<R> {
    /// The line number of the record last returned, counting from 1.
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
            let line = self.lines.next()?;
            self.line += 1;
            let text = match line {
                Ok(text) => text,
                // A line that is not UTF-8 has been consumed: report it and go
                // on. Any other failure tends to repeat forever: report it once
                // and stop.
                Err(err) => {
                    self.failed = err.kind() != std::io::ErrorKind::InvalidData;
                    return Some(Err(self.locate(bad(format!("cannot read: {err}")))));
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
    rows: BTreeMap<(String, u32), (usize, usize)>,
    mismatches: Vec<(Record, Check)>,
}

impl Summary {
    /// Counts one checked record.
    pub fn add(&mut self, record: &Record, check: &Check) {
        let row = self
            .rows
            .entry((record.op.clone(), record.width))
            .or_default();
        row.1 += 1;
        if check.is_exact() {
            row.0 += 1;
        } else {
            self.mismatches.push((record.clone(), *check));
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
            .map(|((op, width), (exact, total))| (op.as_str(), *width, *exact, *total))
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
    pub fn exact(&self) -> usize {
        self.rows.values().map(|row| row.0).sum()
    }

    /// Records checked.
    pub fn total(&self) -> usize {
        self.rows.values().map(|row| row.1).sum()
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
        };
        let err = record.request(ComputeCapability::Sm90).unwrap_err();
        assert_eq!(
            err.to_string(),
            "misaligned address: lane 3 accesses 4 bytes at offset 14 (shared address 0x40e), which is not a multiple of 4"
        );
    }
}

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
    pub fn is_exact(&self) -> bool {
        self.measured_wavefronts == Some(self.wavefronts)
            && self
                .measured_bank_conflicts
                .map_or(true, |measured| measured == self.bank_conflicts)
    }
}

impl Record {
    /// Parses one line.
    ///
    /// # Errors
    ///
    /// A description of what is wrong, from `serde_json`.
    pub fn from_json(line: &str) -> Result<Record, String> {
        // One record is one line, so serde's "at line 1" only confuses.
        serde_json::from_str(line)
            .map_err(|err| err.to_string().replace(" at line 1 column ", " at column "))
    }

    /// The capability named by `arch`.
    ///
    /// # Errors
    ///
    /// [`Error::UnknownCapability`].
    pub fn capability(&self) -> Result<ComputeCapability, Error> {
        self.arch.parse()
    }

    /// The op named by `op` (with `width` for the matrix ops).
    ///
    /// # Errors
    ///
    /// [`Error::InvalidRecord`] when `op` is unknown or a matrix
    /// op has a matrix count other than 1, 2 or 4.
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
            "atom" => Op::Atomic,
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
    pub fn request(&self, capability: ComputeCapability) -> Result<WarpRequest, Error> {
        let op = self.operation()?;
        let width = op.fixed_width().map_or(self.width, |w| w.bytes());
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
    /// [`BankConfig::partition`].
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
pub fn read<R: BufRead>(reader: R, source_name: &str) -> Records<R> {
    Records {
        lines: reader.lines(),
        source_name: source_name.to_owned(),
        line: 0,
        failed: false,
    }
}

/// The records of a corpus, from [`read`].
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
            return Some(Record::from_json(&text).map_err(|reason| self.locate(bad(reason))));
        }
    }
}

/// Exact predictions per (op, width), and the mismatches, over any number of records.
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
    pub fn rows(&self) -> impl Iterator<Item = (&str, u32, usize, usize)> + '_ {
        self.rows
            .iter()
            .map(|((op, width), (exact, total))| (op.as_str(), *width, *exact, *total))
    }

    /// The records whose prediction differs from the measurement, in input order.
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

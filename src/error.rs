//! The crate's one error type.

use crate::{ComputeCapability, Op};

/// Everything that can go wrong when building or partitioning a request, or when
/// reading a corpus.
///
/// Each variant carries the numbers involved, and its message is one lowercase
/// sentence naming the quantity and the limit it broke.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A compute-capability name that is malformed or names no capability.
    #[error(
        "unknown compute capability {given:?}: expected a form like \"8.6\", \"sm_86\", \
         \"sm_90a\" or \"compute_86\" naming a CUDA compute capability from 1.0 to 12.1"
    )]
    UnknownCapability {
        /// The text that was given.
        given: String,
    },

    /// An access width other than 1, 2, 4, 8 or 16 bytes.
    #[error("access width of {width} bytes is not supported: expected 1, 2, 4, 8 or 16")]
    InvalidWidth {
        /// The width given, in bytes.
        width: u32,
    },

    /// An operation that only exists with one access width was given another one
    /// (atomics are 4 bytes, `ldmatrix`/`stmatrix` row addresses 16 bytes).
    #[error("{op} accesses {expected} bytes per lane, but an access width of {width} bytes was given")]
    WidthMismatch {
        /// The operation.
        op: Op,
        /// The width given, in bytes.
        width: u32,
        /// The only width the operation has, in bytes.
        expected: u32,
    },

    /// A lane's address is not a multiple of the access width: on hardware, the
    /// instruction faults with "misaligned address".
    #[error("misaligned address: lane {lane} accesses {width} bytes at {address:#x}, which is not a multiple of {width}")]
    Misaligned {
        /// The lane.
        lane: u8,
        /// Its byte address.
        address: u32,
        /// The access width in bytes.
        width: u32,
    },

    /// A lane's access runs past the end of the 32-bit shared address space.
    #[error("lane {lane} accesses {width} bytes at {address:#x}, past the end of the 32-bit address space")]
    AddressOverflow {
        /// The lane.
        lane: u8,
        /// Its byte address.
        address: u32,
        /// The access width in bytes.
        width: u32,
    },

    /// A lane's access runs past the end of the largest shared window a block of
    /// the capability can address.
    #[error(
        "lane {lane} accesses bytes {address:#x} to {end:#x}, past the end of the {window}-byte \
         shared window of compute capability {capability}"
    )]
    OutsideWindow {
        /// The lane.
        lane: u8,
        /// Its byte address.
        address: u32,
        /// One past the last byte it accesses.
        end: u64,
        /// The window size in bytes ([`ComputeCapability::shared_window_size`]).
        window: u32,
        /// The capability.
        capability: ComputeCapability,
    },

    /// An operation the compute capability does not have.
    #[error("{op} does not exist on compute capability {capability}: it needs {required} or later")]
    UnsupportedOp {
        /// The operation.
        op: Op,
        /// The capability that lacks it.
        capability: ComputeCapability,
        /// The first capability that has it.
        required: ComputeCapability,
    },

    /// A request built from a slice or an iterator that did not hold 32 lanes.
    #[error("a warp has 32 lanes, but {given} addresses were given")]
    LaneCount {
        /// How many lanes were given.
        given: usize,
    },

    /// A lane number of 32 or more.
    #[error("lane {lane} does not exist: a warp has lanes 0 to 31")]
    LaneOutOfRange {
        /// The lane number given.
        lane: u32,
    },

    /// A corpus line that could not be read.
    #[error("{source_name}:{line}: {reason}")]
    MalformedRecord {
        /// The file (or other source) the line came from.
        source_name: String,
        /// The line number, counting from 1.
        line: usize,
        /// What is wrong with it.
        reason: String,
    },
}

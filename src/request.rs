//! Warp-wide shared-memory requests: one instruction, 32 lanes.

use core::fmt;

use smallvec::SmallVec;

use crate::lane::WARP_SIZE;
use crate::{Error, Lane, LaneSet};

/// The number of 8x8 matrices an `ldmatrix`/`stmatrix` instruction moves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Matrices {
    /// `.x1`: one matrix; lanes 0-7 give the row addresses.
    X1,
    /// `.x2`: two matrices; lanes 0-15 give the row addresses.
    X2,
    /// `.x4`: four matrices; lanes 0-31 give the row addresses.
    X4,
}

impl Matrices {
    /// The number of matrices: 1, 2 or 4.
    pub const fn count(self) -> u32 {
        match self {
            Matrices::X1 => 1,
            Matrices::X2 => 2,
            Matrices::X4 => 4,
        }
    }

    /// The form with `count` matrices, if there is one.
    pub const fn from_count(count: u32) -> Option<Self> {
        match count {
            1 => Some(Matrices::X1),
            2 => Some(Matrices::X2),
            4 => Some(Matrices::X4),
            _ => None,
        }
    }

    /// The lanes whose addresses the instruction reads: `0..8 * count`.
    pub const fn address_lanes(self) -> LaneSet {
        LaneSet::range(0, 8 * self.count())
    }
}

/// The operation of a shared-memory instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Op {
    /// A load (`LDS`, `ld.shared`).
    Load,
    /// A store (`STS`, `st.shared`).
    Store,
    /// A 32-bit atomic read-modify-write (`ATOMS`, `atom.shared.*.b32`).
    Atomic,
    /// `ldmatrix.sync.aligned.m8n8` (`LDSM`): loads 8x8 matrices of 16-bit
    /// elements, each row 16 bytes at an address given by one lane.
    LdMatrix(Matrices),
    /// `stmatrix.sync.aligned.m8n8` (`STSM`): the store counterpart of `LdMatrix`.
    StMatrix(Matrices),
}

impl Op {
    /// Whether the op writes shared memory.
    pub const fn writes(self) -> bool {
        matches!(self, Op::Store | Op::Atomic | Op::StMatrix(_))
    }

    /// The only width the op has, if it has only one.
    pub const fn fixed_width(self) -> Option<AccessWidth> {
        match self {
            Op::Load | Op::Store => None,
            Op::Atomic => Some(AccessWidth::B4),
            Op::LdMatrix(_) | Op::StMatrix(_) => Some(AccessWidth::B16),
        }
    }

    /// The lanes whose addresses the op uses: all 32, except for the matrix ops.
    pub const fn address_lanes(self) -> LaneSet {
        match self {
            Op::Load | Op::Store | Op::Atomic => LaneSet::FULL,
            Op::LdMatrix(m) | Op::StMatrix(m) => m.address_lanes(),
        }
    }
}

impl fmt::Display for Op {
    /// Writes the SASS mnemonic family: `LDS`, `STS`, `ATOMS`, `LDSM.x4`, `STSM.x2`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Op::Load => f.write_str("LDS"),
            Op::Store => f.write_str("STS"),
            Op::Atomic => f.write_str("ATOMS"),
            Op::LdMatrix(m) => write!(f, "LDSM.x{}", m.count()),
            Op::StMatrix(m) => write!(f, "STSM.x{}", m.count()),
        }
    }
}

/// The bytes each lane accesses: 1, 2, 4, 8 or 16.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(into = "u32", try_from = "u32"))]
pub enum AccessWidth {
    /// 8 bits (`char`).
    B1,
    /// 16 bits (`short`, `half`).
    B2,
    /// 32 bits (`int`, `float`).
    B4,
    /// 64 bits (`double`, `float2`).
    B8,
    /// 128 bits (`float4`).
    B16,
}

impl AccessWidth {
    /// The width of `bytes` bytes.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidWidth`] unless `bytes` is 1, 2, 4, 8 or 16.
    pub const fn from_bytes(bytes: u32) -> Result<Self, Error> {
        Ok(match bytes {
            1 => AccessWidth::B1,
            2 => AccessWidth::B2,
            4 => AccessWidth::B4,
            8 => AccessWidth::B8,
            16 => AccessWidth::B16,
            width => return Err(Error::InvalidWidth { width }),
        })
    }

    /// The width in bytes.
    pub const fn bytes(self) -> u32 {
        match self {
            AccessWidth::B1 => 1,
            AccessWidth::B2 => 2,
            AccessWidth::B4 => 4,
            AccessWidth::B8 => 8,
            AccessWidth::B16 => 16,
        }
    }
}

impl TryFrom<u32> for AccessWidth {
    type Error = Error;
    fn try_from(bytes: u32) -> Result<Self, Error> {
        AccessWidth::from_bytes(bytes)
    }
}

impl From<AccessWidth> for u32 {
    fn from(width: AccessWidth) -> u32 {
        width.bytes()
    }
}

/// One warp-wide shared-memory instruction: its op, its access width, and for
/// each of the 32 lanes a byte address in the shared window, or nothing when the
/// lane is inactive.
///
/// Construction checks what does not depend on the compute capability: the width,
/// the alignment of every active address (the hardware faults on a misaligned
/// one) and 32-bit overflow. What depends on it (the op's availability, the size
/// of the shared window) is checked by [`BankConfig::partition`](crate::BankConfig::partition).
///
/// For `ldmatrix`/`stmatrix` only lanes `0..8 * matrices` give addresses, as in
/// PTX; the other lanes' addresses are ignored and those lanes are inactive.
///
/// A request with no active lane is valid: it takes no wavefront.
///
/// # Example
///
/// ```
/// use smem_model::{LaneSet, Op, WarpRequest};
///
/// // From a closure of the lane: `s[lane]` on floats.
/// let a = WarpRequest::from_fn(Op::Load, 4, |lane| Some(lane.get() * 4))?;
/// // From an array, with an inactive lane.
/// let mut addrs = [Some(0); 32];
/// addrs[3] = None;
/// let b = WarpRequest::new(Op::Store, 4, addrs)?;
/// assert_eq!(b.active().len(), 31);
/// // From an iterator, then restricted to the lower half-warp.
/// let c = WarpRequest::try_from_iter(Op::Load, 8, (0..32).map(|i| Some(i * 8)))?
///     .with_mask(LaneSet::from_bits(0xffff));
/// assert_eq!(c.active().len(), 16);
/// # let _ = a;
/// # Ok::<(), smem_model::Error>(())
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct WarpRequest {
    op: Op,
    width: AccessWidth,
    active: LaneSet,
    addresses: [u32; WARP_SIZE],
}

impl WarpRequest {
    /// A request from one optional address per lane.
    ///
    /// # Errors
    ///
    /// - [`Error::InvalidWidth`] when `width` is not 1, 2, 4, 8 or 16.
    /// - [`Error::WidthMismatch`] when `op` has a fixed width (4 for atomics, 16 for
    ///   the matrix ops) and `width` is another.
    /// - [`Error::Misaligned`] when an active lane's address is not a multiple of
    ///   `width`.
    /// - [`Error::AddressOverflow`] when an active lane's access runs past
    ///   `u32::MAX`.
    pub fn new(op: Op, width: u32, addresses: [Option<u32>; WARP_SIZE]) -> Result<Self, Error> {
        Self::from_fn(op, width, |lane| addresses[lane.index()])
    }

    /// A request from a slice of exactly 32 optional addresses.
    ///
    /// # Errors
    ///
    /// [`Error::LaneCount`] when the slice does not hold 32 entries; otherwise as
    /// [`new`](Self::new).
    pub fn from_slice(op: Op, width: u32, addresses: &[Option<u32>]) -> Result<Self, Error> {
        let addresses: &[Option<u32>; WARP_SIZE] = addresses.try_into().map_err(|_| {
            Error::LaneCount {
                given: addresses.len(),
            }
        })?;
        Self::new(op, width, *addresses)
    }

    /// A request whose lane `l` has the address `f(l)`, or is inactive when `f`
    /// returns `None`.
    ///
    /// # Errors
    ///
    /// As [`new`](Self::new).
    pub fn from_fn(
        op: Op,
        width: u32,
        mut f: impl FnMut(Lane) -> Option<u32>,
    ) -> Result<Self, Error> {
        let width = AccessWidth::from_bytes(width)?;
        if let Some(expected) = op.fixed_width() {
            if expected != width {
                return Err(Error::WidthMismatch {
                    op,
                    width: width.bytes(),
                    expected: expected.bytes(),
                });
            }
        }
        let mut request = WarpRequest {
            op,
            width,
            active: LaneSet::EMPTY,
            addresses: [0; WARP_SIZE],
        };
        let address_lanes = op.address_lanes();
        for lane in Lane::all() {
            let Some(address) = f(lane) else { continue };
            if !address_lanes.contains(lane) {
                continue;
            }
            check_address(lane, address, width)?;
            request.addresses[lane.index()] = address;
            request.active.insert(lane);
        }
        Ok(request)
    }

    /// A request from an iterator of exactly 32 optional addresses.
    ///
    /// # Errors
    ///
    /// [`Error::LaneCount`] when the iterator does not yield 32 items; otherwise
    /// as [`new`](Self::new).
    pub fn try_from_iter(
        op: Op,
        width: u32,
        addresses: impl IntoIterator<Item = Option<u32>>,
    ) -> Result<Self, Error> {
        let addresses: SmallVec<[Option<u32>; WARP_SIZE]> = addresses.into_iter().collect();
        Self::from_slice(op, width, &addresses)
    }

    /// The same request with every lane outside `mask` made inactive.
    pub fn with_mask(mut self, mask: LaneSet) -> Self {
        self.active = self.active.intersection(mask);
        self
    }

    /// The operation.
    pub const fn op(&self) -> Op {
        self.op
    }

    /// The access width of each lane.
    pub const fn width(&self) -> AccessWidth {
        self.width
    }

    /// The active lanes.
    pub const fn active(&self) -> LaneSet {
        self.active
    }

    /// The address of `lane`, or `None` when it is inactive.
    pub fn address(&self, lane: Lane) -> Option<u32> {
        self.active.contains(lane).then(|| self.addresses[lane.index()])
    }

    /// Each active lane with its address, in lane order.
    pub fn active_addresses(&self) -> impl Iterator<Item = (Lane, u32)> + '_ {
        self.active.iter().map(|lane| (lane, self.addresses[lane.index()]))
    }

    /// The 32 lanes' addresses as an array, `None` for inactive lanes.
    pub fn to_array(&self) -> [Option<u32>; WARP_SIZE] {
        core::array::from_fn(|i| self.address(Lane::from_index(i)))
    }

    /// The addresses as stored, inactive lanes included (their value is
    /// meaningless); for the scheduler's tight loops.
    pub(crate) const fn raw_addresses(&self) -> &[u32; WARP_SIZE] {
        &self.addresses
    }

    /// Lanes that write the same bytes in this instruction.
    ///
    /// When several lanes of one store write the same location, exactly one write
    /// lands and which one is undefined (CUDA C++ Programming Guide, shared-memory
    /// section of the compute-capability appendix). Accesses are aligned and of one
    /// width, so two lanes write the same bytes exactly when their addresses are
    /// equal; each collision is one such address with its lanes, in address order
    /// of first appearance (lowest lane first).
    ///
    /// Loads and atomics never collide: loads broadcast, and atomics are applied
    /// one after another.
    ///
    /// ```
    /// use smem_model::{Op, StoreOrder, WarpRequest};
    ///
    /// // Every lane stores to s[lane / 8].
    /// let store = WarpRequest::from_fn(Op::Store, 4, |lane| Some(lane.get() / 8 * 4))?;
    /// let collisions = store.write_collisions();
    /// assert_eq!(collisions.len(), 4);
    /// assert_eq!(collisions[1].address(), 4);
    /// assert_eq!(collisions[1].lanes().to_string(), "8-15");
    /// assert_eq!(collisions[1].winner(StoreOrder::HighestLane).map(|l| l.get()), Some(15));
    /// assert_eq!(collisions[1].winner(StoreOrder::Undefined), None);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn write_collisions(&self) -> SmallVec<[WriteCollision; 16]> {
        let mut collisions: SmallVec<[WriteCollision; 16]> = SmallVec::new();
        if !matches!(self.op, Op::Store | Op::StMatrix(_)) {
            return collisions;
        }
        let mut seen = LaneSet::EMPTY;
        for (lane, address) in self.active_addresses() {
            if seen.contains(lane) {
                continue;
            }
            let lanes: LaneSet = self
                .active_addresses()
                .filter(|&(_, other)| other == address)
                .map(|(lane, _)| lane)
                .collect();
            seen = seen.union(lanes);
            if lanes.len() > 1 {
                collisions.push(WriteCollision { address, lanes });
            }
        }
        collisions
    }
}

fn check_address(lane: Lane, address: u32, width: AccessWidth) -> Result<(), Error> {
    let bytes = width.bytes();
    if address % bytes != 0 {
        return Err(Error::Misaligned {
            lane: lane.index() as u8,
            address,
            width: bytes,
        });
    }
    if address.checked_add(bytes - 1).is_none() {
        return Err(Error::AddressOverflow {
            lane: lane.index() as u8,
            address,
            width: bytes,
        });
    }
    Ok(())
}

impl fmt::Debug for WarpRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WarpRequest")
            .field("op", &self.op)
            .field("width", &self.width.bytes())
            .field("addresses", &self.to_array())
            .finish()
    }
}

/// Which write lands when several lanes of one store write the same bytes.
///
/// The hardware gives no guarantee ([`Undefined`](Self::Undefined)); simulators that
/// need a deterministic result pick a lane.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum StoreOrder {
    /// As CUDA specifies: one of the writes lands, which one is undefined.
    #[default]
    Undefined,
    /// The lowest-numbered lane's write lands.
    LowestLane,
    /// The highest-numbered lane's write lands (what a serial loop over the lanes
    /// would leave).
    HighestLane,
}

/// Several lanes of one store writing the same bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct WriteCollision {
    address: u32,
    lanes: LaneSet,
}

impl WriteCollision {
    /// The address written.
    pub const fn address(&self) -> u32 {
        self.address
    }

    /// The lanes writing it: the candidates for the value that lands.
    pub const fn lanes(&self) -> LaneSet {
        self.lanes
    }

    /// The lane whose write lands under `order`, or `None` when it is
    /// [`StoreOrder::Undefined`] (every lane in [`lanes`](Self::lanes) is a
    /// candidate).
    pub fn winner(&self, order: StoreOrder) -> Option<Lane> {
        match order {
            StoreOrder::Undefined => None,
            StoreOrder::LowestLane => self.lanes.first(),
            StoreOrder::HighestLane => self.lanes.last(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matrix_ops_ignore_lanes_past_their_rows() {
        let x1 = WarpRequest::from_fn(Op::LdMatrix(Matrices::X1), 16, |l| Some(l.get() * 16))
            .unwrap();
        assert_eq!(x1.active(), LaneSet::range(0, 8));
        // An unaligned address in an ignored lane is not an error: PTX never reads it.
        let x2 = WarpRequest::from_fn(Op::StMatrix(Matrices::X2), 16, |l| {
            Some(if l.get() < 16 { l.get() * 16 } else { 3 })
        })
        .unwrap();
        assert_eq!(x2.active(), LaneSet::range(0, 16));
    }

    #[test]
    fn loads_and_atomics_have_no_write_collisions() {
        let uniform = |op| WarpRequest::from_fn(op, 4, |_| Some(0)).unwrap();
        assert!(uniform(Op::Load).write_collisions().is_empty());
        assert!(uniform(Op::Atomic).write_collisions().is_empty());
        assert_eq!(uniform(Op::Store).write_collisions().len(), 1);
    }
}

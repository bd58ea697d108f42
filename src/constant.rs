//! Constant memory: a warp's `LDC` / `ld.const` and what the constant cache
//! makes of it.

use crate::lane::WARP_SIZE;
use crate::{AccessWidth, ComputeCapability, Error, Lane, LaneSet, Op, WarpRequest};

/// The bytes of one constant bank: 64 KB per device (CUDA C++ Programming
/// Guide, technical specifications: "constant memory size").
///
/// # Example
///
/// ```
/// use smem_model::CONSTANT_BANK_SIZE;
///
/// // __constant__ float table[16384] fills the bank.
/// assert_eq!(CONSTANT_BANK_SIZE / 4, 16384);
/// ```
pub const CONSTANT_BANK_SIZE: u32 = 64 * 1024;

/// One warp-wide constant-memory load (`LDC`, `ld.const`, or an operand such
/// as `c[0x3][0x10]` read by another instruction).
///
/// The constant cache serves one address at a time: a warp's request is split
/// into as many requests as there are distinct addresses among its active
/// lanes, so a uniform address (every lane reading the same constant) costs
/// one and 32 different addresses cost 32 (CUDA C++ Programming Guide, device
/// memory accesses, constant memory). On compute capability 1.x the split is
/// per half-warp, as for shared memory there: each half-warp pays for its own
/// distinct addresses (CUDA C Programming Guide v4.2, device memory accesses, constant memory).
/// Distinct is per address as the lanes give it, at the access width: two
/// lanes reading different bytes of one word are two requests (a modelling
/// choice; the guide speaks only of addresses).
///
/// # Example
///
/// ```
/// use smem_model::{ComputeCapability, ConstantLoad};
///
/// // __constant__ float coeffs[32];  ... = coeffs[k];  (k uniform): one request
/// let uniform = ConstantLoad::from_fn(4, |_| Some(4 * 7))?;
/// assert_eq!(uniform.requests(ComputeCapability::Sm90), 1);
/// // ... = coeffs[lane]: 32 requests, serialised
/// let per_lane = ConstantLoad::from_fn(4, |lane| Some(4 * lane.get()))?;
/// assert_eq!(per_lane.requests(ComputeCapability::Sm90), 32);
/// // ... = coeffs[lane / 8]: 4 distinct addresses
/// let quarter = ConstantLoad::from_fn(4, |lane| Some(4 * (lane.get() / 8)))?;
/// assert_eq!(quarter.requests(ComputeCapability::Sm90), 4);
/// // On 1.x a uniform address costs one request per half-warp.
/// assert_eq!(uniform.requests(ComputeCapability::Sm13), 2);
/// # Ok::<(), smem_model::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ConstantLoad {
    width: AccessWidth,
    active: LaneSet,
    addresses: [u32; WARP_SIZE],
}

impl ConstantLoad {
    /// A load whose lane `l` reads `width` bytes at offset `f(l)` of the
    /// constant bank, or is inactive when `f` returns `None`.
    ///
    /// # Errors
    ///
    /// - [`Error::InvalidWidth`] unless `width` is 1, 2, 4, 8 or 16.
    /// - [`Error::Misaligned`] when an active lane's address is not a multiple of
    ///   `width`.
    /// - [`Error::OutsideConstantBank`] when an access runs past the 64 KB bank.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{ConstantLoad, Error};
    ///
    /// let err = ConstantLoad::from_fn(4, |_| Some(0xfffc + 4)).unwrap_err();
    /// assert_eq!(
    ///     err.to_string(),
    ///     "lane 0 reads constant bytes 0x10000 to 0x10004, past the end of the 65536-byte constant bank"
    /// );
    /// assert!(matches!(ConstantLoad::from_fn(4, |_| Some(2)), Err(Error::Misaligned { .. })));
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn from_fn(width: u32, f: impl FnMut(Lane) -> Option<u32>) -> Result<Self, Error> {
        Self::from_request(&WarpRequest::from_fn(Op::Load, width, f)?)
    }

    /// The load whose lanes read what the lanes of `request` address, taking
    /// the addresses as offsets in the constant bank (the request's op is
    /// ignored: constant memory is only read).
    ///
    /// # Errors
    ///
    /// [`Error::OutsideConstantBank`] when an access runs past the 64 KB bank.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{ComputeCapability, ConstantLoad, Op, WarpRequest};
    ///
    /// let request = WarpRequest::from_fn(Op::Load, 8, |lane| Some(8 * (lane.get() % 2)))?;
    /// let load = ConstantLoad::from_request(&request)?;
    /// assert_eq!(load.requests(ComputeCapability::Sm80), 2);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn from_request(request: &WarpRequest) -> Result<Self, Error> {
        let width = request.width();
        let mut addresses = [0; WARP_SIZE];
        for (lane, address) in request.active_addresses() {
            let end = u64::from(address) + u64::from(width.bytes());
            if end > u64::from(CONSTANT_BANK_SIZE) {
                return Err(Error::OutsideConstantBank {
                    lane: lane.index() as u8,
                    address,
                    end,
                    limit: CONSTANT_BANK_SIZE,
                });
            }
            addresses[lane.index()] = address;
        }
        Ok(ConstantLoad {
            width,
            active: request.active(),
            addresses,
        })
    }

    /// The bytes each lane reads.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{ComputeCapability, ConstantLoad};
    ///
    /// // c[lane % 4]: four distinct words, four serialised requests.
    /// let load = ConstantLoad::from_fn(4, |lane| Some(4 * (lane.get() % 4)))?;
    /// assert_eq!(load.width().bytes(), 4);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub const fn width(&self) -> AccessWidth {
        self.width
    }

    /// The active lanes.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{ComputeCapability, ConstantLoad};
    ///
    /// // c[lane % 4]: four distinct words, four serialised requests.
    /// let load = ConstantLoad::from_fn(4, |lane| Some(4 * (lane.get() % 4)))?;
    /// assert_eq!(load.active().len(), 32);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub const fn active(&self) -> LaneSet {
        self.active
    }

    /// The distinct addresses of `lanes` (active ones only), in order of
    /// first appearance.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{ConstantLoad, LaneSet};
    ///
    /// let load = ConstantLoad::from_fn(4, |lane| Some(4 * (lane.get() % 3)))?;
    /// assert_eq!(load.distinct_addresses(LaneSet::FULL), [0, 4, 8]);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn distinct_addresses(&self, lanes: LaneSet) -> Vec<u32> {
        let mut seen: Vec<u32> = Vec::new();
        for lane in self.active.intersection(lanes).iter() {
            let address = self.addresses[lane.index()];
            if !seen.contains(&address) {
                seen.push(address);
            }
        }
        seen
    }

    /// The serialised constant-cache requests the warp's load takes: the
    /// number of distinct addresses, summed over half-warps on 1.x.
    ///
    /// A load with no active lane takes none. Whether each request hits the
    /// constant cache (8 KB per SM on most parts) is not modelled.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{ComputeCapability, ConstantLoad};
    ///
    /// // c[lane % 4]: four distinct words, four serialised requests.
    /// let load = ConstantLoad::from_fn(4, |lane| Some(4 * (lane.get() % 4)))?;
    /// assert_eq!(load.requests(ComputeCapability::Sm90), 4);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn requests(&self, capability: ComputeCapability) -> u32 {
        let groups: &[LaneSet] = if capability.major() == 1 {
            &[LaneSet::range(0, 16), LaneSet::range(16, 32)]
        } else {
            &[LaneSet::FULL]
        };
        groups
            .iter()
            .map(|&group| self.distinct_addresses(group).len() as u32)
            .sum()
    }
}

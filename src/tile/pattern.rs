//! Access-pattern builders: the warp requests of the textbook patterns
//! (strided, broadcast, permuted, a lecture's list of (row, bank) pairs),
//! as constructors of [`WarpRequest`].

use crate::{AccessWidth, BankConfig, Error, Lane, Op, WarpRequest, WARP_SIZE};

impl WarpRequest {
    /// `s[base_index + f(lane)]`-style requests: lane `l` accesses element
    /// `f(l)` of `width`-byte elements starting at byte address `base`, or
    /// nothing when `f` returns `None`.
    ///
    /// The element-index form of [`from_fn`](Self::from_fn): the closure is the
    /// array subscript of the kernel.
    ///
    /// # Errors
    ///
    /// - [`Error::SpanOverflow`] when a lane's element runs past the 32-bit
    ///   address space.
    /// - Otherwise as [`new`](Self::new): [`Error::InvalidWidth`],
    ///   [`Error::WidthMismatch`], [`Error::Misaligned`] (when `base` is not a
    ///   multiple of `width`).
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{BankConfig, ComputeCapability, Lane, Op, WarpRequest};
    ///
    /// // extern __shared__ float s[]; v = s[lane ^ 1];
    /// let request = WarpRequest::from_elements(Op::Load, 4, 0x400, |lane| Some(lane.get() ^ 1))?;
    /// assert_eq!(request.address(Lane::new(0)?), Some(0x404));
    /// assert_eq!(BankConfig::new(ComputeCapability::Sm90).wavefronts(&request)?, 1);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn from_elements(
        op: Op,
        width: u32,
        base: u32,
        mut f: impl FnMut(Lane) -> Option<u32>,
    ) -> Result<Self, Error> {
        from_indices(op, width, base, |lane| f(lane).map(u64::from))
    }

    /// `s[stride * lane]` on `width`-byte elements from byte address `base`:
    /// lane `l` at `base + stride * width * l`. The stride is in elements.
    ///
    /// # Errors
    ///
    /// As [`from_elements`](Self::from_elements).
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{BankConfig, ComputeCapability, Op, WarpRequest};
    ///
    /// let sm90 = BankConfig::new(ComputeCapability::Sm90);
    /// // Floats: a stride of s is a gcd(s, 32)-way conflict.
    /// assert_eq!(sm90.wavefronts(&WarpRequest::strided(Op::Load, 4, 0, 2)?)?, 2);
    /// assert_eq!(sm90.wavefronts(&WarpRequest::strided(Op::Load, 4, 0, 3)?)?, 1);
    /// // Doubles, stride 1: two half-warp phases, no conflict.
    /// assert_eq!(sm90.wavefronts(&WarpRequest::strided(Op::Load, 8, 0, 1)?)?, 2);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn strided(op: Op, width: u32, base: u32, stride: u32) -> Result<Self, Error> {
        from_indices(op, width, base, |lane| {
            Some(u64::from(stride) * u64::from(lane.get()))
        })
    }

    /// Every lane on one address: `v = s[i]` with `i` uniform.
    ///
    /// # Errors
    ///
    /// As [`new`](Self::new): [`Error::InvalidWidth`], [`Error::WidthMismatch`],
    /// [`Error::Misaligned`].
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{BankConfig, Classification, ComputeCapability, Op, WarpRequest};
    ///
    /// let sm90 = BankConfig::new(ComputeCapability::Sm90);
    /// let load = WarpRequest::broadcast(Op::Load, 16, 0x400)?;
    /// // A uniform 16-byte load: the quarter-warps merge in pairs, 2 wavefronts.
    /// assert_eq!(sm90.partition(&load)?.classification(), Classification::Broadcast);
    /// assert_eq!(sm90.wavefronts(&load)?, 2);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn broadcast(op: Op, width: u32, address: u32) -> Result<Self, Error> {
        WarpRequest::from_fn(op, width, |_| Some(address))
    }

    /// A random permutation of 32 consecutive `width`-byte elements from
    /// `base`: lane `l` accesses element `p(l)` where `p` is a permutation of
    /// 0..32 drawn from `seed`.
    ///
    /// Deterministic: the same seed gives the same permutation on every
    /// platform and version of this crate. The permutation is a Fisher-Yates
    /// shuffle driven by SplitMix64 (Steele, Lea and Flood, 2014) seeded with
    /// `seed`; the index is drawn as `next() % (i + 1)`, whose bias (below
    /// 2^-58) does not matter here. For a permutation of your own, use
    /// [`from_elements`](Self::from_elements).
    ///
    /// On 32 four-byte banks every such request is conflict-free for elements
    /// of up to 4 bytes: the 32 elements span at most 32 consecutive words,
    /// each in its own bank.
    ///
    /// # Errors
    ///
    /// As [`from_elements`](Self::from_elements).
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{BankConfig, ComputeCapability, Op, WarpRequest};
    ///
    /// let request = WarpRequest::shuffled(Op::Load, 4, 0, 7)?;
    /// let mut offsets: Vec<u32> = request.active_addresses().map(|(_, a)| a).collect();
    /// offsets.sort();
    /// assert_eq!(offsets, (0..32).map(|i| 4 * i).collect::<Vec<_>>());
    /// assert_eq!(request, WarpRequest::shuffled(Op::Load, 4, 0, 7)?);
    /// assert_eq!(BankConfig::new(ComputeCapability::Sm90).wavefronts(&request)?, 1);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn shuffled(op: Op, width: u32, base: u32, seed: u64) -> Result<Self, Error> {
        let permutation = permutation(seed);
        from_indices(op, width, base, |lane| {
            Some(u64::from(permutation[lane.index()]))
        })
    }

    /// A lecture-style request from `(row, bank)` pairs: lane `i` accesses the
    /// bank-width word in bank `pairs[i].1` of bank row `pairs[i].0`, i.e. the
    /// address `(row * banks + bank) * bank_width`. Lanes past the list are
    /// inactive; the access width is the configuration's bank width.
    ///
    /// # Errors
    ///
    /// - [`Error::LaneCount`] when more than 32 pairs are given.
    /// - [`Error::BankOutOfRange`] when a bank is not below
    ///   [`BankConfig::bank_count`].
    /// - [`Error::SpanOverflow`] when a row is past the 32-bit address space.
    /// - [`Error::WidthMismatch`] for an op whose fixed width is not the bank
    ///   width (the matrix ops).
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{BankConfig, ComputeCapability, Error, Op, WarpRequest};
    ///
    /// let sm90 = BankConfig::new(ComputeCapability::Sm90);
    /// // Three lanes, three rows, three banks: no conflict.
    /// let spread = WarpRequest::from_banks(sm90, Op::Load, &[(0, 1), (1, 2), (2, 3)])?;
    /// assert_eq!(sm90.wavefronts(&spread)?, 1);
    /// // Three rows of bank 1: a 3-way conflict.
    /// let same = WarpRequest::from_banks(sm90, Op::Load, &[(0, 1), (1, 1), (2, 1)])?;
    /// assert_eq!(sm90.wavefronts(&same)?, 3);
    /// assert_eq!(
    ///     WarpRequest::from_banks(sm90, Op::Load, &[(0, 32)]),
    ///     Err(Error::BankOutOfRange { bank: 32, banks: 32 })
    /// );
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn from_banks(config: BankConfig, op: Op, pairs: &[(u32, u32)]) -> Result<Self, Error> {
        if pairs.len() > WARP_SIZE {
            return Err(Error::LaneCount { given: pairs.len() });
        }
        let banks = config.bank_count();
        let word = config.bank_width().bytes();
        let mut addresses = [None; WARP_SIZE];
        for (slot, &(row, bank)) in addresses.iter_mut().zip(pairs) {
            if bank >= banks {
                return Err(Error::BankOutOfRange { bank, banks });
            }
            let address = (u64::from(row) * u64::from(banks) + u64::from(bank)) * u64::from(word);
            *slot = Some(u32::try_from(address).map_err(|_| Error::SpanOverflow {
                base: 0,
                bytes: address + u64::from(word),
            })?);
        }
        WarpRequest::new(op, word, addresses)
    }

    /// [`from_banks`](Self::from_banks) from text: `row,bank` pairs separated by
    /// `;`, as the lecture writes them (`"0,1; 1,2; 2,3"`). Spaces are ignored
    /// and a final `;` is allowed.
    ///
    /// # Errors
    ///
    /// [`Error::BankListSyntax`] for an entry that is not two numbers separated
    /// by a comma; otherwise as [`from_banks`](Self::from_banks).
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::{BankConfig, ComputeCapability, Error, Op, WarpRequest};
    ///
    /// let sm90 = BankConfig::new(ComputeCapability::Sm90);
    /// let free = WarpRequest::parse_banks(sm90, Op::Load, "0,1; 1,2; 2,3")?;
    /// let three_way = WarpRequest::parse_banks(sm90, Op::Load, "0,1; 1,1; 2,1;")?;
    /// assert_eq!((sm90.wavefronts(&free)?, sm90.wavefronts(&three_way)?), (1, 3));
    /// assert_eq!(
    ///     WarpRequest::parse_banks(sm90, Op::Load, "0,1; 1"),
    ///     Err(Error::BankListSyntax { entry: 1, text: "1".into() })
    /// );
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn parse_banks(config: BankConfig, op: Op, text: &str) -> Result<Self, Error> {
        let mut entries: Vec<&str> = text.split(';').map(str::trim).collect();
        if entries.last() == Some(&"") {
            entries.pop();
        }
        let pairs = entries
            .iter()
            .enumerate()
            .map(|(entry, text)| {
                parse_pair(text).ok_or_else(|| Error::BankListSyntax {
                    entry,
                    text: crate::error::bounded(text),
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        WarpRequest::from_banks(config, op, &pairs)
    }
}

fn parse_pair(text: &str) -> Option<(u32, u32)> {
    let (row, bank) = text.split_once(',')?;
    Some((row.trim().parse().ok()?, bank.trim().parse().ok()?))
}

/// Lane `l` at `base + f(l) * width`, with the arithmetic checked.
fn from_indices(
    op: Op,
    width: u32,
    base: u32,
    mut f: impl FnMut(Lane) -> Option<u64>,
) -> Result<WarpRequest, Error> {
    let bytes = u64::from(AccessWidth::from_bytes(width)?.bytes());
    let mut addresses = [None; WARP_SIZE];
    for lane in Lane::all() {
        let Some(index) = f(lane) else { continue };
        // At most 2^32 * 16 + 2^32: no overflow in u64.
        let offset = index * bytes;
        let end = u64::from(base) + offset + bytes;
        if end > 1 << 32 {
            return Err(Error::SpanOverflow {
                base,
                bytes: offset + bytes,
            });
        }
        addresses[lane.index()] = Some(base + offset as u32);
    }
    WarpRequest::new(op, width, addresses)
}

/// A permutation of 0..32 drawn from `seed` (Fisher-Yates over SplitMix64).
fn permutation(seed: u64) -> [u32; WARP_SIZE] {
    let mut state = seed;
    let mut permutation: [u32; WARP_SIZE] = core::array::from_fn(|i| i as u32);
    for i in (1..WARP_SIZE).rev() {
        let j = (splitmix64(&mut state) % (i as u64 + 1)) as usize;
        permutation.swap(i, j);
    }
    permutation
}

/// One step of SplitMix64: small, seedable with any value (zero included),
/// and the same on every platform.
fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::{permutation, splitmix64};

    #[test]
    fn permutations_are_permutations_and_depend_on_the_seed() {
        for seed in [0, 1, 2, u64::MAX] {
            let mut sorted = permutation(seed);
            sorted.sort_unstable();
            assert_eq!(sorted, core::array::from_fn(|i| i as u32));
        }
        assert_ne!(permutation(0), permutation(1));
    }

    #[test]
    fn splitmix64_matches_its_reference_output() {
        // The first output of Vigna's reference splitmix64.c seeded with 0.
        let mut state = 0;
        assert_eq!(splitmix64(&mut state), 0xe220_a839_7b1d_cdaf);
    }
}

//! The programming guides' own examples, and the seed notes' named patterns, each
//! pinned to the number the model gives and why.
//!
//! "Guide v4.2" is the CUDA C Programming Guide v4.2, Appendix F (F.3.3: 1.x,
//! F.4.3: 2.x, F.5.3: 3.x); "DESIGN" is /DESIGN.md of the project.

mod reference;

use smem_model::{
    BankConfig, BankWidth, Classification, ComputeCapability, Lane, LaneSet, Matrices, Op,
    SharedMemConfig, StoreOrder, WarpRequest,
};

fn gcd(a: u32, b: u32) -> u32 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

fn lanes(list: &[u32]) -> LaneSet {
    list.iter().map(|&l| Lane::new(l).unwrap()).collect()
}

fn steps(config: BankConfig, request: &WarpRequest) -> Vec<LaneSet> {
    let partition = config.partition(request).unwrap();
    let fast: Vec<LaneSet> = partition.transactions().map(|t| t.lanes()).collect();
    let slow: Vec<LaneSet> = reference::partition(config, request)
        .transactions
        .iter()
        .map(|t| t.lanes)
        .collect();
    assert_eq!(
        fast, slow,
        "fast model and reference disagree on {request:?}"
    );
    fast
}

fn floats(stride: u32) -> WarpRequest {
    WarpRequest::from_fn(Op::Load, 4, |lane| Some(4 * stride * lane.get())).unwrap()
}

/// Guide v4.2 F.4.3 (figure F-2) and the Best Practices Guide 9.2.3: `s[stride *
/// tid]` on 32-bit words is a gcd(stride, 32)-way conflict with 32 banks. The
/// same holds on sm_90 (measured) and every multicast capability with 4-byte banks.
#[test]
fn strided_floats_are_gcd_way_on_32_banks() {
    for cc in [
        ComputeCapability::Sm20,
        ComputeCapability::Sm21,
        ComputeCapability::Sm52,
        ComputeCapability::Sm90,
        ComputeCapability::Sm120,
    ] {
        let config = BankConfig::new(cc);
        for stride in 1..=33 {
            let ways = gcd(stride, 32);
            let p = config.partition(&floats(stride)).unwrap();
            assert_eq!(p.wavefronts(), ways, "{cc} stride {stride}");
            assert_eq!(p.ideal_wavefronts(), 1);
            assert_eq!(p.bank_conflicts(), ways - 1);
            let expected = match ways {
                1 => Classification::Parallel,
                32 => Classification::Serial { ways: 32 },
                ways => Classification::Conflicted { ways },
            };
            assert_eq!(p.classification(), expected, "{cc} stride {stride}");
        }
    }
}

/// Guide v4.2 F.3.3.1 (figure F-1): on 1.x the half-warps are served apart, with
/// 16 banks, so `s[stride * tid]` is gcd(stride, 16)-way in each half-warp. Each
/// lane reads its own word, so the single broadcast never helps: every step
/// serves one lane per bank.
#[test]
fn strided_floats_are_gcd_way_per_half_warp_on_1x() {
    let config = BankConfig::new(ComputeCapability::Sm13);
    for stride in 1..=33 {
        let ways = gcd(stride, 16);
        let p = config.partition(&floats(stride)).unwrap();
        assert_eq!(p.ideal_wavefronts(), 2);
        assert_eq!(p.wavefronts(), 2 * ways, "stride {stride}");
        assert_eq!(p.ways(), ways);
        // Lane 16 is never served with lanes of the first half-warp.
        assert!(p
            .transactions()
            .all(|t| t.lanes().bits() & 0xffff == 0 || t.lanes().bits() >> 16 == 0));
    }
}

/// Guide v4.2 F.3.3.1: `char s[]; s[tid]` conflicts on 1.x, since four
/// neighbouring lanes read one 32-bit word and only one word is broadcast per
/// step. Half-warp 0 reads words 0 to 3 (banks 0 to 3, four lanes each). Each
/// step broadcasts the lowest waiting lane's word and serves the lowest waiting
/// lane of every other bank:
/// step 1: word 0 to lanes 0-3, plus lanes 4, 8, 12;
/// step 2: word 1 to lanes 5-7, plus lanes 9, 13;
/// step 3: word 2 to lanes 10-11, plus lane 14;
/// step 4: lane 15.
/// Four steps per half-warp: 8 wavefronts, ideal 2.
#[test]
fn tesla_char_array_conflicts_through_single_broadcast() {
    let config = BankConfig::new(ComputeCapability::Sm12);
    let request = WarpRequest::from_fn(Op::Load, 1, |lane| Some(lane.get())).unwrap();
    let p = config.partition(&request).unwrap();
    assert_eq!((p.wavefronts(), p.ideal_wavefronts()), (8, 2));
    assert_eq!(p.classification(), Classification::Conflicted { ways: 4 });
    let s = steps(config, &request);
    assert_eq!(s[0], lanes(&[0, 1, 2, 3, 4, 8, 12]));
    assert_eq!(s[1], lanes(&[5, 6, 7, 9, 13]));
    assert_eq!(s[2], lanes(&[10, 11, 14]));
    assert_eq!(s[3], lanes(&[15]));
    assert_eq!(s[4], lanes(&[16, 17, 18, 19, 20, 24, 28]));
    let first = p.transactions().next().unwrap();
    let broadcast: Vec<_> = first.broadcast_words().collect();
    assert_eq!(broadcast.len(), 1);
    assert_eq!(
        (broadcast[0].word, broadcast[0].lanes),
        (0, lanes(&[0, 1, 2, 3]))
    );
}

/// Guide v4.2 F.3.3.1: `char s[]; s[4 * tid]` has no conflict on 1.x: each lane
/// of a half-warp reads its own bank.
#[test]
fn tesla_char_array_with_stride_four_is_conflict_free() {
    let config = BankConfig::new(ComputeCapability::Sm12);
    let request = WarpRequest::from_fn(Op::Load, 1, |lane| Some(4 * lane.get())).unwrap();
    let p = config.partition(&request).unwrap();
    assert_eq!((p.wavefronts(), p.ideal_wavefronts()), (2, 2));
    assert_eq!(p.classification(), Classification::Parallel);
}

/// Guide v4.2 F.4.3.1: on 2.x, `char s[]; s[tid]` is conflict-free: the eight
/// words are each multicast to their four lanes in one step.
#[test]
fn fermi_char_array_is_conflict_free_by_multicast() {
    let config = BankConfig::new(ComputeCapability::Sm20);
    let request = WarpRequest::from_fn(Op::Load, 1, |lane| Some(lane.get())).unwrap();
    let p = config.partition(&request).unwrap();
    assert_eq!(p.wavefronts(), 1);
    assert_eq!(p.classification(), Classification::Parallel);
    let t = p.transactions().next().unwrap();
    assert_eq!(t.broadcast_words().count(), 8);
}

/// Guide v4.2 F.3.3.1: `double s[]; s[tid]` on 1.x is split into two 32-bit
/// accesses with a stride of two words, so lanes `l` and `l + 8` of a half-warp
/// meet in one bank: 2-way in each of the 2 parts x 2 half-warps, 8 wavefronts
/// against an ideal of 4.
#[test]
fn tesla_doubles_are_two_way_as_two_strided_halves() {
    let config = BankConfig::new(ComputeCapability::Sm13);
    let request = WarpRequest::from_fn(Op::Load, 8, |lane| Some(8 * lane.get())).unwrap();
    let p = config.partition(&request).unwrap();
    assert_eq!((p.wavefronts(), p.ideal_wavefronts(), p.ways()), (8, 4, 2));
    // Parts in order: all of part 0 (both half-warps), then part 1.
    let order: Vec<(u32, u32)> = p.transactions().map(|t| (t.part(), t.phase())).collect();
    assert_eq!(
        order,
        [
            (0, 0),
            (0, 0),
            (0, 1),
            (0, 1),
            (1, 0),
            (1, 0),
            (1, 1),
            (1, 1)
        ]
    );
    let s = steps(config, &request);
    assert_eq!(s[0], LaneSet::range(0, 8));
    assert_eq!(s[1], LaneSet::range(8, 16));
    // Part 1 moves the high word of each double: bytes 4..8.
    let t = p.transactions().nth(4).unwrap();
    assert_eq!(t.words().iter().map(|w| w.word).min(), Some(1));
}

/// Guide v4.2 F.4.3.2: on 2.x a 64-bit access is served by half-warps, and
/// `double s[tid]` has no conflict: each half-warp reads 32 consecutive words.
#[test]
fn fermi_doubles_are_conflict_free_in_half_warps() {
    let config = BankConfig::new(ComputeCapability::Sm20);
    let request = WarpRequest::from_fn(Op::Load, 8, |lane| Some(8 * lane.get())).unwrap();
    let p = config.partition(&request).unwrap();
    assert_eq!((p.wavefronts(), p.ideal_wavefronts()), (2, 2));
    assert_eq!(p.classification(), Classification::Parallel);
}

/// Guide v4.2 F.4.3.2: 2.x serves 128-bit accesses by quarter-warps, and each
/// quarter takes one step more than its degree. `float4 s[tid]` is conflict-free
/// in every quarter, yet takes 2 steps per quarter: 8 wavefronts, ideal 4; the
/// second step of each quarter serves no lane.
#[test]
fn fermi_float4_takes_one_extra_step_per_quarter() {
    let config = BankConfig::new(ComputeCapability::Sm20);
    let request = WarpRequest::from_fn(Op::Load, 16, |lane| Some(16 * lane.get())).unwrap();
    let p = config.partition(&request).unwrap();
    assert_eq!((p.wavefronts(), p.ideal_wavefronts(), p.ways()), (8, 4, 2));
    let s = steps(config, &request);
    assert_eq!(s[0], LaneSet::range(0, 8));
    assert!(s[1].is_empty());
    assert_eq!(s[2], LaneSet::range(8, 16));
    assert!(s[3].is_empty());
    // The same request on sm_90: quarter-warps, no extra step.
    let sm90 = BankConfig::new(ComputeCapability::Sm90);
    assert_eq!(sm90.wavefronts(&request).unwrap(), 4);
}

/// Guide v4.2 F.4.3.2: a quarter-warp with a 2-way conflict takes 3 steps on
/// 2.x. `float4 s[2 * tid]`: lanes `l` and `l + 4` of a quarter are 128 bytes
/// apart, in the same four banks.
#[test]
fn fermi_float4_with_two_way_conflict_takes_three_steps_per_quarter() {
    let config = BankConfig::new(ComputeCapability::Sm20);
    let request = WarpRequest::from_fn(Op::Load, 16, |lane| Some(32 * lane.get())).unwrap();
    let p = config.partition(&request).unwrap();
    assert_eq!((p.wavefronts(), p.ideal_wavefronts(), p.ways()), (12, 4, 3));
    let s = steps(config, &request);
    assert_eq!(
        &s[..3],
        &[LaneSet::range(0, 4), LaneSet::range(4, 8), LaneSet::EMPTY]
    );
}

/// DESIGN 2.1 (measured): every lane reading one word is one wavefront, a
/// broadcast.
#[test]
fn sm90_broadcast_is_one_wavefront() {
    let config = BankConfig::new(ComputeCapability::Sm90);
    let request = WarpRequest::from_fn(Op::Load, 4, |_| Some(0x400)).unwrap();
    let p = config.partition(&request).unwrap();
    assert_eq!(p.wavefronts(), 1);
    assert_eq!(p.classification(), Classification::Broadcast);
    // One float asked for, of the 128 bytes the wavefront could move.
    assert_eq!(p.distinct_bytes(), 4);
    assert_eq!(p.bandwidth_fraction(), Some(4.0 / 128.0));
}

/// DESIGN 2.1 (measured): uniform LDS.64 and LDS.128 merge their phases (every
/// pair of lanes shares its address): 1 and 2 wavefronts. Stores never merge:
/// uniform STS.64 and STS.128 take 2 and 4 (one per phase).
#[test]
fn sm90_uniform_wide_loads_merge_but_stores_do_not() {
    let config = BankConfig::new(ComputeCapability::Sm90);
    let uniform = |op, width| WarpRequest::from_fn(op, width, |_| Some(256)).unwrap();
    assert_eq!(config.wavefronts(&uniform(Op::Load, 8)).unwrap(), 1);
    assert_eq!(config.wavefronts(&uniform(Op::Load, 16)).unwrap(), 2);
    assert_eq!(config.wavefronts(&uniform(Op::Store, 8)).unwrap(), 2);
    assert_eq!(config.wavefronts(&uniform(Op::Store, 16)).unwrap(), 4);
    // The merged LDS.128 phases are half-warps.
    let p = config.partition(&uniform(Op::Load, 16)).unwrap();
    let s: Vec<_> = p.transactions().map(|t| (t.phase(), t.lanes())).collect();
    assert_eq!(s, [(0, LaneSet::range(0, 16)), (1, LaneSet::range(16, 32))]);
}

/// DESIGN 2.1 (measured): the merge needs only the pairs whose lanes are both
/// active; `double s[lane / 2]` pairs lanes (n, n ^ 1) and so is one wavefront.
#[test]
fn sm90_paired_loads_merge_into_one_phase() {
    let config = BankConfig::new(ComputeCapability::Sm90);
    let paired = WarpRequest::from_fn(Op::Load, 8, |lane| Some(8 * (lane.get() / 2))).unwrap();
    assert_eq!(config.wavefronts(&paired).unwrap(), 1);
    assert_eq!(config.partition(&paired).unwrap().ideal_wavefronts(), 1);
    // Lane 1 inactive: its pair no longer counts, the rest still merges.
    let holed = paired.with_mask(LaneSet::from_bits(!0b10));
    assert_eq!(config.wavefronts(&holed).unwrap(), 1);
    // Lane 1 on another address breaks the condition: two half-warp phases.
    let broken = WarpRequest::from_fn(Op::Load, 8, |lane| {
        Some(if lane.get() == 1 {
            1024
        } else {
            8 * (lane.get() / 2)
        })
    })
    .unwrap();
    assert_eq!(config.partition(&broken).unwrap().ideal_wavefronts(), 2);
}

/// Guide (shared-memory section of the compute-capability appendix): several
/// lanes storing one address is one write landing, which one undefined; the model
/// reports the collision and leaves the choice to `StoreOrder`.
#[test]
fn same_address_stores_collide_and_store_order_picks_the_winner() {
    let config = BankConfig::new(ComputeCapability::Sm90);
    let store = WarpRequest::from_fn(Op::Store, 4, |_| Some(128)).unwrap();
    assert_eq!(config.wavefronts(&store).unwrap(), 1);
    let collisions = store.write_collisions();
    assert_eq!(collisions.len(), 1);
    assert_eq!(collisions[0].address(), 128);
    assert_eq!(collisions[0].lanes(), LaneSet::FULL);
    assert_eq!(collisions[0].winner(StoreOrder::Undefined), None);
    assert_eq!(
        collisions[0].winner(StoreOrder::LowestLane),
        Some(Lane::new(0).unwrap())
    );
    assert_eq!(
        collisions[0].winner(StoreOrder::HighestLane),
        Some(Lane::new(31).unwrap())
    );
    assert_eq!(StoreOrder::default(), StoreOrder::Undefined);

    // Two lanes per address, except lane 31 alone: 15 collisions, none for 31.
    let pairs = WarpRequest::from_fn(Op::Store, 4, |lane| Some(4 * (lane.get() / 2)))
        .unwrap()
        .with_mask(LaneSet::from_bits(!(1 << 30)));
    let collisions = pairs.write_collisions();
    assert_eq!(collisions.len(), 15);
    assert_eq!(collisions[14].address(), 56);
    assert_eq!(collisions[14].lanes(), lanes(&[28, 29]));
    // Same addresses loaded: no collision.
    let load = WarpRequest::from_fn(Op::Load, 4, |_| Some(128)).unwrap();
    assert!(load.write_collisions().is_empty());
}

/// DESIGN 5: Kepler's eight-byte mode is not always better. `float s[3 * tid]`
/// is conflict-free in four-byte mode (stride 3 is odd), but in eight-byte mode
/// lane l reads 64-bit word 3l / 2: lane 1 reads word 1 (byte 12) and lane 22
/// word 33 (byte 264), and words 1 and 33 share bank 1: 2-way.
#[test]
fn kepler_eight_byte_mode_is_worse_for_stride_three_floats() {
    let request = floats(3);
    for cc in [ComputeCapability::Sm30, ComputeCapability::Sm35] {
        let four = BankConfig::new(cc);
        let eight = four.with_shared_mem_config(SharedMemConfig::EightByte);
        assert_eq!(four.wavefronts(&request).unwrap(), 1);
        let p = eight.partition(&request).unwrap();
        assert_eq!(p.wavefronts(), 2);
        let s = steps(eight, &request);
        let (one, twenty_two) = (Lane::new(1).unwrap(), Lane::new(22).unwrap());
        let step_of = |lane| s.iter().position(|set| set.contains(lane)).unwrap();
        assert_ne!(step_of(one), step_of(twenty_two));
        let bank1: Vec<u32> = p
            .transactions()
            .flat_map(|t| {
                t.words()
                    .into_iter()
                    .filter(|w| w.bank.index() == 1)
                    .map(|w| w.word)
                    .collect::<Vec<_>>()
            })
            .collect();
        assert_eq!(bank1, [1, 33]);
    }
}

/// Guide v4.2 F.5.3: in four-byte mode a Kepler bank delivers 64 bits per clock,
/// words i and i + 32 of one 256-byte segment together. `float s[2 * tid]` is
/// therefore conflict-free on 3.x (2-way on 2.x and sm_90), while words i and
/// i + 64 (`s[64 * tid]`) still conflict.
#[test]
fn kepler_four_byte_mode_serves_words_i_and_i_plus_32_together() {
    let kepler = BankConfig::new(ComputeCapability::Sm35);
    assert_eq!(kepler.wavefronts(&floats(2)).unwrap(), 1);
    assert_eq!(
        BankConfig::new(ComputeCapability::Sm20)
            .wavefronts(&floats(2))
            .unwrap(),
        2
    );
    assert_eq!(
        BankConfig::new(ComputeCapability::Sm90)
            .wavefronts(&floats(2))
            .unwrap(),
        2
    );
    let p = kepler.partition(&floats(2)).unwrap();
    let words = p.transactions().next().unwrap().words();
    let bank0: Vec<u32> = words
        .iter()
        .filter(|w| w.bank.index() == 0)
        .map(|w| w.word)
        .collect();
    assert_eq!(bank0, [0, 32]);
    // Stride 32: words 0, 32 | 64, 96 | ...: pairs share a segment, 16-way.
    assert_eq!(kepler.wavefronts(&floats(32)).unwrap(), 16);
    assert_eq!(kepler.wavefronts(&floats(64)).unwrap(), 32);
}

/// DESIGN 2: `cudaDeviceSetSharedMemConfig` is accepted and ignored outside 3.x.
#[test]
fn eight_byte_mode_request_is_a_no_op_on_sm90() {
    let sm90 = BankConfig::new(ComputeCapability::Sm90);
    let asked = sm90.with_shared_mem_config(SharedMemConfig::EightByte);
    assert_eq!(asked.bank_width(), BankWidth::FourBytes);
    assert_eq!(asked, sm90);
    assert_eq!(asked.wavefronts(&floats(3)).unwrap(), 1);
    assert_eq!(asked.wavefronts(&floats(2)).unwrap(), 2);
    let kepler = BankConfig::new(ComputeCapability::Sm35);
    assert_eq!(kepler.bank_width(), BankWidth::FourBytes);
    assert_eq!(
        kepler
            .with_shared_mem_config(SharedMemConfig::EightByte)
            .with_shared_mem_config(SharedMemConfig::Default),
        kepler
    );
}

/// The seeds' four classes on sm_90: row access of floats (parallel), a column
/// of a 32x32 float tile (serial: every lane a different word of bank 0), a
/// broadcast, and stride 2 (conflicted, 2-way).
#[test]
fn seed_classifications() {
    let config = BankConfig::new(ComputeCapability::Sm90);
    let class = |r: &WarpRequest| config.partition(r).unwrap().classification();
    assert_eq!(class(&floats(1)), Classification::Parallel);
    let column = floats(32);
    assert_eq!(class(&column), Classification::Serial { ways: 32 });
    assert_eq!(config.wavefronts(&column).unwrap(), 32);
    assert!(config
        .partition(&column)
        .unwrap()
        .transactions()
        .all(|t| t.lanes().len() == 1));
    assert_eq!(class(&floats(0)), Classification::Broadcast);
    assert_eq!(class(&floats(2)), Classification::Conflicted { ways: 2 });
    assert_eq!(
        Classification::Serial { ways: 32 }.to_string(),
        "serial (32-way)"
    );
}

/// The classic fix: pad each row of the 32x32 float tile to 33 floats, and the
/// column access `tile[tid][c]` hits 32 different banks.
#[test]
fn padded_tile_column_is_conflict_free() {
    let config = BankConfig::new(ComputeCapability::Sm90);
    for column in [0, 5, 31] {
        let request =
            WarpRequest::from_fn(Op::Load, 4, |lane| Some(4 * (33 * lane.get() + column))).unwrap();
        let p = config.partition(&request).unwrap();
        assert_eq!(p.wavefronts(), 1);
        assert_eq!(p.classification(), Classification::Parallel);
        assert_eq!(p.transactions().next().unwrap().banks().len(), 32);
    }
}

/// DESIGN 2.1 (measured): `ldmatrix.x4` with each matrix's 8 rows at consecutive
/// 16-byte addresses: each matrix covers all 32 banks once, 4 wavefronts. With a
/// 64-byte row pitch rows r and r + 2 share banks: 4-way per matrix, 16.
#[test]
fn ldmatrix_x4_on_consecutive_rows_is_four_wavefronts() {
    let config = BankConfig::new(ComputeCapability::Sm90);
    let op = Op::LdMatrix(Matrices::X4);
    let packed = WarpRequest::from_fn(op, 16, |lane| Some(16 * lane.get())).unwrap();
    let p = config.partition(&packed).unwrap();
    assert_eq!((p.wavefronts(), p.ideal_wavefronts()), (4, 4));
    let s = steps(config, &packed);
    assert_eq!(
        s,
        (0..4)
            .map(|m| LaneSet::range(8 * m, 8 * m + 8))
            .collect::<Vec<_>>()
    );
    let pitched = WarpRequest::from_fn(op, 16, |lane| Some(64 * lane.get())).unwrap();
    assert_eq!(config.wavefronts(&pitched).unwrap(), 16);
    // .x1 reads only lanes 0-7.
    let x1 =
        WarpRequest::from_fn(Op::LdMatrix(Matrices::X1), 16, |lane| Some(16 * lane.get())).unwrap();
    assert_eq!(config.wavefronts(&x1).unwrap(), 1);
}

/// DESIGN 2.1 (measured): atomics on one address are not merged: 32 wavefronts,
/// one lane each. On 1.2 the half-warps are phases: 16 each.
#[test]
fn atomics_on_one_address_are_serial() {
    let request = WarpRequest::from_fn(Op::ATOMIC_ADD, 4, |_| Some(64)).unwrap();
    for cc in [
        ComputeCapability::Sm90,
        ComputeCapability::Sm20,
        ComputeCapability::Sm12,
    ] {
        let config = BankConfig::new(cc);
        let p = config.partition(&request).unwrap();
        assert_eq!(p.wavefronts(), 32, "{cc}");
        assert!(
            matches!(p.classification(), Classification::Serial { .. }),
            "{cc}"
        );
        steps(config, &request);
    }
    let sm12 = BankConfig::new(ComputeCapability::Sm12)
        .partition(&request)
        .unwrap();
    assert_eq!((sm12.ideal_wavefronts(), sm12.ways()), (2, 16));
    // Distinct addresses in distinct banks: one wavefront.
    let spread = WarpRequest::from_fn(Op::ATOMIC_ADD, 4, |lane| Some(4 * lane.get())).unwrap();
    assert_eq!(
        BankConfig::new(ComputeCapability::Sm90)
            .wavefronts(&spread)
            .unwrap(),
        1
    );
}

/// A request with no active lane takes nothing.
#[test]
fn empty_request_takes_no_wavefront() {
    for cc in ComputeCapability::ALL {
        let config = BankConfig::new(cc);
        let request = WarpRequest::from_fn(Op::Load, 16, |_| None).unwrap();
        let p = config.partition(&request).unwrap();
        assert_eq!((p.wavefronts(), p.ideal_wavefronts(), p.ways()), (0, 0, 0));
        assert_eq!(p.classification(), Classification::Empty);
        assert_eq!(p.bandwidth_fraction(), None);
        assert_eq!(p.transactions().len(), 0);
        assert_eq!(config.wavefronts(&request).unwrap(), 0);
    }
}

/// One lane per quarter-warp of a 2.x `float4` load: nothing conflicts, yet each
/// quarter pays the guide's extra 128-bit step. That is the guide's "2-way",
/// not a serial access: the lanes are apart because of the phases.
#[test]
fn fermi_lone_float4_lanes_are_two_way_not_serial() {
    let config = BankConfig::new(ComputeCapability::Sm20);
    let request = WarpRequest::from_fn(Op::Load, 16, |lane| {
        (lane.get() % 8 == 0).then(|| 16 * lane.get())
    })
    .unwrap();
    let partition = config.partition(&request).unwrap();
    assert_eq!(
        (partition.wavefronts(), partition.ideal_wavefronts()),
        (8, 4)
    );
    assert_eq!(
        partition.classification(),
        Classification::Conflicted { ways: 2 }
    );
}

//! A slow reference partitioner, written from the rules as documented (DESIGN.md
//! section 2 and the table on `BankConfig`), independently of the scheduler in
//! `src/partition/schedule.rs`.
//!
//! It works on explicit sets: every lane touches a list of bank *cells*, a cell
//! being a bank and the row of that bank it needs. Two lanes conflict when they
//! need different rows of one bank; a step (wavefront) serves lanes whose cells
//! never conflict. No shifts, masks or bank groups: a lane's words are listed one
//! by one, `address / bank_width ..= (address + bytes - 1) / bank_width`.
//!
//! Shared by the test files through `mod reference;`.

#![allow(dead_code)]

use std::collections::BTreeMap;

use smem_model::{AccessWidth, AtomicKind, BankConfig, BankWidth, Lane, LaneSet, Op, WarpRequest};

/// Whether lanes of `op` on one address are served apart, never merged:
/// atomics and cp.async (DESIGN.md sections 2.1 to 2.3).
pub fn counts_lanes(op: Op) -> bool {
    matches!(op, Op::Atomic(_) | Op::Reduction(_) | Op::CpAsync(_))
}

/// nvcc's compare-and-swap loop, from the words of DESIGN.md section 2.2:
/// each round the pending lanes load (the reference load partition of those
/// lanes), then in each phase the lowest pending lane of every bank (pair)
/// tries, failing when a lane of an earlier phase succeeded on the same
/// address this round; each phase with pending lanes costs 2 ATOMS wavefronts.
pub fn cas_loop(config: BankConfig, request: &WarpRequest) -> RefPartition {
    let width = request.width();
    let size = phase_size(config, request.op(), width);
    let mut pending: Vec<Option<u32>> = request.to_array().to_vec();
    let mut out = RefPartition {
        transactions: Vec::new(),
        ideal: 0,
        ways: 0,
        loads: 0,
        rounds: 0,
    };
    while pending.iter().any(Option::is_some) {
        let load =
            WarpRequest::try_from_iter(Op::Load, width.bytes(), pending.iter().copied()).unwrap();
        out.loads += partition(config, &load).wavefronts();
        let mut winners: Vec<u32> = Vec::new();
        let mut done = Vec::new();
        let mut tried = 0;
        for phase in 0..32 / size {
            let lanes: Vec<usize> = (phase * size..(phase + 1) * size)
                .filter(|&l| pending[l].is_some())
                .collect();
            if lanes.is_empty() {
                continue;
            }
            tried += 2;
            let set: LaneSet = lanes
                .iter()
                .map(|&l| Lane::new(l as u32).unwrap())
                .collect();
            for _ in 0..2 {
                out.transactions.push(RefTransaction {
                    phase: phase as u32,
                    part: 0,
                    lanes: set,
                    round: out.rounds,
                });
            }
            let mut busy: Vec<u32> = Vec::new();
            let mut phase_winners = Vec::new();
            for &lane in &lanes {
                let address = pending[lane].unwrap();
                let banks: Vec<u32> = cells(config, request.op(), lane, address, width.bytes())
                    .into_iter()
                    .map(|(bank, _)| bank)
                    .collect();
                if banks.iter().any(|b| busy.contains(b)) {
                    continue;
                }
                busy.extend(banks);
                if !winners.contains(&address) {
                    phase_winners.push(address);
                    done.push(lane);
                }
            }
            winners.extend(phase_winners);
        }
        if out.rounds == 0 {
            out.ideal = tried;
        }
        for lane in done {
            pending[lane] = None;
        }
        out.rounds += 1;
    }
    out.ways = out.rounds;
    out
}

/// One transaction of the reference schedule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RefTransaction {
    /// The phase: phase `p` of `n`-lane phases holds lanes `p * n .. (p + 1) * n`.
    pub phase: u32,
    /// The 4-byte part of a wide 1.x access (0 elsewhere).
    pub part: u32,
    /// The lanes served (empty for the extra 2.x 128-bit step).
    pub lanes: LaneSet,
    /// The round of a compare-and-swap loop (0 for every other op).
    pub round: u32,
}

/// The reference schedule of one request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefPartition {
    /// Every transaction, in the order served.
    pub transactions: Vec<RefTransaction>,
    /// Non-empty phases, counted once per part.
    pub ideal: u32,
    /// The most steps any (part, phase) took; a loop's rounds.
    pub ways: u32,
    /// LDS wavefronts of a compare-and-swap loop (0 for every other op).
    pub loads: u32,
    /// Instructions executed: 1, or a loop's rounds.
    pub rounds: u32,
}

impl RefPartition {
    pub fn wavefronts(&self) -> u32 {
        self.transactions.len() as u32
    }
}

/// What one bank must deliver to a lane.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Row {
    /// A row of the bank, shared by every lane that needs the same row.
    Data(u32),
    /// An atomic's private access: never shared, even with a lane on the same address.
    Private(usize),
}

/// (bank, row): one bank delivering one row.
pub type Cell = (u32, Row);

/// The rule family, decided from the capability's major version alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    /// 1.x
    Tesla,
    /// 2.x
    Fermi,
    /// 3.x
    Kepler,
    /// 5.x, 6.x
    MaxwellPascal,
    /// 7.0 and later (measured on sm_90)
    Measured,
}

pub fn family(config: BankConfig) -> Family {
    match config.capability().major() {
        1 => Family::Tesla,
        2 => Family::Fermi,
        3 => Family::Kepler,
        5 | 6 => Family::MaxwellPascal,
        major => {
            assert!(major >= 7, "no capability {major}.x");
            Family::Measured
        }
    }
}

/// Lanes per phase before any merge, from the rule table.
pub fn phase_size(config: BankConfig, op: Op, width: AccessWidth) -> usize {
    match op {
        // Each matrix (8 row addresses) is a phase.
        Op::LdMatrix(_) | Op::StMatrix(_) => 8,
        // Atomics: half-warps on 1.x; from 2.0, the warp at 4 bytes and
        // half-warps at 8 (DESIGN.md section 2.2).
        Op::Atomic(_) | Op::Reduction(_) => {
            if family(config) == Family::Tesla || width.bytes() == 8 {
                16
            } else {
                32
            }
        }
        // cp.async: as a store of its width (section 2.3).
        _ => match family(config) {
            // Half-warps, whatever the width (wide accesses are split in parts).
            Family::Tesla => 16,
            // 64 bits per bank per clock: the warp up to 8 bytes, half-warps for 16.
            Family::Kepler => {
                if width.bytes() <= 8 {
                    32
                } else {
                    16
                }
            }
            Family::Fermi | Family::MaxwellPascal | Family::Measured => match width.bytes() {
                1 | 2 | 4 => 32,
                8 => 16,
                16 => 8,
                other => panic!("no width {other}"),
            },
        },
    }
}

/// The sm_90 pair condition: every pair of active lanes `(n, n ^ x)` reads one
/// address, for `x` = 1 or for `x` = 2. Pairs with an inactive lane are ignored.
pub fn pairs_share_addresses(request: &WarpRequest) -> bool {
    let addresses = request.to_array();
    if request.active().is_empty() {
        return false;
    }
    [1usize, 2].into_iter().any(|x| {
        (0..32).all(|n| match (addresses[n], addresses[n ^ x]) {
            (Some(a), Some(b)) => a == b,
            _ => true,
        })
    })
}

/// Whether the phases of `request` merge in pairs (loads only, 7.0 on, and only
/// when phases are smaller than the warp).
pub fn merges(config: BankConfig, request: &WarpRequest) -> bool {
    family(config) == Family::Measured
        && request.op() == Op::Load
        && phase_size(config, request.op(), request.width()) < 32
        && pairs_share_addresses(request)
}

/// The bank cells lane `lane` touches when it accesses `bytes` bytes at `start`.
pub fn cells(config: BankConfig, op: Op, lane: usize, start: u32, bytes: u32) -> Vec<Cell> {
    let bank_bytes = config.bank_width().bytes();
    let banks = config.bank_count();
    let first = start / bank_bytes;
    let last = (start + bytes - 1) / bank_bytes;
    let kepler_four =
        family(config) == Family::Kepler && config.bank_width() == BankWidth::FourBytes;
    let mut cells = Vec::new();
    for word in first..=last {
        let bank = word % banks;
        let row = if counts_lanes(op) {
            Row::Private(lane)
        } else if kepler_four {
            // A 64-bit bank row holds 32-bit words i and i + 32 of one 256-byte
            // (64-word) segment: the segment is the row.
            Row::Data(word / 64)
        } else {
            Row::Data(word / banks)
        };
        cells.push((bank, row));
    }
    cells
}

/// Multicast: each lane, in lane order, joins the earliest step in which every
/// bank it touches is either still idle or already delivers the row it needs.
fn multicast(lanes: &[(usize, Vec<Cell>)]) -> Vec<LaneSet> {
    let mut steps: Vec<(BTreeMap<u32, Row>, LaneSet)> = Vec::new();
    for (lane, cells) in lanes {
        let fits = |busy: &BTreeMap<u32, Row>| {
            cells
                .iter()
                .all(|(bank, row)| busy.get(bank).is_none_or(|r| r == row))
        };
        let index = match steps.iter().position(|(busy, _)| fits(busy)) {
            Some(index) => index,
            None => {
                steps.push((BTreeMap::new(), LaneSet::EMPTY));
                steps.len() - 1
            }
        };
        let (busy, served) = &mut steps[index];
        for &(bank, row) in cells {
            busy.insert(bank, row);
        }
        served.insert(Lane::new(*lane as u32).unwrap());
    }
    steps.into_iter().map(|(_, lanes)| lanes).collect()
}

/// 1.x single broadcast: each step broadcasts the word of the lowest waiting lane
/// to every waiting lane that reads it, and serves the lowest waiting lane of each
/// other bank (only that lane, even if others read its word).
fn single_word(lanes: &[(usize, Vec<Cell>)]) -> Vec<LaneSet> {
    let mut waiting: Vec<(usize, Cell)> = lanes
        .iter()
        .map(|(lane, cells)| {
            assert_eq!(cells.len(), 1, "1.x parts touch one word");
            (*lane, cells[0])
        })
        .collect();
    let mut steps = Vec::new();
    while let Some(&(_, broadcast)) = waiting.first() {
        let mut served = LaneSet::EMPTY;
        let mut banks_used = vec![broadcast.0];
        for &(lane, cell) in &waiting {
            let take = if cell == broadcast {
                true
            } else if !banks_used.contains(&cell.0) {
                banks_used.push(cell.0);
                true
            } else {
                false
            };
            if take {
                served.insert(Lane::new(lane as u32).unwrap());
            }
        }
        waiting.retain(|(lane, _)| !served.contains(Lane::new(*lane as u32).unwrap()));
        steps.push(served);
    }
    steps
}

/// The reference partition of `request` under `config`. The request must be
/// valid for `config` (op supported, inside the window).
pub fn partition(config: BankConfig, request: &WarpRequest) -> RefPartition {
    let op = request.op();
    let width = request.width().bytes();
    let fam = family(config);
    let mut size = phase_size(config, op, request.width());
    if merges(config, request) {
        size *= 2;
    }
    // 1.x splits accesses wider than 4 bytes into 4-byte parts, scheduled one
    // after another (all phases of part 0, then part 1, ...).
    let (parts, part_bytes) = if fam == Family::Tesla && width > 4 {
        (width / 4, 4)
    } else {
        (1, width)
    };
    if op.is_cas_loop(request.width()) {
        return cas_loop(config, request);
    }
    let single_broadcast = fam == Family::Tesla && !counts_lanes(op);
    // cas serves each step twice (section 2.2).
    let repeat = if op.atomic() == Some(AtomicKind::Cas) {
        2
    } else {
        1
    };
    let extra_step = fam == Family::Fermi && width == 16 && matches!(op, Op::Load | Op::Store);
    let addresses = request.to_array();

    let mut out = RefPartition {
        transactions: Vec::new(),
        ideal: 0,
        ways: 0,
        loads: 0,
        rounds: 1,
    };
    for part in 0..parts {
        for phase in 0..32 / size {
            let lanes: Vec<(usize, Vec<Cell>)> = (phase * size..(phase + 1) * size)
                .filter_map(|lane| {
                    let address = addresses[lane]?;
                    let start = address + 4 * part;
                    Some((lane, cells(config, op, lane, start, part_bytes)))
                })
                .collect();
            if lanes.is_empty() {
                continue;
            }
            let mut steps = if single_broadcast {
                single_word(&lanes)
            } else {
                multicast(&lanes)
            };
            if extra_step {
                steps.push(LaneSet::EMPTY);
            }
            let steps: Vec<LaneSet> = steps
                .into_iter()
                .flat_map(|lanes| std::iter::repeat_n(lanes, repeat))
                .collect();
            out.ideal += repeat as u32;
            out.ways = out.ways.max(steps.len() as u32);
            for lanes in steps {
                out.transactions.push(RefTransaction {
                    phase: phase as u32,
                    part,
                    lanes,
                    round: 0,
                });
            }
        }
    }
    out
}

/// The degree of a set of lanes: the most distinct rows any one bank must deliver.
/// For multicast schedules this is the number of steps of a phase.
pub fn degree(lanes: &[(usize, Vec<Cell>)]) -> usize {
    let mut rows: BTreeMap<u32, Vec<Row>> = BTreeMap::new();
    for (_, cells) in lanes {
        for &(bank, row) in cells {
            let r = rows.entry(bank).or_default();
            if !r.contains(&row) {
                r.push(row);
            }
        }
    }
    rows.values().map(Vec::len).max().unwrap_or(0)
}

/// The wavefronts a multicast schedule takes, computed from degrees alone (no
/// step assignment): the sum over parts and non-empty phases of their degree,
/// plus one per phase for the 2.x 128-bit rule. For the 1.x single broadcast it
/// is a lower bound.
pub fn wavefronts_by_degree(config: BankConfig, request: &WarpRequest) -> u32 {
    let op = request.op();
    let fam = family(config);
    let width = request.width().bytes();
    let mut size = phase_size(config, op, request.width());
    if merges(config, request) {
        size *= 2;
    }
    let (parts, part_bytes) = if fam == Family::Tesla && width > 4 {
        (width / 4, 4)
    } else {
        (1, width)
    };
    let extra =
        u32::from(fam == Family::Fermi && width == 16 && matches!(op, Op::Load | Op::Store));
    let addresses = request.to_array();
    let mut total = 0;
    for part in 0..parts {
        for phase in 0..32 / size {
            let lanes: Vec<(usize, Vec<Cell>)> = (phase * size..(phase + 1) * size)
                .filter_map(|lane| {
                    let start = addresses[lane]? + 4 * part;
                    Some((lane, cells(config, op, lane, start, part_bytes)))
                })
                .collect();
            if !lanes.is_empty() {
                // cas serves each step twice.
                let repeat = if op.atomic() == Some(AtomicKind::Cas) {
                    2
                } else {
                    1
                };
                total += repeat * degree(&lanes) as u32 + extra;
            }
        }
    }
    total
}

//! GPGPU-Sim's shared-memory bank-conflict model, re-created line by line
//! from its source so that `benches/gpgpusim.rs` can time it beside the
//! crate's. Source: github.com/gpgpu-sim/gpgpu-sim_distribution at commit
//! 90ec3399763d7c8512cfe7dc193473086c38ca38 (2020-10-18, "Merge pull request
//! #202 from accel-sim/dev"); Accel-Sim's fork
//! (github.com/accel-sim/gpgpu-sim_distribution, commit
//! 667834cfe5214523edd7769aeab77f91b7137686, 2024-10-07) has the same code:
//!
//! - `src/abstract_hardware_model.cc`, `warp_inst_t::generate_mem_accesses()`,
//!   `case shared_space:` (and `sstarr_space`): per part of the warp
//!   (`mem_warp_parts`), a `std::map<unsigned, std::map<new_addr_type,
//!   unsigned>>` from bank to word to access count is filled lane by lane
//!   (`bank_accs[bank][word]++`); the part costs the largest number of
//!   distinct words in one bank (or, with `shmem_limited_broadcast`, the
//!   largest number of accesses in one bank less the first broadcast word's
//!   repeats); `cycles = total_accesses`.
//! - `src/abstract_hardware_model.h`: `WORD_SIZE = 4`,
//!   `shmem_bank_func(addr) = (addr / WORD_SIZE) % num_shmem_bank`;
//!   `abstract_hardware_model.cc`: `line_size_based_tag_func(address,
//!   line_size) = address & ~(line_size - 1)`; `warp_inst_t::dispatch_delay()`
//!   and `has_dispatch_delay()` (the `cycles` countdown).
//! - `src/gpgpu-sim/shader.cc`, `ldst_unit::shared_cycle()`: called once per
//!   cycle while the instruction occupies the unit; counts
//!   `gpgpu_n_shmem_bank_access` and stalls (`BK_CONF`) until the countdown
//!   ends.
//! - `src/cuda-sim/cuda-sim.cc`, `ptx_instruction::pre_decode()`: `ATOM_OP`
//!   is issued as `LOAD_OP`, so atomics take the same count as loads.
//!
//! Every configuration GPGPU-Sim and Accel-Sim ship from Fermi on
//! (`configs/tested-cfgs/SM2_GTX480` to `SM86_RTX3070`) sets
//! `-gpgpu_shmem_num_banks 32 -gpgpu_shmem_limited_broadcast 0
//! -gpgpu_shmem_warp_parts 1`: [`Config::TESTED`].
//!
//! Left out: `ptx_file_line_stats_add_smem_bank_conflict`, the per-source-line
//! profile GPGPU-Sim also updates here (a map keyed by file name and line);
//! it is not the bank-conflict computation, and leaving it out only makes
//! the re-creation faster than GPGPU-Sim. So is Rust's `BTreeMap`, which
//! allocates a node per eleven entries where `std::map` allocates one per
//! entry: the ratios measured against this re-creation understate
//! GPGPU-Sim's cost.

use std::collections::BTreeMap;

/// GPGPU-Sim's `new_addr_type` (`unsigned long long`).
pub type NewAddrType = u64;

/// `shader_core_config`'s shared-memory options.
#[derive(Debug, Clone, Copy)]
pub struct Config {
    /// `warp_size`.
    pub warp_size: u32,
    /// `-gpgpu_shmem_warp_parts`.
    pub mem_warp_parts: u32,
    /// `-gpgpu_shmem_num_banks`.
    pub num_shmem_bank: u32,
    /// `-gpgpu_shmem_limited_broadcast`.
    pub shmem_limited_broadcast: bool,
}

impl Config {
    /// The options of every configuration shipped from Fermi on.
    pub const TESTED: Config = Config {
        warp_size: 32,
        mem_warp_parts: 1,
        num_shmem_bank: 32,
        shmem_limited_broadcast: false,
    };

    /// `WORD_SIZE` in `abstract_hardware_model.h`.
    const WORD_SIZE: NewAddrType = 4;

    /// `shmem_bank_func`.
    fn shmem_bank_func(&self, addr: NewAddrType) -> u32 {
        ((addr / Self::WORD_SIZE) % NewAddrType::from(self.num_shmem_bank)) as u32
    }
}

/// `line_size_based_tag_func`.
fn line_size_based_tag_func(address: NewAddrType, line_size: NewAddrType) -> NewAddrType {
    address & !(line_size - 1)
}

/// The `case shared_space:` of `warp_inst_t::generate_mem_accesses()`:
/// `total_accesses`, which becomes the instruction's `cycles`. `active` is
/// `m_warp_active_mask`, `memreqaddr[lane]` each lane's
/// `m_per_scalar_thread[lane].memreqaddr[0]` (one address per lane, whatever
/// the access's width). 0 for a warp predicated off (the function returns
/// before the switch).
pub fn generate_mem_accesses(config: &Config, active: u32, memreqaddr: &[NewAddrType; 32]) -> u32 {
    if active == 0 {
        return 0; // predicated off
    }
    let subwarp_size = config.warp_size / config.mem_warp_parts;
    let mut total_accesses = 0;
    for subwarp in 0..config.mem_warp_parts {
        // data structures used per part warp
        let mut bank_accs: BTreeMap<u32, BTreeMap<NewAddrType, u32>> = BTreeMap::new(); // bank -> word address -> access count

        // step 1: compute accesses to words in banks
        for thread in subwarp * subwarp_size..(subwarp + 1) * subwarp_size {
            if active & 1 << thread == 0 {
                continue;
            }
            let addr = memreqaddr[thread as usize];
            let bank = config.shmem_bank_func(addr);
            let word = line_size_based_tag_func(addr, Config::WORD_SIZE);
            *bank_accs.entry(bank).or_default().entry(word).or_default() += 1;
        }

        if config.shmem_limited_broadcast {
            // step 2: look for and select a broadcast bank/word if one occurs
            let mut broadcast_detected = false;
            let mut broadcast_word = NewAddrType::MAX;
            let mut broadcast_bank = u32::MAX;
            for (&bank, access_set) in &bank_accs {
                for (&word, &count) in access_set {
                    if count > 1 {
                        // found a broadcast
                        broadcast_detected = true;
                        broadcast_bank = bank;
                        broadcast_word = word;
                        break;
                    }
                }
                if broadcast_detected {
                    break;
                }
            }

            // step 3: figure out max bank accesses performed, taking account
            // of broadcast case
            let mut max_bank_accesses = 0;
            for (&bank, access_set) in &bank_accs {
                let mut bank_accesses: u32 = access_set.values().sum();
                if broadcast_detected
                    && broadcast_bank == bank
                    && let Some(&n) = access_set.get(&broadcast_word)
                {
                    debug_assert!(n > 1); // or this wasn't a broadcast
                    debug_assert!(bank_accesses >= n - 1);
                    bank_accesses -= n - 1;
                }
                max_bank_accesses = max_bank_accesses.max(bank_accesses);
            }

            // step 4: accumulate
            total_accesses += max_bank_accesses;
        } else {
            // step 2: look for the bank with the maximum number of access to
            // different words
            let max_bank_accesses = bank_accs
                .values()
                .map(|words| words.len() as u32)
                .fold(0, u32::max);

            // step 3: accumulate
            total_accesses += max_bank_accesses;
        }
    }
    debug_assert!(total_accesses > 0 && total_accesses <= config.warp_size);
    total_accesses
}

/// `ldst_unit`'s shared-memory statistics touched by `shared_cycle`.
#[derive(Debug, Default)]
pub struct Stats {
    /// `gpgpu_n_shmem_bank_access[m_sid]`.
    pub n_shmem_bank_access: u64,
    /// `gpgpu_n_shmem_bkconflict`.
    pub n_shmem_bkconflict: u64,
}

/// `ldst_unit::shared_cycle()` called once a cycle until the instruction
/// leaves the unit, `cycles` (`total_accesses`) counted down by
/// `warp_inst_t::dispatch_delay()`: the calls made.
pub fn shared_cycles(mut cycles: u32, stats: &mut Stats) -> u32 {
    let mut calls = 0;
    loop {
        calls += 1;
        // if (inst.has_dispatch_delay()) m_stats->gpgpu_n_shmem_bank_access[m_sid]++;
        if cycles > 0 {
            stats.n_shmem_bank_access += 1;
        }
        // bool stall = inst.dispatch_delay(); (if (cycles > 0) cycles--;)
        cycles = cycles.saturating_sub(1);
        let stall = cycles > 0;
        if stall {
            stats.n_shmem_bkconflict += 1; // rc_fail = BK_CONF
        } else {
            return calls;
        }
    }
}

/// One shared-memory instruction through GPGPU-Sim's model: its accesses
/// counted, then the unit held that many cycles. Returns `total_accesses`.
pub fn instruction(
    config: &Config,
    active: u32,
    memreqaddr: &[NewAddrType; 32],
    stats: &mut Stats,
) -> u32 {
    let cycles = generate_mem_accesses(config, active, memreqaddr);
    if active != 0 {
        shared_cycles(cycles, stats);
    }
    cycles
}

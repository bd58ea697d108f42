// How GPGPU-Sim's `warp_inst_t::generate_mem_accesses()` would call smem in
// its `case shared_space:`. There, GPGPU-Sim counts bank conflicts itself
// (one 4-byte bank per word address, the most words in one bank) and turns
// them into the instruction's initiation interval; here the same place asks
// the model, which knows the phases of 8- and 16-byte accesses, broadcast,
// the sm_90 load merge, atomics and ldmatrix.
//
// The ops are parsed once, when the model is made (smem::op), so each
// instruction costs what the model's Rust call does; smem.hpp owns the
// configuration and turns error codes into exceptions.
//
// Build: c++ -std=c++17 -Icapi/include gpgpusim_shared.cpp -Ltarget/debug -lsmem
// (capi/tests/c_programs.rs builds and runs it against libsmem.so).
#include <bitset>
#include <cstdint>
#include <cstdio>
#include <string>

#include "smem.hpp"

// The parts of GPGPU-Sim's warp_inst_t this case reads.
struct warp_inst_t {
    std::bitset<32> active_mask;
    unsigned long long memreqaddr[32];  // m_per_scalar_thread[t].memreqaddr[0]
    unsigned data_size;                 // bytes per thread
    bool is_store;
    bool is_atomic;
};

// One model per simulated GPU.
class shared_memory_model {
  public:
    explicit shared_memory_model(const char *arch) : config_(arch) {}

    // case shared_space: the cycles the instruction holds the shared-memory
    // pipeline, one per wavefront.
    unsigned shared_space_cycles(const warp_inst_t &inst) const {
        return config_.wavefronts(op_of(inst), inst.data_size, mask(inst), offsets(inst));
    }

    // Which lanes each wavefront serves, for a trace or a visualiser.
    std::string lanes_per_wavefront(const warp_inst_t &inst) const {
        std::string out;
        char hex[16];
        for (const smem_transaction &t :
             config_.partition(op_of(inst), inst.data_size, mask(inst), offsets(inst))) {
            std::snprintf(hex, sizeof hex, "%s%08x", out.empty() ? "" : " ", t.lanes);
            out += hex;
        }
        return out;
    }

  private:
    const smem::op &op_of(const warp_inst_t &inst) const {
        return inst.is_atomic ? atoms_ : inst.is_store ? sts_ : lds_;
    }
    static uint32_t mask(const warp_inst_t &inst) {
        return static_cast<uint32_t>(inst.active_mask.to_ulong());
    }
    static smem::addresses offsets(const warp_inst_t &inst) {
        smem::addresses out;
        for (unsigned t = 0; t < SMEM_WARP_SIZE; t++)
            out[t] = static_cast<uint32_t>(inst.memreqaddr[t]);  // shared offsets
        return out;
    }

    smem::config config_;
    smem::op lds_{"LDS"}, sts_{"STS"}, atoms_{"ATOMS.ADD"};
};

static warp_inst_t strided(unsigned data_size, unsigned stride_elements, bool is_store) {
    warp_inst_t inst{};
    inst.active_mask.set();
    inst.data_size = data_size;
    inst.is_store = is_store;
    for (unsigned t = 0; t < 32; t++) inst.memreqaddr[t] = t * stride_elements * data_size;
    return inst;
}

int main() {
    shared_memory_model sm90("sm_90");
    struct {
        const char *what;
        warp_inst_t inst;
    } cases[] = {
        {"float s[lane]", strided(4, 1, false)},
        {"float s[2 * lane]", strided(4, 2, false)},
        {"float tile[lane][0] (32 x 32)", strided(4, 32, true)},
        {"double s[lane]", strided(8, 1, false)},
        {"float4 s[lane]", strided(16, 1, false)},
    };
    for (auto &c : cases)
        std::printf("%-30s %2u cycles  lanes per wavefront: %s\n", c.what,
                    sm90.shared_space_cycles(c.inst), sm90.lanes_per_wavefront(c.inst).c_str());

    // An atomicAdd(&hist[lane % 4], 1) with the upper half-warp inactive (its
    // stale addresses are ignored).
    warp_inst_t hist = strided(4, 1, false);
    hist.is_atomic = true;
    hist.active_mask = std::bitset<32>(0x0000ffffu);
    for (unsigned t = 0; t < 32; t++) hist.memreqaddr[t] = t < 16 ? 4 * (t % 4) : 0xdeadbeef;
    std::printf("%-30s %2u cycles\n", "atomicAdd(&hist[lane % 4])", sm90.shared_space_cycles(hist));

    try {
        shared_memory_model unknown("sm_1x");
    } catch (const smem::error &e) {
        std::printf("error: %s\n", e.what());
    }
    // A width the op's name contradicts is an error too.
    try {
        smem::config sm90_again("sm_90");
        sm90_again.wavefronts(smem::op("LDS.128"), 4, ~0u, smem::addresses{});
    } catch (const smem::error &e) {
        std::printf("error %d: %s\n", e.code(), e.what());
    }
    return 0;
}

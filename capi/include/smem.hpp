/*
 * smem.hpp: a header-only C++ wrapper of smem.h (C++17). Owns a configuration
 * (smem::config, movable, not copyable; freed in its destructor), parses op
 * names once (smem::op), and turns every error code into an smem::error
 * exception carrying the code and smem_last_error()'s message. It adds no
 * cost beyond the C calls: each method is one inline call.
 *
 * One smem::config may be shared by threads calling its const methods at
 * once (see smem.h); set_bank_bytes, moves and destruction must not run
 * while another thread uses it.
 *
 * Checked by capi/tests/c_programs.rs, which builds the GPGPU-Sim example
 * (capi/examples/gpgpusim_shared.cpp) with it.
 */
#ifndef SMEM_HPP
#define SMEM_HPP

#include <array>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "smem.h"

namespace smem {

/* A failed call: code() is the SMEM_ERR_* code, what() the message. */
class error : public std::runtime_error {
  public:
    error(int code, const char *message) : std::runtime_error(message), code_(code) {}
    int code() const noexcept { return code_; }

  private:
    int code_;
};

/* Throws an smem::error for a status other than SMEM_OK. */
inline void check(int status) {
    if (status != SMEM_OK) throw error(status, smem_last_error());
}

/* The 32 shared-window offsets of a warp request, one per lane. */
using addresses = std::array<uint32_t, SMEM_WARP_SIZE>;

/* An op name parsed once ("LDS", "LDS.U.128", "ATOMS.CAS.64",
 * "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16", ...). */
class op {
  public:
    explicit op(const char *name) { check(smem_op_parse(name, &op_)); }
    explicit op(const std::string &name) : op(name.c_str()) {}
    /* The width in bytes the name gives, 0 for none ("LDS"). */
    uint32_t width() const noexcept { return smem_op_width(op_); }
    smem_op get() const noexcept { return op_; }

  private:
    smem_op op_{};
};

/* A bank configuration for one compute capability ("sm_90", "8.6", ...). In
 * every call, width 0 takes the width the op's name gives. */
class config {
  public:
    explicit config(const char *arch) : config_(smem_config_new(arch)) {
        if (!config_) throw error(SMEM_ERR_UNKNOWN, smem_last_error());
    }
    explicit config(const std::string &arch) : config(arch.c_str()) {}
    ~config() { reset(); }
    config(const config &) = delete;
    config &operator=(const config &) = delete;
    config(config &&other) noexcept : config_(other.config_) { other.config_ = nullptr; }
    config &operator=(config &&other) noexcept {
        if (this != &other) {
            reset();
            config_ = other.config_;
            other.config_ = nullptr;
        }
        return *this;
    }

    /* Kepler's bank mode: 4 or 8 bytes (changes nothing elsewhere). */
    void set_bank_bytes(uint32_t bank_bytes) {
        check(smem_config_set_bank_bytes(config_, bank_bytes));
    }

    uint32_t wavefronts(const op &o, uint32_t width, uint32_t active_mask,
                        const uint32_t *offsets) const {
        uint32_t n = 0;
        check(smem_wavefronts_op(config_, o.get(), width, active_mask, offsets, &n));
        return n;
    }
    uint32_t wavefronts(const op &o, uint32_t width, uint32_t active_mask,
                        const addresses &offsets) const {
        return wavefronts(o, width, active_mask, offsets.data());
    }

    smem_cost cost(const op &o, uint32_t width, uint32_t active_mask,
                   const addresses &offsets) const {
        smem_cost c{};
        check(smem_cost_op(config_, o.get(), width, active_mask, offsets.data(), &c));
        return c;
    }

    std::vector<smem_transaction> partition(const op &o, uint32_t width, uint32_t active_mask,
                                            const addresses &offsets) const {
        std::vector<smem_transaction> out(SMEM_MAX_TRANSACTIONS);
        uint32_t count = 0;
        check(smem_partition_op(config_, o.get(), width, active_mask, offsets.data(), out.data(),
                                SMEM_MAX_TRANSACTIONS, &count));
        out.resize(count);
        return out;
    }

    /* Cycles on sm_90 with `warps` warps of one SM (an smem::error with
     * SMEM_ERR_NOT_MEASURED elsewhere, SMEM_ERR_ARGUMENT for 0 warps or more
     * than 64). */
    smem_timing timing(const op &o, uint32_t width, uint32_t active_mask,
                       const addresses &offsets, uint32_t warps) const {
        smem_timing t{};
        check(smem_timing_op(config_, o.get(), width, active_mask, offsets.data(), warps, &t));
        return t;
    }

    /* The wavefronts of masks.size() requests, request i at offsets[32 * i]. */
    std::vector<uint32_t> wavefronts_batch(const op &o, uint32_t width,
                                           const std::vector<uint32_t> &masks,
                                           const std::vector<uint32_t> &offsets) const {
        if (offsets.size() != SMEM_WARP_SIZE * masks.size())
            throw std::invalid_argument("wavefronts_batch: offsets must hold 32 per mask");
        std::vector<uint32_t> out(masks.size());
        check(smem_wavefronts_batch(config_, o.get(), width, masks.size(), masks.data(),
                                    offsets.data(), out.data()));
        return out;
    }

    std::vector<smem_cost> cost_batch(const op &o, uint32_t width,
                                      const std::vector<uint32_t> &masks,
                                      const std::vector<uint32_t> &offsets) const {
        if (offsets.size() != SMEM_WARP_SIZE * masks.size())
            throw std::invalid_argument("cost_batch: offsets must hold 32 per mask");
        std::vector<smem_cost> out(masks.size());
        check(smem_cost_batch(config_, o.get(), width, masks.size(), masks.data(),
                              offsets.data(), out.data()));
        return out;
    }

    /* The C handle, for calls this wrapper does not cover. */
    const smem_config *get() const noexcept { return config_; }

  private:
    void reset() noexcept {
        if (config_) smem_config_free(config_);
        config_ = nullptr;
    }
    smem_config *config_;
};

}  // namespace smem

#endif /* SMEM_HPP */

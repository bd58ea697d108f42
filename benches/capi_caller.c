/* The C side of benches/capi.rs: a simulator's loop calling the C API once
 * per request (the op as a string, or parsed once), or once per batch. Each
 * function returns the sum of the counts, or UINT32_MAX on an error. Built
 * by benches/build.rs with the cc crate (-O2 or the profile's level). */
#include <stddef.h>
#include <stdint.h>

#include "smem.h"

uint32_t caller_wavefronts_string(const smem_config *config, const char *op, uint32_t width,
                                  size_t n, const uint32_t *masks, const uint32_t *addresses) {
    uint32_t total = 0, wavefronts = 0;
    for (size_t i = 0; i < n; i++) {
        if (smem_wavefronts(config, op, width, masks[i], addresses + 32 * i, &wavefronts) !=
            SMEM_OK)
            return UINT32_MAX;
        total += wavefronts;
    }
    return total;
}

uint32_t caller_wavefronts_op(const smem_config *config, smem_op op, uint32_t width, size_t n,
                              const uint32_t *masks, const uint32_t *addresses) {
    uint32_t total = 0, wavefronts = 0;
    for (size_t i = 0; i < n; i++) {
        if (smem_wavefronts_op(config, op, width, masks[i], addresses + 32 * i, &wavefronts) !=
            SMEM_OK)
            return UINT32_MAX;
        total += wavefronts;
    }
    return total;
}

uint32_t caller_wavefronts_batch(const smem_config *config, smem_op op, uint32_t width, size_t n,
                                 const uint32_t *masks, const uint32_t *addresses,
                                 uint32_t *out) {
    if (smem_wavefronts_batch(config, op, width, n, masks, addresses, out) != SMEM_OK)
        return UINT32_MAX;
    uint32_t total = 0;
    for (size_t i = 0; i < n; i++) total += out[i];
    return total;
}

uint32_t caller_cost_op(const smem_config *config, smem_op op, uint32_t width, size_t n,
                        const uint32_t *masks, const uint32_t *addresses) {
    uint32_t total = 0;
    smem_cost cost;
    for (size_t i = 0; i < n; i++) {
        if (smem_cost_op(config, op, width, masks[i], addresses + 32 * i, &cost) != SMEM_OK)
            return UINT32_MAX;
        total += cost.bank_conflicts;
    }
    return total;
}

uint32_t caller_cost_batch(const smem_config *config, smem_op op, uint32_t width, size_t n,
                           const uint32_t *masks, const uint32_t *addresses, smem_cost *out) {
    if (smem_cost_batch(config, op, width, n, masks, addresses, out) != SMEM_OK)
        return UINT32_MAX;
    uint32_t total = 0;
    for (size_t i = 0; i < n; i++) total += out[i].bank_conflicts;
    return total;
}

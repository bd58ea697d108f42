/*
 * smem.h: the C API of smem-model, a reference model of GPU (CUDA) shared
 * memory. Link with libsmem.a (and -lpthread -ldl -lm) or libsmem.so.
 *
 * Every function that can fail returns SMEM_OK (0) or a negative SMEM_ERR_*
 * code, and smem_last_error() then gives this thread's message. No Rust panic
 * crosses this boundary: one is reported as SMEM_ERR_INTERNAL.
 *
 * Addresses are byte offsets into the shared window (what cvta.to.shared
 * gives), one per lane; lanes outside the active mask are ignored, whatever
 * they hold. Ops are named as SASS and traces spell them ("LDS", "LDS.U.128",
 * "STS.64", "ATOMS.CAS.64", "RED.ADD", "LDSM.16.MT88.4", "STSM.16.M88.2",
 * "LDGSTS.E.BYPASS.128"), as PTX does ("ld.shared.v4.f32", "st.shared.u8",
 * "atom.shared.add.u64", "red.shared.add.f32",
 * "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16", "cp.async.cg.shared.global")
 * or by the short names ("load", "store", "atom.cas", "ldsm.x4.trans",
 * "cp.async.ca"), in any case; a bare "ATOMS" or "atom" is an atomic add. A
 * width the name gives ("LDS.128": 16) must agree with the width argument;
 * width 0 takes the name's. Architectures as "sm_90", "9.0", "compute_86",
 * "sm_90a", "NVIDIA H100 80GB HBM3".
 *
 * Speed: the calls that take the op as a string parse it on every call;
 * smem_op_parse parses it once, and the _op calls and the batches then cost
 * what the Rust calls do (benches/capi.rs measures them side by side).
 *
 * Threads: one smem_config may be shared by any number of threads calling the
 * request functions at once (they only read it). smem_config_set_bank_bytes
 * and smem_config_free must not run while another call uses the same
 * configuration. smem_last_error() is per thread.
 *
 * Freed configurations: a call given a configuration already freed answers
 * SMEM_ERR_FREED (a second smem_config_free too), never a wrong count or an
 * abort. The library keeps a freed configuration's memory and hands it out
 * again only after 64 more frees, so a stale handle is detected at least
 * until then; later it may name a newer configuration. A pointer that never
 * came from smem_config_new is not detected.
 *
 * Checked against the Rust definitions by capi/tests/header.rs.
 */
#ifndef SMEM_H
#define SMEM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Lanes in a warp. */
#define SMEM_WARP_SIZE 32
/* The most transactions one request takes on any capability (1.x, 16-byte
 * accesses all in one bank: 4 parts x 2 half-warps x 16 steps). */
#define SMEM_MAX_TRANSACTIONS 128

/* Return codes. */
#define SMEM_OK 0
/* A pointer argument was NULL. */
#define SMEM_ERR_NULL (-1)
/* The op name (or an arch name) names nothing known, or no op (red.exch). */
#define SMEM_ERR_UNKNOWN (-2)
/* The width is not 1, 2, 4, 8 or 16, or not one the op has. */
#define SMEM_ERR_WIDTH (-3)
/* An active lane's address is not a multiple of the width. */
#define SMEM_ERR_MISALIGNED (-4)
/* An active lane's access runs past the shared window. */
#define SMEM_ERR_OUTSIDE_WINDOW (-5)
/* The capability lacks the op or this width of it (ldmatrix before 7.5,
 * stmatrix before 9.0, 64-bit shared atomics before 2.0, ...). */
#define SMEM_ERR_UNSUPPORTED_OP (-6)
/* More transactions than the buffer holds; *count says how many there are. */
#define SMEM_ERR_CAPACITY (-7)
/* A bug in the library (a caught panic); please report it. */
#define SMEM_ERR_INTERNAL (-8)
/* Timing asked of a capability that was not measured (only sm_90 was). */
#define SMEM_ERR_NOT_MEASURED (-9)
/* A configuration already freed, or an smem_op not made by smem_op_parse. */
#define SMEM_ERR_FREED (-10)
/* An argument out of its range: a number of warps an SM cannot hold (0, or
 * more than 64 on sm_90). */
#define SMEM_ERR_ARGUMENT (-11)

/* A bank configuration for one compute capability (opaque). */
typedef struct smem_config smem_config;

/* An op parsed once by smem_op_parse, with the width its name gives: a small
 * value to keep and pass by value (opaque: fill it only with smem_op_parse;
 * a zeroed one is refused with SMEM_ERR_FREED). */
typedef struct smem_op {
    uint32_t opaque;
} smem_op;

/* What a request costs. */
typedef struct smem_cost {
    /* Wavefronts (transactions): Nsight Compute's wavefronts counter. */
    uint32_t wavefronts;
    /* The wavefronts without bank conflicts. */
    uint32_t ideal_wavefronts;
    /* wavefronts - ideal_wavefronts: Nsight Compute's bank-conflict counter. */
    uint32_t bank_conflicts;
    /* Steps of the busiest phase: the n of an n-way conflict. */
    uint32_t ways;
} smem_cost;

/* One transaction (wavefront) of a partition. */
typedef struct smem_transaction {
    /* The lanes it serves, bit i = lane i (0 for the extra step 2.x takes for
     * 128-bit accesses; on 1.x a lane is in one transaction per 4-byte part). */
    uint32_t lanes;
    /* The banks it touches, bit i = bank i. */
    uint32_t banks;
    /* Its phase, counting from 0. */
    uint32_t phase;
    /* The 4-byte part of each lane's access it moves (1.x), else 0. */
    uint32_t part;
} smem_transaction;

/* What one instruction costs in cycles on sm_90 (measured; NaN where a figure
 * was not measured for the op, never a guess). */
typedef struct smem_timing {
    /* Cycles the SM's shared pipe is busy: one per wavefront. */
    uint32_t pipe_cycles;
    /* Cycles from issue to the loaded value for one warp alone (loads only). */
    double latency;
    /* Cycles per instruction with `warps` warps each in a dependent chain. */
    double latency_cycles_per_instruction;
    /* Cycles per instruction with `warps` warps issuing it independently;
     * NaN where not claimed (fewer than 12 warps, merged 8-byte loads). */
    double throughput_cycles_per_instruction;
} smem_timing;

/* The configuration a device of `arch` starts in, or NULL (and a message in
 * smem_last_error()) for an unknown arch. Free with smem_config_free. */
smem_config *smem_config_new(const char *arch);

/* Frees a configuration; NULL is ignored. SMEM_OK, or SMEM_ERR_FREED (and
 * nothing done) for one already freed. Not while another call uses it. */
int smem_config_free(smem_config *config);

/* Kepler's bank mode, as cudaDeviceSetSharedMemConfig: bank_bytes 4 or 8 on
 * 3.x; elsewhere the width is fixed and the call changes nothing. Not while
 * another call uses the same configuration. */
int smem_config_set_bank_bytes(smem_config *config, uint32_t bank_bytes);

/* Parses an op name once (any name above), for the _op calls. */
int smem_op_parse(const char *name, smem_op *out);

/* The access width in bytes a parsed op's name gives ("LDS.128": 16,
 * "ldsm.x4": 16), or 0 for none ("LDS") or an op not from smem_op_parse. */
uint32_t smem_op_width(smem_op op);

/* The wavefronts of one warp instruction. */
int smem_wavefronts(const smem_config *config, const char *op, uint32_t width,
                    uint32_t active_mask, const uint32_t addresses[32],
                    uint32_t *wavefronts);

/* As smem_wavefronts, from generic (flat) addresses: each active lane's
 * shared offset is address - window_base, which must be below 2^32. */
int smem_wavefronts_generic(const smem_config *config, const char *op,
                            uint32_t width, uint32_t active_mask,
                            const uint64_t addresses[32], uint64_t window_base,
                            uint32_t *wavefronts);

/* The wavefronts, ideal wavefronts, bank conflicts and ways. */
int smem_cost_of(const smem_config *config, const char *op, uint32_t width,
                 uint32_t active_mask, const uint32_t addresses[32],
                 smem_cost *cost);

/* The transactions in the order served: writes min(count, capacity) of them to
 * `transactions` and their number to *count; SMEM_ERR_CAPACITY when capacity
 * is too small (SMEM_MAX_TRANSACTIONS always suffices). */
int smem_partition(const smem_config *config, const char *op, uint32_t width,
                   uint32_t active_mask, const uint32_t addresses[32],
                   smem_transaction *transactions, uint32_t capacity,
                   uint32_t *count);

/* The cycles of one instruction with `warps` warps of one SM running it:
 * SMEM_ERR_NOT_MEASURED on capabilities other than sm_90, SMEM_ERR_ARGUMENT
 * for 0 warps or more than an SM holds (64). */
int smem_timing_of(const smem_config *config, const char *op, uint32_t width,
                   uint32_t active_mask, const uint32_t addresses[32],
                   uint32_t warps, smem_timing *timing);

/* The same five calls for an op parsed by smem_op_parse: no parse per call.
 * width 0 takes the width the op's name gives. */
int smem_wavefronts_op(const smem_config *config, smem_op op, uint32_t width,
                       uint32_t active_mask, const uint32_t addresses[32],
                       uint32_t *wavefronts);
int smem_wavefronts_generic_op(const smem_config *config, smem_op op,
                               uint32_t width, uint32_t active_mask,
                               const uint64_t addresses[32],
                               uint64_t window_base, uint32_t *wavefronts);
int smem_cost_op(const smem_config *config, smem_op op, uint32_t width,
                 uint32_t active_mask, const uint32_t addresses[32],
                 smem_cost *cost);
int smem_partition_op(const smem_config *config, smem_op op, uint32_t width,
                      uint32_t active_mask, const uint32_t addresses[32],
                      smem_transaction *transactions, uint32_t capacity,
                      uint32_t *count);
int smem_timing_op(const smem_config *config, smem_op op, uint32_t width,
                   uint32_t active_mask, const uint32_t addresses[32],
                   uint32_t warps, smem_timing *timing);

/* n requests of one op and width at once: request i has the active mask
 * masks[i] and the offsets addresses[32 * i .. 32 * i + 31]; its wavefronts go
 * to wavefronts[i] (its cost to costs[i]). On an error the requests before
 * the failing one are written and the message starts "request i: ". */
int smem_wavefronts_batch(const smem_config *config, smem_op op, uint32_t width,
                          size_t n, const uint32_t *masks,
                          const uint32_t *addresses, uint32_t *wavefronts);
int smem_cost_batch(const smem_config *config, smem_op op, uint32_t width,
                    size_t n, const uint32_t *masks, const uint32_t *addresses,
                    smem_cost *costs);

/* This thread's last error message ("" if none). Valid until the next call
 * that fails on this thread. */
const char *smem_last_error(void);

/* The library version, e.g. "0.1.0". */
const char *smem_version(void);

#ifdef __cplusplus
}
#endif

#endif /* SMEM_H */

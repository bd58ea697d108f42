/* The C API from C: every function, every error code with its message, and
 * the thread-local last error. Built against libsmem.a and run by
 * capi/tests/c_programs.rs. Prints "N passed, M failed" and exits non-zero on
 * a failure. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "smem.h"

static int passed, failed;

#define CHECK(cond)                                                            \
    do {                                                                       \
        if (cond) {                                                            \
            passed++;                                                          \
        } else {                                                               \
            failed++;                                                          \
            fprintf(stderr, "%s:%d: check failed: %s (last error: %s)\n",      \
                    __FILE__, __LINE__, #cond, smem_last_error());             \
        }                                                                      \
    } while (0)

static int starts_with(const char *text, const char *prefix) {
    return strncmp(text, prefix, strlen(prefix)) == 0;
}

static void strided(uint32_t addresses[32], uint32_t stride) {
    for (uint32_t lane = 0; lane < 32; lane++) addresses[lane] = lane * stride;
}

/* One configuration shared by threads: each counts the same 256 requests
 * (strides 0 to 255 over 4-byte loads, and a batch of them) 200 times and
 * checks every count against the expected ones, computed before the threads
 * start. */
#define SHARED_REQUESTS 256
static uint32_t shared_expected[SHARED_REQUESTS];

struct shared_job {
    const smem_config *config;
    smem_op op;
    int wrong;
};

static void *count_in_a_thread(void *arg) {
    struct shared_job *job = (struct shared_job *)arg;
    uint32_t masks[SHARED_REQUESTS];
    uint32_t *addresses = (uint32_t *)malloc(sizeof(uint32_t) * 32 * SHARED_REQUESTS);
    uint32_t batch[SHARED_REQUESTS];
    for (uint32_t i = 0; i < SHARED_REQUESTS; i++) {
        masks[i] = 0xffffffffu;
        for (uint32_t lane = 0; lane < 32; lane++) addresses[32 * i + lane] = 4 * i * lane % 49152;
    }
    for (int round = 0; round < 200; round++) {
        for (uint32_t i = 0; i < SHARED_REQUESTS; i++) {
            uint32_t n = 0;
            if (smem_wavefronts_op(job->config, job->op, 4, 0xffffffffu, addresses + 32 * i, &n) !=
                    SMEM_OK ||
                n != shared_expected[i])
                job->wrong++;
        }
        if (smem_wavefronts_batch(job->config, job->op, 4, SHARED_REQUESTS, masks, addresses,
                                  batch) != SMEM_OK ||
            memcmp(batch, shared_expected, sizeof batch) != 0)
            job->wrong++;
    }
    free(addresses);
    return NULL;
}

static void *fail_in_another_thread(void *config) {
    uint32_t addresses[32] = {0}, wavefronts;
    int status = smem_wavefronts((const smem_config *)config, "LDG", 4, ~0u,
                                 addresses, &wavefronts);
    return (void *)(long)(status == SMEM_ERR_UNKNOWN &&
                          starts_with(smem_last_error(), "unknown op \"LDG\""));
}

int main(void) {
    uint32_t addresses[32], wavefronts = 0, count = 0;
    smem_config *sm90 = smem_config_new("sm_90");
    CHECK(sm90 != NULL);
    CHECK(strcmp(smem_last_error(), "") == 0);
    CHECK(strcmp(smem_version(), "0.1.0") == 0);

    /* s[stride * lane] on floats: 1, 2 and 32 wavefronts. */
    strided(addresses, 4);
    CHECK(smem_wavefronts(sm90, "LDS", 4, 0xffffffffu, addresses, &wavefronts) == SMEM_OK);
    CHECK(wavefronts == 1);
    strided(addresses, 8);
    CHECK(smem_wavefronts(sm90, "load", 4, 0xffffffffu, addresses, &wavefronts) == SMEM_OK);
    CHECK(wavefronts == 2);
    strided(addresses, 128);
    CHECK(smem_wavefronts(sm90, "STS", 4, 0xffffffffu, addresses, &wavefronts) == SMEM_OK);
    CHECK(wavefronts == 32);
    /* Inactive lanes' stale values are ignored: only lane 0 and 16 remain. */
    addresses[16] = 2048;
    for (int lane = 1; lane < 32; lane++)
        if (lane != 16) addresses[lane] = 3;
    CHECK(smem_wavefronts(sm90, "LDS", 4, 0x00010001u, addresses, &wavefronts) == SMEM_OK);
    CHECK(wavefronts == 2);
    CHECK(smem_wavefronts(sm90, "LDS", 4, 0, addresses, &wavefronts) == SMEM_OK);
    CHECK(wavefronts == 0);

    /* The cost. */
    smem_cost cost;
    strided(addresses, 16);
    CHECK(smem_cost_of(sm90, "LDS", 4, 0xffffffffu, addresses, &cost) == SMEM_OK);
    CHECK(cost.wavefronts == 4 && cost.ideal_wavefronts == 1 && cost.bank_conflicts == 3 &&
          cost.ways == 4);

    /* The partition: s[2 * lane] is two half-warps on the even banks. */
    smem_transaction transactions[SMEM_MAX_TRANSACTIONS];
    strided(addresses, 8);
    CHECK(smem_partition(sm90, "LDS", 4, 0xffffffffu, addresses, transactions,
                         SMEM_MAX_TRANSACTIONS, &count) == SMEM_OK);
    CHECK(count == 2);
    CHECK(transactions[0].lanes == 0x0000ffffu && transactions[1].lanes == 0xffff0000u);
    CHECK(transactions[0].banks == 0x55555555u && transactions[1].banks == 0x55555555u);
    CHECK(transactions[1].phase == 0 && transactions[1].part == 0);
    CHECK(smem_partition(sm90, "LDS", 4, 0xffffffffu, addresses, transactions, 1, &count) ==
          SMEM_ERR_CAPACITY);
    CHECK(count == 2 && transactions[0].lanes == 0x0000ffffu);
    CHECK(strcmp(smem_last_error(),
                 "the request takes 2 transactions but the buffer holds 1") == 0);
    /* 1.x: a double is two 4-byte parts, so lane 0 is in two transactions. */
    smem_config *sm13 = smem_config_new("1.3");
    CHECK(sm13 != NULL);
    strided(addresses, 8);
    CHECK(smem_partition(sm13, "LDS", 8, 0xffffffffu, addresses, transactions,
                         SMEM_MAX_TRANSACTIONS, &count) == SMEM_OK);
    int lane0 = 0;
    for (uint32_t i = 0; i < count; i++) lane0 += transactions[i].lanes & 1u;
    CHECK(count == 8 && lane0 == 2 && transactions[4].part == 1);

    /* Cycles on sm_90: one pipe cycle per wavefront; loads have a latency. */
    smem_timing timing;
    strided(addresses, 8);
    CHECK(smem_timing_of(sm90, "LDS", 4, 0xffffffffu, addresses, 16, &timing) == SMEM_OK);
    CHECK(timing.pipe_cycles == 2 && timing.latency > 20.0);
    CHECK(timing.throughput_cycles_per_instruction == 2.0);
    CHECK(smem_timing_of(sm90, "LDS", 4, 0xffffffffu, addresses, 4, &timing) == SMEM_OK);
    CHECK(timing.throughput_cycles_per_instruction != timing.throughput_cycles_per_instruction); /* NaN: not claimed */
    CHECK(smem_timing_of(sm90, "STS", 4, 0xffffffffu, addresses, 16, &timing) == SMEM_OK);
    CHECK(timing.pipe_cycles == 2 && timing.latency != timing.latency); /* NaN */
    CHECK(smem_timing_of(sm13, "LDS", 4, 0xffffffffu, addresses, 16, &timing) ==
          SMEM_ERR_NOT_MEASURED);
    CHECK(strcmp(smem_last_error(),
                 "timing was measured on compute capability 9.0 only: 1.3 was not measured") == 0);
    /* No SM holds 0 warps, or 65: an argument error, not OK with NaN figures. */
    CHECK(smem_timing_of(sm90, "LDS", 4, 0xffffffffu, addresses, 0, &timing) == SMEM_ERR_ARGUMENT);
    CHECK(strcmp(smem_last_error(),
                 "0 warps on one SM: an SM of compute capability 9.0 holds 1 to 64") == 0);
    CHECK(smem_timing_of(sm90, "LDS", 4, 0xffffffffu, addresses, 65, &timing) == SMEM_ERR_ARGUMENT);

    /* Generic addresses with a window base. */
    uint64_t generic[32];
    const uint64_t base = 0x7f0000000000ull;
    for (int lane = 0; lane < 32; lane++) generic[lane] = base + 8u * lane;
    CHECK(smem_wavefronts_generic(sm90, "LDS", 4, 0xffffffffu, generic, base, &wavefronts) ==
          SMEM_OK);
    CHECK(wavefronts == 2);
    generic[7] = 0x1000;
    CHECK(smem_wavefronts_generic(sm90, "LDS", 4, 0xffffffffu, generic, base, &wavefronts) ==
          SMEM_ERR_OUTSIDE_WINDOW);
    CHECK(strcmp(smem_last_error(),
                 "lane 7 accesses generic address 0x1000, outside the 4 GiB shared window "
                 "that starts at 0x7f0000000000") == 0);

    /* Kepler's eight-byte mode: s[3 * lane] on floats conflicts 2-way. */
    smem_config *sm35 = smem_config_new("sm_35");
    strided(addresses, 12);
    CHECK(smem_wavefronts(sm35, "LDS", 4, 0xffffffffu, addresses, &wavefronts) == SMEM_OK);
    CHECK(wavefronts == 1);
    CHECK(smem_config_set_bank_bytes(sm35, 8) == SMEM_OK);
    CHECK(smem_wavefronts(sm35, "LDS", 4, 0xffffffffu, addresses, &wavefronts) == SMEM_OK);
    CHECK(wavefronts == 2);
    CHECK(smem_config_set_bank_bytes(sm35, 16) == SMEM_ERR_WIDTH);
    CHECK(strcmp(smem_last_error(), "bank width of 16 bytes: expected 4 or 8") == 0);

    /* Every error code, with its message. */
    CHECK(smem_config_new("sm_1x") == NULL);
    CHECK(starts_with(smem_last_error(), "unknown compute capability \"sm_1x\""));
    CHECK(smem_config_new(NULL) == NULL);
    CHECK(strcmp(smem_last_error(), "arch is NULL") == 0);
    strided(addresses, 4);
    CHECK(smem_wavefronts(NULL, "LDS", 4, ~0u, addresses, &wavefronts) == SMEM_ERR_NULL);
    CHECK(strcmp(smem_last_error(), "config is NULL") == 0);
    CHECK(smem_wavefronts(sm90, "LDS", 4, ~0u, NULL, &wavefronts) == SMEM_ERR_NULL);
    CHECK(smem_wavefronts(sm90, "LDS", 4, ~0u, addresses, NULL) == SMEM_ERR_NULL);
    CHECK(smem_wavefronts(sm90, NULL, 4, ~0u, addresses, &wavefronts) == SMEM_ERR_NULL);
    CHECK(smem_wavefronts(sm90, "LDG", 4, ~0u, addresses, &wavefronts) == SMEM_ERR_UNKNOWN);
    CHECK(starts_with(smem_last_error(), "unknown op \"LDG\": expected LDS, STS, ATOMS"));
    CHECK(smem_wavefronts(sm90, "LDS", 12, ~0u, addresses, &wavefronts) == SMEM_ERR_WIDTH);
    CHECK(strcmp(smem_last_error(),
                 "access width of 12 bytes is not supported: expected 1, 2, 4, 8 or 16") == 0);
    CHECK(smem_wavefronts(sm90, "ATOMS", 2, ~0u, addresses, &wavefronts) == SMEM_ERR_WIDTH);
    CHECK(smem_wavefronts(sm90, "red.exch", 4, ~0u, addresses, &wavefronts) == SMEM_ERR_UNKNOWN);
    CHECK(smem_wavefronts(sm90, "LDS", 8, ~0u, addresses, &wavefronts) == SMEM_ERR_MISALIGNED);
    CHECK(strcmp(smem_last_error(), "misaligned address: lane 1 accesses 8 bytes at 0x4, "
                                    "which is not a multiple of 8") == 0);
    addresses[3] = 0x40000;
    CHECK(smem_wavefronts(sm90, "LDS", 4, ~0u, addresses, &wavefronts) ==
          SMEM_ERR_OUTSIDE_WINDOW);
    CHECK(starts_with(smem_last_error(), "lane 3 accesses bytes 0x40000 to 0x40004, past the "
                                         "end of the"));
    smem_config *sm80 = smem_config_new("8.0");
    strided(addresses, 16);
    CHECK(smem_wavefronts(sm80, "stmatrix.x4", 16, ~0u, addresses, &wavefronts) ==
          SMEM_ERR_UNSUPPORTED_OP);
    CHECK(strcmp(smem_last_error(),
                 "STSM.x4 does not exist on compute capability 8.0: it needs 9.0 or later") == 0);
    CHECK(smem_partition(sm90, "LDS", 4, ~0u, addresses, NULL, 4, &count) == SMEM_ERR_NULL);

    /* The last error is per thread: another thread's failure leaves ours. */
    pthread_t thread;
    void *other_ok = NULL;
    CHECK(pthread_create(&thread, NULL, fail_in_another_thread, sm90) == 0);
    CHECK(pthread_join(thread, &other_ok) == 0);
    CHECK(other_ok == (void *)1);
    CHECK(strcmp(smem_last_error(), "transactions is NULL") == 0);

    /* Ops parsed once: SASS and PTX spellings, the width they give. */
    smem_op op, lds, zero;
    memset(&zero, 0, sizeof zero);
    CHECK(smem_op_parse("LDS.U.128", &op) == SMEM_OK && smem_op_width(op) == 16);
    CHECK(smem_op_parse("ld.shared.v2.f32", &op) == SMEM_OK && smem_op_width(op) == 8);
    CHECK(smem_op_parse("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16", &op) == SMEM_OK &&
          smem_op_width(op) == 16);
    CHECK(smem_op_parse("LDS", &lds) == SMEM_OK && smem_op_width(lds) == 0);
    CHECK(smem_op_parse("LDG.E.128", &op) == SMEM_ERR_UNKNOWN);
    CHECK(starts_with(smem_last_error(), "unknown op \"LDG.E.128\""));
    CHECK(smem_op_parse(NULL, &op) == SMEM_ERR_NULL);
    CHECK(smem_op_parse("LDS", NULL) == SMEM_ERR_NULL);
    CHECK(smem_op_width(zero) == 0);
    strided(addresses, 16);
    CHECK(smem_op_parse("LDS.128", &op) == SMEM_OK);
    CHECK(smem_wavefronts_op(sm90, op, 0, ~0u, addresses, &wavefronts) == SMEM_OK);
    CHECK(wavefronts == 4);
    CHECK(smem_wavefronts_op(sm90, op, 16, ~0u, addresses, &wavefronts) == SMEM_OK);
    CHECK(smem_wavefronts_op(sm90, op, 4, ~0u, addresses, &wavefronts) == SMEM_ERR_WIDTH);
    CHECK(strcmp(smem_last_error(), "the op's name gives LDS 16 bytes per lane, but an access "
                                    "width of 4 bytes was given") == 0);
    CHECK(smem_wavefronts(sm90, "atom.add.u64", 4, ~0u, addresses, &wavefronts) ==
          SMEM_ERR_WIDTH);
    CHECK(smem_wavefronts_op(sm90, lds, 0, ~0u, addresses, &wavefronts) == SMEM_ERR_WIDTH);
    CHECK(strcmp(smem_last_error(), "width 0 asks for the width of the op's name, but LDS names "
                                    "none: give 1, 2, 4, 8 or 16") == 0);
    CHECK(smem_wavefronts_op(sm90, zero, 4, ~0u, addresses, &wavefronts) == SMEM_ERR_FREED);
    CHECK(strcmp(smem_last_error(), "op 0x00000000 was not made by smem_op_parse") == 0);
    CHECK(smem_cost_op(sm90, lds, 4, ~0u, addresses, &cost) == SMEM_OK && cost.ways == 4);
    CHECK(smem_partition_op(sm90, op, 0, ~0u, addresses, transactions, SMEM_MAX_TRANSACTIONS,
                            &count) == SMEM_OK &&
          count == 4);
    CHECK(smem_timing_op(sm90, op, 0, ~0u, addresses, 16, &timing) == SMEM_OK &&
          timing.pipe_cycles == 4);
    for (int lane = 0; lane < 32; lane++) generic[lane] = base + 16u * lane;
    CHECK(smem_wavefronts_generic_op(sm90, op, 0, ~0u, generic, base, &wavefronts) == SMEM_OK &&
          wavefronts == 4);

    /* Batches: request i's offsets at 32 * i; an error names the request. */
    uint32_t masks[3] = {~0u, ~0u, 0xffffu}, many[96], counts[3] = {0, 0, 0};
    smem_cost costs[3];
    for (int i = 0; i < 96; i++) many[i] = 4u * (uint32_t)(i % 32) * (uint32_t)(1 + i / 32);
    CHECK(smem_wavefronts_batch(sm90, lds, 4, 3, masks, many, counts) == SMEM_OK);
    CHECK(counts[0] == 1 && counts[1] == 2 && counts[2] == 1);
    CHECK(smem_cost_batch(sm90, lds, 4, 3, masks, many, costs) == SMEM_OK);
    CHECK(costs[1].bank_conflicts == 1 && costs[2].wavefronts == 1);
    CHECK(smem_wavefronts_batch(sm90, lds, 4, 0, NULL, NULL, NULL) == SMEM_OK);
    CHECK(smem_wavefronts_batch(sm90, lds, 4, 3, NULL, many, counts) == SMEM_ERR_NULL);
    many[65] = 2;
    counts[0] = counts[1] = 0;
    CHECK(smem_wavefronts_batch(sm90, lds, 4, 3, masks, many, counts) == SMEM_ERR_MISALIGNED);
    CHECK(counts[0] == 1 && counts[1] == 2);
    CHECK(strcmp(smem_last_error(), "request 2: misaligned address: lane 1 accesses 4 bytes at "
                                    "0x2, which is not a multiple of 4") == 0);

    /* One configuration shared by 8 threads at once. */
    for (uint32_t i = 0; i < SHARED_REQUESTS; i++) {
        uint32_t shared[32];
        for (uint32_t lane = 0; lane < 32; lane++) shared[lane] = 4 * i * lane % 49152;
        CHECK(smem_wavefronts_op(sm90, lds, 4, ~0u, shared, &shared_expected[i]) == SMEM_OK);
    }
    pthread_t threads[8];
    struct shared_job jobs[8];
    for (int t = 0; t < 8; t++) {
        jobs[t].config = sm90;
        jobs[t].op = lds;
        jobs[t].wrong = 0;
        CHECK(pthread_create(&threads[t], NULL, count_in_a_thread, &jobs[t]) == 0);
    }
    int wrong = 0;
    for (int t = 0; t < 8; t++) {
        CHECK(pthread_join(threads[t], NULL) == 0);
        wrong += jobs[t].wrong;
    }
    CHECK(wrong == 0);

    CHECK(smem_config_free(sm80) == SMEM_OK);
    CHECK(smem_config_free(sm35) == SMEM_OK);
    CHECK(smem_config_free(sm13) == SMEM_OK);
    CHECK(smem_config_free(sm90) == SMEM_OK);
    CHECK(smem_config_free(NULL) == SMEM_OK);

    /* A freed configuration answers an error, never a count; a second free too. */
    strided(addresses, 4);
    CHECK(smem_wavefronts(sm90, "LDS", 4, ~0u, addresses, &wavefronts) == SMEM_ERR_FREED);
    CHECK(strcmp(smem_last_error(),
                 "config was freed: smem_config_free was called on it before") == 0);
    CHECK(smem_wavefronts_op(sm90, lds, 4, ~0u, addresses, &wavefronts) == SMEM_ERR_FREED);
    CHECK(smem_config_set_bank_bytes(sm35, 8) == SMEM_ERR_FREED);
    CHECK(smem_config_free(sm90) == SMEM_ERR_FREED);
    /* Still detected after new configurations are made (up to 64 more frees). */
    for (int i = 0; i < 10; i++) {
        smem_config *other = smem_config_new("sm_80");
        CHECK(other != NULL && other != sm90);
        CHECK(smem_config_free(other) == SMEM_OK);
    }
    CHECK(smem_wavefronts(sm90, "LDS", 4, ~0u, addresses, &wavefronts) == SMEM_ERR_FREED);
    printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}

/*
 * The engine's modeled baseline times (COLL flag MF_EM_F_BASELINE,
 * include/mpifpga/engine_msg.h): how long MPICH's own algorithm takes for a
 * call on the same modeled fabric -- fpga_model/baseline/, host parameter
 * set skx-opa, every member entering together -- as `mpifpga-sim
 * --baseline` computes it.
 *
 * The baseline model needs an otherwise idle network, so it runs on a
 * second network of the same topology and parameters as the session's
 * offload network, created on the first request.  With all members entering
 * together on an idle network the result depends only on the call, so each
 * distinct call (opcode, op, datatype, processor-header size, root, the
 * members' global ranks, reduce_scatter counts) is simulated once and
 * cached: a call site repeated 1000 times costs one simulation.
 */
#ifndef MF_SERVER_BASELINE_CALLS_H
#define MF_SERVER_BASELINE_CALLS_H

#include <stdint.h>

#include "mpifpga/model.h"

typedef struct mf_blc mf_blc_t;

/* printf-style line printer for notes (the engine's log function). */
typedef void (*mf_blc_log_fn)(const char *fmt, ...);

/* One offloaded call, as the engine received it. */
typedef struct {
    mf_proc_hdr_t hdr;      /* opcode, op, dtype, root, size (processor-header size);
                               ctx and alg do not matter */
    int size;               /* communicator size */
    const int *members;     /* [size]: global rank of each comm rank */
    const uint32_t *counts; /* reduce_scatter: [size] byte counts, or NULL */
} mf_blc_call_t;

/* Baseline times for a session whose offload network is `offload`: the
 * second network copies its parameters and shares its topology (which must
 * outlive the mf_blc_t).  `log` gets a line when the baseline cannot be had.
 * NULL if out of memory. */
mf_blc_t *mf_blc_create(const mf_net_t *offload, mf_blc_log_fn log);
void mf_blc_destroy(mf_blc_t *b);

/* lat[i] = comm rank i's baseline latency in cycles of the offload
 * network's clock.  0, or -1 if the baseline cannot be had for this call
 * (logged once per distinct call; lat is then all 0). */
int mf_blc_latency(mf_blc_t *b, const mf_blc_call_t *c, uint64_t *lat);

/* Baseline simulations run so far (the cache's misses). */
unsigned long mf_blc_simulated(const mf_blc_t *b);

/* The OSU message size (mf_coll_spec_t.bytes) whose processor-header size
 * (mf_osu_hdr_size) is hdr_size: reduce_scatter hdr_size x comm_size
 * (the header carries one rank's block), barrier 0, else hdr_size. */
uint64_t mf_blc_osu_bytes(mf_opcode_t opc, uint64_t hdr_size, int comm_size);

#endif

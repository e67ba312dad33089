/*
 * Physical lower bounds of every collective on the modeled hardware: no
 * modeled time may be shorter.  They depend only on the parameter sets and
 * the topology, never on an algorithm, and hold for every rank separately
 * when all members enter at the same cycle (mf_coll_once, mf_bl_coll_once):
 *
 * Offload, rank i (all in switch cycles):
 *   every rank:   2 x host_overhead (post and completion) + pcie
 *                 + send_i / DMA rate (its reads have landed in the switch;
 *                 a transfer of k DMA beats spans k - 1 cycles of issue)
 *   if it must receive data that depends on other ranks:
 *                 2 x host_overhead + 2 x pcie (read there, write here)
 *                 + hops_far x link latency  (the farthest rank it needs)
 *                 and, separately,
 *                 2 x host_overhead + 2 x pcie + hops_near x link latency
 *                 + recv_i / DMA rate        (writes start after the first
 *                                             byte from anyone arrives)
 *                 + remote_i / (ingress links x link rate) likewise
 * Baseline MPI (host parameter set), rank i:
 *   NIC:          (send_i + recv_i) x G  (one DMA path, 001 sec. 5 / host.h)
 *                 + o_s if it sends + o_r if it receives
 *   path:         o_s + 2 x nic_latency + hops_far x link latency + o_r
 *
 * send_i / recv_i are the fewest bytes rank i must move (below), not what
 * an algorithm moves: e.g. an allreduce rank must send each of its m bytes
 * at least once (combined or not) and receive m bytes of remote
 * contributions.  With link jitter on, a link may be faster than its mean,
 * so the link latency used is the shortest one the model can produce
 * (1 cycle).  doc/model.md section 4b has the derivation per collective.
 */
#ifndef MF_COLL_BOUNDS_H
#define MF_COLL_BOUNDS_H

#include <stdint.h>

#include "coll/run.h"
#include "params/host.h"

/* The bytes a collective must move through rank i (comm rank), from the
 * spec's OSU size (mf_osu_hdr_size) or reduce_scatter counts. */
typedef struct {
    int moves;             /* 0: the call moves no data and completes locally */
    uint64_t send, recv;   /* through the rank's DMA / NIC, each direction */
    uint64_t remote;       /* of recv, bytes that come from other nodes */
    int needs_remote;      /* its result depends on other nodes' data */
    int hops_near, hops_far; /* nearest / farthest node whose data it needs */
} mf_bound_bytes_t;

void mf_bound_bytes(const mf_net_t *n, const mf_coll_spec_t *c, int size, const int *members,
                    int i, mf_bound_bytes_t *b);

/* Lower bound of comm rank i's latency, cycles: offloaded / baseline. */
uint64_t mf_bound_offload(const mf_net_t *n, const mf_coll_spec_t *c, int size,
                          const int *members, int i);
uint64_t mf_bound_baseline(const mf_net_t *n, const mf_host_params_t *h,
                           const mf_coll_spec_t *c, int size, const int *members, int i);

/* Runs c once with every member entering together -- offloaded on n and,
 * when bl and h are given, as baseline MPI on bl (another idle network of
 * the same shape) -- and gives the smallest latency / bound over the
 * ranks (1e9 where no rank has a bound) and which rank had it.  A ratio
 * below 1 is a modeled time faster than the hardware allows: a bug. */
typedef struct {
    double offload, baseline;
    int offload_rank, baseline_rank;
    double offload_avg_us, baseline_avg_us; /* OSU's figure: mean over ranks */
    double offload_max_us, baseline_max_us; /* the slowest rank (a gather's root) */
} mf_bound_result_t;

int mf_bound_check(mf_net_t *n, mf_net_t *bl, const mf_host_params_t *h,
                   const mf_coll_spec_t *c, int size, const int *members, mf_bound_result_t *r,
                   char *err, size_t len);

#endif

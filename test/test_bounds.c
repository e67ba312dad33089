/*
 * Physics first (fpga_model/coll/bounds.h): every modeled latency, offload
 * and baseline, for every rank, is at least its hardware lower bound.  A
 * fast grid of the eight collectives x sizes x node counts on the torus
 * and a fat tree (the full grid: `make bench-bounds`), and the bounds'
 * own arithmetic checked by hand on cases where it is easy.
 */
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "test_net.h"
#include "coll/bounds.h"
#include "coll/run.h"
#include "mpifpga/osu.h"

static mf_params_t params;
static mf_host_params_t host;

static const mf_opcode_t colls[] = {MF_OPC_REDUCE, MF_OPC_ALLREDUCE, MF_OPC_BCAST,
                                    MF_OPC_SCATTER, MF_OPC_GATHER, MF_OPC_ALLGATHER,
                                    MF_OPC_REDUCE_SCATTER, MF_OPC_SCAN, MF_OPC_EXSCAN,
                                    MF_OPC_ALLTOALL, MF_OPC_BARRIER};
#define NCOLLS (int)(sizeof colls / sizeof colls[0])

/* The switches' algorithms: the paper's, or the streaming trees (only the
 * collectives that have one are checked again then). */
static mf_algo_mode_t algo;

static void spec_for(mf_opcode_t opc, uint64_t bytes, int P, uint32_t *counts, mf_coll_spec_t *c)
{
    *c = (mf_coll_spec_t){.opc = opc, .op = MF_OP_SUM, .dtype = MF_DT_DOUBLE,
                          .root = P > 2 ? 2 : 0, .bytes = bytes, .algo = algo};
    if (opc == MF_OPC_REDUCE_SCATTER) {
        uint64_t e[512];
        mf_osu_rs_counts(bytes, P, 8, e);
        for (int i = 0; i < P; i++)
            counts[i] = (uint32_t)(e[i] * 8);
        c->counts = counts;
    }
}

/* One topology: every collective x size, offload and baseline. */
static void grid(const char *topo, int nodes, int ppn, const uint64_t *sizes, int nsizes)
{
    mf_topo_t t1, t2;
    mf_net_t *n = test_make_net(&params, topo, nodes, ppn, &t1);
    mf_net_t *bl = test_make_net(&params, topo, nodes, ppn, &t2);
    int P = nodes * ppn, *members = malloc(sizeof(int) * (size_t)P);
    uint32_t *counts = malloc(sizeof(uint32_t) * (size_t)P);
    char err[256] = "";
    if (!ok(n && bl && members && counts, "%s, %d x %d ranks: networks built", topo, nodes, ppn))
        goto out;
    for (int i = 0; i < P; i++)
        members[i] = i;
    if (!ok(mf_comm_setup(n, 0, P, members, err, sizeof err) == 0, "comm set up: %s", err))
        goto out;
    for (int k = 0; k < NCOLLS; k++)
        for (int s = 0; s < nsizes && (colls[k] != MF_OPC_ALLTOALL || P <= MF_ALLTOALL_MAX_MEMBERS);
             s++) {
            mf_coll_spec_t c;
            mf_bound_result_t r;
            if (algo != MF_ALGO_PAPER && mf_alg_tree(colls[k]) < 0)
                break;
            spec_for(colls[k], sizes[s], P, counts, &c);
            int rc = mf_bound_check(n, bl, &host, &c, P, members, &r, err, sizeof err);
            ok(rc == 0 && r.offload >= 1.0 && r.baseline >= 1.0,
               "%s%s %d ranks, %s %llu B: modeled / bound >= 1 for every rank "
               "(offload %.3f at rank %d, baseline %.3f at rank %d)%s%s",
               algo ? "tree " : "", topo, P, mf_opcode_name(colls[k]),
               (unsigned long long)sizes[s], r.offload,
               r.offload_rank, r.baseline, r.baseline_rank, rc ? ": " : "", rc ? err : "");
            if (colls[k] == MF_OPC_BARRIER)
                break;
        }
out:
    free(members);
    free(counts);
    if (n)
        mf_net_destroy(n), mf_topo_free(&t1);
    if (bl)
        mf_net_destroy(bl), mf_topo_free(&t2);
}

/* The arithmetic of the bounds on cases worked by hand (u280, skx-opa). */
static void by_hand(void)
{
    mf_topo_t t;
    mf_net_t *n = test_make_net(&params, "torus", 8, 1, &t);
    int members[8] = {0, 1, 2, 3, 4, 5, 6, 7};
    if (!ok(n != NULL, "torus:2x2x2 built"))
        return;
    /* Gather of 4 KiB to root 0: the root writes 7 x 4096 B through its
     * DMA at 2 phits x 32 B per cycle, 448 beats issued over 447 cycles,
     * which start no earlier than the first byte from its nearest
     * neighbour (1 hop, 110 cycles) can arrive; with 2 x host overhead
     * (50) and 2 x PCIe (125): 907.  A non-root reads 4096 B in 64 beats:
     * 63 + 2 x 50 + 125 = 288. */
    mf_coll_spec_t g = {.opc = MF_OPC_GATHER, .dtype = MF_DT_UINT8, .root = 0, .bytes = 4096};
    ok(mf_bound_offload(n, &g, 8, members, 0) == 907, "gather root bound: 907 cycles (got %llu)",
       (unsigned long long)mf_bound_offload(n, &g, 8, members, 0));
    ok(mf_bound_offload(n, &g, 8, members, 5) == 288, "gather non-root bound: 288 cycles (got %llu)",
       (unsigned long long)mf_bound_offload(n, &g, 8, members, 5));
    /* Allreduce of 8 B: rank 0 needs rank 7, 3 hops away: 2 x 50 + 2 x 125
     * + 3 x 110 = 680 <= the 720 cycles of doc/model.md's worked example. */
    mf_coll_spec_t a = {.opc = MF_OPC_ALLREDUCE, .dtype = MF_DT_DOUBLE, .bytes = 8};
    ok(mf_bound_offload(n, &a, 8, members, 0) == 680, "8 B allreduce bound: 680 cycles (got %llu)",
       (unsigned long long)mf_bound_offload(n, &a, 8, members, 0));
    /* Baseline gather of 1 MiB: the root's NIC moves 7 MiB at G = 78 ps/B:
     * 572.5 us = 143130 cycles, plus one o_r. */
    mf_coll_spec_t gb = {.opc = MF_OPC_GATHER, .dtype = MF_DT_UINT8, .root = 0, .bytes = 1 << 20};
    uint64_t b = mf_bound_baseline(n, &host, &gb, 8, members, 0);
    uint64_t o_r = (uint64_t)(host.o_recv_ns / 4.0);
    ok(b == 143130 + o_r, "baseline gather root bound: NIC 7 MiB x G + o_r = %llu (got %llu)",
       (unsigned long long)(143130 + o_r), (unsigned long long)b);
    /* Count 0 moves nothing: no bound beyond zero. */
    mf_coll_spec_t z = {.opc = MF_OPC_BCAST, .dtype = MF_DT_UINT8, .root = 0, .bytes = 0};
    ok(mf_bound_offload(n, &z, 8, members, 3) == 0, "count 0: bound 0");
    mf_net_destroy(n);
    mf_topo_free(&t);
}

/* A 1 MiB gather on torus:2x2x2 to root 0, per-rank latencies in cycles. */
static int gather_lat(mf_params_t *p, uint64_t *lat)
{
    mf_topo_t t;
    char err[256];
    int members[8] = {0, 1, 2, 3, 4, 5, 6, 7}, rc = -1;
    mf_net_t *n = test_make_net(p, "torus", 8, 1, &t);
    mf_coll_spec_t g = {.opc = MF_OPC_GATHER, .dtype = MF_DT_UINT8, .root = 0, .bytes = 1 << 20};
    mf_coll_timing_t tm;
    if (n && !mf_comm_setup(n, 0, 8, members, err, sizeof err) &&
        !mf_coll_once(n, &g, 8, members, NULL, NULL, mf_net_now(n), lat, &tm, err, sizeof err))
        rc = 0;
    else
        diag("gather: %s", n ? err : "no network");
    if (n) {
        for (int i = 0; !rc && i < 8; i++)
            if (lat[i] < mf_bound_offload(n, &g, 8, members, i))
                rc = -1;
        mf_net_destroy(n);
        mf_topo_free(&t);
    }
    return rc;
}

/* Parking in switch memory (park_mib, doc/model.md section 5): with it, a
 * gather leaf's send completes at its link's rate (7 is the last block the
 * root's DMA drains); with FIFOs only it waits for the root's drain. */
static void parking(void)
{
    uint64_t on[8], off[8];
    mf_params_t p = params;
    int r1 = gather_lat(&p, on);
    p.park_mib = 0;
    int r2 = gather_lat(&p, off);
    if (!ok(!r1 && !r2, "gather 1 MiB with and without parking: runs, every rank >= its bound"))
        return;
    /* 1 MiB over a 95.9 Gb/s link: 2^20 / 47.95 B per cycle = 21868 cycles */
    ok(on[7] < 21868 * 5 / 4, "parked: the last leaf is done at its link rate (%llu cycles)",
       (unsigned long long)on[7]);
    ok(off[7] > off[0] / 2, "FIFOs only: the last leaf waits for the root's drain (%llu of %llu)",
       (unsigned long long)off[7], (unsigned long long)off[0]);
    ok(on[0] <= off[0], "parking never slows the root (%llu vs %llu cycles)",
       (unsigned long long)on[0], (unsigned long long)off[0]);
}

int main(void)
{
    char err[256] = "";
    if (mf_params_load("u280", &params, err, sizeof err) ||
        mf_host_params_load("skx-opa", &host, err, sizeof err)) {
        ok(0, "parameter sets: %s", err);
        return tap_done();
    }
    by_hand();
    parking();
    static const uint64_t small[] = {8, 4096, 65536};
    static const uint64_t tiny[] = {8, 4096};
    grid("torus", 8, 1, small, 3);
    grid("torus", 27, 1, tiny, 2);
    grid("fattree:8", 16, 1, tiny, 2);
    grid("torus", 4, 2, tiny, 2);
    algo = MF_ALGO_TREE; /* the streaming trees (fpga_model/hw/ccm_stree.c, ccm_dring.c) */
    static const uint64_t tree_sizes[] = {8, 4096, 65536, 1 << 20};
    grid("torus", 8, 1, tree_sizes, 4);
    grid("torus", 27, 1, tiny, 2);
    grid("torus:4x4x4", 64, 1, tree_sizes + 2, 2);
    /* Credits over the path (doc/validation.md, "what assumption 8 is
     * worth"): some figures get faster with them, so they too must stay
     * above their bounds.  A 16-switch ring puts partners 8 hops away,
     * where a window waits for its credits. */
    algo = MF_ALGO_PAPER;
    if (ok(mf_params_set(&params, "credit_hop_cycles", "114", err, sizeof err) == 0,
           "credit_hop_cycles = 114 accepted%s%s", *err ? ": " : "", err)) {
        static const uint64_t path_sizes[] = {65536, 262144};
        grid("torus:16x1x1", 16, 1, path_sizes, 2);
    }
    return tap_done();
}

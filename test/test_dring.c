/*
 * Streaming Allgather on the torus (fpga_model/hw/ccm_dring.c): with
 * --algorithm tree every rank's result equals the reference on tori of
 * several shapes (odd and even rings, rings of one and two switches), at
 * sizes below and above a stream's window, with switch memory (u280) and
 * with FIFOs only (park_mib 0: no deadlock); the rings are really built
 * (faster than the paper's ring, and its latency grows with the rings'
 * radii, not with P); a communicator out of rank order runs the paper's
 * algorithm, to the cycle.  Reduce_scatter (the reverse, same file): the
 * same shapes, sum of doubles and max of int32, equal blocks, uneven
 * counts with empty blocks and a mostly empty vector; faster than
 * recursive halving; out of rank order, the paper's to the cycle.
 */
#include <stdlib.h>
#include <string.h>

#include "coll/run.h"
#include "net/network.h"
#include "params/params.h"
#include "ref_coll.h"
#include "tap.h"
#include "test_net.h"

#define MAXP 64
#define AG MF_OPC_ALLGATHER
#define RS MF_OPC_REDUCE_SCATTER

/* One call of rs in `mode`; every rank's result against the reference.
 * *max_us: the slowest rank's latency.  0 if all right. */
static int run_rs(mf_net_t *n, int P, const int *members, mf_algo_mode_t mode,
                  const ref_coll_t *rs, double *max_us, char *why, size_t len)
{
    void *send[MAXP] = {0}, *recv[MAXP] = {0}, *want[MAXP] = {0};
    mf_buf_t sb[MAXP], rb[MAXP];
    uint32_t cnt32[MAXP];
    uint64_t total = 0;
    int rc = -1;
    for (int i = 0; i < P; i++) {
        size_t s = ref_send_bytes(rs, P, i), r = ref_recv_bytes(rs, P, i);
        send[i] = calloc(1, s + 1), recv[i] = calloc(1, r + 1), want[i] = calloc(1, r + 1);
        if (!send[i] || !recv[i] || !want[i]) {
            snprintf(why, len, "out of memory");
            goto out;
        }
        ref_fill_input(rs, i, send[i], s, 11);
        sb[i] = (mf_buf_t){.base = send[i], .len = s};
        rb[i] = (mf_buf_t){.base = recv[i], .len = r};
        total += cnt32[i] = rs->counts ? (uint32_t)rs->counts[i] : (uint32_t)rs->bytes;
    }
    ref_coll_run(rs, P, (const void *const *)send, want);
    mf_coll_spec_t spec = {.opc = rs->opc, .op = rs->op, .dtype = rs->dtype, .algo = mode,
                           .bytes = rs->opc == MF_OPC_REDUCE_SCATTER ? total : rs->bytes,
                           .counts = rs->counts ? cnt32 : NULL};
    mf_coll_timing_t t;
    if (mf_coll_once(n, &spec, P, members, sb, rb, mf_net_now(n), NULL, &t, why, len))
        goto out;
    *max_us = t.max_us;
    for (int i = 0; i < P; i++) {
        size_t at = 0, r = ref_recv_bytes(rs, P, i);
        while (at < r && ((char *)recv[i])[at] == ((char *)want[i])[at])
            at++;
        if (at < r) {
            snprintf(why, len, "comm rank %d's result differs from byte %zu", i, at);
            goto out;
        }
    }
    rc = 0;
out:
    for (int i = 0; i < P; i++)
        free(send[i]), free(recv[i]), free(want[i]);
    return rc;
}

/* One Allgather of `bytes` a rank (double). */
static int run_check(mf_net_t *n, int P, const int *members, mf_algo_mode_t mode, size_t bytes,
                     double *max_us, char *why, size_t len)
{
    ref_coll_t rs = {.opc = MF_OPC_ALLGATHER, .op = MF_OP_SUM, .dtype = MF_DT_DOUBLE,
                     .bytes = bytes};
    return run_rs(n, P, members, mode, &rs, max_us, why, len);
}

/* The torus `topo` of P nodes, the communicator of `order` (NULL: the
 * world in rank order, into members[]) on context 0. */
static mf_net_t *world(const mf_params_t *p, const char *topo, int P, const int *order,
                       mf_topo_t *t, int *members)
{
    char err[256] = "";
    mf_net_t *n = test_make_net(p, topo, P, 1, t);
    for (int i = 0; i < P; i++)
        members[i] = order ? order[i] : i;
    if (!n || mf_comm_setup(n, 0, P, members, err, sizeof err)) {
        ok(0, "%s: network and CT %s", topo, err);
        if (n)
            mf_net_destroy(n), mf_topo_free(t);
        return NULL;
    }
    return n;
}

/* Results right in tree mode for every size in sizes[] (0-terminated). */
static void results(const mf_params_t *p, const char *pname, const char *topo, int P,
                    const size_t *sizes)
{
    mf_topo_t t;
    int members[MAXP];
    mf_net_t *n = world(p, topo, P, NULL, &t, members);
    if (!n)
        return;
    for (int s = 0; sizes[s]; s++) {
        char err[256] = "";
        double us = 0;
        int bad = run_check(n, P, members, MF_ALGO_TREE, sizes[s], &us, err, sizeof err);
        ok(!bad, "%s %s: allgather %zu B a rank: results right (%.2f us)%s%s", pname, topo,
           sizes[s], us, bad ? ": " : "", bad ? err : "");
    }
    mf_net_destroy(n);
    mf_topo_free(&t);
}

/* Slowest rank's latency of one call (allgather: `bytes` a rank;
 * reduce_scatter: blocks of `bytes`, double sum) on a fresh network, -1
 * if it failed. */
static double fresh_us(const mf_params_t *p, const char *topo, int P, const int *order,
                       mf_algo_mode_t mode, mf_opcode_t opc, size_t bytes)
{
    mf_topo_t t;
    int members[MAXP];
    char err[256] = "";
    double us = -1;
    ref_coll_t rs = {.opc = opc, .op = MF_OP_SUM, .dtype = MF_DT_DOUBLE, .bytes = bytes};
    mf_net_t *n = world(p, topo, P, order, &t, members);
    if (!n)
        return -1;
    if (run_rs(n, P, members, mode, &rs, &us, err, sizeof err))
        diag("%s: %s", topo, err), us = -1;
    mf_net_destroy(n);
    mf_topo_free(&t);
    return us;
}

static void built(const mf_params_t *p)
{
    double paper = fresh_us(p, "torus:4x4x4", 64, NULL, MF_ALGO_PAPER, AG, 8);
    double tree = fresh_us(p, "torus:4x4x4", 64, NULL, MF_ALGO_TREE, AG, 8);
    ok(paper > 0 && tree > 0 && tree < 0.85 * paper,
       "8 B allgather on 4x4x4: the rings (%.2f us) beat the paper's (%.2f us)", tree, paper);
    paper = fresh_us(p, "torus:3x3x3", 27, NULL, MF_ALGO_PAPER, AG, 65536);
    tree = fresh_us(p, "torus:3x3x3", 27, NULL, MF_ALGO_TREE, AG, 65536);
    ok(paper > 0 && tree > 0 && tree < 0.85 * paper,
       "64 KiB allgather on 3x3x3: the rings (%.2f us) beat the paper's ring (%.2f us)", tree,
       paper);
    /* the radii, not P: 2 + 2 + 2 hops on 4x4x4, 8 + 0 + 0 on 16x1x1 */
    double cube = fresh_us(p, "torus:4x4x1", 16, NULL, MF_ALGO_TREE, AG, 8);
    double line = fresh_us(p, "torus:16x1x1", 16, NULL, MF_ALGO_TREE, AG, 8);
    ok(cube > 0 && line > cube, "8 B on 16 nodes: 4x4x1 (%.2f us) before 16x1x1 (%.2f us)",
       cube, line);
}

/* Reduce_scatter on `topo`: blocks of each size in sizes[] (0-terminated),
 * double sum and int32 max; counts of uneven sizes with empty blocks; the
 * few nonzero counts of a tiny vector (OSU's). */
static void rs_results(const mf_params_t *p, const char *pname, const char *topo, int P,
                       const size_t *sizes)
{
    mf_topo_t t;
    int members[MAXP];
    mf_net_t *n = world(p, topo, P, NULL, &t, members);
    if (!n)
        return;
    size_t uneven[MAXP], tiny[MAXP];
    for (int i = 0; i < P; i++) {
        uneven[i] = (size_t)((i * 7 + 3) % 5) * 1032; /* 0 .. 4128 bytes, doubles */
        tiny[i] = i % 9 == 4 ? 8 : 0;
    }
    ref_coll_t cases[8];
    int nc = 0;
    for (int s = 0; sizes[s]; s++)
        cases[nc++] = (ref_coll_t){.opc = MF_OPC_REDUCE_SCATTER, .op = MF_OP_SUM,
                                   .dtype = MF_DT_DOUBLE, .bytes = sizes[s]};
    cases[nc++] = (ref_coll_t){.opc = MF_OPC_REDUCE_SCATTER, .op = MF_OP_MAX,
                               .dtype = MF_DT_INT32, .bytes = 4100};
    cases[nc++] = (ref_coll_t){.opc = MF_OPC_REDUCE_SCATTER, .op = MF_OP_SUM,
                               .dtype = MF_DT_DOUBLE, .counts = uneven};
    cases[nc++] = (ref_coll_t){.opc = MF_OPC_REDUCE_SCATTER, .op = MF_OP_SUM,
                               .dtype = MF_DT_DOUBLE, .counts = tiny};
    for (int k = 0; k < nc; k++) {
        char err[256] = "", what[64];
        double us = 0;
        const ref_coll_t *c = &cases[k];
        if (c->counts)
            snprintf(what, sizeof what, "%s counts",
                     c->counts == uneven ? "uneven" : "mostly empty");
        else
            snprintf(what, sizeof what, "%zu B blocks", c->bytes);
        int bad = run_rs(n, P, members, MF_ALGO_TREE, c, &us, err, sizeof err);
        ok(!bad, "%s %s: reduce_scatter %s %s, %s: results right (%.2f us)%s%s", pname, topo,
           c->op == MF_OP_MAX ? "max" : "sum", c->dtype == MF_DT_INT32 ? "int32" : "double", what,
           us, bad ? ": " : "", bad ? err : "");
    }
    mf_net_destroy(n);
    mf_topo_free(&t);
}

/* Reduce_scatter's rings are built: faster than recursive halving. */
static void rs_built(const mf_params_t *p)
{
    double paper = fresh_us(p, "torus:4x4x4", 64, NULL, MF_ALGO_PAPER, RS, 8);
    double tree = fresh_us(p, "torus:4x4x4", 64, NULL, MF_ALGO_TREE, RS, 8);
    ok(paper > 0 && tree > 0 && tree < 0.85 * paper,
       "8 B blocks reduce_scatter on 4x4x4: the rings (%.2f us) beat recursive halving (%.2f us)",
       tree, paper);
    paper = fresh_us(p, "torus:4x4x4", 64, NULL, MF_ALGO_PAPER, RS, 16384);
    tree = fresh_us(p, "torus:4x4x4", 64, NULL, MF_ALGO_TREE, RS, 16384);
    ok(paper > 0 && tree > 0 && tree < 0.85 * paper,
       "16 KiB blocks reduce_scatter on 4x4x4: the rings (%.2f us) beat recursive halving "
       "(%.2f us)", tree, paper);
}

/* A communicator out of rank order runs the paper's algorithm, to the cycle. */
static void not_fitting(const mf_params_t *p)
{
    int shuffled[27];
    for (int i = 0; i < 27; i++)
        shuffled[i] = i;
    shuffled[0] = 1, shuffled[1] = 0;
    for (int k = 0; k < 2; k++) {
        mf_opcode_t opc = k ? RS : AG;
        double paper = fresh_us(p, "torus:3x3x3", 27, shuffled, MF_ALGO_PAPER, opc, 4104);
        double tree = fresh_us(p, "torus:3x3x3", 27, shuffled, MF_ALGO_TREE, opc, 4104);
        ok(paper > 0 && paper == tree,
           "3x3x3, members out of order: tree mode runs the paper's %s (%.3f = %.3f us)",
           mf_opcode_name(opc), tree, paper);
    }
}

int main(void)
{
    mf_params_t u280, fifo_only;
    char err[256];
    if (mf_params_load("u280", &u280, err, sizeof err)) {
        ok(0, "params: %s", err);
        return tap_done();
    }
    fifo_only = u280;
    fifo_only.park_mib = 0;
    static const size_t small[] = {8, 4104, 16384, 0}, large[] = {8, 4104, 65536, 0};
    results(&u280, "u280", "torus:3x3x3", 27, small);
    results(&u280, "u280", "torus:4x4x4", 64, small);
    results(&u280, "u280", "torus:2x3x4", 24, large);
    results(&u280, "u280", "torus:5x1x3", 15, large);
    results(&u280, "u280", "torus:1x2x1", 2, large);
    results(&u280, "u280", "torus:7x1x1", 7, large);
    results(&fifo_only, "FIFOs only", "torus:2x3x4", 24, large);
    results(&fifo_only, "FIFOs only", "torus:3x3x3", 27, small);
    built(&u280);
    static const size_t rs_small[] = {8, 4104, 0}, rs_large[] = {8, 4104, 65536, 0};
    rs_results(&u280, "u280", "torus:3x3x3", 27, rs_small);
    rs_results(&u280, "u280", "torus:4x4x4", 64, rs_small);
    rs_results(&u280, "u280", "torus:2x3x4", 24, rs_large);
    rs_results(&u280, "u280", "torus:5x1x3", 15, rs_large);
    rs_results(&u280, "u280", "torus:1x2x1", 2, rs_large);
    rs_results(&u280, "u280", "torus:7x1x1", 7, rs_large);
    rs_results(&fifo_only, "FIFOs only", "torus:2x3x4", 24, rs_large);
    rs_built(&u280);
    not_fitting(&u280);
    return tap_done();
}

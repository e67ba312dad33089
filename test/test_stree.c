/*
 * Trees in the switches.  Streaming trees (fpga_model/hw/ccm_stree.c):
 * Bcast, Reduce and Allreduce with --algorithm tree give the reference
 * results on tori of odd and even ring sizes and with rings of one switch,
 * for several roots and sizes; the tree is really built (a 64 KiB Bcast is
 * faster than the paper's binomial tree); a communicator a tree does not fit
 * (two ranks per node, members out of order) runs the paper's algorithm, to
 * the cycle.  Fat-tree aggregation (ccm_ftree.c): Bcast, Reduce, Allreduce
 * and Allgather give the reference results on fat trees of one, two and
 * three levels with partly filled leaves, for roots that lead their leaf and
 * roots that do not; the tree's root switch really runs every call, and a
 * communicator out of rank order never reaches it.
 */
#include <stdlib.h>
#include <string.h>

#include "coll/run.h"
#include "net/network.h"
#include "params/params.h"
#include "ref_coll.h"
#include "tap.h"
#include "test_net.h"

#define MAXP 40

static mf_params_t params;

/* One call in `mode`; its results against the reference.  *max_us: the
 * slowest rank's latency.  0 if every rank's result is right. */
static int run_check(mf_net_t *n, int P, const int *members, int ctx, mf_algo_mode_t mode,
                     mf_opcode_t opc, mf_op_t op, mf_dtype_t dt, int root, size_t bytes,
                     double *max_us, char *why, size_t len)
{
    ref_coll_t rs = {.opc = opc, .op = op, .dtype = dt, .root = root, .bytes = bytes};
    void *send[MAXP] = {0}, *recv[MAXP] = {0}, *want[MAXP] = {0};
    mf_buf_t sb[MAXP], rb[MAXP];
    int rc = -1;
    for (int i = 0; i < P; i++) {
        size_t s = ref_send_bytes(&rs, P, i), r = ref_recv_bytes(&rs, P, i);
        send[i] = calloc(1, s + 1), recv[i] = calloc(1, r + 1), want[i] = calloc(1, r + 1);
        ref_fill_input(&rs, i, send[i], s, 7);
        sb[i] = (mf_buf_t){.base = send[i], .len = s};
        rb[i] = (mf_buf_t){.base = recv[i], .len = r};
    }
    ref_coll_run(&rs, P, (const void *const *)send, want);
    mf_coll_spec_t spec = {.opc = opc, .op = op, .dtype = dt, .root = root, .ctx = ctx,
                           .bytes = bytes, .algo = mode};
    mf_coll_timing_t t;
    if (mf_coll_once(n, &spec, P, members, sb, rb, mf_net_now(n), NULL, &t, why, len))
        goto out;
    *max_us = t.max_us;
    if (opc == MF_OPC_BCAST)
        memcpy(recv[root], send[root], bytes); /* the root's buffer is its send buffer */
    for (int i = 0; i < P; i++)
        if (memcmp(recv[i], want[i], ref_recv_bytes(&rs, P, i))) {
            snprintf(why, len, "comm rank %d's result differs", i);
            goto out;
        }
    rc = 0;
out:
    for (int i = 0; i < P; i++)
        free(send[i]), free(recv[i]), free(want[i]);
    return rc;
}

static const mf_opcode_t colls[] = {MF_OPC_BCAST, MF_OPC_REDUCE, MF_OPC_ALLREDUCE};

/* A network of `nodes` nodes on topo, ppn ranks each, with the world
 * communicator (members 0..P-1) on context 0; NULL (a failed test) if not. */
static mf_net_t *world_net(const char *topo, int nodes, int ppn, mf_topo_t *t, int *members)
{
    mf_net_t *n = test_make_net(&params, topo, nodes, ppn, t);
    char err[256] = "";
    int P = nodes * ppn;
    for (int i = 0; i < P; i++)
        members[i] = i;
    if (!ok(n && !mf_comm_setup(n, 0, P, members, err, sizeof err),
            "%s, %d nodes x %d: network and CT", topo, nodes, ppn))
        return NULL;
    return n;
}

/* Each of cl[0..ncl) x sizes 8, 4104, 64 KiB x roots[] (the rooted ones;
 * the others once) in `mode` on n, against the reference; the calls made. */
static uint32_t check_all(mf_net_t *n, const char *what, int P, const int *members,
                          mf_algo_mode_t mode, const mf_opcode_t *cl, int ncl, const int roots[3])
{
    static const size_t sizes[] = {8, 4104, 65536};
    char err[256] = "";
    uint32_t calls = 0;
    for (int k = 0; k < ncl; k++)
        for (int s = 0; s < 3; s++)
            for (int r = 0; r < (cl[k] == MF_OPC_BCAST || cl[k] == MF_OPC_REDUCE ? 3 : 1); r++) {
                double us = 0;
                int bad = run_check(n, P, members, 0, mode, cl[k], MF_OP_SUM, MF_DT_DOUBLE,
                                    roots[r], sizes[s], &us, err, sizeof err);
                calls++;
                ok(!bad, "%s: %s %zu B root %d: results right%s%s", what, mf_opcode_name(cl[k]),
                   sizes[s], roots[r], bad ? ": " : "", bad ? err : "");
            }
    return calls;
}

static void results(const char *topo, int P)
{
    mf_topo_t t;
    int members[MAXP];
    char err[256] = "", what[80];
    mf_net_t *n = world_net(topo, P, 1, &t, members);
    if (!n)
        return;
    int roots[3] = {0, P - 1, P / 2};
    snprintf(what, sizeof what, "%s tree", topo);
    check_all(n, what, P, members, MF_ALGO_TREE, colls, 3, roots);
    double us = 0;
    ok(!run_check(n, P, members, 0, MF_ALGO_TREE, MF_OPC_ALLREDUCE, MF_OP_MAX, MF_DT_INT32, 0,
                  4096, &us, err, sizeof err),
       "%s tree allreduce int32 max: results right", topo);
    mf_net_destroy(n);
    mf_topo_free(&t);
}

static void built(void)
{
    mf_topo_t t;
    mf_net_t *n = test_make_net(&params, "torus:4x2x2", 16, 1, &t);
    int members[MAXP];
    char err[256] = "";
    double paper = 0, tree = 0;
    for (int i = 0; i < 16; i++)
        members[i] = i;
    mf_comm_setup(n, 0, 16, members, err, sizeof err);
    int rc = run_check(n, 16, members, 0, MF_ALGO_PAPER, MF_OPC_BCAST, MF_OP_SUM, MF_DT_DOUBLE,
                       0, 65536, &paper, err, sizeof err) |
             run_check(n, 16, members, 0, MF_ALGO_TREE, MF_OPC_BCAST, MF_OP_SUM, MF_DT_DOUBLE, 0,
                       65536, &tree, err, sizeof err);
    ok(!rc && tree < 0.8 * paper,
       "64 KiB Bcast on 4x2x2: the tree (%.2f us) beats the binomial tree (%.2f us)", tree,
       paper);
    mf_net_destroy(n);
    mf_topo_free(&t);
}

/* The slowest rank's latency of one call in `mode` on a fresh network (so
 * that arbiters start alike), -1 if it failed or got a wrong result. */
static double fresh_us(const char *topo, int nodes, int ppn, int P, const int *members,
                       mf_algo_mode_t mode, mf_opcode_t opc)
{
    mf_topo_t t;
    mf_net_t *n = test_make_net(&params, topo, nodes, ppn, &t);
    char err[256] = "";
    double us = -1;
    if (!n)
        return -1;
    if (mf_comm_setup(n, 0, P, members, err, sizeof err) ||
        run_check(n, P, members, 0, mode, opc, MF_OP_SUM, MF_DT_DOUBLE, 1, 65536, &us, err,
                  sizeof err))
        us = -1;
    mf_net_destroy(n);
    mf_topo_free(&t);
    return us;
}

/* Same slowest-rank latency in both modes: the tree was not used. */
static void not_fitting(const char *what, const char *topo, int nodes, int ppn, int P,
                        const int *members)
{
    for (int k = 0; k < 3; k++) {
        double paper = fresh_us(topo, nodes, ppn, P, members, MF_ALGO_PAPER, colls[k]);
        double tree = fresh_us(topo, nodes, ppn, P, members, MF_ALGO_TREE, colls[k]);
        ok(paper > 0 && paper == tree, "%s: tree mode runs the paper's %s (%.3f = %.3f us)",
           what, mf_opcode_name(colls[k]), tree, paper);
    }
}

static const mf_opcode_t ft_colls[] = {MF_OPC_BCAST, MF_OPC_REDUCE, MF_OPC_ALLREDUCE,
                                        MF_OPC_ALLGATHER};

/* Calls the fat tree's root switch has run on context 0. */
static uint32_t root_switch_calls(mf_net_t *n, const mf_topo_t *t)
{
    int top = t->levels > 1 ? n->nranks + mf_fattree_agg_root(t) : 0;
    return n->eng[top].seq[0];
}

static void fattree_results(const char *topo, int nodes, int ppn)
{
    mf_topo_t t;
    int members[MAXP], P = nodes * ppn;
    char what[80];
    mf_net_t *n = world_net(topo, nodes, ppn, &t, members);
    if (!n)
        return;
    int leaf1 = t.down * ppn; /* the second leaf's leader */
    int roots[3] = {0, P - 1, leaf1 < P ? leaf1 + 1 : 1}; /* a leader, and two that are not */
    snprintf(what, sizeof what, "%s, %d nodes x %d (%d levels)", topo, nodes, ppn, t.levels);
    uint32_t calls = check_all(n, what, P, members, MF_ALGO_PAPER, ft_colls, 4, roots);
    ok(root_switch_calls(n, &t) == calls, "%s: the tree's root ran all %u calls (%u)", what, calls,
       root_switch_calls(n, &t));
    mf_net_destroy(n);
    mf_topo_free(&t);
}

static void fattree_not_fitting(void)
{
    mf_topo_t t;
    mf_net_t *n = test_make_net(&params, "fattree:8", 12, 1, &t);
    int members[12] = {1, 0, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
    char err[256] = "";
    double us;
    int bad = !n || mf_comm_setup(n, 0, 12, members, err, sizeof err);
    for (int k = 0; k < 4 && !bad; k++)
        bad = run_check(n, 12, members, 0, MF_ALGO_PAPER, ft_colls[k], MF_OP_SUM, MF_DT_DOUBLE,
                        1, 4096, &us, err, sizeof err);
    ok(!bad && root_switch_calls(n, &t) == 0,
       "fat tree, members out of order: the leaves run 001 Table 1's algorithms, results right%s%s",
       bad ? ": " : "", bad ? err : "");
    mf_net_destroy(n);
    mf_topo_free(&t);
}

int main(void)
{
    char err[256];
    if (mf_params_load("u280", &params, err, sizeof err)) {
        ok(0, "params: %s", err);
        return tap_done();
    }
    results("torus:2x2x2", 8);
    results("torus:3x3x1", 9);
    results("torus:5x3x1", 15);
    results("torus:4x4x1", 16);
    built();
    int two_per_node[8] = {0, 1, 2, 3, 4, 5, 6, 7};
    not_fitting("two ranks per node", "torus:2x2x1", 4, 2, 8, two_per_node);
    int shuffled[8] = {1, 0, 2, 3, 4, 5, 6, 7};
    not_fitting("members out of order", "torus:2x2x2", 8, 1, 8, shuffled);
    fattree_results("fattree:8", 5, 1);   /* one leaf */
    fattree_results("fattree:8", 32, 1);  /* two levels, the last leaf holds 2 */
    fattree_results("fattree:4", 20, 1);  /* three levels */
    fattree_results("fattree:16", 40, 1);
    fattree_results("fattree:4", 13, 3);  /* three ranks a node, three levels */
    fattree_results("fattree:8", 9, 4);
    fattree_not_fitting();
    return tap_done();
}

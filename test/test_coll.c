/*
 * End-to-end: every collective through the modeled network against the
 * plain-C reference (test/ref_coll.c): all op x type pairs, communicator
 * shapes (world, half, odd size, scattered and scrambled members, pof2),
 * roots, both algorithms of each collective (short / long sizes), ppn > 1,
 * a fat tree; determinism; the iteration fast path gives the full
 * simulation's cycles, and takes its first shortcut only where exact.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "coll/run.h"
#include "mpifpga/osu.h"
#include "net/network.h"
#include "net/topo.h"
#include "params/params.h"
#include "ref_coll.h"
#include "tap.h"
#include "test_net.h"

typedef struct {
    const char *name;
    int size;
    int members[16];
} shape_t;

static const shape_t shapes[] = {
    {"world12", 12, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}},
    {"half", 6, {0, 1, 2, 3, 4, 5}},
    {"odd5", 5, {1, 3, 4, 8, 11}},
    {"scrambled7", 7, {7, 2, 10, 0, 5, 9, 3}},
    {"pof2_8", 8, {11, 10, 9, 8, 3, 2, 1, 0}},
    {"pair", 2, {6, 4}},
};
#define NSHAPES (int)(sizeof shapes / sizeof shapes[0])

static mf_params_t params;

static mf_net_t *make_net(const char *topo, int nodes, int ppn, mf_topo_t *t)
{
    return test_make_net(&params, topo, nodes, ppn, t);
}

/* Byte-equal, except that a complex product may end in -0 where the
 * reference, multiplying in another order, has +0 (equal as numbers). */
static int same_result(mf_op_t op, mf_dtype_t dt, const void *got, const void *want, size_t n)
{
    if (op != MF_OP_CPROD)
        return memcmp(got, want, n) == 0;
    for (size_t k = 0; k < n / mf_dtype_size(dt); k++) {
        double g, w;
        if (dt == MF_DT_FLOAT) {
            g = ((const float *)got)[k];
            w = ((const float *)want)[k];
        } else {
            g = ((const double *)got)[k];
            w = ((const double *)want)[k];
        }
        if (g != w)
            return 0;
    }
    return 1;
}

/* Run one collective with payload and compare every rank with the reference;
 * counts: reduce_scatter's bytes per rank, or NULL for `bytes` each. */
static int check_counts(mf_net_t *n, const shape_t *sh, int ctx, mf_opcode_t opc, mf_op_t op,
                        mf_dtype_t dt, int root, size_t bytes, const size_t *counts, char *why,
                        size_t whylen)
{
    int P = sh->size, rc = -1;
    ref_coll_t rc_spec = {.opc = opc, .op = op, .dtype = dt, .root = root, .bytes = bytes,
                          .counts = counts};
    uint32_t cnt32[16];
    size_t total = 0;
    for (int i = 0; counts && i < P; i++)
        total += cnt32[i] = (uint32_t)counts[i];
    void *send[16] = {0}, *recv[16] = {0}, *expect[16] = {0};
    mf_buf_t sb[16], rb[16];
    for (int i = 0; i < P; i++) {
        size_t s = ref_send_bytes(&rc_spec, P, i), r = ref_recv_bytes(&rc_spec, P, i);
        send[i] = calloc(1, s + 1);
        recv[i] = calloc(1, r + 1);
        expect[i] = calloc(1, r + 1);
        ref_fill_input(&rc_spec, i, send[i], s, 42);
        sb[i] = (mf_buf_t){.base = send[i], .len = s};
        rb[i] = (mf_buf_t){.base = recv[i], .len = r};
    }
    ref_coll_run(&rc_spec, P, (const void *const *)send, expect);
    mf_coll_spec_t spec = {.opc = opc, .op = op, .dtype = dt, .root = root, .ctx = ctx,
                           .bytes = opc == MF_OPC_REDUCE_SCATTER ? bytes * P : bytes,
                           .counts = counts ? cnt32 : NULL};
    if (counts)
        spec.bytes = total;
    mf_coll_timing_t t;
    char err[256];
    if (mf_coll_once(n, &spec, P, sh->members, sb, rb, mf_net_now(n), NULL, &t, err,
                     sizeof err)) {
        snprintf(why, whylen, "%s", err);
        goto out;
    }
    if (opc == MF_OPC_BCAST) /* MPI: the root's buffer is its send buffer */
        memcpy(recv[root], send[root], bytes);
    for (int i = 0; i < P; i++) {
        size_t r = ref_recv_bytes(&rc_spec, P, i);
        if (!same_result(op, dt, recv[i], expect[i], r)) {
            snprintf(why, whylen, "comm rank %d result differs", i);
            goto out;
        }
    }
    rc = 0;
out:
    for (int i = 0; i < P; i++) {
        free(send[i]);
        free(recv[i]);
        free(expect[i]);
    }
    return rc;
}

static int check_one(mf_net_t *n, const shape_t *sh, int ctx, mf_opcode_t opc, mf_op_t op,
                     mf_dtype_t dt, int root, size_t bytes, char *why, size_t whylen)
{
    return check_counts(n, sh, ctx, opc, op, dt, root, bytes, NULL, why, whylen);
}

static const mf_opcode_t colls[] = {MF_OPC_BCAST,     MF_OPC_REDUCE,  MF_OPC_ALLREDUCE,
                                    MF_OPC_SCATTER,   MF_OPC_GATHER,  MF_OPC_ALLGATHER,
                                    MF_OPC_REDUCE_SCATTER, MF_OPC_SCAN, MF_OPC_EXSCAN,
                                    MF_OPC_ALLTOALL, MF_OPC_BARRIER};

static int is_reduction(mf_opcode_t o)
{
    return mf_opcode_reduces(o);
}

/* Every op x type on two shapes, short and long vectors. */
static void test_ops_types(mf_net_t *n)
{
    for (unsigned ci = 0; ci < 5; ci++) {
        mf_opcode_t opc = (mf_opcode_t[]){MF_OPC_REDUCE, MF_OPC_ALLREDUCE, MF_OPC_REDUCE_SCATTER,
                                          MF_OPC_SCAN, MF_OPC_EXSCAN}[ci];
        int bad = 0, runs = 0;
        char why[400] = "";
        for (int op = 0; op < MF_OP_COUNT; op++) {
            for (int dt = 0; dt < MF_DT_COUNT; dt++) {
                if (!mf_op_valid_for((mf_op_t)op, (mf_dtype_t)dt))
                    continue;
                size_t es = mf_elem_bytes((mf_op_t)op, (mf_dtype_t)dt);
                for (int s = 0; s < 2; s++) {
                    const shape_t *sh = &shapes[s ? 3 : 0];
                    size_t bytes = es * (s ? 700 : 3);
                    runs++;
                    char w[256];
                    if (check_one(n, sh, s ? 3 : 0, opc, (mf_op_t)op, (mf_dtype_t)dt, s ? 2 : 0, bytes,
                                  w, sizeof w) && !bad++)
                        snprintf(why, sizeof why, "%s/%s/%s: %s", sh->name, mf_op_name(op),
                                 mf_dtype_name(dt), w);
                }
            }
        }
        ok(!bad, "%s: all op x type pairs, short and long, match the reference (%d runs)%s%s",
           mf_opcode_name(opc), runs, bad ? ": " : "", why);
    }
}

/* Every collective on every shape, several sizes and roots. */
static void test_shapes(mf_net_t *n, const char *label)
{
    static const size_t sizes[] = {0, 8, 24, 4096, 20000, 65536};
    for (unsigned ci = 0; ci < sizeof colls / sizeof colls[0]; ci++) {
        mf_opcode_t opc = colls[ci];
        int bad = 0, runs = 0;
        char why[400] = "";
        for (int s = 0; s < NSHAPES; s++) {
            const shape_t *sh = &shapes[s];
            for (unsigned z = 0; z < sizeof sizes / sizeof sizes[0]; z++) {
                for (int root = 0; root < sh->size; root += sh->size > 2 ? sh->size / 2 + 1 : 1) {
                    mf_dtype_t dt = z % 2 ? MF_DT_INT32 : MF_DT_DOUBLE;
                    mf_op_t op = z % 3 == 1 ? MF_OP_MAX : MF_OP_SUM;
                    size_t bytes = sizes[z] / 8 * 8;
                    if (opc == MF_OPC_BARRIER)
                        bytes = 0;
                    runs++;
                    char w[256];
                    if (check_one(n, sh, s, opc, op, dt, root, bytes, w, sizeof w) && !bad++)
                        snprintf(why, sizeof why, "%s bytes=%zu root=%d: %s", sh->name, bytes,
                                 root, w);
                    if (!is_reduction(opc) && opc != MF_OPC_BCAST && opc != MF_OPC_SCATTER &&
                        opc != MF_OPC_GATHER)
                        break; /* unrooted */
                }
            }
        }
        ok(!bad, "%s on %s: all shapes, sizes and roots match the reference (%d runs)%s%s",
           mf_opcode_name(opc), label, runs, bad ? ": " : "", why);
    }
}

static void test_determinism(void)
{
    uint64_t lat[2][12];
    mf_net_stats_t st[2];
    for (int i = 0; i < 2; i++) {
        mf_topo_t t;
        mf_net_t *n = make_net("torus", 12, 1, &t);
        mf_coll_spec_t spec = {.opc = MF_OPC_ALLREDUCE, .op = MF_OP_SUM, .dtype = MF_DT_DOUBLE,
                               .bytes = 65536};
        mf_coll_timing_t tm;
        char err[256];
        mf_comm_setup(n, 0, 12, shapes[0].members, err, sizeof err);
        mf_coll_once(n, &spec, 12, shapes[0].members, NULL, NULL, 0, lat[i], &tm, err,
                     sizeof err);
        mf_net_stats(n, &st[i]);
        mf_net_destroy(n);
        mf_topo_free(&t);
    }
    ok(!memcmp(lat[0], lat[1], sizeof lat[0]) && st[0].cycles == st[1].cycles &&
           st[0].link_bytes == st[1].link_bytes && st[0].link_bytes > 0,
       "two runs give identical cycles (%llu) and link bytes (%llu)",
       (unsigned long long)st[0].cycles, (unsigned long long)st[0].link_bytes);
}

/* One loop of iters calls on every rank of a new network, fast path on
 * or off; the simulated iterations in *sim.  -1 if the network failed. */
static int fast_loop(const char *topo, int nodes, int ppn, mf_opcode_t opc, uint64_t bytes,
                     int iters, int fast, mf_coll_timing_t *tm, int *sim)
{
    mf_topo_t t;
    mf_net_t *n = make_net(topo, nodes, ppn, &t);
    if (!n)
        return -1;
    int size = nodes * ppn, members[64], rc;
    for (int i = 0; i < size; i++)
        members[i] = i;
    mf_coll_spec_t spec = {.opc = opc, .op = MF_OP_SUM, .dtype = MF_DT_DOUBLE, .bytes = bytes};
    char err[256];
    rc = mf_comm_setup(n, 0, size, members, err, sizeof err) ||
                 mf_coll_loop(n, &spec, size, members, iters, fast, tm, sim, err, sizeof err)
             ? -1
             : 0;
    if (rc)
        diag("%s", err);
    mf_net_destroy(n);
    mf_topo_free(&t);
    return rc;
}

/* The fast path gives the full simulation's figures (coll/iter.c): an
 * iteration repeats an earlier one only if it starts from the same
 * allocator pointers, or from pointers that decided nothing, at the same
 * phase of the engines' turns.  The torus 3x3x3 Gather's first iteration
 * is a cycle slower than the rest (a pointer it found decided); the 3x3x2
 * Bcast with two ranks per node depends on the phase of the turns; the
 * fat tree's host links, at a fractional rate, must not go by the cycle
 * number (a run starting later would move other bytes each cycle). */
static void test_fast_path(void)
{
    static const struct {
        const char *topo;
        int nodes, ppn;
        mf_opcode_t opc;
        uint64_t bytes;
        int max_sim; /* 0: at least two iterations simulated */
    } cases[] = {
        {"torus", 12, 1, MF_OPC_ALLREDUCE, 1024, 1},
        {"torus", 12, 1, MF_OPC_BCAST, 1024, 1},
        {"torus", 12, 1, MF_OPC_ALLGATHER, 1024, 1},
        {"torus:4x4x4", 64, 1, MF_OPC_ALLREDUCE, 65536, 1},
        {"torus:3x3x3", 27, 1, MF_OPC_GATHER, 4096, 0},
        /* pointers it found decide choices, and the ones it ends with
         * choose the same (iter.c loop_state) */
        {"torus:5x5x1", 25, 1, MF_OPC_REDUCE, 512, 1},
        {"torus:3x3x2", 18, 1, MF_OPC_GATHER, 4096, 1},
        {"torus", 6, 2, MF_OPC_ALLREDUCE, 1024, 40},
        {"torus:3x3x2", 18, 2, MF_OPC_BCAST, 16384, 0},
        {"fattree:4", 12, 1, MF_OPC_SCATTER, 1024, 1},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        mf_coll_timing_t tm[2];
        int sim[2], rc = 0;
        for (int fast = 0; fast < 2; fast++)
            rc |= fast_loop(cases[k].topo, cases[k].nodes, cases[k].ppn, cases[k].opc,
                            cases[k].bytes, 40, fast, &tm[fast], &sim[fast]);
        int bound = cases[k].max_sim ? sim[1] <= cases[k].max_sim : sim[1] >= 2;
        ok(!rc && tm[0].avg_us == tm[1].avg_us && tm[0].max_us == tm[1].max_us &&
               tm[0].min_us == tm[1].min_us && tm[0].end == tm[1].end && sim[0] == 40 &&
               sim[1] < 40 && bound,
           "%s %d x %d, %s %llu B: fast path (%d of 40 iterations simulated, %s) = full "
           "simulation (%.4f us, end %llu)",
           cases[k].topo, cases[k].nodes, cases[k].ppn, mf_opcode_name(cases[k].opc),
           (unsigned long long)cases[k].bytes, sim[1],
           cases[k].max_sim ? "shortcut allowed" : "at least 2", tm[1].avg_us,
           (unsigned long long)tm[0].end);
    }
}

/* The cycles by which a run can move without changing a figure. */
static void test_shift_period(void)
{
    static const struct {
        const char *topo;
        int nodes, ppn;
    } cases[] = {{"torus", 12, 1}, {"torus", 6, 2}, {"torus", 4, 3}, {"fattree:4", 12, 1}};
    /* a radix-4 fat tree's leaves have 3 host ports (net/fattree.c); the
     * host links' fractional rate does not go by the cycle number */
    uint64_t want[] = {1, 2, 3, 3};
    for (int k = 0; k < 4; k++) {
        mf_topo_t t;
        mf_net_t *n = make_net(cases[k].topo, cases[k].nodes, cases[k].ppn, &t);
        uint64_t got = n ? mf_net_shift_period(n) : 0;
        ok(n && got == want[k], "%s %d x %d: shift period %llu (want %llu)", cases[k].topo,
           cases[k].nodes, cases[k].ppn, (unsigned long long)got, (unsigned long long)want[k]);
        mf_net_destroy(n);
        mf_topo_free(&t);
    }
    mf_params_t saved = params;
    params.link_jitter_sd_ns = 10;
    mf_topo_t t;
    mf_net_t *n = make_net("torus", 12, 1, &t);
    ok(n && mf_net_shift_period(n) == 0, "link jitter: no shift period");
    mf_net_destroy(n);
    mf_topo_free(&t);
    params = saved;
}

typedef struct {
    uint64_t end;
    int errors;
} contention_t;

static void count_done(void *user, const mf_completion_t *c)
{
    contention_t *t = user;
    t->errors += c->status != 0;
    if (c->complete > t->end)
        t->end = c->complete;
}

/* Two allreduces on two communicators over the same 8 ranks, in flight at
 * once, on 2 nodes x 4 ranks: each switch runs 8 reductions at a time.
 * Returns the cycle the last rank finished, -1 on a wrong result. */
static int64_t two_at_once(unsigned sa_cgr)
{
    enum { P = 8, BYTES = 32768 };
    static const int comm[2][P] = {{0, 1, 2, 3, 4, 5, 6, 7}, {7, 6, 5, 4, 3, 2, 1, 0}};
    mf_params_t saved = params;
    params.sa_cgr = sa_cgr;
    mf_topo_t t;
    mf_net_t *n = make_net("torus", 2, 4, &t);
    params = saved;
    ref_coll_t spec = {.opc = MF_OPC_ALLREDUCE, .op = MF_OP_SUM, .dtype = MF_DT_INT64,
                       .bytes = BYTES};
    static uint8_t in[2][P][BYTES], out[2][P][BYTES], want[2][P][BYTES];
    contention_t done = {0};
    char err[256];
    for (int k = 0; k < 2; k++) {
        mf_comm_setup(n, k, P, comm[k], err, sizeof err);
        const void *ins[P];
        void *wants[P];
        for (int i = 0; i < P; i++) {
            ref_fill_input(&spec, i, in[k][i], BYTES, 7 + k);
            ins[i] = in[k][i];
            wants[i] = want[k][i];
        }
        ref_coll_run(&spec, P, ins, wants);
        for (int i = 0; i < P; i++) {
            mf_coll_req_t req = {
                .hdr = {.opcode = MF_OPC_ALLREDUCE, .ctx = (uint8_t)k, .alg = MF_ALG_RABENSEIFNER,
                        .op = MF_OP_SUM, .dtype = MF_DT_INT64, .size = BYTES},
                .send = {.base = in[k][i], .len = BYTES}, .recv = {.base = out[k][i], .len = BYTES},
                .done = count_done, .user = &done};
            mf_net_post(n, comm[k][i], &req, err, sizeof err);
        }
    }
    int rc = mf_net_run(n, MF_NEVER, err, sizeof err);
    mf_net_destroy(n);
    mf_topo_free(&t);
    if (rc || done.errors || memcmp(out, want, sizeof out))
        return -1;
    return (int64_t)done.end;
}

static void test_contention(void)
{
    int64_t one = two_at_once(1), six = two_at_once(6);
    ok(one > 0 && six > 0, "two allreduces in flight on two communicators both give correct results");
    ok(one > six * 11 / 10, "with one CGR unit per switch they contend: done at cycle %lld vs %lld with six",
       (long long)one, (long long)six);
}

/* Modeled time skews the members' entries by their virtual clocks: a member
 * that enters long after the others is waited for, not taken for a
 * circular wait (the early members poll meanwhile), and the watchdog still
 * fires when nothing moves after the last one entered (cli_sim.sh). */
static void test_late_member(void)
{
    enum { P = 8, BYTES = 1 << 20, LATE = 3000000 };
    mf_topo_t t;
    mf_net_t *n = make_net("torus", P, 1, &t);
    static const int world[P] = {0, 1, 2, 3, 4, 5, 6, 7};
    ref_coll_t spec = {.opc = MF_OPC_REDUCE, .op = MF_OP_SUM, .dtype = MF_DT_INT32, .bytes = BYTES};
    static uint8_t in[P][BYTES], out[BYTES], want[BYTES];
    const void *ins[P];
    void *wants[P] = {want};
    contention_t done = {0};
    char err[256] = "";
    mf_comm_setup(n, 0, P, world, err, sizeof err);
    mf_net_set_watchdog(n, LATE / 3);
    for (int i = 0; i < P; i++) {
        ref_fill_input(&spec, i, in[i], BYTES, 3);
        ins[i] = in[i];
    }
    for (int i = 1; i < P; i++)
        wants[i] = NULL;
    ref_coll_run(&spec, P, ins, wants);
    for (int i = 0; i < P; i++) {
        mf_coll_req_t req = {
            .hdr = {.opcode = MF_OPC_REDUCE, .alg = MF_ALG_RABENSEIFNER, .op = MF_OP_SUM,
                    .dtype = MF_DT_INT32, .size = BYTES},
            .send = {.base = in[i], .len = BYTES}, .recv = {.base = i ? NULL : out, .len = i ? 0 : BYTES},
            .at = i == P - 1 ? LATE : 0, .done = count_done, .user = &done};
        mf_net_post(n, i, &req, err, sizeof err);
    }
    int rc = mf_net_run(n, MF_NEVER, err, sizeof err);
    ok(rc == 0 && !done.errors && !memcmp(out, want, BYTES) && done.end > LATE,
       "a member entering %d cycles late, watchdog at %d: the 1 MiB Rabenseifner reduce "
       "completes right%s%s", LATE, LATE / 3, rc ? ": " : "", rc ? err : "");
    mf_net_destroy(n);
    mf_topo_free(&t);
}

/* A rank that disagrees about the message size: the model reports an error
 * (the mismatch, or a stall naming the calls that cannot finish), never
 * hangs and never hands back a silently wrong result. */
static void test_mismatch(void)
{
    mf_topo_t t;
    mf_net_t *n = make_net("torus", 4, 1, &t);
    static const int all[4] = {0, 1, 2, 3};
    char err[256] = "";
    contention_t done = {0};
    uint8_t in[4][64] = {{0}}, out[4][64];
    mf_comm_setup(n, 0, 4, all, err, sizeof err);
    for (int i = 0; i < 4; i++) {
        mf_coll_req_t req = {
            .hdr = {.opcode = MF_OPC_ALLREDUCE, .alg = MF_ALG_RECURSIVE_DBL, .op = MF_OP_SUM,
                    .dtype = MF_DT_INT32, .size = i == 2 ? 64 : 32},
            .send = {.base = in[i], .len = 64}, .recv = {.base = out[i], .len = 64},
            .done = count_done, .user = &done};
        mf_net_post(n, i, &req, err, sizeof err);
    }
    int rc = mf_net_run(n, MF_NEVER, err, sizeof err);
    ok(rc < 0 || done.errors > 0, "mismatched sizes across ranks give an error (%d rank errors; %s)",
       done.errors, rc < 0 ? err : "run completed");
    mf_net_destroy(n);
    mf_topo_free(&t);
}

/* Ring chunks larger than the 48 KB credit window: every rank forwards the
 * left's own chunk while the chunks behind it arrive (a circular wait around
 * the ring before the fix in ccm_algo.c ring()).  Non-pof2 allgather runs
 * the ring at any size; Bcast uses it from 512 KiB on P >= 8. */
static void test_ring_big_chunks(mf_net_t *n)
{
    char why[256] = "";
    int bad = check_one(n, &shapes[2], 2, MF_OPC_ALLGATHER, MF_OP_SUM, MF_DT_DOUBLE, 0,
                        (size_t)128 << 10, why, sizeof why);
    ok(!bad, "ring allgather, 5 ranks, 128 KiB blocks (> credit window): correct, no stall%s%s",
       bad ? ": " : "", why);
    bad = check_one(n, &shapes[0], 0, MF_OPC_BCAST, MF_OP_SUM, MF_DT_DOUBLE, 3,
                    (size_t)1 << 20, why, sizeof why);
    ok(!bad, "scatter + ring Bcast, 12 ranks, 1 MiB (87 KiB chunks): correct, no stall%s%s",
       bad ? ": " : "", why);
}

/* Reduce_scatter with OSU's counts for tiny vectors (most ranks get no
 * element) and a zero in the middle: the halving steps that move nothing
 * are skipped on both sides, as MPICH does, and every block still lands. */
static void test_rs_sparse_counts(mf_net_t *n)
{
    static const int shape_ix[] = {0, 2, 4}; /* world12, odd5, pof2_8 */
    int bad = 0, runs = 0;
    char why[400] = "";
    for (unsigned s = 0; s < sizeof shape_ix / sizeof shape_ix[0]; s++) {
        const shape_t *sh = &shapes[shape_ix[s]];
        for (int elems = 1; elems <= 2 * sh->size + 1; elems += 3) {
            uint64_t c64[16];
            size_t counts[16];
            mf_osu_rs_counts((uint64_t)elems * 4, sh->size, 4, c64);
            for (int i = 0; i < sh->size; i++)
                counts[i] = (size_t)c64[i] * 4;
            if (elems > 3)
                counts[sh->size / 2] = 0;
            char w[256];
            runs++;
            if (check_counts(n, sh, shape_ix[s], MF_OPC_REDUCE_SCATTER, MF_OP_SUM, MF_DT_FLOAT, 0,
                             0, counts, w, sizeof w) && !bad++)
                snprintf(why, sizeof why, "%s, %d elements: %s", sh->name, elems, w);
        }
    }
    ok(!bad, "reduce_scatter with mostly-zero counts matches the reference (%d runs)%s%s", runs,
       bad ? ": " : "", why);
}

/* Run specs one after another, timing only, on comm ranks 0..size-1 of a
 * fresh torus of `nodes` nodes; 0, or -1 with err. */
static int run_timing_only(int nodes, int size, const mf_coll_spec_t *specs, int nspecs,
                           char *err, size_t len)
{
    mf_topo_t t;
    int members[64], rc = -1;
    mf_net_t *n = size <= 64 ? make_net("torus", nodes, 1, &t) : NULL;
    if (!n)
        return snprintf(err, len, "no network"), -1;
    for (int i = 0; i < size; i++)
        members[i] = i;
    rc = mf_comm_setup(n, 0, size, members, err, len);
    for (int s = 0; !rc && s < nspecs; s++) {
        mf_coll_timing_t tm;
        rc = mf_coll_once(n, &specs[s], size, members, NULL, NULL, mf_net_now(n), NULL, &tm,
                          err, len);
    }
    mf_net_destroy(n);
    mf_topo_free(&t);
    return rc;
}

/* Scan/Exscan with vectors of many credit windows on 64 ranks: the result
 * held across steps must not stop the partial the partner waits for (a
 * circular wait from 384 KiB on before ccm_scan.c held()).  Timing only. */
static void test_scan_big(void)
{
    char err[256] = "";
    const mf_coll_spec_t c[2] = {
        {.opc = MF_OPC_SCAN, .op = MF_OP_SUM, .dtype = MF_DT_DOUBLE, .bytes = 1 << 20},
        {.opc = MF_OPC_EXSCAN, .op = MF_OP_SUM, .dtype = MF_DT_DOUBLE, .bytes = 1 << 20}};
    int rc = run_timing_only(64, 64, c, 2, err, sizeof err);
    ok(rc == 0, "scan and exscan of 1 MiB on 64 ranks complete%s%s", rc ? ": " : "", err);
}

/* Alltoall tells sources apart by the 5-bit tag: a 33-member call is
 * refused with a message (the host falls back before it gets there). */
static void test_alltoall_limit(void)
{
    char err[256] = "";
    const mf_coll_spec_t c = {.opc = MF_OPC_ALLTOALL, .op = MF_OP_SUM, .dtype = MF_DT_UINT8,
                              .bytes = 8};
    int rc = run_timing_only(36, 33, &c, 1, err, sizeof err);
    ok(rc != 0 && strstr(err, "at most 32 members"), "alltoall on 33 members refused: %s", err);
}

int main(void)
{
    char err[256];
    if (mf_params_load("u280", &params, err, sizeof err)) {
        diag("params: %s", err);
        return 1;
    }
    mf_topo_t t;
    mf_net_t *n = make_net("torus", 12, 1, &t);
    if (!ok(n != NULL, "12-node torus network created"))
        return tap_done();
    /* one context (CT row) per shape */
    for (int sh = 0; sh < NSHAPES; sh++)
        ok(!mf_comm_setup(n, sh, shapes[sh].size, shapes[sh].members, err, sizeof err),
           "CT rows for %s", shapes[sh].name);
    test_ops_types(n);
    test_shapes(n, "torus 3x2x2");
    test_ring_big_chunks(n);
    test_rs_sparse_counts(n);
    mf_net_destroy(n);
    mf_topo_free(&t);

    n = make_net("torus", 6, 2, &t); /* 12 ranks, two per node */
    for (int sh = 0; sh < NSHAPES; sh++)
        mf_comm_setup(n, sh, shapes[sh].size, shapes[sh].members, err, sizeof err);
    test_shapes(n, "torus ppn=2");
    mf_net_destroy(n);
    mf_topo_free(&t);

    n = make_net("fattree:8", 12, 1, &t);
    for (int sh = 0; sh < NSHAPES; sh++)
        mf_comm_setup(n, sh, shapes[sh].size, shapes[sh].members, err, sizeof err);
    test_shapes(n, "fat tree radix 8");
    mf_net_destroy(n);
    mf_topo_free(&t);

    test_determinism();
    test_fast_path();
    test_shift_period();
    test_contention();
    test_late_member();
    test_mismatch();
    test_alltoall_limit();
    alarm(300); /* a circular wait in the model would otherwise hang here */
    test_scan_big();
    return tap_done();
}

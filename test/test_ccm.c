/*
 * The CCM's algorithm blocks on their own (no network): for a rank's CT entry
 * and processor header, the dataflow names the right partners -- binomial
 * parent and children for any root, recursive-doubling partners, the ring
 * neighbours -- with the right tags and lengths.
 */
#include <stdlib.h>
#include <string.h>

#include "hw/ccm.h"
#include "mpifpga/ct.h"
#include "tap.h"

static int global_of[64];

static mf_coll_t *build(int P, int r, mf_opcode_t opc, mf_alg_t alg, int root, uint32_t size)
{
    mf_ct_entry_t e;
    char err[128];
    if (mf_ct_entry_build(P, r, global_of, &e, err, sizeof err))
        return NULL;
    mf_coll_t *c = calloc(1, sizeof *c);
    c->req.hdr = (mf_proc_hdr_t){.opcode = (uint8_t)opc, .alg = (uint8_t)alg, .op = MF_OP_SUM,
                                 .dtype = MF_DT_DOUBLE, .root = (uint16_t)root, .size = size};
    if (mf_ccm_build(c, &e)) {
        mf_ccm_free_schedule(c);
        free(c);
        return NULL;
    }
    return c;
}

static void destroy(mf_coll_t *c)
{
    if (!c)
        return;
    mf_ccm_free_schedule(c);
    free(c);
}

/* NET sinks of c as (dest, tag) pairs. */
static int net_sinks(const mf_coll_t *c, int *dest, int *tag, int cap)
{
    int n = 0;
    for (int i = 0; i < c->nsk && n < cap; i++)
        if (c->sk[i].kind == MF_SINK_NET) {
            dest[n] = c->sk[i].dest;
            tag[n++] = c->sk[i].tag;
        }
    return n;
}

static int net_inputs(const mf_coll_t *c)
{
    int n = 0;
    for (int i = 0; i < c->nst; i++)
        n += c->st[i].kind == MF_ST_NET;
    return n;
}

static void test_binomial_reduce(void)
{
    int P = 13, R = 5, bad = 0;
    for (int r = 0; r < P && !bad; r++) {
        mf_coll_t *c = build(P, r, MF_OPC_REDUCE, MF_ALG_BINOMIAL, R, 64);
        int vr = (r - R + P) % P, dest[8], tag[8];
        int n = net_sinks(c, dest, tag, 8);
        int kids = 0;
        for (int k = 0; (1 << k) < P; k++)
            if ((vr == 0 || k < __builtin_ctz((unsigned)vr)) && vr + (1 << k) < P)
                kids++;
        if (vr == 0) {
            bad |= n != 0;
        } else {
            int lvl = __builtin_ctz((unsigned)vr);
            int parent = ((vr - (1 << lvl)) + R) % P;
            bad |= n != 1 || dest[0] != global_of[parent] || tag[0] != lvl;
        }
        bad |= net_inputs(c) != kids;
        if (bad)
            diag("rank %d vr %d: %d sinks, %d inputs (expect %d children)", r, vr, n,
                 net_inputs(c), kids);
        destroy(c);
    }
    ok(!bad, "reduce: every rank of 13 sends to its binomial parent (root 5) and waits for its children");
}

static void test_binomial_bcast(void)
{
    int P = 13, R = 2;
    /* vr 4 = rank 6: children vr 5, 6 (levels 0, 1); parent vr 0 at level 2 */
    mf_coll_t *c = build(P, 6, MF_OPC_BCAST, MF_ALG_BINOMIAL, R, 64);
    int dest[8], tag[8], n = net_sinks(c, dest, tag, 8);
    ok(c && n == 2 && dest[0] == global_of[7] && tag[0] == 0 && dest[1] == global_of[8] &&
           tag[1] == 1 && c->tag_stream[2] >= 0,
       "bcast: rank 6 (vr 4) multicasts to ranks 7 and 8 and listens on level 2");
    destroy(c);
    c = build(P, R, MF_OPC_BCAST, MF_ALG_BINOMIAL, R, 64);
    n = net_sinks(c, dest, tag, 8);
    ok(c && n == 4 && net_inputs(c) == 0, "bcast: the root multicasts to 4 children, receives nothing");
    destroy(c);
}

static void test_recursive_doubling(void)
{
    int P = 8, dest[8], tag[8];
    mf_coll_t *c = build(P, 5, MF_OPC_ALLREDUCE, MF_ALG_RECURSIVE_DBL, 0, 64);
    int n = net_sinks(c, dest, tag, 8);
    ok(c && n == 3 && dest[0] == global_of[4] && dest[1] == global_of[7] &&
           dest[2] == global_of[1] && tag[0] == 0 && tag[1] == 1 && tag[2] == 2,
       "allreduce (recursive doubling): rank 5 exchanges with 4, 7, 1 on tags 0, 1, 2");
    destroy(c);
    c = build(6, 0, MF_OPC_ALLREDUCE, MF_ALG_RECURSIVE_DBL, 0, 64); /* rem = 2: 0 folds into 1 */
    n = net_sinks(c, dest, tag, 8);
    ok(c && n == 1 && dest[0] == global_of[1] && tag[0] == 30 && c->tag_stream[31] >= 0,
       "allreduce on 6 ranks: rank 0 folds into rank 1 (tag 30) and gets the result back (tag 31)");
    destroy(c);
}

static void test_ring(void)
{
    int dest[8], tag[8];
    mf_coll_t *c = build(10, 3, MF_OPC_ALLGATHER, MF_ALG_RING, 0, 40);
    int n = net_sinks(c, dest, tag, 8);
    ok(c && n == 2 && dest[0] == global_of[4] && dest[1] == global_of[4] &&
           c->st[c->tag_stream[31]].len == 40 && c->st[c->tag_stream[30]].len == 8 * 40,
       "allgather ring on 10: rank 3 sends to 4; gets one block (tag 31) and 8 forwarded (tag 30)");
    destroy(c);
}

static void test_errors(void)
{
    mf_ct_entry_t e;
    char err[128];
    mf_ct_entry_build(4, 1, global_of, &e, err, sizeof err);
    mf_coll_t c = {.req.hdr = {.opcode = MF_OPC_REDUCE, .dtype = MF_DT_DOUBLE, .root = 9,
                               .size = 8}};
    ok(mf_ccm_build(&c, &e) < 0 && c.status.code == -1 && strstr(c.status.err, "root 9"),
       "a root outside the communicator is refused: %s", c.status.err);
}

int main(void)
{
    for (int i = 0; i < 64; i++)
        global_of[i] = (i * 7 + 3) % 64; /* scrambled members */
    test_binomial_reduce();
    test_binomial_bcast();
    test_recursive_doubling();
    test_ring();
    test_errors();
    return tap_done();
}

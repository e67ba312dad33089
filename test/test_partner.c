/*
 * The partner port (hw/ports.h, hw/ccm_partner.c) is the CCM's only way to
 * other engines: with every operation wrapped by a counting pass-through,
 * collectives on both topologies give the same figures and every kind of
 * call goes through it (credits read, credits returned, finish wake-ups,
 * and aggregation-engine posts on a fat tree; credits sent back over the
 * path with credit_hop_cycles set); a wrapper that reports half
 * the credits changes the run -- the senders wait for credits that never
 * come, and the stall check stops it -- so the flows run on the port's
 * credits.  What a remote implementation (a domain split of collectives)
 * would stand on.
 */
#include <stdlib.h>
#include <string.h>

#include "coll/run.h"
#include "hw/ccm.h"
#include "net/network.h"
#include "net/topo.h"
#include "params/params.h"
#include "tap.h"

typedef struct {
    mf_partner_port_t real;
    int halve; /* report half the bytes taken (MF_TAKEN_ALL stays) */
    unsigned long taken, returned, credits, wake, post_agg;
} wrap_t;

static uint64_t w_taken(void *ctx, int rank, unsigned cctx, uint32_t seq, unsigned tag,
                        uint64_t now)
{
    wrap_t *w = ctx;
    w->taken++;
    uint64_t v = w->real.taken(w->real.ctx, rank, cctx, seq, tag, now);
    return w->halve && v != MF_TAKEN_ALL ? v / 2 : v;
}

static void w_returned(void *ctx, int rank, unsigned bit, uint64_t now)
{
    wrap_t *w = ctx;
    w->returned++;
    w->real.returned(w->real.ctx, rank, bit, now);
}

static int w_credits(void *ctx, int sender, int receiver, unsigned cctx, uint32_t seq,
                     unsigned tag, uint64_t taken, uint64_t at)
{
    wrap_t *w = ctx;
    w->credits++;
    return w->real.credits(w->real.ctx, sender, receiver, cctx, seq, tag, taken, at);
}

static void w_wake(void *ctx, int rank, uint64_t at)
{
    wrap_t *w = ctx;
    w->wake++;
    w->real.wake(w->real.ctx, rank, at);
}

static int w_post_agg(void *ctx, int rank, const mf_coll_t *from, uint64_t at)
{
    wrap_t *w = ctx;
    w->post_agg++;
    return w->real.post_agg(w->real.ctx, rank, from, at);
}

/* One call of opc (bytes) over every rank of topo, credits coming back
 * credit_hop cycles a hop (0: the next cycle); *us its average time.
 * With w, the network's partner port is wrapped by w. */
static int run(const char *topo, mf_opcode_t opc, uint64_t bytes, const char *credit_hop,
               wrap_t *w, double *us)
{
    mf_params_t p;
    mf_topo_spec_t spec = {.kind = MF_TOPO_TORUS};
    mf_topo_t t;
    char err[256];
    if (mf_params_load("u280", &p, err, sizeof err) ||
        mf_params_set(&p, "credit_hop_cycles", credit_hop, err, sizeof err) ||
        mf_topo_parse(topo, &spec, err, sizeof err))
        return -1;
    int nodes = spec.kind == MF_TOPO_TORUS ? spec.x * spec.y * spec.z : 16;
    spec.oversub = spec.oversub ? spec.oversub : (int)p.oversub;
    if (mf_topo_build(&spec, nodes, 1, &t, err, sizeof err))
        return -1;
    int rc = -1;
    mf_net_t *n = mf_net_create(&p, &t, err, sizeof err);
    int *members = NULL;
    if (!n)
        goto out;
    int P = mf_net_nranks(n);
    if (!(members = malloc((size_t)P * sizeof *members)))
        goto out;
    for (int i = 0; i < P; i++)
        members[i] = i;
    if (w) {
        w->real = n->partners;
        n->partners = (mf_partner_port_t){.taken = w_taken, .returned = w_returned,
                                          .credits = w_credits, .wake = w_wake,
                                          .post_agg = w_post_agg, .ctx = w};
    }
    mf_coll_spec_t c = {.opc = opc, .op = MF_OP_SUM, .dtype = MF_DT_DOUBLE, .bytes = bytes};
    mf_coll_timing_t tm;
    if (mf_comm_setup(n, 0, P, members, err, sizeof err) ||
        mf_coll_once(n, &c, P, members, NULL, NULL, mf_net_now(n), NULL, &tm, err, sizeof err))
        goto out;
    *us = tm.avg_us;
    rc = 0;
out:
    if (rc)
        diag("%s %s: %s", topo, mf_opcode_name(opc), err);
    free(members);
    mf_net_destroy(n);
    mf_topo_free(&t);
    return rc;
}

int main(void)
{
    static const struct {
        const char *topo;
        mf_opcode_t opc;
        uint64_t bytes;
        int fattree; /* aggregation engines: posts go through the port */
    } cases[] = {
        {"torus:4x4x4", MF_OPC_ALLREDUCE, 262144, 0}, /* Rabenseifner: credits bind */
        {"torus:4x4x2", MF_OPC_BCAST, 262144, 0},
        {"torus:4x4x2", MF_OPC_REDUCE_SCATTER, 1048576, 0},
        {"fattree:8", MF_OPC_ALLREDUCE, 65536, 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        double plain = 0, wrapped = 0, halved = 0;
        wrap_t w = {0}, h = {.halve = 1};
        int rc = run(cases[i].topo, cases[i].opc, cases[i].bytes, "0", NULL, &plain) |
                 run(cases[i].topo, cases[i].opc, cases[i].bytes, "0", &w, &wrapped);
        ok(!rc && plain > 0 && wrapped == plain && w.taken && w.returned && w.wake &&
               (!cases[i].fattree || w.post_agg),
           "%s %s %llu B through a wrapped partner port: the same %.3f us (%.3f), %lu credit "
           "reads, %lu returns, %lu finish wake-ups, %lu aggregation posts",
           cases[i].topo, mf_opcode_name(cases[i].opc), (unsigned long long)cases[i].bytes,
           plain, wrapped, w.taken, w.returned, w.wake, w.post_agg);
        if (i == 0) { /* the credits the flows run on are the port's */
            diag("the next run is to stall:");
            rc = run(cases[i].topo, cases[i].opc, cases[i].bytes, "0", &h, &halved);
            ok(h.taken && (rc || halved != plain),
               "%s %s with half the credits reported: %s", cases[i].topo,
               mf_opcode_name(cases[i].opc),
               rc ? "the senders wait for credits that never come (stall)" : "other figures");
        }
    }
    /* credits over the path (credit_hop_cycles) go through the port too,
     * in place of the reads and returns */
    double plain = 0, wrapped = 0;
    wrap_t w = {0};
    int rc = run("torus:4x4x4", MF_OPC_ALLREDUCE, 262144, "114", NULL, &plain) |
             run("torus:4x4x4", MF_OPC_ALLREDUCE, 262144, "114", &w, &wrapped);
    ok(!rc && plain > 0 && wrapped == plain && w.credits && !w.taken && !w.returned,
       "torus:4x4x4 allreduce 262144 B, credits over the path, wrapped: the same %.3f us "
       "(%.3f), %lu credits sent, %lu reads, %lu returns", plain, wrapped, w.credits, w.taken,
       w.returned);
    return tap_done();
}

/*
 * Baseline MPI on the modeled fabric (baseline.h): MPICH's schedules
 * (sched.c) executed by LogGP hosts whose messages cross the modeled
 * routers and links as unicast packets.
 *
 * One engine module per network.  Host-side times (CPU, NIC) are kept in
 * fractional cycles; the module runs a rank when its CPU or NIC has
 * something due, and the network's unicast ejection hook delivers packets
 * to the receiving NIC.  Messages between a pair of ranks arrive in order
 * (deterministic routing, one VC per flow: doc/model.md sec. 6), so a
 * receive matches the next completed message of its source.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "baseline/baseline_int.h"

/* ---- engine module -------------------------------------------------------- */

static void bl_produce(mf_module_t *m, mf_sim_t *sim)
{
    bl_t *b = (bl_t *)m;
    uint64_t now = sim->now;
    while (b->nev && b->ev[0].at <= now && !b->failed) {
        event_t ev = bl_ev_pop(b);
        rank_t *k = &b->rk[ev.rank];
        if (k->sched == ev.at)
            k->sched = MF_NEVER;
        bl_nic_progress(b, ev.rank, now);
        bl_cpu_progress(b, ev.rank, now);
    }
    if (b->failed) {
        b->net->failed = 1;
        snprintf(b->net->err, sizeof b->net->err, "%s", b->err);
    }
}

static void bl_free(void *p)
{
    bl_t *b = p;
    if (!b)
        return;
    free(b->ev);
    free(b);
}

/* The network's baseline engine, created on first use. */
static bl_t *engine(mf_net_t *n, char *err, size_t len)
{
    if (n->baseline)
        return n->baseline;
    bl_t *b = calloc(1, sizeof *b);
    if (!b || mf_sim_add(&n->sim, &b->mod, NULL, bl_produce)) {
        free(b);
        snprintf(err, len, "out of memory");
        return NULL;
    }
    b->net = n;
    n->baseline = b;
    n->baseline_free = bl_free;
    return b;
}

static int set_costs(bl_t *b, const mf_host_params_t *h, char *err, size_t len)
{
    mf_net_t *n = b->net;
    char why[200];
    if (mf_host_params_check(h, why, sizeof why)) {
        snprintf(err, len, "%s", why);
        return -1;
    }
    uint64_t mtu_phits = (h->mtu_bytes + n->phit_bytes - 1) / n->phit_bytes;
    if (mtu_phits + n->margin > n->vc_cap || mtu_phits > UINT16_MAX) {
        snprintf(err, len,
                 "host set '%s': mtu_bytes = %u (%llu phits) + back-pressure margin %u phits "
                 "exceeds a VC's FIFO (%u phits) of parameter set '%s': lower mtu_bytes",
                 h->name, h->mtu_bytes, (unsigned long long)mtu_phits, n->margin, n->vc_cap,
                 n->p.name);
        return -1;
    }
    b->h = h;
    b->os = bl_cyc(b, h->o_send_ns);
    b->orr = bl_cyc(b, h->o_recv_ns);
    b->gap = bl_cyc(b, h->gap_ns);
    b->G = bl_cyc(b, h->G_ps_per_byte / 1000.0);
    b->red = bl_cyc(b, h->reduce_ps_per_byte / 1000.0);
    b->nic = bl_cyc(b, h->nic_latency_ns);
    b->copy = bl_cyc(b, h->eager_copy_ps_per_byte / 1000.0);
    b->mtu = h->mtu_bytes;
    return 0;
}

void mf_bl_call_from_spec(const mf_coll_spec_t *c, int size, mf_bl_call_t *call,
                          uint64_t *counts_buf)
{
    size_t es = mf_elem_bytes(c->op, c->dtype);
    *call = (mf_bl_call_t){.opc = c->opc, .size = size, .root = c->root, .esize = es,
                           .bytes = mf_osu_hdr_size(c->opc, c->bytes, size, es)};
    if (c->opc == MF_OPC_REDUCE_SCATTER && c->counts && counts_buf) {
        for (int i = 0; i < size; i++)
            counts_buf[i] = c->counts[i];
        call->counts = counts_buf;
    }
}

/* Build every member's program; 0 or -1 with err. */
static int build(bl_t *b, const mf_coll_spec_t *c, int size, const int *members, char *err,
                 size_t len)
{
    mf_net_t *n = b->net;
    uint64_t *cnt = calloc((size_t)size, sizeof *cnt);
    b->rk = calloc((size_t)size, sizeof *b->rk);
    b->complete = calloc((size_t)size, sizeof *b->complete);
    b->of_grank = malloc((size_t)n->nranks * sizeof *b->of_grank);
    if (!cnt || !b->rk || !b->complete || !b->of_grank) {
        free(cnt);
        snprintf(err, len, "out of memory");
        return -1;
    }
    for (int g = 0; g < n->nranks; g++)
        b->of_grank[g] = -1;
    mf_bl_call_t call;
    mf_bl_call_from_spec(c, size, &call, cnt);
    mf_bl_alg_t alg = mf_bl_select(&call);
    int rc = 0;
    for (int i = 0; i < size && rc == 0; i++) {
        if (members[i] < 0 || members[i] >= n->nranks || b->of_grank[members[i]] >= 0) {
            snprintf(err, len, "bad member list: global rank %d", members[i]);
            rc = -1;
            break;
        }
        b->of_grank[members[i]] = i;
        b->rk[i].grank = members[i];
        b->rk[i].sched = MF_NEVER;
        rc = mf_bl_schedule(&call, alg, i, &b->rk[i].prog, err, len);
    }
    free(cnt);
    return rc;
}

static void release(bl_t *b)
{
    for (int i = 0; b->rk && i < b->size; i++) {
        mf_bl_prog_free(&b->rk[i].prog);
        for (txmsg_t *m = b->rk[i].txq, *nx; m; m = nx) {
            nx = m->next;
            free(m);
        }
    }
    for (size_t i = 0; i < b->chcap; i++)
        free(b->ch[i].done);
    free(b->ch);
    free(b->rk);
    free(b->complete);
    free(b->of_grank);
    b->ch = NULL, b->chcap = b->chn = 0;
    b->rk = NULL;
    b->complete = NULL;
    b->of_grank = NULL;
    b->nev = 0;
}

int mf_bl_coll_once(mf_net_t *n, const mf_host_params_t *h, const mf_coll_spec_t *c, int size,
                    const int *members, uint64_t at, uint64_t *lat_cycles, mf_coll_timing_t *t,
                    char *err, size_t len)
{
    bl_t *b = engine(n, err, len);
    int rc = -1;
    if (!b || set_costs(b, h, err, len))
        return -1;
    if (n->on_eject) {
        snprintf(err, len, "the network is running synthetic traffic");
        return -1;
    }
    b->size = size;
    b->failed = 0;
    if (build(b, c, size, members, err, len))
        goto out;
    if (at < n->sim.now) {
        snprintf(err, len, "baseline: start cycle %llu is in the past (now %llu)",
                 (unsigned long long)at, (unsigned long long)n->sim.now);
        goto out;
    }
    n->on_eject = bl_on_eject;
    n->eject_ctx = b;
    b->left = size;
    n->pending += (size_t)size;
    for (int i = 0; i < size; i++) {
        b->rk[i].cpu = (double)at;
        b->rk[i].nic_free = b->rk[i].gap_free = (double)at;
        bl_ev_push(b, at, i);
    }
    mf_sim_wake(&n->sim, &b->mod, at);
    rc = mf_net_run(n, MF_NEVER, err, len);
    n->pending -= (size_t)b->left;
    n->on_eject = NULL;
    n->eject_ctx = NULL;
    if (rc)
        goto out;
    for (int i = 0; i < size; i++)
        b->complete[i] = ceil_cycle(b->rk[i].end);
    mf_coll_timing_fill(n, at, b->complete, size, lat_cycles, t);
out:
    release(b);
    return rc;
}

typedef struct {
    mf_net_t *n;
    const mf_host_params_t *h;
    const mf_coll_spec_t *c;
    int size;
    const int *members;
} loop_ctx_t;

static int once(void *ctx, uint64_t at, uint64_t *lat, mf_coll_timing_t *t, char *err, size_t len)
{
    loop_ctx_t *o = ctx;
    return mf_bl_coll_once(o->n, o->h, o->c, o->size, o->members, at, lat, t, err, len);
}

int mf_bl_coll_loop(mf_net_t *n, const mf_host_params_t *h, const mf_coll_spec_t *c, int size,
                    const int *members, int iters, int fast, mf_coll_timing_t *t, int *simulated,
                    char *err, size_t len)
{
    loop_ctx_t o = {n, h, c, size, members};
    return mf_iter_loop(n, size, iters, fast, once, &o, t, simulated, err, len);
}

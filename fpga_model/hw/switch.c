/*
 * One MPI-FPGA switch as a cycle-engine module (001 fig. 5; 000 Algorithms
 * 1-2): consume latches what the links delivered; produce runs the blocks
 * in pipeline order -- CCM / collectors / CGR / L2 for the local engines,
 * ejection, switch allocation and traversal -- and asks to run again only
 * while something can still move.
 */
#include <stdlib.h>

#include "hw/switch.h"

int mf_rank_switch(const mf_net_t *n, int grank)
{
    if (grank >= n->nranks)
        return grank - n->nranks; /* an aggregation engine (fat tree) */
    return n->topo->node_sw[grank / n->topo->ppn];
}

static void consume(mf_module_t *m, mf_sim_t *sim)
{
    mf_switch_t *s = (mf_switch_t *)m;
    mf_l1_receive(s, sim->now);
}

/* Anything queued that may move in a later cycle? */
static int has_queued(const mf_switch_t *s)
{
    for (unsigned w = 0; w < MF_VC_WORDS; w++)
        if (s->vc_held[w])
            return 1;
    if (s->coll_out_held)
        return 1;
    for (int i = 0; i < s->nengines; i++)
        if (s->eng[i]->tx.n)
            return 1;
    return 0;
}

/* One cycle of an engine's CCM: start what is due, drive what runs. */
static void drive_engine(mf_switch_t *s, mf_engine_t *e, uint64_t now, int *busy)
{
    if (e->waiting & ~e->running) /* else there is nothing to start */
        mf_ccm_start_ready(s, e, now);
    if (e->running)
        mf_ccm_progress(s, e, now, busy);
}

static void produce(mf_module_t *m, mf_sim_t *sim)
{
    mf_switch_t *s = (mf_switch_t *)m;
    uint64_t now = sim->now;
    int busy = 0;
    /* from eng_rr on, round: fair CGR slots */
    for (int j = 0, i = s->eng_rr; j < s->nengines; j++, i = i + 1 == s->nengines ? 0 : i + 1)
        drive_engine(s, s->eng[i], now, &busy);
    if (s->nengines && ++s->eng_rr == s->nengines)
        s->eng_rr = 0;
    if (s->agg)
        drive_engine(s, s->agg, now, &busy);
    mf_l1_eject_ready(s, now);
    mf_sw_alloc(s, now);
    if (busy || has_queued(s))
        mf_switch_wake(s, now + 1);
}

int mf_switch_init(mf_net_t *n, mf_switch_t *s, int id)
{
    const mf_topo_t *t = n->topo;
    s->net = n;
    s->id = id;
    s->nports = t->max_ports;
    s->next_rx = MF_NEVER;
    s->cgr.units = n->p.sa_cgr;
    s->streams.wake = (mf_wake_port_t){&n->sim, &s->mod};
    s->streams.fault = (mf_fault_port_t){&n->failed, n->err, sizeof n->err};
    for (int p = 0; p < s->nports; p++) {
        s->in[p].next_head = MF_NEVER;
        for (unsigned v = 0; v < n->p.vcs; v++)
            if (mf_fifo_init(&s->in[p].vc[v], n->vc_cap, n->margin, n->link_lat))
                return -1;
    }
    return mf_sim_add(&n->sim, &s->mod, consume, produce);
}

void mf_switch_fini(mf_switch_t *s)
{
    for (int p = 0; p < s->nports; p++) {
        for (unsigned v = 0; v < s->net->p.vcs; v++) {
            mf_fifo_t *f = &s->in[p].vc[v];
            mf_pkt_t *k;
            while ((k = mf_pq_pop(&f->q)) != NULL)
                mf_pkt_free(&s->net->pool, k);
            mf_fifo_fini(f);
        }
        mf_pkt_t *k;
        while ((k = mf_pq_pop(&s->out[p].link.q)) != NULL)
            mf_pkt_free(&s->net->pool, k);
        while ((k = mf_pq_pop(&s->coll_out[p])) != NULL)
            mf_pkt_free(&s->net->pool, k);
    }
    free(s->eng);
    free(s->eject_free_fx);
}

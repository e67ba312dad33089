/*
 * One MPI-FPGA switch as a cycle-engine module (001 fig. 5; 000 Algorithms
 * 1-2), and the one place that instantiates its blocks and wires their
 * ports (hw/switch.h; what crosses switches is wired in net/network.c).
 * consume latches what the links delivered; produce runs the blocks in
 * pipeline order -- each engine's CCM with its flows (collectors, CGR, L2,
 * DMA through their ports), the L1's ejection, switch allocation and
 * traversal -- and asks to run again only while something can still move.
 */
#include <stdlib.h>
#include <string.h>

#include "hw/cgr.h"
#include "hw/switch.h"
#include "net/network.h"

static void consume(mf_module_t *m, mf_sim_t *sim)
{
    mf_switch_t *s = (mf_switch_t *)m;
    /* woken for arrivals alone (l1_switch.c traverse), the switch skips this
     * cycle's produce: a packet that arrives is not ready before
     * 2 x stage cycles on, and nothing else has changed for the switch.
     * Ask for the produce in which a held packet can move, which is what
     * the skipped one would have asked for. */
    if (mf_l1_receive(&s->l1, sim->now) && !m->produce_due) {
        uint64_t next = mf_l1_next_move(&s->l1, sim->now);
        if (next != MF_NEVER)
            mf_switch_wake(s, next);
    }
}

/* The module's load hint (engine.c prefetch_ahead): the packets its
 * consume will take off the links, or the FIFO heads and the due flows of
 * running calls its produce will look at.  Reads only this switch's ports,
 * engines and calls and its input links' queues, which no other module
 * changes in that phase (links are pushed in produce); writes nothing. */
static void prefetch(mf_module_t *m, int produce, uint64_t now)
{
    mf_switch_t *s = (mf_switch_t *)m;
    mf_l1_t *l = &s->l1;
    if (!produce) {
        if (l->next_rx > now)
            return;
        for (int p = 0; p < l->nports; p++)
            if (l->in[p].next_head <= now && l->in[p].link->q.head)
                __builtin_prefetch(l->in[p].link->q.head);
        return;
    }
    for (unsigned w = 0; w < l->vc_words; w++)
        for (uint64_t b = l->vc_held[w]; b; b &= b - 1)
            __builtin_prefetch(mf_fifo_head(mf_l1_fifo(l, w * 64 + (unsigned)__builtin_ctzll(b))));
    for (int i = 0; i < s->nengines; i++) {
        const mf_engine_t *e = s->eng[i];
        for (uint32_t todo = e->running; todo; todo &= todo - 1) {
            const mf_coll_t *c = e->cur[__builtin_ctz(todo)];
            if (c->next_check > now || c->nfl > 64)
                continue;
            for (uint64_t d = c->flow_due; d; d &= d - 1)
                __builtin_prefetch(&c->fl[__builtin_ctzll(d)]);
        }
    }
}

/* One cycle of an engine's CCM: start what is due, drive what runs. */
static void drive_engine(mf_engine_t *e, uint64_t now, int *busy)
{
    if (e->waiting & ~e->running) /* else there is nothing to start */
        mf_ccm_start_ready(e, now);
    if (e->running)
        mf_ccm_progress(e, now, busy);
}

/* What a produce did, for mf_net_stats: moved packets (`pkts` granted or
 * ejected), or else bytes of flows alone -- what a fast path for streaming
 * flows could leave out (doc/model.md section 10) -- if more flow steps
 * moved bytes than the `moved` before it. */
static void count_step(mf_ccm_t *m, int pkts, uint64_t moved)
{
    if (pkts)
        m->packet_steps++;
    else if (m->flow_steps - m->idle_steps != moved)
        m->flow_only_steps++;
}

static void produce(mf_module_t *m, mf_sim_t *sim)
{
    mf_switch_t *s = (mf_switch_t *)m;
    uint64_t now = sim->now;
    int busy = 0;
    s->ccm.credit_wait = 0; /* set again by a flow still waiting for credits */
    uint64_t moved = s->ccm.flow_steps - s->ccm.idle_steps; /* flow steps that moved bytes */
    /* Engines take turns by the clock: the one served first (fair CGR
     * slots) is a function of the cycle alone, as a rotating-priority
     * arbiter's is -- not of which cycles the switch happened to run in,
     * so a run skipped for lack of work changes nothing. */
    int first = s->nengines > 1 ? (int)(now % (uint64_t)s->nengines) : 0;
    for (int j = 0, i = first; j < s->nengines; j++, i = i + 1 == s->nengines ? 0 : i + 1)
        drive_engine(s->eng[i], now, &busy);
    if (s->agg)
        drive_engine(s->agg, now, &busy);
    int pkts = mf_l1_eject_ready(&s->l1, now);
    pkts += mf_sw_alloc(&s->l1, now);
    if (s->ccm.nl2_wait) /* flows parked on a full L2 queue: did it pop? */
        mf_ccm_l2_room(&s->ccm, now, &busy);
    count_step(&s->ccm, pkts, moved);
    /* the L1 sleeps until a packet it holds can move (mf_l1_next_move) */
    uint64_t next = busy ? now + 1 : mf_l1_next_move(&s->l1, now);
    if (next != MF_NEVER)
        mf_switch_wake(s, next);
}

/* ---- the ports' synchronous hand-overs ------------------------------------ */

static void l1_route(void *l1, mf_pkt_t *k) { mf_route_compute(l1, k); }
static int l2_queue_of(void *l2, uint16_t dest) { return mf_l2_queue(l2, dest); }
static void l2_emit(void *l2, mf_pkt_t *k, uint64_t now) { mf_l2_emit(l2, k, now); }
static void dma_read(void *dma, mf_coll_t *c, uint64_t now) { mf_dma_read_sources(dma, c, now); }

static int init_l1(mf_net_t *n, mf_switch_t *s)
{
    mf_l1_t *l = &s->l1;
    l->id = s->id;
    l->vcs = n->p.vcs;
    l->stage = n->stage;
    l->phit_bytes = n->phit_bytes;
    l->phits_per_cycle = n->p.datapath_phits_per_cycle;
    l->eject_per_port = n->p.eject_per_port;
    l->nports = n->topo->max_ports;
    l->vc_words = ((unsigned)l->nports * l->vcs + 63) / 64;
    l->next_rx = MF_NEVER;
    l->eject = n->eject;
    l->topo = n->topo;
    l->nranks = n->nranks;
    l->wake = (mf_wake_port_t){&n->sim, &s->mod};
    size_t nfifo = (size_t)l->nports * l->vcs, f_b = nfifo * sizeof *l->fifo;
    size_t in_b = (size_t)l->nports * sizeof *l->in, out_b = (size_t)l->nports * sizeof *l->out,
           q_b = (size_t)l->nports * sizeof *l->l2_out, v_b = nfifo * sizeof *l->seen,
           all = (f_b + in_b + out_b + q_b + v_b + 63) / 64 * 64;
    char *ports = aligned_alloc(64, all ? all : 64);
    if (!ports)
        return -1;
    memset(ports, 0, all);
    l->fifo = (mf_fifo_t *)ports; /* first: the block's pointer, freed by fini */
    l->in = (mf_inport_t *)(ports + f_b);
    l->out = (mf_outport_t *)(ports + f_b + in_b);
    l->l2_out = (mf_pq_t *)(ports + f_b + in_b + out_b);
    l->seen = (mf_stop_view_t *)(ports + f_b + in_b + out_b + q_b);
    for (size_t i = 0; i < nfifo; i++)
        l->seen[i] = (mf_stop_view_t){.from = MF_NEVER, .until = 0};
    for (int p = 0; p < l->nports; p++)
        l->in[p].next_head = MF_NEVER;
    for (size_t i = 0; i < nfifo; i++)
        mf_fifo_init(&l->fifo[i], n->vc_cap, n->margin, n->link_lat, &s->streams.fault);
    return 0;
}

static void init_l2(mf_net_t *n, mf_switch_t *s)
{
    s->l2 = (mf_l2_t){.id = s->id, .stage = n->stage,
                      .phits_per_cycle = n->p.datapath_phits_per_cycle, .topo = n->topo, .nranks = n->nranks,
                      .out = s->l1.l2_out, .out_held = &s->l1.l2_held,
                      .route = {l1_route, &s->l1}, .collector = n->col_in,
                      .wake = {&n->sim, &s->mod}};
}

static void init_ccm(mf_net_t *n, mf_switch_t *s)
{
    s->ccm = (mf_ccm_t){
        .cfg = &n->cfg, .topo = n->topo,
        .partners = &n->partners,
        .streams = &s->streams, .grant = &s->cgr,
        .reduce = mf_cgr_reduce, .serialise = mf_l2_serialise,
        .emit = {s->l1.l2_out, l2_queue_of, l2_emit, &s->l2},
        .read = {dma_read, &s->dma},
        .pkts = &n->pool, .wake = {&n->sim, &s->mod},
        .fault = {&n->failed, n->err, sizeof n->err},
        .progress = {&n->progress_at, &n->sim.active_cycles},
        .pending = &n->pending};
}

int mf_switch_init(mf_net_t *n, mf_switch_t *s, int id)
{
    s->net = n;
    s->id = id;
    s->cgr.units = n->p.sa_cgr;
    s->streams.wake = (mf_wake_port_t){&n->sim, &s->mod};
    s->streams.fault = (mf_fault_port_t){&n->failed, n->err, sizeof n->err};
    s->dma = (mf_dma_reader_t){&s->streams, n->cfg.dma_window};
    if (init_l1(n, s))
        return -1;
    init_l2(n, s);
    init_ccm(n, s);
    if (mf_sim_add(&n->sim, &s->mod, consume, produce))
        return -1;
    s->mod.prefetch = prefetch;
    return 0;
}

void mf_switch_fini(mf_switch_t *s)
{
    mf_l1_t *l = &s->l1;
    for (unsigned i = 0; l->fifo && i < (unsigned)l->nports * l->vcs; i++) {
        mf_fifo_t *f = mf_l1_fifo(l, i);
        mf_pkt_t *k;
        while ((k = mf_pq_pop(&f->q)) != NULL)
            mf_pkt_free(&s->net->pool, k);
        mf_fifo_fini(f);
    }
    for (int p = 0; l->fifo && p < l->nports; p++) {
        mf_pkt_t *k;
        while ((k = mf_pq_pop(&l->out[p].link.q)) != NULL)
            mf_pkt_free(&s->net->pool, k);
        while ((k = mf_pq_pop(&l->l2_out[p])) != NULL)
            mf_pkt_free(&s->net->pool, k);
    }
    free(s->eng);
    free(s->ccm.l2_wait);
    free(s->ccm.cr_wait);
    free(l->tx);
    free(l->eject_free_fx);
    free(l->fifo); /* the block of fifo, in, out, l2_out and seen */
    l->fifo = NULL;
    l->in = NULL;
}

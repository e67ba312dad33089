/*
 * The whole modeled network: switches wired by the topology, one DMA engine
 * per node, one collective-engine context per rank, and the public API of
 * include/mpifpga/model.h.
 */
#define _GNU_SOURCE /* sched_getaffinity */
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "net/network.h"
#include "net/domain.h"
#include "mpifpga/model.h"

/* Below this many switches the network stays in cache and the load hints
 * are skipped (bench/README.md, "Load hints"). */
#define MF_NET_HINT_MIN_SWITCHES 128

int mf_rank_switch(const mf_net_t *n, int grank)
{
    return mf_topo_engine_switch(n->topo, n->nranks, grank);
}

static void derive(mf_net_t *n)
{
    const mf_params_t *p = &n->p;
    n->phit_bytes = mf_params_phit_bytes(p);
    n->pkt_bytes = p->net_pkt_phits * n->phit_bytes;
    n->datapath_bytes = p->datapath_phits_per_cycle * n->phit_bytes;
    n->dma_bytes = p->dma_phits_per_cycle * n->phit_bytes;
    n->stage = p->router_stage_cycles;
    n->pcie = (uint32_t)mf_params_ns_to_cycles(p, p->pcie_latency_ns);
    /* 001 sec. 4.4: in the indirect network the processors attach to the
     * leaf switches "through network ports": PCIe to the host's NIC, then
     * a link (Table 2: 440 ns) to the leaf's packet converter */
    n->host_fx = (uint64_t)n->dma_bytes << 16;
    if (n->topo->kind == MF_TOPO_FATTREE) {
        n->pcie += (uint32_t)mf_params_ns_to_cycles(p, p->link_latency_ns);
        if (mf_params_link_bpc_fx(p) < n->host_fx) /* and at the link's rate */
            n->host_fx = mf_params_link_bpc_fx(p);
    }
    n->host_o = (uint32_t)mf_params_ns_to_cycles(p, p->host_overhead_ns);
    n->link_lat = (uint32_t)mf_params_ns_to_cycles(p, p->link_latency_ns);
    if (n->link_lat < 1)
        n->link_lat = 1;
    n->vc_cap = p->input_fifo_bytes / n->phit_bytes / p->vcs;
    n->margin = mf_params_margin_phits(p);
    n->cfg = (mf_hw_cfg_t){.p = &n->p, .phit_bytes = n->phit_bytes, .pkt_bytes = n->pkt_bytes,
                           .datapath_bytes = n->datapath_bytes, .dma_bytes = n->dma_bytes,
                           .stage = n->stage, .pcie = n->pcie, .host_o = n->host_o,
                           .link_lat = n->link_lat, .window = p->input_fifo_bytes,
                           .credit_hop = p->credit_hop_cycles,
                           /* a PCIe round of the DMA's bytes, plus a few packets */
                           .dma_window = (uint64_t)n->pcie * n->dma_bytes + 4ull * n->pkt_bytes,
                           .reduce_cycles = p->aglu_latency_cycles,
                           .copy_cycles = p->collector_cycles, .nranks = n->topo->nranks};
}

static int wire_links(mf_net_t *n)
{
    const mf_topo_t *t = n->topo;
    double jitter = n->p.link_jitter_sd_ns / mf_params_cycle_ns(&n->p);
    uint32_t bpc = mf_params_link_bpc_fx(&n->p);
    for (int s = 0; s < n->nsw; s++) {
        for (int p = 0; p < t->max_ports; p++) {
            int peer = t->peer_sw[s * t->max_ports + p];
            mf_outport_t *o = &n->sw[s].l1.out[p];
            if (peer < 0)
                continue;
            o->connected = 1;
            o->peer = &n->sw[peer].l1;
            o->peer_port = t->peer_port[s * t->max_ports + p];
            o->peer_fifo = mf_l1_fifo(o->peer, (unsigned)o->peer_port * o->peer->vcs);
            mf_link_init(&o->link, n->link_lat, jitter, bpc,
                         n->p.seed ^ ((uint64_t)s << 8 | (uint64_t)p));
            o->peer->in[o->peer_port].link = &o->link;
        }
    }
    return 0;
}

static const mf_ct_entry_t *ct_lookup_port(const void *table, int ctx)
{
    return mf_ct_lookup(table, ctx);
}

static void ct_write_port(void *table, int ctx, const mf_ct_entry_t *entry)
{
    mf_ct_write(table, ctx, entry);
}

static void collector_in(void *col, mf_pkt_t *k, uint64_t now)
{
    mf_collector_accept(col, k, now);
}

static void collector_adopt(void *col, mf_coll_t *c, uint64_t now)
{
    (void)now;
    mf_collector_adopt_parked(col, c);
}

/* The end of a unicast packet's journey: the DMA counts it, the traffic
 * generator or baseline engine (on_eject) sees it. */
static void hand_to_eject_hook(void *net, void *pkt, uint64_t unused)
{
    (void)unused;
    mf_net_t *n = net;
    mf_pkt_t *k = pkt;
    n->on_eject(n, &n->eng[k->h.dest], k);
    mf_pkt_free(&n->pool, k);
}

/* The hook's state is shared by all switches: it sees the packet after
 * the switches' phase (sim/engine.h). */
static void eject_unicast(void *net, mf_pkt_t *k, uint64_t now)
{
    mf_net_t *n = net;
    mf_dma_receive(&n->rx[k->h.dest], k, now);
    if (!n->on_eject)
        mf_pkt_free(&n->pool, k);
    else if (mf_sim_defer(&n->sim, hand_to_eject_hook, n, k, 0))
        mf_fault(&(mf_fault_port_t){&n->failed, n->err, sizeof n->err},
                 "out of memory handing a packet to the traffic generator");
}

/* Engine g on switch sw: its CCM, communicator table and collector, and
 * the ports that join them (the L1's eject ports, the L2's loopback). */
static void wire_engine(mf_net_t *n, int g, mf_switch_t *sw)
{
    mf_engine_t *e = &n->eng[g];
    e->grank = g;
    e->sw = sw;
    e->ccm = &sw->ccm;
    n->ct[g].entries = n->p.ct_entries;
    n->ct[g].max_ranks = n->p.max_ranks;
    e->ct = (mf_ct_port_t){ct_lookup_port, ct_write_port, &n->ct[g]};
    n->col[g] = (mf_collector_t){.cur = e->cur, .streams = &sw->streams, .pkts = &n->pool,
                                 .cycles = n->p.collector_cycles};
    n->col_in[g] = (mf_pkt_port_t){collector_in, &n->col[g]};
    e->adopt = (mf_call_port_t){collector_adopt, &n->col[g]};
    n->eject[g] = (mf_eject_port_t){.collective = n->col_in[g], .unicast = {eject_unicast, n}};
}

static int attach_engines(mf_net_t *n)
{
    const mf_topo_t *t = n->topo;
    for (int s = 0; s < n->nsw; s++) {
        int slots = t->sw_nodes[s] * t->ppn;
        mf_l1_t *l = &n->sw[s].l1;
        n->sw[s].eng = calloc(slots ? slots : 1, sizeof *n->sw[s].eng);
        l->tx = calloc(slots ? slots : 1, sizeof *l->tx);
        l->eject_free_fx = /* a lane per input port + the shared one, per slot */
            calloc((size_t)(slots ? slots : 1) * (size_t)(l->nports + 1), sizeof(uint64_t));
        if (!n->sw[s].eng || !l->tx || !l->eject_free_fx)
            return -1;
        n->sw[s].nengines = l->nengines = slots;
        for (int p = 0; p < l->nports; p++) /* its heads sleep on a stop */
            for (unsigned v = 0; l->out[p].connected && v < l->vcs; v++)
                mf_l1_peer_fifo(l, p, v)->upstream = &l->wake;
    }
    for (int r = 0; r < n->nranks; r++) {
        int node = r / t->ppn;
        mf_engine_t *e = &n->eng[r];
        wire_engine(n, r, &n->sw[t->node_sw[node]]);
        e->dma = &n->dma[node];
        e->slot = t->node_slot[node] * t->ppn + r % t->ppn;
        n->eject[r].slot = e->slot;
        e->sw->eng[e->slot] = e;
        e->sw->l1.tx[e->slot] = &e->tx; /* the converter's injection port */
    }
    /* fat tree: an aggregation engine in every switch of the aggregation
     * tree above the leaves (001 sec. 4.4), addressed as rank nranks + sw */
    for (int s = 0; s < n->nsw && n->neng > n->nranks; s++) {
        if (t->sw_level[s] == 0)
            continue;
        mf_engine_t *e = &n->eng[n->nranks + s];
        wire_engine(n, n->nranks + s, &n->sw[s]);
        n->sw[s].agg = e;
    }
    return 0;
}

static void note_pool_peak(void *net)
{
    mf_net_t *n = net;
    mf_pool_note_peak(&n->pool, n->sim.nthreads);
}

static int share_procs = 1; /* mf_net_share_cores */

void mf_net_share_cores(int nprocs) { share_procs = nprocs > 1 ? nprocs : 1; }

/* Cores this process may run on, its share when processes share a node. */
static int cores_available(void)
{
    cpu_set_t set;
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
        n = CPU_COUNT(&set);
    n /= share_procs;
    return n > 0 ? (int)n : 1;
}

/* MPIFPGA_THREADS (mpifpga-sim --threads): threads the switches of one
 * cycle are shared among.  Default: the cores available, one per 64
 * switches at most (a cycle of a small network is too short to share).
 * The count never changes a result (sim/engine.h). */
static int start_threads(mf_net_t *n, char *err, size_t errlen)
{
    int k = cores_available(), per = n->nsw / 64;
    if (k > per)
        k = per > 1 ? per : 1;
    const char *env = getenv("MPIFPGA_THREADS");
    if (env && *env) {
        char *end;
        long v = strtol(env, &end, 10);
        if (*end || v < 1 || v > MF_SIM_MAX_THREADS) {
            snprintf(err, errlen, "MPIFPGA_THREADS='%s': expected a number of threads from 1 to %d",
                     env, MF_SIM_MAX_THREADS);
            return -1;
        }
        k = (int)v;
    }
    n->sim.phase_end = note_pool_peak;
    n->sim.phase_end_ctx = n;
    if (mf_sim_set_threads(&n->sim, k, (uint32_t)n->nsw)) {
        snprintf(err, errlen, "cannot start %d simulation threads (MPIFPGA_THREADS)", k);
        return -1;
    }
    /* the order check of test/sim_threads.sh: same figures if a phase's
     * slices run last first */
    const char *rev = getenv("MPIFPGA_SIM_REVERSE");
    n->sim.reverse_chunks = rev && *rev == '1';
    /* and the thread-count check on small networks: share every phase */
    const char *all = getenv("MPIFPGA_SIM_SHARE_ALL");
    if (all && *all == '1')
        n->sim.share_min = 1;
    /* and the wake-up check: the same figures if a switch also runs in
     * the cycles it skips (doc/model.md section 1) */
    const char *full = getenv("MPIFPGA_SIM_FULL_WAKES");
    n->sim.full_wakes = full && *full == '1';
    /* load hints: for networks whose switches outgrow the cache (about
     * 3 KB a switch plus the packets in flight, against a core's 1 MiB
     * L2); MPIFPGA_SIM_HINTS=0 or 1 decides for any size (tests, bench) */
    const char *hints = getenv("MPIFPGA_SIM_HINTS");
    if (hints && (*hints == '0' || *hints == '1'))
        n->sim.no_hints = *hints == '0';
    else
        n->sim.no_hints = n->nsw < MF_NET_HINT_MIN_SWITCHES;
    return 0;
}

mf_net_t *mf_net_create(const mf_params_t *p, const mf_topo_t *t, char *err, size_t errlen)
{
    mf_net_t *n = calloc(1, sizeof *n);
    if (!n)
        goto oom;
    n->p = *p;
    n->topo = (mf_topo_t *)t;
    derive(n);
    if (t->max_ports > MF_MAX_NET_PORTS || p->vcs > MF_MAX_VCS) {
        snprintf(err, errlen, "switch has %d ports / %u VCs; the model supports %d / %d",
                 t->max_ports, p->vcs, MF_MAX_NET_PORTS, MF_MAX_VCS);
        goto fail;
    }
    if (t->nranks > (int)p->max_ranks) {
        snprintf(err, errlen, "%d ranks exceed MAX_R = %u of parameter set %s", t->nranks,
                 p->max_ranks, p->name);
        goto fail;
    }
    if (mf_sim_init(&n->sim))
        goto oom;
    mf_pool_init(&n->pool, n->pkt_bytes);
    n->watchdog = MF_WATCHDOG_DEFAULT;
    const char *wd = getenv("MPIFPGA_WATCHDOG_CYCLES");
    if (wd && *wd) {
        char *end;
        unsigned long long v = strtoull(wd, &end, 10);
        if (*end || wd[0] == '-') {
            snprintf(err, errlen, "MPIFPGA_WATCHDOG_CYCLES='%s': expected a number of cycles "
                     "(0 = off)", wd);
            goto fail;
        }
        n->watchdog = v;
    }
    n->nsw = t->nswitches;
    n->nranks = t->nranks;
    n->sw = calloc(n->nsw, sizeof *n->sw);
    n->neng = n->nranks + (t->kind == MF_TOPO_FATTREE && t->levels > 1 ? n->nsw : 0);
    if (n->neng > (int)MF_RANK_NONE) {
        snprintf(err, errlen, "%d ranks and %d switches: more than the %d engines a 16-bit "
                 "destination addresses", n->nranks, n->nsw, MF_RANK_NONE);
        goto fail;
    }
    n->eng = calloc(n->neng, sizeof *n->eng);
    n->partners = (mf_partner_port_t){.taken = mf_engines_taken,
                                      .returned = mf_engines_returned,
                                      .credits = mf_engines_credits,
                                      .wake = mf_engines_wake,
                                      .post_agg = mf_engines_post_agg,
                                      .ctx = n->eng};
    n->dma = calloc(t->nnodes, sizeof *n->dma);
    n->ct = calloc(n->neng, sizeof *n->ct);
    n->col = calloc(n->neng, sizeof *n->col);
    n->col_in = calloc(n->neng, sizeof *n->col_in);
    n->eject = calloc(n->neng, sizeof *n->eject);
    n->rx = calloc(n->neng, sizeof *n->rx);
    if (!n->sw || !n->eng || !n->dma || !n->ct || !n->col || !n->col_in || !n->eject || !n->rx)
        goto oom;
    for (int d = 0; d < t->nnodes; d++) /* each node's host port */
        n->dma[d] = (mf_host_port_t){.rate_fx = n->host_fx, .bytes = n->dma_bytes,
                                     .pcie = n->pcie};
    for (int s = 0; s < n->nsw; s++)
        if (mf_switch_init(n, &n->sw[s], s))
            goto oom;
    if (wire_links(n) || attach_engines(n))
        goto oom;
    if (start_threads(n, err, errlen))
        goto fail;
    return n;
oom:
    snprintf(err, errlen, "out of memory building the network");
fail:
    mf_net_destroy(n);
    return NULL;
}

void mf_net_destroy(mf_net_t *n)
{
    if (!n)
        return;
    for (int r = 0; n->eng && r < n->neng; r++) {
        mf_engine_t *e = &n->eng[r];
        if (!e->sw)
            continue; /* no engine there (a leaf's slot in the aggregation range) */
        for (int ctx = 0; ctx < MF_MAX_CTX; ctx++) {
            mf_pkt_t *k;
            while ((k = mf_pq_pop(&n->col[r].parked[ctx])) != NULL)
                mf_pkt_free(&n->pool, k);
            if (e->cur[ctx]) {
                e->cur[ctx]->req.done = NULL;
                mf_ccm_finish(e->ccm, e->cur[ctx], n->sim.now);
            }
            for (mf_coll_t *c = e->wait_head[ctx], *nx; c; c = nx) {
                nx = c->next;
                free(c->counts);
                free(c);
            }
        }
        mf_pkt_t *k;
        while ((k = mf_pq_pop(&e->tx)) != NULL)
            mf_pkt_free(&n->pool, k);
    }
    for (int s = 0; n->sw && s < n->nsw; s++)
        mf_switch_fini(&n->sw[s]);
    mf_dom_free(n);
    free(n->sw);
    free(n->eng);
    free(n->dma);
    free(n->ct);
    free(n->col);
    free(n->col_in);
    free(n->eject);
    free(n->rx);
    free(n->traffic_owned);
    if (n->baseline_free)
        n->baseline_free(n->baseline);
    mf_pool_fini(&n->pool);
    mf_sim_fini(&n->sim);
    free(n);
}

int mf_net_nranks(const mf_net_t *n) { return n->nranks; }
uint64_t mf_net_now(const mf_net_t *n) { return n->sim.now; }
const mf_params_t *mf_net_params(const mf_net_t *n) { return &n->p; }
const mf_topo_t *mf_net_topo(const mf_net_t *n) { return n->topo; }
size_t mf_net_pending(const mf_net_t *n) { return n->pending; }

static uint64_t gcd_u64(uint64_t a, uint64_t b)
{
    while (b) {
        uint64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

uint64_t mf_net_shift_period(const mf_net_t *n)
{
    if (n->p.link_jitter_sd_ns > 0)
        return 0; /* each packet's latency is drawn anew */
    uint64_t period = 1;
    for (int s = 0; s < n->nsw; s++) {
        uint64_t turns = (uint64_t)n->topo->sw_nodes[s] * (uint64_t)n->topo->ppn;
        if (turns > 1)
            period = period / gcd_u64(period, turns) * turns;
    }
    return period;
}

double mf_net_cycles_to_us(const mf_net_t *n, uint64_t cycles)
{
    return (double)cycles * mf_params_cycle_ns(&n->p) / 1000.0;
}

int mf_net_ct_config(mf_net_t *n, int grank, int ctx, const mf_ct_entry_t *e, char *err,
                     size_t errlen)
{
    if (grank < 0 || grank >= n->nranks) {
        snprintf(err, errlen, "rank %d out of range (0..%d)", grank, n->nranks - 1);
        return -1;
    }
    mf_engine_t *en = &n->eng[grank];
    int busy = ctx >= 0 && ctx < MF_MAX_CTX && (en->cur[ctx] || en->wait_head[ctx]);
    if (mf_ct_config(&n->ct[grank], ctx, e, busy, err, errlen))
        return -1;
    en->seq[ctx] = 0; /* a new communicator: its collectives count from 1 */
    return 0;
}

int mf_net_ct_free(mf_net_t *n, int grank, int ctx)
{
    if (grank < 0 || grank >= n->nranks)
        return -1;
    return mf_ct_free(&n->ct[grank], ctx);
}

static int check_req(const mf_net_t *n, int grank, const mf_coll_req_t *r, char *err,
                     size_t errlen)
{
    const mf_proc_hdr_t *h = &r->hdr;
    if (grank < 0 || grank >= n->nranks)
        return snprintf(err, errlen, "rank %d out of range (0..%d)", grank, n->nranks - 1), -1;
    if (!mf_opcode_is_coll(h->opcode))
        return snprintf(err, errlen, "opcode %u is not a collective", h->opcode), -1;
    if (h->ctx >= n->p.ct_entries)
        return snprintf(err, errlen, "context %u out of range (%u CT rows)", h->ctx,
                        n->p.ct_entries), -1;
    if (h->dtype >= MF_DT_COUNT || h->op >= MF_OP_COUNT)
        return snprintf(err, errlen, "bad op %u / datatype %u", h->op, h->dtype), -1;
    if (!mf_op_valid_for((mf_op_t)h->op, (mf_dtype_t)h->dtype))
        return snprintf(err, errlen, "op %s is not defined for %s", mf_op_name(h->op),
                        mf_dtype_name(h->dtype)), -1;
    if (h->size % mf_elem_bytes((mf_op_t)h->op, (mf_dtype_t)h->dtype))
        return snprintf(err, errlen, "size %u is not a multiple of the %zu-byte %s %s element",
                        h->size, mf_elem_bytes((mf_op_t)h->op, (mf_dtype_t)h->dtype),
                        mf_op_name(h->op), mf_dtype_name(h->dtype)), -1;
    if (r->at < n->sim.now)
        return snprintf(err, errlen, "post at cycle %llu is in the model's past (now %llu)",
                        (unsigned long long)r->at, (unsigned long long)n->sim.now), -1;
    return 0;
}

int mf_net_post(mf_net_t *n, int grank, const mf_coll_req_t *req, char *err, size_t errlen)
{
    if (check_req(n, grank, req, err, errlen))
        return -1;
    mf_coll_t *c = calloc(1, sizeof *c);
    if (!c)
        return snprintf(err, errlen, "out of memory"), -1;
    c->req = *req;
    c->eng = &n->eng[grank];
    if (req->counts && mf_opcode_has_counts(req->hdr.opcode)) {
        const mf_ct_entry_t *ct = mf_ct_lookup(&n->ct[grank], req->hdr.ctx);
        size_t np = ct ? mf_opcode_ncounts(req->hdr.opcode, ct->size) : 0;
        c->counts = malloc((np ? np : 1) * sizeof *c->counts);
        if (!c->counts) {
            free(c);
            return snprintf(err, errlen, "out of memory"), -1;
        }
        for (size_t i = 0; i < np; i++)
            c->counts[i] = req->counts[i];
    }
    c->req.counts = c->counts;
    if (req->at + n->host_o > n->last_entry)
        n->last_entry = req->at + n->host_o; /* the watchdog waits for it */
    mf_ccm_post(c->eng, c);
    return 0;
}

void mf_net_stats(const mf_net_t *n, mf_net_stats_t *st)
{
    size_t live = mf_pool_live(&n->pool, n->sim.nthreads);
    *st = (mf_net_stats_t){.cycles = n->sim.now, .active_cycles = n->sim.active_cycles,
                           .module_steps = n->sim.module_steps,
                           .peak_pkts = live > n->pool.peak ? live : n->pool.peak};
    for (int s = 0; s < n->nsw; s++) {
        const mf_switch_t *w = &n->sw[s];
        st->flow_steps += w->ccm.flow_steps;
        st->idle_steps += w->ccm.idle_steps;
        st->packet_steps += w->ccm.packet_steps;
        st->flow_only_steps += w->ccm.flow_only_steps;
        st->grant_waits += w->ccm.grant_waits;
        st->credit_checks += w->ccm.credit_checks;
        for (int p = 0; p < w->l1.nports; p++) {
            st->link_bytes += w->l1.out[p].link.bytes;
            st->link_pkts += w->l1.out[p].link.pkts;
        }
        for (unsigned i = 0; i < (unsigned)w->l1.nports * w->l1.vcs; i++)
            st->fifo_overflows += w->l1.fifo[i].overflows;
        if (w->streams.peak > st->peak_stream_bytes)
            st->peak_stream_bytes = w->streams.peak;
    }
}

/* What each unfinished collective is waiting for (printed on a stall). */
void mf_net_dump(const mf_net_t *n, FILE *out)
{
    static const char *const fk[] = {"copy", "reduce", "concat"};
    static const char *const sk[] = {"host", "net", "stream"};
    for (int r = 0; r < n->nranks; r++) {
        const mf_engine_t *e = &n->eng[r];
        for (int ctx = 0; ctx < MF_MAX_CTX; ctx++) {
            const mf_coll_t *c = e->cur[ctx];
            if (n->col[r].parked[ctx].n)
                fprintf(out, "rank %d ctx %d: %zu parked packets\n", r, ctx,
                        n->col[r].parked[ctx].n);
            if (!c)
                continue;
            fprintf(out, "rank %d ctx %d: %s, %d of %d flows left\n", r, ctx,
                    mf_opcode_name(c->req.hdr.opcode), c->flows_left, c->nfl);
            for (int i = 0; i < c->nfl; i++) {
                const mf_flow_t *f = &c->fl[i];
                fprintf(out, "  flow %d %s %llu/%llu%s in:", i, fk[f->kind],
                        (unsigned long long)f->pos, (unsigned long long)f->len,
                        f->done ? " done" : "");
                for (int j = 0; j < f->nin; j++) {
                    const mf_stream_t *st = &c->st[f->in[j]];
                    fprintf(out, " [s%d k%d tag%d in%llu out%llu len%llu%s]", f->in[j], st->kind,
                            st->tag, (unsigned long long)st->in, (unsigned long long)st->out,
                            (unsigned long long)st->len, st->closed ? " closed" : "");
                }
                for (int j = 0; j < f->nsink; j++) {
                    const mf_sink_t *k = &c->sk[f->sink0 + j];
                    fprintf(out, " ->%s(%llu+%llu done %llu dest %u tag %u)", sk[k->kind],
                            (unsigned long long)k->off, (unsigned long long)k->len,
                            (unsigned long long)k->done, k->dest, k->tag);
                }
                fprintf(out, "\n");
            }
        }
    }
}

/* The offload decision and one call through the device (offload.h). */
#include <stdlib.h>
#include <string.h>

#include "intercept/host.h"
#include "intercept/nb_op.h"
#include "intercept/offload.h"
#include "mpifpga/ct.h"
#include "profile/callsite.h"

/* The report class: the blocking collective or its MPI_I* form. */
int mf_offload_form;
struct mf_nb_op *mf_offload_deferred;
mf_offload_plan_t *mf_offload_capture;

/* v at which this rank's processor DMA has moved the bytes of every call it
 * posted, per direction (host to switch, switch to host: PCIe is full
 * duplex): calls outstanding together share it (nb_op.h). */
static double dma_free_out, dma_free_in;

static int cls(const mf_call_t *c)
{
    return mf_offload_form * MF_C_COUNT + (int)c->id;
}

static int fall_back(const mf_call_t *c, mf_fb_reason_t r)
{
    mf_host.rep.c[cls(c)].fallback[r]++;
    return 0;
}

static int segmentable(const mf_call_t *c)
{
    return c->opc == MF_OPC_BCAST || c->opc == MF_OPC_REDUCE || c->opc == MF_OPC_ALLREDUCE;
}

static int moves_nothing(const mf_call_t *c, int size)
{
    if (c->opc == MF_OPC_BARRIER || c->opc == MF_OPC_ALLTOALLV)
        return 0; /* alltoallv: only the whole communicator knows */
    if (c->counts) {
        for (int i = 0; i < size; i++)
            if (c->counts[i])
                return 0;
        return 1;
    }
    return c->block == 0;
}

/* Reasons every member of the call decides alike. */
static mf_fb_reason_t shared_reason(const mf_call_t *c, const mf_comm_t *cs)
{
    const mf_config_t *cfg = &mf_host.cfg;
    if (!mf_host.active)
        return mf_host.off_reason;
    if (!(cfg->colls & (1u << c->id)))
        return MF_FB_DISABLED;
    if (mf_offload_form && !cfg->nonblocking)
        return MF_FB_DISABLED; /* MPI_I*: MPICH's own, truly nonblocking (coll_nb.c) */
    if (mf_offload_form && mf_host.dev.blocking_only)
        return MF_FB_UNSUPPORTED; /* the fpga device: see doc/board.md */
    if (c->local)
        return c->local;
    if (cs->ctx < 0)
        return cs->reason;
    int a2a = c->opc == MF_OPC_ALLTOALL || c->opc == MF_OPC_ALLTOALLV;
    if (a2a && cs->size > MF_ALLTOALL_MAX_MEMBERS)
        return MF_FB_COMM_SIZE; /* the switch tells sources apart by a 5-bit tag */
    if (c->opc == MF_OPC_ALLTOALLV)
        return MF_FB_NONE; /* its sizes differ per rank: no threshold can decide */
    if (c->block < cfg->min_bytes || (cfg->max_bytes && c->block > cfg->max_bytes))
        return MF_FB_DISABLED;
    if (!segmentable(c) && c->block > MF_PROC_MAX_SIZE)
        return MF_FB_SIZE;
    if (c->counts) {
        if ((size_t)cs->size * 4 + 64 > MF_EM_MAX)
            return MF_FB_SIZE; /* the counts do not fit one COLL message */
        for (int i = 0; i < cs->size; i++)
            if (c->counts[i] > UINT32_MAX)
                return MF_FB_SIZE;
    }
    return MF_FB_NONE;
}

/* Processor-header size: reduce_scatter with counts carries the vector
 * bytes per rank (rounded down to elements) like mf_osu_hdr_size; the
 * counts travel beside it. */
static uint64_t header_size(const mf_call_t *c, int size, uint64_t piece)
{
    if (!c->counts)
        return piece;
    uint64_t total = 0;
    for (int i = 0; i < size; i++)
        total += c->counts[i];
    return total / c->esize / (uint64_t)size * c->esize;
}

static void fill_call(const mf_call_t *c, const mf_comm_t *cs, uint64_t hsize,
                      const uint32_t *counts, mf_dev_call_t *d)
{
    *d = (mf_dev_call_t){
        .hdr = {.opcode = (uint8_t)c->opc, .ctx = (uint8_t)cs->ctx,
                .alg = (uint8_t)mf_coll_alg_mode((mf_algo_mode_t)mf_host.cfg.algorithm, c->opc,
                                                 (unsigned)cs->size, hsize, hsize / c->esize),
                .op = (uint8_t)c->op, .dtype = (uint8_t)c->dt, .root = (uint16_t)c->root,
                .size = (uint32_t)hsize},
        .vote = c->vote, .comm_size = cs->size, .comm_rank = cs->rank,
        .global0 = cs->global0, .send = c->send, .send_bytes = c->send_bytes,
        .recv = c->recv, .recv_bytes = c->recv_bytes, .counts = counts,
        .mpi_name = mf_coll_id_mpi_name(c->id),
        /* a call site is being recorded: the engine adds the modeled baseline */
        .want_baseline = mf_site_current() != NULL};
}

/* The call's modeled times for its call site (profile/callsite.h). */
static void note_modeled(const mf_dev_result_t *r)
{
    mf_site_call_t *site = mf_site_current();
    if (site) {
        site->offload_us += r->rank_us;
        site->baseline_us += r->baseline_us;
    }
}

/* One direction of the DMA moves `bytes` from max(start, *free): the v at
 * which it is done. */
static double dma_move(double start, double *free, uint64_t bytes, double rate)
{
    double from = start > *free ? start : *free;
    *free = from + (double)bytes / rate * 1e-9;
    return *free;
}

/* The DMA moves this call's payload behind what it moves already: the v at
 * which both directions are done (start itself without modeled time). */
static double dma_reserve(double start, const mf_dev_call_t *d)
{
    double rate = mf_host.dev.dma_bytes_per_ns;
    if (start <= 0 || rate <= 0)
        return start;
    double out = dma_move(start, &dma_free_out, d->send_bytes, rate);
    double in = dma_move(start, &dma_free_in, d->recv_bytes, rate);
    return out > in ? out : in;
}

/* A deferred call's piece: posted, its verdict taken later (nb_op.c). */
static int post_one(const mf_call_t *c, mf_dev_call_t *d, int *rc)
{
    mf_nb_op_t *op = mf_offload_deferred;
    uint32_t ticket;
    char err[MF_EM_TEXT_MAX + 80];
    d->entry_ns = op->entry_ns;
    d->defer = 1;
    op->dma_end = dma_reserve(op->entry, d);
    if (mf_host.dev.ops->post(&mf_host.dev, d, &ticket, err, sizeof err)) {
        *rc = mf_raise(c->comm, err);
        return 1;
    }
    if (mf_nb_add_ticket(op, ticket))
        *rc = mf_raise(c->comm, "mpifpga: out of memory for a nonblocking collective");
    else
        *rc = MPI_SUCCESS;
    return 1;
}

/* One device call; 1 done / error raised (*rc), 0 fall back. */
static int run_one(const mf_call_t *c, mf_dev_call_t *d, int *rc)
{
    if (mf_offload_deferred)
        return post_one(c, d, rc);
    mf_dev_result_t r;
    mf_coll_stats_t *st = &mf_host.rep.c[cls(c)];
    double entry = mf_vtime_enter(&d->entry_ns);
    double dma_end = dma_reserve(entry, d);
    if (mf_dev_coll(&mf_host.dev, d, &r) || r.status == MF_DEV_ERROR) {
        *rc = mf_raise(c->comm, r.text);
        return 1;
    }
    if (r.status == MF_DEV_FALLBACK)
        return fall_back(c, r.reason);
    st->modeled_us += r.net_us;
    st->shm_payload += r.shm != 0;
    /* a call posted behind outstanding ones ends no earlier than the DMA */
    double dma_us = (dma_end - entry) * 1e6;
    mf_vtime_leave(entry, r.rank_us > dma_us ? r.rank_us : dma_us);
    note_modeled(&r);
    *rc = MPI_SUCCESS;
    return 1;
}

/* Bcast / reduce / allreduce longer than MPIFPGA_SEGMENT_BYTES: one call
 * per piece (every member cuts the same pieces: the vector is the same). */
static int run_pieces(const mf_call_t *c, const mf_comm_t *cs, int *rc)
{
    uint64_t seg = mf_host.cfg.segment_bytes / c->esize * c->esize;
    for (uint64_t off = 0; off < c->block; off += seg) {
        uint64_t n = c->block - off < seg ? c->block - off : seg;
        mf_call_t p = *c;
        mf_dev_call_t d;
        p.send = c->send_bytes ? (const uint8_t *)c->send + off : NULL;
        p.send_bytes = c->send_bytes ? n : 0;
        p.recv = c->recv ? (uint8_t *)c->recv + off : NULL;
        p.recv_bytes = c->recv_bytes ? n : 0;
        fill_call(&p, cs, n, NULL, &d);
        if (!run_one(&p, &d, rc))
            return 0;
        if (*rc != MPI_SUCCESS)
            return 1;
    }
    return 1;
}

static int run(const mf_call_t *c, const mf_comm_t *cs, int *rc)
{
    uint32_t *counts = NULL;
    mf_dev_call_t d;
    int handled;
    if (segmentable(c) && !c->vote && c->block > mf_host.cfg.segment_bytes)
        return run_pieces(c, cs, rc);
    if (c->counts || c->opc == MF_OPC_ALLTOALLV) {
        counts = malloc(3 * (size_t)cs->size * sizeof *counts);
        if (!counts && mf_offload_deferred) /* the others go on: fail, not fall back */
            return *rc = mf_raise(c->comm, "mpifpga: out of memory for a collective's counts"), 1;
        if (!counts)
            return fall_back(c, MF_FB_SIZE);
        for (int i = 0; c->counts && i < cs->size; i++)
            counts[i] = (uint32_t)c->counts[i];
        /* alltoallv: the members' addresses, then this rank's sizes */
        for (int i = 0; !c->counts && i < cs->size; i++) {
            counts[i] = cs->addr[i];
            counts[cs->size + i] = c->sizes ? c->sizes[i] : 0;
            counts[2 * cs->size + i] = c->sizes ? c->sizes[cs->size + i] : 0;
        }
    }
    /* alltoall: the members' addresses go along (the CT keeps log-size sets) */
    uint64_t hsize = c->opc == MF_OPC_ALLTOALLV ? 0 : header_size(c, cs->size, c->block);
    fill_call(c, cs, hsize, c->opc == MF_OPC_ALLTOALL ? cs->addr : counts, &d);
    handled = run_one(c, &d, rc);
    free(counts);
    return handled;
}

/* Packs a non-contiguous send buffer and allocates the packed receive
 * buffer.  A rank that cannot (memory) votes, so all members fall back
 * together instead of this one alone. */
static void stage(mf_call_t *c, void **tsend, void **trecv)
{
    *tsend = *trecv = NULL;
    if (c->vote)
        return; /* no data goes to the engine */
    if (c->pack_send && c->send_bytes) {
        if (mf_dt_pack(&c->send_map, c->send_bytes, tsend)) {
            c->vote = MF_FB_SIZE;
            return;
        }
        c->send = *tsend;
    }
    if (c->unpack_recv && c->recv && c->recv_bytes) {
        if (!(*trecv = malloc((size_t)c->recv_bytes))) {
            c->vote = MF_FB_SIZE;
            return;
        }
        c->recv = *trecv;
    }
}

/* Pair lanes back into the caller's structs, value and index only. */
static void copy_pairs(const mf_call_t *c, const uint8_t *lanes)
{
    unsigned vb, io;
    size_t lane = mf_dtype_size(c->dt);
    uint8_t *user = (uint8_t *)c->recv_map.buf;
    mf_pair_layout(c->dt, &vb, &io);
    for (uint64_t k = 0; k < c->recv_map.count; k++) {
        memcpy(user + k * lane, lanes + k * lane, vb);
        memcpy(user + k * lane + io, lanes + k * lane + io, 4);
    }
}

/* Unpacks the result into the caller's layout; an MPI error if that fails. */
static void unstage(const mf_call_t *c, void *tsend, void *trecv, int *rc)
{
    if (trecv && *rc == MPI_SUCCESS && c->pair_lanes)
        copy_pairs(c, trecv);
    else if (trecv && *rc == MPI_SUCCESS && mf_dt_unpack(trecv, c->recv_bytes, &c->recv_map))
        *rc = mf_raise(c->comm, "mpifpga: MPI_Unpack of the result into the receive "
                                "datatype failed");
    free(tsend);
    free(trecv);
}

/* The deferred call is posted: its payload has left (DATA or the shared
 * buffer), its result is unpacked when the op finishes. */
static int defer(const mf_call_t *c, void *tsend, void *trecv, int *rc)
{
    mf_nb_op_t *op = mf_offload_deferred;
    free(tsend);
    if (*rc != MPI_SUCCESS) {
        free(trecv);
        return 1;
    }
    op->c = *c;
    op->c.counts = NULL; /* the builder's; not needed once posted */
    op->c.sizes = NULL;
    op->cls = cls(c);
    op->trecv = trecv;
    /* beyond the switch's simultaneous aggregations a call waits for a CGR
     * unit (001 sec. 4.3): counted; the model runs calls one at a time */
    if (mf_host.dev.sa > 0 && mf_nb_outstanding() >= mf_host.dev.sa)
        mf_host.rep.c[op->cls].queued++;
    /* the program may free its datatype before the call completes */
    if (trecv && !c->pair_lanes &&
        PMPI_Type_dup(c->recv_map.type, &op->c.recv_map.type) != MPI_SUCCESS)
        op->c.recv_map.type = MPI_DATATYPE_NULL;
    return 1;
}

void mf_offload_finish(mf_nb_op_t *op)
{
    mf_coll_stats_t *st = &mf_host.rep.c[op->cls];
    int rc = op->rc;
    if (rc != MPI_SUCCESS)
        op->rc = mf_raise(op->c.comm, op->err);
    st->modeled_us += op->net_us;
    st->shm_payload += op->shm;
    if (op->trecv && !op->c.pair_lanes && op->c.recv_map.type == MPI_DATATYPE_NULL &&
        op->rc == MPI_SUCCESS)
        op->rc = mf_raise(op->c.comm, "mpifpga: cannot keep the receive datatype of a "
                                      "nonblocking collective (MPI_Type_dup failed)");
    unstage(&op->c, NULL, op->trecv, &op->rc);
    if (op->trecv && !op->c.pair_lanes && op->c.recv_map.type != MPI_DATATYPE_NULL)
        PMPI_Type_free(&op->c.recv_map.type);
    op->trecv = NULL;
    if (op->rc == MPI_SUCCESS) {
        st->offloaded++;
        st->offloaded_bytes += op->c.block;
    }
}

int mf_offload_wanted(mf_coll_id_t id)
{
    return mf_host.initialized && mf_host.active && (mf_host.cfg.colls & (1u << id));
}

/* The decision every member makes alike: MF_FB_NONE to run (*cs: the
 * communicator's state), else the reason; *empty when nothing moves. */
static mf_fb_reason_t decide(const mf_call_t *c, const mf_comm_t **cs, int *empty)
{
    static const mf_comm_t off = {.ctx = -1};
    *cs = mf_host.active ? mf_comm_get(c->comm) : NULL;
    *empty = 0;
    mf_fb_reason_t r = shared_reason(c, *cs ? *cs : &off);
    if (r)
        return r;
    if (moves_nothing(c, (*cs)->size)) {
        *empty = 1;
        return MF_FB_NONE;
    }
    /* A deferred call has no engine round trip to combine votes in.  A
     * vote comes from this rank's datatypes, and for a reduction the
     * standard makes the datatype the same on every member (MPI-4.0 sec.
     * 6.9.1); a data mover votes only on a type of no size, where every
     * member moves nothing (moves_nothing above): so here it is shared. */
    if ((mf_offload_deferred || mf_offload_capture) && c->vote)
        return c->vote;
    return MF_FB_NONE;
}

/* The decision said run: stage, run, then unstage (or defer). */
static int execute(mf_call_t *c, const mf_comm_t *cs, int *rc)
{
    mf_coll_stats_t *st = &mf_host.rep.c[cls(c)];
    mf_site_call_t *site = mf_site_current();
    void *tsend, *trecv;
    stage(c, &tsend, &trecv);
    if (mf_offload_deferred && c->vote) {
        free(tsend);
        free(trecv);
        *rc = mf_raise(c->comm, "mpifpga: out of memory staging a nonblocking collective's "
                                "buffers");
        return 1;
    }
    if (!run(c, cs, rc)) {
        free(tsend);
        free(trecv);
        return 0;
    }
    if (mf_offload_deferred)
        return defer(c, tsend, trecv, rc);
    unstage(c, tsend, trecv, rc);
    if (*rc == MPI_SUCCESS) {
        if (site)
            site->offloaded = 1;
        st->offloaded++;
        st->offloaded_bytes += c->block;
    }
    return 1;
}

/* Keep the call and the decision for every later start (persistent). */
static int capture(const mf_call_t *c, int *rc)
{
    mf_offload_plan_t *p = mf_offload_capture;
    int size = 0;
    const mf_comm_t *cs;
    p->c = *c;
    p->reason = decide(c, &cs, &p->empty);
    p->cs = cs;
    PMPI_Comm_size(c->comm, &size);
    if (c->counts && size > 0 && (p->counts = malloc((size_t)size * sizeof *p->counts)))
        memcpy(p->counts, c->counts, (size_t)size * sizeof *p->counts);
    if (c->counts && !p->counts && !p->reason)
        p->reason = MF_FB_SIZE; /* every member's counts are alike: so is this */
    p->c.counts = p->counts;
    p->c.sizes = NULL;
    /* the program may free its datatypes after MPI_*_init */
    if (c->pack_send && PMPI_Type_dup(c->send_map.type, &p->c.send_map.type) == MPI_SUCCESS)
        p->dup_send = 1;
    if (c->unpack_recv && !c->pair_lanes &&
        PMPI_Type_dup(c->recv_map.type, &p->c.recv_map.type) == MPI_SUCCESS)
        p->dup_recv = 1;
    if ((c->pack_send && !p->dup_send) || (c->unpack_recv && !c->pair_lanes && !p->dup_recv))
        p->reason = p->reason ? p->reason : MF_FB_DATATYPE; /* alike: the same type */
    p->decided = 1;
    *rc = MPI_SUCCESS;
    return 1;
}

int mf_offload(mf_call_t *c, int *rc)
{
    if (!mf_host.initialized)
        return 0;
    if (mf_offload_capture)
        return capture(c, rc);
    mf_coll_stats_t *st = &mf_host.rep.c[cls(c)];
    mf_site_call_t *site = mf_site_current();
    mf_report_call(&mf_host.rep, cls(c), c->block);
    if (site)
        site->bytes = c->block;
    const mf_comm_t *cs;
    int empty;
    mf_fb_reason_t r = decide(c, &cs, &empty);
    if (r)
        return fall_back(c, r);
    if (empty) {
        st->empty++;
        return 0;
    }
    return execute(c, cs, rc);
}

int mf_offload_planned(const mf_offload_plan_t *p, int *rc)
{
    mf_call_t c = p->c;
    mf_report_call(&mf_host.rep, cls(&c), c.block);
    if (p->reason)
        return fall_back(&c, p->reason);
    if (p->empty) {
        mf_host.rep.c[cls(&c)].empty++;
        return 0;
    }
    return execute(&c, p->cs, rc);
}

void mf_offload_plan_free(mf_offload_plan_t *p)
{
    if (p->dup_send)
        PMPI_Type_free(&p->c.send_map.type);
    if (p->dup_recv)
        PMPI_Type_free(&p->c.recv_map.type);
    free(p->counts);
    *p = (mf_offload_plan_t){0};
}

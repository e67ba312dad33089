/* Collectives through the model without MPI; see run.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll/run.h"
#include "net/domain.h"
#include "net/network.h"
#include "mpifpga/ct.h"

uint64_t mf_osu_hdr_size(mf_opcode_t opc, uint64_t osu_bytes, int comm_size, size_t esize)
{
    if (opc == MF_OPC_BARRIER)
        return 0;
    if (opc == MF_OPC_REDUCE_SCATTER)
        return osu_bytes / esize / (uint64_t)comm_size * esize;
    return osu_bytes;
}

int mf_comm_setup(mf_net_t *n, int ctx, int size, const int *members, char *err, size_t len)
{
    for (int i = 0; i < size; i++) {
        mf_ct_entry_t e;
        if (mf_ct_entry_build(size, i, members, &e, err, len))
            return -1;
        if (mf_net_ct_config(n, members[i], ctx, &e, err, len))
            return -1;
    }
    return 0;
}

typedef struct {
    uint64_t *complete;
    int *status;
    char *err;
    size_t errlen;
} collect_t;

typedef struct {
    collect_t *col;
    int idx;
} member_t;

static void member_done(void *user, const mf_completion_t *c)
{
    member_t *m = user;
    m->col->complete[m->idx] = c->complete;
    m->col->status[m->idx] = c->status;
    if (c->status && !m->col->err[0])
        snprintf(m->col->err, m->col->errlen, "rank %d: %s", c->rank, c->err);
}

void mf_coll_timing_add(mf_coll_timing_t *t, double us, double *sum)
{
    *sum += us;
    if (us < t->min_us)
        t->min_us = us;
    if (us > t->max_us)
        t->max_us = us;
}

void mf_coll_timing_fill(const mf_net_t *n, uint64_t at, const uint64_t *complete, int size,
                         uint64_t *lat_cycles, mf_coll_timing_t *t)
{
    *t = (mf_coll_timing_t){.min_us = 1e300};
    double sum = 0;
    for (int i = 0; i < size; i++) {
        uint64_t l = complete[i] - at;
        double us = mf_net_cycles_to_us(n, l);
        if (lat_cycles)
            lat_cycles[i] = l;
        mf_coll_timing_add(t, us, &sum);
        if (l > t->max_cycles)
            t->max_cycles = l;
        if (complete[i] > t->end)
            t->end = complete[i];
    }
    t->avg_us = sum / size;
}

static mf_alg_t pick_alg(const mf_coll_spec_t *c, int size, uint64_t hdr_size)
{
    size_t es = mf_elem_bytes(c->op, c->dtype);
    return mf_coll_alg_mode(c->algo, c->opc, (unsigned)size, hdr_size, hdr_size / es);
}

/* A split network (net/domain.h): each domain ran its own members; every
 * domain gets them all.  A member's failure is reported by its domain. */
static int gather_members(mf_net_t *n, int size, const int *members, uint64_t *complete,
                          const int *status, char *err, size_t len)
{
    uint64_t *v = malloc(2 * (size_t)size * sizeof *v);
    int *op = malloc(2 * (size_t)size * sizeof *op), rc = -1;
    if (!v || !op) {
        snprintf(err, len, "out of memory");
        goto out;
    }
    for (int i = 0; i < size; i++) {
        int here = mf_dom_local(n, mf_rank_switch(n, members[i]));
        v[i] = here ? complete[i] : 0;
        v[size + i] = here ? (uint64_t)status[i] : 0;
        op[i] = op[size + i] = MF_DOM_MAX;
    }
    if (mf_dom_reduce(n, v, op, 2 * size, err, len))
        goto out;
    for (int i = 0; i < size; i++) {
        complete[i] = v[i];
        if (v[size + i]) { /* the caller reports one of its own first */
            snprintf(err, len, "rank %d failed in another domain (its message is above)", i);
            goto out;
        }
    }
    rc = 0;
out:
    free(v);
    free(op);
    return rc;
}

/* Post c on every member, comm rank i entering at entry[i] (or all at
 * `at` when entry is NULL), run to completion; complete[i] gets rank i's
 * completion cycle. */
static int post_run(mf_net_t *n, const mf_coll_spec_t *c, int size, const int *members,
                    mf_buf_t *send, mf_buf_t *recv, uint64_t at, const uint64_t *entry,
                    uint64_t *complete, char *err, size_t len)
{
    int rc = -1;
    size_t es = mf_elem_bytes(c->op, c->dtype);
    uint64_t hsize = mf_osu_hdr_size(c->opc, c->bytes, size, es);
    int *status = calloc((size_t)size, sizeof *status);
    member_t *mem = calloc((size_t)size, sizeof *mem);
    uint32_t *addr = calloc((size_t)size, sizeof *addr);
    char cerr[200] = "";
    collect_t col = {complete, status, cerr, sizeof cerr};
    if (!status || !mem || !addr) {
        snprintf(err, len, "out of memory");
        goto out;
    }
    for (int i = 0; i < size; i++) /* alltoall: the members' addresses travel along */
        addr[i] = (uint32_t)members[i];
    for (int i = 0; i < size; i++) {
        mem[i] = (member_t){&col, i};
        mf_coll_req_t req = {
            .hdr = {.opcode = (uint8_t)c->opc, .ctx = (uint8_t)c->ctx,
                    .alg = (uint8_t)pick_alg(c, size, hsize), .op = (uint8_t)c->op,
                    .dtype = (uint8_t)c->dtype, .root = (uint16_t)c->root,
                    .size = (uint32_t)hsize},
            .counts = c->opc == MF_OPC_ALLTOALL ? addr : c->counts,
            .at = entry ? entry[i] : at, .done = member_done,
            .user = &mem[i]};
        if (send)
            req.send = send[i];
        if (recv)
            req.recv = recv[i];
        if (mf_dom_local(n, mf_rank_switch(n, members[i])) &&
            mf_net_post(n, members[i], &req, err, len))
            goto out;
    }
    if (mf_net_run(n, MF_NEVER, err, len)) {
        if (getenv("MPIFPGA_DEBUG"))
            mf_net_dump(n, stderr);
        goto out;
    }
    /* split: every domain takes part in the gathering, failed here or not */
    int gathered = n->dom ? gather_members(n, size, members, complete, status, err, len) : 0;
    if (cerr[0]) {
        snprintf(err, len, "%s", cerr);
        goto out;
    }
    if (gathered)
        goto out;
    rc = 0;
out:
    free(status);
    free(mem);
    free(addr);
    return rc;
}

int mf_coll_once(mf_net_t *n, const mf_coll_spec_t *c, int size, const int *members,
                 mf_buf_t *send, mf_buf_t *recv, uint64_t at, uint64_t *lat_cycles,
                 mf_coll_timing_t *t, char *err, size_t len)
{
    uint64_t *complete = calloc((size_t)size, sizeof *complete);
    if (!complete) {
        snprintf(err, len, "out of memory");
        return -1;
    }
    int rc = post_run(n, c, size, members, send, recv, at, NULL, complete, err, len);
    if (!rc)
        mf_coll_timing_fill(n, at, complete, size, lat_cycles, t);
    free(complete);
    return rc;
}

/* Enter every member at now + (exit[i] - the earliest exit): as the engine
 * does (fpga_model/server/session.c), once every member has made the call,
 * at cycles as far apart as the members' clocks. */
static void skewed_entries(const mf_net_t *n, const uint64_t *exit_, int size, uint64_t *entry)
{
    uint64_t first = exit_[0], now = mf_net_now(n);
    for (int i = 1; i < size; i++)
        first = exit_[i] < first ? exit_[i] : first;
    for (int i = 0; i < size; i++)
        entry[i] = now + (exit_[i] - first);
}

int mf_coll_loop_osu(mf_net_t *n, const mf_coll_spec_t *c, int size, const int *members,
                     int iters, int skip, mf_coll_timing_t *t, char *err, size_t len)
{
    mf_coll_spec_t barrier = {.opc = MF_OPC_BARRIER, .op = MF_OP_SUM, .dtype = MF_DT_UINT8,
                              .ctx = c->ctx};
    uint64_t *in = malloc((size_t)size * sizeof *in), *out = malloc((size_t)size * sizeof *out);
    double *sum = calloc((size_t)size, sizeof *sum);
    int rc = -1;
    if (!in || !out || !sum) {
        snprintf(err, len, "out of memory");
        goto done;
    }
    /* OSU: one MPI_Barrier before the loop */
    if (post_run(n, &barrier, size, members, NULL, NULL, mf_net_now(n), NULL, out, err, len))
        goto done;
    for (int it = 0; it < skip + iters; it++) {
        skewed_entries(n, out, size, in);
        if (post_run(n, c, size, members, NULL, NULL, 0, in, out, err, len))
            goto done;
        for (int i = 0; i < size && it >= skip; i++)
            sum[i] += mf_net_cycles_to_us(n, out[i] - in[i]); /* t_stop - t_start */
        skewed_entries(n, out, size, in);
        if (post_run(n, &barrier, size, members, NULL, NULL, 0, in, out, err, len))
            goto done;
    }
    *t = (mf_coll_timing_t){.min_us = 1e300};
    double all = 0;
    for (int i = 0; i < size; i++)
        mf_coll_timing_add(t, sum[i] / iters, &all); /* this rank's figure: timer / iterations */
    t->avg_us = all / size;                 /* OSU prints the mean of the ranks' figures */
    t->end = mf_net_now(n);
    rc = 0;
done:
    free(in);
    free(out);
    free(sum);
    return rc;
}

typedef struct {
    mf_net_t *n;
    const mf_coll_spec_t *c;
    int size;
    const int *members;
} offload_ctx_t;

static int offload_once(void *ctx, uint64_t at, uint64_t *lat, mf_coll_timing_t *t, char *err,
                        size_t len)
{
    offload_ctx_t *o = ctx;
    return mf_coll_once(o->n, o->c, o->size, o->members, NULL, NULL, at, lat, t, err, len);
}

int mf_coll_loop(mf_net_t *n, const mf_coll_spec_t *c, int size, const int *members, int iters,
                 int fast, mf_coll_timing_t *t, int *simulated, char *err, size_t len)
{
    offload_ctx_t o = {n, c, size, members};
    return mf_iter_loop(n, size, iters, fast, offload_once, &o, t, simulated, err, len);
}

/*
 * MPICH 4.0 collective algorithms, transcribed for test/test_sched.c (see
 * mpich_ref.h).  Sources: github.com/pmodels/mpich, src/mpi/coll/.  The
 * stored copies read were not all tagged v4.0.x (the file index holds one or
 * a few versions per file); each function names the file and the version it
 * was read from.  The algorithms' communication structure is the same in
 * 3.3 .. 4.x; only argument types (int -> MPI_Aint count, errflag by pointer
 * or value) and error handling changed between those versions.
 *
 * Conventions of the transcription:
 *   MPIC_Send(buf, n, T, dst)            -> SEND   {dst, n * size(T)}
 *   MPIC_Recv(buf, n, T, src)            -> RECV   {src, size of the matching send}
 *   MPIC_Sendrecv(.., n, T, dst, .., m, T, src) -> SENDRECV
 *   MPIR_Reduce_local(.., n, T, op)      -> REDUCE {n * size(T)}   (n > 0)
 *   MPIR_Get_count(&status, MPI_BYTE, &x) -> x = bytes of that receive
 * Local copies, packing and error handling are left out.  Element counts
 * keep MPICH's names; "esize" is the datatype size.
 */
#include "mpich_ref_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- event lists ------------------------------------------------------------ */

int ref_evl_push(ref_evlist_t *l, const ref_ev_t *e)
{
    if (l->n == l->cap) {
        int nc = l->cap ? 2 * l->cap : 16;
        ref_ev_t *nv = realloc(l->v, (size_t)nc * sizeof *nv);
        if (!nv)
            return -1;
        l->v = nv;
        l->cap = nc;
    }
    l->v[l->n++] = *e;
    return 0;
}

void ref_evlist_free(ref_evlist_t *l)
{
    free(l->v);
    l->v = NULL;
    l->n = l->cap = 0;
}

int ref_ev_equal(const ref_ev_t *a, const ref_ev_t *b)
{
    return a->kind == b->kind && a->speer == b->speer && a->sbytes == b->sbytes &&
           a->rpeer == b->rpeer && a->rbytes == b->rbytes && a->red == b->red;
}

void ref_ev_format(const ref_ev_t *e, char *buf, size_t len)
{
    switch (e->kind) {
    case REF_SEND:
        snprintf(buf, len, "SEND ->%d %lluB", e->speer, (unsigned long long)e->sbytes);
        break;
    case REF_RECV:
        snprintf(buf, len, "RECV <-%d %lluB", e->rpeer, (unsigned long long)e->rbytes);
        break;
    case REF_SENDRECV:
        snprintf(buf, len, "SENDRECV ->%d %lluB <-%d %lluB", e->speer,
                 (unsigned long long)e->sbytes, e->rpeer, (unsigned long long)e->rbytes);
        break;
    case REF_REDUCE:
        snprintf(buf, len, "REDUCE %lluB", (unsigned long long)e->red);
        break;
    case REF_EMPTY:
        snprintf(buf, len, "EMPTY STEP");
        break;
    default:
        snprintf(buf, len, "kind %d?", e->kind);
    }
}

/* ---- the "MPI runtime" seen by one rank ---------------------------------------- */


void ref_fail(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    if (!err || !errlen)
        return;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

/* Size of the k-th message from src to x->rank in the previous run, or the
 * posted size if there is none (yet). */
static MPI_Aint match_size(rctx_t *x, int src, MPI_Aint cap, int *matched)
{
    int k = x->nrecv_from[src]++;
    *matched = 0;
    if (!x->prev)
        return cap;
    const ref_evlist_t *s = &x->prev[src];
    for (int i = 0; i < s->n; i++) {
        const ref_ev_t *e = &s->v[i];
        if ((e->kind == REF_SEND || e->kind == REF_SENDRECV) && e->speer == x->rank) {
            if (k-- == 0) {
                *matched = 1;
                return (MPI_Aint)e->sbytes;
            }
        }
    }
    return cap;
}

void MPIC_Send(rctx_t *x, int dst, MPI_Aint bytes)
{
    ref_ev_t e = {REF_SEND, dst, (uint64_t)bytes, -1, 0, 0, 0, 0};
    if (ref_evl_push(x->out, &e))
        x->oom = 1;
}

/* returns the received size (MPIR_Get_count) */
MPI_Aint MPIC_Recv(rctx_t *x, int src, MPI_Aint cap)
{
    int m;
    MPI_Aint got = match_size(x, src, cap, &m);
    ref_ev_t e = {REF_RECV, -1, 0, src, (uint64_t)got, 0, (uint64_t)cap, m};
    if (ref_evl_push(x->out, &e))
        x->oom = 1;
    return got;
}

MPI_Aint MPIC_Sendrecv(rctx_t *x, int dst, MPI_Aint sbytes, int src, MPI_Aint rcap)
{
    int m;
    MPI_Aint got = match_size(x, src, rcap, &m);
    ref_ev_t e = {REF_SENDRECV, dst, (uint64_t)sbytes, src, (uint64_t)got, 0, (uint64_t)rcap, m};
    if (ref_evl_push(x->out, &e))
        x->oom = 1;
    return got;
}

void MPIR_Reduce_local(rctx_t *x, MPI_Aint count)
{
    if (count <= 0)
        return; /* MPIR_Reduce_local with count 0 does nothing */
    ref_ev_t e = {REF_REDUCE, -1, 0, -1, 0, (uint64_t)(count * x->esize), 0, 0};
    if (ref_evl_push(x->out, &e))
        x->oom = 1;
}

/* comm_ptr->pof2: largest power of two <= comm_size (MPL_pof2) */
int comm_pof2(int comm_size)
{
    int p = 1;
    while (p * 2 <= comm_size)
        p *= 2;
    return p;
}

/* ==== default selection ===================================================== */

static int is_pof2(int n) { return n > 0 && !(n & (n - 1)); }

static MPI_Aint rs_count(const mf_bl_call_t *c, int i)
{
    return (MPI_Aint)((c->counts ? c->counts[i] : c->bytes) / c->esize);
}

/*
 * MPICH 4.0: MPIR_<Coll>_impl with MPIR_CVAR_<COLL>_INTRA_ALGORITHM=auto calls
 * MPIR_<Coll>_allcomm_auto, which asks MPIR_Csel_search (src/mpi/coll/src/
 * csel.c) with the tree built from maint/tuning/coll/mpir/generic.json
 * (compiled in as MPII_coll_generic_json).  The ch4 device's own tree
 * (maint/tuning/coll/ch4/generic.json) sends a flat communicator
 * ("comm_hierarchy=any") to composition beta/gamma, i.e. to the netmod, which
 * calls MPIR_<Coll>_impl.  The MPIR_CVAR_*_SHORT/LONG_MSG_SIZE CVARs of the
 * older MPIR_<Coll>_intra_auto are still declared but no longer consulted.
 *
 * csel.c measures: avg_msg_size = type_size * count (bcast, reduce,
 * allreduce); total_msg_size = type_size * recvcount * comm_size (allgather),
 * type_size * sum(recvcounts) (reduce_scatter); count<pow2 compares the
 * element count with comm_ptr->pof2; comm_size<N is resolved with '<' when the
 * tree is pruned for the communicator (MPIR_Csel_prune).
 *
 * generic.json (pmodels/mpich 7e03fe85), flat intracommunicator:
 *   bcast:     comm_size<8 -> binomial;
 *              comm_size=pow2: avg<=12288 binomial, avg<=524288
 *                              scatter_recursive_doubling_allgather, else
 *                              scatter_ring_allgather;
 *              any: avg<=12288 binomial, else scatter_ring_allgather
 *   allreduce: avg<=0 (commutative) smp; avg<=8 recursive_doubling;
 *              built-in op: count<pof2 recursive_doubling, else
 *              reduce_scatter_allgather
 *   reduce:    avg<=2048 binomial; built-in op: count<pof2 binomial, else
 *              reduce_scatter_gather
 *   allgather: pow2: total<524288 recursive_doubling, else ring;
 *              any: total<81920 brucks, else ring
 *   reduce_scatter (commutative): total<524288 recursive_halving, else pairwise
 *   gather, scatter: binomial
 *   barrier:   k_dissemination, k=2 (= dissemination)
 */
mf_bl_alg_t ref_select(const mf_bl_call_t *c)
{
    int comm_size = c->size;
    int pof2 = comm_pof2(comm_size);
    MPI_Aint esz = (MPI_Aint)c->esize;
    MPI_Aint count = (MPI_Aint)c->bytes / esz;
    MPI_Aint avg_msg_size = count * esz;

    switch (c->opc) {
    case MF_OPC_BARRIER:
        return MF_BL_BARRIER_DISSEMINATION;
    case MF_OPC_BCAST:
        if (comm_size < 8)
            return MF_BL_BCAST_BINOMIAL;
        if (is_pof2(comm_size)) {
            if (avg_msg_size <= 12288)
                return MF_BL_BCAST_BINOMIAL;
            if (avg_msg_size <= 524288)
                return MF_BL_BCAST_SCATTER_RD_ALLGATHER;
            return MF_BL_BCAST_SCATTER_RING_ALLGATHER;
        }
        if (avg_msg_size <= 12288)
            return MF_BL_BCAST_BINOMIAL;
        return MF_BL_BCAST_SCATTER_RING_ALLGATHER;
    case MF_OPC_ALLREDUCE:
        /* avg_msg_size<=0 with a commutative op selects MPIR_Allreduce_intra_smp,
         * which this model does not have; count 0 moves no data anyway. */
        if (avg_msg_size <= 8)
            return MF_BL_ALLREDUCE_RECURSIVE_DOUBLING;
        if (count < pof2)
            return MF_BL_ALLREDUCE_RECURSIVE_DOUBLING;
        return MF_BL_ALLREDUCE_REDUCE_SCATTER_ALLGATHER;
    case MF_OPC_REDUCE:
        if (avg_msg_size <= 2048)
            return MF_BL_REDUCE_BINOMIAL;
        if (count < pof2)
            return MF_BL_REDUCE_BINOMIAL;
        return MF_BL_REDUCE_SCATTER_GATHER;
    case MF_OPC_ALLGATHER: {
        MPI_Aint total_msg_size = esz * count * comm_size;
        if (is_pof2(comm_size))
            return total_msg_size < 524288 ? MF_BL_ALLGATHER_RECURSIVE_DOUBLING
                                           : MF_BL_ALLGATHER_RING;
        return total_msg_size < 81920 ? MF_BL_ALLGATHER_BRUCK : MF_BL_ALLGATHER_RING;
    }
    case MF_OPC_REDUCE_SCATTER: {
        MPI_Aint total = 0;
        for (int i = 0; i < comm_size; i++)
            total += rs_count(c, i);
        return total * esz < 524288 ? MF_BL_REDUCE_SCATTER_RECURSIVE_HALVING
                                    : MF_BL_REDUCE_SCATTER_PAIRWISE;
    }
    case MF_OPC_SCATTER:
        return MF_BL_SCATTER_BINOMIAL;
    case MF_OPC_GATHER:
        return MF_BL_GATHER_BINOMIAL;
    default:
        return MF_BL_NALGS;
    }
}

/* ==== driver ================================================================ */

static mf_opcode_t alg_opcode(mf_bl_alg_t a)
{
    switch (a) {
    case MF_BL_BCAST_BINOMIAL:
    case MF_BL_BCAST_SCATTER_RD_ALLGATHER:
    case MF_BL_BCAST_SCATTER_RING_ALLGATHER:
        return MF_OPC_BCAST;
    case MF_BL_REDUCE_BINOMIAL:
    case MF_BL_REDUCE_SCATTER_GATHER:
        return MF_OPC_REDUCE;
    case MF_BL_ALLREDUCE_RECURSIVE_DOUBLING:
    case MF_BL_ALLREDUCE_REDUCE_SCATTER_ALLGATHER:
        return MF_OPC_ALLREDUCE;
    case MF_BL_ALLGATHER_RECURSIVE_DOUBLING:
    case MF_BL_ALLGATHER_BRUCK:
    case MF_BL_ALLGATHER_RING:
        return MF_OPC_ALLGATHER;
    case MF_BL_REDUCE_SCATTER_RECURSIVE_HALVING:
    case MF_BL_REDUCE_SCATTER_PAIRWISE:
        return MF_OPC_REDUCE_SCATTER;
    case MF_BL_SCATTER_BINOMIAL:
        return MF_OPC_SCATTER;
    case MF_BL_GATHER_BINOMIAL:
        return MF_OPC_GATHER;
    case MF_BL_BARRIER_DISSEMINATION:
        return MF_OPC_BARRIER;
    default:
        return MF_OPC_COUNT;
    }
}

int ref_applies(const mf_bl_call_t *c, mf_bl_alg_t alg, char *err, size_t errlen)
{
    if ((int)alg < 0 || alg >= MF_BL_NALGS || alg_opcode(alg) != c->opc) {
        ref_fail(err, errlen, "algorithm %d is not one of opcode %d", (int)alg, (int)c->opc);
        return 0;
    }
    if (c->size < 1 || c->esize == 0) {
        ref_fail(err, errlen, "bad call (size %d, esize %zu)", c->size, c->esize);
        return 0;
    }
    MPI_Aint count = (MPI_Aint)c->bytes / (MPI_Aint)c->esize;
    int pof2 = comm_pof2(c->size);
    switch (alg) {
    case MF_BL_ALLGATHER_RECURSIVE_DOUBLING:
        if (!is_pof2(c->size)) {
            /* MPIR_Assert(!(comm_size & (comm_size - 1))) */
            ref_fail(err, errlen, "allgather recursive doubling: MPICH asserts pof2 comm_size");
            return 0;
        }
        break;
    case MF_BL_REDUCE_SCATTER_GATHER:
    case MF_BL_ALLREDUCE_REDUCE_SCATTER_ALLGATHER:
        if (count < pof2) {
            /* MPIR_Assert(count >= pof2) */
            ref_fail(err, errlen, "Rabenseifner: MPICH asserts count (%lld) >= pof2 (%d)",
                 (long long)count, pof2);
            return 0;
        }
        break;
    default:
        break;
    }
    if ((c->opc == MF_OPC_BCAST || c->opc == MF_OPC_REDUCE || c->opc == MF_OPC_SCATTER ||
         c->opc == MF_OPC_GATHER) &&
        (c->root < 0 || c->root >= c->size)) {
        ref_fail(err, errlen, "root %d out of range", c->root);
        return 0;
    }
    return 1;
}

static void run_rank(rctx_t *x, const mf_bl_call_t *c, mf_bl_alg_t alg, const MPI_Aint *rc)
{
    MPI_Aint count = (MPI_Aint)c->bytes / x->esize;
    switch (alg) {
    case MF_BL_BCAST_BINOMIAL:
        ref_bcast_intra_binomial(x, count, c->root);
        break;
    case MF_BL_BCAST_SCATTER_RD_ALLGATHER:
        ref_bcast_intra_scatter_recursive_doubling_allgather(x, count, c->root);
        break;
    case MF_BL_BCAST_SCATTER_RING_ALLGATHER:
        ref_bcast_intra_scatter_ring_allgather(x, count, c->root);
        break;
    case MF_BL_REDUCE_BINOMIAL:
        ref_reduce_intra_binomial(x, count, c->root);
        break;
    case MF_BL_REDUCE_SCATTER_GATHER:
        ref_reduce_intra_reduce_scatter_gather(x, count, c->root);
        break;
    case MF_BL_ALLREDUCE_RECURSIVE_DOUBLING:
        ref_allreduce_intra_recursive_doubling(x, count);
        break;
    case MF_BL_ALLREDUCE_REDUCE_SCATTER_ALLGATHER:
        ref_allreduce_intra_reduce_scatter_allgather(x, count);
        break;
    case MF_BL_ALLGATHER_RECURSIVE_DOUBLING:
        ref_allgather_intra_recursive_doubling(x, count);
        break;
    case MF_BL_ALLGATHER_BRUCK:
        ref_allgather_intra_brucks(x, count);
        break;
    case MF_BL_ALLGATHER_RING:
        ref_allgather_intra_ring(x, count);
        break;
    case MF_BL_REDUCE_SCATTER_RECURSIVE_HALVING:
        ref_reduce_scatter_intra_recursive_halving(x, rc);
        break;
    case MF_BL_REDUCE_SCATTER_PAIRWISE:
        ref_reduce_scatter_intra_pairwise(x, rc);
        break;
    case MF_BL_SCATTER_BINOMIAL:
        ref_scatter_intra_binomial(x, count, c->root);
        break;
    case MF_BL_GATHER_BINOMIAL:
        ref_gather_intra_binomial(x, count, c->root);
        break;
    case MF_BL_BARRIER_DISSEMINATION:
        ref_barrier_intra_dissemination(x);
        break;
    default:
        break;
    }
}

static int lists_equal(const ref_evlist_t *a, const ref_evlist_t *b, int size)
{
    for (int r = 0; r < size; r++) {
        if (a[r].n != b[r].n)
            return 0;
        for (int i = 0; i < a[r].n; i++)
            if (!ref_ev_equal(&a[r].v[i], &b[r].v[i]))
                return 0;
    }
    return 1;
}

static void free_lists(ref_evlist_t *l, int size)
{
    if (!l)
        return;
    for (int r = 0; r < size; r++)
        ref_evlist_free(&l[r]);
    free(l);
}

int ref_schedule_all(const mf_bl_call_t *c, mf_bl_alg_t alg, ref_evlist_t *out, char *err,
                     size_t errlen)
{
    int size = c->size, rc = -1;
    if (!ref_applies(c, alg, err, errlen))
        return -1;

    MPI_Aint *recvcounts = calloc((size_t)size, sizeof *recvcounts);
    int *nrecv = calloc((size_t)size, sizeof *nrecv);
    int *size_err = calloc((size_t)size, sizeof *size_err);
    ref_evlist_t *prev = NULL, *cur = NULL;
    if (!recvcounts || !nrecv || !size_err)
        goto oom;
    for (int i = 0; i < size; i++)
        recvcounts[i] = rs_count(c, i);

    /* Each run feeds every receive the size of its matching send in the
     * previous run; a size is right once the sizes it depends on are, so the
     * runs reach a fixed point after at most (longest chain of dependent
     * messages + 1) runs. */
    for (int run = 0; run < 4 * size + 16; run++) {
        cur = calloc((size_t)size, sizeof *cur);
        if (!cur)
            goto oom;
        memset(size_err, 0, (size_t)size * sizeof *size_err);
        for (int r = 0; r < size; r++) {
            memset(nrecv, 0, (size_t)size * sizeof *nrecv);
            rctx_t x = {r, size, (MPI_Aint)c->esize, &cur[r], prev, nrecv, 0, size_err};
            run_rank(&x, c, alg, recvcounts);
            if (x.oom)
                goto oom;
        }
        if (prev && lists_equal(prev, cur, size)) {
            for (int r = 0; r < size; r++)
                if (size_err[r]) {
                    ref_fail(err, errlen, "rank %d: MPICH's received-size check fails", r);
                    goto done;
                }
            /* fixed point: every receive must have found its send and fit */
            for (int r = 0; r < size; r++)
                for (int i = 0; i < cur[r].n; i++) {
                    const ref_ev_t *e = &cur[r].v[i];
                    if (e->kind != REF_RECV && e->kind != REF_SENDRECV)
                        continue;
                    if (!e->matched) {
                        ref_fail(err, errlen, "rank %d event %d: receive from %d has no matching send",
                             r, i, e->rpeer);
                        goto done;
                    }
                    if (e->rbytes > e->rcap) {
                        ref_fail(err, errlen, "rank %d event %d: %llu B from %d exceed the posted %llu",
                             r, i, (unsigned long long)e->rbytes, e->rpeer,
                             (unsigned long long)e->rcap);
                        goto done;
                    }
                }
            for (int r = 0; r < size; r++) {
                ref_evlist_free(&out[r]);
                out[r] = cur[r];
            }
            free(cur);
            cur = NULL;
            rc = 0;
            goto done;
        }
        free_lists(prev, size);
        prev = cur;
        cur = NULL;
    }
    ref_fail(err, errlen, "no fixed point of the received sizes");
    goto done;
oom:
    ref_fail(err, errlen, "out of memory");
done:
    free_lists(prev, size);
    free_lists(cur, size);
    free(recvcounts);
    free(nrecv);
    free(size_err);
    return rc;
}

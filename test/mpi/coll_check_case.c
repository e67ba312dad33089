/* coll_check: one case (coll_check.h). */
#include "coll_check.h"

/* ------------------------------------------------------------------------ */
/* One case                                                                  */
/* ------------------------------------------------------------------------ */

int do_call(int pm, const case_t *c, bufs_t *b, MPI_Comm comm, int p, int root,
            const int *rc, const MPI_Count *rcc)
{
    MPI_Datatype t = types[c->type].t;
    MPI_Op op = c->op < NOPS ? ops[c->op] : MPI_OP_NULL;
    int n = (int)c->count;
    MPI_Count nc = (MPI_Count)c->count;
    int L = c->var == V_LARGE;
    (void)p;
    switch (c->coll) {
    case C_ALLREDUCE:
        return L ? CALL(pm, MPI_Allreduce_c, b->sb, b->rb, nc, t, op, comm)
                 : CALL(pm, MPI_Allreduce, b->sb, b->rb, n, t, op, comm);
    case C_REDUCE:
        return L ? CALL(pm, MPI_Reduce_c, b->sb, b->rb, nc, t, op, root, comm)
                 : CALL(pm, MPI_Reduce, b->sb, b->rb, n, t, op, root, comm);
    case C_BCAST:
        return L ? CALL(pm, MPI_Bcast_c, b->rb, nc, t, root, comm)
                 : CALL(pm, MPI_Bcast, b->rb, n, t, root, comm);
    case C_SCATTER:
        return L ? CALL(pm, MPI_Scatter_c, b->sb, nc, t, b->rb, nc, t, root, comm)
                 : CALL(pm, MPI_Scatter, b->sb, n, t, b->rb, n, t, root, comm);
    case C_GATHER:
        return L ? CALL(pm, MPI_Gather_c, b->sb, nc, t, b->rb, nc, t, root, comm)
                 : CALL(pm, MPI_Gather, b->sb, n, t, b->rb, n, t, root, comm);
    case C_ALLGATHER:
        return L ? CALL(pm, MPI_Allgather_c, b->sb, nc, t, b->rb, nc, t, comm)
                 : CALL(pm, MPI_Allgather, b->sb, n, t, b->rb, n, t, comm);
    case C_RS:
        return L ? CALL(pm, MPI_Reduce_scatter_c, b->sb, b->rb, rcc, t, op, comm)
                 : CALL(pm, MPI_Reduce_scatter, b->sb, b->rb, rc, t, op, comm);
    case C_RSB:
        return L ? CALL(pm, MPI_Reduce_scatter_block_c, b->sb, b->rb, nc, t, op, comm)
                 : CALL(pm, MPI_Reduce_scatter_block, b->sb, b->rb, n, t, op, comm);
    case C_BARRIER:
        return CALL(pm, MPI_Barrier, comm);
    }
    return MPI_ERR_OTHER;
}

/* Lay out and fill one buffer set.  Returns the region of rb to compare. */
void setup(const case_t *c, bufs_t *b, int r, int p, int root, long total_rs,
           long rsoff, uint64_t seed, long *cmp_off, long *cmp_n)
{
    int t = c->type, sz = types[t].size, op = c->op;
    long n = c->count;
    int ip = c->var == V_INPLACE;
    int isroot = r == root;
    long sendn = 0, recvn = 0;
    int send_null = 0, recv_null = 0;
    *cmp_off = 0;
    *cmp_n = 0;
    switch (c->coll) {
    case C_ALLREDUCE: sendn = n; recvn = n; *cmp_n = n; break;
    case C_REDUCE:    sendn = n; recvn = n; recv_null = !isroot; *cmp_n = isroot ? n : 0; break;
    case C_BCAST:     send_null = 1; recvn = n; *cmp_n = n; break;
    case C_SCATTER:   sendn = (long)p * n; send_null = !isroot; recvn = n; *cmp_n = n; break;
    case C_GATHER:    sendn = n; recvn = (long)p * n; recv_null = !isroot; *cmp_n = isroot ? recvn : 0; break;
    case C_ALLGATHER: sendn = n; recvn = (long)p * n; *cmp_n = recvn; break;
    case C_RS:        sendn = total_rs; recvn = n; *cmp_n = n; break;  /* n = my recvcount */
    case C_RSB:       sendn = (long)p * n; recvn = n; *cmp_n = n; break;
    default: break;
    }
    b->send.p = b->recv.p = NULL;
    b->sb = NULL;
    b->rb = NULL;
    if (!ip) {
        if (!send_null) {
            b->send = galloc(sendn * sz, JUNK_BYTE);
            fill_gen(b->send.p, 0, sendn, 0, t, op, seed, wrank);
            b->sb = b->send.p;
        }
        if (!recv_null) {
            b->recv = galloc(recvn * sz, JUNK_BYTE);
            b->rb = b->recv.p;
            if (c->coll == C_BCAST && isroot)
                fill_gen(b->recv.p, 0, n, 0, t, op, seed, wrank);
        }
        return;
    }
    /* MPI_IN_PLACE layouts */
    switch (c->coll) {
    case C_ALLREDUCE:
        b->recv = galloc(n * sz, JUNK_BYTE);
        fill_gen(b->recv.p, 0, n, 0, t, op, seed, wrank);
        b->sb = MPI_IN_PLACE; b->rb = b->recv.p;
        break;
    case C_REDUCE:
        if (isroot) {
            b->recv = galloc(n * sz, JUNK_BYTE);
            fill_gen(b->recv.p, 0, n, 0, t, op, seed, wrank);
            b->sb = MPI_IN_PLACE; b->rb = b->recv.p;
        } else {
            b->send = galloc(n * sz, JUNK_BYTE);
            fill_gen(b->send.p, 0, n, 0, t, op, seed, wrank);
            b->sb = b->send.p;
        }
        break;
    case C_SCATTER: /* root: recvbuf = MPI_IN_PLACE, its block stays in sendbuf */
        if (isroot) {
            b->send = galloc((long)p * n * sz, JUNK_BYTE);
            fill_gen(b->send.p, 0, (long)p * n, 0, t, op, seed, wrank);
            b->sb = b->send.p; b->rb = MPI_IN_PLACE;
            *cmp_n = 0;
        } else {
            b->recv = galloc(n * sz, JUNK_BYTE);
            b->rb = b->recv.p;
        }
        break;
    case C_GATHER: /* root: sendbuf = MPI_IN_PLACE, its block already in place */
        if (isroot) {
            b->recv = galloc((long)p * n * sz, JUNK_BYTE);
            fill_gen(b->recv.p, (long)root * n, n, 0, t, op, seed, wrank);
            b->sb = MPI_IN_PLACE; b->rb = b->recv.p;
        } else {
            b->send = galloc(n * sz, JUNK_BYTE);
            fill_gen(b->send.p, 0, n, 0, t, op, seed, wrank);
            b->sb = b->send.p;
        }
        break;
    case C_ALLGATHER:
        b->recv = galloc((long)p * n * sz, JUNK_BYTE);
        fill_gen(b->recv.p, (long)r * n, n, 0, t, op, seed, wrank);
        b->sb = MPI_IN_PLACE; b->rb = b->recv.p;
        break;
    case C_RS: /* input = whole recvbuf, result in its first recvcounts[r] */
        b->recv = galloc(total_rs * sz, JUNK_BYTE);
        fill_gen(b->recv.p, 0, total_rs, 0, t, op, seed, wrank);
        b->sb = MPI_IN_PLACE; b->rb = b->recv.p;
        break;
    case C_RSB:
        b->recv = galloc((long)p * n * sz, JUNK_BYTE);
        fill_gen(b->recv.p, 0, (long)p * n, 0, t, op, seed, wrank);
        b->sb = MPI_IN_PLACE; b->rb = b->recv.p;
        break;
    default: break;
    }
    (void)rsoff;
}

void free_bufs(bufs_t *b)
{
    free(b->send.p);
    free(b->recv.p);
}

void describe(char *d, size_t len, const case_t *c, int p, int root)
{
    char tp[80] = "";
    if (c->coll != C_BARRIER)
        snprintf(tp, sizeof tp, " %s%s%s count=%ld", types[c->type].name,
                 c->op < NOPS ? " " : "", c->op < NOPS ? opnames[c->op] : "", c->count);
    char rt[32] = "";
    if (is_rooted(c->coll))
        snprintf(rt, sizeof rt, " root=%d", root);
    snprintf(d, len, "%s%s %s(p=%d)%s%s%s%s", collmpi[c->coll],
             c->var == V_LARGE ? "_c" : "", shapenames[c->shape], p, tp, rt,
             varnames[c->var == V_INPLACE ? 1 : 0], c->nonstd ? " [mpich-ext]" : "");
}

uint64_t case_seed;

/* Debian's MPICH 4.0.2 compares unsigned integers as signed in MPI_MIN and
 * MPI_MAX (pmodels/mpich#6083, fixed upstream by #6085), so its PMPI_ result
 * is wrong there.  For those (type, op) pairs the expected result is not
 * taken from PMPI: it is computed here in C, with an unsigned comparison,
 * from every rank's input, regenerated from (seed, world rank, index) -- the
 * inputs of every reducing collective are fill_gen(..., 0, len, 0, ...). */
int pmpi_always; /* --pmpi-reference: MPICH's answer even where it is wrong */

int mpich_unsigned_minmax(const case_t *c)
{
    return types[c->type].kind == K_UINT && (c->op == O_MIN || c->op == O_MAX);
}

/* rb[off + k] = MIN/MAX over the ranks of comm of input element base + k. */
void unsigned_minmax_ref(const case_t *c, void *rb, long off, long n, long base,
                         MPI_Comm comm, int p, uint64_t seed)
{
    int t = c->type, sz = types[t].size;
    MPI_Group g, wg;
    int *cr = malloc(sizeof(int) * p), *wr = malloc(sizeof(int) * p);
    PMPI_Comm_group(comm, &g);
    PMPI_Comm_group(MPI_COMM_WORLD, &wg);
    for (int q = 0; q < p; q++)
        cr[q] = q;
    PMPI_Group_translate_ranks(g, p, cr, wg, wr); /* comm rank -> world rank */
    PMPI_Group_free(&g);
    PMPI_Group_free(&wg);
    for (long k = 0; k < n; k++) {
        uint64_t best = 0;
        for (int q = 0; q < p; q++) {
            unsigned char e[8];
            uint64_t v = 0;
            gen_elem(e, 0, base + k, t, c->op, seed, wr[q]);
            memcpy(&v, e, sz); /* little-endian, zero-extended */
            if (q == 0 || (c->op == O_MIN ? v < best : v > best))
                best = v;
        }
        memcpy((char *)rb + (off + k) * sz, &best, sz);
    }
    free(cr);
    free(wr);
}

void run_case(case_t *c)
{
    MPI_Comm comm = shape_comm[c->shape];
    int r, p;
    MPI_Comm_rank(comm, &r);
    MPI_Comm_size(comm, &p);
    int root = c->rootsel ? p - 1 : 0;
    char desc[200];
    describe(desc, sizeof desc, c, p, root);
    if (list_only) {
        if (wrank == 0)
            printf("%s\n", desc);
        return;
    }
    uint64_t seed = ++case_seed * 1000003u;
    cur_ok = 1;
    cur_msg[0] = 0;
    if (verbose)
        fprintf(stderr, "# rank %d running: %s\n", wrank, desc);

    if (c->coll == C_BARRIER) {
        int rc = MPI_Barrier(comm);
        if (rc != MPI_SUCCESS)
            fail("MPI_Barrier returned %d", rc);
        record(desc);
        return;
    }

    /* Reduce_scatter: unequal recvcounts, one of them zero (if p > 1). */
    int *rcounts = NULL;
    MPI_Count *rcc = NULL;
    long total = 0, myoff = 0, myn = c->count;
    if (c->coll == C_RS) {
        rcounts = malloc(sizeof(int) * p);
        rcc = malloc(sizeof(MPI_Count) * p);
        for (int i = 0; i < p; i++) {
            long v = c->count == 0 ? 0 : c->count + (i % 3) - 1; /* count-1, count, count+1 */
            if (v < 0) v = 0;
            if (p > 1 && i == p / 2) v = 0;
            if (p > 1 && c->count > 0 && i == 0 && v == 0) v = 1;
            rcounts[i] = (int)v;
            rcc[i] = v;
            if (i < r) myoff += v;
            total += v;
        }
        myn = rcounts[r];
    }
    case_t cc = *c;
    if (c->coll == C_RS)
        cc.count = myn;

    bufs_t got, exp;
    long off, n, off2, n2;
    setup(&cc, &got, r, p, root, total, myoff, seed, &off, &n);
    setup(&cc, &exp, r, p, root, total, myoff, seed, &off2, &n2);
    cc.count = c->count;

    int rc = do_call(0, &cc, &got, comm, p, root, rcounts, rcc);
    int rce = MPI_SUCCESS;
    if (mpich_unsigned_minmax(c) && !pmpi_always) {
        /* the input block this rank's result reduces */
        long base = c->coll == C_RS ? myoff : c->coll == C_RSB ? (long)r * c->count : 0;
        if (exp.rb && n2 > 0)
            unsigned_minmax_ref(c, exp.rb, off2, n2, base, comm, p, seed);
    } else {
        rce = do_call(1, &cc, &exp, comm, p, root, rcounts, rcc);
    }
    if (rc != MPI_SUCCESS) {
        char es[MPI_MAX_ERROR_STRING];
        int l;
        PMPI_Error_string(rc, es, &l);
        fail("%s returned %d (%s)", collmpi[c->coll], rc, es);
    }
    if (rce != MPI_SUCCESS)
        fail("PMPI reference returned %d", rce);
    if (cur_ok) {
        compare("result", got.rb, exp.rb, off, n, c->type);
        if (got.send.p && memcmp(got.send.p, exp.send.p, got.send.bytes))
            fail("send buffer modified by the call");
        if (got.send.p && !guard_ok(&got.send))
            fail("write past the end of the send buffer");
        if (got.recv.p && !guard_ok(&got.recv))
            fail("write past the end of the receive buffer (%zu bytes)", got.recv.bytes);
    }
    free_bufs(&got);
    free_bufs(&exp);
    free(rcounts);
    free(rcc);
    record(desc);
}

/* Non-exact doubles: MPI_Allreduce SUM must give bit-identical results on
 * every rank of the communicator (not compared with PMPI). */
void run_nonexact(int shape, long n)
{
    MPI_Comm comm = shape_comm[shape];
    int r, p;
    MPI_Comm_rank(comm, &r);
    MPI_Comm_size(comm, &p);
    char desc[200];
    snprintf(desc, sizeof desc, "MPI_Allreduce %s(p=%d) MPI_DOUBLE SUM count=%ld random values: "
             "bit-identical on every rank", shapenames[shape], p, n);
    if (list_only) {
        if (wrank == 0) printf("%s\n", desc);
        return;
    }
    uint64_t seed = ++case_seed * 1000003u;
    cur_ok = 1;
    cur_msg[0] = 0;
    double *in = malloc(sizeof(double) * (n ? n : 1)), *out = malloc(sizeof(double) * (n ? n : 1));
    double *all = malloc(sizeof(double) * (n ? n : 1) * p);
    for (long i = 0; i < n; i++) {
        uint64_t h = hash3(seed, wrank, i);
        double m = (double)(h >> 11) / 9007199254740992.0 - 0.5;
        int e = (int)(h % 41) - 20;
        double s = 1;
        for (int k = 0; k < (e < 0 ? -e : e); k++) s *= 2;
        in[i] = e < 0 ? m / s : m * s;
    }
    int rc = MPI_Allreduce(in, out, (int)n, MPI_DOUBLE, MPI_SUM, comm);
    if (rc != MPI_SUCCESS)
        fail("MPI_Allreduce returned %d", rc);
    PMPI_Allgather(out, (int)n, MPI_DOUBLE, all, (int)n, MPI_DOUBLE, comm);
    for (int q = 0; q < p && cur_ok; q++)
        if (memcmp(all + (long)q * n, out, sizeof(double) * n))
            for (long i = 0; i < n; i++)
                if (memcmp(&all[(long)q * n + i], &out[i], 8)) {
                    fail("element %ld: comm rank %d has %.17g, comm rank %d has %.17g", i, r,
                         out[i], q, all[(long)q * n + i]);
                    break;
                }
    free(in); free(out); free(all);
    record(desc);
}

/* Barrier semantics: the last rank of the comm sleeps 100 ms before entering;
 * nobody may leave before that (generous 50 ms lower bound). */
void run_barrier_timing(int shape)
{
    MPI_Comm comm = shape_comm[shape];
    int r, p;
    MPI_Comm_rank(comm, &r);
    MPI_Comm_size(comm, &p);
    char desc[200];
    snprintf(desc, sizeof desc, "MPI_Barrier %s(p=%d): no rank leaves before the last one entered",
             shapenames[shape], p);
    if (list_only) {
        if (wrank == 0) printf("%s\n", desc);
        return;
    }
    cur_ok = 1;
    cur_msg[0] = 0;
    PMPI_Barrier(comm);
    double t0 = PMPI_Wtime();
    if (r == p - 1) {
        struct timespec ts = {0, 100000000};
        nanosleep(&ts, NULL);
    }
    int rc = MPI_Barrier(comm);
    double dt = PMPI_Wtime() - t0;
    if (rc != MPI_SUCCESS)
        fail("MPI_Barrier returned %d", rc);
    else if (p > 1 && dt < 0.05)
        fail("left MPI_Barrier after %.1f ms, the last rank sleeps 100 ms first", dt * 1e3);
    record(desc);
}
